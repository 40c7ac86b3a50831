// Options of `ip link add NAME type { ipip | sit } ...` (LinkInfo::kindOptions<IpTunnelInfo>()).
// ipip carries IPv4 in IPv4, sit IPv6 in IPv4; both take the same endpoint options.
#pragma once

#include <cstdint>
#include <optional>

#include "fastlink/types.hpp"

namespace fastlink {

struct IpTunnelInfo {
  std::optional<IpAddress> local;   ///< IPv4; unset or 0.0.0.0 = any
  std::optional<IpAddress> remote;  ///< IPv4; unset or 0.0.0.0 = any
  std::optional<uint8_t> ttl;       ///< 0 = inherit from the inner packet
  std::optional<uint8_t> tos;       ///< 1 = inherit
  std::optional<bool> pmtudisc;     ///< path MTU discovery; the kernel's default is on
  std::optional<Ifref> dev;         ///< `dev PHYS_DEV`: bind the tunnel to a device

  IpTunnelInfo& setLocal(IpAddress v) { local = v; return *this; }
  IpTunnelInfo& setRemote(IpAddress v) { remote = v; return *this; }
  IpTunnelInfo& setTtl(uint8_t v) { ttl = v; return *this; }
  IpTunnelInfo& setTos(uint8_t v) { tos = v; return *this; }
  IpTunnelInfo& setPmtudisc(bool v) { pmtudisc = v; return *this; }
  IpTunnelInfo& setDev(Ifref v) { dev = std::move(v); return *this; }
};

}  // namespace fastlink
