// Golden bytes of the tc action kinds both ways, beside tc_filter_golden_test.cpp's: police's
// rate tables, tunnel_key set/unset and skbedit with every field as requests, and a kernel-shaped
// RTM_NEWACTION dump of every kind (parameters with refcnt/bindcnt, times, pads, attributes
// fastlink does not read) decoded. Written before the action codecs moved onto attribute tables
// (core/attr_fields.hpp), so that the move is proven byte for byte.
#include <gtest/gtest.h>
#include <linux/netlink.h>

#include "fastlink/tc_filter.hpp"
#include "rtnl/tc_filter_codec.hpp"
#include "unit/golden.hpp"
#include "unit/tc_golden.hpp"

namespace fastlink {
namespace {

using test::AlignedMessage;
using test::Attrs;
using test::Bytes;
using test::action;
using test::cat;
using test::gen;
using test::ratespec;
using test::le32s;
using test::sameBytes;

// Kernel constants written out, so that a wrong one in src/ is a byte difference.
constexpr uint16_t kAdd = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL;
constexpr uint16_t kRtmNewAction = 48;
const Bytes kTcamsg = {0, 0, 0, 0};

Bytes addRequest(const TcAction& a) {
  Request r = TcFilterRequests::addActions({a});
  return Bytes(r.bytes().begin(), r.bytes().end());
}
Bytes addMessage(const char* kind, const Attrs& options) {
  return test::netlinkMessage(kRtmNewAction, kAdd, kTcamsg, Attrs().nest(1 /* TCA_ACT_TAB */, action(1, kind, options)));
}
Bytes u64s(std::initializer_list<uint64_t> values) {
  Bytes b;
  for (uint64_t v : values) test::appendLe64(b, v);
  return b;
}

TEST(TcActionGolden, PoliceRateTablesPeakAndConform) {
  // tc actions add action police rate 1mbit burst 10k mtu 2047 peakrate 2mbit conform-exceed reclassify/pass
  PoliceAction p;
  p.rate = 125000;
  p.burst = 10240;
  p.mtu = 2047;
  p.peakrate = 250000;
  p.conform = tcact::kPass;
  // 2047 >> 3 = 255: cell_log 3; slot i is (i+1)*8 bytes: 1000*(i+1) ticks at 1mbit, 500*(i+1) at 2mbit.
  Bytes rtab, ptab;
  for (uint32_t i = 0; i < 256; i++) test::appendLe32(rtab, 1000 * (i + 1)), test::appendLe32(ptab, 500 * (i + 1));
  // tc_police: index, action (exceed), limit, burst (10240 B = 1280000 ticks), mtu, rate, peakrate, refcnt, bindcnt, capab.
  Bytes tbf = cat({le32s({0, static_cast<uint32_t>(tcact::kReclassify), 0, 1280000, 2047}), ratespec(125000, 3, 0xFFFF),
                   ratespec(250000, 3, 0xFFFF), le32s({0, 0, 0})});
  Attrs options;
  options.raw(1 /* TBF */, tbf).raw(2 /* RATE */, rtab).raw(3 /* PEAKRATE */, ptab).u32(5 /* RESULT */, 0);
  EXPECT_TRUE(sameBytes(addRequest(TcAction().setOptions(p)), addMessage("police", options)));
}

TEST(TcActionGolden, TunnelKeySetAndUnset) {
  TunnelKeyAction t;
  t.src = IpAddress::parse("192.0.2.1");
  t.dst = IpAddress::parse("192.0.2.2");
  t.keyId = 42;
  t.dstPort = 4789;
  t.noCsum = true;
  t.tos = 0x10;
  t.ttl = 64;
  Attrs set;
  set.raw(2 /* PARMS */, gen(0, tcact::kPipe, {1 /* set */}))
      .raw(3 /* IPV4_SRC */, {192, 0, 2, 1})
      .raw(4 /* IPV4_DST */, {192, 0, 2, 2})
      .raw(7 /* KEY_ID, be32 */, {0, 0, 0, 42})
      .be16(9 /* DST_PORT */, 4789)
      .u8(10 /* NO_CSUM */, 1)
      .u8(12 /* TOS */, 0x10)
      .u8(13 /* TTL */, 64);
  EXPECT_TRUE(sameBytes(addRequest(TcAction().setOptions(t)), addMessage("tunnel_key", set)));
  TunnelKeyAction unset;
  unset.unset = true;
  unset.keyId = 42;  // not sent: unset releases the metadata
  EXPECT_TRUE(sameBytes(addRequest(TcAction().setOptions(unset)),
                        addMessage("tunnel_key", Attrs().raw(2, gen(0, tcact::kPipe, {2 /* release */})))));
}

TEST(TcActionGolden, SkbeditEveryField) {
  SkbeditAction s;
  s.priority = 0x10001, s.queueMapping = 3, s.mark = 7, s.ptype = 2, s.mask = 0xFF, s.control = tcact::kPass;
  Attrs options;
  options.raw(2 /* PARMS */, gen(0, tcact::kPass)).u32(3 /* PRIORITY */, 0x10001).u16(4 /* QUEUE_MAPPING */, 3);
  options.u32(5 /* MARK */, 7).u16(7 /* PTYPE */, 2).u32(8 /* MASK */, 0xFF);
  EXPECT_TRUE(sameBytes(addRequest(TcAction().setOptions(s)), addMessage("skbedit", options)));
}

/// A dump's actions: one of each kind, as the kernel writes them (times, pads, attributes fastlink
/// does not read, refcnt and bindcnt).
std::vector<TcAction> dumpOfEveryKind() {
  Bytes tm = u64s({100, 50, 0, 90});  // tcf_t: install, lastuse, expires, firstuse
  Bytes rtab(1024, 0);
  Bytes tbf = cat({le32s({5, static_cast<uint32_t>(tcact::kDrop), 0, 1280000, 0}), ratespec(0xFFFFFFFF, 3, 0xFFFF), ratespec(0),
                   le32s({1, 1, 0})});
  Attrs tab;
  tab.append(action(1, "gact", Attrs().raw(1 /* TM */, tm).raw(2, gen(3, tcact::kDrop, {}, 2, 1)).flag(4 /* PAD */).raw(3 /* PROB */, {1, 2, 3, 4})));
  tab.append(action(2, "mirred", Attrs().raw(2, gen(4, tcact::kStolen, {1 /* egress redirect */, 9}, 1, 1)).raw(1, tm)));
  tab.append(action(3, "police", Attrs()
                                     .raw(1 /* TBF */, tbf)
                                     .raw(2 /* RATE */, rtab)
                                     .u64(8 /* RATE64 */, 5000000000ull)
                                     .u32(5 /* RESULT */, 0)
                                     .raw(6 /* TM */, tm)
                                     .flag(7 /* PAD */)));
  tab.append(action(4, "skbedit", Attrs()
                                      .raw(2, gen(6, tcact::kPipe))
                                      .u32(3, 0x10001)
                                      .u16(4, 3)
                                      .u32(5, 7)
                                      .u16(7, 2)
                                      .raw(8 /* MASK, short: read as zeros beyond */, {0xFF, 0})
                                      .u64(9 /* FLAGS: not read */, 1)));
  tab.append(action(5, "vlan", Attrs()
                                   .raw(2, gen(7, tcact::kPipe, {2 /* push */}))
                                   .u16(3 /* ID */, 100)
                                   .be16(4 /* PROTOCOL */, 0x88A8)
                                   .u8(6 /* PRIORITY */, 5)
                                   .raw(7 /* ETH_DST, not 6 bytes: passed over */, {1, 2, 3, 4})));
  IpAddress a6 = IpAddress::parse("2001:db8::1"), b6 = IpAddress::parse("2001:db8::2");
  Bytes src6(a6.bytes().begin(), a6.bytes().end()), dst6(b6.bytes().begin(), b6.bytes().end());
  tab.append(action(6, "tunnel_key", Attrs()
                                         .raw(2, gen(8, tcact::kPipe, {1}))
                                         .raw(5 /* IPV6_SRC */, src6)
                                         .raw(6 /* IPV6_DST */, dst6)
                                         .raw(7 /* KEY_ID */, {0, 0, 0, 42})
                                         .be16(9, 4789)
                                         .u8(10, 1)
                                         .u8(12, 0x10)
                                         .u8(13, 64)
                                         .flag(8 /* PAD */)));
  tab.append(action(7, "csum", Attrs().raw(1 /* csum's PARMS is 1, its TM 2 */, gen(9, tcact::kPass, {9})).raw(2, tm)));
  tab.append(action(8, "mpls", Attrs()
                                   .raw(2, gen(10, tcact::kPipe, {2 /* push */}))
                                   .be16(4 /* PROTO */, 0x8847)
                                   .u32(5 /* LABEL */, 1000)
                                   .u8(6 /* TC */, 3)
                                   .u8(7 /* TTL */, 64)
                                   .u8(8 /* BOS */, 1)));
  tab.append(action(9, "nat", Attrs().raw(2, gen(11, tcact::kPass))));
  Bytes message = test::netlinkMessage(kRtmNewAction, 0, kTcamsg, Attrs().nest(1 /* TCA_ACT_TAB */, tab));
  AlignedMessage m(message);
  return rtnl::decodeActionMessage(m.as<nlmsghdr>());
}

TEST(TcActionDecode, EveryKindOfADump) {
  auto actions = dumpOfEveryKind();
  ASSERT_EQ(actions.size(), 9u);

  const TcAction& gact = actions[0];
  EXPECT_EQ(gact.kind, "gact");
  EXPECT_EQ(std::get<GactAction>(gact.options).control, tcact::kDrop);
  EXPECT_EQ(gact.index, 3u);
  EXPECT_EQ(gact.refcnt, 2u);
  EXPECT_EQ(gact.bindcnt, 1u);
  EXPECT_TRUE(gact.hasTimes);
  EXPECT_EQ(gact.installed, 100u);
  EXPECT_EQ(gact.lastUsed, 50u);
  EXPECT_EQ(gact.firstUsed, 90u);
  EXPECT_EQ(gact.unknownOptions.count(), 1u);  // TCA_GACT_PROB kept raw; the pad dropped

  auto mirred = std::get<MirredAction>(actions[1].options);
  EXPECT_EQ(mirred.mode, MirredAction::EgressRedirect);
  EXPECT_EQ(mirred.dev.index(), 9u);
  EXPECT_EQ(mirred.control, tcact::kStolen);
  EXPECT_EQ(actions[1].index, 4u);
  EXPECT_TRUE(actions[1].hasTimes);

  auto police = std::get<PoliceAction>(actions[2].options);
  EXPECT_EQ(police.rate, 5000000000ull);
  EXPECT_EQ(police.burst, 409600000u);  // 1280000 ticks = 81920 us at 5e9 B/s
  EXPECT_EQ(police.mtu, 0u);
  EXPECT_FALSE(police.peakrate);
  EXPECT_EQ(police.exceed, tcact::kDrop);
  EXPECT_EQ(police.conform, 0);
  EXPECT_EQ(actions[2].index, 5u);
  EXPECT_EQ(actions[2].refcnt, 1u);
  EXPECT_TRUE(actions[2].hasTimes);
  EXPECT_EQ(actions[2].unknownOptions.count(), 0u);  // the rate table is passed over, not kept

  SkbeditAction skbedit;
  skbedit.priority = 0x10001, skbedit.queueMapping = 3, skbedit.mark = 7, skbedit.ptype = 2, skbedit.mask = 0xFF;
  EXPECT_EQ(std::get<SkbeditAction>(actions[3].options), skbedit);
  EXPECT_EQ(actions[3].unknownOptions.count(), 1u);  // TCA_SKBEDIT_FLAGS

  VlanAction vlan;
  vlan.op = VlanAction::Push, vlan.id = 100, vlan.protocol = 0x88A8, vlan.priority = 5;
  EXPECT_EQ(std::get<VlanAction>(actions[4].options), vlan);
  EXPECT_EQ(actions[4].unknownOptions.count(), 0u);

  TunnelKeyAction tunnel;
  tunnel.src = IpAddress::parse("2001:db8::1"), tunnel.dst = IpAddress::parse("2001:db8::2");
  tunnel.keyId = 42, tunnel.dstPort = 4789, tunnel.noCsum = true, tunnel.tos = 0x10, tunnel.ttl = 64;
  EXPECT_EQ(std::get<TunnelKeyAction>(actions[5].options), tunnel);

  CsumAction csum;
  csum.updateFlags = 9;
  EXPECT_EQ(std::get<CsumAction>(actions[6].options), csum);
  EXPECT_EQ(actions[6].index, 9u);
  EXPECT_TRUE(actions[6].hasTimes);

  MplsAction mpls;
  mpls.op = MplsAction::Push, mpls.protocol = 0x8847, mpls.label = 1000, mpls.tc = 3, mpls.ttl = 64, mpls.bos = 1;
  EXPECT_EQ(std::get<MplsAction>(actions[7].options), mpls);

  // A kind fastlink does not decode: its options kept as sent.
  EXPECT_EQ(actions[8].kind, "nat");
  EXPECT_TRUE(std::holds_alternative<RawActionOptions>(actions[8].options));
  EXPECT_FALSE(actions[8].index);
}

}  // namespace
}  // namespace fastlink
