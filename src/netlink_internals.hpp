// Library-internal access to a Netlink's engines, for factories that are not Netlink members.
#pragma once

#include "fastlink/netlink.hpp"

namespace fastlink {

class NetlinkInternals {
 public:
  static core::Engine& routeEngine(const Netlink& netlink) { return netlink.routeEngine(); }
  static core::Engine& genericEngine(const Netlink& netlink) { return netlink.genericEngine(); }
  /// The namespace the Netlink works in (an fd it holds open), for objects opened outside netlink.
  static const std::optional<Netns>& netns(const Netlink& netlink) { return netlink.options_.netns; }
};

}  // namespace fastlink
