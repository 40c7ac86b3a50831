// Words of a route that both `route show` and the monitor print, as iproute2 spells them.
#pragma once

#include <cstdint>
#include <utility>

namespace fastlink::cli {

/// RTNH_F_* bits (a route's and a nexthop's flags) as iproute2 names them, in its order.
inline constexpr std::pair<uint32_t, const char*> kNexthopFlags[] = {
    {1, "dead"}, {2, "pervasive"}, {4, "onlink"}, {8, "offload"}, {16, "linkdown"}, {32, "unresolved"}, {64, "trap"}};

/// ICMPv6 router preference (RFC 4191) as ip prints it; nullptr for a value it has no word for.
constexpr const char* routePrefName(uint8_t pref) {
  switch (pref) {
    case 0: return "medium";
    case 1: return "high";
    case 3: return "low";
    default: return nullptr;
  }
}

}  // namespace fastlink::cli
