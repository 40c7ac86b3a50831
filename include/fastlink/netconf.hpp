// A device's IP settings as the kernel reports them over netlink (netconf): forwarding,
// rp_filter, mc_forwarding, proxy_neigh, ... per family, for each device and for "all" and
// "default" (the sysctls net.ipv4.conf.*, net.ipv6.conf.*; MPLS's input).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace fastlink {

class Netlink;

/// The families that report netconf (their AF_* numbers); Any asks every one of them.
enum class NetconfFamily : uint8_t { Any = 0, Inet = 2, Inet6 = 10, Mpls = 28 };

/// One family's settings of one device, or of all devices / of new devices' defaults.
struct NetconfInfo {
  static constexpr int32_t kAll = -1;      ///< ifindex of net.*.conf.all
  static constexpr int32_t kDefault = -2;  ///< ifindex of net.*.conf.default

  NetconfFamily family = NetconfFamily::Any;
  std::optional<int32_t> ifindex;  ///< a device's index, kAll or kDefault
  std::optional<bool> forwarding;
  std::optional<uint32_t> rpFilter;  ///< 0 off, 1 strict, 2 loose (IPv4)
  std::optional<bool> mcForwarding;
  std::optional<bool> proxyNeigh;
  std::optional<bool> ignoreRoutesWithLinkdown;
  std::optional<bool> input;  ///< MPLS: the device accepts labelled packets
};

/// Every device's settings (and all's, default's) for `family`, as the kernel lists them.
/// Equivalent to: ip netconf show (-4: Inet, -6: Inet6)
std::vector<NetconfInfo> listNetconf(Netlink& nl, NetconfFamily family = NetconfFamily::Any);

/// One device's (or kAll's, kDefault's) settings for one family; throws fastlink::Error when the
/// device does not exist or has none for that family.
/// Equivalent to: ip -4 netconf show dev DEV
NetconfInfo getNetconf(Netlink& nl, NetconfFamily family, int32_t ifindex);

}  // namespace fastlink
