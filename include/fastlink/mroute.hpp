// Multicast routes: the kernel's multicast forwarding cache (MFC) of IPv4 (RTNL_FAMILY_IPMR) and
// IPv6 (RTNL_FAMILY_IP6MR), entries a multicast routing daemon (pimd, smcroute, mrouted) installs:
// (source, group), the incoming interface and the outgoing ones with their TTL thresholds, as
// `ip mroute show` lists them. Read-only: entries belong to the daemon's socket.
//
//   fastlink::IMrouteApi& mroutes = nl.multicastRoutes();
//   for (const fastlink::MrouteInfo& m : mroutes.list()) ...   // m.source, m.group, m.iif, m.oifs
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "fastlink/request.hpp"
#include "fastlink/types.hpp"

namespace fastlink {

/// The rtnetlink families of the multicast routing tables.
enum class MrouteFamily : uint8_t { Ipv4 = 128 /* RTNL_FAMILY_IPMR */, Ipv6 = 129 /* RTNL_FAMILY_IP6MR */ };

/// One outgoing interface of an entry: packets leave through it when their TTL is above `ttl`.
struct MrouteOif {
  uint32_t ifindex = 0;
  uint8_t ttl = 0;  ///< the TTL threshold (rtnh_hops)

  friend bool operator==(const MrouteOif&, const MrouteOif&) = default;
};

/// An entry's counters (RTA_MFC_STATS).
struct MrouteStats {
  uint64_t packets = 0, bytes = 0, wrongIf = 0;

  friend bool operator==(const MrouteStats&, const MrouteStats&) = default;
};

/// One MFC entry.
struct MrouteInfo {
  uint8_t family = 0;  ///< rtm_family: 128 (IPv4) or 129 (IPv6)
  uint8_t type = 0;    ///< rtm_type: RTN_MULTICAST (5) for every entry the kernel sends
  uint32_t flags = 0;  ///< rtm_flags: RTNH_F_UNRESOLVED (waiting for the daemon), RTNH_F_OFFLOAD
  uint32_t table = 0;  ///< RTA_TABLE, else rtm_table
  std::optional<IpAddress> source{}, group{};  ///< RTA_SRC, RTA_DST
  std::optional<uint32_t> iif{};               ///< RTA_IIF: none for an unresolved entry
  std::vector<MrouteOif> oifs{};               ///< RTA_MULTIPATH
  std::optional<MrouteStats> stats{};
  std::optional<uint64_t> lastUse{};  ///< RTA_EXPIRES: time since last use, in 1/100 s (clock_t)

  friend bool operator==(const MrouteInfo&, const MrouteInfo&) = default;
};

/// Builds multicast route requests without sending them (golden tests).
struct MrouteRequests {
  /// RTM_GETROUTE of the family (send it as a dump), kept to `table` by the kernel when given
  /// (RTA_TABLE; a table that does not exist: ENOENT).
  /// Equivalent to: ip mroute show [ table TABLE ]
  static Request list(MrouteFamily family, std::optional<uint32_t> table = std::nullopt);
};

/// Decodes one RTM_NEWROUTE message of a multicast family. Throws Error(Errc::malformed_reply)
/// when it is shorter than rtmsg, or an address or the stats are shorter than their types.
MrouteInfo decodeMroute(const nlmsghdr* message);

/// The operations, mockable.
class IMrouteApi {
 public:
  virtual ~IMrouteApi() = default;
  /// Every entry of the family (of `table` only, when given), in the kernel's order.
  /// Equivalent to: ip mroute show [ table TABLE ] (-6: Ipv6)
  virtual std::vector<MrouteInfo> list(MrouteFamily family = MrouteFamily::Ipv4,
                                       std::optional<uint32_t> table = std::nullopt) = 0;
};

/// The multicast forwarding caches of the Netlink's namespace, over its rtnetlink socket.
class MrouteApi final : public IMrouteApi {
 public:
  std::vector<MrouteInfo> list(MrouteFamily family = MrouteFamily::Ipv4,
                               std::optional<uint32_t> table = std::nullopt) override;

 private:
  friend class Netlink;  // built by its accessor on Netlink, the one way in
  explicit MrouteApi(core::Engine& engine) : engine_(engine) {}
  core::Engine& engine_;
};

}  // namespace fastlink
