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
#include <cstring>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "fastlink/attr_index.hpp"
#include "fastlink/route.hpp"

namespace fastlink {

class Netlink;

namespace detail {
/// Where RouteView's inline readers find the route: the rtmsg header after the netlink header,
/// and the RTA_* types they read. Kernel ABI numbers, spelt here because kernel names stay out of
/// public headers; src/rtnl/route.cpp checks every one against <linux/rtnetlink.h> and the
/// route's FieldTable.
struct RouteWire {
  static constexpr std::size_t kHeaderAt = 16, kHeaderSize = 12;  // NLMSG_HDRLEN, sizeof(rtmsg)
  static constexpr std::size_t kFamily = 0, kDstLen = 1, kSrcLen = 2, kTos = 3, kTable = 4, kProtocol = 5,
                               kScope = 6, kType = 7, kFlags = 8;  // rtmsg's fields
  static constexpr uint16_t kDst = 1, kOif = 4, kGateway = 5, kPriority = 6, kTable32 = 15;  // RTA_*
  static constexpr uint8_t kInet = 2;                                                           // AF_INET
  static constexpr const char* kWhat = "decode route";
};
}  // namespace detail

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
  using Wire = detail::RouteWire;
  template <auto kMember>
  auto read() const;
  /// `message` if it holds the netlink and rtmsg headers, else the decoder's Error.
  static std::span<const uint8_t> checked(std::span<const uint8_t> message) {
    if (message.size() < Wire::kHeaderAt + Wire::kHeaderSize) tooShort();
    return message;
  }
  [[noreturn]] static void tooShort();
  const uint8_t* rtm() const { return attrs_.message().data() + Wire::kHeaderAt; }
  /// An address attribute of the route's family (4 or 16 bytes, a longer payload cut), as the
  /// decoder's readIp and the gateway's row read it.
  IpAddress addressAt(const uint8_t* a) const {
    std::size_t width = rtm()[Wire::kFamily] == Wire::kInet ? 4 : 16;
    uint16_t length;
    std::memcpy(&length, a, sizeof length);
    if (std::size_t{length} - 4 < width) detail::badAddressLength(length - 4u, Wire::kWhat);
    return IpAddress::fromBytes({a + 4, width});
  }
  /// The destination of a route without RTA_DST (out of line: the default routes are few).
  std::optional<Prefix> defaultDst() const;

  detail::AttrIndex<kIndexedTypes> attrs_;
};

// The readers every dump of many routes calls, inline (the rest are in src/rtnl/route.cpp).
inline RouteView::RouteView(std::span<const uint8_t> message) : attrs_(checked(message), Wire::kHeaderSize) {}
inline uint32_t RouteView::table() const {
  const uint8_t* a = attrs_.find(Wire::kTable32);
  return a ? detail::u32At(a) : rtm()[Wire::kTable];
}
inline RouteType RouteView::type() const { return static_cast<RouteType>(rtm()[Wire::kType]); }
inline RouteProtocol RouteView::protocol() const { return static_cast<RouteProtocol>(rtm()[Wire::kProtocol]); }
inline Scope RouteView::scope() const { return static_cast<Scope>(rtm()[Wire::kScope]); }
inline uint8_t RouteView::tos() const { return rtm()[Wire::kTos]; }
inline uint32_t RouteView::flags() const {
  uint32_t f;
  std::memcpy(&f, rtm() + Wire::kFlags, sizeof f);
  return f;
}
inline std::optional<Prefix> RouteView::dst() const {
  const uint8_t* a = attrs_.find(Wire::kDst);
  return a ? std::optional<Prefix>(Prefix(addressAt(a), rtm()[Wire::kDstLen])) : defaultDst();
}
inline std::optional<IpAddress> RouteView::gateway() const {
  const uint8_t* a = attrs_.find(Wire::kGateway);
  return a ? std::optional<IpAddress>(addressAt(a)) : std::nullopt;
}
inline std::optional<uint32_t> RouteView::dev() const {
  const uint8_t* a = attrs_.find(Wire::kOif);
  return a ? std::optional<uint32_t>(detail::u32At(a)) : std::nullopt;
}
inline uint32_t RouteView::devIndex() const {
  const uint8_t* a = attrs_.find(Wire::kOif);
  return a ? detail::u32At(a) : 0;
}
inline std::optional<uint32_t> RouteView::metric() const {
  const uint8_t* a = attrs_.find(Wire::kPriority);
  return a ? std::optional<uint32_t>(detail::u32At(a)) : std::nullopt;
}

/// `netlink.routes().forEach(filter, ...)` as views: each view is valid during its call only.
void forEachRoute(Netlink& netlink, const RouteFilter& filter, const std::function<void(const RouteView&)>& each,
                  const std::function<void()>& restart = {});

}  // namespace fastlink
