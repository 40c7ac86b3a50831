// Golden bytes of every qdisc/class option kind both ways: the requests tc_golden_test.cpp does
// not cover (prio, full fq_codel/fq, tbf's peak rate and 64-bit rates, netem's 64-bit rate and
// correlations, the defaults htb and netem send without options) and the decoding of
// kernel-shaped TCA_OPTIONS for every kind. Written before the option codecs moved onto the
// attribute tables (core/attr_fields.hpp), so that the move is proven byte for byte.
#include <gtest/gtest.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "fastlink/tc.hpp"
#include "rtnl/tc_codec.hpp"
#include "unit/golden.hpp"
#include "unit/tc_golden.hpp"

namespace fastlink {

// Readable failures: gtest prints these option structs field by field, not as bytes.
template <class T>
void printField(std::ostream* os, const char* name, const T& v) {
  *os << name << "=";
  if constexpr (requires { v.has_value(); }) {
    if (!v) *os << "unset";
    else *os << +*v;
  } else {
    *os << +v;
  }
  *os << " ";
}
#define FL_PRINT(member) printField(os, #member, o.member)
void PrintTo(const FifoOptions& o, std::ostream* os) { FL_PRINT(limit); }
void PrintTo(const PrioOptions& o, std::ostream* os) {
  FL_PRINT(bands), FL_PRINT(multiqueue);
  for (uint8_t b : o.priomap) *os << +b << ",";
}
void PrintTo(const HtbOptions& o, std::ostream* os) {
  FL_PRINT(defaultClass), FL_PRINT(r2q), FL_PRINT(directQlen), FL_PRINT(version), FL_PRINT(directPackets);
}
void PrintTo(const HtbClassOptions& o, std::ostream* os) {
  FL_PRINT(rate), FL_PRINT(ceil), FL_PRINT(burst), FL_PRINT(cburst), FL_PRINT(prio), FL_PRINT(quantum), FL_PRINT(mtu), FL_PRINT(level);
}
void PrintTo(const FqCodelOptions& o, std::ostream* os) {
  FL_PRINT(limit), FL_PRINT(flows), FL_PRINT(target), FL_PRINT(interval), FL_PRINT(quantum), FL_PRINT(ecn);
  FL_PRINT(ceThreshold), FL_PRINT(memoryLimit), FL_PRINT(dropBatch);
}
void PrintTo(const FqOptions& o, std::ostream* os) {
  FL_PRINT(limit), FL_PRINT(flowLimit), FL_PRINT(quantum), FL_PRINT(initialQuantum), FL_PRINT(maxRate), FL_PRINT(bucketsLog);
  FL_PRINT(pacing), FL_PRINT(refillDelay), FL_PRINT(orphanMask), FL_PRINT(ceThreshold), FL_PRINT(horizon);
}
void PrintTo(const TbfOptions& o, std::ostream* os) {
  FL_PRINT(rate), FL_PRINT(burst), FL_PRINT(limit), FL_PRINT(latency), FL_PRINT(peakrate), FL_PRINT(mtu), FL_PRINT(reportedLatency);
}
#undef FL_PRINT

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
// Kernel constants written out, so that a wrong one in src/ is a byte difference.
constexpr uint16_t kTcaKind = 1, kTcaOptions = 2;
constexpr uint16_t kRtmNewQdisc = 36, kRtmNewTclass = 40;


Bytes addQdisc(const std::string& kind, const Attrs& options) {
  return test::netlinkMessage(kRtmNewQdisc, kAdd, tcm(2, 0, 0xFFFFFFFF), Attrs().str(kTcaKind, kind).append(options));
}
Bytes requestOf(const std::string& kind, TcOptions options) {
  Request r = TcRequests::addQdisc(QdiscInfo().setDev(2u).setRoot().setKind(kind).setOptions(std::move(options)));
  return Bytes(r.bytes().begin(), r.bytes().end());
}

/// The options a kernel-shaped RTM_NEWQDISC (or RTM_NEWTCLASS) of `kind` decodes to.
TcOptions decoded(const std::string& kind, const Attrs& options, bool isClass = false) {
  Bytes message = test::netlinkMessage(isClass ? kRtmNewTclass : kRtmNewQdisc, 0, tcm(2, 0x10000, 0xFFFFFFFF),
                                       Attrs().str(kTcaKind, kind).append(options));
  AlignedMessage m(message);
  if (isClass) {
    ClassInfo c;
    rtnl::decodeClass(m.as<nlmsghdr>(), c);
    return c.options;
  }
  QdiscInfo q;
  rtnl::decodeQdisc(m.as<nlmsghdr>(), q);
  return q.options;
}

const std::array<uint8_t, 16> kPriomap = {1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1};
Bytes prioStruct(int32_t bands) {
  Bytes b = le32s({static_cast<uint32_t>(bands)});
  b.insert(b.end(), kPriomap.begin(), kPriomap.end());
  return b;
}

TEST(TcOptionsGolden, PrioIsOneStruct) {
  // tc qdisc add dev (2) root prio bands 3 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1
  PrioOptions o;
  o.bands = 3;
  o.priomap = kPriomap;
  EXPECT_TRUE(sameBytes(requestOf("prio", o), addQdisc("prio", Attrs().raw(kTcaOptions, prioStruct(3)))));
}

TEST(TcOptionsGolden, FqCodelEveryFieldInTcsOrder) {
  FqCodelOptions o;
  o.limit = 10240, o.flows = 1024, o.quantum = 1514, o.target = 5000, o.interval = 100000, o.ecn = false;
  o.ceThreshold = 2000, o.memoryLimit = 33554432, o.dropBatch = 64;
  Attrs inner;
  inner.u32(2 /* LIMIT */, 10240).u32(5 /* FLOWS */, 1024).u32(6 /* QUANTUM */, 1514).u32(1 /* TARGET */, 5000);
  inner.u32(3 /* INTERVAL */, 100000).u32(4 /* ECN */, 0).u32(7 /* CE_THRESHOLD */, 2000);
  inner.u32(9 /* MEMORY_LIMIT */, 33554432).u32(8 /* DROP_BATCH_SIZE */, 64);
  EXPECT_TRUE(sameBytes(requestOf("fq_codel", o), addQdisc("fq_codel", Attrs().nestNoFlag(kTcaOptions, inner))));
}

TEST(TcOptionsGolden, FqEveryFieldInTcsOrder) {
  FqOptions o;
  o.limit = 10000, o.flowLimit = 100, o.quantum = 3028, o.initialQuantum = 15140, o.pacing = true;
  o.maxRate = 125000, o.bucketsLog = 10, o.refillDelay = 40000, o.orphanMask = 1023, o.ceThreshold = 3000, o.horizon = 10000000;
  Attrs inner;
  inner.u32(1 /* PLIMIT */, 10000).u32(2 /* FLOW_PLIMIT */, 100).u32(3 /* QUANTUM */, 3028).u32(4 /* INITIAL_QUANTUM */, 15140);
  inner.u32(5 /* RATE_ENABLE */, 1).u32(7 /* FLOW_MAX_RATE */, 125000).u32(8 /* BUCKETS_LOG */, 10);
  inner.u32(9 /* FLOW_REFILL_DELAY */, 40000).u32(10 /* ORPHAN_MASK */, 1023).u32(12 /* CE_THRESHOLD */, 3000);
  inner.u32(14 /* HORIZON */, 10000000);
  EXPECT_TRUE(sameBytes(requestOf("fq", o), addQdisc("fq", Attrs().nestNoFlag(kTcaOptions, inner))));
}

TEST(TcOptionsGolden, TbfPeakrateLimitAnd64BitRates) {
  // tc qdisc add dev (2) root tbf rate 40gbit burst 1mb peakrate 48gbit mtu 64kb limit 10mb
  TbfOptions o;
  o.rate = 5000000000ull;
  o.burst = 1048576;
  o.peakrate = 6000000000ull;
  o.mtu = 65536;
  o.limit = 10485760;
  // As tc 6.1 sends them (strace): the ticks at the 32-bit rate (~0U B/s), in whole microseconds
  // first: buffer 1048576 B = 244.14 us -> 244 us = 3812 ticks; mtu 65536 B = 15.26 us -> 15 us =
  // 234 ticks (64 ns each).
  Bytes parms = cat({ratespec(0xFFFFFFFF), ratespec(0xFFFFFFFF), le32s({10485760, 3812, 234})});
  Attrs inner;
  inner.raw(1 /* PARMS */, parms).u32(6 /* BURST */, 1048576).u64(4 /* RATE64 */, 5000000000ull);
  inner.u32(7 /* PBURST */, 65536).u64(5 /* PRATE64 */, 6000000000ull);
  EXPECT_TRUE(sameBytes(requestOf("tbf", o), addQdisc("tbf", Attrs().nestNoFlag(kTcaOptions, inner))));
}

TEST(TcOptionsGolden, NetemCorrelationsDuplicateAnd64BitRate) {
  // tc qdisc add dev (2) root netem limit 500 delay 10ms loss 50% 25% duplicate 100% 50% rate 40gbit
  NetemOptions o;
  o.limit = 500;
  o.delay = 10000;
  o.loss = 0.5;
  o.lossCorrelation = 0.25;
  o.duplicate = 1;
  o.duplicateCorrelation = 0.5;
  o.rate = 5000000000ull;
  Attrs inner;
  inner.raw(1 /* CORR */, le32s({0, 1073741824, 2147483648u})).raw(6 /* RATE */, le32s({0xFFFFFFFF, 0, 0, 0}));
  inner.u64(8 /* RATE64 */, 5000000000ull);
  // latency 156250 ticks, limit, loss rint(0.5 * (2^32-1)), gap 0, duplicate 2^32-1, jitter 0.
  Bytes payload = cat({le32s({156250, 500, 2147483648u, 0, 0xFFFFFFFF, 0}), inner.bytes()});
  EXPECT_TRUE(sameBytes(requestOf("netem", o), addQdisc("netem", Attrs().raw(kTcaOptions, payload))));
}

TEST(TcOptionsGolden, HtbAndNetemWithoutOptionsSendTheirDefaults) {
  EXPECT_TRUE(sameBytes(requestOf("htb", std::monostate{}),
                        addQdisc("htb", Attrs().nestNoFlag(kTcaOptions, Attrs().raw(2 /* INIT */, le32s({3, 10, 0, 0, 0}))))));
  EXPECT_TRUE(sameBytes(requestOf("netem", std::monostate{}), addQdisc("netem", Attrs().raw(kTcaOptions, le32s({0, 1000, 0, 0, 0, 0})))));
}

TEST(TcOptionsDecode, FifoAndPrio) {
  EXPECT_EQ(std::get<FifoOptions>(decoded("bfifo", Attrs().raw(kTcaOptions, le32s({10240})))), FifoOptions{10240});
  EXPECT_EQ(std::get<FifoOptions>(decoded("pfifo_head_drop", Attrs().raw(kTcaOptions, le32s({7})))), FifoOptions{7});
  PrioOptions prio;
  prio.bands = 3;
  prio.priomap = kPriomap;
  EXPECT_EQ(std::get<PrioOptions>(decoded("pfifo_fast", Attrs().raw(kTcaOptions, prioStruct(3)))), prio);
  // prio appends TCA_PRIO_MQ after its struct (4-byte aligned: 20 bytes) when multiqueue is on.
  Bytes withMq = cat({prioStruct(4), Attrs().u8(1 /* TCA_PRIO_MQ */, 1).bytes()});
  prio.bands = 4;
  prio.multiqueue = true;
  EXPECT_EQ(std::get<PrioOptions>(decoded("prio", Attrs().raw(kTcaOptions, withMq))), prio);
  // Too short for its struct: kept raw.
  EXPECT_EQ(std::get<RawTcOptions>(decoded("prio", Attrs().raw(kTcaOptions, {1, 2, 3}))).bytes, (std::vector<uint8_t>{1, 2, 3}));
}

TEST(TcOptionsDecode, KindsWithoutOptions) {
  EXPECT_TRUE(std::holds_alternative<std::monostate>(decoded("mq", Attrs().raw(kTcaOptions, {}))));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(decoded("clsact", Attrs())));
  EXPECT_EQ(std::get<RawTcOptions>(decoded("ingress", Attrs().raw(kTcaOptions, {5, 6, 7, 8}))).bytes, (std::vector<uint8_t>{5, 6, 7, 8}));
}

TEST(TcOptionsDecode, HtbQdiscAndClassWith64BitRates) {
  HtbOptions htb;
  htb.version = 3, htb.r2q = 10, htb.defaultClass = 0x10, htb.directPackets = 7, htb.directQlen = 1000;
  EXPECT_EQ(std::get<HtbOptions>(decoded("htb", Attrs().nestNoFlag(kTcaOptions, Attrs()
                                                                                   .raw(2 /* INIT */, le32s({3, 10, 0x10, 0, 7}))
                                                                                   .u32(5 /* DIRECT_QLEN */, 1000)))),
            htb);
  // 40gbit / 48gbit: the struct's rates saturate, RATE64 and CEIL64 say them; 3125 ticks = 200 us.
  Bytes parms = cat({ratespec(0xFFFFFFFF), ratespec(0xFFFFFFFF), le32s({3125, 3125, 200000, 2, 5})});
  HtbClassOptions c;
  c.rate = 5000000000ull, c.ceil = 6000000000ull, c.burst = 1000000, c.cburst = 1200000, c.quantum = 200000, c.level = 2, c.prio = 5;
  EXPECT_EQ(std::get<HtbClassOptions>(decoded("htb", Attrs().nestNoFlag(kTcaOptions, Attrs()
                                                                                        .raw(1 /* PARMS */, parms)
                                                                                        .u64(6 /* RATE64 */, 5000000000ull)
                                                                                        .u64(7 /* CEIL64 */, 6000000000ull)),
                                              true)),
            c);
}

TEST(TcOptionsDecode, FqCodelAndFqEveryField) {
  FqCodelOptions fc;
  fc.limit = 10240, fc.flows = 1024, fc.quantum = 1514, fc.target = 5000, fc.interval = 100000, fc.ecn = true;
  fc.ceThreshold = 2000, fc.memoryLimit = 33554432, fc.dropBatch = 64, fc.ceThresholdSelector = 1, fc.ceThresholdMask = 3;
  Attrs a;
  a.u32(1, 5000).u32(2, 10240).u32(3, 100000).u32(4, 2 /* any nonzero is on */).u32(5, 1024).u32(6, 1514).u32(7, 2000);
  a.u32(8, 64).u32(9, 33554432).u8(10 /* CE_THRESHOLD_SELECTOR */, 1).u8(11 /* CE_THRESHOLD_MASK */, 3);
  a.u32(99, 1 /* unknown: passed over */);
  EXPECT_EQ(std::get<FqCodelOptions>(decoded("fq_codel", Attrs().nestNoFlag(kTcaOptions, a))), fc);

  FqOptions fq;
  fq.limit = 10000, fq.flowLimit = 100, fq.quantum = 3028, fq.initialQuantum = 15140, fq.pacing = false;
  fq.maxRate = 125000, fq.bucketsLog = 10, fq.refillDelay = 40000, fq.orphanMask = 1023, fq.ceThreshold = 3000, fq.horizon = 10000000;
  fq.defaultRate = 1, fq.lowRateThreshold = 68750, fq.timerSlack = 10000, fq.horizonDrop = true;
  Attrs b;
  b.u32(1, 10000).u32(2, 100).u32(3, 3028).u32(4, 15140).u32(5, 0).u32(6, 1 /* FLOW_DEFAULT_RATE */).u32(7, 125000);
  b.u32(8, 10).u32(9, 40000).u32(10, 1023).u32(11 /* LOW_RATE_THRESHOLD */, 68750).u32(12, 3000);
  b.u32(13 /* TIMER_SLACK */, 10000).u32(14, 10000000).u8(15 /* HORIZON_DROP */, 1);
  EXPECT_EQ(std::get<FqOptions>(decoded("fq", Attrs().nestNoFlag(kTcaOptions, b))), fq);
}

TEST(TcOptionsDecode, NetemStructAttributesAnd64BitTimes) {
  Attrs inner;
  inner.raw(1 /* CORR */, le32s({1073741824, 0, 2147483648u}))
      .raw(3 /* REORDER */, le32s({429496730, 0}))
      .raw(4 /* CORRUPT */, le32s({0, 1073741824}))
      .raw(6 /* RATE */, le32s({0xFFFFFFFF, 0, 0, 0}))
      .u64(8 /* RATE64 */, 5000000000ull)
      .u64(10 /* LATENCY64 */, 100000000ull)
      .u64(11 /* JITTER64 */, 10000000ull);
  // latency/jitter in the struct (ticks) are overridden by the 64-bit nanoseconds after them.
  Bytes payload = cat({le32s({1, 500, 2147483648u, 3, 0xFFFFFFFF, 2}), inner.bytes()});
  auto o = std::get<NetemOptions>(decoded("netem", Attrs().raw(kTcaOptions, payload)));
  EXPECT_EQ(o.limit, 500u);
  EXPECT_EQ(o.gap, 3u);
  EXPECT_DOUBLE_EQ(o.loss, 2147483648.0 / 4294967295.0);
  EXPECT_DOUBLE_EQ(o.duplicate, 1.0);
  EXPECT_EQ(o.delay, 100000u);
  EXPECT_EQ(o.jitter, 10000u);
  EXPECT_DOUBLE_EQ(o.delayCorrelation, 1073741824.0 / 4294967295.0);
  EXPECT_DOUBLE_EQ(o.lossCorrelation, 0);
  EXPECT_DOUBLE_EQ(o.duplicateCorrelation, 2147483648.0 / 4294967295.0);
  EXPECT_DOUBLE_EQ(o.reorder, 429496730.0 / 4294967295.0);
  EXPECT_DOUBLE_EQ(o.reorderCorrelation, 0);
  EXPECT_DOUBLE_EQ(o.corrupt, 0);
  EXPECT_DOUBLE_EQ(o.corruptCorrelation, 1073741824.0 / 4294967295.0);
  EXPECT_EQ(o.rate, 5000000000ull);
  // The struct's ticks when no 64-bit time follows: 156250 ticks = 10 ms.
  auto plain = std::get<NetemOptions>(decoded("netem", Attrs().raw(kTcaOptions, le32s({156250, 1000, 0, 0, 0, 15625}))));
  EXPECT_EQ(plain.delay, 10000u);
  EXPECT_EQ(plain.jitter, 1000u);
  EXPECT_EQ(plain.rate, 0u);
  // Shorter than tc_netem_qopt: kept raw.
  EXPECT_EQ(std::get<RawTcOptions>(decoded("netem", Attrs().raw(kTcaOptions, le32s({1, 2})))).bytes, le32s({1, 2}));
}

TEST(TcOptionsDecode, TbfRatesBurstsAndLatency) {
  // rate 1mbit, buffer 262144 us (4096000 ticks), limit 82768: tc's "lat 400ms".
  Bytes parms = cat({ratespec(125000), Bytes(12, 0), le32s({82768, 4096000, 0})});
  TbfOptions t;
  t.rate = 125000, t.burst = 32768, t.limit = 82768, t.reportedLatency = 400000;
  EXPECT_EQ(std::get<TbfOptions>(decoded("tbf", Attrs().nestNoFlag(kTcaOptions, Attrs().raw(1, parms).u32(6 /* BURST */, 32768)))), t);
  // Without TCA_TBF_BURST the burst comes from the buffer's ticks.
  EXPECT_EQ(std::get<TbfOptions>(decoded("tbf", Attrs().nestNoFlag(kTcaOptions, Attrs().raw(1, parms)))), t);
  // A peak rate (64-bit) and its bucket; a limit below the bucket has no latency.
  Bytes peak = cat({ratespec(0xFFFFFFFF), ratespec(0xFFFFFFFF), le32s({1000, 3276, 170})});
  TbfOptions p;
  p.rate = 5000000000ull, p.burst = 1048576, p.limit = 1000, p.peakrate = 6000000000ull, p.mtu = 65536;
  EXPECT_EQ(std::get<TbfOptions>(decoded("tbf", Attrs().nestNoFlag(kTcaOptions, Attrs()
                                                                                   .raw(1, peak)
                                                                                   .u64(4 /* RATE64 */, 5000000000ull)
                                                                                   .u64(5 /* PRATE64 */, 6000000000ull)
                                                                                   .u32(6 /* BURST */, 1048576)
                                                                                   .u32(7 /* PBURST */, 65536)))),
            p);
}

}  // namespace
}  // namespace fastlink
