// Golden bytes for neighbour requests (NeighRequests) and the decoder of the kernel's replies.
// ndmsg is laid out by hand here: family:u8 pad1:u8 pad2:u16 ifindex:s32 state:u16 flags:u8 type:u8.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <linux/neighbour.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "fastlink/neigh.hpp"
#include "rtnl/neigh_codec.hpp"
#include "unit/golden.hpp"
#include "support/view_agreement.hpp"

namespace fastlink {
namespace {

using test::AlignedMessage;
using test::Attrs;
using test::Bytes;
using test::sameBytes;

Bytes ndmsgBytes(uint8_t family, int32_t ifindex, uint16_t state, uint8_t flags, uint8_t type = 0) {
  Bytes b = {family, 0, 0, 0};
  test::appendLe32(b, static_cast<uint32_t>(ifindex));
  test::appendLe16(b, state);
  b.push_back(flags);
  b.push_back(type);
  return b;
}

constexpr uint16_t kAdd = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL;
constexpr uint16_t kReplace = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_REPLACE;

/// decodeNeigh, with the NeighView of the same message checked against it field by field.
NeighInfo decodeNeigh(const AlignedMessage& m) {
  NeighInfo n = rtnl::decodeNeigh(m.as<nlmsghdr>());
  NeighView view(std::span(m.as<uint8_t>(), m.as<nlmsghdr>()->nlmsg_len));
  EXPECT_EQ(test::neighViewDisagreement(view, n), "");
  return n;
}

TEST(NeighGolden, AddIpv4Permanent) {
  // ip neigh add 10.0.0.2 lladdr 02:00:00:00:00:02 dev <3> nud permanent
  Request r = NeighRequests::add(NeighInfo(IpAddress::parse("10.0.0.2"), 3u)
                                     .setLladdr(MacAddress::parse("02:00:00:00:00:02"))
                                     .setState(NeighState::Permanent));
  Bytes expected = test::netlinkMessage(RTM_NEWNEIGH, kAdd, ndmsgBytes(AF_INET, 3, 0x80, 0),
                                Attrs().raw(NDA_DST, {10, 0, 0, 2}).raw(NDA_LLADDR, {2, 0, 0, 0, 0, 2}));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
  EXPECT_EQ(r.operation(), "neigh add 10.0.0.2 lladdr 02:00:00:00:00:02 dev 3 nud permanent");
}

TEST(NeighGolden, AddWithoutStateIsPermanentLikeIproute2) {
  Request r = NeighRequests::add(NeighInfo(IpAddress::parse("10.0.0.2"), 3u).setLladdr(MacAddress::parse("02:00:00:00:00:02")));
  Bytes expected = test::netlinkMessage(RTM_NEWNEIGH, kAdd, ndmsgBytes(AF_INET, 3, NUD_PERMANENT, 0),
                                Attrs().raw(NDA_DST, {10, 0, 0, 2}).raw(NDA_LLADDR, {2, 0, 0, 0, 0, 2}));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
}

TEST(NeighGolden, ReplaceIpv6StaleRouterWithProtocol) {
  // ip -6 neigh replace 2001:db8::1 lladdr 02:00:00:00:00:61 dev <7> nud stale router protocol 4
  Request r = NeighRequests::replace(NeighInfo(IpAddress::parse("2001:db8::1"), 7u)
                                         .setLladdr(MacAddress::parse("02:00:00:00:00:61"))
                                         .setState(NeighState::Stale)
                                         .setRouter(true)
                                         .setProtocol(4));
  Bytes expected = test::netlinkMessage(
      RTM_NEWNEIGH, kReplace, ndmsgBytes(AF_INET6, 7, NUD_STALE, NTF_ROUTER),
      Attrs()
          .raw(NDA_DST, {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1})
          .raw(NDA_LLADDR, {2, 0, 0, 0, 0, 0x61})
          .u8(NDA_PROTOCOL, 4));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
}

TEST(NeighGolden, ChangeNoarpExternLearn) {
  Request r = NeighRequests::change(NeighInfo(IpAddress::parse("10.0.0.3"), 2u)
                                        .setLladdr(MacAddress::parse("02:00:00:00:00:03"))
                                        .setState(NeighState::Noarp)
                                        .setExternLearn(true));
  Bytes expected = test::netlinkMessage(RTM_NEWNEIGH, NLM_F_REQUEST | NLM_F_REPLACE, ndmsgBytes(AF_INET, 2, NUD_NOARP, NTF_EXT_LEARNED),
                                Attrs().raw(NDA_DST, {10, 0, 0, 3}).raw(NDA_LLADDR, {2, 0, 0, 0, 0, 3}));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
}

TEST(NeighGolden, ProxyAddAndDel) {
  // ip neigh add proxy 10.0.0.9 dev <4>; ip neigh del proxy 10.0.0.9 dev <4>
  Request add = NeighRequests::add(NeighInfo(IpAddress::parse("10.0.0.9"), 4u).setProxy(true));
  EXPECT_TRUE(sameBytes(add.bytes(), test::netlinkMessage(RTM_NEWNEIGH, kAdd, ndmsgBytes(AF_INET, 4, NUD_PERMANENT, NTF_PROXY),
                                                  Attrs().raw(NDA_DST, {10, 0, 0, 9}))));
  Request del = NeighRequests::del(NeighInfo(IpAddress::parse("10.0.0.9"), 4u).setProxy(true));
  EXPECT_TRUE(sameBytes(del.bytes(), test::netlinkMessage(RTM_DELNEIGH, NLM_F_REQUEST, ndmsgBytes(AF_INET, 4, 0, NTF_PROXY),
                                                  Attrs().raw(NDA_DST, {10, 0, 0, 9}))));
}

TEST(NeighGolden, Del) {
  Request r = NeighRequests::del(NeighInfo(IpAddress::parse("10.0.0.2"), 3u));
  EXPECT_TRUE(sameBytes(r.bytes(), test::netlinkMessage(RTM_DELNEIGH, NLM_F_REQUEST, ndmsgBytes(AF_INET, 3, 0, 0),
                                                Attrs().raw(NDA_DST, {10, 0, 0, 2}))));
}

TEST(NeighGolden, DumpAndGetRequestsAreStrictCheckingClean) {
  // Dump: only family and NTF_PROXY in the header; filters as NDA_IFINDEX / NDA_MASTER.
  core::MessageWriter dump(RTM_GETNEIGH, 0);
  rtnl::encodeNeighDump(dump, IpAddress::Family::v6, 5, 9, false);
  EXPECT_TRUE(sameBytes(dump.bytes(), test::netlinkMessage(RTM_GETNEIGH, NLM_F_REQUEST, ndmsgBytes(AF_INET6, 0, 0, 0),
                                                   Attrs().u32(NDA_IFINDEX, 5).u32(NDA_MASTER, 9))));
  core::MessageWriter proxy(RTM_GETNEIGH, 0);
  rtnl::encodeNeighDump(proxy, std::nullopt, 0, 0, true);
  EXPECT_TRUE(sameBytes(proxy.bytes(), test::netlinkMessage(RTM_GETNEIGH, NLM_F_REQUEST, ndmsgBytes(AF_UNSPEC, 0, 0, NTF_PROXY), Attrs())));
  // Get: ifindex in the header, NDA_DST only.
  core::MessageWriter get(RTM_GETNEIGH, 0);
  rtnl::encodeNeighGet(get, IpAddress::parse("10.0.0.2"), 3, false);
  EXPECT_TRUE(sameBytes(get.bytes(), test::netlinkMessage(RTM_GETNEIGH, NLM_F_REQUEST, ndmsgBytes(AF_INET, 3, 0, 0),
                                                  Attrs().raw(NDA_DST, {10, 0, 0, 2}))));
}

TEST(NeighGolden, DecodeKernelReplyThenEmitTheSameRequest) {
  // What the kernel sends for `ip neigh add 10.0.0.3 lladdr 02:00:00:00:00:03 dev <3> nud stale router`.
  Bytes cacheinfo;
  for (uint32_t v : {100u, 200u, 300u, 1u}) test::appendLe32(cacheinfo, v);
  Bytes reply = test::netlinkMessage(RTM_NEWNEIGH, 0, ndmsgBytes(AF_INET, 3, NUD_STALE, NTF_ROUTER, 1),
                             Attrs()
                                 .raw(NDA_DST, {10, 0, 0, 3})
                                 .raw(NDA_LLADDR, {2, 0, 0, 0, 0, 3})
                                 .raw(NDA_CACHEINFO, cacheinfo)
                                 .u32(NDA_PROBES, 2)
                                 .u32(NDA_FLAGS_EXT, 0));  // not decoded: kept raw
  AlignedMessage m(reply);
  NeighInfo n = decodeNeigh(m);
  EXPECT_EQ(n.dst, IpAddress::parse("10.0.0.3"));
  EXPECT_EQ(n.devIndex(), 3u);
  EXPECT_EQ(n.lladdr, MacAddress::parse("02:00:00:00:00:03"));
  EXPECT_EQ(n.state, NeighState::Stale);
  EXPECT_TRUE(n.isRouter());
  EXPECT_FALSE(n.isProxy());
  EXPECT_EQ(n.confirmedAgo, 100u);
  EXPECT_EQ(n.usedAgo, 200u);
  EXPECT_EQ(n.updatedAgo, 300u);
  EXPECT_EQ(n.refcnt, 1u);
  EXPECT_EQ(n.probes, 2u);
  ASSERT_EQ(n.unknown.count(), 1u);
  EXPECT_EQ(n.unknown.list()[0].type, NDA_FLAGS_EXT);

  // Emit: the decoded entry, replaced, gives the request iproute2 would send.
  NeighInfo again;
  again.dst = n.dst;
  again.dev = n.dev;
  again.lladdr = n.lladdr;
  again.state = n.state;
  again.router = n.router;
  Request r = NeighRequests::replace(again);
  EXPECT_TRUE(sameBytes(r.bytes(), test::netlinkMessage(RTM_NEWNEIGH, kReplace, ndmsgBytes(AF_INET, 3, NUD_STALE, NTF_ROUTER),
                                                Attrs().raw(NDA_DST, {10, 0, 0, 3}).raw(NDA_LLADDR, {2, 0, 0, 0, 0, 3}))));
}

TEST(NeighGolden, DecodeProxyEntryHasNoState) {
  Bytes reply = test::netlinkMessage(RTM_NEWNEIGH, 0, ndmsgBytes(AF_INET6, 4, 0, NTF_PROXY),
                             Attrs().raw(NDA_DST, {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9}));
  AlignedMessage m(reply);
  NeighInfo n = decodeNeigh(m);
  EXPECT_TRUE(n.isProxy());
  EXPECT_FALSE(n.state);
  EXPECT_EQ(n.dst->toString(), "2001:db8::9");
}

TEST(NeighGolden, DecodeRejectsMalformedReplies) {
  Bytes shortDst = test::netlinkMessage(RTM_NEWNEIGH, 0, ndmsgBytes(AF_INET, 3, NUD_STALE, 0), Attrs().raw(NDA_DST, {10, 0, 0}));
  AlignedMessage m(shortDst);
  try {
    decodeNeigh(m);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::malformed_reply);
  }
}

TEST(NeighGolden, BadInputIsRefusedBeforeEncoding) {
  auto expectInvalid = [](const NeighInfo& n, const std::string& words) {
    try {
      NeighRequests::add(n);
      ADD_FAILURE() << "accepted: " << words;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), std::errc::invalid_argument);
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  expectInvalid(NeighInfo().setDev(3u), "destination");
  expectInvalid(NeighInfo().setDst(IpAddress::parse("10.0.0.1")), "device");
  expectInvalid(NeighInfo(IpAddress::parse("10.0.0.1"), "v0"), "resolved");
  expectInvalid(NeighInfo(IpAddress::parse("10.0.0.1"), 0u), "ifindex 0");
  expectInvalid(NeighInfo(IpAddress::parse("10.0.0.1"), 3u).setProxy(true).setState(NeighState::Stale), "proxy");
  expectInvalid(NeighInfo(IpAddress::parse("10.0.0.1"), 3u)
                    .setState(static_cast<NeighState>(NUD_STALE | NUD_PERMANENT)),
                "one state");
  EXPECT_THROW(NeighRequests::del(NeighInfo(IpAddress::parse("10.0.0.1"), 3u).setLladdr(MacAddress::parse("02:00:00:00:00:01"))),
               Error);
}

TEST(NeighGolden, StateNames) {
  EXPECT_EQ(neighStateName(NeighState::Permanent), "PERMANENT");
  EXPECT_EQ(neighStateName(NeighState::None), "NONE");
  EXPECT_EQ(neighStateName(static_cast<NeighState>(NUD_STALE | NUD_DELAY)), "STALE,DELAY");
  EXPECT_EQ(parseNeighState("noarp"), NeighState::Noarp);
  EXPECT_EQ(parseNeighState("REACHABLE"), NeighState::Reachable);
  EXPECT_THROW(parseNeighState("up"), Error);
}

}  // namespace
}  // namespace fastlink
