// Options of `ip link add NAME type { ipip | sit } ...` (LinkInfo::kindOptions<IpTunnelInfo>()).
// ipip carries IPv4 in IPv4, sit IPv6 in IPv4; both take the same endpoint options.
#pragma once

#include <cstdint>
#include <optional>

#include "fastlink/prefix.hpp"
#include "fastlink/types.hpp"

namespace fastlink {

struct IpTunnelInfo {
  std::optional<IpAddress> local;   ///< IPv4; unset or 0.0.0.0 = any
  std::optional<IpAddress> remote;  ///< IPv4; unset or 0.0.0.0 = any
  std::optional<uint8_t> ttl;       ///< 0 = inherit from the inner packet
  std::optional<uint8_t> tos;       ///< 1 = inherit
  std::optional<bool> pmtudisc;     ///< path MTU discovery; the kernel's default is on
  std::optional<Ifref> dev;         ///< `dev PHYS_DEV`: bind the tunnel to a device
  /// The inner protocol: IPPROTO_IPIP (4, ipip's default), IPPROTO_IPV6 (41, sit's), IPPROTO_MPLS
  /// (137), 0 = any of them (`mode any`).
  std::optional<uint8_t> proto;
  /// sit only: its flags (kIsatap).
  std::optional<uint16_t> flags;
  static constexpr uint16_t kIsatap = 0x0001;  ///< SIT_ISATAP: an ISATAP tunnel (RFC 5214)
  /// sit only: the 6rd prefix (RFC 5969; the kernel's default 2002::/16) and the relay prefix of
  /// IPv4 addresses (the kernel's default 0.0.0.0/0).
  std::optional<Prefix> sixrdPrefix, sixrdRelayPrefix;
  std::optional<uint32_t> fwmark;   ///< mark of the encapsulated packets
  /// Encapsulation in UDP (TUNNEL_ENCAP_NONE 0, _FOU 1, _GUE 2), its TUNNEL_ENCAP_FLAG_* (CSUM 1,
  /// CSUM6 2, REMCSUM 4) and ports (host order; a source port of 0 = chosen per flow).
  std::optional<uint16_t> encapType, encapFlags, encapSport, encapDport;
  /// `external`: a collect-metadata tunnel (endpoints per packet); the kernel then ignores the
  /// other options.
  bool external = false;

  IpTunnelInfo& setLocal(IpAddress v) { local = v; return *this; }
  IpTunnelInfo& setRemote(IpAddress v) { remote = v; return *this; }
  IpTunnelInfo& setTtl(uint8_t v) { ttl = v; return *this; }
  IpTunnelInfo& setTos(uint8_t v) { tos = v; return *this; }
  IpTunnelInfo& setPmtudisc(bool v) { pmtudisc = v; return *this; }
  IpTunnelInfo& setDev(Ifref v) { dev = std::move(v); return *this; }
};

}  // namespace fastlink
