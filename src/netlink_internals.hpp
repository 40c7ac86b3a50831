// Library-internal access to a Netlink's engines, for factories that are not Netlink members.
#pragma once

#include "fastlink/netlink.hpp"

namespace fastlink {

class NetlinkInternals {
 public:
  static core::Engine& routeEngine(const Netlink& netlink) { return netlink.routeEngine(); }
  static core::Engine& genericEngine(const Netlink& netlink) { return netlink.genericEngine(); }
};

}  // namespace fastlink
