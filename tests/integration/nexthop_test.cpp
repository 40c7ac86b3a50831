// Nexthop objects in a fresh namespace, checked against `ip -j nexthop` and `ip -j route`.
#include <gtest/gtest.h>

#include <fastlink/fastlink.hpp>
#include <fastlink/nexthop.hpp>
#include <fastlink/route.hpp>

#include "support/test_netns.hpp"

namespace fastlink::test {
namespace {

class NexthopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ns.ip("link set lo up");  // blackhole nexthops use lo
    ns.ip("link add v0 type veth peer name v1");
    ns.ip("link set v0 up");
    ns.ip("link set v1 up");
    ns.ip("addr add 10.0.0.1/24 dev v0");
    ns.ip("addr add 10.0.1.1/24 dev v1");
  }
  nlohmann::json ipNexthop(uint32_t id) {
    auto j = ns.ipJson("nexthop show id " + std::to_string(id));
    EXPECT_EQ(j.size(), 1u);
    return j.empty() ? nlohmann::json::object() : j[0];
  }

  TestNetns ns;
  Netlink nl{NetlinkOptions{.netns = Netns::named(ns.name())}};
  NexthopApi& nexthops = nl.nexthops();
};

TEST_F(NexthopTest, SingleGroupAndRouteUsingIt) {
  nexthops.add(NexthopInfo(1).setGateway(IpAddress::parse("10.0.0.2")).setDev("v0"));
  nexthops.add(NexthopInfo(2).setGateway(IpAddress::parse("10.0.1.2")).setDev("v1"));
  nexthops.add(NexthopInfo(3).setBlackhole());
  nexthops.add(NexthopInfo(10).setGroup({{1, 1}, {2, 3}}));

  auto one = ipNexthop(1);
  EXPECT_EQ(one["gateway"], "10.0.0.2");
  EXPECT_EQ(one["dev"], "v0");
  EXPECT_TRUE(ipNexthop(3).contains("blackhole"));  // ip prints "blackhole":null
  auto group = ipNexthop(10);
  ASSERT_EQ(group["group"].size(), 2u);
  EXPECT_EQ(group["group"][0]["id"], 1);
  EXPECT_FALSE(group["group"][0].contains("weight"));  // ip omits weight 1
  EXPECT_EQ(group["group"][1]["id"], 2);
  EXPECT_EQ(group["group"][1]["weight"], 3);

  NexthopInfo g = nexthops.get(10);
  EXPECT_TRUE(g.isGroup());
  EXPECT_EQ(g.group, (std::vector<NexthopGroupMember>{{1, 1}, {2, 3}}));
  NexthopInfo n1 = nexthops.get(1);
  EXPECT_EQ(n1.gateway, IpAddress::parse("10.0.0.2"));
  EXPECT_EQ(n1.devIndex(), *nl.links().get("v0").index);
  EXPECT_TRUE(nexthops.get(3).blackhole);

  EXPECT_EQ(nexthops.list().size(), 4u);
  EXPECT_EQ(nexthops.list(NexthopFilter().setDev("v1")).size(), 1u);
  EXPECT_EQ(nexthops.list(NexthopFilter().setGroupsOnly()).size(), 1u);

  nl.routes().add(RouteInfo(Prefix::parse("10.5.0.0/16")).setNhid(10));
  auto r = ns.ipJson("route show 10.5.0.0/16");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0]["nhid"], 10);
  auto routes = nl.routes().list(RouteFilter().setTable(kTableMain).setFamily(IpAddress::Family::v4));
  bool found = false;
  for (const auto& route : routes)
    if (route.dst == Prefix::parse("10.5.0.0/16")) {
      found = true;
      EXPECT_EQ(route.nhid, 10u);
    }
  EXPECT_TRUE(found);

  // replace a member's gateway in place.
  nexthops.replace(NexthopInfo(1).setGateway(IpAddress::parse("10.0.0.3")).setDev("v0"));
  EXPECT_EQ(ipNexthop(1)["gateway"], "10.0.0.3");

  nexthops.del(10);
  EXPECT_EQ(ns.ipJson("nexthop show").size(), 3u);
  EXPECT_EQ(ns.ipJson("route show 10.5.0.0/16").size(), 0u);  // the kernel removes its routes
}

TEST_F(NexthopTest, ErrorsAreClearAndChangeNothing) {
  nexthops.add(NexthopInfo(1).setGateway(IpAddress::parse("10.0.0.2")).setDev("v0"));
  std::string before = ns.ip("-j nexthop show");
  auto expectError = [&](const std::function<void()>& f, std::errc code, const std::string& text) {
    try {
      f();
      ADD_FAILURE() << "no error, expected: " << text;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), code) << e.what();
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  };
  expectError([&] { nexthops.add(NexthopInfo(1).setDev("v0")); }, std::errc::file_exists, "");
  expectError([&] { nexthops.add(NexthopInfo(11).setGroup({{1, 1}, {99, 1}})); }, std::errc::invalid_argument,
              "Invalid nexthop id");
  expectError([&] { nexthops.add(NexthopInfo(12).setGateway(IpAddress::parse("10.9.9.9")).setDev("v0")); },
              std::errc::network_unreachable, "Nexthop has invalid gateway");
  expectError([&] { nexthops.add(NexthopInfo(13).setGroup({{1, 300}})); }, std::errc::invalid_argument,
              "weight 300 is out of range");
  expectError([&] { nexthops.add(NexthopInfo(14)); }, std::errc::invalid_argument, "needs via, dev, blackhole or group");
  expectError([&] { nexthops.get(77); }, std::errc::no_such_file_or_directory, "");
  expectError([&] { nexthops.del(77); }, std::errc::no_such_file_or_directory, "");
  EXPECT_EQ(ns.ip("-j nexthop show"), before);
}

}  // namespace
}  // namespace fastlink::test
