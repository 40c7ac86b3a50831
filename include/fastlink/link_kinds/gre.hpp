// Options of `ip link add NAME type { gre | gretap } ...` (LinkInfo::kindOptions<GreInfo>()).
// gre carries IP packets (a layer-3 device), gretap Ethernet frames; both over IPv4.
#pragma once

#include <cstdint>
#include <optional>

#include "fastlink/types.hpp"

namespace fastlink {

struct GreInfo {
  std::optional<IpAddress> local;   ///< IPv4; unset or 0.0.0.0 = any
  std::optional<IpAddress> remote;  ///< IPv4; unset or 0.0.0.0 = any
  std::optional<uint8_t> ttl;       ///< 0 = inherit from the inner packet
  std::optional<uint8_t> tos;       ///< 1 = inherit
  std::optional<bool> pmtudisc;     ///< path MTU discovery (sets DF); the kernel's default is on
  std::optional<uint32_t> ikey;     ///< key expected on received packets (host byte order)
  std::optional<uint32_t> okey;     ///< key put on sent packets
  std::optional<bool> icsum, ocsum;  ///< checksum received / sent packets
  std::optional<bool> iseq, oseq;    ///< sequence-number received / sent packets
  std::optional<Ifref> dev;          ///< `dev PHYS_DEV`: bind the tunnel to a device
  std::optional<uint32_t> fwmark;   ///< mark of the encapsulated packets
  /// Encapsulation in UDP (TUNNEL_ENCAP_NONE 0, _FOU 1, _GUE 2), its TUNNEL_ENCAP_FLAG_* (CSUM 1,
  /// CSUM6 2, REMCSUM 4) and ports (host order; a source port of 0 = chosen per flow).
  std::optional<uint16_t> encapType, encapFlags, encapSport, encapDport;
  /// `external`: a collect-metadata tunnel (endpoints per packet); the kernel then ignores the
  /// other options.
  bool external = false;

  GreInfo& setLocal(IpAddress v) { local = v; return *this; }
  GreInfo& setRemote(IpAddress v) { remote = v; return *this; }
  GreInfo& setTtl(uint8_t v) { ttl = v; return *this; }
  GreInfo& setTos(uint8_t v) { tos = v; return *this; }
  GreInfo& setPmtudisc(bool v) { pmtudisc = v; return *this; }
  GreInfo& setIkey(uint32_t v) { ikey = v; return *this; }
  GreInfo& setOkey(uint32_t v) { okey = v; return *this; }
  /// `key K`: both directions.
  GreInfo& setKey(uint32_t v) { ikey = okey = v; return *this; }
  GreInfo& setCsum(bool v) { icsum = ocsum = v; return *this; }
  GreInfo& setSeq(bool v) { iseq = oseq = v; return *this; }
  GreInfo& setDev(Ifref v) { dev = std::move(v); return *this; }
};

}  // namespace fastlink
