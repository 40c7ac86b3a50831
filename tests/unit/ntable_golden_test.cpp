// Golden bytes for neighbour tables: the change and dump requests against messages laid out by
// hand, and the decoder against messages laid out as the kernel's neightbl_fill_info and
// neightbl_fill_param_info send them. Numbers written out from the uapi
// (include/uapi/linux/rtnetlink.h, neighbour.h), not taken from the headers:
//   RTM_NEWNEIGHTBL 64, RTM_GETNEIGHTBL 66, RTM_SETNEIGHTBL 67; ndtmsg = family:u8 pad:u8 pad:u16
//   NDTA_NAME 1, THRESH1 2, THRESH2 3, THRESH3 4, CONFIG 5, PARMS 6, STATS 7, GC_INTERVAL 8
//   NDTPA_IFINDEX 1, REFCNT 2, REACHABLE_TIME 3, BASE_REACHABLE_TIME 4, RETRANS_TIME 5,
//     GC_STALETIME 6, DELAY_PROBE_TIME 7, QUEUE_LEN 8, APP_PROBES 9, UCAST_PROBES 10,
//     MCAST_PROBES 11, ANYCAST_DELAY 12, PROXY_DELAY 13, PROXY_QLEN 14, LOCKTIME 15
//   NLM_F_REQUEST 0x1, NLM_F_REPLACE 0x100, NLM_F_DUMP 0x300
#include <gtest/gtest.h>
#include <linux/netlink.h>

#include "fastlink/error.hpp"
#include "fastlink/ntable.hpp"
#include "unit/golden.hpp"

namespace fastlink {
namespace {

using test::AlignedMessage;
using test::Attrs;
using test::Bytes;
using test::sameBytes;

Bytes ndtmsg(uint8_t family) { return Bytes{family, 0, 0, 0}; }

Bytes le(std::initializer_list<uint64_t> values, int width) {
  Bytes b;
  for (uint64_t v : values) {
    if (width == 2) test::appendLe16(b, static_cast<uint16_t>(v));
    else if (width == 4) test::appendLe32(b, static_cast<uint32_t>(v));
    else test::appendLe64(b, v);
  }
  return b;
}

TEST(NeighTableGolden, ChangeSendsNameThresholdsAndTheParmsNest) {
  NeighTableChange c{.family = 2, .name = "arp_cache", .thresh1 = 64, .gcInterval = 30000,
                     .parms = {.ifindex = 4, .baseReachable = 20000, .queueLen = 50, .locktime = 0}};
  Request r = NeighTableRequests::change(c);
  EXPECT_TRUE(sameBytes(r.bytes(), test::netlinkMessage(67, 0x1 | 0x100, ndtmsg(2),
                                                        Attrs()
                                                            .raw(1, {'a', 'r', 'p', '_', 'c', 'a', 'c', 'h', 'e', 0})
                                                            .u32(2, 64)
                                                            .u64(8, 30000)
                                                            .nest(6, Attrs().u32(1, 4).u64(4, 20000).u32(8, 50).u64(15, 0)))));
  EXPECT_EQ(r.operation(), "ntable change name arp_cache dev 4");
  // Every parameter, in the uapi order; no device: the table's defaults.
  NeighTableChange all{.name = "ndisc_cache",
                       .parms = {.baseReachable = 1, .retrans = 2, .gcStale = 3, .delayProbe = 4, .queueLen = 5,
                                 .appProbes = 6, .ucastProbes = 7, .mcastProbes = 8, .anycastDelay = 9,
                                 .proxyDelay = 10, .proxyQlen = 11, .locktime = 12}};
  EXPECT_TRUE(sameBytes(NeighTableRequests::change(all).bytes(),
                        test::netlinkMessage(67, 0x101, ndtmsg(0),
                                             Attrs()
                                                 .raw(1, {'n', 'd', 'i', 's', 'c', '_', 'c', 'a', 'c', 'h', 'e', 0})
                                                 .nest(6, Attrs()
                                                              .u64(4, 1)
                                                              .u64(5, 2)
                                                              .u64(6, 3)
                                                              .u64(7, 4)
                                                              .u32(8, 5)
                                                              .u32(9, 6)
                                                              .u32(10, 7)
                                                              .u32(11, 8)
                                                              .u64(12, 9)
                                                              .u64(13, 10)
                                                              .u32(14, 11)
                                                              .u64(15, 12)))));
  EXPECT_THROW(NeighTableRequests::change(NeighTableChange{.name = "arp_cache"}), Error);  // nothing to change
  EXPECT_THROW(NeighTableRequests::change(NeighTableChange{.thresh1 = 1}), Error);         // no name
}

TEST(NeighTableGolden, ListIsADumpOfTheFamily) {
  EXPECT_TRUE(sameBytes(NeighTableRequests::list().bytes(), test::netlinkMessage(66, 0x301, ndtmsg(0), Attrs())));
  EXPECT_TRUE(sameBytes(NeighTableRequests::list(10).bytes(), test::netlinkMessage(66, 0x301, ndtmsg(10), Attrs())));
}

TEST(NeighTableDecode, ATableAndADevicesParameters) {
  Bytes config = le({4, 336}, 2);
  Bytes rest = le({2, 1000, 2000, 77, 7, 0, 0}, 4);
  config.insert(config.end(), rest.begin(), rest.end());
  Bytes stats = le({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 8);
  AlignedMessage table(test::netlinkMessage(64, NLM_F_MULTI, ndtmsg(2),
                                            Attrs()
                                                .raw(1, {'a', 'r', 'p', '_', 'c', 'a', 'c', 'h', 'e', 0})
                                                .u64(8, 30000)
                                                .u32(2, 128)
                                                .u32(3, 512)
                                                .u32(4, 1024)
                                                .raw(5, config)
                                                .nest(6, Attrs().u32(2, 1).u64(3, 28080).u64(4, 30000).u32(8, 101).u64(15, 1000))
                                                .raw(7, stats)));
  NeighTableInfo t = decodeNeighTable(table.as<nlmsghdr>());
  EXPECT_EQ(t.family, 2);
  EXPECT_EQ(t.name, "arp_cache");
  EXPECT_EQ(t.thresh1, 128u);
  EXPECT_EQ(t.thresh3, 1024u);
  EXPECT_EQ(t.gcInterval, 30000u);
  EXPECT_EQ(t.config, (NeighTableConfig{.keyLength = 4, .entrySize = 336, .entries = 2, .lastFlushMs = 1000,
                                        .lastRandMs = 2000, .hashRnd = 77, .hashMask = 7, .hashChainGc = 0, .proxyQlen = 0}));
  EXPECT_EQ(t.parms, (NeighTableParms{.refcnt = 1, .reachable = 28080, .baseReachable = 30000, .queueLen = 101, .locktime = 1000}));
  EXPECT_EQ(t.stats, (NeighTableStats{.allocs = 1, .destroys = 2, .hashGrows = 3, .resFailed = 4, .lookups = 5, .hits = 6,
                                      .rcvProbesMcast = 7, .rcvProbesUcast = 8, .periodicGcRuns = 9, .forcedGcRuns = 10,
                                      .tableFulls = 11}));
  AlignedMessage device(test::netlinkMessage(64, NLM_F_MULTI, ndtmsg(10),
                                             Attrs()
                                                 .raw(1, {'n', 'd', 'i', 's', 'c', '_', 'c', 'a', 'c', 'h', 'e', 0})
                                                 .nestNoFlag(6, Attrs().u32(1, 4).u32(2, 1).u64(5, 1000))));
  NeighTableInfo d = decodeNeighTable(device.as<nlmsghdr>());
  EXPECT_EQ(d.name, "ndisc_cache");
  EXPECT_FALSE(d.thresh1);
  EXPECT_FALSE(d.config);
  EXPECT_EQ(d.parms, (NeighTableParms{.ifindex = 4, .refcnt = 1, .retrans = 1000}));
}

TEST(NeighTableDecode, MalformedMessagesAreErrors) {
  auto refused = [](const Bytes& bytes) { return test::refusedAsMalformed(decodeNeighTable, bytes); };
  Bytes name{'x', 0};
  EXPECT_TRUE(refused(test::netlinkMessage(64, 0, ndtmsg(2), Attrs().u32(2, 1))));                      // no name
  EXPECT_TRUE(refused(test::netlinkMessage(64, 0, ndtmsg(2), Attrs().raw(1, name).raw(5, {1, 2, 3}))));  // short config
  EXPECT_TRUE(refused(test::netlinkMessage(64, 0, ndtmsg(2), Attrs().raw(1, name).raw(7, Bytes(80, 0)))));  // short stats
  EXPECT_TRUE(refused(test::netlinkMessage(64, 0, ndtmsg(2), Attrs().raw(1, name).nest(6, Attrs().raw(3, {1, 0})))));
}

}  // namespace
}  // namespace fastlink
