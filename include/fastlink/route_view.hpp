// RouteView: a route read straight from the dump's receive buffer, as LinkView reads a link
// (fastlink/link_view.hpp): one pass over the message's attributes, each field read when asked
// with the owning decoder's reader and rules (the route's attribute table declares a field once
// for both), toInfo() for an owning RouteInfo. Valid during the callback only.
//
//   nl.routes().forEach(RouteFilter().setTable(kTableMain), [&](const RouteView& r) {
//     if (r.devIndex() == uplink) ++count;
//   });
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "fastlink/attr_index.hpp"
#include "fastlink/route.hpp"

namespace fastlink {

class Netlink;

class RouteView {
 public:
  /// A view over one RTM_NEWROUTE message (netlink header included). Throws
  /// Error(Errc::malformed_reply) when it is too short for its header, like the decoder.
  explicit RouteView(std::span<const uint8_t> message);
  RouteView(const RouteView&) = delete;
  RouteView& operator=(const RouteView&) = delete;
  /// Whether the view passes `filter` (its devices resolved to `indexes`), as list() decides.
  static bool matches(const RouteView& view, const RouteFilter& filter, const detail::DumpIndexes& indexes);

  // The rtmsg header: always there (RouteInfo's members of the same names are always set).
  uint32_t table() const;  ///< RTA_TABLE, else the header's 8-bit table
  RouteType type() const;
  RouteProtocol protocol() const;
  Scope scope() const;
  uint8_t tos() const;
  uint32_t flags() const;  ///< rtm_flags (RTM_F_*, RTNH_F_*)
  bool onlink() const;     ///< RTNH_F_ONLINK
  bool isCloned() const;   ///< RTM_F_CLONED
  /// The family of dst (or of the gateway), as RouteInfo::family().
  IpAddress::Family family() const;

  /// RTA_DST with the header's length; the default route (0.0.0.0/0, ::/0) when absent.
  std::optional<Prefix> dst() const;
  std::optional<Prefix> src() const;  ///< RTA_SRC with rtm_src_len
  std::optional<IpAddress> gateway() const;
  std::optional<uint32_t> dev() const;  ///< RTA_OIF
  uint32_t devIndex() const;            ///< dev().value_or(0), as RouteInfo::devIndex
  std::optional<uint32_t> metric() const;
  std::optional<IpAddress> prefsrc() const;
  std::optional<uint32_t> nhid() const;
  std::optional<uint32_t> iif() const;
  std::optional<uint8_t> pref() const;
  std::optional<uint32_t> uid() const;
  std::optional<uint32_t> expires() const;  ///< seconds (RTA_CACHEINFO), when the route expires
  std::optional<RouteMetrics> metrics() const;
  bool isMultipath() const;                 ///< has RTA_MULTIPATH
  std::vector<RoutePath> paths() const;     ///< decoded when asked (allocates)

  /// The payload of the top-level attribute of `type` (the last one, as decoded), if any.
  std::optional<std::span<const uint8_t>> attribute(uint16_t type) const { return attrs_.payload(type); }
  std::span<const uint8_t> message() const { return attrs_.message(); }
  /// The owning RouteInfo, as list decodes it.
  RouteInfo toInfo() const;

  /// Types below this are indexed (every RTA_* type RouteView reads).
  static constexpr std::size_t kIndexedTypes = 32;

 private:
  template <auto kMember>
  auto read() const;
  const uint8_t* header() const;

  detail::AttrIndex<kIndexedTypes> attrs_;
};

/// `netlink.routes().forEach(filter, ...)` as views: each view is valid during its call only.
void forEachRoute(Netlink& netlink, const RouteFilter& filter, const std::function<void(const RouteView&)>& each,
                  const std::function<void()>& restart = {});

}  // namespace fastlink
