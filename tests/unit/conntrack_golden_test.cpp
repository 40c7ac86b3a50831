// Golden bytes for conntrack requests (ConntrackRequests) and the entry decoder.
// Layout by hand: nfgenmsg = family:u8 version:u8 res_id:be16; message type = CTNETLINK(1) << 8 |
// IPCTNL_MSG_CT_*; numbers big-endian (be16/be32 below), nests with NLA_F_NESTED on requests.
#include <gtest/gtest.h>

#include "fastlink/conntrack.hpp"
#include "fastlink/subscription.hpp"
#include "unit/golden.hpp"

namespace fastlink {
namespace {

using test::AlignedMessage;
using test::Attrs;
using test::Bytes;
using test::sameBytes;

// nfnetlink numbers spelled out (the uapi header is not the expectation).
constexpr uint16_t kCtNew = 0x0100, kCtGet = 0x0101, kCtDelete = 0x0102;
constexpr uint16_t kTupleOrig = 1, kTupleReply = 2, kStatus = 3, kProtoinfo = 4, kTimeout = 7, kMark = 8,
                   kCountersOrig = 9, kUse = 11, kId = 12, kZone = 18, kMarkMask = 21, kFilter = 25, kStatusMask = 26;
constexpr uint16_t kTupleIp = 1, kTupleProto = 2, kTupleZone = 3;
constexpr uint16_t kIpV4Src = 1, kIpV4Dst = 2, kIpV6Src = 3, kIpV6Dst = 4;
constexpr uint16_t kProtoNum = 1, kSrcPort = 2, kDstPort = 3, kIcmpId = 4, kIcmpType = 5, kIcmpCode = 6;
constexpr uint16_t kReq = 0x1, kCreate = 0x400, kExcl = 0x200;

Bytes nfgen(uint8_t family) { return {family, 0, 0, 0}; }
Attrs be32(uint16_t type, uint32_t v) {
  return Attrs().raw(type, {uint8_t(v >> 24), uint8_t(v >> 16), uint8_t(v >> 8), uint8_t(v)});
}
Attrs be64(uint16_t type, uint64_t v) {
  Bytes b;
  for (int i = 7; i >= 0; --i) b.push_back(uint8_t(v >> (8 * i)));
  return Attrs().raw(type, b);
}
Attrs v4tuple(std::initializer_list<uint8_t> src, std::initializer_list<uint8_t> dst, uint8_t proto, uint16_t sport,
              uint16_t dport) {
  return Attrs()
      .nest(kTupleIp, Attrs().raw(kIpV4Src, src).raw(kIpV4Dst, dst))
      .nest(kTupleProto, Attrs().u8(kProtoNum, proto).be16(kSrcPort, sport).be16(kDstPort, dport));
}

ConntrackEntry udpEntry() {
  ConntrackTuple t;
  t.src = IpAddress::parse("10.0.0.1");
  t.dst = IpAddress::parse("10.0.0.2");
  t.protocol = 17;
  t.srcPort = 1234;
  t.dstPort = 53;
  return ConntrackEntry().setOrig(t);
}

TEST(ConntrackGolden, CreateSendsTheInvertedReplyAndSettables) {
  // conntrack -I -p udp -s 10.0.0.1 -d 10.0.0.2 --sport 1234 --dport 53 -t 100 --mark 5 --zone 3 -u SEEN_REPLY
  Request r = ConntrackRequests::create(udpEntry().setTimeout(100).setMark(5).setZone(3).setStatus(2));
  Bytes expected = test::netlinkMessage(kCtNew, kReq | kCreate | kExcl, nfgen(2),
                                        Attrs()
                                            .nest(kTupleOrig, v4tuple({10, 0, 0, 1}, {10, 0, 0, 2}, 17, 1234, 53))
                                            .nest(kTupleReply, v4tuple({10, 0, 0, 2}, {10, 0, 0, 1}, 17, 53, 1234))
                                            .be16(kZone, 3)
                                            .append(be32(kTimeout, 100))
                                            .append(be32(kStatus, 2 | 8 /* CONFIRMED, always */))
                                            .append(be32(kMark, 5)));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
  EXPECT_EQ(r.operation(), "conntrack -I -p udp -s 10.0.0.1 -d 10.0.0.2 --sport 1234 --dport 53 --zone 3");
}

TEST(ConntrackGolden, TcpStateGoesInProtoinfo) {
  ConntrackEntry e = udpEntry().setTimeout(10).setTcpState(3);
  e.orig.protocol = 6;
  Request r = ConntrackRequests::create(e);
  Bytes expected = test::netlinkMessage(
      kCtNew, kReq | kCreate | kExcl, nfgen(2),
      Attrs()
          .nest(kTupleOrig, v4tuple({10, 0, 0, 1}, {10, 0, 0, 2}, 6, 1234, 53))
          .nest(kTupleReply, v4tuple({10, 0, 0, 2}, {10, 0, 0, 1}, 6, 53, 1234))
          .append(be32(kTimeout, 10))
          .nest(kProtoinfo, Attrs().nest(1 /* CTA_PROTOINFO_TCP */, Attrs().u8(1 /* _STATE */, 3))));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
}

TEST(ConntrackGolden, DeletePinsTheId) {
  ConntrackEntry e = udpEntry();
  e.id = 0xabcdef01;
  Request r = ConntrackRequests::del(e);
  Bytes expected = test::netlinkMessage(
      kCtDelete, kReq, nfgen(2),
      Attrs().nest(kTupleOrig, v4tuple({10, 0, 0, 1}, {10, 0, 0, 2}, 17, 1234, 53)).append(be32(kId, 0xabcdef01)));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
}

TEST(ConntrackGolden, IcmpAndIpv6Tuples) {
  ConntrackTuple t;
  t.src = IpAddress::parse("fd00::1");
  t.dst = IpAddress::parse("fd00::2");
  t.protocol = 58;
  t.icmpType = 128;
  t.icmpCode = 0;
  t.icmpId = 7;
  Request r = ConntrackRequests::get(ConntrackEntry().setOrig(t));
  Bytes s(16, 0), d(16, 0);
  s[0] = d[0] = 0xfd;
  s[15] = 1;
  d[15] = 2;
  Bytes expected = test::netlinkMessage(
      kCtGet, kReq, nfgen(10),
      Attrs().nest(kTupleOrig, Attrs()
                                   .nest(kTupleIp, Attrs().raw(kIpV6Src, s).raw(kIpV6Dst, d))
                                   .nest(kTupleProto, Attrs().u8(kProtoNum, 58).be16(7 /* ICMPV6_ID */, 7).u8(8, 128).u8(9, 0))));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
  // Echo request inverts to echo reply.
  EXPECT_EQ(t.inverted().icmpType, 129);
}

TEST(ConntrackGolden, ListFilterIsKernelSide) {
  // conntrack -L -s 10.0.0.1 -p udp --dport 53 --mark 4/4 -u ASSURED --zone 3
  ConntrackFilter f;
  f.setSrc(IpAddress::parse("10.0.0.1")).setProtocol(17).setDstPort(53).setMark(4, 4).setStatus(4).setZone(3);
  Request r = ConntrackRequests::list(f);
  uint32_t origFlags = 1 /* IP_SRC */ | 4 /* TUPLE_ZONE */ | 8 /* PROTO_NUM */ | 32 /* DST_PORT */;
  Bytes expected = test::netlinkMessage(
      kCtGet, kReq, nfgen(2),
      Attrs()
          .append(be32(kMark, 4))
          .append(be32(kMarkMask, 4))
          .append(be32(kStatus, 4))
          .append(be32(kStatusMask, 4))
          .nest(kTupleOrig, Attrs()
                                .nest(kTupleIp, Attrs().raw(kIpV4Src, {10, 0, 0, 1}).raw(kIpV4Dst, {0, 0, 0, 0}))
                                .nest(kTupleProto, Attrs().u8(kProtoNum, 17).be16(kDstPort, 53))
                                .be16(kTupleZone, 3))
          .nest(kFilter, Attrs().u32(1, origFlags).u32(2, 0)));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
  // No selectors: a bare dump of every family.
  EXPECT_TRUE(sameBytes(ConntrackRequests::list({}).bytes(), test::netlinkMessage(kCtGet, kReq, nfgen(0), Attrs())));
  // Ports without a protocol cannot be filtered: refused before sending.
  EXPECT_THROW(ConntrackRequests::list(ConntrackFilter().setDstPort(53)), Error);
}

TEST(ConntrackGolden, DecodesAKernelEntryAndKeepsTheUnknown) {
  // What the kernel sends for a replied UDP entry (nests without NLA_F_NESTED).
  auto tuple = [](std::initializer_list<uint8_t> s, std::initializer_list<uint8_t> d, uint16_t sp, uint16_t dp) {
    return Attrs()
        .nestNoFlag(kTupleIp, Attrs().raw(kIpV4Src, s).raw(kIpV4Dst, d))
        .nestNoFlag(kTupleProto, Attrs().u8(kProtoNum, 17).be16(kSrcPort, sp).be16(kDstPort, dp));
  };
  Bytes msg = test::netlinkMessage(kCtNew, 0x2, nfgen(2),
                                   Attrs()
                                       .nestNoFlag(kTupleOrig, tuple({10, 0, 0, 1}, {10, 0, 0, 2}, 1234, 53))
                                       .nestNoFlag(kTupleReply, tuple({10, 0, 0, 2}, {10, 0, 0, 1}, 53, 1234))
                                       .nestNoFlag(kCountersOrig, be64(1, 3).append(be64(2, 180)))
                                       .append(be32(kStatus, 0xa))
                                       .append(be32(kTimeout, 29))
                                       .append(be32(kMark, 5))
                                       .append(be32(kUse, 1))
                                       .append(be32(kId, 99))
                                       .be16(kZone, 3)
                                       .raw(40, {1, 2, 3, 4}));
  AlignedMessage m(msg);
  ConntrackEntry e = decodeConntrack(msg);
  EXPECT_EQ(e.family, IpAddress::Family::v4);
  EXPECT_EQ(e.orig.src, IpAddress::parse("10.0.0.1"));
  EXPECT_EQ(e.orig.dstPort, 53);
  EXPECT_EQ(e.reply.srcPort, 53);
  EXPECT_EQ(e.reply.dst, IpAddress::parse("10.0.0.1"));
  EXPECT_EQ(e.status, 0xau);
  EXPECT_EQ(e.timeout, 29u);
  EXPECT_EQ(e.mark, 5u);
  EXPECT_EQ(e.use, 1u);
  EXPECT_EQ(e.id, 99u);
  EXPECT_EQ(e.zone, 3);
  ASSERT_TRUE(e.origCounters);
  EXPECT_EQ(e.origCounters->packets, 3u);
  EXPECT_EQ(e.origCounters->bytes, 180u);
  ASSERT_EQ(e.unknown.size(), 1u);
  EXPECT_EQ(e.unknown[0].first, 40);
  EXPECT_EQ(e.unknown[0].second, (std::vector<uint8_t>{1, 2, 3, 4}));
  // As an event: a DELETE is a destroy, a NEW without CREATE an update; the sender is kept.
  Bytes payload = nfgen(2);
  Attrs markAttr = be32(kMark, 1);
  payload.insert(payload.end(), markAttr.bytes().begin(), markAttr.bytes().end());
  Bytes destroy = test::netlinkMessage(kCtDelete, 0, payload, 0, 4242);
  auto ev = decodeConntrackEvent(Notification{destroy, std::nullopt});
  ASSERT_TRUE(ev);
  EXPECT_EQ(ev->type, ConntrackEventType::Destroy);
  EXPECT_EQ(ev->senderPortId, 4242u);
  Bytes update = test::netlinkMessage(kCtNew, 0, nfgen(2), Attrs());
  EXPECT_EQ(decodeConntrackEvent(Notification{update, std::nullopt})->type, ConntrackEventType::Update);
  Bytes created = test::netlinkMessage(kCtNew, kCreate | kExcl, nfgen(2), Attrs());
  EXPECT_EQ(decodeConntrackEvent(Notification{created, std::nullopt})->type, ConntrackEventType::New);
  // A short one is an error, not a crash.
  Bytes shortMsg = test::netlinkMessage(kCtNew, 0, Bytes{2}, Attrs());
  shortMsg.resize(18);
  shortMsg[0] = 18;
  EXPECT_THROW(decodeConntrack(shortMsg), Error);
}

TEST(ConntrackGolden, FilterMatchesInUserSpaceToo) {
  ConntrackEntry e = udpEntry().setMark(6).setStatus(6);
  e.reply = e.orig.inverted();
  EXPECT_TRUE(ConntrackFilter().setSrc(IpAddress::parse("10.0.0.1")).matches(e));
  EXPECT_FALSE(ConntrackFilter().setSrc(IpAddress::parse("10.0.0.2")).matches(e));
  EXPECT_TRUE(ConntrackFilter().setMark(4, 4).matches(e));
  EXPECT_FALSE(ConntrackFilter().setMark(1, 1).matches(e));
  EXPECT_TRUE(ConntrackFilter().setStatus(4).matches(e));
  EXPECT_FALSE(ConntrackFilter().setStatus(1).matches(e));
  EXPECT_FALSE(ConntrackFilter().setFamily(IpAddress::Family::v6).matches(e));
  EXPECT_FALSE(ConntrackFilter().setZone(1).matches(e));
  EXPECT_TRUE(ConntrackFilter().setProtocol(17).setDstPort(53).matches(e));
}

TEST(ConntrackGolden, LabelSelectorWantsEveryBit) {
  // conntrack -l red,blue: bits 1 and 9 (byte 0 bit 1, byte 1 bit 1), as the kernel stores them.
  std::vector<uint8_t> red(16, 0), redBlue(16, 0);
  red[0] = 0x02;
  redBlue[0] = 0x02;
  redBlue[1] = 0x02;
  ConntrackEntry labelled = udpEntry().setLabels(redBlue);
  ConntrackEntry redOnly = udpEntry().setLabels(red);
  ConntrackEntry none = udpEntry();
  EXPECT_TRUE(ConntrackFilter().setLabels(red).matches(labelled));
  EXPECT_TRUE(ConntrackFilter().setLabels(redBlue).matches(labelled));
  EXPECT_FALSE(ConntrackFilter().setLabels(redBlue).matches(redOnly));
  EXPECT_FALSE(ConntrackFilter().setLabels(red).matches(none)) << "an entry without CTA_LABELS has no label";
  EXPECT_TRUE(ConntrackFilter().matches(none));
  // Two bits of one byte (labels 1 and 2): one of them is not enough.
  std::vector<uint8_t> bits12(16, 0);
  bits12[0] = 0x06;
  EXPECT_FALSE(ConntrackFilter().setLabels(bits12).matches(redOnly)) << "label 2 is missing";
  // A shorter bitmap from the kernel reads as zeros beyond its end.
  EXPECT_FALSE(ConntrackFilter().setLabels(redBlue).matches(udpEntry().setLabels({0x02})));
}

TEST(ConntrackGolden, CreateSetsUpNat) {
  // conntrack -I -p udp -s 10.0.0.1 -d 10.0.0.2 --sport 1234 --dport 53 -t 100 --src-nat 192.168.1.9:5000 --dst-nat 10.0.0.7
  ConntrackEntry e = udpEntry().setTimeout(100);
  e.srcNat = ConntrackNat{IpAddress::parse("192.168.1.9"), 5000};
  e.dstNat = ConntrackNat{IpAddress::parse("10.0.0.7"), std::nullopt};
  constexpr uint16_t kNatSrc = 6, kNatDst = 13, kNatMinIp = 1, kNatMaxIp = 2, kNatProto = 3, kPortMin = 1, kPortMax = 2;
  Bytes expected = test::netlinkMessage(
      kCtNew, kReq | kCreate | kExcl, nfgen(2),
      Attrs()
          .nest(kTupleOrig, v4tuple({10, 0, 0, 1}, {10, 0, 0, 2}, 17, 1234, 53))
          // The reply is the plain inverse: the kernel rewrites it for the NAT.
          .nest(kTupleReply, v4tuple({10, 0, 0, 2}, {10, 0, 0, 1}, 17, 53, 1234))
          .append(be32(kTimeout, 100))
          .nest(kNatSrc, Attrs()
                             .raw(kNatMinIp, {192, 168, 1, 9})
                             .raw(kNatMaxIp, {192, 168, 1, 9})
                             .nest(kNatProto, Attrs().be16(kPortMin, 5000).be16(kPortMax, 5000)))
          .nest(kNatDst, Attrs().raw(kNatMinIp, {10, 0, 0, 7}).raw(kNatMaxIp, {10, 0, 0, 7})));
  Request r = ConntrackRequests::create(e);
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
  EXPECT_EQ(r.operation(),
            "conntrack -I -p udp -s 10.0.0.1 -d 10.0.0.2 --sport 1234 --dport 53 --src-nat 192.168.1.9:5000 --dst-nat 10.0.0.7");
  // A NAT address of the other family is refused before sending.
  e.dstNat = ConntrackNat{IpAddress::parse("fd00::7"), std::nullopt};
  EXPECT_THROW(ConntrackRequests::create(e), Error);
}

TEST(ConntrackGolden, NatSelectorsAsConntrackTools) {
  // Source NAT done (SRC_NAT_DONE = 0x80), reply to 192.168.1.9 instead of the source.
  ConntrackEntry snat = udpEntry().setStatus(0x80);
  snat.reply = snat.orig.inverted();
  snat.reply.dst = IpAddress::parse("192.168.1.9");
  // The same reply tuple without the status bit: not NAT.
  ConntrackEntry rewritten = snat;
  rewritten.status = 0;
  // Destination NAT done (DST_NAT_DONE = 0x100), reply from 10.0.0.7.
  ConntrackEntry dnat = udpEntry().setStatus(0x100);
  dnat.reply = dnat.orig.inverted();
  dnat.reply.src = IpAddress::parse("10.0.0.7");
  EXPECT_TRUE(ConntrackFilter().setSrcNat().matches(snat));
  EXPECT_FALSE(ConntrackFilter().setSrcNat().matches(rewritten));
  EXPECT_FALSE(ConntrackFilter().setSrcNat().matches(dnat));
  EXPECT_TRUE(ConntrackFilter().setSrcNat(IpAddress::parse("192.168.1.9")).matches(snat));
  EXPECT_FALSE(ConntrackFilter().setSrcNat(IpAddress::parse("192.168.1.8")).matches(snat));
  EXPECT_TRUE(ConntrackFilter().setDstNat(IpAddress::parse("10.0.0.7")).matches(dnat));
  EXPECT_TRUE(ConntrackFilter().setAnyNat().matches(snat));
  EXPECT_TRUE(ConntrackFilter().setAnyNat().matches(dnat));
  EXPECT_FALSE(ConntrackFilter().setAnyNat().matches(rewritten));
  EXPECT_FALSE(ConntrackFilter().setSrcNat().setDstNat().matches(snat));
  // -n alone asks the kernel for the status bit: CTA_STATUS and its mask, 0x80.
  Bytes expected = test::netlinkMessage(kCtGet, kReq, nfgen(0), Attrs().append(be32(kStatus, 0x80)).append(be32(kStatusMask, 0x80)));
  EXPECT_TRUE(sameBytes(ConntrackRequests::list(ConntrackFilter().setSrcNat()).bytes(), expected));
  // -j takes either: no status in the request.
  EXPECT_TRUE(sameBytes(ConntrackRequests::list(ConntrackFilter().setAnyNat()).bytes(),
                        test::netlinkMessage(kCtGet, kReq, nfgen(0), Attrs())));
}

// The shapes the tests above leave out, pinned before the codec moved onto attribute tables.
constexpr uint16_t kHelp = 5, kCountersReply = 10, kSecmark = 17, kTimestamp = 20, kLabels = 22, kLabelsMask = 23;

TEST(ConntrackGolden, UpdateSendsIdSettablesAndLabelsWithTheirMask) {
  // conntrack -U -p tcp ... --zone 3 -t 50 -u ASSURED --mark 9 --state ESTABLISHED --label-add ...
  ConntrackEntry e = udpEntry().setZone(3).setTimeout(50).setStatus(4).setMark(9).setTcpState(3).setLabels({0x01, 0x00, 0x80});
  e.orig.protocol = 6;
  e.id = 77;
  // What update() must leave out: a reply tuple, NAT, what the kernel only reports.
  e.reply = e.orig.inverted();
  e.srcNat = ConntrackNat{IpAddress::parse("10.9.9.9"), std::nullopt};
  e.use = 2;
  e.secmark = 5;
  e.helper = "ftp";
  e.startNs = 1;
  e.origCounters = ConntrackCounters{1, 2};
  Bytes expected = test::netlinkMessage(kCtNew, kReq, nfgen(2),
                                        Attrs()
                                            .nest(kTupleOrig, v4tuple({10, 0, 0, 1}, {10, 0, 0, 2}, 6, 1234, 53))
                                            .be16(kZone, 3)
                                            .append(be32(kId, 77))
                                            .append(be32(kTimeout, 50))
                                            .append(be32(kStatus, 4 | 8))
                                            .append(be32(kMark, 9))
                                            .nest(kProtoinfo, Attrs().nest(1, Attrs().u8(1, 3)))
                                            .raw(kLabels, {0x01, 0x00, 0x80})
                                            .raw(kLabelsMask, {0xff, 0xff, 0xff}));
  EXPECT_TRUE(sameBytes(ConntrackRequests::update(e).bytes(), expected));
  // get() sends the tuple and the zone only; del() the id too.
  Bytes get = test::netlinkMessage(
      kCtGet, kReq, nfgen(2),
      Attrs().nest(kTupleOrig, v4tuple({10, 0, 0, 1}, {10, 0, 0, 2}, 6, 1234, 53)).be16(kZone, 3));
  EXPECT_TRUE(sameBytes(ConntrackRequests::get(e).bytes(), get));
  Bytes del = test::netlinkMessage(
      kCtDelete, kReq, nfgen(2),
      Attrs().nest(kTupleOrig, v4tuple({10, 0, 0, 1}, {10, 0, 0, 2}, 6, 1234, 53)).be16(kZone, 3).append(be32(kId, 77)));
  EXPECT_TRUE(sameBytes(ConntrackRequests::del(e).bytes(), del));
  // create() sends the given reply tuple rather than the inverse, and no id.
  e.reply.srcPort = 999;
  e.srcNat.reset();
  e.labels.reset();
  e.tcpState.reset();
  Bytes created = test::netlinkMessage(kCtNew, kReq | kCreate | kExcl, nfgen(2),
                                       Attrs()
                                           .nest(kTupleOrig, v4tuple({10, 0, 0, 1}, {10, 0, 0, 2}, 6, 1234, 53))
                                           .nest(kTupleReply, v4tuple({10, 0, 0, 2}, {10, 0, 0, 1}, 6, 999, 1234))
                                           .be16(kZone, 3)
                                           .append(be32(kTimeout, 50))
                                           .append(be32(kStatus, 4 | 8))
                                           .append(be32(kMark, 9)));
  EXPECT_TRUE(sameBytes(ConntrackRequests::create(e).bytes(), created));
}

TEST(ConntrackGolden, FlushAndReplyDirectionFilters) {
  EXPECT_TRUE(sameBytes(ConntrackRequests::flush(IpAddress::Family::v6).bytes(),
                        test::netlinkMessage(kCtDelete, kReq, nfgen(10), Attrs())));
  EXPECT_TRUE(sameBytes(ConntrackRequests::flush().bytes(), test::netlinkMessage(kCtDelete, kReq, nfgen(0), Attrs())));
  // conntrack -L -p tcp --sport 80 -q fd00::2 -n: the original tuple without addresses (no
  // address compared), the reply tuple with the unset source as zeros, SRC_NAT_DONE as status.
  ConntrackFilter f;
  f.setProtocol(6).setSrcPort(80).setSrcNat();
  f.replyDst = IpAddress::parse("fd00::2");
  Bytes zero(16, 0), d(16, 0);
  d[0] = 0xfd;
  d[15] = 2;
  Bytes expected = test::netlinkMessage(
      kCtGet, kReq, nfgen(10),
      Attrs()
          .append(be32(kStatus, 0x80))
          .append(be32(kStatusMask, 0x80))
          .nest(kTupleOrig, Attrs().nest(kTupleProto, Attrs().u8(kProtoNum, 6).be16(kSrcPort, 80)))
          .nest(kTupleReply, Attrs()
                                 .nest(kTupleIp, Attrs().raw(kIpV6Src, zero).raw(kIpV6Dst, d))
                                 .nest(kTupleProto, Attrs().u8(kProtoNum, 6)))
          .nest(kFilter, Attrs().u32(1, 8 | 16).u32(2, 2 | 8)));
  EXPECT_TRUE(sameBytes(ConntrackRequests::list(f).bytes(), expected));
}

TEST(ConntrackGolden, DecodesEveryReportedField) {
  // An IPv6 TCP entry with everything the kernel may report, and an ICMP tuple with a zone.
  Bytes s(16, 0), d(16, 0);
  s[0] = d[0] = 0xfd;
  s[15] = 1;
  d[15] = 2;
  Bytes msg = test::netlinkMessage(
      kCtNew, 0x2, nfgen(10),
      Attrs()
          .nestNoFlag(kTupleOrig, Attrs()
                                      .nestNoFlag(kTupleIp, Attrs().raw(kIpV6Src, s).raw(kIpV6Dst, d))
                                      .nestNoFlag(kTupleProto, Attrs().u8(kProtoNum, 6).be16(kSrcPort, 40000).be16(kDstPort, 22))
                                      .be16(kTupleZone, 7))
          .nestNoFlag(kTupleReply, Attrs()
                                       .nestNoFlag(kTupleIp, Attrs().raw(kIpV6Src, d).raw(kIpV6Dst, s))
                                       .nestNoFlag(kTupleProto, Attrs().u8(kProtoNum, 58).be16(7, 9).u8(8, 129).u8(9, 1)))
          .nestNoFlag(kProtoinfo, Attrs().nestNoFlag(1, Attrs().u8(1, 3).u8(2, 7 /* wscale, not decoded */)))
          .nestNoFlag(kCountersReply, be64(1, 5).append(be64(2, 0x1'0000'0001)))
          .append(be32(kSecmark, 12))
          .nestNoFlag(kHelp, Attrs().str(1, "ftp"))
          .nestNoFlag(kTimestamp, be64(1, 0x0102030405060708).append(be64(2, 9)))
          .raw(kLabels, {0, 0, 0, 4}));
  ConntrackEntry e = decodeConntrack(msg);
  EXPECT_EQ(e.family, IpAddress::Family::v6);
  EXPECT_EQ(e.orig.src, IpAddress::parse("fd00::1"));
  EXPECT_EQ(e.orig.dst, IpAddress::parse("fd00::2"));
  EXPECT_EQ(e.orig.protocol, 6);
  EXPECT_EQ(e.orig.srcPort, 40000);
  EXPECT_EQ(e.orig.dstPort, 22);
  EXPECT_EQ(e.orig.zone, 7);
  EXPECT_EQ(e.reply.src, IpAddress::parse("fd00::2"));
  EXPECT_EQ(e.reply.protocol, 58);
  EXPECT_EQ(e.reply.icmpId, 9);
  EXPECT_EQ(e.reply.icmpType, 129);
  EXPECT_EQ(e.reply.icmpCode, 1);
  EXPECT_FALSE(e.reply.srcPort);
  EXPECT_EQ(e.tcpState, 3);
  EXPECT_FALSE(e.origCounters);
  ASSERT_TRUE(e.replyCounters);
  EXPECT_EQ(*e.replyCounters, (ConntrackCounters{5, 0x1'0000'0001}));
  EXPECT_EQ(e.secmark, 12u);
  EXPECT_EQ(e.helper, "ftp");
  EXPECT_EQ(e.startNs, 0x0102030405060708u);
  EXPECT_EQ(e.stopNs, 9u);
  EXPECT_EQ(e.labels, (std::vector<uint8_t>{0, 0, 0, 4}));
  EXPECT_TRUE(e.unknown.empty());
  // ICMP (v4) ids and types; another protocol's info (SCTP) is kept raw, not read as TCP's.
  Bytes icmp = test::netlinkMessage(
      kCtNew, 0x2, nfgen(2),
      Attrs()
          .nestNoFlag(kTupleOrig, Attrs()
                                      .nestNoFlag(kTupleIp, Attrs().raw(kIpV4Src, {1, 2, 3, 4}).raw(kIpV4Dst, {5, 6, 7, 8}))
                                      .nestNoFlag(kTupleProto, Attrs().u8(kProtoNum, 1).be16(kIcmpId, 0x1234).u8(kIcmpType, 8).u8(kIcmpCode, 0)))
          .nestNoFlag(kProtoinfo, Attrs().nestNoFlag(3 /* SCTP */, Attrs().u8(1, 2))));
  ConntrackEntry i = decodeConntrack(icmp);
  EXPECT_EQ(i.orig.dst, IpAddress::parse("5.6.7.8"));
  EXPECT_EQ(i.orig.icmpId, 0x1234);
  EXPECT_EQ(i.orig.icmpType, 8);
  EXPECT_EQ(i.orig.icmpCode, 0);
  EXPECT_FALSE(i.tcpState);
  ASSERT_EQ(i.unknown.size(), 1u);
  EXPECT_EQ(i.unknown[0].first, kProtoinfo);
  // A short number or address is a malformed reply, not a crash.
  Bytes shortMark = test::netlinkMessage(kCtNew, 0x2, nfgen(2), Attrs().raw(kMark, {1, 2}));
  EXPECT_THROW(decodeConntrack(shortMark), Error);
  Bytes shortAddress = test::netlinkMessage(
      kCtNew, 0x2, nfgen(2), Attrs().nestNoFlag(kTupleOrig, Attrs().nestNoFlag(kTupleIp, Attrs().raw(kIpV4Src, {1, 2}))));
  EXPECT_THROW(decodeConntrack(shortAddress), Error);
}

}  // namespace
}  // namespace fastlink
