// The multicast addresses each device listens to (link layer, IPv4 groups, IPv6 groups), as the
// kernel lists them in /proc/net/dev_mcast, /proc/net/igmp and /proc/net/igmp6.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fastlink/netns.hpp"

namespace fastlink {

struct MulticastAddress {
  enum class Family : uint8_t { Link, Inet, Inet6 };

  uint32_t ifindex = 0;
  std::string ifname;
  Family family = Family::Link;
  std::vector<uint8_t> address;  ///< a hardware address (Link), 4 bytes (Inet) or 16 (Inet6)
  uint32_t users = 1;            ///< how many joined it
  bool isStatic = false;         ///< Link: added by hand (SIOCADDMULTI, `ip maddr add`), not by a protocol
};

/// Every multicast address of every device of the namespace `ns` (empty: the calling thread's),
/// in ip's order: by ifindex, then link, IPv4, IPv6 addresses in the kernel's order. The kernel
/// has no netlink dump for them (ip reads the same files); a file that is missing (no IPv6) is
/// read as empty. Throws fastlink::Error when the namespace cannot be entered.
/// Equivalent to: ip maddr show
std::vector<MulticastAddress> listMulticastAddresses(const std::optional<Netns>& ns = std::nullopt);

}  // namespace fastlink
