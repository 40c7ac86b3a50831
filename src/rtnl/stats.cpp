// Device statistics: RTM_GETSTATS (a dump or one device) with the groups of a StatsSelection in
// its filter mask, RTM_NEWSTATS decoded, RTM_SETSTATS for the L3 offload counters; over the
// Netlink's rtnetlink socket.
#include "fastlink/stats.hpp"

#include <linux/if_bonding.h>
#include <linux/if_bridge.h>
#include <linux/if_link.h>
#include <linux/mpls.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <string>

#include "core/message.hpp"
#include "fastlink/error.hpp"
#include "fastlink/netlink.hpp"
#include "core/engine.hpp"
#include "rtnl/dump_all.hpp"
#include "rtnl/link_codec.hpp"

namespace fastlink {
namespace {

constexpr const char* kOperation = "stats show";

[[noreturn]] void malformed(const char* why) { throw Error(make_error_code(Errc::malformed_reply), kOperation, why); }

constexpr uint32_t bit(uint32_t attr) { return IFLA_STATS_FILTER_BIT(attr); }

/// The request: if_stats_msg with the top-level mask; a mask for the offload nest only when
/// some of its parts are left out (ip sends none for all three, and the kernel then gives all).
Request statsRequest(uint32_t ifindex, const StatsSelection& what, uint16_t flags) {
  core::MessageWriter w(RTM_GETSTATS, flags);
  auto& h = w.putHeader<if_stats_msg>();
  h.family = AF_UNSPEC;
  h.ifindex = ifindex;
  uint32_t offload = (what.cpuHit ? bit(IFLA_OFFLOAD_XSTATS_CPU_HIT) : 0) |
                     (what.hwStatsInfo || what.l3Stats ? bit(IFLA_OFFLOAD_XSTATS_HW_S_INFO) : 0) |
                     (what.l3Stats ? bit(IFLA_OFFLOAD_XSTATS_L3_STATS) : 0);
  uint32_t mask = (what.link ? bit(IFLA_STATS_LINK_64) : 0) | (what.xstats ? bit(IFLA_STATS_LINK_XSTATS) : 0) |
                  (what.xstatsSlave ? bit(IFLA_STATS_LINK_XSTATS_SLAVE) : 0) |
                  (offload ? bit(IFLA_STATS_LINK_OFFLOAD_XSTATS) : 0) | (what.afSpec ? bit(IFLA_STATS_AF_SPEC) : 0);
  h.filter_mask = mask;
  constexpr uint32_t kAllOffload = (1u << IFLA_OFFLOAD_XSTATS_MAX) - 1;
  if (offload && offload != kAllOffload) {
    std::size_t filters = w.beginNest(IFLA_STATS_GET_FILTERS | NLA_F_NESTED);  // the kernel wants the flag here
    w.putU32(IFLA_STATS_LINK_OFFLOAD_XSTATS, offload);
    w.endNest(filters);
  }
  std::string operation = ifindex ? "stats show dev " + std::to_string(ifindex) : std::string(kOperation);
  return Request(w.release(), operation);
}

// A fixed counter block is rtnl::readStruct's: what the kernel sent, the rest zero (an older
// kernel sends less). A block the printers read whole is rtnl::readWhole's: shorter than the
// kernel's struct is malformed.

BridgeMcastStats decodeMcast(const nlattr* a) {
  auto k = rtnl::readWhole<br_mcast_stats>(a, kOperation, "short bridge multicast statistics");
  BridgeMcastStats m;
  auto copy = [](uint64_t (&to)[2], const __u64 (&from)[BR_MCAST_DIR_SIZE]) { to[0] = from[0], to[1] = from[1]; };
  copy(m.igmpV1Queries, k.igmp_v1queries), copy(m.igmpV2Queries, k.igmp_v2queries);
  copy(m.igmpV3Queries, k.igmp_v3queries), copy(m.igmpLeaves, k.igmp_leaves);
  copy(m.igmpV1Reports, k.igmp_v1reports), copy(m.igmpV2Reports, k.igmp_v2reports);
  copy(m.igmpV3Reports, k.igmp_v3reports);
  m.igmpParseErrors = k.igmp_parse_errors;
  copy(m.mldV1Queries, k.mld_v1queries), copy(m.mldV2Queries, k.mld_v2queries), copy(m.mldLeaves, k.mld_leaves);
  copy(m.mldV1Reports, k.mld_v1reports), copy(m.mldV2Reports, k.mld_v2reports);
  m.mldParseErrors = k.mld_parse_errors;
  copy(m.mcastBytes, k.mcast_bytes), copy(m.mcastPackets, k.mcast_packets);
  return m;
}

BridgeStpStats decodeStp(const nlattr* a) {
  auto k = rtnl::readWhole<bridge_stp_xstats>(a, kOperation, "short bridge STP statistics");
  return {k.transition_blk, k.transition_fwd, k.rx_bpdu, k.tx_bpdu, k.rx_tcn, k.tx_tcn};
}

Bond3adStats decode3ad(const nlattr* a) {
  core::AttrTable t = core::AttrTable::ofNest(a, BOND_3AD_STAT_MAX);
  auto u64 = [&](int type) {
    const nlattr* v = t.get(static_cast<uint16_t>(type));
    return v ? std::optional<uint64_t>(core::readU64(v)) : std::nullopt;
  };
  return {u64(BOND_3AD_STAT_LACPDU_RX),        u64(BOND_3AD_STAT_LACPDU_TX),      u64(BOND_3AD_STAT_LACPDU_UNKNOWN_RX),
          u64(BOND_3AD_STAT_LACPDU_ILLEGAL_RX), u64(BOND_3AD_STAT_MARKER_RX),      u64(BOND_3AD_STAT_MARKER_TX),
          u64(BOND_3AD_STAT_MARKER_RESP_RX),   u64(BOND_3AD_STAT_MARKER_RESP_TX), u64(BOND_3AD_STAT_MARKER_UNKNOWN_RX)};
}

/// IFLA_STATS_LINK_XSTATS[_SLAVE] { LINK_XSTATS_TYPE_BRIDGE { MCAST, STP, ... }, LINK_XSTATS_TYPE_BOND { 3AD } }.
ExtendedStats decodeExtended(const nlattr* nest) {
  ExtendedStats x;
  core::AttrTable types = core::AttrTable::ofNest(nest, LINK_XSTATS_TYPE_MAX);
  if (const nlattr* bridge = types.get(LINK_XSTATS_TYPE_BRIDGE)) {
    core::AttrTable b = core::AttrTable::ofNest(bridge, BRIDGE_XSTATS_MAX);
    if (const nlattr* m = b.get(BRIDGE_XSTATS_MCAST)) x.bridgeMcast = decodeMcast(m);
    if (const nlattr* s = b.get(BRIDGE_XSTATS_STP)) x.bridgeStp = decodeStp(s);
  }
  if (const nlattr* bond = types.get(LINK_XSTATS_TYPE_BOND)) {
    core::AttrTable b = core::AttrTable::ofNest(bond, BOND_XSTATS_MAX);
    if (const nlattr* lacp = b.get(BOND_XSTATS_3AD)) x.bond3ad = decode3ad(lacp);
  }
  return x;
}

/// HW_S_INFO { L3_STATS { REQUEST u8, USED u8 } }: a request flag is required (ip refuses an
/// entry without it), each flag 0 or 1.
std::optional<HwStatsState> decodeHwInfo(const nlattr* info) {
  core::AttrTable kinds = core::AttrTable::ofNest(info, IFLA_OFFLOAD_XSTATS_MAX);
  const nlattr* l3 = kinds.get(IFLA_OFFLOAD_XSTATS_L3_STATS);
  if (!l3) return std::nullopt;
  core::AttrTable flags = core::AttrTable::ofNest(l3, IFLA_OFFLOAD_XSTATS_HW_S_INFO_MAX);
  auto flag = [&](uint16_t type) -> std::optional<bool> {
    const nlattr* a = flags.get(type);
    if (!a) return std::nullopt;
    uint8_t v = core::readU8(a);
    if (v > 1) malformed("an offload statistics flag that is neither 0 nor 1");
    return v == 1;
  };
  std::optional<bool> request = flag(IFLA_OFFLOAD_XSTATS_HW_S_INFO_REQUEST);
  if (!request) malformed("offload statistics info without its request flag");
  return HwStatsState{*request, flag(IFLA_OFFLOAD_XSTATS_HW_S_INFO_USED)};
}

}  // namespace

Request StatsRequests::dump(const StatsSelection& what) { return statsRequest(0, what, NLM_F_DUMP); }

Request StatsRequests::get(uint32_t ifindex, const StatsSelection& what) { return statsRequest(ifindex, what, 0); }

Request StatsRequests::setL3Stats(uint32_t ifindex, bool on) {
  core::MessageWriter w(RTM_SETSTATS, 0);
  auto& h = w.putHeader<if_stats_msg>();
  h.family = AF_UNSPEC;
  h.ifindex = ifindex;
  w.putU8(IFLA_STATS_SET_OFFLOAD_XSTATS_L3_STATS, on ? 1 : 0);
  return Request(w.release(), "stats set dev " + std::to_string(ifindex) + " l3_stats " + (on ? "on" : "off"));
}

DeviceStats decodeDeviceStats(const nlmsghdr* m) {
  const auto* h = core::messageHeader<if_stats_msg>(m);
  if (!h) malformed("shorter than if_stats_msg");
  DeviceStats s;
  s.ifindex = h->ifindex;
  core::AttrTable top = core::AttrTable::ofMessage(m, sizeof(if_stats_msg), IFLA_STATS_MAX);
  if (const nlattr* a = top.get(IFLA_STATS_LINK_64)) s.link = rtnl::decodeStats(a);
  if (const nlattr* a = top.get(IFLA_STATS_LINK_XSTATS)) s.xstats = decodeExtended(a);
  if (const nlattr* a = top.get(IFLA_STATS_LINK_XSTATS_SLAVE)) s.xstatsSlave = decodeExtended(a);
  if (const nlattr* a = top.get(IFLA_STATS_LINK_OFFLOAD_XSTATS)) {
    core::AttrTable offload = core::AttrTable::ofNest(a, IFLA_OFFLOAD_XSTATS_MAX);
    if (const nlattr* hit = offload.get(IFLA_OFFLOAD_XSTATS_CPU_HIT)) s.cpuHit = rtnl::decodeStats(hit);
    if (const nlattr* info = offload.get(IFLA_OFFLOAD_XSTATS_HW_S_INFO)) s.l3StatsState = decodeHwInfo(info);
    if (const nlattr* l3 = offload.get(IFLA_OFFLOAD_XSTATS_L3_STATS)) {
      auto k = rtnl::readStruct<rtnl_hw_stats64>(l3);
      s.l3Stats = HwStats{k.rx_packets, k.tx_packets, k.rx_bytes, k.tx_bytes, k.rx_errors,
                          k.tx_errors,  k.rx_dropped, k.tx_dropped, k.multicast};
    }
  }
  if (const nlattr* a = top.get(IFLA_STATS_AF_SPEC)) {
    core::AttrTable families = core::AttrTable::ofNest(a, AF_MPLS);
    if (const nlattr* mpls = families.get(AF_MPLS)) {
      core::AttrTable mt = core::AttrTable::ofNest(mpls, MPLS_STATS_MAX);
      if (const nlattr* link = mt.get(MPLS_STATS_LINK)) {
        auto k = rtnl::readStruct<mpls_link_stats>(link);
        s.mpls = MplsStats{k.rx_packets, k.tx_packets, k.rx_bytes,   k.tx_bytes,  k.rx_errors,
                           k.tx_errors,  k.rx_dropped, k.tx_dropped, k.rx_noroute};
      }
    }
  }
  return s;
}

std::vector<DeviceStats> StatsApi::list(const StatsSelection& what) {
  return rtnl::dumpAll(engine_, StatsRequests::dump(what), RTM_NEWSTATS, decodeDeviceStats);
}

DeviceStats StatsApi::get(uint32_t ifindex, const StatsSelection& what) {
  Request r = StatsRequests::get(ifindex, what);
  std::optional<DeviceStats> out;
  engine_.query(r.bytes(), r.operation(), [&](const nlmsghdr* m) {
    if (m->nlmsg_type == RTM_NEWSTATS) out = decodeDeviceStats(m);
  });
  if (!out) malformed("no statistics in the reply");
  return std::move(*out);
}

void StatsApi::setL3Stats(uint32_t ifindex, bool on) { engine_.execute(StatsRequests::setL3Stats(ifindex, on)); }

StatsApi& Netlink::stats() { return lazy(stats_); }

}  // namespace fastlink
