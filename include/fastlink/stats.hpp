// A device's statistics as RTM_GETSTATS reports them (`ip stats`): the 64-bit link counters
// (IFLA_STATS_LINK_64), the bridge and bond extended statistics of a device and of a port
// (IFLA_STATS_LINK_XSTATS, _XSTATS_SLAVE), the offload statistics (cpu_hit, the L3 hardware
// counters and whether they are requested and used) and the MPLS statistics (IFLA_STATS_AF_SPEC),
// each group asked for by the request's filter mask; and the switch of the L3 hardware counters.
//
//   fastlink::StatsApi stats(nl);
//   for (const fastlink::DeviceStats& s : stats.list({.link = true})) ...   // s.ifindex, s.link
//   fastlink::DeviceStats one = stats.get(ifindex, fastlink::StatsSelection::all());
//   stats.setL3Stats(ifindex, true);   // the kernel counts; a driver may or may not ("used")
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "fastlink/link.hpp"
#include "fastlink/request.hpp"

struct nlmsghdr;

namespace fastlink {

namespace core {
class Engine;
}

class Netlink;

/// Which groups a request asks the kernel for (its filter_mask, and IFLA_STATS_GET_FILTERS for
/// the offload group when only some of its parts are wanted).
struct StatsSelection {
  bool link = false;         ///< IFLA_STATS_LINK_64
  bool xstats = false;       ///< IFLA_STATS_LINK_XSTATS: the device's own (bridge, bond)
  bool xstatsSlave = false;  ///< IFLA_STATS_LINK_XSTATS_SLAVE: as a port of a bridge or bond
  bool cpuHit = false;       ///< offload: IFLA_OFFLOAD_XSTATS_CPU_HIT
  bool hwStatsInfo = false;  ///< offload: IFLA_OFFLOAD_XSTATS_HW_S_INFO (requested, used)
  bool l3Stats = false;      ///< offload: IFLA_OFFLOAD_XSTATS_L3_STATS
  bool afSpec = false;       ///< IFLA_STATS_AF_SPEC (MPLS)

  static StatsSelection all() { return {true, true, true, true, true, true, true}; }
  friend bool operator==(const StatsSelection&, const StatsSelection&) = default;
};

/// struct rtnl_hw_stats64: what a device's hardware counted (the L3 offload counters).
struct HwStats {
  uint64_t rxPackets = 0, txPackets = 0, rxBytes = 0, txBytes = 0;
  uint64_t rxErrors = 0, txErrors = 0, rxDropped = 0, txDropped = 0, multicast = 0;
  friend bool operator==(const HwStats&, const HwStats&) = default;
};

/// IFLA_OFFLOAD_XSTATS_HW_S_INFO for one kind of counters: whether they were asked for
/// (`stats set ... l3_stats on`) and whether a driver actually provides them.
struct HwStatsState {
  bool request = false;
  std::optional<bool> used;  ///< none: the kernel did not say
  friend bool operator==(const HwStatsState&, const HwStatsState&) = default;
};

/// struct br_mcast_stats (index 0 received, 1 sent).
struct BridgeMcastStats {
  uint64_t igmpV1Queries[2]{}, igmpV2Queries[2]{}, igmpV3Queries[2]{}, igmpLeaves[2]{};
  uint64_t igmpV1Reports[2]{}, igmpV2Reports[2]{}, igmpV3Reports[2]{}, igmpParseErrors = 0;
  uint64_t mldV1Queries[2]{}, mldV2Queries[2]{}, mldLeaves[2]{}, mldV1Reports[2]{}, mldV2Reports[2]{};
  uint64_t mldParseErrors = 0, mcastBytes[2]{}, mcastPackets[2]{};
  friend bool operator==(const BridgeMcastStats&, const BridgeMcastStats&) = default;
};

/// struct bridge_stp_xstats (a bridge port's).
struct BridgeStpStats {
  uint64_t transitionBlocked = 0, transitionForwarding = 0, rxBpdu = 0, txBpdu = 0, rxTcn = 0, txTcn = 0;
  friend bool operator==(const BridgeStpStats&, const BridgeStpStats&) = default;
};

/// BOND_XSTATS_3AD's counters (BOND_3AD_STAT_*), each only when the kernel sent it.
struct Bond3adStats {
  std::optional<uint64_t> lacpduRx, lacpduTx, lacpduUnknownRx, lacpduIllegalRx;
  std::optional<uint64_t> markerRx, markerTx, markerResponseRx, markerResponseTx, markerUnknownRx;
  friend bool operator==(const Bond3adStats&, const Bond3adStats&) = default;
};

/// One IFLA_STATS_LINK_XSTATS[_SLAVE] nest: the bridge's (LINK_XSTATS_TYPE_BRIDGE) and the
/// bond's (LINK_XSTATS_TYPE_BOND) parts the kernel filled.
struct ExtendedStats {
  std::optional<BridgeMcastStats> bridgeMcast;
  std::optional<BridgeStpStats> bridgeStp;
  std::optional<Bond3adStats> bond3ad;
  friend bool operator==(const ExtendedStats&, const ExtendedStats&) = default;
};

/// struct mpls_link_stats.
struct MplsStats {
  uint64_t rxPackets = 0, txPackets = 0, rxBytes = 0, txBytes = 0;
  uint64_t rxErrors = 0, txErrors = 0, rxDropped = 0, txDropped = 0, rxNoroute = 0;
  friend bool operator==(const MplsStats&, const MplsStats&) = default;
};

/// One RTM_NEWSTATS message: what the kernel gave for the groups asked (a group the kernel has
/// nothing for is left empty).
struct DeviceStats {
  uint32_t ifindex = 0;
  std::optional<LinkStats> link;
  ExtendedStats xstats, xstatsSlave;
  std::optional<LinkStats> cpuHit;
  std::optional<HwStatsState> l3StatsState;  ///< HW_S_INFO's L3_STATS entry
  std::optional<HwStats> l3Stats;
  std::optional<MplsStats> mpls;
};

/// Builds statistics requests without sending them (golden tests, batches).
struct StatsRequests {
  /// RTM_GETSTATS, NLM_F_DUMP: every device's statistics of `what`.
  /// Equivalent to: ip stats show [group ...]
  static Request dump(const StatsSelection& what);
  /// RTM_GETSTATS for one device. Equivalent to: ip stats show dev DEV [group ...]
  static Request get(uint32_t ifindex, const StatsSelection& what);
  /// RTM_SETSTATS with IFLA_STATS_SET_OFFLOAD_XSTATS_L3_STATS.
  /// Equivalent to: ip stats set dev DEV l3_stats on|off
  static Request setL3Stats(uint32_t ifindex, bool on);
};

/// Decodes one RTM_NEWSTATS message. Throws Error(Errc::malformed_reply) when it is shorter
/// than if_stats_msg or a counter block or flag is shorter than its type.
DeviceStats decodeDeviceStats(const nlmsghdr* message);

/// The operations, mockable.
class IStatsApi {
 public:
  virtual ~IStatsApi() = default;
  /// Equivalent to: ip stats show [group ...]
  virtual std::vector<DeviceStats> list(const StatsSelection& what) = 0;
  /// Throws Error(ENODEV) for a device that does not exist.
  /// Equivalent to: ip stats show dev DEV [group ...]
  virtual DeviceStats get(uint32_t ifindex, const StatsSelection& what) = 0;
  /// Equivalent to: ip stats set dev DEV l3_stats on|off
  virtual void setL3Stats(uint32_t ifindex, bool on) = 0;
};

/// The statistics of the Netlink's namespace, over its rtnetlink socket: `nl.stats()`.
class StatsApi final : public IStatsApi {
 public:
  std::vector<DeviceStats> list(const StatsSelection& what) override;
  DeviceStats get(uint32_t ifindex, const StatsSelection& what) override;
  void setL3Stats(uint32_t ifindex, bool on) override;

 private:
  friend class Netlink;  // built by its accessor on Netlink, the one way in
  explicit StatsApi(core::Engine& engine) : engine_(engine) {}
  core::Engine& engine_;
};

}  // namespace fastlink
