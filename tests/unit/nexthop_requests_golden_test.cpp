// Golden bytes for nexthop requests and for decoding the kernel's nexthop messages.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>

#include "core/message.hpp"
#include "fastlink/nexthop.hpp"
#include "rtnl/nexthop_codec.hpp"
#include "unit/route_golden.hpp"

namespace fastlink {
namespace {

using test::AlignedMessage;
using test::Attrs;
using test::Bytes;
using test::familyMessage;
using test::Nhmsg;
using test::sameBytes;
using test::v4;

constexpr uint16_t kAdd = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL;

/// nexthop_grp: id u32, weight-1 u8, resvd1 u8, resvd2 u16.
Bytes group(std::initializer_list<std::pair<uint32_t, uint8_t>> members) {
  Bytes b;
  for (auto [id, w] : members) {
    test::appendLe32(b, id);
    b.push_back(w);
    b.push_back(0);
    test::appendLe16(b, 0);
  }
  return b;
}

TEST(NexthopRequestsGolden, SingleWithGatewayAndDev) {
  // ip nexthop add id 1 via 10.0.0.2 dev <3> onlink
  Request r = NexthopRequests::add(NexthopInfo(1).setGateway(IpAddress::parse("10.0.0.2")).setDev(3u).setOnlink());
  Nhmsg h{.family = AF_INET, .flags = RTNH_F_ONLINK};
  Attrs a = Attrs().u32(NHA_ID, 1).u32(NHA_OIF, 3).raw(NHA_GATEWAY, v4(10, 0, 0, 2));
  EXPECT_TRUE(sameBytes(r.bytes(), familyMessage(RTM_NEWNEXTHOP, kAdd, h, a)));
  EXPECT_EQ(r.operation(), "nexthop add id 1 via 10.0.0.2 dev 3");
}

TEST(NexthopRequestsGolden, GroupBlackholeReplaceDel) {
  // ip nexthop add id 10 group 1/2,3
  Request g = NexthopRequests::add(NexthopInfo(10).setGroup({{1, 1}, {2, 3}}));
  EXPECT_TRUE(sameBytes(g.bytes(), familyMessage(RTM_NEWNEXTHOP, kAdd, Nhmsg{.family = AF_UNSPEC},
                                                 Attrs().u32(NHA_ID, 10).raw(NHA_GROUP, group({{1, 0}, {2, 2}})))));
  // ip -6 nexthop replace id 3 blackhole proto static
  Request b = NexthopRequests::replace(
      NexthopInfo(3).setBlackhole().setFamily(IpAddress::Family::v6).setProtocol(RouteProtocol::Static));
  EXPECT_TRUE(sameBytes(b.bytes(), familyMessage(RTM_NEWNEXTHOP, NLM_F_REQUEST | NLM_F_CREATE | NLM_F_REPLACE,
                                                 Nhmsg{.family = AF_INET6, .protocol = RTPROT_STATIC},
                                                 Attrs().u32(NHA_ID, 3).flag(NHA_BLACKHOLE))));
  // ip nexthop del id 10
  Request d = NexthopRequests::del(10);
  EXPECT_TRUE(sameBytes(d.bytes(), familyMessage(RTM_DELNEXTHOP, NLM_F_REQUEST, Nhmsg{}, Attrs().u32(NHA_ID, 10))));
}

TEST(NexthopRequestsGolden, DumpAndGet) {
  core::MessageWriter w(RTM_GETNEXTHOP, 0);
  rtnl::encodeNexthopDump(w, NexthopFilter().setGroupsOnly(), 5);
  EXPECT_TRUE(sameBytes(w.bytes(), familyMessage(RTM_GETNEXTHOP, NLM_F_REQUEST, Nhmsg{}, Attrs().u32(NHA_OIF, 5).flag(NHA_GROUPS))));
  core::MessageWriter g(RTM_GETNEXTHOP, 0);
  rtnl::encodeNexthopGet(g, 42);
  EXPECT_TRUE(sameBytes(g.bytes(), familyMessage(RTM_GETNEXTHOP, NLM_F_REQUEST, Nhmsg{}, Attrs().u32(NHA_ID, 42))));
}

TEST(NexthopRequestsGolden, BadInput) {
  auto reason = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), std::errc::invalid_argument);
      return e.reason();
    }
    return std::string("no error");
  };
  EXPECT_EQ(reason([] { NexthopRequests::add(NexthopInfo(1)); }), "a nexthop needs via, dev, blackhole or group");
  EXPECT_EQ(reason([] { NexthopRequests::add(NexthopInfo(1).setGroup({{2, 0}})); }),
            "group member 2: weight 0 is out of range (1-256)");
  EXPECT_EQ(reason([] { NexthopRequests::add(NexthopInfo(1).setGroup({{2, 1}}).setDev(3u)); }),
            "a group nexthop cannot also have via, dev, blackhole or onlink");
  EXPECT_EQ(reason([] { NexthopRequests::add(NexthopInfo(1).setBlackhole().setDev(3u)); }),
            "a blackhole nexthop cannot have via, dev or fdb");
  EXPECT_EQ(reason([] { NexthopRequests::replace(NexthopInfo().setDev(3u)); }), "replace needs the id of the nexthop");
  EXPECT_EQ(reason([] { NexthopRequests::del(0); }), "nexthop id 0 is not valid");
}

TEST(NexthopDecodeGolden, KernelGroupAndSingle) {
  // A group with weights 1 and 3, as the kernel reports it (plus NHA_GROUP_TYPE, kept raw).
  Attrs ga = Attrs().u32(NHA_ID, 10).raw(NHA_GROUP, group({{1, 0}, {2, 2}})).u16(NHA_GROUP_TYPE, 0);
  AlignedMessage gm(familyMessage(RTM_NEWNEXTHOP, NLM_F_MULTI, Nhmsg{.scope = RT_SCOPE_UNIVERSE}, ga));
  NexthopInfo g = rtnl::decodeNexthop(gm.as<nlmsghdr>());
  EXPECT_EQ(g.id, 10u);
  EXPECT_EQ(g.group, (std::vector<NexthopGroupMember>{{1, 1}, {2, 3}}));
  EXPECT_EQ(g.unknown.count(), 1u);
  // Emit it back: same group bytes.
  Request back = NexthopRequests::add(NexthopInfo(*g.id).setGroup(g.group));
  EXPECT_TRUE(sameBytes(back.bytes(), familyMessage(RTM_NEWNEXTHOP, kAdd, Nhmsg{},
                                                    Attrs().u32(NHA_ID, 10).raw(NHA_GROUP, group({{1, 0}, {2, 2}})))));
  Attrs sa = Attrs().u32(NHA_ID, 1).u32(NHA_OIF, 3).raw(NHA_GATEWAY, v4(10, 0, 0, 2));
  AlignedMessage sm(familyMessage(RTM_NEWNEXTHOP, 0, Nhmsg{.family = AF_INET, .scope = RT_SCOPE_LINK, .flags = RTNH_F_ONLINK}, sa));
  NexthopInfo s = rtnl::decodeNexthop(sm.as<nlmsghdr>());
  EXPECT_EQ(s.gateway, IpAddress::parse("10.0.0.2"));
  EXPECT_EQ(s.devIndex(), 3u);
  EXPECT_TRUE(s.onlink);
  EXPECT_EQ(s.scope, Scope::Link);
  // A short NHA_GROUP is malformed.
  AlignedMessage bad(familyMessage(RTM_NEWNEXTHOP, 0, Nhmsg{}, Attrs().raw(NHA_GROUP, {1, 2, 3})));
  EXPECT_THROW(rtnl::decodeNexthop(bad.as<nlmsghdr>()), Error);
}

}  // namespace
}  // namespace fastlink
