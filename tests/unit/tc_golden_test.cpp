// Golden bytes for tc requests (TcRequests: every option encoder), the qdisc/class decoders, and
// tc's units. tcmsg by hand: family u8, pad u8, pad u16, ifindex s32, handle u32, parent u32,
// info u32. Times in kernel ticks of 64 ns (15.625 per microsecond, /proc/net/psched here and
// in the VM), as tc computes them.
#include <gtest/gtest.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <cmath>

#include "fastlink/tc.hpp"
#include "rtnl/tc_codec.hpp"
#include "unit/golden.hpp"
#include "unit/tc_golden.hpp"

namespace fastlink {
namespace {

using test::AlignedMessage;
using test::Attrs;
using test::Bytes;
using test::cat;
using test::ratespec;
using test::le32s;
using test::sameBytes;
using test::tcm;

constexpr uint16_t kAdd = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL;
constexpr uint16_t kReplace = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_REPLACE;
// Kernel constants written out, so that a wrong one in src/ is a byte difference.
constexpr uint16_t kTcaKind = 1, kTcaOptions = 2, kTcaStats2 = 7;
constexpr uint16_t kRtmNewQdisc = 36, kRtmDelQdisc = 37, kRtmNewTclass = 40, kRtmDelTclass = 41;

TEST(TcGolden, PfifoRootWithHandle) {
  // tc qdisc add dev (7) root handle 1: pfifo limit 10
  Request r = TcRequests::addQdisc(QdiscInfo().setDev(7u).setRoot().setHandle(TcHandle(1, 0)).setKind("pfifo").setOptions(FifoOptions{10}));
  Bytes expected = test::netlinkMessage(kRtmNewQdisc, kAdd, tcm(7, 0x10000, 0xFFFFFFFF),
                                        Attrs().str(kTcaKind, "pfifo").raw(kTcaOptions, le32s({10})));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
  EXPECT_EQ(r.operation(), "qdisc add dev 7 root handle 1: pfifo");
}

TEST(TcGolden, BfifoReplaceWithoutHandle) {
  // tc qdisc replace dev (3) parent 1:20 bfifo limit 10kb
  Request r = TcRequests::replaceQdisc(QdiscInfo().setDev(3u).setParent(TcHandle(1, 0x20)).setKind("bfifo").setOptions(FifoOptions{10240}));
  Bytes expected = test::netlinkMessage(kRtmNewQdisc, kReplace, tcm(3, 0, 0x10020),
                                        Attrs().str(kTcaKind, "bfifo").raw(kTcaOptions, le32s({10240})));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
}

TEST(TcGolden, KindsWithoutOptions) {
  for (const char* kind : {"mq", "noqueue", "pfifo_fast"}) {
    Request r = TcRequests::replaceQdisc(QdiscInfo().setDev(2u).setRoot().setKind(kind));
    EXPECT_TRUE(sameBytes(r.bytes(), test::netlinkMessage(kRtmNewQdisc, kReplace, tcm(2, 0, 0xFFFFFFFF), Attrs().str(kTcaKind, kind))))
        << kind;
  }
}

TEST(TcGolden, IngressAndClsactSitAtFfffFff1WithHandleFfff) {
  for (bool clsact : {false, true}) {
    QdiscInfo q = QdiscInfo().setDev(4u);
    if (clsact) q.setClsact();
    else q.setIngress();
    Request r = TcRequests::addQdisc(q);
    EXPECT_TRUE(sameBytes(r.bytes(), test::netlinkMessage(kRtmNewQdisc, kAdd, tcm(4, 0xFFFF0000, 0xFFFFFFF1),
                                                          Attrs().str(kTcaKind, clsact ? "clsact" : "ingress"))));
  }
}

TEST(TcGolden, DelRootSendsNoOptions) {
  Request r = TcRequests::delQdisc(QdiscInfo().setDev(9u).setRoot());
  EXPECT_TRUE(sameBytes(r.bytes(), test::netlinkMessage(kRtmDelQdisc, NLM_F_REQUEST, tcm(9, 0, 0xFFFFFFFF), Attrs())));
}

TEST(TcGolden, HtbQdisc) {
  // tc qdisc add dev (5) root handle 1: htb default 10 r2q 5 direct_qlen 100
  HtbOptions o;
  o.defaultClass = 0x10;
  o.r2q = 5;
  o.directQlen = 100;
  Request r = TcRequests::addQdisc(QdiscInfo().setDev(5u).setRoot().setHandle(TcHandle(1, 0)).setKind("htb").setOptions(o));
  // TCA_OPTIONS is sent without NLA_F_NESTED, like tc; tc_htb_glob: version 3, r2q, defcls, debug, direct_pkts.
  Bytes expected = test::netlinkMessage(
      kRtmNewQdisc, kAdd, tcm(5, 0x10000, 0xFFFFFFFF),
      Attrs().str(kTcaKind, "htb").nestNoFlag(kTcaOptions, Attrs().raw(2 /* TCA_HTB_INIT */, le32s({3, 5, 0x10, 0, 0})).u32(5 /* DIRECT_QLEN */, 100)));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
}

TEST(TcGolden, HtbClassRateCeilBurstLikeTc) {
  // tc class add dev (5) parent 1: classid 1:10 htb rate 10mbit ceil 20mbit burst 15k prio 2
  // buffer = 15360 B at 1,250,000 B/s = 12288 us = 192000 ticks; cbuffer = 1600 B (default
  // ceil/HZ + mtu) at 2,500,000 B/s = 640 us = 10000 ticks (tc shows tokens 192000 ctokens 10000).
  HtbClassOptions o;
  o.rate = 1250000;
  o.ceil = 2500000;
  o.burst = 15360;
  o.prio = 2;
  Request r = TcRequests::addClass(ClassInfo().setDev(5u).setParent(TcHandle(1, 0)).setClassid(TcHandle(1, 0x10)).setKind("htb").setOptions(o));
  Bytes parms = cat({ratespec(1250000), ratespec(2500000), le32s({192000, 10000, 0, 0, 2})});
  Bytes expected = test::netlinkMessage(kRtmNewTclass, kAdd, tcm(5, 0x10010, 0x10000),
                                        Attrs().str(kTcaKind, "htb").nestNoFlag(kTcaOptions, Attrs().raw(1 /* TCA_HTB_PARMS */, parms)));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
}

TEST(TcGolden, HtbClassAbove32BitsUsesRate64) {
  HtbClassOptions o;
  o.rate = 5000000000ull;  // 40gbit
  o.burst = 100000;
  o.cburst = 100000;
  Request r = TcRequests::replaceClass(ClassInfo().setDev(5u).setParent(TcHandle(1, 0)).setClassid(TcHandle(1, 1)).setKind("htb").setOptions(o));
  // 100000 B at 5e9 B/s = 20 us = 312 ticks (312.5 truncated, like tc's integer ticks).
  Bytes parms = cat({ratespec(0xFFFFFFFF), ratespec(0xFFFFFFFF), le32s({312, 312, 0, 0, 0})});
  Bytes expected = test::netlinkMessage(
      kRtmNewTclass, kReplace, tcm(5, 0x10001, 0x10000),
      Attrs().str(kTcaKind, "htb").nestNoFlag(kTcaOptions, Attrs().u64(6 /* RATE64 */, 5000000000ull).u64(7 /* CEIL64 */, 5000000000ull).raw(1, parms)));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
}

TEST(TcGolden, ClassDelNeedsOnlyTheClassid) {
  Request r = TcRequests::delClass(ClassInfo().setDev(5u).setClassid(TcHandle(1, 0x20)));
  EXPECT_TRUE(sameBytes(r.bytes(), test::netlinkMessage(kRtmDelTclass, NLM_F_REQUEST, tcm(5, 0x10020, 0), Attrs())));
}

TEST(TcGolden, FqCodel) {
  // tc qdisc add dev (2) root fq_codel limit 1000 flows 512 target 5ms interval 100ms ecn
  FqCodelOptions o;
  o.limit = 1000;
  o.flows = 512;
  o.target = 5000;
  o.interval = 100000;
  o.ecn = true;
  Request r = TcRequests::addQdisc(QdiscInfo().setDev(2u).setRoot().setKind("fq_codel").setOptions(o));
  Bytes expected = test::netlinkMessage(kRtmNewQdisc, kAdd, tcm(2, 0, 0xFFFFFFFF),
                                        Attrs().str(kTcaKind, "fq_codel").nestNoFlag(kTcaOptions, Attrs()
                                                                                                     .u32(2 /* LIMIT */, 1000)
                                                                                                     .u32(5 /* FLOWS */, 512)
                                                                                                     .u32(1 /* TARGET */, 5000)
                                                                                                     .u32(3 /* INTERVAL */, 100000)
                                                                                                     .u32(4 /* ECN */, 1)));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
}

TEST(TcGolden, Fq) {
  FqOptions o;
  o.limit = 10000;
  o.flowLimit = 100;
  o.pacing = false;
  o.maxRate = 125000;
  o.bucketsLog = 10;
  Request r = TcRequests::addQdisc(QdiscInfo().setDev(2u).setRoot().setKind("fq").setOptions(o));
  Bytes expected = test::netlinkMessage(kRtmNewQdisc, kAdd, tcm(2, 0, 0xFFFFFFFF),
                                        Attrs().str(kTcaKind, "fq").nestNoFlag(kTcaOptions, Attrs()
                                                                                               .u32(1 /* PLIMIT */, 10000)
                                                                                               .u32(2 /* FLOW_PLIMIT */, 100)
                                                                                               .u32(5 /* RATE_ENABLE */, 0)
                                                                                               .u32(7 /* FLOW_MAX_RATE */, 125000)
                                                                                               .u32(8 /* BUCKETS_LOG */, 10)));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
}

TEST(TcGolden, NetemStructThenAttributes) {
  // tc qdisc add dev (2) root netem delay 100ms 10ms 25% loss 1% reorder 10% corrupt 0.5% rate 1mbit
  NetemOptions o;
  o.delay = 100000;
  o.jitter = 10000;
  o.delayCorrelation = 0.25;
  o.loss = 0.01;
  o.reorder = 0.10;
  o.corrupt = 0.005;
  o.rate = 125000;
  Request r = TcRequests::addQdisc(QdiscInfo().setDev(2u).setRoot().setKind("netem").setOptions(o));
  // tc_netem_qopt: latency 1562500 ticks, limit 1000, loss rint(0.01 * 2^32-1), gap 1 (reorder),
  // duplicate 0, jitter 156250 ticks. Then CORR, REORDER, CORRUPT, RATE.
  Attrs inner;
  inner.raw(1 /* CORR */, le32s({1073741824, 0, 0}))
      .raw(3 /* REORDER */, le32s({429496730, 0}))
      .raw(4 /* CORRUPT */, le32s({21474836, 0}))
      .raw(6 /* RATE */, le32s({125000, 0, 0, 0}));
  Bytes payload = cat({le32s({1562500, 1000, 42949673, 1, 0, 156250}), inner.bytes()});
  Bytes expected = test::netlinkMessage(kRtmNewQdisc, kAdd, tcm(2, 0, 0xFFFFFFFF), Attrs().str(kTcaKind, "netem").raw(kTcaOptions, payload));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
}

/// The options the decoder makes of a qdisc reply whose TCA_OPTIONS payload is `options`.
TcOptions decodedOptions(const char* kind, const Bytes& options) {
  AlignedMessage m(test::netlinkMessage(kRtmNewQdisc, 0, tcm(2, 0x10000, 0xFFFFFFFF), Attrs().str(kTcaKind, kind).raw(kTcaOptions, options)));
  QdiscInfo q;
  rtnl::decodeQdisc(m.as<nlmsghdr>(), q);
  return q.options;
}

/// netem's probabilities as tc scales them (rint(P * UINT32_MAX)).
uint32_t prob(double fraction) { return static_cast<uint32_t>(std::rint(fraction * 4294967295.0)); }

TEST(TcGolden, NetemEcnSlotLossStateRateOverheadsAndDistribution) {
  // tc qdisc add dev (2) root netem delay 10ms 1ms distribution (a 3-value table) loss state 1%
  //   90% 5% 70% 2% ecn rate 1mbit -10 53 -5 slot 1ms 2ms packets 32 bytes 64k
  NetemOptions o;
  o.delay = 10000;
  o.jitter = 1000;
  o.delayDistribution = {-3, 0, 300};
  o.lossState = NetemOptions::LossState{0.01, 0.90, 0.05, 0.70, 0.02};
  o.ecn = true;
  o.rate = 125000;
  o.packetOverhead = -10;
  o.cellSize = 53;
  o.cellOverhead = -5;
  o.slot = NetemOptions::Slot{1000000, 2000000, 0, 0, 32, 65536};
  Request r = TcRequests::addQdisc(QdiscInfo().setDev(2u).setRoot().setKind("netem").setOptions(o));
  Bytes slot;
  for (uint64_t v : {1000000ull, 2000000ull}) test::appendLe64(slot, v);
  test::appendLe32(slot, 32);
  test::appendLe32(slot, 65536);
  for (uint64_t v : {0ull, 0ull}) test::appendLe64(slot, v);
  // tc's order after the struct: ECN (u32 1), SLOT, LOSS (nested, GI: p13 p31 p32 p14 p23), RATE,
  // DELAY_DIST (s16 values).
  Attrs inner;
  inner.u32(7 /* ECN */, 1)
      .raw(12 /* SLOT */, slot)
      .nest(5 /* LOSS */, Attrs().raw(1 /* GI */, le32s({prob(0.01), prob(0.90), prob(0.05), prob(0.02), prob(0.70)})))
      .raw(6 /* RATE */, le32s({125000, static_cast<uint32_t>(-10), 53, static_cast<uint32_t>(-5)}))
      .raw(2 /* DELAY_DIST */, {0xfd, 0xff, 0, 0, 0x2c, 0x01});
  Bytes payload = cat({le32s({156250, 1000, 0, 0, 0, 15625}), inner.bytes()});
  Bytes expected = test::netlinkMessage(kRtmNewQdisc, kAdd, tcm(2, 0, 0xFFFFFFFF), Attrs().str(kTcaKind, "netem").raw(kTcaOptions, payload));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));

  // The kernel reports them back (not the table): the decoder gives the same options.
  NetemOptions back = std::get<NetemOptions>(decodedOptions("netem", payload));
  EXPECT_TRUE(back.ecn);
  ASSERT_TRUE(back.lossState);
  EXPECT_NEAR(back.lossState->p23, 0.70, 1e-9);
  EXPECT_NEAR(back.lossState->p14, 0.02, 1e-9);
  EXPECT_EQ(back.packetOverhead, -10);
  EXPECT_EQ(back.cellSize, 53u);
  EXPECT_EQ(back.cellOverhead, -5);
  EXPECT_EQ(back.slot, o.slot);
  EXPECT_TRUE(back.delayDistribution.empty());
}

TEST(TcGolden, NetemGemodelSendsHAsTheKernelKeepsIt) {
  // tc qdisc add dev (2) root netem loss gemodel 1% 10% 70% 0.1%: the third word is 1-h; the
  // kernel's h is UINT32_MAX minus it.
  NetemOptions o;
  o.lossGemodel = NetemOptions::LossGemodel{0.01, 0.10, 0.70, 0.001};
  Request r = TcRequests::addQdisc(QdiscInfo().setDev(2u).setRoot().setKind("netem").setOptions(o));
  Attrs inner;
  inner.nest(5 /* LOSS */, Attrs().raw(2 /* GE */, le32s({prob(0.01), prob(0.10), 4294967295u - prob(0.70), prob(0.001)})));
  Bytes payload = cat({le32s({0, 1000, 0, 0, 0, 0}), inner.bytes()});
  EXPECT_TRUE(sameBytes(r.bytes(), test::netlinkMessage(kRtmNewQdisc, kAdd, tcm(2, 0, 0xFFFFFFFF),
                                                        Attrs().str(kTcaKind, "netem").raw(kTcaOptions, payload))));
  auto gemodel = std::get<NetemOptions>(decodedOptions("netem", payload)).lossGemodel;
  ASSERT_TRUE(gemodel);
  EXPECT_NEAR(gemodel->oneMinusH, 0.70, 1e-9);
  NetemOptions ecnAlone;
  ecnAlone.ecn = true;
  EXPECT_THROW(TcRequests::addQdisc(QdiscInfo().setDev(2u).setRoot().setKind("netem").setOptions(ecnAlone)), Error);
}

TEST(TcGolden, FqRatesTimerSlackHorizonDropAndFqCodelSelector) {
  // tc qdisc add dev (2) root fq defrate 10mbit low_rate_threshold 1mbit timer_slack 20us horizon_cap
  FqOptions o;
  o.defaultRate = 1250000;
  o.lowRateThreshold = 125000;
  o.timerSlack = 20000;
  o.horizonDrop = false;
  Request r = TcRequests::addQdisc(QdiscInfo().setDev(2u).setRoot().setKind("fq").setOptions(o));
  Attrs fq;
  fq.u32(6 /* FLOW_DEFAULT_RATE */, 1250000).u32(11 /* LOW_RATE_THRESHOLD */, 125000).u32(13 /* TIMER_SLACK */, 20000).u8(15 /* HORIZON_DROP */, 0);
  EXPECT_TRUE(sameBytes(r.bytes(), test::netlinkMessage(kRtmNewQdisc, kAdd, tcm(2, 0, 0xFFFFFFFF),
                                                        Attrs().str(kTcaKind, "fq").nestNoFlag(kTcaOptions, fq))));
  EXPECT_EQ(std::get<FqOptions>(decodedOptions("fq", fq.bytes())), o);

  // tc qdisc add dev (2) root fq_codel ce_threshold 1ms ce_threshold_selector 0x1/0x3
  FqCodelOptions c;
  c.ceThreshold = 1000;
  c.ceThresholdSelector = 1;
  c.ceThresholdMask = 3;
  Request rc = TcRequests::addQdisc(QdiscInfo().setDev(2u).setRoot().setKind("fq_codel").setOptions(c));
  Attrs codel;
  codel.u32(7 /* CE_THRESHOLD */, 1000).u8(10 /* CE_THRESHOLD_SELECTOR */, 1).u8(11 /* CE_THRESHOLD_MASK */, 3);
  EXPECT_TRUE(sameBytes(rc.bytes(), test::netlinkMessage(kRtmNewQdisc, kAdd, tcm(2, 0, 0xFFFFFFFF),
                                                         Attrs().str(kTcaKind, "fq_codel").nestNoFlag(kTcaOptions, codel))));
  EXPECT_EQ(std::get<FqCodelOptions>(decodedOptions("fq_codel", codel.bytes())), c);
}

TEST(TcGolden, TbfLatencyBecomesLimit) {
  // tc qdisc add dev (2) root tbf rate 1mbit burst 32k latency 400ms
  // buffer = 32768 B at 125000 B/s = 262144 us = 4096000 ticks; limit = 125000 * 0.4 + 32768.
  TbfOptions o;
  o.rate = 125000;
  o.burst = 32768;
  o.latency = 400000;
  Request r = TcRequests::addQdisc(QdiscInfo().setDev(2u).setRoot().setKind("tbf").setOptions(o));
  Bytes parms = cat({ratespec(125000), Bytes(12, 0), le32s({82768, 4096000, 0})});
  Bytes expected = test::netlinkMessage(kRtmNewQdisc, kAdd, tcm(2, 0, 0xFFFFFFFF),
                                        Attrs().str(kTcaKind, "tbf").nestNoFlag(kTcaOptions, Attrs().raw(1 /* PARMS */, parms).u32(6 /* BURST */, 32768)));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
}

TEST(TcGolden, UnknownKindRawOptionsPassThrough) {
  Request r = TcRequests::addQdisc(QdiscInfo().setDev(2u).setRoot().setKind("cake").setOptions(RawTcOptions{{1, 2, 3, 4}}));
  EXPECT_TRUE(sameBytes(r.bytes(), test::netlinkMessage(kRtmNewQdisc, kAdd, tcm(2, 0, 0xFFFFFFFF),
                                                        Attrs().str(kTcaKind, "cake").raw(kTcaOptions, {1, 2, 3, 4}))));
}

TEST(TcGolden, BadInputIsRefusedBeforeSending) {
  auto refused = [](auto build) {
    try {
      build();
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), std::errc::invalid_argument);
      return e.reason();
    }
    ADD_FAILURE() << "accepted";
    return std::string();
  };
  QdiscInfo base = QdiscInfo().setDev(2u).setRoot();
  NetemOptions netem;
  netem.loss = 1.5;
  EXPECT_NE(refused([&] { TcRequests::addQdisc(QdiscInfo(base).setKind("netem").setOptions(netem)); }).find("loss"), std::string::npos);
  netem = NetemOptions();
  netem.reorder = 0.1;
  EXPECT_NE(refused([&] { TcRequests::addQdisc(QdiscInfo(base).setKind("netem").setOptions(netem)); }).find("delay"), std::string::npos);
  EXPECT_NE(refused([&] { TcRequests::addQdisc(QdiscInfo(base).setKind("htb").setOptions(FifoOptions{5})); }).find("do not fit"),
            std::string::npos);
  EXPECT_NE(refused([&] { TcRequests::addQdisc(QdiscInfo(base).setKind("mq").setOptions(FifoOptions{5})); }).find("takes no options"),
            std::string::npos);
  EXPECT_NE(refused([&] { TcRequests::addQdisc(QdiscInfo(base).setKind("htb").setOptions(RawTcOptions{{1}})); }).find("typed"),
            std::string::npos);
  refused([&] { TcRequests::addQdisc(QdiscInfo(base)); });  // no kind
  refused([&] { TcRequests::addQdisc(QdiscInfo().setDev(2u).setKind("pfifo")); });  // no parent
  refused([&] { TcRequests::addQdisc(QdiscInfo(base).setHandle(TcHandle(1, 1)).setKind("pfifo")); });
  refused([&] { TcRequests::addQdisc(QdiscInfo().setDev(2u).setParent(TcHandle(TcHandle::kIngress)).setKind("pfifo")); });
  refused([&] { TcRequests::addQdisc(QdiscInfo(base).setKind("ingress")); });
  HtbClassOptions zero;
  refused([&] { TcRequests::addClass(ClassInfo().setDev(2u).setParent(TcHandle(1, 0)).setClassid(TcHandle(1, 1)).setKind("htb").setOptions(zero)); });
  HtbClassOptions ok;
  ok.rate = 1000;
  refused([&] { TcRequests::addClass(ClassInfo().setDev(2u).setParent(TcHandle(1, 0)).setClassid(TcHandle(1, 0)).setKind("htb").setOptions(ok)); });
  refused([&] { TcRequests::addClass(ClassInfo().setDev(2u).setParent(TcHandle(2, 0)).setClassid(TcHandle(1, 1)).setKind("htb").setOptions(ok)); });
  refused([&] { TcRequests::addClass(ClassInfo().setDev(2u).setParent(TcHandle(1, 0)).setClassid(TcHandle(1, 1)).setKind("htb")); });
  TbfOptions tbf;
  tbf.rate = 1000;
  tbf.burst = 1000;
  refused([&] { TcRequests::addQdisc(QdiscInfo(base).setKind("tbf").setOptions(tbf)); });  // neither limit nor latency
}

TEST(TcDecode, HtbClassWithStatsAndLeaf) {
  Bytes parms = cat({ratespec(125000), ratespec(250000), le32s({200000, 100000, 12500, 0, 3})});
  Bytes basic;  // gnet_stats_basic: bytes u64, packets u32 (+4 padding)
  test::appendLe64(basic, 9000);
  test::appendLe32(basic, 6);
  test::appendLe32(basic, 0);
  Bytes queue = le32s({2, 3000, 4, 5, 7});  // qlen, backlog, drops, requeues, overlimits
  Bytes app = le32s({1, 2, 3, 4000, 0xFFFFFFFF});  // lends, borrows, giants, tokens, ctokens (-1)
  Bytes message = test::netlinkMessage(
      kRtmNewTclass, 0, tcm(6, 0x10020, 0x10010, 0x200000),
      Attrs()
          .str(kTcaKind, "htb")
          .nestNoFlag(kTcaOptions, Attrs().raw(1, parms))
          .nestNoFlag(kTcaStats2, Attrs().raw(1 /* BASIC */, basic).raw(3 /* QUEUE */, queue).raw(4 /* APP */, app))
          .raw(99, {9, 9}));
  AlignedMessage m(message);
  ClassInfo c;
  rtnl::decodeClass(m.as<nlmsghdr>(), c);
  EXPECT_EQ(c.kind, "htb");
  EXPECT_EQ(c.dev->index(), 6u);
  EXPECT_EQ(c.classid->toString(), "1:20");
  EXPECT_EQ(c.parent->toString(), "1:10");
  EXPECT_EQ(c.leaf->toString(), "20:");
  const auto& o = std::get<HtbClassOptions>(c.options);
  EXPECT_EQ(o.rate, 125000u);
  EXPECT_EQ(o.ceil, 250000u);
  EXPECT_EQ(o.burst, 1600u);   // 200000 ticks = 12800 us at 125000 B/s
  EXPECT_EQ(o.cburst, 1600u);  // 100000 ticks = 6400 us at 250000 B/s
  EXPECT_EQ(o.quantum, 12500u);
  EXPECT_EQ(o.prio, 3u);
  ASSERT_TRUE(c.stats);
  EXPECT_EQ(c.stats->bytes, 9000u);
  EXPECT_EQ(c.stats->packets, 6u);
  EXPECT_EQ(c.stats->qlen, 2u);
  EXPECT_EQ(c.stats->backlog, 3000u);
  EXPECT_EQ(c.stats->drops, 4u);
  EXPECT_EQ(c.stats->requeues, 5u);
  EXPECT_EQ(c.stats->overlimits, 7u);
  ASSERT_TRUE(c.stats->htb);
  EXPECT_EQ(c.stats->htb->tokens, 4000);
  EXPECT_EQ(c.stats->htb->ctokens, -1);
  ASSERT_EQ(c.unknown.count(), 1u);
}

TEST(TcDecode, FqStatisticsEveryField) {
  // tc_fq_qd_stats written out: gc_flows, highprio_packets, tcp_retrans, throttled,
  // flows_plimit, pkts_too_long, allocation_errors (u64), time_next_delayed_flow (s64), flows,
  // inactive_flows, throttled_flows, unthrottle_latency_ns (u32), ce_mark, horizon_drops,
  // horizon_caps (u64): a distinct value each, so that a member read from another's place shows.
  Bytes app;
  for (uint64_t v : {1, 2, 3, 4, 5, 6, 7}) test::appendLe64(app, v);
  test::appendLe64(app, 8000000);
  for (uint32_t v : {9, 10, 11, 12000}) test::appendLe32(app, v);
  for (uint64_t v : {13, 14, 15}) test::appendLe64(app, v);
  Bytes message = test::netlinkMessage(kRtmNewQdisc, 0, tcm(2, 0x80010000, 0xFFFFFFFF, 1),
                                       Attrs().str(kTcaKind, "fq").nestNoFlag(kTcaStats2, Attrs().raw(4 /* APP */, app)));
  AlignedMessage m(message);
  QdiscInfo q;
  rtnl::decodeQdisc(m.as<nlmsghdr>(), q);
  ASSERT_TRUE(q.stats && q.stats->fq);
  const FqStats& f = *q.stats->fq;
  EXPECT_EQ(f.gcFlows, 1u);
  EXPECT_EQ(f.highprioPackets, 2u);
  EXPECT_EQ(f.tcpRetrans, 3u);
  EXPECT_EQ(f.throttled, 4u);
  EXPECT_EQ(f.flowsPlimit, 5u);
  EXPECT_EQ(f.pktsTooLong, 6u);
  EXPECT_EQ(f.allocationErrors, 7u);
  EXPECT_EQ(f.timeNextDelayedFlow, 8000000);
  EXPECT_EQ(f.flows, 9u);
  EXPECT_EQ(f.inactiveFlows, 10u);
  EXPECT_EQ(f.throttledFlows, 11u);
  EXPECT_EQ(f.unthrottleLatencyNs, 12000u);
  EXPECT_EQ(f.ceMark, 13u);
  EXPECT_EQ(f.horizonDrops, 14u);
  EXPECT_EQ(f.horizonCaps, 15u);
}

TEST(TcDecode, UnknownKindKeptRawAnd64BitPackets) {
  Bytes pkt64;
  test::appendLe64(pkt64, 5000000000ull);
  Bytes message = test::netlinkMessage(kRtmNewQdisc, 0, tcm(2, 0x80010000, 0xFFFFFFFF, 2),
                                       Attrs().str(kTcaKind, "cake").raw(kTcaOptions, {1, 2, 3, 4}).nestNoFlag(kTcaStats2, Attrs().raw(8 /* PKT64 */, pkt64)));
  AlignedMessage m(message);
  QdiscInfo q;
  rtnl::decodeQdisc(m.as<nlmsghdr>(), q);
  EXPECT_EQ(q.kind, "cake");
  EXPECT_EQ(q.handle->toString(), "8001:");
  EXPECT_EQ(q.parent->value, TcHandle::kRoot);
  EXPECT_EQ(q.refcnt, 2u);
  EXPECT_EQ(std::get<RawTcOptions>(q.options).bytes, (std::vector<uint8_t>{1, 2, 3, 4}));
  EXPECT_EQ(q.stats->packets, 5000000000ull);
}

TEST(TcUnits, ParseLikeTc) {
  using namespace tcunits;
  EXPECT_EQ(parseRate("10mbit"), 1250000u);
  EXPECT_EQ(parseRate("1Gbit"), 125000000u);
  EXPECT_EQ(parseRate("125kbps"), 125000u);
  EXPECT_EQ(parseRate("8bit"), 1u);
  EXPECT_EQ(parseRate("1mibit"), 131072u);
  EXPECT_THROW(parseRate("1000"), Error);  // no unit
  EXPECT_THROW(parseRate("10furlongs"), Error);
  EXPECT_EQ(parseSize("1600"), 1600u);
  EXPECT_EQ(parseSize("15k"), 15360u);
  EXPECT_EQ(parseSize("1mb"), 1048576u);
  EXPECT_EQ(parseSize("64kbit"), 8192u);
  EXPECT_THROW(parseSize("5gb"), Error);
  EXPECT_EQ(parseTime("5ms"), 5000u);
  EXPECT_EQ(parseTime("1.5s"), 1500000u);
  EXPECT_EQ(parseTime("250"), 250u);
  EXPECT_EQ(parseTime("100usec"), 100u);
  EXPECT_DOUBLE_EQ(parsePercent("10%"), 0.1);
  EXPECT_DOUBLE_EQ(parsePercent("0.5"), 0.005);
  EXPECT_THROW(parsePercent("101%"), Error);
}

TEST(TcUnits, RoundingIsLlroundsForEveryValueTcHas) {
  // roundToUnsigned stands in for std::llround (the CLI does not load libm): the same answer on
  // halves, just below a half (0.49999999999999994 + 0.5 is 1.0 in doubles), integers above
  // 2^52, and fractional times; not-positive values give 0.
  for (double v : {0.0, 0.4, 0.5, 0.49999999999999994, 1.5, 2.5, 2.4999999, 999999.5, 4503599627370495.5,
                   4503599627370497.0, 9007199254740993.0, 1e18})
    EXPECT_EQ(rtnl::roundToUnsigned(v), static_cast<uint64_t>(std::llround(v))) << std::to_string(v);
  EXPECT_EQ(rtnl::roundToUnsigned(-3.7), 0u);
  EXPECT_EQ(rtnl::roundToUnsigned(std::nan("")), 0u);
  EXPECT_EQ(rtnl::roundToUnsigned(1e30), UINT64_MAX);
  EXPECT_EQ(tcunits::parseTime("2.5us"), 3u);
  EXPECT_EQ(tcunits::parseTime("0.0004ms"), 0u);
  EXPECT_EQ(tcunits::parseTime("1.0005ms"), 1001u);
}

TEST(TcUnits, PrintLikeTc) {
  using namespace tcunits;
  EXPECT_EQ(rateText(1250000), "10Mbit");
  EXPECT_EQ(rateText(125), "1Kbit");
  EXPECT_EQ(rateText(1250001), "10Mbit");  // tc divides with integers above 1 Mbit
  EXPECT_EQ(rateText(125000000), "1Gbit");
  EXPECT_EQ(sizeText(1600), "1600b");
  EXPECT_EQ(sizeText(15360), "15Kb");
  EXPECT_EQ(sizeText(10240), "10Kb");
  EXPECT_EQ(sizeText(33554432), "32Mb");
  EXPECT_EQ(timeText(5000), "5ms");  // tc 6.1's print_time: %.3g
  EXPECT_EQ(timeText(2500), "2.5ms");
  EXPECT_EQ(timeText(1234567), "1.23s");
  EXPECT_EQ(timeText(800), "800us");
  EXPECT_EQ(time64Text(5000000), "5ms");
  EXPECT_EQ(time64Text(100000000), "100ms");
  EXPECT_EQ(TcHandle::parse("1:10").value, 0x10010u);
  EXPECT_EQ(TcHandle::parse("ffff:").value, 0xFFFF0000u);
  EXPECT_EQ(TcHandle::parse("root").value, TcHandle::kRoot);
  EXPECT_EQ(TcHandle::parse("10").toString(), "10:");
  EXPECT_THROW(TcHandle::parse("1:2:3"), Error);
  EXPECT_THROW(TcHandle::parse("x:"), Error);
}

}  // namespace
}  // namespace fastlink
