// Golden bytes for tc filter and action requests (TcFilterRequests: u32, matchall, flower with its
// MPLS keys, fw, basic, bpf; gact, mirred, skbedit, vlan, csum, tunnel_key, police, mpls, pedit;
// the attribute layouts read from strace of tc 6.1's own requests), the filter/action decoders
// (decode(encode(x)) keeps every field), and bad input refused before anything is sent.
// tcmsg by hand: family u8, pad u8, pad u16, ifindex s32, handle u32, parent u32, info u32
// (info = pref << 16 | protocol in network order).
#include <gtest/gtest.h>
#include <linux/netlink.h>

#include "fastlink/tc_filter.hpp"
#include "rtnl/tc_filter_codec.hpp"
#include "unit/golden.hpp"
#include "unit/tc_golden.hpp"

namespace fastlink {
namespace {

using test::Attrs;
using test::Bytes;
using test::action;
using test::gen;
using test::le32s;
using test::sameBytes;
using test::tcm;

// Kernel constants written out, so that a wrong one in src/ is a byte difference.
constexpr uint16_t kAdd = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL;
constexpr uint16_t kReplace = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_REPLACE;
constexpr uint16_t kRtmNewTfilter = 44, kRtmDelTfilter = 45, kRtmNewAction = 48, kRtmDelAction = 49, kRtmGetAction = 50;
constexpr uint16_t kTcaKind = 1, kTcaOptions = 2, kTcaChain = 11;
constexpr uint16_t kActKind = 1, kActIndex = 3;
constexpr uint16_t kN = test::kNlaNested;

constexpr uint32_t info(uint16_t pref, uint16_t protocolBe) { return uint32_t{pref} << 16 | protocolBe; }
constexpr uint16_t kIpBe = 0x0008, kAllBe = 0x0300;

/// The filter decoded from a request's own bytes (the kernel echoes the same layout).
TcFilterInfo decodeOwn(const Request& r) {
  Bytes copy(r.bytes().begin(), r.bytes().end());
  TcFilterInfo out;
  rtnl::decodeFilter(reinterpret_cast<const nlmsghdr*>(copy.data()), out);
  return out;
}

TEST(TcFilterGolden, U32MatchIpDstWithMirredRedirect) {
  // tc filter add dev (7) ingress protocol ip pref 10 u32 match ip dst 10.0.0.1/32
  //   action mirred egress redirect dev (9)
  U32FilterOptions u;
  u.keys.push_back({0x0A000001, 0xFFFFFFFF, 16, 0});
  u.actions.push_back(TcAction::mirred(MirredAction::EgressRedirect, Ifref(9u)));
  TcFilterInfo f;
  f.setDev(7u).setParent(TcFilterInfo::kIngressParent).setPrio(10).setProtocol(0x0800).setOptions(u);
  Request r = TcFilterRequests::add(f);
  // tc_u32_sel: flags TERMINAL, offshift, nkeys 1, pad, offmask, off, offoff, hoff, hmask; then
  // the key: mask and value big-endian, off 16, offmask 0.
  Bytes sel = {1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 10, 0, 0, 1};
  test::appendLe32(sel, 16);
  test::appendLe32(sel, 0);
  Attrs mirred = Attrs().raw(2 /* TCA_MIRRED_PARMS */, gen(0, 4 /* stolen */, {1 /* egress redirect */, 9}));
  Bytes expected = test::netlinkMessage(
      kRtmNewTfilter, kAdd, tcm(7, 0, 0xFFFFFFF2, info(10, kIpBe)),
      Attrs().str(kTcaKind, "u32").nest(kTcaOptions, Attrs().raw(5 /* SEL */, sel).nest(7 /* ACT */, action(1, "mirred", mirred))));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
  EXPECT_EQ(r.operation(), "filter add dev 7 ingress pref 10 u32");
}

TEST(TcFilterGolden, DescriptionsNameThePlacementAsBuilt) {
  // A request's description is kept packed (no allocation) and formatted only when read: every
  // placement word must come out as the filter was built, for each verb, a block, a chain
  // template, and the kinds outside kFilterKinds (raw options, a delete naming its kind).
  MatchallOptions m;
  EXPECT_EQ(TcFilterRequests::add(TcFilterInfo().setDev(9u).setOptions(m)).operation(), "filter add dev 9 matchall");
  EXPECT_EQ(TcFilterRequests::add(TcFilterInfo().setBlock(5).setPrio(1).setChain(2).setOptions(m)).operation(),
            "filter add block 5 pref 1 chain 2 matchall");
  U32FilterOptions u;
  u.divisor = 16;
  EXPECT_EQ(TcFilterRequests::replace(TcFilterInfo().setDev(3u).setParent(TcHandle(1, 0)).setPrio(2).setHandle(0x200000).setOptions(u))
                .operation(),
            "filter replace dev 3 parent 1: pref 2 u32");
  FwOptions fw;
  EXPECT_EQ(TcFilterRequests::change(
                TcFilterInfo().setDev(3u).setParent(TcFilterInfo::kEgressParent).setPrio(4).setChain(7).setHandle(1).setOptions(fw))
                .operation(),
            "filter change dev 3 egress pref 4 chain 7 fw");
  FlowerOptions flower;
  TcFilterInfo tmpl = TcFilterInfo().setDev(3u).setParent(TcFilterInfo::kIngressParent).setChain(4).setProtocol(0x0800).setOptions(flower);
  EXPECT_EQ(TcFilterRequests::addChain(tmpl).operation(), "chain add dev 3 ingress chain 4 flower");
  EXPECT_EQ(TcFilterRequests::delChain(TcFilterInfo().setDev(3u).setParent(TcFilterInfo::kIngressParent).setChain(4)).operation(),
            "chain del dev 3 ingress chain 4");
  TcFilterInfo del = TcFilterInfo().setDev(3u).setParent(TcFilterInfo::kIngressParent).setPrio(1);
  del.kind = "flower";  // named, no options: the delete tc sends
  EXPECT_EQ(TcFilterRequests::del(del).operation(), "filter del dev 3 ingress pref 1 flower");
  TcFilterInfo raw = TcFilterInfo().setDev(3u).setParent(TcHandle::kRoot).setPrio(1).setOptions(RawFilterOptions{});
  raw.kind = "route";
  EXPECT_EQ(TcFilterRequests::add(raw).operation(), "filter add dev 3 root pref 1 route");
}

TEST(TcFilterGolden, U32HashTableDivisorAndClassidOnQdiscParent) {
  // tc filter replace dev (3) parent 1: pref 2 protocol all handle 2: u32 divisor 16
  U32FilterOptions table;
  table.divisor = 16;
  TcFilterInfo f;
  f.setDev(3u).setParent(TcHandle(1, 0)).setPrio(2).setHandle(0x200000).setOptions(table);
  EXPECT_TRUE(sameBytes(TcFilterRequests::replace(f).bytes(),
                        test::netlinkMessage(kRtmNewTfilter, kReplace, tcm(3, 0x200000, 0x10000, info(2, kAllBe)),
                                             Attrs().str(kTcaKind, "u32").nest(kTcaOptions, Attrs().u32(4 /* DIVISOR */, 16)))));
  // ... flowid 1:10 in chain 3 (classid makes the selector terminal even without keys).
  U32FilterOptions rule;
  rule.classid = TcHandle(1, 0x10);
  TcFilterInfo g;
  g.setDev(3u).setParent(TcHandle(1, 0)).setPrio(2).setChain(3).setOptions(rule);
  Bytes sel = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_TRUE(sameBytes(TcFilterRequests::add(g).bytes(),
                        test::netlinkMessage(kRtmNewTfilter, kAdd, tcm(3, 0, 0x10000, info(2, kAllBe)),
                                             Attrs().str(kTcaKind, "u32").u32(kTcaChain, 3).nest(
                                                 kTcaOptions, Attrs().u32(1 /* CLASSID */, 0x10010).raw(5, sel)))));
}

TEST(TcFilterGolden, DelByPrefAndSharedBlock) {
  // tc filter del dev (4) egress pref 5: no kind, no options, protocol 0 (any).
  TcFilterInfo f;
  f.setDev(4u).setParent(TcFilterInfo::kEgressParent).setPrio(5);
  EXPECT_TRUE(sameBytes(TcFilterRequests::del(f).bytes(),
                        test::netlinkMessage(kRtmDelTfilter, NLM_F_REQUEST, tcm(4, 0, 0xFFFFFFF3, info(5, 0)), Attrs())));
  // tc filter add block 12 pref 1 protocol all matchall action gact drop: ifindex is
  // TCM_IFINDEX_MAGIC_BLOCK (0xffffffff) and the parent field carries the block index.
  MatchallOptions m;
  m.actions.push_back(TcAction::gact(tcact::kDrop));
  TcFilterInfo b;
  b.setBlock(12).setPrio(1).setOptions(m);
  Attrs gact = Attrs().raw(2 /* TCA_GACT_PARMS */, gen(0, 2));
  EXPECT_TRUE(sameBytes(TcFilterRequests::add(b).bytes(),
                        test::netlinkMessage(kRtmNewTfilter, kAdd, tcm(-1, 0, 12, info(1, kAllBe)),
                                             Attrs().str(kTcaKind, "matchall").nest(kTcaOptions, Attrs().nest(2 /* ACT */, action(1, "gact", gact))))));
}

TEST(TcFilterGolden, ChainAddAndDelOnADeviceAndABlock) {
  // tc chain add dev (4) ingress chain 5: RTM_NEWCHAIN (100), CREATE|EXCL, no pref, protocol 0
  // (tc sends ETH_P_ALL only for a new filter), TCA_CHAIN and no kind (no template).
  TcFilterInfo c;
  c.setDev(4u).setParent(TcFilterInfo::kIngressParent).setChain(5);
  EXPECT_TRUE(sameBytes(TcFilterRequests::addChain(c).bytes(),
                        test::netlinkMessage(100, kAdd, tcm(4, 0, 0xFFFFFFF2, 0), Attrs().u32(kTcaChain, 5))));
  // tc chain del block 22 chain 4: RTM_DELCHAIN (101), no flags.
  TcFilterInfo b;
  b.setBlock(22).setChain(4);
  EXPECT_TRUE(sameBytes(TcFilterRequests::delChain(b).bytes(),
                        test::netlinkMessage(101, NLM_F_REQUEST, tcm(-1, 0, 22, 0), Attrs().u32(kTcaChain, 4))));
  // A chain has no pref or handle: refused before sending.
  TcFilterInfo bad = c;
  bad.setPrio(3);
  EXPECT_THROW(TcFilterRequests::addChain(bad), Error);
}

TEST(TcFilterGolden, FlowerIpv4TcpDstPortWithSkbeditAndVlanPush) {
  // tc filter add dev (2) ingress protocol ip pref 1 flower skip_hw ip_proto tcp dst_ip 10.1.0.0/16
  //   dst_port 443 action skbedit mark 7 action vlan push id 100 priority 3
  FlowerOptions o;
  o.flags = 1;
  o.ipProto = 6;
  o.dstIp = Prefix::parse("10.1.0.0/16");
  o.dstPort = 443;
  SkbeditAction s;
  s.mark = 7;
  VlanAction v;
  v.op = VlanAction::Push;
  v.id = 100;
  v.priority = 3;
  o.actions = {TcAction().setOptions(s), TcAction().setOptions(v)};
  TcFilterInfo f;
  f.setDev(2u).setParent(TcFilterInfo::kIngressParent).setPrio(1).setProtocol(0x0800).setOptions(o);
  Attrs skbedit = Attrs().raw(2 /* PARMS */, gen(0, 3 /* pipe */)).u32(5 /* MARK */, 7);
  Attrs vlan = Attrs().raw(2, gen(0, 3, {2 /* push */})).u16(3 /* ID */, 100).be16(4 /* PROTOCOL */, 0x8100).u8(6 /* PRIORITY (5 is PAD) */, 3);
  // tc's order (strace of tc 6.1): the keys, the actions, the flags, the protocol's ETH_TYPE.
  Attrs opts = Attrs()
                   .u8(9 /* IP_PROTO */, 6)
                   .raw(12 /* IPV4_DST */, {10, 1, 0, 0})
                   .raw(13 /* IPV4_DST_MASK */, {255, 255, 0, 0})
                   .be16(19 /* TCP_DST */, 443)
                   .nest(3 /* ACT */, Attrs().append(action(1, "skbedit", skbedit)).append(action(2, "vlan", vlan)))
                   .u32(22 /* FLAGS */, 1)
                   .be16(8 /* ETH_TYPE */, 0x0800);
  EXPECT_TRUE(sameBytes(TcFilterRequests::add(f).bytes(),
                        test::netlinkMessage(kRtmNewTfilter, kAdd, tcm(2, 0, 0xFFFFFFF2, info(1, kIpBe)),
                                             Attrs().str(kTcaKind, "flower").nest(kTcaOptions, opts))));
}

TEST(TcFilterGolden, VlanPopEthAndPushEth) {
  // tc filter add dev (3) ingress matchall action vlan pop_eth action vlan push_eth
  //   dst_mac 02:00:00:00:00:02 src_mac 02:00:00:00:00:01 (iproute2's testsuite, tests/tc/vlan.t):
  // v_action 4 / 5 (TCA_VLAN_ACT_POP_ETH / PUSH_ETH), the addresses in TCA_VLAN_PUSH_ETH_DST (7)
  // and _SRC (8), and no VLAN id, protocol or priority.
  VlanAction pop;
  pop.op = VlanAction::PopEth;
  VlanAction push;
  push.op = VlanAction::PushEth;
  push.dstMac = MacAddress::parse("02:00:00:00:00:02");
  push.srcMac = MacAddress::parse("02:00:00:00:00:01");
  MatchallOptions m;
  m.actions = {TcAction().setOptions(pop), TcAction().setOptions(push)};
  TcFilterInfo f;
  f.setDev(3u).setParent(TcFilterInfo::kIngressParent).setOptions(m);
  Attrs popAttrs = Attrs().raw(2 /* PARMS */, gen(0, 3 /* pipe */, {4}));
  Attrs pushAttrs = Attrs().raw(2, gen(0, 3, {5})).raw(7, {2, 0, 0, 0, 0, 2}).raw(8, {2, 0, 0, 0, 0, 1});
  EXPECT_TRUE(sameBytes(TcFilterRequests::add(f).bytes(),
                        test::netlinkMessage(kRtmNewTfilter, kAdd, tcm(3, 0, 0xFFFFFFF2, info(0, kAllBe)),
                                             Attrs().str(kTcaKind, "matchall")
                                                 .nest(kTcaOptions, Attrs().nest(2 /* ACT */, Attrs()
                                                                                     .append(action(1, "vlan", popAttrs))
                                                                                     .append(action(2, "vlan", pushAttrs)))))));
  // push_eth without both addresses is refused before sending.
  VlanAction half = push;
  half.srcMac.reset();
  MatchallOptions bad;
  bad.actions = {TcAction().setOptions(half)};
  TcFilterInfo g = f;
  g.setOptions(bad);
  EXPECT_THROW(TcFilterRequests::add(g), Error);
}

TEST(TcFilterGolden, FwBasicAndBpf) {
  FwOptions fw;
  fw.classid = TcHandle(1, 2);
  fw.mask = 0xFF;
  TcFilterInfo f;
  f.setDev(5u).setParent(TcHandle(1, 0)).setPrio(3).setHandle(5).setOptions(fw);
  EXPECT_TRUE(sameBytes(TcFilterRequests::add(f).bytes(),
                        test::netlinkMessage(kRtmNewTfilter, kAdd, tcm(5, 5, 0x10000, info(3, kAllBe)),
                                             Attrs().str(kTcaKind, "fw").nest(kTcaOptions, Attrs().u32(1, 0x10002).u32(5 /* MASK */, 0xFF)))));
  BasicOptions basic;
  basic.classid = TcHandle(1, 3);
  TcFilterInfo g;
  g.setDev(5u).setParent(TcHandle(1, 0)).setOptions(basic);
  EXPECT_TRUE(sameBytes(TcFilterRequests::add(g).bytes(),
                        test::netlinkMessage(kRtmNewTfilter, kAdd, tcm(5, 0, 0x10000, info(0, kAllBe)),
                                             Attrs().str(kTcaKind, "basic").nest(kTcaOptions, Attrs().u32(1, 0x10003)))));
  BpfFilterOptions bpf;
  bpf.fd = 42;
  bpf.name = "prog.o:[tc]";
  bpf.directAction = true;
  TcFilterInfo h;
  h.setDev(5u).setParent(TcFilterInfo::kIngressParent).setPrio(1).setOptions(bpf);
  EXPECT_TRUE(sameBytes(TcFilterRequests::add(h).bytes(),
                        test::netlinkMessage(kRtmNewTfilter, kAdd, tcm(5, 0, 0xFFFFFFF2, info(1, kAllBe)),
                                             Attrs().str(kTcaKind, "bpf").nest(kTcaOptions, Attrs().u32(6 /* FD */, 42).str(7 /* NAME */, "prog.o:[tc]").u32(8 /* FLAGS */, 1)))));
}

TEST(TcFilterGolden, StandaloneActionsAddAndDel) {
  // tc actions add action csum ip4h tcp index 5
  CsumAction c;
  c.updateFlags = 1 | 8;
  std::vector<TcAction> add = {TcAction().setOptions(c).setIndex(5)};
  Attrs csum = Attrs().raw(1 /* TCA_CSUM_PARMS */, gen(5, 0 /* ok */, {9}));
  Bytes tcamsg = {0, 0, 0, 0};
  EXPECT_TRUE(sameBytes(TcFilterRequests::addActions(add).bytes(),
                        test::netlinkMessage(kRtmNewAction, kAdd, tcamsg, Attrs().nest(1 /* TCA_ACT_TAB */, action(1, "csum", csum)))));
  // tc actions del action csum index 5
  TcAction d;
  d.kind = "csum";
  d.index = 5;
  EXPECT_TRUE(sameBytes(TcFilterRequests::delActions({d}).bytes(),
                        test::netlinkMessage(kRtmDelAction, NLM_F_REQUEST, tcamsg,
                                             Attrs().nest(1, Attrs().nest(1, Attrs().str(kActKind, "csum").u32(kActIndex, 5))))));
  // tc actions flush action csum: the kind alone, with NLM_F_ROOT (which makes the delete a flush in the kernel)
  EXPECT_TRUE(sameBytes(TcFilterRequests::flushActions("csum").bytes(),
                        test::netlinkMessage(kRtmDelAction, NLM_F_REQUEST | NLM_F_ROOT, tcamsg,
                                             Attrs().nest(1, Attrs().nest(1, Attrs().str(kActKind, "csum"))))));
  EXPECT_THROW(TcFilterRequests::flushActions(""), Error);
  // tc actions get action csum index 5 action mirred index 7: kind and index of each, in order,
  // without NLM_F_DUMP (the kernel answers the named actions only)
  TcAction m;
  m.kind = "mirred";
  m.index = 7;
  EXPECT_TRUE(sameBytes(TcFilterRequests::getActions({d, m}).bytes(),
                        test::netlinkMessage(kRtmGetAction, NLM_F_REQUEST, tcamsg,
                                             Attrs().nest(1, Attrs()
                                                                 .nest(1, Attrs().str(kActKind, "csum").u32(kActIndex, 5))
                                                                 .nest(2, Attrs().str(kActKind, "mirred").u32(kActIndex, 7))))));
  EXPECT_THROW(TcFilterRequests::getActions({}), Error);
}

TEST(TcFilterGolden, FlowerMplsFirstEntryKeys) {
  // tc filter add dev (4) ingress protocol mpls_uc pref 1 flower mpls_label 1048575 mpls_tc 7
  //   mpls_bos 1 mpls_ttl 255 action drop (iproute2's tests/tc/flower_mpls.t, maximal values):
  // LABEL (70) u32, TC (69), BOS (68), TTL (67) u8, in tc's order; ETH_TYPE 0x8847 last.
  FlowerOptions o;
  o.mplsLabel = 1048575;
  o.mplsTc = 7;
  o.mplsBos = 1;
  o.mplsTtl = 255;
  o.actions = {TcAction::gact(tcact::kDrop)};
  TcFilterInfo f;
  f.setDev(4u).setParent(TcFilterInfo::kIngressParent).setPrio(1).setProtocol(0x8847).setOptions(o);
  Attrs opts = Attrs()
                   .u32(70, 0xFFFFF)
                   .u8(69, 7)
                   .u8(68, 1)
                   .u8(67, 255)
                   .nest(3 /* ACT */, action(1, "gact", Attrs().raw(2 /* PARMS */, gen(0, 2 /* drop */))))
                   .u32(22 /* FLAGS */, 0)
                   .be16(8 /* ETH_TYPE */, 0x8847);
  EXPECT_TRUE(sameBytes(TcFilterRequests::add(f).bytes(),
                        test::netlinkMessage(kRtmNewTfilter, kAdd, tcm(4, 0, 0xFFFFFFF2, info(1, 0x4788)),
                                             Attrs().str(kTcaKind, "flower").nest(kTcaOptions, opts))));
  EXPECT_EQ(std::get<FlowerOptions>(decodeOwn(TcFilterRequests::add(f)).options).mplsLabel, 1048575u);
}

TEST(TcFilterGolden, FlowerMplsLabelStackEntries) {
  // tc filter add dev (4) ingress protocol mpls_uc pref 1 flower mpls lse depth 1 label 0 tc 0
  //   bos 0 ttl 0 lse depth 2 label 1048575 tc 7 bos 1 ttl 255 action drop: MPLS_OPTS (99) holds
  // one LSE nest (1) per entry: DEPTH (1), LABEL (5) u32, TC (4), BOS (3), TTL (2) u8.
  FlowerOptions o;
  o.mpls = {FlowerMplsLse{1, 0, 0, 0, 0}, FlowerMplsLse{2, 1048575, 7, 1, 255}};
  o.actions = {TcAction::gact(tcact::kDrop)};
  TcFilterInfo f;
  f.setDev(4u).setParent(TcFilterInfo::kIngressParent).setPrio(1).setProtocol(0x8847).setOptions(o);
  Attrs lse1 = Attrs().u8(1, 1).u32(5, 0).u8(4, 0).u8(3, 0).u8(2, 0);
  Attrs lse2 = Attrs().u8(1, 2).u32(5, 0xFFFFF).u8(4, 7).u8(3, 1).u8(2, 255);
  Attrs opts = Attrs()
                   .nest(99, Attrs().nest(1, lse1).nest(1, lse2))
                   .nest(3, action(1, "gact", Attrs().raw(2, gen(0, 2))))
                   .u32(22, 0)
                   .be16(8, 0x8847);
  EXPECT_TRUE(sameBytes(TcFilterRequests::add(f).bytes(),
                        test::netlinkMessage(kRtmNewTfilter, kAdd, tcm(4, 0, 0xFFFFFFF2, info(1, 0x4788)),
                                             Attrs().str(kTcaKind, "flower").nest(kTcaOptions, opts))));
  auto back = std::get<FlowerOptions>(decodeOwn(TcFilterRequests::add(f)).options);
  EXPECT_EQ(back.mpls, o.mpls);
  EXPECT_TRUE(back.unknown.empty());
}

TEST(TcFilterGolden, MplsActions) {
  // tc filter add dev (4) ingress pref 2 matchall action mpls push protocol mpls_uc label 20 tc 3
  //   bos 1 ttl 64 action mpls pop protocol ip action mpls dec_ttl (tests/tc/mpls.t): tc_mpls is
  // tc_gen + m_action; LABEL (5) u32, PROTO (4) be16, TC (6), TTL (7), BOS (8) u8, in tc's order.
  MplsAction push;
  push.op = MplsAction::Push;
  push.protocol = 0x8847;
  push.label = 20;
  push.tc = 3;
  push.bos = 1;
  push.ttl = 64;
  MplsAction pop;
  pop.op = MplsAction::Pop;
  pop.protocol = 0x0800;
  MplsAction dec;
  dec.op = MplsAction::DecTtl;
  MatchallOptions m;
  m.actions = {TcAction().setOptions(push), TcAction().setOptions(pop), TcAction().setOptions(dec)};
  TcFilterInfo f;
  f.setDev(4u).setParent(TcFilterInfo::kIngressParent).setPrio(2).setOptions(m);
  Attrs pushAttrs = Attrs().raw(2, gen(0, 3 /* pipe */, {2})).u32(5, 20).be16(4, 0x8847).u8(6, 3).u8(7, 64).u8(8, 1);
  Attrs popAttrs = Attrs().raw(2, gen(0, 3, {1})).be16(4, 0x0800);
  Attrs decAttrs = Attrs().raw(2, gen(0, 3, {4}));
  EXPECT_TRUE(sameBytes(TcFilterRequests::add(f).bytes(),
                        test::netlinkMessage(kRtmNewTfilter, kAdd, tcm(4, 0, 0xFFFFFFF2, info(2, kAllBe)),
                                             Attrs().str(kTcaKind, "matchall")
                                                 .nest(kTcaOptions, Attrs().nest(2 /* ACT */, Attrs()
                                                                                     .append(action(1, "mpls", pushAttrs))
                                                                                     .append(action(2, "mpls", popAttrs))
                                                                                     .append(action(3, "mpls", decAttrs)))))));
  auto back = std::get<MatchallOptions>(decodeOwn(TcFilterRequests::add(f)).options);
  ASSERT_EQ(back.actions.size(), 3u);
  EXPECT_EQ(std::get<MplsAction>(back.actions[0].options), push);
  EXPECT_EQ(std::get<MplsAction>(back.actions[1].options), pop);
  EXPECT_EQ(std::get<MplsAction>(back.actions[2].options), dec);
}

/// tc_pedit_sel (tc_gen, nkeys, flags, 2 bytes of padding) and its keys (mask and value in
/// network order, off, at, offmask, shift).
Bytes peditSel(int32_t action, std::initializer_list<std::array<uint32_t, 3>> keys) {
  Bytes b = gen(0, action);
  b.push_back(static_cast<uint8_t>(keys.size()));
  b.insert(b.end(), {0, 0, 0});
  auto be32 = [&](uint32_t v) { b.insert(b.end(), {uint8_t(v >> 24), uint8_t(v >> 16), uint8_t(v >> 8), uint8_t(v)}); };
  for (const auto& [value, mask, off] : keys) {
    be32(mask);
    be32(value);
    for (uint32_t w : {off, 0u, 0u, 0u}) test::appendLe32(b, w);
  }
  return b;
}

TEST(TcFilterGolden, PeditPlainAndExtended) {
  // tc filter add dev (4) ingress pref 3 u32 match u32 0 0 action pedit munge offset 12 u32 set
  //   0x12345678 munge ip tos set 0x10 munge offset 13 u8 invert (tests/tc/pedit.t's keys):
  // TCA_PEDIT_PARMS (2) with three keys.
  PeditAction plain;
  plain.keys = {{0x12345678, 0x00000000, 12}, {0x00100000, 0xFF00FFFF, 0}, {0x00FF0000, 0xFFFFFFFF, 12}};
  U32FilterOptions u;
  u.keys.push_back({0, 0, 0, 0});
  u.actions = {TcAction().setOptions(plain)};
  TcFilterInfo f;
  f.setDev(4u).setParent(TcFilterInfo::kIngressParent).setPrio(3).setOptions(u);
  Bytes selector = peditSel(0 /* pass */, {{0x12345678, 0, 12}, {0x00100000, 0xFF00FFFF, 0}, {0x00FF0000, 0xFFFFFFFF, 12}});
  Bytes sel = {1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (uint32_t w : {0u, 0u, 0u, 0u}) test::appendLe32(sel, w);
  EXPECT_TRUE(sameBytes(TcFilterRequests::add(f).bytes(),
                        test::netlinkMessage(kRtmNewTfilter, kAdd, tcm(4, 0, 0xFFFFFFF2, info(3, kAllBe)),
                                             Attrs().str(kTcaKind, "u32").nest(kTcaOptions, Attrs().raw(5 /* SEL */, sel).nest(
                                                 7 /* ACT */, action(1, "pedit", Attrs().raw(2, selector)))))));
  auto back = std::get<U32FilterOptions>(decodeOwn(TcFilterRequests::add(f)).options);
  EXPECT_EQ(std::get<PeditAction>(back.actions[0].options), plain);

  // ... action pedit ex munge tcp dport add 1 munge ip ttl decrement pipe: TCA_PEDIT_PARMS_EX (4)
  // and TCA_PEDIT_KEYS_EX (5) with one KEY_EX (6) per key: HTYPE (1), CMD (2), u16 each.
  PeditAction ex;
  ex.extended = true;
  ex.control = tcact::kPipe;
  ex.keys = {{0x00000001, 0xFFFF0000, 0, 0, 0, 0, PeditKey::Tcp, PeditKey::Add},
             {0xFF000000, 0x00FFFFFF, 8, 0, 0, 0, PeditKey::Ip4, PeditKey::Add}};
  u.actions = {TcAction().setOptions(ex)};
  f.setOptions(u);
  Attrs keysEx = Attrs().nest(6, Attrs().u16(1, 4).u16(2, 1)).nest(6, Attrs().u16(1, 2).u16(2, 1));
  Attrs peditEx = Attrs().raw(4, peditSel(3, {{1, 0xFFFF0000, 0}, {0xFF000000, 0x00FFFFFF, 8}})).nest(5, keysEx);
  EXPECT_TRUE(sameBytes(TcFilterRequests::add(f).bytes(),
                        test::netlinkMessage(kRtmNewTfilter, kAdd, tcm(4, 0, 0xFFFFFFF2, info(3, kAllBe)),
                                             Attrs().str(kTcaKind, "u32").nest(kTcaOptions, Attrs().raw(5, sel).nest(
                                                 7, action(1, "pedit", peditEx))))));
  back = std::get<U32FilterOptions>(decodeOwn(TcFilterRequests::add(f)).options);
  EXPECT_EQ(std::get<PeditAction>(back.actions[0].options), ex);
}

TEST(TcFilterValidation, MplsAndPeditBadInputIsRefusedBeforeSending) {
  auto refused = [](const TcAction& a, uint16_t protocol, const char* why) {
    MatchallOptions m;
    m.actions = {a};
    try {
      (void)TcFilterRequests::add(TcFilterInfo().setDev(1u).setProtocol(protocol).setOptions(m));
      ADD_FAILURE() << "accepted: " << why;
    } catch (const Error& e) {
      EXPECT_NE(e.reason().find(why), std::string::npos) << e.reason();
    }
  };
  MplsAction pop;  // pop without the next header's protocol
  refused(TcAction().setOptions(pop), 0x8847, "needs the next header's protocol");
  MplsAction push;
  push.op = MplsAction::Push;
  refused(TcAction().setOptions(push), 0x0800, "need a label");
  push.label = 0x100000;
  refused(TcAction().setOptions(push), 0x0800, "label must be 0-1048575");
  push.label = 1;
  push.protocol = 0x0800;
  refused(TcAction().setOptions(push), 0x0800, "must be mpls_uc or mpls_mc");
  MplsAction dec;
  dec.op = MplsAction::DecTtl;
  dec.ttl = 3;
  refused(TcAction().setOptions(dec), 0x8847, "only for push, mac_push and modify");
  MplsAction zeroTtl;
  zeroTtl.op = MplsAction::Modify;
  zeroTtl.ttl = 0;
  refused(TcAction().setOptions(zeroTtl), 0x8847, "ttl must be 1-255");
  refused(TcAction().setOptions(PeditAction{}), 0, "at least one key");
  PeditAction unaligned;
  unaligned.keys = {{1, 0, 13}};
  refused(TcAction().setOptions(unaligned), 0, "not a multiple of 4");
  PeditAction addWithoutEx;
  addWithoutEx.keys = {{1, 0, 0, 0, 0, 0, PeditKey::Network, PeditKey::Add}};
  refused(TcAction().setOptions(addWithoutEx), 0, "need extended pedit");
  FlowerOptions onIp;
  onIp.mplsLabel = 5;
  auto flowerRefused = [](const FlowerOptions& o, uint16_t protocol, const char* why) {
    try {
      (void)TcFilterRequests::add(TcFilterInfo().setDev(1u).setProtocol(protocol).setOptions(o));
      ADD_FAILURE() << "accepted: " << why;
    } catch (const Error& e) {
      EXPECT_NE(e.reason().find(why), std::string::npos) << e.reason();
    }
  };
  flowerRefused(onIp, 0x0800, "need protocol mpls_uc or mpls_mc");
  FlowerOptions both = onIp;
  both.mpls = {FlowerMplsLse{2, 1, {}, {}, {}}};
  flowerRefused(both, 0x8847, "not both");
  FlowerOptions bigTc;
  bigTc.mpls = {FlowerMplsLse{1, {}, 8, {}, {}}};
  flowerRefused(bigTc, 0x8847, "tc must be 0-7");
}

TEST(TcFilterDecode, RoundTripKeepsOptionsAndActions) {
  U32FilterOptions u;
  u.keys.push_back({0x00500000, 0xFFFF0000, 20, 0});
  u.classid = TcHandle(1, 1);
  PoliceAction p;
  p.rate = 125000;
  p.burst = 10240;
  p.conform = tcact::kPass;
  p.exceed = tcact::kDrop;
  TunnelKeyAction t;
  t.src = IpAddress::parse("192.0.2.1");
  t.dst = IpAddress::parse("192.0.2.2");
  t.keyId = 42;
  t.dstPort = 4789;
  t.noCsum = true;
  u.actions = {TcAction().setOptions(p), TcAction().setOptions(t), TcAction::gact(tcact::gotoChain(7))};
  TcFilterInfo f;
  f.setDev(6u).setParent(TcFilterInfo::kEgressParent).setPrio(9).setProtocol(0x86DD).setHandle(0x80000801).setOptions(u);
  TcFilterInfo back = decodeOwn(TcFilterRequests::add(f));
  EXPECT_EQ(back.kind, "u32");
  EXPECT_EQ(back.prio, 9);
  EXPECT_EQ(back.protocol, 0x86DD);
  EXPECT_EQ(back.handle, 0x80000801u);
  EXPECT_EQ(back.parent, TcHandle(TcFilterInfo::kEgressParent));
  auto& bu = std::get<U32FilterOptions>(back.options);
  ASSERT_EQ(bu.keys.size(), 1u);
  EXPECT_EQ(bu.keys[0], u.keys[0]);
  EXPECT_EQ(bu.classid, TcHandle(1, 1));
  EXPECT_TRUE(bu.terminal);
  ASSERT_EQ(bu.actions.size(), 3u);
  EXPECT_EQ(bu.actions[0].order, 1u);
  auto bp = std::get<PoliceAction>(bu.actions[0].options);
  EXPECT_EQ(bp.rate, 125000u);
  EXPECT_EQ(bp.burst, 10240u);
  EXPECT_EQ(bp.exceed, tcact::kDrop);
  EXPECT_EQ(bp.conform, tcact::kPass);
  EXPECT_EQ(std::get<TunnelKeyAction>(bu.actions[1].options), t);
  EXPECT_EQ(std::get<GactAction>(bu.actions[2].options).control, tcact::gotoChain(7));
  EXPECT_EQ(tcact::name(tcact::gotoChain(7)), "goto chain 7");
}

TEST(TcFilterDecode, VlanPushEthRoundTrip) {
  VlanAction push;
  push.op = VlanAction::PushEth;
  push.dstMac = MacAddress::parse("02:00:00:00:00:02");
  push.srcMac = MacAddress::parse("02:00:00:00:00:01");
  push.control = tcact::kPass;
  MatchallOptions m;
  m.actions = {TcAction().setOptions(push)};
  TcFilterInfo f;
  f.setDev(3u).setParent(TcFilterInfo::kIngressParent).setPrio(1).setOptions(m);
  TcFilterInfo back = decodeOwn(TcFilterRequests::add(f));
  auto& bm = std::get<MatchallOptions>(back.options);
  ASSERT_EQ(bm.actions.size(), 1u);
  EXPECT_EQ(std::get<VlanAction>(bm.actions[0].options), push);
}

TEST(TcFilterDecode, U32PerfCountersOfADump) {
  // A dumped u32 rule with two keys as a CONFIG_CLS_U32_PERF kernel sends it: TCA_U32_PCNT is
  // tc_u32_pcnt (rcnt, rhit) followed by one u64 per key (Debian 6.1 in the VM; not the host).
  Bytes sel = {1, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (uint32_t word : {0xFFFFFFFFu, 0x0100000Au, 16u, 0u, 0x0000FFFFu, 0x50000000u, 20u, 0u}) test::appendLe32(sel, word);
  Bytes pcnt;
  for (uint64_t count : {9u, 4u, 6u, 4u}) test::appendLe64(pcnt, count);
  test::AlignedMessage m(test::netlinkMessage(
      kRtmNewTfilter, 0, tcm(7, 0x80000800, 0xFFFFFFF2, info(10, kIpBe)),
      Attrs().str(kTcaKind, "u32").nest(kTcaOptions, Attrs().raw(5 /* SEL */, sel).raw(9 /* PCNT */, pcnt))));
  TcFilterInfo f;
  rtnl::decodeFilter(m.as<nlmsghdr>(), f);
  auto& u = std::get<U32FilterOptions>(f.options);
  ASSERT_EQ(u.keys.size(), 2u);
  ASSERT_TRUE(u.counters.has_value());
  EXPECT_EQ(u.counters->lookups, 9u);
  EXPECT_EQ(u.counters->hits, 4u);
  EXPECT_EQ(u.counters->keyHits, (std::vector<uint64_t>{6, 4}));
  EXPECT_TRUE(f.unknown.empty());
}

TEST(TcFilterDecode, FlowerKeysRoundTrip) {
  FlowerOptions o;
  o.ipProto = 17;
  o.srcIp = Prefix::parse("2001:db8::/32");
  o.srcPort = 53;
  o.dstMac = MacAddress::parse("02:00:00:00:00:01");
  o.classid = TcHandle(1, 5);
  TcFilterInfo f;
  f.setDev(2u).setParent(TcFilterInfo::kIngressParent).setPrio(1).setProtocol(0x86DD).setOptions(o);
  TcFilterInfo back = decodeOwn(TcFilterRequests::add(f));
  auto& b = std::get<FlowerOptions>(back.options);
  EXPECT_EQ(b.ipProto, 17);
  EXPECT_EQ(b.srcIp->length(), 32);
  EXPECT_EQ(b.srcIp->address().toString(), "2001:db8::");
  EXPECT_EQ(b.srcPort, 53);
  EXPECT_EQ(b.dstMac, o.dstMac);
  EXPECT_EQ(b.ethType, 0x86DD);
  EXPECT_EQ(b.classid, TcHandle(1, 5));
  EXPECT_TRUE(b.unknown.empty());
}

TEST(TcFilterGolden, EveryClassifierFieldInTcOrder) {
  // Each classifier with every field it sends, in the order tc 6.1 sends them (u32: classid,
  // divisor, link, hash, selector, indev, actions, flags; fw: classid, indev, actions, mask; bpf:
  // fd, name, classid, flags, flags_gen, actions), the action list at its place in each.
  Attrs drop = action(1, "gact", Attrs().raw(2 /* PARMS */, gen(0, 2)));
  auto filter = [](TcFilterOptions o) {
    TcFilterInfo f;
    f.setDev(5u).setParent(TcHandle(1, 0)).setPrio(4).setOptions(std::move(o));
    return TcFilterRequests::add(f);
  };
  auto expect = [](const char* kind, const Attrs& options) {
    return test::netlinkMessage(kRtmNewTfilter, kAdd, tcm(5, 0, 0x10000, info(4, kAllBe)),
                                Attrs().str(kTcaKind, kind).nest(kTcaOptions, options));
  };
  U32FilterOptions u;
  u.keys.push_back({0x00160000, 0xFFFF0000, 20, 0});
  u.classid = TcHandle(1, 7);
  u.divisor = 1;
  u.link = 0x800;
  u.hashTable = 0x80000800;
  u.indev = "eth1";
  u.flags = 1;
  u.actions.push_back(TcAction::gact(tcact::kDrop));
  Bytes sel = {1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0, 0, 0, 0x16, 0, 0};
  test::appendLe32(sel, 20);
  test::appendLe32(sel, 0);
  EXPECT_TRUE(sameBytes(filter(u).bytes(), expect("u32", Attrs()
                                                              .u32(1 /* CLASSID */, 0x10007)
                                                              .u32(4 /* DIVISOR */, 1)
                                                              .u32(3 /* LINK */, 0x800)
                                                              .u32(2 /* HASH */, 0x80000800)
                                                              .raw(5 /* SEL */, sel)
                                                              .str(8 /* INDEV */, "eth1")
                                                              .nest(7 /* ACT */, drop)
                                                              .u32(11 /* FLAGS */, 1))));
  MatchallOptions m;
  m.classid = TcHandle(1, 2);
  m.flags = 2;
  m.actions.push_back(TcAction::gact(tcact::kDrop));
  EXPECT_TRUE(sameBytes(filter(m).bytes(),
                        expect("matchall", Attrs().u32(1 /* CLASSID */, 0x10002).nest(2 /* ACT */, drop).u32(3 /* FLAGS */, 2))));
  FwOptions fw;
  fw.classid = TcHandle(1, 3);
  fw.indev = "eth2";
  fw.mask = 0xF0;
  fw.actions.push_back(TcAction::gact(tcact::kDrop));
  EXPECT_TRUE(sameBytes(filter(fw).bytes(), expect("fw", Attrs()
                                                              .u32(1 /* CLASSID */, 0x10003)
                                                              .str(3 /* INDEV */, "eth2")
                                                              .nest(4 /* ACT */, drop)
                                                              .u32(5 /* MASK */, 0xF0))));
  BasicOptions basic;
  basic.classid = TcHandle(1, 4);
  basic.actions.push_back(TcAction::gact(tcact::kDrop));
  EXPECT_TRUE(sameBytes(filter(basic).bytes(), expect("basic", Attrs().u32(1 /* CLASSID */, 0x10004).nest(3 /* ACT */, drop))));
  BpfFilterOptions bpf;
  bpf.fd = 9;
  bpf.classid = TcHandle(1, 5);
  bpf.directAction = true;
  bpf.flags = 1;
  bpf.actions.push_back(TcAction::gact(tcact::kDrop));
  EXPECT_TRUE(sameBytes(filter(bpf).bytes(), expect("bpf", Attrs()
                                                               .u32(6 /* FD */, 9)
                                                               .str(7 /* NAME */, "fastlink")
                                                               .u32(3 /* CLASSID */, 0x10005)
                                                               .u32(8 /* FLAGS */, 1)
                                                               .u32(9 /* FLAGS_GEN */, 1)
                                                               .nest(1 /* ACT */, drop))));
}

TEST(TcFilterDecode, EveryClassifierFromKernelBytes) {
  // Each classifier as a dump reports it, with its reported-only attributes (counters, ids) and
  // one attribute fastlink does not type, kept raw: u32, matchall, fw, basic and bpf keep it
  // in the filter's unknown attributes, flower in its options'.
  Attrs drop = action(1, "gact", Attrs().raw(2 /* PARMS */, gen(3, 2)));
  auto decode = [](const char* kind, const Attrs& options) {
    test::AlignedMessage m(test::netlinkMessage(kRtmNewTfilter, 0, tcm(5, 1, 0x10000, info(4, kIpBe)),
                                                Attrs().str(kTcaKind, kind).nest(kTcaOptions, options)));
    TcFilterInfo f;
    rtnl::decodeFilter(m.as<nlmsghdr>(), f);
    EXPECT_EQ(f.kind, kind);
    return f;
  };
  auto own = [](std::span<const uint8_t> b) { return Bytes(b.begin(), b.end()); };
  auto gactDrop = [](const std::vector<TcAction>& actions) {
    return actions.size() == 1 && std::get<GactAction>(actions[0].options).control == tcact::kDrop && actions[0].index == 3u;
  };
  TcFilterInfo u = decode("u32", Attrs()
                                     .u32(1 /* CLASSID */, 0x10007)
                                     .u32(4 /* DIVISOR */, 1)
                                     .u32(3 /* LINK */, 0x800)
                                     .u32(2 /* HASH */, 0x80000800)
                                     .str(8 /* INDEV */, "eth1")
                                     .nest(7 /* ACT */, drop)
                                     .u32(11 /* FLAGS */, 9)
                                     .u32(10 /* MARK */, 0x55)
                                     .u64(12 /* PAD */, 0));
  const auto& uo = std::get<U32FilterOptions>(u.options);
  EXPECT_EQ(uo.classid, TcHandle(1, 7));
  EXPECT_EQ(uo.divisor, 1u);
  EXPECT_EQ(uo.link, 0x800u);
  EXPECT_EQ(uo.hashTable, 0x80000800u);
  EXPECT_EQ(uo.indev, "eth1");
  EXPECT_EQ(uo.flags, 9u);
  EXPECT_TRUE(gactDrop(uo.actions));
  EXPECT_EQ(own(u.unknown.bytes()), Attrs().u32(10, 0x55).bytes());
  TcFilterInfo m = decode("matchall", Attrs()
                                          .u32(1 /* CLASSID */, 0x10002)
                                          .nest(2 /* ACT */, drop)
                                          .u32(3 /* FLAGS */, 10)
                                          .u64(4 /* PCNT */, 77)
                                          .u64(5 /* PAD */, 0)
                                          .u32(6, 1));
  const auto& mo = std::get<MatchallOptions>(m.options);
  EXPECT_EQ(mo.classid, TcHandle(1, 2));
  EXPECT_EQ(mo.flags, 10u);
  EXPECT_EQ(mo.hits, 77u);
  EXPECT_TRUE(gactDrop(mo.actions));
  EXPECT_EQ(own(m.unknown.bytes()), Attrs().u32(6, 1).bytes());
  TcFilterInfo fw = decode("fw", Attrs()
                                     .u32(1 /* CLASSID */, 0x10003)
                                     .raw(2 /* POLICE */, {1, 2, 3, 4})
                                     .str(3 /* INDEV */, "eth2")
                                     .nest(4 /* ACT */, drop)
                                     .u32(5 /* MASK */, 0xF0));
  const auto& fo = std::get<FwOptions>(fw.options);
  EXPECT_EQ(fo.classid, TcHandle(1, 3));
  EXPECT_EQ(fo.indev, "eth2");
  EXPECT_EQ(fo.mask, 0xF0u);
  EXPECT_TRUE(gactDrop(fo.actions));
  EXPECT_EQ(own(fw.unknown.bytes()), Attrs().raw(2, {1, 2, 3, 4}).bytes());
  TcFilterInfo basic = decode("basic", Attrs()
                                           .u32(1 /* CLASSID */, 0x10004)
                                           .raw(2 /* EMATCHES */, {5, 6, 7, 8})
                                           .nest(3 /* ACT */, drop)
                                           .u64(5 /* PCNT */, 12)
                                           .u64(6 /* PAD */, 0));
  const auto& bo = std::get<BasicOptions>(basic.options);
  EXPECT_EQ(bo.classid, TcHandle(1, 4));
  EXPECT_TRUE(gactDrop(bo.actions));
  EXPECT_EQ(own(basic.unknown.bytes()), Attrs().raw(2, {5, 6, 7, 8}).bytes());
  TcFilterInfo bpf = decode("bpf", Attrs()
                                       .nest(1 /* ACT */, drop)
                                       .u32(3 /* CLASSID */, 0x10005)
                                       .raw(4 /* OPS_LEN */, {2, 0})
                                       .str(7 /* NAME */, "prog.o:[tc]")
                                       .u32(8 /* FLAGS */, 1)
                                       .u32(9 /* FLAGS_GEN */, 4)
                                       .raw(10 /* TAG */, {0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6, 0x07, 0x18})
                                       .u32(11 /* ID */, 321));
  const auto& po = std::get<BpfFilterOptions>(bpf.options);
  EXPECT_EQ(po.classid, TcHandle(1, 5));
  EXPECT_EQ(po.name, "prog.o:[tc]");
  EXPECT_TRUE(po.directAction);
  EXPECT_EQ(po.flags, 4u);
  EXPECT_EQ(po.id, 321u);
  EXPECT_EQ(po.tag, (std::vector<uint8_t>{0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6, 0x07, 0x18}));
  EXPECT_EQ(po.fd, -1);
  EXPECT_TRUE(gactDrop(po.actions));
  EXPECT_EQ(own(bpf.unknown.bytes()), Attrs().raw(4, {2, 0}).bytes());
  // flower: a partial MAC mask and a key fastlink does not type (tcp_flags) stay raw, in order.
  TcFilterInfo fl = decode("flower", Attrs()
                                         .u32(1 /* CLASSID */, 0x10006)
                                         .str(2 /* INDEV */, "eth3")
                                         .nest(3 /* ACT */, drop)
                                         .raw(4 /* ETH_DST */, {2, 0, 0, 0, 0, 1})
                                         .raw(5 /* ETH_DST_MASK */, {0xFF, 0xFF, 0xFF, 0, 0, 0})
                                         .be16(8 /* ETH_TYPE */, 0x0800)
                                         .u8(9 /* IP_PROTO */, 17)
                                         .raw(12 /* IPV4_DST */, {10, 1, 0, 0})
                                         .raw(13 /* IPV4_DST_MASK */, {255, 255, 0, 0})
                                         .be16(21 /* UDP_DST */, 53)
                                         .u32(22 /* FLAGS */, 8)
                                         .be16(71 /* TCP_FLAGS */, 0x12)
                                         .u32(86 /* IN_HW_COUNT */, 2));
  const auto& lo = std::get<FlowerOptions>(fl.options);
  EXPECT_EQ(lo.classid, TcHandle(1, 6));
  EXPECT_EQ(lo.indev, "eth3");
  EXPECT_TRUE(gactDrop(lo.actions));
  EXPECT_EQ(lo.ethType, 0x0800);
  EXPECT_EQ(lo.ipProto, 17);
  EXPECT_EQ(lo.dstIp, Prefix::parse("10.1.0.0/16"));
  EXPECT_EQ(lo.dstPort, 53);
  EXPECT_EQ(lo.flags, 8u);
  EXPECT_EQ(lo.inHwCount, 2u);
  EXPECT_FALSE(lo.dstMac.has_value());
  EXPECT_EQ(own(lo.unknown.bytes()),
            Attrs().raw(4, {2, 0, 0, 0, 0, 1}).raw(5, {0xFF, 0xFF, 0xFF, 0, 0, 0}).be16(71, 0x12).bytes());
  EXPECT_TRUE(fl.unknown.empty());
  // A kind fastlink does not know keeps its options whole.
  TcFilterInfo raw = decode("route", Attrs().u32(1, 0x10009));
  EXPECT_EQ(std::get<RawFilterOptions>(raw.options).bytes, Attrs().u32(1, 0x10009).bytes());
}

TEST(TcFilterValidation, BadInputIsRefusedBeforeSending) {
  auto refused = [](const TcFilterInfo& f, const char* why) {
    try {
      (void)TcFilterRequests::add(f);
      ADD_FAILURE() << "accepted: " << why;
    } catch (const Error& e) {
      EXPECT_NE(e.reason().find(why), std::string::npos) << e.reason();
    }
  };
  TcFilterInfo noDev;
  noDev.setOptions(MatchallOptions{});
  refused(noDev, "either a device");
  U32FilterOptions badKey;
  badKey.keys.push_back({0x1, 0x0, 0, 0});
  refused(TcFilterInfo().setDev(1u).setOptions(badKey), "outside its mask");
  U32FilterOptions badOff;
  badOff.keys.push_back({0, 0, 3, 0});
  refused(TcFilterInfo().setDev(1u).setOptions(badOff), "multiple of 4");
  FlowerOptions portWithoutProto;
  portWithoutProto.dstPort = 80;
  refused(TcFilterInfo().setDev(1u).setProtocol(0x0800).setOptions(portWithoutProto), "ip_proto");
  MatchallOptions both;
  both.flags = 3;
  refused(TcFilterInfo().setDev(1u).setOptions(both), "skip_hw and skip_sw");
  MatchallOptions badControl;
  badControl.actions.push_back(TcAction::gact(99));
  refused(TcFilterInfo().setDev(1u).setOptions(badControl), "not a tc verdict");
  MatchallOptions mirredByName;
  mirredByName.actions.push_back(TcAction::mirred(MirredAction::EgressMirror, Ifref("eth0")));
  refused(TcFilterInfo().setDev(1u).setOptions(mirredByName), "mirred dev");
  TcFilterInfo kindMismatch = TcFilterInfo().setDev(1u).setOptions(MatchallOptions{});
  kindMismatch.kind = "u32";
  refused(kindMismatch, "does not match");
}

}  // namespace
}  // namespace fastlink

namespace fastlink {
namespace {

/// A flower add on dev 6 ingress pref 3 with `protocol`, and the message tc 6.1 sends for it:
/// TCA_OPTIONS holding `keys`, then the actions (`acts`, when any), the flags, the ethertype.
std::pair<Request, Bytes> flowerPair(const FlowerOptions& o, uint16_t protocol, const Attrs& keys, const Attrs* acts, uint32_t flags) {
  TcFilterInfo f;
  f.setDev(6u).setParent(TcFilterInfo::kIngressParent).setPrio(3).setProtocol(protocol).setOptions(o);
  Attrs opts = keys;
  if (acts) opts.nest(3 /* ACT */, *acts);
  opts.u32(22 /* FLAGS */, flags).be16(8 /* ETH_TYPE */, protocol);
  uint16_t be = static_cast<uint16_t>(protocol >> 8 | protocol << 8);
  return {TcFilterRequests::add(f), test::netlinkMessage(kRtmNewTfilter, kAdd, tcm(6, 0, 0xFFFFFFF2, info(3, be)),
                                                          Attrs().str(kTcaKind, "flower").nest(kTcaOptions, opts))};
}

TEST(TcFilterGolden, FlowerEveryKeyInTcOrder) {
  // Every key fastlink types, in the order it sends them (the attribute layouts of tc 6.1's
  // f_flower.c): classid, indev, the VLAN keys, the MACs each with a full mask, ip_proto, the
  // addresses each with its mask, the ports by ip_proto, then raw attributes, actions, flags,
  // ethertype. Three filters, as the keys need different protocols.
  FlowerOptions vlan;
  vlan.classid = TcHandle(1, 7);
  vlan.indev = "eth1";
  vlan.vlanId = 100;
  vlan.vlanPrio = 5;
  vlan.dstMac = MacAddress::parse("02:00:00:00:00:0a");
  vlan.srcMac = MacAddress::parse("02:00:00:00:00:0b");
  vlan.flags = 2;  // skip_sw
  vlan.unknown.append(71 /* TCP_FLAGS */, Bytes{0, 0x12});
  vlan.actions = {TcAction::gact(tcact::kDrop)};
  Attrs drop = action(1, "gact", Attrs().raw(2 /* PARMS */, gen(0, 2)));
  const Bytes full = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
  Attrs vlanKeys = Attrs()
                       .u32(1 /* CLASSID */, 0x10007)
                       .str(2 /* INDEV */, "eth1")
                       .u16(23 /* VLAN_ID */, 100)
                       .u8(24 /* VLAN_PRIO */, 5)
                       .raw(4 /* ETH_DST */, {2, 0, 0, 0, 0, 0x0a})
                       .raw(5 /* ETH_DST_MASK */, full)
                       .raw(6 /* ETH_SRC */, {2, 0, 0, 0, 0, 0x0b})
                       .raw(7 /* ETH_SRC_MASK */, full)
                       .be16(71, 0x12);
  auto [vr, ve] = flowerPair(vlan, 0x8100, vlanKeys, &drop, 2);
  EXPECT_TRUE(sameBytes(vr.bytes(), ve));

  FlowerOptions udp6;
  udp6.ipProto = 17;
  udp6.dstIp = Prefix::parse("2001:db8::1/128");
  udp6.srcIp = Prefix::parse("2001:db8:1::/48");
  udp6.dstPort = 53;
  udp6.srcPort = 1053;
  Bytes dst6 = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  Bytes src6 = {0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  Bytes mask128(16, 0xFF), mask48(16, 0);
  std::fill(mask48.begin(), mask48.begin() + 6, 0xFF);
  Attrs udpKeys = Attrs()
                      .u8(9 /* IP_PROTO */, 17)
                      .raw(16 /* IPV6_DST */, dst6)
                      .raw(17 /* IPV6_DST_MASK */, mask128)
                      .raw(14 /* IPV6_SRC */, src6)
                      .raw(15 /* IPV6_SRC_MASK */, mask48)
                      .be16(21 /* UDP_DST */, 53)
                      .be16(20 /* UDP_SRC */, 1053);
  auto [ur, ue] = flowerPair(udp6, 0x86DD, udpKeys, nullptr, 0);
  EXPECT_TRUE(sameBytes(ur.bytes(), ue));

  // sctp over IPv4, a host source (a /32 mask) and an address given with host bits (sent masked).
  FlowerOptions sctp;
  sctp.ipProto = 132;
  sctp.dstIp = Prefix::parse("10.9.8.7/20");
  sctp.srcIp = Prefix::parse("192.0.2.1/32");
  sctp.dstPort = 9899;
  sctp.srcPort = 1;
  Attrs sctpKeys = Attrs()
                       .u8(9, 132)
                       .raw(12 /* IPV4_DST */, {10, 9, 0, 0})
                       .raw(13 /* IPV4_DST_MASK */, {255, 255, 240, 0})
                       .raw(10 /* IPV4_SRC */, {192, 0, 2, 1})
                       .raw(11 /* IPV4_SRC_MASK */, {255, 255, 255, 255})
                       .be16(42 /* SCTP_DST */, 9899)
                       .be16(41 /* SCTP_SRC */, 1);
  auto [sr, se] = flowerPair(sctp, 0x0800, sctpKeys, nullptr, 0);
  EXPECT_TRUE(sameBytes(sr.bytes(), se));

  // tcp's source port alone.
  FlowerOptions tcp;
  tcp.ipProto = 6;
  tcp.srcPort = 22;
  auto [tr, te] = flowerPair(tcp, 0x0800, Attrs().u8(9, 6).be16(18 /* TCP_SRC */, 22), nullptr, 0);
  EXPECT_TRUE(sameBytes(tr.bytes(), te));

  // Each decodes back to what was sent, the protocol reported as the ethertype key.
  for (auto [sent, request] : {std::pair{vlan, &vr}, std::pair{udp6, &ur}, std::pair{sctp, &sr}, std::pair{tcp, &tr}}) {
    auto back = std::get<FlowerOptions>(decodeOwn(*request).options);
    EXPECT_TRUE(back.ethType.has_value());
    back.ethType.reset();
    if (sent.dstIp) sent.dstIp = sent.dstIp->masked();
    EXPECT_EQ(back.actions.size(), sent.actions.size());
    back.actions = sent.actions;  // actions' own decode is TcFilterDecode.RoundTripKeepsOptionsAndActions's
    EXPECT_EQ(back, sent) << request->operation();
  }
}

TEST(TcFilterDecode, FlowerKeysAsTheKernelMayReportThem) {
  auto decode = [](const Attrs& options) {
    test::AlignedMessage m(test::netlinkMessage(kRtmNewTfilter, 0, tcm(5, 1, 0xFFFFFFF2, info(4, kIpBe)),
                                                Attrs().str(kTcaKind, "flower").nest(kTcaOptions, options)));
    TcFilterInfo f;
    rtnl::decodeFilter(m.as<nlmsghdr>(), f);
    return std::get<FlowerOptions>(f.options);
  };
  auto own = [](const RawAttributes& r) { return Bytes(r.bytes().begin(), r.bytes().end()); };
  // Ports are read by ip_proto wherever it stands; another protocol's ports stay raw, in order.
  FlowerOptions a = decode(Attrs()
                               .be16(19 /* TCP_DST */, 80)
                               .be16(21 /* UDP_DST */, 53)
                               .u8(9 /* IP_PROTO */, 6)
                               .be16(18 /* TCP_SRC */, 1024)
                               .be16(41 /* SCTP_SRC */, 7));
  EXPECT_EQ(a.ipProto, 6);
  EXPECT_EQ(a.dstPort, 80);
  EXPECT_EQ(a.srcPort, 1024);
  EXPECT_EQ(own(a.unknown), Attrs().be16(21, 53).be16(41, 7).bytes());
  // No ip_proto, or one without ports: every port attribute stays raw.
  FlowerOptions b = decode(Attrs().u8(9, 1 /* icmp */).be16(19, 80));
  EXPECT_FALSE(b.dstPort.has_value());
  EXPECT_EQ(own(b.unknown), Attrs().be16(19, 80).bytes());
  // A MAC without its mask is a full match; one of another size than 6 stays raw with its mask.
  FlowerOptions c = decode(Attrs()
                               .raw(4 /* ETH_DST */, {2, 0, 0, 0, 0, 1})
                               .raw(6 /* ETH_SRC */, {2, 0, 0, 0, 1})
                               .raw(7 /* ETH_SRC_MASK */, {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}));
  EXPECT_EQ(c.dstMac, MacAddress::parse("02:00:00:00:00:01"));
  EXPECT_FALSE(c.srcMac.has_value());
  EXPECT_EQ(own(c.unknown), Attrs().raw(6, {2, 0, 0, 0, 1}).raw(7, {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}).bytes());
  // Addresses: the mask's leading ones are the length; without a mask, a host; v4 before v6.
  FlowerOptions d = decode(Attrs()
                               .raw(12 /* IPV4_DST */, {10, 0, 0, 0})
                               .raw(13 /* IPV4_DST_MASK */, {255, 0, 0, 0})
                               .raw(16 /* IPV6_DST */, Bytes(16, 0x20))
                               .raw(14 /* IPV6_SRC */, Bytes(16, 0x30))
                               .u16(23 /* VLAN_ID */, 4000)
                               .u8(24 /* VLAN_PRIO */, 6)
                               .u32(86 /* IN_HW_COUNT */, 1));
  EXPECT_EQ(d.dstIp, Prefix::parse("10.0.0.0/8"));
  EXPECT_EQ(d.srcIp->length(), 128);
  EXPECT_EQ(d.srcIp->address().toString(), "3030:3030:3030:3030:3030:3030:3030:3030");
  EXPECT_EQ(d.vlanId, 4000);
  EXPECT_EQ(d.vlanPrio, 6);
  EXPECT_EQ(d.inHwCount, 1u);
  EXPECT_TRUE(d.unknown.empty()) << "the IPv6 destination beside an IPv4 one is read as known";
}

TEST(TcFilterValidation, FlowerKeysNeedTheirProtocol) {
  auto refused = [](uint16_t protocol, const FlowerOptions& o, const char* why) {
    try {
      (void)TcFilterRequests::add(TcFilterInfo().setDev(1u).setProtocol(protocol).setOptions(o));
      ADD_FAILURE() << "accepted: " << why;
    } catch (const Error& e) {
      EXPECT_NE(e.reason().find(why), std::string::npos) << e.reason();
    }
  };
  FlowerOptions proto;
  proto.ipProto = 6;
  refused(0x0806, proto, "flower ip keys need protocol ip or ipv6");
  FlowerOptions v6;
  v6.dstIp = Prefix::parse("2001:db8::/32");
  refused(0x0800, v6, "flower address family differs from the protocol");
  FlowerOptions icmpPort;
  icmpPort.ipProto = 1;
  icmpPort.srcPort = 7;
  refused(0x0800, icmpPort, "flower ports need ip_proto tcp, udp or sctp");
  FlowerOptions vlan;
  vlan.vlanPrio = 1;
  refused(0x0800, vlan, "flower vlan keys need protocol 802.1q or 802.1ad");
  FlowerOptions vid;
  vid.vlanId = 4095;
  refused(0x88A8, vid, "flower vlan_id must be 1-4094");
  vid.vlanId = 0;
  refused(0x8100, vid, "flower vlan_id must be 1-4094");
  FlowerOptions longMac;
  longMac.srcMac = MacAddress(std::vector<uint8_t>(8, 1));
  refused(0x0800, longMac, "flower MAC addresses are 6 bytes");
  FlowerOptions both;
  both.flags = 3;
  refused(0x0800, both, "skip_hw and skip_sw");
}

}  // namespace
}  // namespace fastlink
