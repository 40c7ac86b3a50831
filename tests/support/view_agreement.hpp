// Does a view read what the owning decoder decodes? The unit tests (every golden message) and
// the fuzz harnesses (every input) ask the same question here: the first field on which a view
// (LinkView, RouteView, AddrView, NeighView) and the Info decoded from the same message differ,
// or "" when they agree on every field.
#pragma once

#include <algorithm>
#include <cstring>
#include <vector>
#include <optional>
#include <string>
#include <string_view>

#include "fastlink/addr_view.hpp"
#include "fastlink/link_view.hpp"
#include "fastlink/link_view_reads.hpp"
#include "fastlink/neigh_view.hpp"
#include "fastlink/route_view.hpp"

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

inline bool sameRaw(const RawAttributes& a, const RawAttributes& b) {
  // list() returns a new vector: keep both alive for the loop (an element of a temporary
  // would dangle; clang's -Wdangling-gsl caught it in the fuzz build).
  const std::vector<RawAttribute> as = a.list(), bs = b.list();
  if (as.size() != bs.size()) return false;
  for (std::size_t i = 0; i < as.size(); ++i) {
    const RawAttribute& x = as[i];
    const RawAttribute& y = bs[i];
    if (x.type != y.type || x.payload.size() != y.payload.size() ||
        !std::equal(x.payload.begin(), x.payload.end(), y.payload.begin()))
      return false;
  }
  return true;
}

inline bool sameMetrics(const std::optional<RouteMetrics>& a, const std::optional<RouteMetrics>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || (a->mtu == b->mtu && a->advmss == b->advmss && a->window == b->window && a->hoplimit == b->hoplimit &&
                a->initcwnd == b->initcwnd && a->initrwnd == b->initrwnd && a->lock == b->lock &&
                sameRaw(a->unknown, b->unknown));
}

inline bool samePaths(const std::vector<RoutePath>& a, const std::vector<RoutePath>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(a[i].gateway == b[i].gateway && a[i].dev == b[i].dev && a[i].weight == b[i].weight &&
          a[i].onlink == b[i].onlink && a[i].flags == b[i].flags))
      return false;
  return true;
}

inline bool sameStats(const std::optional<LinkStats>& a, const std::optional<LinkStats>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || std::memcmp(&*a, &*b, sizeof(LinkStats)) == 0;  // only uint64_t members: no padding
}

}  // namespace agreement

/// `info` must be decodeLink(message, true) of the view's message (statistics decoded).
// The view's accessor against the decoded member (an Ifref as its index, a string as a view).
#define FASTLINK_AGREE(accessor, member) \
  if (!(v.accessor() == agreement::owned(info.member))) return #accessor;

inline std::string linkViewDisagreement(const LinkView& v, const LinkInfo& info) {
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
  if (!agreement::sameStats(v.stats(), info.stats)) return "stats";
  // linkKindInfo: IFLA_LINKINFO alone, decoded as the whole message's decode decodes it.
  LinkInfo kind = linkKindInfo(v);
  if (kind.kind != info.kind) return "linkKindInfo kind";
  if (kind.slaveKind != info.slaveKind) return "linkKindInfo slaveKind";
  if (!(kind.unknownKindData == info.unknownKindData)) return "linkKindInfo unknownKindData";
  if (!(kind.slaveData == info.slaveData)) return "linkKindInfo slaveData";
  if (kind.veth.has_value() != info.veth.has_value() || kind.bridge.has_value() != info.bridge.has_value() ||
      kind.vxlan.has_value() != info.vxlan.has_value() || kind.macvlan.has_value() != info.macvlan.has_value() ||
      kind.vlan.has_value() != info.vlan.has_value() || kind.vrf.has_value() != info.vrf.has_value() ||
      kind.bond.has_value() != info.bond.has_value() || kind.typedKindOptions.type() != info.typedKindOptions.type())
    return "linkKindInfo options";
  if (kind.bridgePort.has_value() != info.bridgePort.has_value() || kind.bondPort.has_value() != info.bondPort.has_value() ||
      kind.vrfPort.has_value() != info.vrfPort.has_value())
    return "linkKindInfo port data";
  if (kind.name || kind.index || kind.mtu || kind.flags || !kind.unknown.empty() || kind.stats)
    return "linkKindInfo decoded more than IFLA_LINKINFO";
  return "";
}

/// `info` must be decodeRoute of the view's message.
inline std::string routeViewDisagreement(const RouteView& v, const RouteInfo& info) {
  FASTLINK_AGREE(table, table)
  FASTLINK_AGREE(type, type)
  FASTLINK_AGREE(protocol, protocol)
  FASTLINK_AGREE(scope, scope)
  FASTLINK_AGREE(tos, tos)
  FASTLINK_AGREE(flags, flags)
  if (v.onlink() != info.onlink) return "onlink";
  if (v.isCloned() != info.isCloned()) return "isCloned";
  if (v.family() != info.family()) return "family";
  if (v.devIndex() != info.devIndex()) return "devIndex";
  FASTLINK_AGREE(dst, dst)
  FASTLINK_AGREE(src, src)
  FASTLINK_AGREE(gateway, gateway)
  FASTLINK_AGREE(dev, dev)
  FASTLINK_AGREE(metric, metric)
  FASTLINK_AGREE(prefsrc, prefsrc)
  FASTLINK_AGREE(nhid, nhid)
  FASTLINK_AGREE(iif, iif)
  FASTLINK_AGREE(pref, pref)
  FASTLINK_AGREE(uid, uid)
  FASTLINK_AGREE(expires, expires)
  if (!agreement::sameMetrics(v.metrics(), info.metrics)) return "metrics";
  if (!info.paths.empty() && !v.isMultipath()) return "isMultipath";  // an empty RTA_MULTIPATH has no paths
  if (!agreement::samePaths(v.paths(), info.paths)) return "paths";
  return "";
}

/// `info` must be decodeAddr of the view's message.
inline std::string addrViewDisagreement(const AddrView& v, const AddrInfo& info) {
  if (v.devIndex() != info.devIndex()) return "devIndex";
  FASTLINK_AGREE(scope, scope)
  FASTLINK_AGREE(flags, flags)
  FASTLINK_AGREE(address, address)
  FASTLINK_AGREE(peer, peer)
  FASTLINK_AGREE(broadcast, broadcast)
  FASTLINK_AGREE(label, label)
  FASTLINK_AGREE(metric, metric)
  FASTLINK_AGREE(anycast, anycast)
  FASTLINK_AGREE(validLifetime, validLifetime)
  FASTLINK_AGREE(preferredLifetime, preferredLifetime)
  return "";
}

/// `info` must be decodeNeigh of the view's message.
inline std::string neighViewDisagreement(const NeighView& v, const NeighInfo& info) {
  if (v.devIndex() != info.devIndex()) return "devIndex";
  FASTLINK_AGREE(flags, flags)
  FASTLINK_AGREE(proxy, proxy)
  FASTLINK_AGREE(router, router)
  FASTLINK_AGREE(externLearn, externLearn)
  FASTLINK_AGREE(state, state)
  FASTLINK_AGREE(dst, dst)
  FASTLINK_AGREE(lladdr, lladdr)
  FASTLINK_AGREE(protocol, protocol)
  FASTLINK_AGREE(probes, probes)
  FASTLINK_AGREE(confirmedAgo, confirmedAgo)
  FASTLINK_AGREE(usedAgo, usedAgo)
  FASTLINK_AGREE(updatedAgo, updatedAgo)
  FASTLINK_AGREE(refcnt, refcnt)
  return "";
}
#undef FASTLINK_AGREE

}  // namespace fastlink::test
