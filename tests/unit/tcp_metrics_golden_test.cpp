// Golden bytes for the tcp_metrics family: every request builder against a hand-laid message,
// and the decoder against replies laid out as the kernel's tcp_metrics_fill_info does. Numbers
// written out from the uapi (include/uapi/linux/tcp_metrics.h), not taken from the header:
//   commands: GET 1, DEL 2; version 1
//   attributes: ADDR_IPV4 1, ADDR_IPV6 2, AGE 3 (u64 ms), TW_TSVAL 4, TW_TS_STAMP 5 (s32),
//     VALS 6 (nest, type = metric + 1), FOPEN_MSS 7 (u16), FOPEN_SYN_DROPS 8 (u16),
//     FOPEN_SYN_DROP_TS 9 (u64), FOPEN_COOKIE 10, SADDR_IPV4 11, SADDR_IPV6 12, PAD 13
//   metrics: RTT 0, RTTVAR 1, SSTHRESH 2, CWND 3, REORDERING 4, RTT_US 5, RTTVAR_US 6
#include <gtest/gtest.h>
#include <linux/netlink.h>

#include "fastlink/error.hpp"
#include "fastlink/tcp_metrics.hpp"
#include "unit/genl_golden.hpp"

namespace fastlink {
namespace {

using test::AlignedMessage;
using test::Attrs;
using test::Bytes;
using test::sameBytes;

const GenlFamily kTcpMetrics{"tcp_metrics", 0x1a, 1};
const test::GenlMessages message(kTcpMetrics);

const Bytes kV6{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};

TEST(TcpMetricsGolden, ListIsAGetDumpWithoutAttributes) {
  Request r = TcpMetricsRequests::list(kTcpMetrics);
  EXPECT_TRUE(sameBytes(r.bytes(), message(1, Attrs(), NLM_F_REQUEST | NLM_F_DUMP)));
  EXPECT_EQ(r.operation(), "tcp_metrics show");
}

TEST(TcpMetricsGolden, GetAndDeleteCarryTheAddressesInTheirFamiliesAttributes) {
  Request get = TcpMetricsRequests::get(kTcpMetrics, IpAddress::parse("10.0.0.2"));
  EXPECT_TRUE(sameBytes(get.bytes(), message(1, Attrs().raw(1, {10, 0, 0, 2}))));
  EXPECT_EQ(get.operation(), "tcp_metrics show 10.0.0.2");
  Request del = TcpMetricsRequests::remove(kTcpMetrics, IpAddress::parse("2001:db8::2"), IpAddress::parse("10.0.0.1"));
  EXPECT_TRUE(sameBytes(del.bytes(), message(2, Attrs().raw(2, kV6).raw(11, {10, 0, 0, 1}))));
  EXPECT_EQ(del.operation(), "tcp_metrics delete 2001:db8::2 source 10.0.0.1");
  EXPECT_TRUE(sameBytes(TcpMetricsRequests::remove(kTcpMetrics, IpAddress::parse("10.0.0.2"), IpAddress::parse("2001:db8::2")).bytes(),
                        message(2, Attrs().raw(1, {10, 0, 0, 2}).raw(12, kV6))));
}

TEST(TcpMetricsGolden, FlushIsADeleteWithoutAnAddress) {
  EXPECT_TRUE(sameBytes(TcpMetricsRequests::flushAll(kTcpMetrics).bytes(), message(2, Attrs())));
}

TEST(TcpMetricsDecode, AnEntryAsTheKernelFillsIt) {
  // tcp_metrics_fill_info: addresses, AGE, TW_TSVAL/TW_TS_STAMP when set, VALS (RTT_US,
  // RTTVAR_US, then the ms forms, then the rest), FOPEN_*.
  AlignedMessage m(message(1,
                           Attrs()
                               .raw(1, {10, 0, 0, 2})
                               .raw(11, {10, 0, 0, 1})
                               .u64(3, 1234)
                               .u32(4, 77)
                               .u32(5, static_cast<uint32_t>(-3))
                               .nest(6, Attrs().u32(6, 232).u32(7, 100).u32(1, 0).u32(2, 0).u32(3, 7).u32(4, 10).u32(5, 3))
                               .u16(7, 1400)
                               .u16(8, 2)
                               .u64(9, 5000)
                               .raw(10, {0xde, 0xad, 0xbe, 0xef}),
                           NLM_F_MULTI));
  TcpMetricsEntry e = decodeTcpMetrics(m.as<nlmsghdr>());
  TcpMetricsEntry want;
  want.destination = IpAddress::parse("10.0.0.2");
  want.source = IpAddress::parse("10.0.0.1");
  want.ageMs = 1234;
  want.twTsval = 77;
  want.twTsStamp = -3;
  want.rttUs = 232;
  want.rttVarUs = 100;
  want.rttMs = 0;
  want.rttVarMs = 0;
  want.ssthresh = 7;
  want.cwnd = 10;
  want.reordering = 3;
  want.fastOpenMss = 1400;
  want.fastOpenSynDrops = 2;
  want.fastOpenSynDropTs = 5000;
  want.fastOpenCookie = {0xde, 0xad, 0xbe, 0xef};
  EXPECT_EQ(e, want);
  // ip's arithmetic: the us forms win, shifted by the kernel's scale.
  EXPECT_EQ(e.rttMicros(), 29u);
  EXPECT_EQ(e.rttVarMicros(), 25u);
  TcpMetricsEntry old;
  old.rttMs = 8;  // a kernel without the us forms: ms * 1000 >> 3
  old.rttVarMs = 4;
  EXPECT_EQ(old.rttMicros(), 1000u);
  EXPECT_EQ(old.rttVarMicros(), 1000u);
  EXPECT_EQ(TcpMetricsEntry{}.rttMicros(), 0u);
}

TEST(TcpMetricsDecode, AnIpv6EntryWithoutSource) {
  AlignedMessage m(message(1, Attrs().raw(2, kV6).u64(3, 5), NLM_F_MULTI));
  TcpMetricsEntry e = decodeTcpMetrics(m.as<nlmsghdr>());
  EXPECT_EQ(e.destination, IpAddress::parse("2001:db8::2"));
  EXPECT_FALSE(e.source);
  EXPECT_EQ(e.ageMs, 5u);
}

TEST(TcpMetricsDecode, MalformedRepliesAreErrorsNotGuesses) {
  auto refused = [](const Bytes& bytes) { return test::refusedAsMalformed(decodeTcpMetrics, bytes); };
  EXPECT_TRUE(refused(message(1, Attrs().u64(3, 5))));                           // no destination
  EXPECT_TRUE(refused(message(1, Attrs().raw(1, {10, 0}))));                     // short IPv4 address
  EXPECT_TRUE(refused(message(1, Attrs().raw(2, {0x20, 1, 0, 0}))));             // short IPv6 address
  EXPECT_TRUE(refused(message(1, Attrs().raw(1, {10, 0, 0, 2}).raw(3, {1}))));   // short age
  EXPECT_TRUE(refused(message(1, Attrs().raw(1, {10, 0, 0, 2}).nest(6, Attrs().raw(4, {1})))));  // short metric
}

}  // namespace
}  // namespace fastlink
