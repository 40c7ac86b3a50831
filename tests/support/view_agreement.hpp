// Does a view read what the owning decoder decodes? The unit tests (every golden message) and
// the fuzz harness (every input) ask the same question here: the first field on which a LinkView
// and the LinkInfo decoded from the same message differ, or "" when they agree on every field.
#pragma once

#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "fastlink/link_view.hpp"

namespace fastlink::test {

namespace agreement {

inline std::optional<std::string_view> owned(const std::optional<std::string>& s) {
  return s ? std::optional<std::string_view>(*s) : std::nullopt;
}
inline std::optional<uint32_t> owned(const std::optional<Ifref>& r) {
  return r ? std::optional<uint32_t>(r->index()) : std::nullopt;
}
template <class T>
const std::optional<T>& owned(const std::optional<T>& v) {
  return v;
}

inline bool sameStats(const std::optional<LinkStats>& a, const std::optional<LinkStats>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || std::memcmp(&*a, &*b, sizeof(LinkStats)) == 0;  // only uint64_t members: no padding
}

}  // namespace agreement

/// `info` must be decodeLink(message, true) of the view's message (statistics decoded).
inline std::string linkViewDisagreement(const LinkView& v, const LinkInfo& info) {
  using agreement::owned;
#define FASTLINK_AGREE(accessor, member) \
  if (!(v.accessor() == owned(info.member))) return #accessor;
  if (info.index != v.index()) return "index";
  if (info.flags != v.flags()) return "flags";
  if (info.type != v.type()) return "type";
  if (info.admin != v.isUp()) return "isUp";
  if (info.isRunning() != v.isRunning()) return "isRunning";
  if (info.masterIndex() != v.masterIndex()) return "masterIndex";
  FASTLINK_AGREE(name, name)
  FASTLINK_AGREE(mtu, mtu)
  FASTLINK_AGREE(address, address)
  FASTLINK_AGREE(broadcast, broadcast)
  FASTLINK_AGREE(group, group)
  FASTLINK_AGREE(master, master)
  FASTLINK_AGREE(parent, parent)
  FASTLINK_AGREE(txqlen, txqlen)
  FASTLINK_AGREE(alias, alias)
  FASTLINK_AGREE(numTxQueues, numTxQueues)
  FASTLINK_AGREE(numRxQueues, numRxQueues)
  FASTLINK_AGREE(carrier, carrier)
  FASTLINK_AGREE(promiscuity, promiscuity)
  FASTLINK_AGREE(minMtu, minMtu)
  FASTLINK_AGREE(maxMtu, maxMtu)
  FASTLINK_AGREE(qdisc, qdisc)
  FASTLINK_AGREE(linkNetnsId, linkNetnsId)
  FASTLINK_AGREE(allmulti, allmulti)
  FASTLINK_AGREE(carrierChanges, carrierChanges)
  FASTLINK_AGREE(gsoMaxSize, gsoMaxSize)
  FASTLINK_AGREE(gsoMaxSegs, gsoMaxSegs)
  FASTLINK_AGREE(tsoMaxSize, tsoMaxSize)
  FASTLINK_AGREE(tsoMaxSegs, tsoMaxSegs)
  FASTLINK_AGREE(groMaxSize, groMaxSize)
  FASTLINK_AGREE(operState, operState)
  FASTLINK_AGREE(linkMode, linkMode)
  FASTLINK_AGREE(kind, kind)
  FASTLINK_AGREE(slaveKind, slaveKind)
  FASTLINK_AGREE(addrGenMode, addrGenMode)
  FASTLINK_AGREE(xdp, xdp)
#undef FASTLINK_AGREE
  if (!agreement::sameStats(v.stats(), info.stats)) return "stats";
  return "";
}

}  // namespace fastlink::test
