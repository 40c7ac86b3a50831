// Golden bytes for device statistics (ip stats): the RTM_GETSTATS dump and get with their filter
// masks as ip 6.1's ipstats_req_add_filters builds them, RTM_SETSTATS, and the decoder against
// RTM_NEWSTATS messages laid out by hand. Numbers written out from the uapi
// (include/uapi/linux/rtnetlink.h, if_link.h, if_bridge.h, mpls.h), not taken from the headers:
//   RTM_NEWSTATS 92, RTM_GETSTATS 94, RTM_SETSTATS 95; AF_MPLS 28
//   if_stats_msg = family:u8 pad1:u8 pad2:u16 ifindex:u32 filter_mask:u32 (12 bytes)
//   IFLA_STATS_LINK_64 1, _LINK_XSTATS 2, _LINK_XSTATS_SLAVE 3, _LINK_OFFLOAD_XSTATS 4, _AF_SPEC 5
//     (filter bit 1 << (attr - 1)); IFLA_STATS_GET_FILTERS 1, IFLA_STATS_SET_OFFLOAD_XSTATS_L3_STATS 2
//   IFLA_OFFLOAD_XSTATS_CPU_HIT 1, _HW_S_INFO 2, _L3_STATS 3; _HW_S_INFO_REQUEST 1, _USED 2
//   LINK_XSTATS_TYPE_BRIDGE 1, _BOND 2; BRIDGE_XSTATS_MCAST 2, _STP 4; BOND_XSTATS_3AD 1;
//   BOND_3AD_STAT_LACPDU_RX 0, _LACPDU_TX 1, ..., _MARKER_UNKNOWN_RX 8; MPLS_STATS_LINK 1
//   bridge_stp_xstats = transition_blk, transition_fwd, rx_bpdu, tx_bpdu, rx_tcn, tx_tcn (u64 each)
//   rtnl_hw_stats64 = rx_packets, tx_packets, rx_bytes, tx_bytes, rx_errors, tx_errors,
//     rx_dropped, tx_dropped, multicast (u64 each)
#include <gtest/gtest.h>
#include <linux/netlink.h>

#include "fastlink/error.hpp"
#include "fastlink/stats.hpp"
#include "unit/golden.hpp"

namespace fastlink {
namespace {

using test::AlignedMessage;
using test::Attrs;
using test::Bytes;
using test::sameBytes;

Bytes statsHeader(uint32_t ifindex, uint32_t mask) {
  Bytes b{0, 0, 0, 0};  // AF_UNSPEC, pads
  test::appendLe32(b, ifindex);
  test::appendLe32(b, mask);
  return b;
}

Bytes u64s(std::initializer_list<uint64_t> values) {
  Bytes b;
  for (uint64_t v : values) test::appendLe64(b, v);
  return b;
}

TEST(StatsGolden, DumpAsksForTheGroupsAndFiltersTheOffloadNestWhenPartOfIt) {
  // ip stats show group link group offload subgroup l3_stats: LINK_64 and OFFLOAD; in the
  // offload nest L3_STATS and HW_S_INFO (l3_stats prints its request and used flags).
  StatsSelection linkAndL3;
  linkAndL3.link = linkAndL3.l3Stats = true;
  Request r = StatsRequests::dump(linkAndL3);
  EXPECT_TRUE(sameBytes(r.bytes(), test::netlinkMessage(94, 0x301, statsHeader(0, 0x9), Attrs().nest(1, Attrs().u32(4, 0x6)))));
  // cpu_hit alone.
  StatsSelection cpuHit;
  cpuHit.cpuHit = true;
  EXPECT_TRUE(sameBytes(StatsRequests::dump(cpuHit).bytes(),
                        test::netlinkMessage(94, 0x301, statsHeader(0, 0x8), Attrs().nest(1, Attrs().u32(4, 0x1)))));
}

TEST(StatsGolden, EveryGroupIsTheMaskAloneAndAGetNamesTheDevice) {
  // ip stats show dev DEV: every group; the whole offload group needs no filter nest.
  EXPECT_TRUE(sameBytes(StatsRequests::get(3, StatsSelection::all()).bytes(),
                        test::netlinkMessage(94, 0x1, statsHeader(3, 0x1f), Attrs())));
  StatsSelection extended;
  extended.xstats = extended.xstatsSlave = extended.afSpec = true;
  EXPECT_TRUE(sameBytes(StatsRequests::dump(extended).bytes(),
                        test::netlinkMessage(94, 0x301, statsHeader(0, 0x16), Attrs())));
}

TEST(StatsGolden, SetL3StatsIsOneByte) {
  Request on = StatsRequests::setL3Stats(3, true);
  EXPECT_TRUE(sameBytes(on.bytes(), test::netlinkMessage(95, 0x1, statsHeader(3, 0), Attrs().u8(2, 1))));
  EXPECT_EQ(on.operation(), "stats set dev 3 l3_stats on");
  EXPECT_TRUE(sameBytes(StatsRequests::setL3Stats(3, false).bytes(),
                        test::netlinkMessage(95, 0x1, statsHeader(3, 0), Attrs().u8(2, 0))));
}

TEST(StatsDecode, EveryGroupOfOneMessage) {
  // rtnl_link_stats64 as 6.1 sends it (25 u64: the 24 of old, rx_nohandler; otherhost follows
  // in newer kernels and is ignored): rx_packets 5, tx_packets 6, rx_bytes 700, tx_bytes 800.
  Bytes link64 = u64s({5, 6, 700, 800, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  Bytes hw = u64s({1, 2, 30, 40, 5, 6, 7, 8, 9});
  Bytes stp = u64s({11, 12, 13, 14, 15, 16});
  Bytes mpls = u64s({21, 22, 23, 24, 25, 26, 27, 28, 29});
  Attrs attrs;
  attrs.raw(1, link64)
      .nest(2, Attrs().nest(2, Attrs().nest(1, Attrs().u64(0, 4).u64(8, 3))))
      .nest(3, Attrs().nest(1, Attrs().raw(4, stp)))
      .nest(4, Attrs().nest(2, Attrs().nest(3, Attrs().u8(1, 1).u8(2, 0))).raw(3, hw))
      .nest(5, Attrs().nest(28, Attrs().raw(1, mpls)));
  AlignedMessage m(test::netlinkMessage(92, NLM_F_MULTI, statsHeader(3, 0x1f), attrs));
  DeviceStats s = decodeDeviceStats(m.as<nlmsghdr>());
  EXPECT_EQ(s.ifindex, 3u);
  ASSERT_TRUE(s.link);
  EXPECT_EQ(s.link->rxPackets, 5u);
  EXPECT_EQ(s.link->txBytes, 800u);
  EXPECT_EQ(s.link->multicast, 9u);
  Bond3adStats lacp;
  lacp.lacpduRx = 4;
  lacp.markerUnknownRx = 3;
  EXPECT_EQ(s.xstats.bond3ad, lacp);
  EXPECT_FALSE(s.xstats.bridgeMcast);
  EXPECT_EQ(s.xstatsSlave.bridgeStp, (BridgeStpStats{11, 12, 13, 14, 15, 16}));
  EXPECT_EQ(s.l3StatsState, (HwStatsState{true, false}));
  EXPECT_EQ(s.l3Stats, (HwStats{1, 2, 30, 40, 5, 6, 7, 8, 9}));
  EXPECT_FALSE(s.cpuHit);
  EXPECT_EQ(s.mpls, (MplsStats{21, 22, 23, 24, 25, 26, 27, 28, 29}));
}

TEST(StatsDecode, MalformedRecordsAreErrors) {
  auto refused = [](const Bytes& bytes) { return test::refusedAsMalformed(decodeDeviceStats, bytes); };
  auto message = [](const Attrs& attrs) { return test::netlinkMessage(92, 0, statsHeader(3, 0), attrs); };
  EXPECT_TRUE(refused(test::netlinkMessage(92, 0, Bytes{0, 0, 0, 0, 3, 0, 0, 0}, Attrs())));  // short header
  // A flag of 2, and an L3 entry without its request flag (ip refuses both).
  EXPECT_TRUE(refused(message(Attrs().nest(4, Attrs().nest(2, Attrs().nest(3, Attrs().u8(1, 2)))))));
  EXPECT_TRUE(refused(message(Attrs().nest(4, Attrs().nest(2, Attrs().nest(3, Attrs().u8(2, 1)))))));
  // A bridge STP block shorter than bridge_stp_xstats; a 3ad counter shorter than a u64.
  EXPECT_TRUE(refused(message(Attrs().nest(3, Attrs().nest(1, Attrs().raw(4, u64s({1, 2, 3})))))));
  EXPECT_TRUE(refused(message(Attrs().nest(2, Attrs().nest(2, Attrs().nest(1, Attrs().u32(0, 4)))))));
}

}  // namespace
}  // namespace fastlink
