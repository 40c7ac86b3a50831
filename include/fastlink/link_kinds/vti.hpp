// Options of `ip link add NAME type { vti | vti6 } ...` (LinkInfo::kindOptions<VtiInfo>()):
// virtual tunnel interfaces for IPsec (RFC 4301 route-based VPNs). vti's endpoints are IPv4,
// vti6's IPv6; the keys select the xfrm policies (their marks) the tunnel's packets match.
#pragma once

#include <cstdint>
#include <optional>

#include "fastlink/types.hpp"

namespace fastlink {

struct VtiInfo {
  std::optional<IpAddress> local;   ///< unset or 0.0.0.0 / :: = any
  std::optional<IpAddress> remote;  ///< unset or 0.0.0.0 / :: = any
  std::optional<uint32_t> ikey;     ///< mark of received packets' policy lookup (host byte order)
  std::optional<uint32_t> okey;     ///< mark of sent packets' policy lookup
  std::optional<uint32_t> fwmark;   ///< mark of the encapsulated packets' route lookup
  std::optional<Ifref> dev;         ///< `dev PHYS_DEV`: bind the tunnel to a device

  VtiInfo& setLocal(IpAddress v) { local = v; return *this; }
  VtiInfo& setRemote(IpAddress v) { remote = v; return *this; }
  /// `key K`: both directions.
  VtiInfo& setKey(uint32_t v) { ikey = okey = v; return *this; }
  VtiInfo& setIkey(uint32_t v) { ikey = v; return *this; }
  VtiInfo& setOkey(uint32_t v) { okey = v; return *this; }
  VtiInfo& setFwmark(uint32_t v) { fwmark = v; return *this; }
  VtiInfo& setDev(Ifref v) { dev = std::move(v); return *this; }
};

}  // namespace fastlink
