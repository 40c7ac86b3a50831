// Addresses in a fresh namespace, checked against `ip -j addr show`.
#include <gtest/gtest.h>

#include <fastlink/addr.hpp>
#include <fastlink/fastlink.hpp>

#include <set>

#include "support/settled.hpp"
#include "support/test_netns.hpp"
#include "support/wire_observer.hpp"

namespace fastlink::test {
namespace {

class AddrTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ns.ip("link add v0 type veth peer name v1");
    ns.ip("link set v0 up");
    ns.ip("link set v1 up");
  }

  /// addr_info of DEV from `ip -j addr show dev DEV`, without link-local IPv6 addresses.
  nlohmann::json ipAddrs(const std::string& dev) {
    auto j = ns.ipJson("addr show dev " + dev);
    nlohmann::json out = nlohmann::json::array();
    if (j.size() != 1) return out;
    for (const auto& a : j[0]["addr_info"])
      if (a["scope"] != "link") out.push_back(a);
    return out;
  }
  nlohmann::json ipAddr(const std::string& dev, const std::string& local) {
    for (const auto& a : ipAddrs(dev))
      if (a["local"] == local) return a;
    ADD_FAILURE() << local << " not on " << dev;
    return nlohmann::json::object();
  }

  TestNetns ns;
  Netlink nl{NetlinkOptions{.netns = Netns::named(ns.name())}};
  AddrApi& addrs = nl.addresses();
};

TEST_F(AddrTest, Ipv4WithLabelBroadcastPeer) {
  addrs.add(AddrInfo(Prefix::parse("10.0.0.1/24"), "v0"));
  addrs.add(AddrInfo(Prefix::parse("10.0.0.5/24"), "v0").setLabel("v0:web"));
  addrs.add(AddrInfo(Prefix::parse("10.2.0.1/24"), "v0").setBroadcastAuto());
  addrs.add(AddrInfo(Prefix::parse("10.1.0.1/32"), "v0").setPeer(IpAddress::parse("10.1.0.2")));
  auto a = ipAddr("v0", "10.0.0.1");
  EXPECT_EQ(a["prefixlen"], 24);
  EXPECT_EQ(a["family"], "inet");
  EXPECT_EQ(a["scope"], "global");
  EXPECT_EQ(ipAddr("v0", "10.0.0.5")["label"], "v0:web");
  EXPECT_EQ(ipAddr("v0", "10.0.0.5")["secondary"], true);
  EXPECT_EQ(ipAddr("v0", "10.2.0.1")["broadcast"], "10.2.0.255");
  EXPECT_EQ(ipAddr("v0", "10.1.0.1")["address"], "10.1.0.2");

  auto list = addrs.list(AddrFilter().setDev("v0").setFamily(IpAddress::Family::v4));
  ASSERT_EQ(list.size(), 4u);
  for (const auto& x : list) {
    if (x.address == Prefix::parse("10.0.0.5/24")) {
      EXPECT_EQ(x.label, "v0:web");
      EXPECT_TRUE(x.has(AddrFlag::Secondary));
    }
    if (x.address == Prefix::parse("10.2.0.1/24")) {
      EXPECT_EQ(x.broadcast, IpAddress::parse("10.2.0.255"));
    }
    if (x.address == Prefix::parse("10.1.0.1/32")) {
      EXPECT_EQ(x.peer, IpAddress::parse("10.1.0.2"));
    }
    EXPECT_EQ(x.validLifetime, kLifetimeForever);
  }
  EXPECT_EQ(addrs.list(AddrFilter().setLabel("v0:web")).size(), 1u);

  addrs.del(AddrInfo(Prefix::parse("10.2.0.1/24"), "v0"));
  EXPECT_EQ(ipAddrs("v0").size(), 3u);
}

TEST_F(AddrTest, Ipv6WithFlagsAndLifetimes) {
  addrs.add(AddrInfo(Prefix::parse("2001:db8::1/64"), "v0")
                .setNodad()
                .setNoprefixroute()
                .setValidLifetime(300)
                .setPreferredLifetime(100));
  auto a = ipAddr("v0", "2001:db8::1");
  EXPECT_EQ(a["family"], "inet6");
  EXPECT_EQ(a["prefixlen"], 64);
  EXPECT_EQ(a["nodad"], true);
  EXPECT_EQ(a["noprefixroute"], true);
  EXPECT_LE(a["valid_life_time"].get<uint32_t>(), 300u);
  EXPECT_GE(a["valid_life_time"].get<uint32_t>(), 290u);
  EXPECT_LE(a["preferred_life_time"].get<uint32_t>(), 100u);
  // noprefixroute: no 2001:db8::/64 route appeared.
  EXPECT_EQ(ns.ipJson("-6 route show 2001:db8::/64").size(), 0u);

  auto list = addrs.list(AddrFilter().setDev("v0").setFamily(IpAddress::Family::v6).setScope(Scope::Universe));
  ASSERT_EQ(list.size(), 1u);
  EXPECT_TRUE(list[0].has(AddrFlag::Nodad));
  EXPECT_TRUE(list[0].has(AddrFlag::Noprefixroute));
  EXPECT_LE(*list[0].validLifetime, 300u);
  EXPECT_GE(*list[0].validLifetime, 290u);

  // replace changes the lifetimes of the existing address.
  addrs.replace(AddrInfo(Prefix::parse("2001:db8::1/64"), "v0").setNodad().setValidLifetime(kLifetimeForever));
  EXPECT_EQ(ipAddr("v0", "2001:db8::1")["valid_life_time"], kLifetimeForever);
}

TEST_F(AddrTest, ListIsFilteredByDeviceInTheKernel) {
  addrs.add(AddrInfo(Prefix::parse("10.0.0.1/24"), "v0"));
  // Many addresses elsewhere: a dump the kernel did not filter would carry all of them.
  Batch b;
  for (int i = 0; i < 100; ++i)
    b.add(AddrRequests::add(AddrInfo(Prefix::parse("10.1." + std::to_string(i) + ".1/24"), nl.links().indexOf("v0"))));
  ASSERT_TRUE(nl.run(b).ok());
  addrs.add(AddrInfo(Prefix::parse("10.0.1.1/24"), "v1"));

  // Counted on the wire by an observer of the socket calls (not fastlink's own counters).
  wire::reset();
  auto onV1 = addrs.list(AddrFilter().setDev("v1").setFamily(IpAddress::Family::v4));
  wire::Counts w = wire::counts();
  ASSERT_EQ(onV1.size(), 1u);
  EXPECT_EQ(onV1[0].address, Prefix::parse("10.0.1.1/24"));
  EXPECT_EQ(onV1[0].devIndex(), *nl.links().get("v1").index);
  EXPECT_EQ(w.dumpRequests, 1u);
  // v1's one address, plus at most the reply to the lookup of v1's index.
  EXPECT_LE(w.dataMessages, 2u) << "the kernel filtered by device: 101 addresses are on v0";

  // Everything, all families, equals what ip shows: the same set of (device, address), both ways.
  // The IPv6 link-local addresses come when linkwatch sees the carrier, which on a loaded VM can
  // fall between the two reads.
  auto [mine, oracle] = settledReads(
      [&] {
        std::set<std::string> out;
        for (const auto& a : addrs.list()) out.insert(std::to_string(a.devIndex()) + " " + a.address->toStringWithLength());
        return out;
      },
      [&] {
        std::set<std::string> out;
        for (const auto& link : ns.ipJson("addr show"))
          for (const auto& a : link["addr_info"])
            out.insert(std::to_string(link["ifindex"].get<uint32_t>()) + " " + a["local"].get<std::string>() + "/" +
                       std::to_string(a["prefixlen"].get<int>()));
        return out;
      });
  EXPECT_EQ(mine, oracle);
  EXPECT_GE(mine.size(), 103u);
}

TEST_F(AddrTest, FlushDevice) {
  // No link-local address on v0: one that linkwatch added after the flush would be counted below.
  ns.ip("link set v0 addrgenmode none");
  ns.exec("ip -6 addr flush dev v0");
  addrs.add(AddrInfo(Prefix::parse("10.0.0.1/24"), "v0"));
  addrs.add(AddrInfo(Prefix::parse("10.0.0.2/24"), "v0"));
  addrs.add(AddrInfo(Prefix::parse("2001:db8::1/64"), "v0").setNodad());
  addrs.add(AddrInfo(Prefix::parse("10.0.1.1/24"), "v1"));
  EXPECT_GE(addrs.flush(AddrFilter().setDev("v0")), 2u);
  auto j = ns.ipJson("addr show dev v0");
  EXPECT_EQ(j[0]["addr_info"].size(), 0u) << j.dump();
  EXPECT_EQ(ipAddrs("v1").size(), 1u);
}

TEST_F(AddrTest, BadInputChangesNothing) {
  addrs.add(AddrInfo(Prefix::parse("10.0.0.1/24"), "v0"));
  std::string before = ns.ip("-4 -j addr show") + ns.ip("-6 -j addr show scope global");
  auto expectError = [&](const std::function<void()>& f, std::errc code, const std::string& text) {
    try {
      f();
      ADD_FAILURE() << "no error, expected: " << text;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), code) << e.what();
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  };
  expectError([&] { addrs.add(AddrInfo(Prefix::parse("10.0.0.1/24"), "v0")); }, std::errc::file_exists, "");
  expectError([&] { addrs.add(AddrInfo(Prefix::parse("10.0.0.9/24"), "nosuch")); }, std::errc::no_such_device, "");
  expectError([&] { addrs.add(AddrInfo(Prefix::parse("10.0.0.9/24"), "v0").setLabel("web")); },
              std::errc::invalid_argument, "must begin with the device name");
  expectError([&] { addrs.add(AddrInfo(Prefix::parse("2001:db8::9/64"), "v0").setBroadcast(IpAddress::parse("10.0.0.255"))); },
              std::errc::invalid_argument, "only for IPv4");
  expectError([&] { addrs.add(AddrInfo(Prefix::parse("10.0.0.9/24"), "v0").setValidLifetime(10).setPreferredLifetime(20)); },
              std::errc::invalid_argument, "preferred_lft is greater than valid_lft");
  expectError([&] { addrs.del(AddrInfo(Prefix::parse("10.0.0.77/24"), "v0")); }, std::errc::address_not_available, "");
  EXPECT_EQ(ns.ip("-4 -j addr show") + ns.ip("-6 -j addr show scope global"), before);
}

}  // namespace
}  // namespace fastlink::test
