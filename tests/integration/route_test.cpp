// Routes in a fresh namespace, checked against `ip -j route`.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <fastlink/fastlink.hpp>
#include <fastlink/route.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "support/settled.hpp"
#include "support/test_netns.hpp"
#include "support/wire_observer.hpp"

namespace fastlink::test {
namespace {

class RouteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ns.ip("link set lo up");
    ns.ip("link add v0 type veth peer name v1");
    ns.ip("link set v0 up");
    ns.ip("link set v1 up");
    ns.ip("addr add 10.0.0.1/24 dev v0");
    ns.ip("addr add 10.0.1.1/24 dev v1");
    ns.ip("addr add 2001:db8::1/64 dev v0 nodad");
  }

  nlohmann::json ipRoutes(const std::string& args) { return ns.ipJson("route show " + args); }
  nlohmann::json ipRoute(const std::string& args) {
    auto j = ipRoutes(args);
    EXPECT_EQ(j.size(), 1u) << args << ": " << j.dump();
    return j.empty() ? nlohmann::json::object() : j[0];
  }
  /// Every IPv4 route, and the IPv6 routes users add (kernel link-local routes come and go
  /// with DAD, so they are left out).
  std::string snapshot() { return ns.ip("-4 -j route show table all") + ns.ip("-6 -j route show table all proto boot"); }
  uint32_t ifindex(const std::string& dev) { return *nl.links().get(dev).index; }

  static IpAddress ip(const char* s) { return IpAddress::parse(s); }
  static Prefix pfx(const char* s) { return Prefix::parse(s); }

  TestNetns ns;
  Netlink nl{NetlinkOptions{.netns = Netns::named(ns.name())}};
  RouteApi& routes = nl.routes();
};

TEST_F(RouteTest, AddWithGatewayTableMetricProtocol) {
  routes.add(RouteInfo(pfx("10.1.0.0/16"))
                 .setGateway(ip("10.0.0.2"))
                 .setDev("v0")
                 .setTable(100)
                 .setMetric(10)
                 .setProtocol(RouteProtocol::Static));
  auto r = ipRoute("table 100");
  EXPECT_EQ(r["dst"], "10.1.0.0/16");
  EXPECT_EQ(r["gateway"], "10.0.0.2");
  EXPECT_EQ(r["dev"], "v0");
  EXPECT_EQ(r["metric"], 10);
  EXPECT_EQ(r["protocol"], "static");
  // Adding it again is EEXIST; deleting it leaves the table empty.
  try {
    routes.add(RouteInfo(pfx("10.1.0.0/16")).setGateway(ip("10.0.0.2")).setTable(100).setMetric(10));
    FAIL() << "second add succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::file_exists);
  }
  routes.del(RouteInfo(pfx("10.1.0.0/16")).setTable(100).setMetric(10));
  EXPECT_EQ(ipRoutes("table 100").size(), 0u);
}

TEST_F(RouteTest, ListDecodesWhatIpShows) {
  routes.add(RouteInfo(pfx("10.1.0.0/16")).setGateway(ip("10.0.0.2")).setTable(100).setMetric(7).setPrefsrc(ip("10.0.0.1")));
  auto list = routes.list(RouteFilter().setTable(100));
  ASSERT_EQ(list.size(), 1u);
  const RouteInfo& r = list[0];
  EXPECT_EQ(r.dst, pfx("10.1.0.0/16"));
  EXPECT_EQ(r.gateway, ip("10.0.0.2"));
  EXPECT_EQ(r.devIndex(), ifindex("v0"));
  EXPECT_EQ(r.metric, 7u);
  EXPECT_EQ(r.prefsrc, ip("10.0.0.1"));
  EXPECT_EQ(r.table, 100u);
  EXPECT_EQ(r.protocol, RouteProtocol::Boot);
  EXPECT_EQ(r.scope, Scope::Universe);
  EXPECT_EQ(r.type, RouteType::Unicast);
}

TEST_F(RouteTest, NamedTableFromConfigFiles) {
  auto dir = std::filesystem::temp_directory_path() / ("fastlink-rt-" + ns.name());
  std::filesystem::create_directories(dir / "rt_tables.d");
  std::ofstream(dir / "rt_tables") << "# test\n200\tblue\n";
  std::ofstream(dir / "rt_tables.d" / "extra.conf") << "1000 red # comment\n";
  std::ofstream(dir / "rt_tables.d" / "ignored.txt") << "1001 green\n";
  RouteNames names({dir.string()});
  EXPECT_EQ(names.tableId("blue"), 200u);
  EXPECT_EQ(names.tableId("red"), 1000u);
  EXPECT_EQ(names.tableId("main"), kTableMain);
  EXPECT_EQ(names.tableName(1000), "red");
  EXPECT_THROW(names.tableId("green"), Error);
  std::filesystem::remove_all(dir);

  routes.add(RouteInfo(pfx("10.8.0.0/16")).setDev("v0").setTable(names.tableId("red")));
  auto r = ipRoute("table 1000");
  EXPECT_EQ(r["dst"], "10.8.0.0/16");
  EXPECT_EQ(r["scope"], "link");
  EXPECT_EQ(routes.list(RouteFilter().setTable(1000)).size(), 1u);
  EXPECT_EQ(routes.list(RouteFilter().setTable(1000))[0].table, 1000u);

  try {
    RouteNames::system().tableId("no-such-table-name");
    FAIL() << "unknown table accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("unknown routing table \"no-such-table-name\""), std::string::npos) << e.what();
  }
}

TEST_F(RouteTest, MultipathWithWeights) {
  routes.add(RouteInfo(pfx("10.2.0.0/16"))
                 .setTable(100)
                 .addPath(RoutePath().setGateway(ip("10.0.0.2")).setDev("v0").setWeight(1))
                 .addPath(RoutePath().setGateway(ip("10.0.1.2")).setDev("v1").setWeight(2)));
  auto r = ipRoute("table 100");
  ASSERT_TRUE(r.contains("nexthops")) << r.dump();
  ASSERT_EQ(r["nexthops"].size(), 2u);
  EXPECT_EQ(r["nexthops"][0]["gateway"], "10.0.0.2");
  EXPECT_EQ(r["nexthops"][0]["dev"], "v0");
  EXPECT_EQ(r["nexthops"][0]["weight"], 1);
  EXPECT_EQ(r["nexthops"][1]["gateway"], "10.0.1.2");
  EXPECT_EQ(r["nexthops"][1]["dev"], "v1");
  EXPECT_EQ(r["nexthops"][1]["weight"], 2);

  auto list = routes.list(RouteFilter().setTable(100));
  ASSERT_EQ(list.size(), 1u);
  ASSERT_EQ(list[0].paths.size(), 2u);
  EXPECT_EQ(list[0].paths[1].gateway, ip("10.0.1.2"));
  EXPECT_EQ(list[0].paths[1].weight, 2);
  EXPECT_EQ(list[0].paths[1].dev, Ifref(ifindex("v1")));
  // A dev filter matches a route by any of its paths.
  EXPECT_EQ(routes.list(RouteFilter().setTable(100).setDev("v1")).size(), 1u);
}

TEST_F(RouteTest, RejectTypes) {
  routes.add(RouteInfo(pfx("10.3.0.0/16")).setType(RouteType::Blackhole).setTable(100));
  routes.add(RouteInfo(pfx("10.4.0.0/16")).setType(RouteType::Unreachable).setTable(100));
  routes.add(RouteInfo(pfx("10.5.0.0/16")).setType(RouteType::Prohibit).setTable(100));
  routes.add(RouteInfo(pfx("2001:db8:9::/48")).setType(RouteType::Blackhole).setTable(100));
  auto j = ipRoutes("table 100");
  ASSERT_EQ(j.size(), 3u);
  EXPECT_EQ(j[0]["type"], "blackhole");
  EXPECT_EQ(j[1]["type"], "unreachable");
  EXPECT_EQ(j[2]["type"], "prohibit");
  EXPECT_EQ(ns.ipJson("-6 route show table 100")[0]["type"], "blackhole");
  auto bh = routes.list(RouteFilter().setTable(100).setType(RouteType::Blackhole));
  ASSERT_EQ(bh.size(), 2u);  // IPv4 and IPv6
  EXPECT_EQ(routes.list(RouteFilter().setTable(100).setType(RouteType::Prohibit))[0].dst, pfx("10.5.0.0/16"));
}

TEST_F(RouteTest, MetricsMtuAdvmssAndOnlink) {
  routes.add(RouteInfo(pfx("10.3.0.0/16")).setGateway(ip("10.0.0.2")).setTable(100).setMetrics(
      RouteMetrics().setMtu(1400).setAdvmss(1360)));
  routes.add(RouteInfo(pfx("10.4.0.0/16")).setGateway(ip("192.168.9.1")).setDev("v0").setOnlink().setTable(100));
  auto j = ipRoutes("table 100");
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["metrics"][0]["mtu"], 1400);
  EXPECT_EQ(j[0]["metrics"][0]["advmss"], 1360);
  EXPECT_EQ(j[1]["gateway"], "192.168.9.1");
  EXPECT_EQ(j[1]["flags"][0], "onlink");
  auto list = routes.list(RouteFilter().setTable(100));
  ASSERT_EQ(list.size(), 2u);
  ASSERT_TRUE(list[0].metrics);
  EXPECT_EQ(list[0].metrics->mtu, 1400u);
  EXPECT_EQ(list[0].metrics->advmss, 1360u);
  EXPECT_TRUE(list[1].onlink);
}

TEST_F(RouteTest, Ipv6AddReplaceDel) {
  routes.add(RouteInfo(pfx("2001:db8:1::/48")).setGateway(ip("2001:db8::2")).setDev("v0").setMetric(100));
  auto r = ns.ipJson("-6 route show 2001:db8:1::/48");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0]["gateway"], "2001:db8::2");
  routes.replace(RouteInfo(pfx("2001:db8:1::/48")).setGateway(ip("2001:db8::3")).setDev("v0").setMetric(100));
  r = ns.ipJson("-6 route show 2001:db8:1::/48");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0]["gateway"], "2001:db8::3");
  auto list = routes.list(RouteFilter().setFamily(IpAddress::Family::v6).setTable(kTableMain).setProtocol(RouteProtocol::Boot));
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].dst, pfx("2001:db8:1::/48"));
  routes.del(RouteInfo(pfx("2001:db8:1::/48")).setMetric(100));
  EXPECT_EQ(ns.ipJson("-6 route show 2001:db8:1::/48").size(), 0u);
}

TEST_F(RouteTest, ReplaceAndAppend) {
  routes.add(RouteInfo(pfx("10.6.0.0/16")).setGateway(ip("10.0.0.2")).setTable(100));
  routes.replace(RouteInfo(pfx("10.6.0.0/16")).setGateway(ip("10.0.0.3")).setTable(100));
  auto j = ipRoutes("table 100");
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["gateway"], "10.0.0.3");
  routes.append(RouteInfo(pfx("10.6.0.0/16")).setGateway(ip("10.0.1.2")).setTable(100));
  EXPECT_EQ(ipRoutes("table 100").size(), 2u);
}

TEST_F(RouteTest, GetResolvesDeviceGatewayAndSource) {
  routes.add(RouteInfo(pfx("10.9.0.0/16")).setGateway(ip("10.0.1.2")));
  RouteInfo r = routes.get(RouteQuery(ip("10.9.1.1")));
  auto j = ns.ipJson("route get 10.9.1.1");
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["dev"], "v1");
  EXPECT_EQ(r.devIndex(), ifindex("v1"));
  EXPECT_EQ(r.gateway, ip("10.0.1.2"));
  EXPECT_EQ(r.prefsrc, IpAddress::parse(j[0]["prefsrc"].get<std::string>()));
  EXPECT_EQ(r.table, kTableMain);
  EXPECT_EQ(r.dst, pfx("10.9.1.1/32"));
  // fibmatch returns the FIB entry itself.
  RouteInfo fib = routes.get(RouteQuery(ip("10.9.1.1")).setFibMatch());
  EXPECT_EQ(fib.dst, pfx("10.9.0.0/16"));
  // A forced output device.
  RouteInfo onV0 = routes.get(RouteQuery(ip("10.0.0.77")).setOif("v0"));
  EXPECT_EQ(onV0.devIndex(), ifindex("v0"));
  EXPECT_FALSE(onV0.gateway);
  // No route at all.
  // An IPv6 lookup that succeeds, then one with no route (ip finds none either).
  RouteInfo v6 = routes.get(RouteQuery(ip("2001:db8::5")));
  EXPECT_EQ(v6.devIndex(), ifindex("v0"));
  EXPECT_EQ(run("ip -n " + ns.name() + " -6 route get 2001:db8:ffff::1 oif v1").status, 2) << "ip finds no route either";
  try {
    routes.get(RouteQuery(ip("2001:db8:ffff::1")).setOif("v1"));
    FAIL() << "a route where there is none";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::network_unreachable) << e.what();
  }
}

TEST_F(RouteTest, GetInVrf) {
  FASTLINK_REQUIRE_KIND("vrf");
  ns.ip("link add blue type vrf table 10");
  ns.ip("link set blue up");
  ns.ip("link set v1 master blue");
  ns.ip("route add 10.20.0.0/16 via 10.0.1.2 dev v1 table 10");
  RouteInfo r = routes.get(RouteQuery(ip("10.20.3.4")).setVrf("blue"));
  EXPECT_EQ(r.devIndex(), ifindex("v1"));
  EXPECT_EQ(r.gateway, ip("10.0.1.2"));
  EXPECT_EQ(r.table, 10u);
  RouteInfo byTable = routes.get(RouteQuery(ip("10.20.3.4")).setTable(10));
  EXPECT_EQ(byTable.devIndex(), ifindex("v1"));
  // Outside the VRF the address is unreachable through main.
  EXPECT_THROW(routes.get(RouteQuery(ip("10.20.3.4"))), Error);
}

TEST_F(RouteTest, GetByTableWithoutVrfIsAClearError) {
  try {
    routes.get(RouteQuery(ip("10.9.1.1")).setTable(77));
    FAIL() << "lookup in a table without VRF accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::invalid_argument);
    EXPECT_NE(e.reason().find("no VRF device is bound to table 77"), std::string::npos) << e.what();
  }
}

TEST_F(RouteTest, ListFiltersByTableProtocolDevAndType) {
  for (int i = 0; i < 5; ++i)
    routes.add(RouteInfo(pfx(("10.10." + std::to_string(i) + ".0/24").c_str())).setGateway(ip("10.0.0.2")).setTable(100));
  for (int i = 0; i < 3; ++i)
    routes.add(RouteInfo(pfx(("10.11." + std::to_string(i) + ".0/24").c_str()))
                   .setGateway(ip("10.0.1.2"))
                   .setTable(100)
                   .setProtocol(RouteProtocol::Bgp));
  routes.add(RouteInfo(pfx("10.12.0.0/24")).setGateway(ip("10.0.1.2")).setTable(200));
  EXPECT_EQ(routes.list(RouteFilter().setTable(100)).size(), ipRoutes("table 100").size());
  EXPECT_EQ(routes.list(RouteFilter().setTable(100)).size(), 8u);
  EXPECT_EQ(routes.list(RouteFilter().setTable(100).setProtocol(RouteProtocol::Bgp)).size(),
            ipRoutes("table 100 proto bgp").size());
  EXPECT_EQ(routes.list(RouteFilter().setTable(100).setProtocol(RouteProtocol::Bgp)).size(), 3u);
  EXPECT_EQ(routes.list(RouteFilter().setTable(100).setDev("v0")).size(), ipRoutes("table 100 dev v0").size());
  EXPECT_EQ(routes.list(RouteFilter().setTable(100).setDev("v0")).size(), 5u);
  EXPECT_EQ(routes.list(RouteFilter().setDev("v1").setFamily(IpAddress::Family::v4)).size(),
            ns.ipJson("-4 route show table all dev v1").size());
  // Every table and both families: v1's IPv6 link-local route appears when its DAD ends, 1-2 s
  // after v1 came up, which on a loaded VM can fall between the two reads.
  auto [mine, ip] = settledReads([&] { return routes.list(RouteFilter().setDev("v1")).size(); },
                                 [&] { return ipRoutes("table all dev v1").size(); });
  EXPECT_EQ(mine, ip);
  EXPECT_EQ(routes.list(RouteFilter().setTable(kTableLocal).setType(RouteType::Local).setFamily(IpAddress::Family::v4)).size(),
            ipRoutes("table local type local").size());
  EXPECT_EQ(routes.list(RouteFilter().setTable(4242)).size(), 0u);  // a table that does not exist
  EXPECT_EQ(routes.list(RouteFilter().setTable(4242).setFamily(IpAddress::Family::v4)).size(), 0u);
  EXPECT_EQ(routes.flush(RouteFilter().setTable(100).setProtocol(RouteProtocol::Bgp)), 3u);
  EXPECT_EQ(ipRoutes("table 100").size(), 5u);
  EXPECT_EQ(routes.flush(RouteFilter().setTable(100)), 5u);
  EXPECT_EQ(ipRoutes("table 100").size(), 0u);
  EXPECT_EQ(ipRoutes("table 200").size(), 1u);
}

// Bad input: a clear error, and the routing tables are exactly as before.
TEST_F(RouteTest, BadInputChangesNothing) {
  std::string before = snapshot();
  auto expectError = [&](const std::function<void()>& f, std::errc code, const std::string& text) {
    try {
      f();
      ADD_FAILURE() << "no error, expected: " << text;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), code) << e.what();
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  };
  expectError([&] { Prefix::parse("10.0.0.1/33"); }, std::errc::invalid_argument, "length 33 is longer than 32");
  expectError([&] { Prefix::parse("10.0.0.300/8"); }, std::errc::invalid_argument, "invalid IP address");
  expectError([&] { routes.add(RouteInfo(pfx("10.0.0.1/24")).setDev("v0").setTable(100)); },
              std::errc::invalid_argument, "host bits are set (the network is 10.0.0.0/24)");
  expectError([&] { routes.add(RouteInfo(pfx("10.7.0.0/24")).setGateway(ip("10.9.9.9")).setTable(100)); },
              std::errc::network_unreachable, "");
  expectError([&] { routes.add(RouteInfo(pfx("10.7.0.0/24")).setGateway(ip("10.9.9.9")).setDev("v0").setTable(100)); },
              std::errc::network_unreachable, "Nexthop has invalid gateway");
  expectError([&] { routes.add(RouteInfo(pfx("10.7.0.0/24")).setDev("nosuchdev").setTable(100)); },
              std::errc::no_such_device, "");
  expectError([&] { routes.add(RouteInfo(pfx("10.7.0.0/24")).setDev(9999u).setTable(100)); },
              std::errc::no_such_device, "");
  expectError([&] { routes.add(RouteInfo(pfx("10.7.0.0/24")).setGateway(ip("2001:db8::2"))); },
              std::errc::invalid_argument, "is not an IPv4 address");
  expectError([&] { routes.add(RouteInfo().setGateway(ip("10.0.0.2"))); }, std::errc::invalid_argument,
              "needs a destination");
  expectError([&] { RouteNames::system().tableId("nonexistent-table"); }, std::errc::invalid_argument,
              "unknown routing table");
  expectError(
      [&] {
        routes.add(RouteInfo(pfx("10.7.0.0/24")).addPath(RoutePath().setGateway(ip("10.0.0.2")).setWeight(300)));
      },
      std::errc::invalid_argument, "weight 300 is out of range");
  expectError([&] { routes.del(RouteInfo(pfx("10.77.0.0/16")).setTable(100)); }, std::errc::no_such_process, "");
  EXPECT_EQ(snapshot(), before);
}

// 10,000 routes as one streamed, pipelined batch; then dumped and flushed.
TEST_F(RouteTest, BulkTenThousandRoutes) {
  constexpr std::size_t kCount = 10000;
  std::size_t next = 0;
  uint32_t v0 = ifindex("v0");
  RequestSource source = [&]() -> std::optional<Request> {
    if (next == kCount) return std::nullopt;
    std::size_t i = next++;
    IpAddress a = IpAddress::fromBytes(std::array<uint8_t, 4>{20, static_cast<uint8_t>(i >> 8), static_cast<uint8_t>(i), 0});
    return RouteRequests::add(RouteInfo(Prefix(a, 24)).setGateway(ip("10.0.0.2")).setDev(v0).setTable(300));
  };
  std::size_t failed = 0;
  BatchResult totals = nl.run(source, BatchOptions{.onError = OnError::Continue}, [&](std::size_t, const RequestResult& r) {
    if (r.status != RequestStatus::Applied) ++failed;
  });
  EXPECT_EQ(totals.applied, kCount);
  EXPECT_EQ(failed, 0u);
  EXPECT_EQ(ipRoutes("table 300").size(), kCount);
  std::size_t seen = 0;
  routes.forEach(RouteFilter().setTable(300), [&](const RouteInfo& r) {
    ++seen;
    EXPECT_EQ(r.gateway, ip("10.0.0.2"));
  });
  EXPECT_EQ(seen, kCount);

  // The filters run in the kernel: listing another table, or another device, reads a few
  // hundred bytes, not the 10,000 routes (~1 MB) of table 300.
  routes.add(RouteInfo(pfx("10.12.0.0/24")).setGateway(ip("10.0.1.2")).setTable(301));
  // Measured on the wire by an observer of the socket calls, not by fastlink's own counters.
  auto onWire = [&](const RouteFilter& f, std::size_t expected) {
    wire::reset();
    EXPECT_EQ(routes.list(f).size(), expected);
    wire::Counts w = wire::counts();
    EXPECT_EQ(w.dumpRequests, 1u);
    return w;
  };
  // Each: the matching routes, plus at most the reply to a device-name lookup.
  EXPECT_LE(onWire(RouteFilter().setTable(301), 1).dataMessages, 1u);
  EXPECT_LE(onWire(RouteFilter().setTable(300).setDev("v1"), 0).dataMessages, 1u);
  EXPECT_LE(onWire(RouteFilter().setTable(300).setProtocol(RouteProtocol::Bgp), 0).dataMessages, 0u);
  EXPECT_LE(onWire(RouteFilter().setTable(300).setType(RouteType::Blackhole), 0).dataMessages, 0u);
  EXPECT_LT(onWire(RouteFilter().setTable(301), 1).replyBytes, 4096u);
  wire::Counts all = onWire(RouteFilter().setTable(300), kCount);
  EXPECT_EQ(all.dataMessages, kCount);
  EXPECT_GT(all.replyBytes, 500000u);

  EXPECT_EQ(routes.flush(RouteFilter().setTable(300)), kCount);
  EXPECT_EQ(ipRoutes("table 300").size(), 0u);
}

// Continue mode: exactly the invalid routes fail, each with its index and the kernel's extack.
TEST_F(RouteTest, BatchReportsEveryFailedRouteWithExtack) {
  Batch batch;
  std::vector<std::size_t> bad = {3, 7, 8};
  for (std::size_t i = 0; i < 12; ++i) {
    RouteInfo r(Prefix(IpAddress::fromBytes(std::array<uint8_t, 4>{30, 0, static_cast<uint8_t>(i), 0}), 24));
    r.setDev(ifindex("v0")).setTable(400);
    bool isBad = std::find(bad.begin(), bad.end(), i) != bad.end();
    r.setGateway(isBad ? ip("10.9.9.9") : ip("10.0.0.2"));  // 10.9.9.9 is in no subnet of v0
    batch.add(RouteRequests::add(r));
  }
  BatchResult result = nl.run(batch, BatchOptions{.onError = OnError::Continue});
  EXPECT_EQ(result.applied, 9u);
  EXPECT_EQ(result.failed, 3u);
  std::vector<std::size_t> failedAt;
  for (std::size_t i = 0; i < result.results.size(); ++i) {
    if (result.results[i].status != RequestStatus::Failed) continue;
    failedAt.push_back(i);
    ASSERT_TRUE(result.results[i].error);
    EXPECT_EQ(result.results[i].error->extack(), "Nexthop has invalid gateway");
    EXPECT_EQ(result.results[i].error->batchIndex(), i);
  }
  EXPECT_EQ(failedAt, bad);
  EXPECT_EQ(ipRoutes("table 400").size(), 9u);
}

}  // namespace
}  // namespace fastlink::test
