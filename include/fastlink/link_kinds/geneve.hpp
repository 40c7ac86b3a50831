// Options of `ip link add NAME type geneve ...` (LinkInfo::kindOptions<GeneveInfo>()).
#pragma once

#include <cstdint>
#include <optional>

#include "fastlink/types.hpp"

namespace fastlink {

/// The DF bit of outer IPv4 headers: unset (0), set, or copied from the inner packet.
enum class GeneveDf : uint8_t { Unset = 0, Set = 1, Inherit = 2 };

struct GeneveInfo {
  std::optional<uint32_t> vni;         ///< `id`, 24 bits
  std::optional<IpAddress> remote;     ///< IPv4 or IPv6 unicast
  std::optional<uint8_t> ttl;          ///< 0 = the kernel's default (`ttl auto`)
  std::optional<bool> ttlInherit;      ///< `ttl inherit`: copy the inner packet's TTL
  std::optional<uint8_t> tos;          ///< 1 = inherit
  std::optional<GeneveDf> df;
  std::optional<uint32_t> flowLabel;   ///< IPv6 flow label (20 bits), host byte order
  std::optional<uint16_t> dstPort;     ///< host byte order (kernel default 6081)
  std::optional<bool> udpCsum;         ///< checksum outer UDP over IPv4
  std::optional<bool> udp6ZeroCsumTx;  ///< send zero UDP checksums over IPv6
  std::optional<bool> udp6ZeroCsumRx;  ///< accept zero UDP checksums over IPv6
  std::optional<bool> external;        ///< `external`: collect metadata (no fixed vni/remote)

  GeneveInfo& setVni(uint32_t v) { vni = v; return *this; }
  GeneveInfo& setRemote(IpAddress v) { remote = v; return *this; }
  GeneveInfo& setTtl(uint8_t v) { ttl = v; return *this; }
  GeneveInfo& setTtlInherit(bool v) { ttlInherit = v; return *this; }
  GeneveInfo& setTos(uint8_t v) { tos = v; return *this; }
  GeneveInfo& setDf(GeneveDf v) { df = v; return *this; }
  GeneveInfo& setFlowLabel(uint32_t v) { flowLabel = v; return *this; }
  GeneveInfo& setDstPort(uint16_t v) { dstPort = v; return *this; }
  GeneveInfo& setUdpCsum(bool v) { udpCsum = v; return *this; }
  GeneveInfo& setUdp6ZeroCsumTx(bool v) { udp6ZeroCsumTx = v; return *this; }
  GeneveInfo& setUdp6ZeroCsumRx(bool v) { udp6ZeroCsumRx = v; return *this; }
  GeneveInfo& setExternal(bool v) { external = v; return *this; }
};

}  // namespace fastlink
