// RouteInfo <-> RTM_NEWROUTE/RTM_DELROUTE/RTM_GETROUTE messages.
#pragma once

#include <linux/rtnetlink.h>

#include <cstring>
#include <span>

#include "fastlink/route.hpp"
#include "rtnl/codec_helpers.hpp"

namespace fastlink::rtnl {

/// Validates `route` for `verb` (Add, Del, Replace, Append) and encodes the whole request.
/// Throws Error(EINVAL) on bad input before anything is sent. Devices must be ifindexes.
Request encodeRoute(const RouteInfo& route, Verb verb);

/// The dump request for `filter` (RTM_GETROUTE; the engine adds NLM_F_DUMP). `oif` is the
/// resolved ifindex of filter.dev (0: none).
void encodeRouteDump(core::MessageWriter& writer, const RouteFilter& filter, uint32_t oif);

/// The lookup request for `query` (ifindexes already resolved into iif/oif).
void encodeRouteGet(core::MessageWriter& writer, const RouteQuery& query, uint32_t iif, uint32_t oif);

/// True when the message is an IPv4/IPv6 route (dumps with AF_UNSPEC also carry multicast
/// routes of other families, which are skipped).
inline bool isIpRoute(const nlmsghdr* m) { return m->nlmsg_type == RTM_NEWROUTE && hasFamily(m, kIpFamilies); }

/// Calls each(record, its attributes) for the rtnexthop records of an RTA_MULTIPATH payload (routes'
/// paths, multicast routes' output devices), each rtnh_len long and padded to 4; false at a
/// record that does not fit. Sums, not differences: a record's padding can take `at` past the end
/// (a last rtnh_len of 9 in a 10-byte payload steps to 12), where `size - at` would wrap.
template <class Each>
bool forEachNexthop(std::span<const uint8_t> bytes, Each&& each) {
  for (std::size_t at = 0; at + sizeof(rtnexthop) <= bytes.size();) {
    rtnexthop nh;
    std::memcpy(&nh, bytes.data() + at, sizeof nh);
    if (nh.rtnh_len < sizeof nh || at + nh.rtnh_len > bytes.size()) return false;
    each(nh, bytes.subspan(at + sizeof nh, nh.rtnh_len - sizeof nh));
    at += RTNH_ALIGN(nh.rtnh_len);
  }
  return true;
}

/// Decodes one RTM_NEWROUTE message into `out` (cleared first, so one RouteInfo can be reused
/// across a dump without allocating).
void decodeRoute(const nlmsghdr* message, RouteInfo& out);

}  // namespace fastlink::rtnl
