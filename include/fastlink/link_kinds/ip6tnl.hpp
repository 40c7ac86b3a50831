// Options of `ip link add NAME type { ip6tnl | ip6gre | ip6gretap } ...`
// (LinkInfo::kindOptions<Ip6TunnelInfo>()): tunnels over IPv6. ip6tnl carries IPv6 or IPv4
// (`mode ip6ip6 | ipip6 | any`), ip6gre IP packets in GRE, ip6gretap Ethernet frames in GRE.
#pragma once

#include <cstdint>
#include <optional>

#include "fastlink/types.hpp"

namespace fastlink {

struct Ip6TunnelInfo {
  /// The IP6_TNL_F_* bits of `flags` (include/uapi/linux/ip6_tunnel.h).
  static constexpr uint32_t kIgnoreEncapLimit = 0x1;   ///< `encaplimit none`
  static constexpr uint32_t kUseOrigTclass = 0x2;      ///< `tclass inherit`
  static constexpr uint32_t kUseOrigFlowlabel = 0x4;   ///< `flowlabel inherit`
  static constexpr uint32_t kMip6Dev = 0x8;            ///< a Mobile IPv6 device (set by the kernel's users)
  static constexpr uint32_t kRcvDscpCopy = 0x10;       ///< `dscp inherit`
  static constexpr uint32_t kUseOrigFwmark = 0x20;     ///< `fwmark inherit`
  static constexpr uint32_t kAllowLocalRemote = 0x40;  ///< `allow-localremote`
  /// The parts of `flowinfo` (host order): the traffic class and the flow label.
  static constexpr uint32_t kTclassMask = 0x0ff00000;
  static constexpr uint32_t kFlowlabelMask = 0x000fffff;

  std::optional<IpAddress> local;   ///< IPv6; unset or :: = any
  std::optional<IpAddress> remote;  ///< IPv6; unset or :: = any
  std::optional<uint8_t> hoplimit;  ///< 0 = inherit from the inner packet
  std::optional<uint8_t> encapLimit;  ///< the tunnel encapsulation limit option (RFC 2473)
  std::optional<uint32_t> flowinfo;   ///< traffic class << 20 | flow label (host order)
  std::optional<uint32_t> flags;      ///< kIgnoreEncapLimit, ...
  std::optional<uint8_t> proto;       ///< ip6tnl: IPPROTO_IPV6 (41), IPPROTO_IPIP (4), 0 = both
  std::optional<Ifref> dev;           ///< `dev PHYS_DEV`: bind the tunnel to a device
  std::optional<uint32_t> fwmark;     ///< mark of the encapsulated packets (`fwmark inherit`: kUseOrigFwmark)
  /// Encapsulation in UDP (TUNNEL_ENCAP_NONE 0, _FOU 1, _GUE 2), its TUNNEL_ENCAP_FLAG_* (CSUM 1,
  /// CSUM6 2, REMCSUM 4) and ports (host order; a source port of 0 = chosen per flow).
  std::optional<uint16_t> encapType, encapFlags, encapSport, encapDport;
  /// `external`: a collect-metadata tunnel (endpoints per packet from lightweight tunnel state);
  /// the kernel then ignores the other options.
  bool external = false;
  // ip6gre and ip6gretap only, as GreInfo's:
  std::optional<uint32_t> ikey, okey;
  std::optional<bool> icsum, ocsum, iseq, oseq;
};

}  // namespace fastlink
