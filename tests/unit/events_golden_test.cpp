// Event decoding from notifications laid out by the test's own builder (golden.hpp), and the
// mirror's canonical form (what it strips, what it keys on).
#include <gtest/gtest.h>

#include <fastlink/events.hpp>

#include <optional>
#include <tuple>
#include <vector>

#include "events/canonical.hpp"
#include "golden.hpp"

namespace fastlink::test {
namespace {

// rtnetlink numbers, written out here rather than taken from the kernel headers the library uses.
constexpr uint16_t kNewLink = 16, kNewAddr = 20, kNewRoute = 24, kDelRoute = 25, kNewNeigh = 28, kNewRule = 32,
                   kNewQdisc = 36, kDelTclass = 41, kNewTfilter = 44, kDelTfilter = 45, kNewNexthop = 104;
constexpr uint16_t kCreate = 0x400, kExcl = 0x200, kReplace = 0x100;
constexpr uint8_t kInet = 2, kBridge = 7;


std::optional<Event> decode(const Bytes& message, std::optional<int32_t> nsid = std::nullopt) {
  AlignedMessage m(message);
  return decodeEvent(Notification{{m.data(), message.size()}, nsid});
}

Bytes routeMessage(uint16_t type, uint16_t flags) {
  // rtmsg: family, dst_len, src_len, tos, table, protocol (boot), scope, type (unicast), flags:u32
  Bytes rtm = {kInet, 16, 0, 0, 254, 3, 0, 1, 0, 0, 0, 0};
  Attrs a;
  a.raw(1 /*RTA_DST*/, {10, 10, 0, 0}).raw(5 /*RTA_GATEWAY*/, {10, 9, 0, 2}).u32(4 /*RTA_OIF*/, 3).u32(6 /*RTA_PRIORITY*/, 7)
      .u32(15 /*RTA_TABLE*/, 254);
  return netlinkMessage(type, flags, rtm, a);
}

TEST(EventsGolden, RouteNewCarriesTheKernelsCreateAndReplaceFlags) {
  auto e = decode(routeMessage(kNewRoute, kCreate | kExcl), 4);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, ObjectKind::Route);
  EXPECT_EQ(e->action, EventAction::New);
  EXPECT_TRUE(e->created);
  EXPECT_FALSE(e->replaced);
  EXPECT_EQ(e->nsid, 4);
  ASSERT_TRUE(e->route());
  EXPECT_EQ(e->route()->dst->toString(), "10.10.0.0/16");
  EXPECT_EQ(e->route()->gateway->toString(), "10.9.0.2");
  EXPECT_EQ(e->route()->devIndex(), 3u);
  EXPECT_EQ(e->route()->metric, 7u);
  EXPECT_EQ(e->route()->table, 254u);

  auto replaced = decode(routeMessage(kNewRoute, kReplace));
  ASSERT_TRUE(replaced);
  EXPECT_TRUE(replaced->replaced);
  EXPECT_FALSE(replaced->created);
  auto deleted = decode(routeMessage(kDelRoute, 0));
  ASSERT_TRUE(deleted);
  EXPECT_EQ(deleted->action, EventAction::Deleted);
  EXPECT_EQ(deleted->route()->dst->toString(), "10.10.0.0/16");
}

TEST(EventsGolden, DecodingIntoAReusedEventLeavesNothingOfTheEventBefore) {
  // EventStream decodes a batch into one Event: a route after a route reuses its RouteInfo, so
  // every field the second message lacks must be reset, and the header flags follow each message.
  Bytes rtm = {kInet, 32, 0, 0, 100, 4, 0, 6 /*blackhole*/, 0, 0, 0, 0};
  Bytes bare = netlinkMessage(kDelRoute, 0, rtm, Attrs().raw(1 /*RTA_DST*/, {10, 20, 0, 1}).u32(15 /*RTA_TABLE*/, 100));
  Event e;
  AlignedMessage first(routeMessage(kNewRoute, kCreate));
  ASSERT_TRUE(decodeEvent(Notification{{first.data(), routeMessage(kNewRoute, kCreate).size()}, 7}, e));
  ASSERT_TRUE(e.route());
  EXPECT_EQ(e.route()->gateway->toString(), "10.9.0.2");
  AlignedMessage second(bare);
  ASSERT_TRUE(decodeEvent(Notification{{second.data(), bare.size()}, std::nullopt}, e));
  auto expected = decode(bare);
  ASSERT_TRUE(expected && expected->route());
  EXPECT_EQ(e.action, EventAction::Deleted);
  EXPECT_FALSE(e.created);
  EXPECT_EQ(e.nsid, std::nullopt);
  EXPECT_EQ(e.route()->dst->toStringWithLength(), "10.20.0.1/32");
  EXPECT_FALSE(e.route()->gateway) << "left over from the first route";
  EXPECT_FALSE(e.route()->metric);
  EXPECT_EQ(e.route()->devIndex(), 0u);
  EXPECT_EQ(e.route()->table, 100u);
  EXPECT_EQ(e.route()->type, expected->route()->type);
  // A message that is no event leaves the Event as it was.
  Ifinfo ifi;
  ifi.family = kBridge;
  AlignedMessage port(linkMessage(kNewLink, 0, ifi, Attrs().str(3, "va")));
  EXPECT_FALSE(decodeEvent(Notification{{port.data(), linkMessage(kNewLink, 0, ifi, Attrs().str(3, "va")).size()}, 1}, e));
  EXPECT_EQ(e.kind, ObjectKind::Route);
  EXPECT_EQ(e.route()->dst->toStringWithLength(), "10.20.0.1/32");
}

TEST(EventsGolden, LinkOfFamilyUnspecOnlyBridgePortMessagesAreNotLinks) {
  Ifinfo ifi;
  ifi.index = 3;
  ifi.flags = 0x1003;
  Attrs a;
  a.str(3 /*IFLA_IFNAME*/, "va").u32(4 /*IFLA_MTU*/, 1400);
  auto e = decode(linkMessage(kNewLink, 0, ifi, a));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, ObjectKind::Link);
  EXPECT_EQ(e->link()->name, "va");
  EXPECT_EQ(e->link()->mtu, 1400u);
  EXPECT_EQ(e->link()->index, 3u);
  ifi.family = kBridge;
  EXPECT_FALSE(decode(linkMessage(kNewLink, 0, ifi, a)));
}

TEST(EventsGolden, AddressNeighbourFdbRuleNexthop) {
  // ifaddrmsg: family, prefixlen, flags (permanent), scope, index:u32
  Bytes ifa = {kInet, 24, 0x80, 0, 3, 0, 0, 0};
  auto addr = decode(netlinkMessage(kNewAddr, 0, ifa, Attrs().raw(1 /*IFA_ADDRESS*/, {10, 9, 0, 1}).raw(2 /*IFA_LOCAL*/, {10, 9, 0, 1})));
  ASSERT_TRUE(addr);
  EXPECT_EQ(addr->kind, ObjectKind::Address);
  EXPECT_EQ(addr->address()->address->toStringWithLength(), "10.9.0.1/24");
  EXPECT_EQ(addr->address()->devIndex(), 3u);

  // ndmsg: family, pad, pad, ifindex:s32, state:u16 (permanent), flags:u8, type:u8
  Bytes nd = {kInet, 0, 0, 0, 3, 0, 0, 0, 0x80, 0, 0, 1};
  Attrs na;
  na.raw(1 /*NDA_DST*/, {10, 9, 0, 7}).raw(2 /*NDA_LLADDR*/, {2, 0, 0, 0, 0, 7});
  auto neigh = decode(netlinkMessage(kNewNeigh, 0, nd, na));
  ASSERT_TRUE(neigh);
  EXPECT_EQ(neigh->kind, ObjectKind::Neighbour);
  EXPECT_EQ(neigh->neighbour()->lladdr->toString(), "02:00:00:00:00:07");
  EXPECT_EQ(neigh->neighbour()->state, NeighState::Permanent);
  nd[0] = kBridge;
  auto fdb = decode(netlinkMessage(kNewNeigh, 0, nd, Attrs().raw(2 /*NDA_LLADDR*/, {2, 0, 0, 0, 0, 9})));
  ASSERT_TRUE(fdb);
  EXPECT_EQ(fdb->kind, ObjectKind::Fdb);
  EXPECT_EQ(fdb->fdb()->mac->toString(), "02:00:00:00:00:09");

  // fib_rule_hdr: family, dst_len, src_len, tos, table, res1, res2, action (to table), flags:u32
  Bytes frh = {kInet, 0, 16, 0, 100, 0, 0, 1, 0, 0, 0, 0};
  auto rule = decode(netlinkMessage(kNewRule, kCreate, frh,
                                    Attrs().raw(2 /*FRA_SRC*/, {10, 1, 0, 0}).u32(6 /*FRA_PRIORITY*/, 100).u32(15 /*FRA_TABLE*/, 100)));
  ASSERT_TRUE(rule);
  EXPECT_EQ(rule->kind, ObjectKind::Rule);
  EXPECT_EQ(rule->rule()->priority, 100u);
  EXPECT_EQ(rule->rule()->src->toString(), "10.1.0.0/16");
  EXPECT_EQ(rule->rule()->table, 100u);

  // nhmsg: family, scope, protocol, resvd, flags:u32
  Bytes nhm = {kInet, 0, 3, 0, 0, 0, 0, 0};
  auto nh = decode(netlinkMessage(kNewNexthop, kCreate, nhm,
                                  Attrs().u32(1 /*NHA_ID*/, 5).u32(5 /*NHA_OIF*/, 3).raw(6 /*NHA_GATEWAY*/, {10, 9, 0, 2})));
  ASSERT_TRUE(nh);
  EXPECT_EQ(nh->kind, ObjectKind::Nexthop);
  EXPECT_EQ(nh->nexthop()->id, 5u);
  EXPECT_EQ(nh->nexthop()->gateway->toString(), "10.9.0.2");

}

TEST(EventsGolden, QdiscClassAndTcFilter) {
  // tcmsg: family, pad x3, ifindex:s32 (3), handle:u32 (10:), parent:u32 (1:10), info:u32 (refcnt 1)
  Bytes tcm = {0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0x10, 0, 0x10, 0, 1, 0, 1, 0, 0, 0};
  auto qdisc = decode(netlinkMessage(kNewQdisc, kCreate, tcm, Attrs().str(1 /*TCA_KIND*/, "pfifo").raw(2 /*TCA_OPTIONS*/, {50, 0, 0, 0})));
  ASSERT_TRUE(qdisc);
  EXPECT_EQ(qdisc->kind, ObjectKind::Qdisc);
  EXPECT_EQ(qdisc->action, EventAction::New);
  EXPECT_EQ(objectKindName(qdisc->kind), "qdisc");
  ASSERT_TRUE(qdisc->qdisc());
  EXPECT_EQ(qdisc->qdisc()->kind, "pfifo");
  EXPECT_EQ(qdisc->qdisc()->handle->toString(), "10:");
  EXPECT_EQ(qdisc->qdisc()->parent->toString(), "1:10");
  EXPECT_EQ(qdisc->qdisc()->dev->index(), 3u);
  EXPECT_EQ(std::get<FifoOptions>(qdisc->qdisc()->options).limit, 50u);

  // A deleted class 1:10 of an htb (no options: the kind alone)
  Bytes tcc = {0, 0, 0, 0, 3, 0, 0, 0, 0x10, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0};
  auto tcClass = decode(netlinkMessage(kDelTclass, 0, tcc, Attrs().str(1 /*TCA_KIND*/, "htb")));
  ASSERT_TRUE(tcClass);
  EXPECT_EQ(tcClass->kind, ObjectKind::Class);
  EXPECT_EQ(tcClass->action, EventAction::Deleted);
  ASSERT_TRUE(tcClass->tcClass());
  EXPECT_EQ(tcClass->tcClass()->classid->toString(), "1:10");
  EXPECT_EQ(tcClass->tcClass()->kind, "htb");

  // A filter added (`tc filter add`: the kernel copies the request's CREATE|EXCL), on clsact
  // ingress (parent ffff:fff2), pref 10, protocol ip (0x0800, network order in info's low half).
  Bytes tcf = {0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0xf2, 0xff, 0xff, 0xff, 0x08, 0x00, 10, 0};
  auto filter = decode(netlinkMessage(kNewTfilter, kCreate | kExcl, tcf, Attrs().str(1 /*TCA_KIND*/, "u32").u32(11 /*TCA_CHAIN*/, 0)));
  ASSERT_TRUE(filter);
  EXPECT_EQ(filter->kind, ObjectKind::Filter);
  EXPECT_EQ(objectKindName(filter->kind), "filter");
  EXPECT_EQ(filter->action, EventAction::New);
  EXPECT_TRUE(filter->created);
  EXPECT_TRUE(filter->exclusive);
  ASSERT_TRUE(filter->filter());
  EXPECT_EQ(filter->filter()->kind, "u32");
  EXPECT_EQ(filter->filter()->prio, 10u);
  EXPECT_EQ(filter->filter()->protocol, 0x0800u);
  EXPECT_EQ(filter->filter()->parent->value, TcFilterInfo::kIngressParent);
  EXPECT_EQ(filter->filter()->dev->index(), 3u);
  auto gone = decode(netlinkMessage(kDelTfilter, 0, tcf, Attrs().str(1 /*TCA_KIND*/, "u32")));
  ASSERT_TRUE(gone);
  EXPECT_EQ(gone->action, EventAction::Deleted);
  EXPECT_FALSE(gone->exclusive);

  // A chain added (RTM_NEWCHAIN 100, CREATE|EXCL) and deleted (RTM_DELCHAIN 101) on clsact's
  // ingress block: the kernel reports the qdisc's handle (ffff:) as parent and no tcm_info.
  Bytes tch = {0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0};
  auto chain = decode(netlinkMessage(100, kCreate | kExcl, tch, Attrs().u32(11 /*TCA_CHAIN*/, 5)));
  ASSERT_TRUE(chain);
  EXPECT_EQ(chain->kind, ObjectKind::Chain);
  EXPECT_EQ(objectKindName(chain->kind), "chain");
  EXPECT_EQ(chain->action, EventAction::New);
  EXPECT_TRUE(chain->exclusive);
  ASSERT_TRUE(chain->filter());
  EXPECT_EQ(chain->filter()->chain, 5u);
  EXPECT_EQ(chain->filter()->kind, "");
  EXPECT_EQ(chain->filter()->parent->toString(), "ffff:");
  auto chainGone = decode(netlinkMessage(101, 0, tch, Attrs().u32(11 /*TCA_CHAIN*/, 5)));
  ASSERT_TRUE(chainGone);
  EXPECT_EQ(chainGone->kind, ObjectKind::Chain);
  EXPECT_EQ(chainGone->action, EventAction::Deleted);
}

TEST(EventsGolden, CanonicalFormIgnoresCountersAndNotificationOnlyParts) {
  Ifinfo ifi;
  ifi.index = 3;
  Attrs plain;
  plain.str(3 /*IFLA_IFNAME*/, "va").u32(4 /*IFLA_MTU*/, 1400);
  Attrs withStats = plain;
  withStats.raw(23 /*IFLA_STATS64*/, Bytes(8 * 24, 0x11)).u32(44 /*IFLA_EVENT*/, 1);
  Ifinfo changed = ifi;
  changed.change = 0xffffffff;
  AlignedMessage a(linkMessage(kNewLink, kCreate, ifi, plain, 7, 99)), b(linkMessage(kNewLink, 0, changed, withStats));
  auto ca = events::canonicalize(a.as<nlmsghdr>()), cb = events::canonicalize(b.as<nlmsghdr>());
  ASSERT_TRUE(ca.valid);
  EXPECT_EQ(ca.key, cb.key);
  EXPECT_EQ(ca.message, cb.message);
  EXPECT_EQ(ca.name, "va");
  // A real difference stays one.
  Attrs otherMtu;
  otherMtu.str(3, "va").u32(4, 1500);
  AlignedMessage c(linkMessage(kNewLink, 0, ifi, otherMtu));
  EXPECT_NE(events::canonicalize(c.as<nlmsghdr>()).message, ca.message);

  // Routes: two nexthops of one identity are two objects; the lookup key is their common prefix.
  AlignedMessage r(routeMessage(kNewRoute, 0));
  auto route = events::canonicalize(r.as<nlmsghdr>());
  EXPECT_EQ(route.key.rfind(route.identity(), 0), 0u);
  EXPECT_EQ(route.identity().rfind(events::routeLookupKey(254, Prefix::parse("10.10.0.0/16")), 0), 0u);
  EXPECT_EQ(route.routeDev, 3u);
}

// A sync compares a dumped route with the stored one in place and copies it only when it is new
// or changed: what it stores and what it compares must be the canonical form itself.
TEST(EventsGolden, RouteComparedInPlaceEqualsItsCanonicalForm) {
  AlignedMessage created(routeMessage(kNewRoute, kCreate | kExcl));  // header flags the stored form drops
  auto stored = events::canonicalize(created.as<nlmsghdr>());
  // As a dump carries it: NLM_F_MULTI, the dump's sequence number and port.
  Bytes asDumped = routeMessage(kNewRoute, 0);
  AlignedMessage dumped(netlinkMessage(kNewRoute, 2 /*NLM_F_MULTI*/, std::span(asDumped).subspan(16), 7, 99));
  auto lazy = events::canonicalizeLazily(dumped.as<nlmsghdr>());
  ASSERT_TRUE(lazy.valid);
  EXPECT_NE(lazy.source, nullptr);
  EXPECT_EQ(lazy.key, stored.key);
  EXPECT_TRUE(events::sameStoredForm(lazy, stored.message));
  // Another metric: the same destination, another route.
  Bytes rtm = {kInet, 16, 0, 0, 254, 3, 0, 1, 0, 0, 0, 0};
  Attrs other;
  other.raw(1, {10, 10, 0, 0}).raw(5, {10, 9, 0, 2}).u32(4, 3).u32(6, 8).u32(15, 254);
  AlignedMessage otherMetric(netlinkMessage(kNewRoute, 0, rtm, other));
  EXPECT_FALSE(events::sameStoredForm(events::canonicalizeLazily(otherMetric.as<nlmsghdr>()), stored.message));
  EXPECT_EQ(events::takeMessage(lazy), stored.message);
  // Cache info is dropped: such a route is rebuilt at once, as canonicalize does.
  Attrs withCache;
  withCache.raw(1, {10, 10, 0, 0}).raw(5, {10, 9, 0, 2}).u32(4, 3).u32(6, 7).u32(15, 254).raw(12 /*RTA_CACHEINFO*/, Bytes(32, 0x11));
  AlignedMessage cached(netlinkMessage(kNewRoute, 0, rtm, withCache));
  auto rebuilt = events::canonicalizeLazily(cached.as<nlmsghdr>());
  EXPECT_EQ(rebuilt.source, nullptr);
  EXPECT_TRUE(events::sameStoredForm(rebuilt, stored.message));
  EXPECT_EQ(events::takeMessage(rebuilt), stored.message);
}

// RTA_MULTIPATH of two paths (rtnexthop: len:u16, flags:u8, hops:u8, ifindex:s32, then a gateway)
// through devices 3 and 5; `flags` on the second path (RTNH_F_DEAD 1, RTNH_F_LINKDOWN 16).
Bytes twoPaths(uint8_t flags) {
  Bytes out;
  for (auto [dev, pathFlags, last] : {std::tuple<uint8_t, uint8_t, uint8_t>{3, 0, 2}, {5, flags, 3}}) {
    Bytes path = {16, 0, pathFlags, 0, dev, 0, 0, 0, 8, 0, 5 /*RTA_GATEWAY*/, 0, 10, 9, 0, last};
    out.insert(out.end(), path.begin(), path.end());
  }
  return out;
}

Bytes multipathRoute(uint8_t family, const Bytes& paths, std::optional<uint32_t> nhid = std::nullopt) {
  Bytes rtm = {family, 16, 0, 0, 254, 3, 0, 1, 0, 0, 0, 0};
  Attrs a;
  a.raw(1 /*RTA_DST*/, family == kInet ? Bytes{10, 10, 0, 0} : Bytes(16, 0x20)).u32(15 /*RTA_TABLE*/, 254);
  if (nhid) a.u32(30 /*RTA_NH_ID*/, *nhid);
  if (!paths.empty()) a.raw(9 /*RTA_MULTIPATH*/, paths);
  return netlinkMessage(kNewRoute, 0, rtm, a);
}

TEST(EventsGolden, RouteKeysStayWhileTheKernelChangesPathsSilently) {
  auto canonical = [](const Bytes& message) {
    AlignedMessage m(message);
    return events::canonicalize(m.as<nlmsghdr>());
  };
  // A path's linkdown and dead flags change the message, not the key: the route is Changed.
  auto healthy = canonical(multipathRoute(kInet, twoPaths(0))), dead = canonical(multipathRoute(kInet, twoPaths(1 | 16)));
  EXPECT_EQ(healthy.key, dead.key);
  EXPECT_NE(healthy.message, dead.message);
  EXPECT_EQ(healthy.pathDevices, (std::vector<uint32_t>{3, 5}));
  // Other IPv4 paths are another route (`ip route append` keeps both).
  Bytes otherPaths = twoPaths(0);
  otherPaths.back() = 9;
  EXPECT_NE(canonical(multipathRoute(kInet, otherPaths)).key, healthy.key);
  // IPv6 has one multipath route per identity: its paths are not in the key.
  constexpr uint8_t kInet6 = 10;
  EXPECT_EQ(canonical(multipathRoute(kInet6, twoPaths(0))).key, canonical(multipathRoute(kInet6, otherPaths)).key);
  // Over a nexthop object the id is the key, whatever paths the kernel shows with it.
  auto overGroup = canonical(multipathRoute(kInet, twoPaths(0), 10)), shrunk = canonical(multipathRoute(kInet, {}, 10));
  EXPECT_EQ(overGroup.key, shrunk.key);
  EXPECT_EQ(overGroup.nexthopId, 10u);
  EXPECT_NE(canonical(multipathRoute(kInet, {}, 11)).key, shrunk.key);
  EXPECT_EQ(overGroup.table, 254u);
}

}  // namespace
}  // namespace fastlink::test
