// Golden bytes for route requests (RouteRequests, dump and get requests) and for decoding the
// kernel's route messages: parse -> compare -> emit -> compare.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "core/message.hpp"
#include "fastlink/route.hpp"
#include "rtnl/route_codec.hpp"
#include "unit/route_golden.hpp"
#include "support/view_agreement.hpp"

namespace fastlink {
namespace {

using test::AlignedMessage;
using test::Attrs;
using test::Bytes;
using test::concat;
using test::familyMessage;
using test::Rtmsg;
using test::rtnexthop;
using test::sameBytes;
using test::v4;

constexpr uint16_t kAdd = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL;
constexpr uint16_t kReplace = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_REPLACE;
constexpr uint16_t kAppend = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_APPEND;
constexpr uint16_t kChange = NLM_F_REQUEST | NLM_F_REPLACE;  // ip route change: never creates

IpAddress ip(const char* s) { return IpAddress::parse(s); }
Prefix pfx(const char* s) { return Prefix::parse(s); }

Bytes ipv6(const char* s) {
  IpAddress address = ip(s);  // bytes() is a view: keep the address alive while it is read
  auto b = address.bytes();
  return Bytes(b.begin(), b.end());
}

/// decodeRoute, with the RouteView of the same message checked against it field by field.
void decodeRoute(const AlignedMessage& m, RouteInfo& r) {
  rtnl::decodeRoute(m.as<nlmsghdr>(), r);
  RouteView view(std::span(m.as<uint8_t>(), m.as<nlmsghdr>()->nlmsg_len));
  EXPECT_EQ(test::routeViewDisagreement(view, r), "");
}

TEST(RouteRequestsGolden, AddWithGatewayDevTableMetricProtocol) {
  // ip route add 10.1.0.0/16 via 10.0.0.2 dev <3> table 100 metric 10 proto static
  Request r = RouteRequests::add(RouteInfo(pfx("10.1.0.0/16"))
                                     .setGateway(ip("10.0.0.2"))
                                     .setDev(3u)
                                     .setTable(100)
                                     .setMetric(10)
                                     .setProtocol(RouteProtocol::Static));
  Rtmsg h{.family = AF_INET, .dstLen = 16, .table = 100, .protocol = RTPROT_STATIC, .scope = RT_SCOPE_UNIVERSE,
          .type = RTN_UNICAST};
  Attrs a = Attrs()
                .raw(RTA_DST, v4(10, 1, 0, 0))
                .u32(RTA_PRIORITY, 10)
                .raw(RTA_GATEWAY, v4(10, 0, 0, 2))
                .u32(RTA_OIF, 3);
  EXPECT_TRUE(sameBytes(r.bytes(), familyMessage(RTM_NEWROUTE, kAdd, h, a)));
  EXPECT_EQ(r.operation(), "route add 10.1.0.0/16 via 10.0.0.2 dev 3 table 100 metric 10");
}

TEST(RouteRequestsGolden, DeviceRouteGetsLinkScopeAndBootProtocol) {
  // ip route add 10.8.0.0/16 dev <2>  (no gateway: scope link, like iproute2; table main)
  Request r = RouteRequests::add(RouteInfo(pfx("10.8.0.0/16")).setDev(2u));
  Rtmsg h{.family = AF_INET, .dstLen = 16, .table = RT_TABLE_MAIN, .protocol = RTPROT_BOOT, .scope = RT_SCOPE_LINK,
          .type = RTN_UNICAST};
  EXPECT_TRUE(sameBytes(r.bytes(), familyMessage(RTM_NEWROUTE, kAdd, h, Attrs().raw(RTA_DST, v4(10, 8, 0, 0)).u32(RTA_OIF, 2))));
}

TEST(RouteRequestsGolden, LargeTableIdGoesInRtaTable) {
  // ip route replace default via 10.0.0.2 table 1000: rtm_table = RT_TABLE_UNSPEC, RTA_TABLE 1000,
  // and no RTA_DST for a /0.
  Request r = RouteRequests::replace(RouteInfo(Prefix::any(IpAddress::Family::v4)).setGateway(ip("10.0.0.2")).setTable(1000));
  Rtmsg h{.family = AF_INET, .dstLen = 0, .table = RT_TABLE_UNSPEC, .protocol = RTPROT_BOOT, .type = RTN_UNICAST};
  EXPECT_TRUE(sameBytes(r.bytes(), familyMessage(RTM_NEWROUTE, kReplace, h, Attrs().u32(RTA_TABLE, 1000).raw(RTA_GATEWAY, v4(10, 0, 0, 2)))));
}

TEST(RouteRequestsGolden, ChangeReplacesWithoutCreate) {
  // ip route change 10.9.0.0/16 via 10.0.0.2
  Request r = RouteRequests::change(RouteInfo(pfx("10.9.0.0/16")).setGateway(ip("10.0.0.2")));
  Rtmsg h{.family = AF_INET, .dstLen = 16, .table = RT_TABLE_MAIN, .protocol = RTPROT_BOOT, .type = RTN_UNICAST};
  EXPECT_TRUE(sameBytes(r.bytes(), familyMessage(RTM_NEWROUTE, kChange, h,
                                                 Attrs().raw(RTA_DST, v4(10, 9, 0, 0)).raw(RTA_GATEWAY, v4(10, 0, 0, 2)))));
  EXPECT_FALSE(r.hasExactUndo());
}

TEST(RouteRequestsGolden, AppendIpv6) {
  // ip -6 route append 2001:db8:1::/48 via 2001:db8::2 dev <4>
  Request r = RouteRequests::append(RouteInfo(pfx("2001:db8:1::/48")).setGateway(ip("2001:db8::2")).setDev(4u));
  Rtmsg h{.family = AF_INET6, .dstLen = 48, .table = RT_TABLE_MAIN, .protocol = RTPROT_BOOT, .type = RTN_UNICAST};
  Attrs a = Attrs().raw(RTA_DST, ipv6("2001:db8:1::")).raw(RTA_GATEWAY, ipv6("2001:db8::2")).u32(RTA_OIF, 4);
  EXPECT_TRUE(sameBytes(r.bytes(), familyMessage(RTM_NEWROUTE, kAppend, h, a)));
}

TEST(RouteRequestsGolden, Ipv6RouterPreference) {
  // ip -6 route add 2001:db8:9::/48 dev <4> pref high: RTA_PREF, one byte, ICMPV6_ROUTER_PREF_HIGH = 1
  Request r = RouteRequests::add(RouteInfo(pfx("2001:db8:9::/48")).setDev(4u).setPref(1));
  Rtmsg h{.family = AF_INET6, .dstLen = 48, .table = RT_TABLE_MAIN, .protocol = RTPROT_BOOT, .scope = RT_SCOPE_LINK,
          .type = RTN_UNICAST};
  Attrs a = Attrs().raw(RTA_DST, ipv6("2001:db8:9::")).u32(RTA_OIF, 4).u8(RTA_PREF, 1);
  EXPECT_TRUE(sameBytes(r.bytes(), familyMessage(RTM_NEWROUTE, kAdd, h, a)));
  // low is 3 (0b11), not 2: 2 is reserved.
  Request low = RouteRequests::add(RouteInfo(pfx("2001:db8:9::/48")).setDev(4u).setPref(3));
  EXPECT_TRUE(sameBytes(low.bytes(), familyMessage(RTM_NEWROUTE, kAdd, h, Attrs().raw(RTA_DST, ipv6("2001:db8:9::")).u32(RTA_OIF, 4).u8(RTA_PREF, 3))));
}

TEST(RouteRequestsGolden, MultipathWithWeightsAndOnlink) {
  // ip route add 10.2.0.0/16 nexthop via 10.0.0.2 dev <3> weight 1 nexthop via 10.0.1.2 dev <4> weight 2 onlink
  Request r = RouteRequests::add(RouteInfo(pfx("10.2.0.0/16"))
                                     .addPath(RoutePath().setGateway(ip("10.0.0.2")).setDev(3u).setWeight(1))
                                     .addPath(RoutePath().setGateway(ip("10.0.1.2")).setDev(4u).setWeight(2).setOnlink()));
  Rtmsg h{.family = AF_INET, .dstLen = 16, .table = RT_TABLE_MAIN, .protocol = RTPROT_BOOT, .scope = RT_SCOPE_UNIVERSE,
          .type = RTN_UNICAST};
  Bytes mp = concat({rtnexthop(0, 0, 3, Attrs().raw(RTA_GATEWAY, v4(10, 0, 0, 2))),
                     rtnexthop(RTNH_F_ONLINK, 1, 4, Attrs().raw(RTA_GATEWAY, v4(10, 0, 1, 2)))});
  Attrs a = Attrs().raw(RTA_DST, v4(10, 2, 0, 0)).raw(RTA_MULTIPATH, mp);
  EXPECT_TRUE(sameBytes(r.bytes(), familyMessage(RTM_NEWROUTE, kAdd, h, a)));
}

TEST(RouteRequestsGolden, MetricsAndOnlink) {
  // ip route add 10.3.0.0/16 via 192.168.9.1 dev <3> onlink mtu 1400 advmss 1360
  Request r = RouteRequests::add(RouteInfo(pfx("10.3.0.0/16"))
                                     .setGateway(ip("192.168.9.1"))
                                     .setDev(3u)
                                     .setOnlink()
                                     .setMetrics(RouteMetrics().setMtu(1400).setAdvmss(1360)));
  Rtmsg h{.family = AF_INET, .dstLen = 16, .table = RT_TABLE_MAIN, .protocol = RTPROT_BOOT, .type = RTN_UNICAST,
          .flags = RTNH_F_ONLINK};
  Attrs metrics = Attrs().u32(RTAX_MTU, 1400).u32(RTAX_ADVMSS, 1360);
  Attrs a = Attrs()
                .raw(RTA_DST, v4(10, 3, 0, 0))
                .raw(RTA_GATEWAY, v4(192, 168, 9, 1))
                .u32(RTA_OIF, 3)
                .raw(RTA_METRICS, metrics.bytes());  // no NLA_F_NESTED, like iproute2
  EXPECT_TRUE(sameBytes(r.bytes(), familyMessage(RTM_NEWROUTE, kAdd, h, a)));
}

TEST(RouteRequestsGolden, BlackholeAndNhid) {
  // ip route add blackhole 10.3.0.0/16 table 100
  Request bh = RouteRequests::add(RouteInfo(pfx("10.3.0.0/16")).setType(RouteType::Blackhole).setTable(100));
  Rtmsg h{.family = AF_INET, .dstLen = 16, .table = 100, .protocol = RTPROT_BOOT, .type = RTN_BLACKHOLE};
  EXPECT_TRUE(sameBytes(bh.bytes(), familyMessage(RTM_NEWROUTE, kAdd, h, Attrs().raw(RTA_DST, v4(10, 3, 0, 0)))));
  EXPECT_EQ(bh.operation(), "route add blackhole 10.3.0.0/16 table 100");
  // ip route add 10.5.0.0/16 nhid 10
  Request nh = RouteRequests::add(RouteInfo(pfx("10.5.0.0/16")).setNhid(10));
  Rtmsg h2{.family = AF_INET, .dstLen = 16, .table = RT_TABLE_MAIN, .protocol = RTPROT_BOOT, .type = RTN_UNICAST};
  EXPECT_TRUE(sameBytes(nh.bytes(), familyMessage(RTM_NEWROUTE, kAdd, h2, Attrs().raw(RTA_DST, v4(10, 5, 0, 0)).u32(RTA_NH_ID, 10))));
}

TEST(RouteRequestsGolden, DelUsesIproute2Defaults) {
  // ip route del 10.1.0.0/16 table 100 metric 10: protocol unspec, scope nowhere, type unspec.
  Request r = RouteRequests::del(RouteInfo(pfx("10.1.0.0/16")).setTable(100).setMetric(10));
  Rtmsg h{.family = AF_INET, .dstLen = 16, .table = 100, .scope = RT_SCOPE_NOWHERE};
  EXPECT_TRUE(sameBytes(r.bytes(), familyMessage(RTM_DELROUTE, NLM_F_REQUEST, h,
                                                 Attrs().raw(RTA_DST, v4(10, 1, 0, 0)).u32(RTA_PRIORITY, 10))));
}

TEST(RouteRequestsGolden, BadInputIsRejectedBeforeEncoding) {
  auto reason = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), std::errc::invalid_argument);
      return e.reason();
    }
    return std::string("no error");
  };
  EXPECT_EQ(reason([] { RouteRequests::add(RouteInfo(pfx("10.0.0.1/24"))); }),
            "invalid prefix 10.0.0.1/24: host bits are set (the network is 10.0.0.0/24)");
  EXPECT_EQ(reason([] { RouteRequests::add(RouteInfo(pfx("10.0.0.0/24")).setDev("v0")); }),
            "dev \"v0\" must be resolved to an ifindex first (LinkApi does this)");
  EXPECT_EQ(reason([] { RouteRequests::add(RouteInfo(pfx("10.0.0.0/24")).setGateway(ip("::1"))); }),
            "gateway ::1 is not an IPv4 address (the route is 10.0.0.0/24)");
  EXPECT_EQ(reason([] { RouteRequests::add(RouteInfo(pfx("10.0.0.0/24")).setNhid(1).setDev(2u)); }),
            "a route using a nexthop object (nhid) cannot also have via, dev or nexthop");
  EXPECT_EQ(reason([] {
              RouteRequests::add(RouteInfo(pfx("10.0.0.0/24")).setDev(2u).addPath(RoutePath().setDev(3u)));
            }),
            "a multipath route takes via/dev inside each nexthop, not on the route");
  EXPECT_EQ(reason([] { RouteRequests::add(RouteInfo(pfx("10.0.0.0/24")).addPath(RoutePath())); }),
            "nexthop #1 needs a gateway (via) or a device (dev)");
  EXPECT_EQ(reason([] { RouteRequests::add(RouteInfo(pfx("10.0.0.0/24")).addPath(RoutePath().setDev(1u).setWeight(0))); }),
            "nexthop #1: weight 0 is out of range (1-256)");
  EXPECT_EQ(reason([] { RouteRequests::add(RouteInfo(pfx("2001:db8::/32")).setDev(1u).setPref(2)); }),
            "router preference 2 is not 3 (low), 0 (medium) or 1 (high)");
  EXPECT_EQ(reason([] { Prefix::parse("10.0.0.1/33"); }), "invalid prefix \"10.0.0.1/33\": length 33 is longer than 32");
  EXPECT_EQ(reason([] { Prefix::parse("2001:db8::/129"); }),
            "invalid prefix \"2001:db8::/129\": length 129 is longer than 128");
  EXPECT_EQ(reason([] { Prefix::parse("10.0.0.0/x"); }), "invalid prefix length in \"10.0.0.0/x\"");
  // IPv6 prefixes with host bits are masked by the kernel, as with iproute2: accepted.
  EXPECT_NO_THROW(RouteRequests::add(RouteInfo(pfx("2001:db8::1/64")).setDev(1u)));
}

TEST(RouteRequestsGolden, DumpRequestCarriesKernelFilters) {
  // ip route show table 1000 proto bgp type unicast dev <7>
  core::MessageWriter w(RTM_GETROUTE, 0);
  rtnl::encodeRouteDump(w, RouteFilter().setTable(1000).setProtocol(RouteProtocol::Bgp).setType(RouteType::Unicast), 7);
  Rtmsg h{.family = AF_UNSPEC, .table = RT_TABLE_UNSPEC, .protocol = RTPROT_BGP, .type = RTN_UNICAST};
  EXPECT_TRUE(sameBytes(w.bytes(), familyMessage(RTM_GETROUTE, NLM_F_REQUEST, h, Attrs().u32(RTA_TABLE, 1000).u32(RTA_OIF, 7))));
  core::MessageWriter w2(RTM_GETROUTE, 0);
  rtnl::encodeRouteDump(w2, RouteFilter().setFamily(IpAddress::Family::v6).setTable(kTableMain), 0);
  Rtmsg h2{.family = AF_INET6, .table = RT_TABLE_MAIN};
  EXPECT_TRUE(sameBytes(w2.bytes(), familyMessage(RTM_GETROUTE, NLM_F_REQUEST, h2, Attrs().u32(RTA_TABLE, 254))));
}

TEST(RouteRequestsGolden, GetRequest) {
  // ip route get 10.9.1.1 from 10.0.0.1 oif <3> mark 7 fibmatch
  core::MessageWriter w(RTM_GETROUTE, 0);
  rtnl::encodeRouteGet(w, RouteQuery(ip("10.9.1.1")).setFrom(ip("10.0.0.1")).setMark(7).setFibMatch(), 0, 3);
  Rtmsg h{.family = AF_INET, .dstLen = 32, .srcLen = 32, .flags = RTM_F_LOOKUP_TABLE | RTM_F_FIB_MATCH};
  Attrs a = Attrs().raw(RTA_DST, v4(10, 9, 1, 1)).raw(RTA_SRC, v4(10, 0, 0, 1)).u32(RTA_OIF, 3).u32(RTA_MARK, 7);
  EXPECT_TRUE(sameBytes(w.bytes(), familyMessage(RTM_GETROUTE, NLM_F_REQUEST, h, a)));
}

// A route as the kernel reports it: table > 255 in RTA_TABLE, multipath, metrics (nest without
// NLA_F_NESTED), an attribute fastlink does not decode (RTA_UID is never in dumps; use 200).
TEST(RouteDecodeGolden, KernelMessageDecodesAndReencodes) {
  Rtmsg h{.family = AF_INET, .dstLen = 16, .table = RT_TABLE_UNSPEC, .protocol = RTPROT_STATIC,
          .scope = RT_SCOPE_UNIVERSE, .type = RTN_UNICAST};
  Bytes mp = concat({rtnexthop(0, 0, 3, Attrs().raw(RTA_GATEWAY, v4(10, 0, 0, 2))),
                     rtnexthop(RTNH_F_LINKDOWN, 4, 4, Attrs().raw(RTA_GATEWAY, v4(10, 0, 1, 2)))});
  Attrs a = Attrs()
                .u32(RTA_TABLE, 1000)
                .raw(RTA_DST, v4(10, 2, 0, 0))
                .u32(RTA_PRIORITY, 20)
                .raw(RTA_METRICS, Attrs().u32(RTAX_MTU, 1400).bytes())
                .raw(RTA_MULTIPATH, mp)
                .u32(200, 0xdeadbeef);
  Bytes kernel = familyMessage(RTM_NEWROUTE, NLM_F_MULTI, h, a, 77, 1234);
  AlignedMessage m(kernel);
  ASSERT_TRUE(rtnl::isIpRoute(m.as<nlmsghdr>()));
  RouteInfo r;
  decodeRoute(m, r);
  EXPECT_EQ(r.dst, pfx("10.2.0.0/16"));
  EXPECT_EQ(r.table, 1000u);
  EXPECT_EQ(r.protocol, RouteProtocol::Static);
  EXPECT_EQ(r.metric, 20u);
  ASSERT_TRUE(r.metrics);
  EXPECT_EQ(r.metrics->mtu, 1400u);
  ASSERT_EQ(r.paths.size(), 2u);
  EXPECT_EQ(r.paths[0].gateway, ip("10.0.0.2"));
  EXPECT_EQ(r.paths[0].weight, 1);
  EXPECT_EQ(r.paths[0].dev, Ifref(3u));
  EXPECT_EQ(r.paths[1].weight, 5);
  EXPECT_TRUE(r.paths[1].isLinkdown());
  ASSERT_EQ(r.unknown.count(), 1u);
  EXPECT_EQ(r.unknown.list()[0].type, 200);

  // Emit it back as an add (the reported-only fields are not sent; flags were LINKDOWN only).
  r.paths[1].flags = 0;
  Request back = RouteRequests::add(r);
  Rtmsg hb{.family = AF_INET, .dstLen = 16, .table = RT_TABLE_UNSPEC, .protocol = RTPROT_STATIC,
           .scope = RT_SCOPE_UNIVERSE, .type = RTN_UNICAST};
  Bytes mpBack = concat({rtnexthop(0, 0, 3, Attrs().raw(RTA_GATEWAY, v4(10, 0, 0, 2))),
                         rtnexthop(0, 4, 4, Attrs().raw(RTA_GATEWAY, v4(10, 0, 1, 2)))});
  Attrs ab = Attrs()
                 .raw(RTA_DST, v4(10, 2, 0, 0))
                 .u32(RTA_TABLE, 1000)
                 .u32(RTA_PRIORITY, 20)
                 .raw(RTA_METRICS, Attrs().u32(RTAX_MTU, 1400).bytes())
                 .raw(RTA_MULTIPATH, mpBack);
  EXPECT_TRUE(sameBytes(back.bytes(), familyMessage(RTM_NEWROUTE, kAdd, hb, ab)));
}

TEST(RouteDecodeGolden, DefaultRouteWithoutDstAndOtherFamiliesSkipped) {
  Rtmsg h{.family = AF_INET6, .dstLen = 0, .table = RT_TABLE_MAIN, .protocol = RTPROT_RA, .type = RTN_UNICAST};
  Bytes kernel = familyMessage(RTM_NEWROUTE, NLM_F_MULTI, h, Attrs().raw(RTA_GATEWAY, ipv6("fe80::1")).u32(RTA_OIF, 2).u8(RTA_PREF, 0));
  AlignedMessage m(kernel);
  RouteInfo r;
  decodeRoute(m, r);
  EXPECT_EQ(r.dst, Prefix::any(IpAddress::Family::v6));
  EXPECT_EQ(r.gateway, ip("fe80::1"));
  EXPECT_EQ(r.pref, 0);
  Rtmsg mr{.family = 128 /* RTNL_FAMILY_IPMR */, .table = RT_TABLE_DEFAULT, .type = RTN_MULTICAST};
  AlignedMessage m2(familyMessage(RTM_NEWROUTE, NLM_F_MULTI, mr));
  EXPECT_FALSE(rtnl::isIpRoute(m2.as<nlmsghdr>()));
}

TEST(RouteDecodeGolden, GetReplyCarriesUidSourceAndCacheFlags) {
  // ip route get 10.9.1.1 from 10.0.0.1: RTM_F_CLONED with RTCF_LOCAL in the high half, RTA_SRC
  // with rtm_src_len 32, RTA_UID.
  Rtmsg h{.family = AF_INET, .dstLen = 32, .srcLen = 32, .table = RT_TABLE_MAIN, .type = RTN_UNICAST,
          .flags = RTM_F_CLONED | 0x80000000u};
  Attrs a = Attrs()
                .u32(RTA_TABLE, RT_TABLE_MAIN)
                .raw(RTA_DST, v4(10, 9, 1, 1))
                .raw(RTA_SRC, v4(10, 0, 0, 1))
                .u32(RTA_OIF, 2)
                .raw(RTA_GATEWAY, v4(10, 0, 0, 2))
                .u32(RTA_UID, 1000);
  AlignedMessage m(familyMessage(RTM_NEWROUTE, 0, h, a));
  RouteInfo r;
  decodeRoute(m, r);
  EXPECT_EQ(r.uid, 1000u);
  EXPECT_EQ(r.src, pfx("10.0.0.1/32"));
  EXPECT_TRUE(r.isCloned());
  EXPECT_EQ(r.flags, RTM_F_CLONED | 0x80000000u);
  EXPECT_TRUE(r.unknown.empty()) << "RTA_UID is decoded, not kept raw";
}

TEST(RouteDecodeGolden, TruncatedAddressIsMalformed) {
  Rtmsg h{.family = AF_INET, .dstLen = 24, .table = RT_TABLE_MAIN, .type = RTN_UNICAST};
  AlignedMessage m(familyMessage(RTM_NEWROUTE, 0, h, Attrs().raw(RTA_DST, {10, 0})));
  RouteInfo r;
  try {
    decodeRoute(m, r);
    FAIL() << "short RTA_DST accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), make_error_code(Errc::malformed_reply));
  }
}

TEST(RouteNamesTest, BuiltinsAndNumbers) {
  RouteNames names(std::vector<std::string>{});
  EXPECT_EQ(names.tableId("main"), 254u);
  EXPECT_EQ(names.tableId("local"), 255u);
  EXPECT_EQ(names.tableId("4000000000"), 4000000000u);
  EXPECT_EQ(names.tableName(253), "default");
  EXPECT_EQ(names.tableName(77), "77");
  EXPECT_EQ(names.protocol("bgp"), RouteProtocol::Bgp);
  EXPECT_EQ(names.protocol("99"), static_cast<RouteProtocol>(99));
  EXPECT_EQ(names.protocolName(RouteProtocol::Kernel), "kernel");
  EXPECT_THROW(names.protocol("256"), Error);
  EXPECT_THROW(names.tableId("blue"), Error);
  EXPECT_EQ(parseRouteType("prohibit"), RouteType::Prohibit);
  EXPECT_EQ(routeTypeName(RouteType::Unreachable), "unreachable");
  EXPECT_EQ(parseScope("link"), Scope::Link);
  EXPECT_EQ(scopeName(Scope::Universe), "global");
  EXPECT_EQ(Prefix::parse("10.0.0.1/24").lastAddress(), ip("10.0.0.255"));
  EXPECT_TRUE(Prefix::parse("10.0.0.0/8").contains(ip("10.200.0.1")));
  EXPECT_EQ(Prefix::parse("2001:db8::1/64").masked().toString(), "2001:db8::/64");
  EXPECT_EQ(Prefix::parse("10.0.0.1").toString(), "10.0.0.1");
}

}  // namespace
}  // namespace fastlink
