// LinkView: a network device read straight from the dump's receive buffer. A dump consumed as
// views costs one pass over each message's attributes (an index by type) and nothing else: no
// allocation, no string copied. Each accessor reads its attribute when asked, with the same
// reader and the same rules as the owning decoder (the attribute tables in src/rtnl declare a
// field once for both); toInfo() makes today's owning LinkInfo when the caller wants to keep one.
//
//   fastlink::forEachLink(nl, LinkFilter{}, [&](const LinkView& l) {
//     if (l.kind() == "bridge") bridges.push_back(std::string(*l.name()));
//   });
//
// A view and everything it returns by reference (string views) point into the receive buffer,
// which the next datagram overwrites: they are valid only during the callback. A view cannot be
// copied or moved out of it; keep toInfo() (or copies of the values) instead. In the sanitizer
// build the buffer is poisoned once its messages have been handed out, so a string_view kept
// past its callback is reported by ASan where it is read.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string_view>

#include "fastlink/attr_index.hpp"
#include "fastlink/link.hpp"

namespace fastlink {

class Netlink;

class LinkView {
 public:
  /// A view over one RTM_NEWLINK message (netlink header included), as a dump hands it out.
  /// Throws Error(Errc::malformed_reply) when it is too short for its header, like the decoder.
  explicit LinkView(std::span<const uint8_t> message);
  LinkView(const LinkView&) = delete;
  LinkView& operator=(const LinkView&) = delete;
  /// Whether the view passes `filter` (its devices resolved to `indexes`), as list() decides.
  static bool matches(const LinkView& view, const LinkFilter& filter, const detail::DumpIndexes& indexes);

  // The ifinfomsg header: always there.
  uint32_t index() const;
  uint32_t flags() const;  ///< IFF_* bits
  uint16_t type() const;   ///< ARPHRD_* link type
  bool isUp() const;       ///< IFF_UP
  bool isRunning() const;  ///< IFF_RUNNING

  // Attributes: std::nullopt when the kernel did not send them. Strings are views into the
  // message (up to the attribute's NUL), valid during the callback only.
  std::optional<std::string_view> name() const;
  std::optional<uint32_t> mtu() const;
  std::optional<MacAddress> address() const;
  std::optional<MacAddress> broadcast() const;
  std::optional<uint32_t> group() const;
  std::optional<uint32_t> master() const;  ///< ifindex; the kernel sends none (or 0) without one
  uint32_t masterIndex() const;            ///< master().value_or(0), as LinkInfo::masterIndex
  std::optional<uint32_t> parent() const;  ///< IFLA_LINK: ifindex of the lower device
  std::optional<uint32_t> txqlen() const;
  std::optional<std::string_view> alias() const;
  std::optional<uint32_t> numTxQueues() const;
  std::optional<uint32_t> numRxQueues() const;
  std::optional<bool> carrier() const;
  std::optional<uint32_t> promiscuity() const;
  std::optional<uint32_t> minMtu() const;
  std::optional<uint32_t> maxMtu() const;
  std::optional<std::string_view> qdisc() const;
  std::optional<int32_t> linkNetnsId() const;
  std::optional<uint32_t> allmulti() const;
  std::optional<uint32_t> carrierChanges() const;
  std::optional<uint32_t> gsoMaxSize() const;
  std::optional<uint32_t> gsoMaxSegs() const;
  std::optional<uint32_t> tsoMaxSize() const;
  std::optional<uint32_t> tsoMaxSegs() const;
  std::optional<uint32_t> groMaxSize() const;
  std::optional<std::string_view> operState() const;  ///< "UP", "DOWN", ... as LinkInfo::operState
  std::optional<std::string_view> linkMode() const;   ///< "DEFAULT" or "DORMANT"
  std::optional<std::string_view> kind() const;       ///< IFLA_LINKINFO's IFLA_INFO_KIND
  std::optional<std::string_view> slaveKind() const;  ///< the master's kind when enslaved
  std::optional<Ipv6AddrGenMode> addrGenMode() const;
  std::optional<LinkStats> stats() const;             ///< IFLA_STATS64, whatever the filter says
  std::optional<XdpStatus> xdp() const;

  /// The payload of the top-level attribute of `type` (the last one, as decoded), if any.
  std::optional<std::span<const uint8_t>> attribute(uint16_t type) const { return attrs_.payload(type); }
  /// The message's bytes.
  std::span<const uint8_t> message() const { return attrs_.message(); }
  /// The owning LinkInfo, as get/list decode it (statistics only `withStats`).
  LinkInfo toInfo(bool withStats = false) const;

  /// Types below this are indexed (every IFLA_* type LinkView reads).
  static constexpr std::size_t kIndexedTypes = 72;
  /// The view's attribute index: offsets into its message.
  using Index = detail::AttrIndex<kIndexedTypes>;
  const Index& attributeIndex() const { return attrs_; }
  /// A view over `copy`, a byte copy of the message `index` was built over (`attributeIndex()`
  /// of its view), for a caller that keeps messages past their callback (`link show` holds a
  /// veth until its peer has arrived): the index is copied, not built again. Throws
  /// std::invalid_argument when `copy` is not as long as that message.
  LinkView(std::span<const uint8_t> copy, const Index& index);

 private:
  template <auto kMember>
  auto read() const;

  detail::AttrIndex<kIndexedTypes> attrs_;
};

/// `netlink.links().forEach(filter, ...)` as views: the dump (kind and master filtered by the
/// kernel, group and name pattern here) handed to `each` one view at a time, nothing decoded
/// or allocated until an accessor is called. If the kernel interrupts the dump it is restarted
/// and `restart` is called first. Each view is valid during its call only.
void forEachLink(Netlink& netlink, const LinkFilter& filter, const std::function<void(const LinkView&)>& each,
                 const std::function<void()>& restart = {});

}  // namespace fastlink
