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

}  // namespace
}  // namespace fastlink
