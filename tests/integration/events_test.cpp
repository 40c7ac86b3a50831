// Typed events and StateMirror in a fresh namespace, checked against iproute2 (`ip -j`) and
// against fresh kernel dumps.
#include <gtest/gtest.h>

#include <fastlink/events.hpp>
#include <fastlink/fastlink.hpp>
#include <fastlink/mirror.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <span>
#include <thread>

#include "support/settled.hpp"
#include "support/test_netns.hpp"

namespace fastlink::test {
namespace {

using namespace std::chrono_literals;

class EventsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ns.ip("link set lo up");
    // No DAD: addresses do not change flags a second later, after the test compared them.
    ns.exec("sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0");
  }
  uint32_t ifindex(const std::string& dev) { return ns.ipJson("link show dev " + dev)[0]["ifindex"].get<uint32_t>(); }

  /// Reads events until none came for `quiet`.
  std::vector<Event> drain(EventStream& s, std::chrono::milliseconds quiet = 300ms) {
    std::vector<Event> out;
    while (s.wait([&](const Event& e) { out.push_back(e); }, quiet) > 0) {
    }
    return out;
  }

  TestNetns ns;
  Netlink nl{NetlinkOptions{.netns = Netns::named(ns.name())}};
};

const Event* find(const std::vector<Event>& events, ObjectKind kind, EventAction action,
                  const std::function<bool(const Event&)>& match) {
  for (const auto& e : events)
    if (e.kind == kind && e.action == action && match(e)) return &e;
  return nullptr;
}

TEST_F(EventsTest, QdiscsAndClassesAreDecodedFromRealNotifications) {
  EventStream stream(nl, {ObjectKind::Qdisc, ObjectKind::Class});
  ns.ip("link add va type veth peer name vb");
  auto tc = [&](const std::string& args) { ASSERT_EQ(run("tc -n " + ns.name() + " " + args).status, 0) << args; };
  tc("qdisc add dev va root handle 1: htb default 10");
  tc("class add dev va parent 1: classid 1:10 htb rate 10mbit");
  tc("class change dev va parent 1: classid 1:10 htb rate 20mbit");
  tc("qdisc add dev va parent 1:10 handle 10: pfifo limit 50");
  // The oracle's view before the deletions: tc's own listing.
  std::string tcClasses = run("tc -n " + ns.name() + " class show dev va").out;
  tc("class del dev va classid 1:10");
  tc("qdisc del dev va root");
  auto events = drain(stream);
  uint32_t va = ns.ipJson("link show dev va")[0]["ifindex"].get<uint32_t>();
  auto qdiscOf = [&](const char* kind, uint32_t handle) {
    return [=](const Event& e) {
      return e.qdisc()->kind == kind && e.qdisc()->handle && e.qdisc()->handle->value == handle &&
             e.qdisc()->dev && e.qdisc()->dev->index() == va;
    };
  };
  const Event* htb = find(events, ObjectKind::Qdisc, EventAction::New, qdiscOf("htb", 0x10000));
  ASSERT_TRUE(htb);
  EXPECT_EQ(std::get<HtbOptions>(htb->qdisc()->options).defaultClass, 0x10u);
  const Event* pfifo = find(events, ObjectKind::Qdisc, EventAction::New, qdiscOf("pfifo", 0x100000));
  ASSERT_TRUE(pfifo);
  EXPECT_EQ(pfifo->qdisc()->parent->value, 0x10010u);
  EXPECT_EQ(std::get<FifoOptions>(pfifo->qdisc()->options).limit, 50u);
  EXPECT_TRUE(find(events, ObjectKind::Qdisc, EventAction::Deleted, qdiscOf("htb", 0x10000)));

  auto classRate = [](const Event& e) { return std::get<HtbClassOptions>(e.tcClass()->options).rate; };
  auto is110 = [](const Event& e) { return e.tcClass()->classid && e.tcClass()->classid->value == 0x10010u; };
  const Event* added = find(events, ObjectKind::Class, EventAction::New, [&](const Event& e) { return is110(e) && classRate(e) == 1250000u; });
  ASSERT_TRUE(added);
  EXPECT_EQ(added->tcClass()->kind, "htb");
  const Event* changed = find(events, ObjectKind::Class, EventAction::New, [&](const Event& e) { return is110(e) && classRate(e) == 2500000u; });
  ASSERT_TRUE(changed);
  EXPECT_NE(tcClasses.find("rate 20Mbit"), std::string::npos) << tcClasses;
  const Event* deleted = find(events, ObjectKind::Class, EventAction::Deleted, is110);
  ASSERT_TRUE(deleted);
  EXPECT_EQ(deleted->tcClass()->leaf->value, 0x100000u);  // the pfifo was still attached
  for (const auto& e : events) EXPECT_TRUE(e.kind == ObjectKind::Qdisc || e.kind == ObjectKind::Class);
}

TEST_F(EventsTest, EveryObjectIsDecodedFromRealNotifications) {
  EventStream stream(nl, {ObjectKind::Link, ObjectKind::Address, ObjectKind::Route, ObjectKind::Neighbour,
                          ObjectKind::Rule, ObjectKind::Nexthop, ObjectKind::Fdb});
  ns.ip("link add va type veth peer name vb");
  ns.ip("link set va mtu 1400 up");
  ns.ip("link set vb up");
  ns.ip("addr add 10.9.0.1/24 dev va");
  ns.ip("route add 10.10.0.0/16 via 10.9.0.2 metric 7");
  ns.ip("route replace 10.10.0.0/16 via 10.9.0.3 metric 7");
  ns.ip("neigh add 10.9.0.7 lladdr 02:00:00:00:00:07 dev va");
  ns.ip("rule add from 10.1.0.0/16 table 100 pref 100");
  ns.ip("nexthop add id 5 via 10.9.0.2 dev va");
  run("bridge -n " + ns.name() + " fdb add 02:00:00:00:00:09 dev vb");
  // The oracle's view of what now exists, before it is deleted.
  auto ipLink = ns.ipJson("link show dev va")[0];
  auto ipRoute = ns.ipJson("route show 10.10.0.0/16")[0];
  auto ipNeigh = ns.ipJson("neigh show 10.9.0.7 dev va")[0];
  ns.ip("route del 10.10.0.0/16");
  ns.ip("rule del pref 100");
  ns.ip("nexthop del id 5");
  ns.ip("link del va");
  auto events = drain(stream);
  uint32_t va = ipLink["ifindex"].get<uint32_t>();

  const Event* link = find(events, ObjectKind::Link, EventAction::New,
                           [&](const Event& e) { return e.link()->name == "va" && e.link()->mtu == 1400u && e.link()->admin == true; });
  ASSERT_TRUE(link);
  EXPECT_EQ(link->link()->index, va);
  EXPECT_EQ(link->link()->address->toString(), ipLink["address"]);
  EXPECT_TRUE(find(events, ObjectKind::Link, EventAction::Deleted, [&](const Event& e) { return e.link()->index == va; }));

  EXPECT_TRUE(find(events, ObjectKind::Address, EventAction::New, [&](const Event& e) {
    return e.address()->address->toStringWithLength() == "10.9.0.1/24" && e.address()->devIndex() == va;
  }));
  EXPECT_TRUE(find(events, ObjectKind::Address, EventAction::Deleted,
                   [&](const Event& e) { return e.address()->address->toStringWithLength() == "10.9.0.1/24"; }));

  auto isRoute = [](const Event& e) { return e.route()->dst && e.route()->dst->toString() == "10.10.0.0/16"; };
  const Event* added = find(events, ObjectKind::Route, EventAction::New, [&](const Event& e) { return isRoute(e) && !e.replaced; });
  ASSERT_TRUE(added);
  EXPECT_TRUE(added->created);
  EXPECT_EQ(added->route()->gateway->toString(), "10.9.0.2");
  EXPECT_EQ(added->route()->metric, 7u);
  const Event* replaced = find(events, ObjectKind::Route, EventAction::New, [&](const Event& e) { return isRoute(e) && e.replaced; });
  ASSERT_TRUE(replaced);
  EXPECT_EQ(replaced->route()->gateway->toString(), ipRoute["gateway"]);
  EXPECT_TRUE(find(events, ObjectKind::Route, EventAction::Deleted, isRoute));

  const Event* neigh = find(events, ObjectKind::Neighbour, EventAction::New,
                            [](const Event& e) { return e.neighbour()->dst->toString() == "10.9.0.7"; });
  ASSERT_TRUE(neigh);
  EXPECT_EQ(neigh->neighbour()->lladdr->toString(), ipNeigh["lladdr"]);
  EXPECT_EQ(neigh->neighbour()->devIndex(), va);

  const Event* rule = find(events, ObjectKind::Rule, EventAction::New, [](const Event& e) { return e.rule()->priority == 100u; });
  ASSERT_TRUE(rule);
  EXPECT_EQ(rule->rule()->src->toString(), "10.1.0.0/16");
  EXPECT_EQ(rule->rule()->table, 100u);
  EXPECT_TRUE(find(events, ObjectKind::Rule, EventAction::Deleted, [](const Event& e) { return e.rule()->priority == 100u; }));

  const Event* nh = find(events, ObjectKind::Nexthop, EventAction::New, [](const Event& e) { return e.nexthop()->id == 5u; });
  ASSERT_TRUE(nh);
  EXPECT_EQ(nh->nexthop()->gateway->toString(), "10.9.0.2");
  EXPECT_EQ(nh->nexthop()->devIndex(), va);
  EXPECT_TRUE(find(events, ObjectKind::Nexthop, EventAction::Deleted, [](const Event& e) { return e.nexthop()->id == 5u; }));

  EXPECT_TRUE(find(events, ObjectKind::Fdb, EventAction::New,
                   [](const Event& e) { return e.fdb()->mac && e.fdb()->mac->toString() == "02:00:00:00:00:09"; }));
}

TEST_F(EventsTest, StreamDeliversOnlyTheKindsAskedFor) {
  EventStream stream(nl, {ObjectKind::Neighbour});
  ns.ip("link add va type veth peer name vb");
  run("bridge -n " + ns.name() + " fdb add 02:00:00:00:00:09 dev vb");
  ns.ip("neigh add 10.9.0.7 lladdr 02:00:00:00:00:07 dev va");
  auto events = drain(stream);
  ASSERT_FALSE(events.empty());
  for (const auto& e : events) EXPECT_EQ(e.kind, ObjectKind::Neighbour);  // fdb shares the group, links do not come
}

/// The user's side of a mirror: a set of object descriptions maintained from its events.
struct View {
  std::multiset<std::string> routes;
  static std::string key(const RouteInfo& r) {
    return std::to_string(r.table.value_or(0)) + " " + (r.dst ? r.dst->toString() : "?") + " " +
           std::to_string(r.metric.value_or(0)) + " " + std::to_string(r.devIndex());
  }
  void apply(const Event& e) {
    if (!e.route()) return;
    if (e.action == EventAction::Deleted) {
      auto it = routes.find(key(*e.route()));
      if (it != routes.end()) routes.erase(it);
    } else if (e.action == EventAction::New) {
      routes.insert(key(*e.route()));
    }
  }
};

constexpr std::array<ObjectKind, 4> kMirrored{ObjectKind::Link, ObjectKind::Address, ObjectKind::Route,
                                              ObjectKind::Neighbour};

void expectMirrorEqualsDump(const StateMirror& mirror, Netlink& nl, std::span<const ObjectKind> kinds = kMirrored) {
  for (ObjectKind k : kinds)
    EXPECT_TRUE(mirror.canonical(k) == StateMirror::canonicalDump(nl, k)) << objectKindName(k) << ": mirror holds "
                                                                           << mirror.count(k) << ", dump "
                                                                           << StateMirror::canonicalDump(nl, k).size();
}

/// Lets the mirror read what the kernel still has to say (linkwatch's carrier and link-local
/// changes run late on a loaded VM) until it equals a fresh dump, for at most 10 s, then
/// compares: a mirror that is wrong never converges. `kinds`: the tables the mirror holds.
void expectMirrorConvergesToDump(StateMirror& mirror, Netlink& nl, std::span<const ObjectKind> kinds = kMirrored) {
  auto equal = [&] {
    for (ObjectKind k : kinds)
      if (!(mirror.canonical(k) == StateMirror::canonicalDump(nl, k))) return false;
    return true;
  };
  auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!equal() && std::chrono::steady_clock::now() < deadline) mirror.wait({}, 200ms);
  expectMirrorEqualsDump(mirror, nl, kinds);
}

constexpr std::array<ObjectKind, 1> kRoutesOnly{ObjectKind::Route};

TEST_F(EventsTest, MirrorFollowsChangesLooksUpAndEqualsADump) {
  ns.ip("link add va type veth peer name vb");
  ns.ip("addr add 10.9.0.1/24 dev va");
  StateMirror mirror(nl);
  // The mirror started from a dump: what existed before is there.
  ASSERT_TRUE(mirror.link("va"));
  uint32_t va = ifindex("va");
  EXPECT_EQ(mirror.link("va")->index, va);
  ASSERT_EQ(mirror.addresses(va).size(), 1u);

  std::vector<Event> events;
  ns.ip("link set va mtu 1400 up");
  ns.ip("link set vb up");
  ns.ip("route add blackhole 10.11.0.0/16 table 100");
  ns.ip("route add 10.12.0.0/16 via 10.9.0.2 dev va");
  ns.ip("neigh add 10.9.0.8 lladdr 02:00:00:00:00:08 dev va");
  ns.ip("link add vc type veth peer name vd");
  ns.ip("link del vc");
  // Carrier comes through linkwatch (up to a second late), then IPv6 link-local addresses.
  while (mirror.wait([&](const Event& e) { events.push_back(e); }, 1500ms) > 0) {
  }
  // MTU on an existing link: the mirror knows it is a change, not a new link.
  EXPECT_TRUE(find(events, ObjectKind::Link, EventAction::Changed, [&](const Event& e) { return e.link()->mtu == 1400u; }));
  EXPECT_TRUE(find(events, ObjectKind::Link, EventAction::New, [&](const Event& e) { return e.link()->name == "vc"; }));
  EXPECT_TRUE(find(events, ObjectKind::Link, EventAction::Deleted, [&](const Event& e) { return e.link()->name == "vc"; }));
  EXPECT_FALSE(mirror.link("vc"));

  auto ipLink = ns.ipJson("link show dev va")[0];
  EXPECT_EQ(mirror.link(va)->mtu, ipLink["mtu"].get<uint32_t>());
  auto blackhole = mirror.route(100, Prefix::parse("10.11.0.0/16"));
  ASSERT_TRUE(blackhole);
  EXPECT_EQ(blackhole->type, RouteType::Blackhole);
  auto via = mirror.route(254, Prefix::parse("10.12.0.0/16"));
  ASSERT_TRUE(via);
  EXPECT_EQ(via->gateway->toString(), ns.ipJson("route show 10.12.0.0/16")[0]["gateway"]);
  auto neigh = mirror.neighbour(va, IpAddress::parse("10.9.0.8"));
  ASSERT_TRUE(neigh);
  EXPECT_EQ(neigh->lladdr->toString(), "02:00:00:00:00:08");
  expectMirrorConvergesToDump(mirror, nl);

  // Down: the kernel drops the IPv4 routes through va without a word; the mirror does too.
  ns.ip("link set va down");
  while (mirror.wait({}, 300ms) > 0) {
  }
  EXPECT_FALSE(mirror.route(254, Prefix::parse("10.12.0.0/16")));
  expectMirrorConvergesToDump(mirror, nl);
  MirrorStats s = mirror.stats();
  EXPECT_EQ(s.objects, mirror.count(ObjectKind::Link) + mirror.count(ObjectKind::Address) +
                           mirror.count(ObjectKind::Route) + mirror.count(ObjectKind::Neighbour));
  EXPECT_GT(s.bytes, 0u);
}

// A mirror followed through a long run of changes: 40,000 routes (received in place by the
// start) replaced twelve times by versions of another size (a realm added, then dropped), each
// replacement a copy and the old version dead bytes. The compaction keeps the memory near the
// live objects' (stats().bytes: the log's chunks and the index; without compaction it grows by
// ~2 MB a round), every round is reported as exactly the routes changed, and the mirror still
// equals a fresh dump. A resync of an unchanged kernel reports nothing.
TEST_F(EventsTest, MirrorKeepsItsMemoryBoundedThroughALongRunOfChanges) {
  constexpr int kRoutes = 40000;
  auto routes = [&](bool realm) {
    std::vector<std::string> lines;
    for (int i = 0; i < kRoutes; ++i)
      lines.push_back("route replace blackhole 10.60." + std::to_string(i / 256) + "." + std::to_string(i % 256) +
                      "/32 table 100" + (realm ? " realm 5" : ""));
    ns.ipBatch(lines);
  };
  routes(false);
  MirrorOptions options;
  options.neighbours = false;
  options.subscription.receiveBufferBytes = 64 << 20;  // the bursts below fit (an overflow would resync: also fine)
  StateMirror mirror(nl, options);
  ASSERT_GE(mirror.count(ObjectKind::Route), std::size_t{kRoutes});
  EXPECT_EQ(mirror.resync(), 0u) << "a resync of an unchanged kernel reported differences";
  const uint64_t atStart = mirror.stats().bytes;
  uint64_t peak = atStart;
  for (int round = 0; round < 12; ++round) {
    routes(round % 2 == 0);
    std::size_t changed = 0;
    while (mirror.wait(
               [&](const Event& e) {
                 if (e.kind == ObjectKind::Route && e.action == EventAction::Changed) ++changed;
               },
               500ms) > 0) {
    }
    EXPECT_EQ(changed, std::size_t{kRoutes}) << "round " << round;
    peak = std::max(peak, mirror.stats().bytes);
  }
  // Each round leaves ~2 MB dead (40,000 versions of ~52 bytes); 12 rounds without compaction:
  // ~24 MB above the start. With it: dead bytes beyond max(live, 8 MiB) are moved out, the
  // chunks being filled and four spare ones on top.
  const uint64_t bound = atStart + (8u << 20) + (8u << 20);
  EXPECT_LE(peak, bound) << "start " << atStart << " bytes, peak " << peak;
  expectMirrorEqualsDump(mirror, nl, std::array{ObjectKind::Link, ObjectKind::Address, ObjectKind::Route});
  EXPECT_EQ(mirror.resync(), 0u);
}

// A route dump is taken the quick way (no Canonical, appended where it arrived) while it comes in
// key order, and by a search where it does not: IPv4's dump walks the tables in the order of the
// kernel's table hash (id mod 256: table 300 comes before 100, 1000 before main), and a key
// starts with the table. Every route is found by its key afterwards (an object appended out of
// order would hide others from the index's binary search), the book-keeping of routes through a
// device or preferring a source is kept (the device's and the address's changes take them), and
// a resync finds nothing changed.
TEST_F(EventsTest, MirrorStartKeepsRoutesTheDumpGivesOutOfKeyOrder) {
  ns.ip("link add va type veth peer name vb");
  ns.ip("link set va up");
  ns.ip("link set vb up");
  ns.ip("addr add 10.9.0.1/24 dev va");
  ns.ip("addr add 10.9.0.5/24 dev va");
  const std::array<int, 4> tables{100, 300, 1000, 254};
  std::vector<std::string> lines;
  for (int table : tables)
    for (int i = 0; i < 300; ++i) {
      const std::string dst = "10.70." + std::to_string(i / 256) + "." + std::to_string(i % 256) + "/32";
      const std::string how = i % 3 == 0 ? "blackhole " + dst : i % 3 == 1 ? dst + " via 10.9.0.2" : dst + " via 10.9.0.2 src 10.9.0.5";
      lines.push_back("route add " + how + " table " + std::to_string(table));
    }
  ns.ipBatch(lines);
  MirrorOptions options;
  options.neighbours = false;
  StateMirror mirror(nl, options);
  for (int table : tables)
    for (int i = 0; i < 300; ++i) {
      const std::string dst = "10.70." + std::to_string(i / 256) + "." + std::to_string(i % 256) + "/32";
      ASSERT_TRUE(mirror.route(static_cast<uint32_t>(table), Prefix::parse(dst))) << "table " << table << " " << dst;
    }
  constexpr std::array kinds{ObjectKind::Link, ObjectKind::Address, ObjectKind::Route};
  expectMirrorEqualsDump(mirror, nl, kinds);
  EXPECT_EQ(mirror.resync(), 0u);
  // The preferred source goes, and the main table's routes preferring it with it (the kernel
  // looks in the device's table only): main is read again (6.18 also announces them).
  ns.ip("addr del 10.9.0.5/24 dev va");
  while (mirror.wait({}, 300ms) > 0) {
  }
  EXPECT_FALSE(mirror.route(254, Prefix::parse("10.70.0.2/32")));
  expectMirrorConvergesToDump(mirror, nl, kinds);
  // Down: the kernel drops the IPv4 routes through va without a word; the mirror does too.
  ns.ip("link set va down");
  while (mirror.wait({}, 300ms) > 0) {
  }
  EXPECT_FALSE(mirror.route(1000, Prefix::parse("10.70.0.1/32")));
  EXPECT_TRUE(mirror.route(1000, Prefix::parse("10.70.0.0/32")));
  expectMirrorConvergesToDump(mirror, nl, kinds);
}

TEST_F(EventsTest, MirrorOfChosenTablesHoldsOnlyThose) {
  ns.ip("link add va type veth peer name vb");
  MirrorOptions routesOnly;
  routesOnly.links = routesOnly.addresses = routesOnly.neighbours = false;
  StateMirror mirror(nl, routesOnly);
  EXPECT_EQ(mirror.count(ObjectKind::Link), 0u);
  EXPECT_FALSE(mirror.link("va"));
  ns.ip("route add blackhole 10.11.0.0/16");
  while (mirror.wait({}, 300ms) > 0) {
  }
  EXPECT_TRUE(mirror.route(254, Prefix::parse("10.11.0.0/16")));
  EXPECT_EQ(mirror.count(ObjectKind::Link), 0u);
}

// Routes whose paths the kernel changes without a route notification. Routes over nexthop objects
// (`nhid`, as FRR installs them) change or vanish with their nexthops: a group that loses a
// member, a nexthop deleted, a device going down (which removes its nexthops without even a
// nexthop notification). Multipath routes mark, or lose, the paths through a device that loses
// its carrier, goes down or away; IPv6 tells of its multipath siblings one by one.
class MirrorPathsTest : public EventsTest {
 protected:
  void SetUp() override {
    EventsTest::SetUp();
    for (const char* pair : {"va type veth peer name vb", "vc type veth peer name vd"}) ns.ip(std::string("link add ") + pair);
    for (const char* dev : {"va", "vb", "vc", "vd"}) ns.ip(std::string("link set ") + dev + " up");
    for (const char* a : {"10.9.0.1/24 dev va", "10.8.0.1/24 dev vc", "2001:db8:9::1/64 dev va", "2001:db8:8::1/64 dev vc"})
      ns.ip(std::string("addr add ") + a);
    for (const char* nh : {"1 via 10.9.0.2 dev va", "2 via 10.8.0.2 dev vc", "3 via 10.9.0.3 dev va", "4 via 10.8.0.3 dev vc",
                           "10 group 1/2/3", "11 group 4", "20 via 2001:db8:9::2 dev va", "21 via 2001:db8:8::2 dev vc",
                           "30 group 20/21"})
      ns.ip(std::string("nexthop add id ") + nh);
    for (const char* r : {"10.50.0.0/16 nhid 10", "10.54.0.0/16 nhid 10 table 100", "10.51.0.0/16 nhid 11 table 100",
                          "10.52.0.0/16 nhid 3", "10.53.0.0/16 nhid 2", "2001:db8:50::/48 nhid 30"})
      ns.ip(std::string("route add ") + r);
  }

  /// Makes one change and collects the mirror's events until it has been quiet for 300 ms and
  /// holds what a dump of `kinds` (the tables it mirrors) holds, for at most 10 s: on a loaded VM
  /// a notification may come later than the quiet time. A change the kernel finishes later, on
  /// its own time (a carrier seen by linkwatch's work queue), names `kernelDone`, the oracle's
  /// view of it: a mirror compared before the kernel has acted would equal the dump at once.
  std::vector<Event> change(StateMirror& mirror, const std::string& ipWords,
                            std::span<const ObjectKind> kinds = kMirrored, const std::function<bool()>& kernelDone = {}) {
    ns.ip(ipWords);
    if (kernelDone) {
      EXPECT_TRUE(waitUntil(kernelDone)) << "the kernel did not finish '" << ipWords << "' in 10 s";
    }
    std::vector<Event> events;
    auto converged = [&] {
      for (ObjectKind k : kinds)
        if (!(mirror.canonical(k) == StateMirror::canonicalDump(nl, k))) return false;
      return true;
    };
    auto deadline = std::chrono::steady_clock::now() + 10s;
    do {
      while (mirror.wait([&](const Event& e) { events.push_back(e); }, 300ms) > 0) {
      }
    } while (!converged() && std::chrono::steady_clock::now() < deadline);
    return events;
  }

  /// "table dst" of every route to 10.5x/10.7x.0.0/16 or 2001:db8:50|70::/48, as the mirror and as ip see them.
  static bool ours(const std::string& dst) {
    for (const char* p : {"10.5", "10.7", "2001:db8:50:", "2001:db8:70:"})
      if (dst.rfind(p, 0) == 0) return true;
    return false;
  }
  std::set<std::string> mirrored(const StateMirror& mirror) {
    std::set<std::string> out;
    mirror.forEachRoute([&](const RouteInfo& r) {
      if (r.dst && ours(r.dst->toString())) out.insert(std::to_string(r.table.value_or(0)) + " " + r.dst->toString());
    });
    return out;
  }
  std::set<std::string> ipRoutes() {
    std::set<std::string> out;
    for (const char* family : {"-4", "-6"})
      for (const auto& r : ns.ipJson(std::string(family) + " route show table all")) {
        std::string dst = r["dst"].get<std::string>(), table = r.contains("table") ? r["table"].get<std::string>() : "main";
        if (ours(dst)) out.insert((table == "main" ? "254" : table) + " " + dst);
      }
    return out;
  }
  /// Whether ip shows a route to `dst` (main table) at all, and whether one of its paths has `flag`.
  nlohmann::json ipRoute(const std::string& dst) {
    return ns.ipJson(std::string(dst.find(':') == std::string::npos ? "-4" : "-6") + " route show " + dst);
  }
  bool ipHasRoute(const std::string& dst) { return !ipRoute(dst).empty(); }
  bool ipPathFlagged(const std::string& dst, const std::string& flag) {
    for (const auto& r : ipRoute(dst))
      for (const auto& path : r.value("nexthops", nlohmann::json::array()))
        for (const auto& f : path.value("flags", nlohmann::json::array()))
          if (f == flag) return true;
    return false;
  }
  /// The mirror's route to `dst` in `table`, and how many paths it has.
  std::size_t pathsOf(const StateMirror& mirror, uint32_t table, const char* dst) {
    auto r = mirror.route(table, Prefix::parse(dst));
    return r ? std::max<std::size_t>(r->paths.size(), 1) : 0;
  }
};

bool hasRoute(const std::vector<Event>& events, EventAction action, const char* dst) {
  return find(events, ObjectKind::Route, action, [&](const Event& e) { return e.route()->dst && e.route()->dst->toString() == dst; });
}

TEST_F(MirrorPathsTest, GroupThatLosesAMemberChangesItsRoutes) {
  StateMirror mirror(nl);
  ASSERT_EQ(pathsOf(mirror, 254, "10.50.0.0/16"), 3u);
  auto events = change(mirror, "nexthop del id 1");
  // One route changed, in place: not deleted and added again.
  EXPECT_TRUE(hasRoute(events, EventAction::Changed, "10.50.0.0/16"));
  EXPECT_TRUE(hasRoute(events, EventAction::Changed, "10.54.0.0/16"));
  EXPECT_FALSE(hasRoute(events, EventAction::Deleted, "10.50.0.0/16"));
  EXPECT_EQ(pathsOf(mirror, 254, "10.50.0.0/16"), 2u);
  EXPECT_EQ(ns.ipJson("route show 10.50.0.0/16")[0]["nexthops"].size(), 2u);
  EXPECT_EQ(mirrored(mirror), ipRoutes());
  expectMirrorConvergesToDump(mirror, nl);
}

TEST_F(MirrorPathsTest, DeviceDownRemovesItsNexthopsAndTheirRoutes) {
  StateMirror mirror(nl);
  auto events = change(mirror, "link set vc down");
  // Nexthops 2 and 4 are gone without a word: 10.53 (nhid 2) and 10.51 (group 11 = {4}) with
  // them; group 10 keeps 1 and 3, group 30 keeps 20.
  EXPECT_TRUE(hasRoute(events, EventAction::Deleted, "10.53.0.0/16"));
  EXPECT_TRUE(hasRoute(events, EventAction::Deleted, "10.51.0.0/16"));
  EXPECT_TRUE(hasRoute(events, EventAction::Changed, "10.50.0.0/16"));
  EXPECT_EQ(pathsOf(mirror, 254, "10.50.0.0/16"), 2u);
  EXPECT_EQ(pathsOf(mirror, 254, "2001:db8:50::/48"), 1u);
  EXPECT_EQ(mirrored(mirror), ipRoutes());
  expectMirrorConvergesToDump(mirror, nl);
}

TEST_F(MirrorPathsTest, DeletedNexthopTakesItsRoutesAndEmptiedGroupsWithIt) {
  StateMirror mirror(nl);
  change(mirror, "nexthop del id 1");
  change(mirror, "nexthop del id 2");
  // Group 10 is {3} now; deleting 3 empties it: every route over 3 or over 10 goes.
  auto events = change(mirror, "nexthop del id 3");
  for (const char* dst : {"10.50.0.0/16", "10.52.0.0/16", "10.54.0.0/16"})
    EXPECT_TRUE(hasRoute(events, EventAction::Deleted, dst)) << dst;
  EXPECT_EQ(mirrored(mirror), ipRoutes());
  EXPECT_EQ(ipRoutes(), (std::set<std::string>{"100 10.51.0.0/16", "254 2001:db8:50::/48"}));
  expectMirrorConvergesToDump(mirror, nl);
}

TEST_F(MirrorPathsTest, CarrierLossRemovesNexthopsToo) {
  StateMirror mirror(nl);
  // vc stays up but loses its carrier with its peer: the kernel removes nexthops 2 and 4 as for
  // a device down.
  auto events = change(mirror, "link set vd down", kMirrored, [&] { return !ipHasRoute("10.53.0.0/16"); });
  EXPECT_TRUE(hasRoute(events, EventAction::Deleted, "10.53.0.0/16"));
  EXPECT_EQ(pathsOf(mirror, 254, "10.50.0.0/16"), 2u);
  EXPECT_EQ(mirrored(mirror), ipRoutes());
  expectMirrorConvergesToDump(mirror, nl);
}

TEST_F(MirrorPathsTest, AfterAResyncTheMirrorStillFollowsNexthops) {
  StateMirror mirror(nl);
  mirror.resync();
  uint64_t rereads = mirror.stats().tableRereads;
  auto events = change(mirror, "nexthop del id 4");
  EXPECT_TRUE(hasRoute(events, EventAction::Deleted, "10.51.0.0/16"));
  // Only table 100 held routes over nexthop 4 (or a group holding it): one table read again.
  EXPECT_EQ(mirror.stats().tableRereads, rereads + 1);
  EXPECT_EQ(mirrored(mirror), ipRoutes());
  expectMirrorConvergesToDump(mirror, nl);
}

TEST_F(MirrorPathsTest, NexthopsNoRouteUsesCostNoRead) {
  StateMirror mirror(nl);
  change(mirror, "nexthop add id 40 via 10.9.0.4 dev va");
  change(mirror, "nexthop add id 41 group 40");
  change(mirror, "nexthop del id 40");
  EXPECT_EQ(mirror.stats().tableRereads, 0u);
  expectMirrorConvergesToDump(mirror, nl);
}

TEST_F(MirrorPathsTest, MultipathRoutesFollowTheirDevices) {
  ns.ip("route add 10.70.0.0/16 nexthop via 10.9.0.2 dev va nexthop via 10.8.0.2 dev vc");
  ns.ip("-6 route add 2001:db8:70::/48 nexthop via 2001:db8:9::2 dev va nexthop via 2001:db8:8::2 dev vc");
  StateMirror mirror(nl);
  // Carrier lost (linkwatch, later): the paths through vc turn linkdown; then down: dead too
  // (at once). Both in place.
  auto linkdown = [&] { return ipPathFlagged("10.70.0.0/16", "linkdown") && ipPathFlagged("2001:db8:70::/48", "linkdown"); };
  for (const char* change_ : {"link set vd down", "link set vc down"}) {
    auto events = change(mirror, change_, kMirrored, linkdown);
    EXPECT_TRUE(hasRoute(events, EventAction::Changed, "10.70.0.0/16")) << change_;
    EXPECT_TRUE(hasRoute(events, EventAction::Changed, "2001:db8:70::/48")) << change_;
    expectMirrorConvergesToDump(mirror, nl);
  }
  auto ip = ns.ipJson("route show 10.70.0.0/16")[0];
  EXPECT_EQ(ip["nexthops"][1]["flags"], nlohmann::json::parse(R"(["dead","linkdown"])"));
  // vc up: no longer dead (at once), still linkdown; vd up: the carrier back (linkwatch, later).
  for (const char* change_ : {"link set vc up", "link set vd up"}) {
    auto carrierBack = [&] {
      return std::string(change_) == "link set vc up" ||
             (!ipPathFlagged("10.70.0.0/16", "linkdown") && !ipPathFlagged("2001:db8:70::/48", "linkdown"));
    };
    auto events = change(mirror, change_, kMirrored, carrierBack);
    EXPECT_TRUE(hasRoute(events, EventAction::Changed, "10.70.0.0/16")) << change_;
    expectMirrorConvergesToDump(mirror, nl);
  }
  // va away: IPv4 drops the route without a word, IPv6 keeps the path through vc.
  auto events = change(mirror, "link del va");
  EXPECT_TRUE(hasRoute(events, EventAction::Deleted, "10.70.0.0/16"));
  EXPECT_FALSE(mirror.route(254, Prefix::parse("10.70.0.0/16")));
  EXPECT_EQ(pathsOf(mirror, 254, "2001:db8:70::/48"), 1u);
  EXPECT_EQ(mirrored(mirror), ipRoutes());
  expectMirrorConvergesToDump(mirror, nl);
}

TEST_F(MirrorPathsTest, Ipv6SiblingsAppendedAndDeletedOneByOneStayOneRoute) {
  StateMirror mirror(nl);
  auto events = change(mirror, "-6 route add 2001:db8:70::/48 nexthop via 2001:db8:9::2 dev va nexthop via 2001:db8:8::2 dev vc");
  EXPECT_TRUE(hasRoute(events, EventAction::New, "2001:db8:70::/48"));
  // The kernel announces the append with all three paths, in another order than a dump's.
  events = change(mirror, "-6 route append 2001:db8:70::/48 via 2001:db8:8::3 dev vc");
  EXPECT_TRUE(hasRoute(events, EventAction::Changed, "2001:db8:70::/48"));
  EXPECT_EQ(pathsOf(mirror, 254, "2001:db8:70::/48"), 3u);
  // ... and a deleted sibling alone, as a single-path route.
  events = change(mirror, "-6 route del 2001:db8:70::/48 via 2001:db8:9::2 dev va");
  EXPECT_TRUE(hasRoute(events, EventAction::Changed, "2001:db8:70::/48"));
  EXPECT_FALSE(hasRoute(events, EventAction::Deleted, "2001:db8:70::/48"));
  EXPECT_EQ(pathsOf(mirror, 254, "2001:db8:70::/48"), 2u);
  EXPECT_EQ(ns.ipJson("-6 route show 2001:db8:70::/48")[0]["nexthops"].size(), 2u);
  EXPECT_EQ(mirrored(mirror), ipRoutes());
  expectMirrorConvergesToDump(mirror, nl);
  events = change(mirror, "-6 route del 2001:db8:70::/48");
  EXPECT_TRUE(hasRoute(events, EventAction::Deleted, "2001:db8:70::/48"));
  EXPECT_EQ(mirrored(mirror), ipRoutes());
}

TEST_F(MirrorPathsTest, RoutesGoWithTheirSourceAddressAndTheDevicesLastIpv4Address) {
  ns.ip("addr add 10.9.0.5/24 dev va");
  ns.ip("route add 10.80.0.0/16 via 10.9.0.2 src 10.9.0.5");
  ns.ip("route add 10.81.0.0/16 via 10.9.0.2 dev va");
  ns.ip("route add 10.82.0.0/16 nexthop via 10.9.0.2 dev va nexthop via 10.8.0.2 dev vc");
  ns.ip("route add local 10.55.0.0/16 dev va table 100");
  for (bool routesOnly : {false, true}) {
    SCOPED_TRACE(routesOnly ? "routes only" : "every table");
    if (routesOnly) {
      ns.ip("addr add 10.9.0.1/24 dev va");
      ns.ip("addr add 10.9.0.5/24 dev va");
      ns.ip("route replace 10.80.0.0/16 via 10.9.0.2 src 10.9.0.5");
      ns.ip("route replace 10.81.0.0/16 via 10.9.0.2 dev va");
      ns.ip("route replace 10.82.0.0/16 nexthop via 10.9.0.2 dev va nexthop via 10.8.0.2 dev vc");
      ns.ip("route replace local 10.55.0.0/16 dev va table 100");
    }
    MirrorOptions options;
    if (routesOnly) options.links = options.addresses = options.neighbours = false;
    std::span<const ObjectKind> kinds = routesOnly ? std::span<const ObjectKind>(kRoutesOnly) : kMirrored;
    StateMirror mirror(nl, options);
    // An address no route prefers, not the device's last: nothing to read again (the routes the
    // kernel made for it go announced).
    ns.ip("addr add 10.9.0.7/24 dev va");
    change(mirror, "addr del 10.9.0.7/24 dev va", kinds);
    EXPECT_EQ(mirror.stats().tableRereads, 0u);
    // A route's preferred source goes with the address (6.18 announces it; older kernels need not).
    auto events = change(mirror, "addr del 10.9.0.5/24 dev va", kinds);
    EXPECT_TRUE(hasRoute(events, EventAction::Deleted, "10.80.0.0/16"));
    EXPECT_TRUE(mirror.route(254, Prefix::parse("10.81.0.0/16")));
    EXPECT_EQ(mirror.stats().tableRereads, 1u);  // main, for the routes that preferred 10.9.0.5
    // The device's last IPv4 address: IPv4 is off there, its routes go without a word (its
    // `local` route too), the multipath route keeps its path through vc.
    events = change(mirror, "addr del 10.9.0.1/24 dev va", kinds);
    EXPECT_TRUE(hasRoute(events, EventAction::Deleted, "10.81.0.0/16"));
    EXPECT_TRUE(hasRoute(events, EventAction::Deleted, "10.55.0.0/16"));
    EXPECT_TRUE(hasRoute(events, EventAction::Changed, "10.82.0.0/16"));
    EXPECT_EQ(mirrored(mirror), ipRoutes());
    expectMirrorConvergesToDump(mirror, nl, kinds);
  }
}

TEST_F(MirrorPathsTest, MirrorOfRoutesAloneStillFollowsDevices) {
  // Without links in the mirror, the devices' changes still reach the routes' book-keeping.
  ns.ip("route add 10.60.0.0/16 via 10.9.0.2 dev va");
  MirrorOptions routesOnly;
  routesOnly.links = routesOnly.addresses = routesOnly.neighbours = false;
  StateMirror mirror(nl, routesOnly);
  auto events = change(mirror, "link set vc down", kRoutesOnly);
  EXPECT_TRUE(hasRoute(events, EventAction::Deleted, "10.53.0.0/16"));
  events = change(mirror, "link set va down", kRoutesOnly);
  EXPECT_TRUE(hasRoute(events, EventAction::Deleted, "10.60.0.0/16"));  // dropped silently by the kernel
  EXPECT_EQ(mirrored(mirror), ipRoutes());
  EXPECT_EQ(mirror.count(ObjectKind::Link), 0u);
  expectMirrorConvergesToDump(mirror, nl, kRoutesOnly);
}

// The overflow test: a mirror whose socket holds a few notifications, while `ip -batch` (another
// process) makes 10,000 link changes and 100,000 route changes.
TEST_F(EventsTest, MirrorResynchronisesAfterOverflowAndEqualsAFreshDump) {
  MirrorOptions options;
  options.subscription.receiveBufferBytes = 4096;
  StateMirror mirror(nl, options);
  View view;
  mirror.forEachRoute([&](const RouteInfo& r) { view.routes.insert(View::key(r)); });

  std::string links = "/tmp/fastlink-overflow-links-" + ns.name(), routes = "/tmp/fastlink-overflow-routes-" + ns.name();
  {
    std::ofstream f(links);
    // 10,000 changes: 600 veth pairs created, 9,000 MTU changes, 400 pairs deleted.
    for (int i = 0; i < 600; ++i) f << "link add xa" << i << " type veth peer name xb" << i << "\n";
    for (int round = 0; round < 15; ++round)
      for (int i = 0; i < 600; ++i) f << "link set " << (round % 2 ? "xb" : "xa") << i << " mtu " << 1300 + round << "\n";
    for (int i = 0; i < 400; ++i) f << "link del xa" << i << "\n";
  }
  {
    std::ofstream f(routes);
    for (int i = 0; i < 60000; ++i) f << "route add blackhole 10." << (i >> 8) % 256 << "." << i % 256 << ".0/24 table " << 100 + i / 65536 << "\n";
    for (int i = 0; i < 40000; ++i) f << "route del blackhole 10." << (i >> 8) % 256 << "." << i % 256 << ".0/24 table " << 100 + i / 65536 << "\n";
  }
  std::atomic<bool> done{false};
  std::thread changer([&] {
    run("ip -n " + ns.name() + " -batch " + links + " & ip -n " + ns.name() + " -batch " + routes + "; wait");
    done = true;
  });
  std::size_t events = 0;
  auto onChange = [&](const Event& e) {
    ++events;
    view.apply(e);
  };
  while (!done) mirror.wait(onChange, 50ms);
  changer.join();
  while (mirror.wait(onChange, 500ms) > 0) {
  }
  std::remove(links.c_str());
  std::remove(routes.c_str());

  MirrorStats s = mirror.stats();
  EXPECT_GT(s.overflows, 0u) << "the test must overflow the mirror's socket";
  EXPECT_GT(s.resyncs, 0u);
  expectMirrorEqualsDump(mirror, nl);
  // Counts by the independent oracle.
  EXPECT_EQ(mirror.count(ObjectKind::Link), ns.ipJson("link show").size());
  std::size_t ipRoutes = ns.ipJson("-4 route show table all").size() + ns.ipJson("-6 route show table all").size();
  EXPECT_EQ(mirror.count(ObjectKind::Route), ipRoutes);
  EXPECT_EQ(ns.ipJson("-4 route show table 100").size(), 20000u);
  // The user who applied the reported events converged on the mirror's view.
  std::multiset<std::string> mirrored;
  mirror.forEachRoute([&](const RouteInfo& r) { mirrored.insert(View::key(r)); });
  EXPECT_TRUE(view.routes == mirrored) << "view " << view.routes.size() << " mirror " << mirrored.size();
  EXPECT_GT(events, 0u);
  RecordProperty("overflows", std::to_string(s.overflows));
  RecordProperty("resyncs", std::to_string(s.resyncs));
}

}  // namespace
}  // namespace fastlink::test
