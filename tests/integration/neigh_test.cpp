// Neighbours against the real kernel, with `ip -j neigh` as the oracle.
#include <gtest/gtest.h>

#include <fastlink/fastlink.hpp>
#include <fastlink/neigh.hpp>

#include <algorithm>
#include <set>

#include "support/test_netns.hpp"
#include "support/wire_observer.hpp"

namespace fastlink::test {
namespace {

class NeighTest : public ::testing::Test {
 protected:
  TestNetns ns;
  Netlink nl{NetlinkOptions{.netns = Netns::named(ns.name())}};
  NeighApi& neigh = nl.neighbours();

  void SetUp() override {
    ns.ip("link add v0 type veth peer name v1");
    ns.ip("link add v2 type veth peer name v3");
    for (const char* d : {"v0", "v1", "v2", "v3"}) ns.ip(std::string("link set ") + d + " up");
  }

  uint32_t ifindex(const std::string& dev) { return nl.links().indexOf(dev); }

  /// "dst lladdr STATE [router]" for every unicast entry iproute2 shows (nud all).
  std::set<std::string> oracle(const std::string& args) {
    std::set<std::string> out;
    for (const auto& e : ns.ipJson("neigh show nud all " + args)) {
      std::string dst = e["dst"];
      if (IpAddress::parse(dst).isMulticast()) continue;  // the kernel's own MLD entries
      std::string line = dst;
      if (e.contains("dev")) line += " dev " + e["dev"].get<std::string>();
      if (e.contains("lladdr")) line += " " + e["lladdr"].get<std::string>();
      if (!e.contains("proxy")) line += " " + (e.contains("state") ? e["state"][0].get<std::string>() : std::string("NONE"));
      if (e.contains("router")) line += " router";
      if (e.contains("proxy")) line += " proxy";
      out.insert(line);
    }
    return out;
  }

  std::set<std::string> mine(const NeighFilter& filter, bool withDev) {
    std::set<std::string> out;
    for (const auto& n : neigh.list(filter)) {
      if (!n.dst || n.dst->isMulticast()) continue;
      std::string line = n.dst->toString();
      if (withDev) line += " dev " + devName(n.devIndex());
      if (n.lladdr) line += " " + n.lladdr->toString();
      if (!n.isProxy()) line += " " + neighStateName(n.state.value_or(NeighState::None));
      if (n.isRouter()) line += " router";
      if (n.isProxy()) line += " proxy";
      out.insert(line);
    }
    return out;
  }

  std::string devName(uint32_t index) { return *nl.links().get(index).name; }
};

TEST_F(NeighTest, AddV4AndV6EntriesInEveryStateMatchIproute2) {
  auto mac = MacAddress::parse("02:00:00:00:00:02");
  neigh.add(NeighInfo(IpAddress::parse("10.0.0.2"), "v0").setLladdr(mac).setState(NeighState::Permanent));
  neigh.add(NeighInfo(IpAddress::parse("10.0.0.3"), "v0")
                .setLladdr(MacAddress::parse("02:00:00:00:00:03"))
                .setState(NeighState::Stale));
  neigh.add(NeighInfo(IpAddress::parse("10.0.0.4"), "v0")
                .setLladdr(MacAddress::parse("02:00:00:00:00:04"))
                .setState(NeighState::Noarp));
  neigh.add(NeighInfo(IpAddress::parse("2001:db8::2"), "v0")
                .setLladdr(MacAddress::parse("02:00:00:00:00:62"))
                .setState(NeighState::Reachable)
                .setRouter(true));
  neigh.add(NeighInfo(IpAddress::parse("2001:db8::3"), "v0")
                .setLladdr(MacAddress::parse("02:00:00:00:00:63"))
                .setState(NeighState::Stale));

  std::set<std::string> expected = {
      "10.0.0.2 02:00:00:00:00:02 PERMANENT", "10.0.0.3 02:00:00:00:00:03 STALE",
      "10.0.0.4 02:00:00:00:00:04 NOARP",     "2001:db8::2 02:00:00:00:00:62 REACHABLE router",
      "2001:db8::3 02:00:00:00:00:63 STALE",
  };
  EXPECT_EQ(oracle("dev v0"), expected);
  EXPECT_EQ(mine(NeighFilter().setDev("v0"), false), expected);

  // Family and device filters in the kernel: 60 entries elsewhere (v2) that a dump the kernel
  // did not filter would carry; replies counted on the wire (not by fastlink's counters).
  std::vector<std::string> lines;
  for (int i = 0; i < 30; ++i) {
    lines.push_back("neigh add 10.0.2." + std::to_string(i + 1) + " lladdr 02:00:00:00:02:01 dev v2");
    lines.push_back("neigh add 2001:db8:2::" + std::to_string(i + 1) + " lladdr 02:00:00:00:02:01 dev v2");
  }
  ns.ipBatch(lines);
  std::set<std::string> v6Expected = {"2001:db8::2 dev v0 02:00:00:00:00:62 REACHABLE router",
                                      "2001:db8::3 dev v0 02:00:00:00:00:63 STALE"};
  for (int i = 0; i < 30; ++i) v6Expected.insert("2001:db8:2::" + std::to_string(i + 1) + " dev v2 02:00:00:00:02:01 PERMANENT");
  std::set<std::string> v6Oracle;
  for (const auto& line : oracle("")) if (line.find(':') < line.find(' ')) v6Oracle.insert(line);
  EXPECT_EQ(v6Oracle, v6Expected);
  EXPECT_EQ(mine(NeighFilter().setFamily(IpAddress::Family::v6), true), v6Expected);
  wire::reset();
  auto v4 = neigh.list(NeighFilter().setFamily(IpAddress::Family::v4).setDev("v0"));
  wire::Counts w = wire::counts();
  EXPECT_EQ(v4.size(), 3u);
  for (const auto& n : v4) EXPECT_TRUE(n.dst->isV4() && n.devIndex() == ifindex("v0"));
  EXPECT_EQ(w.dumpRequests, 1u);
  // v0's 3 IPv4 entries, plus at most the lookup of v0's index.
  EXPECT_LE(w.dataMessages, 4u) << "the kernel filtered by family and device: 63 other entries exist";
  wire::reset();
  auto v6OnV0 = neigh.list(NeighFilter().setFamily(IpAddress::Family::v6).setDev("v0"));
  w = wire::counts();
  std::size_t unicast = std::count_if(v6OnV0.begin(), v6OnV0.end(), [](const NeighInfo& n) { return !n.dst->isMulticast(); });
  EXPECT_EQ(unicast, 2u);
  EXPECT_LE(w.dataMessages, v6OnV0.size() + 1) << "the kernel filtered by family and device";

  // get/find.
  NeighInfo got = neigh.get(IpAddress::parse("10.0.0.2"), "v0");
  EXPECT_EQ(got.lladdr, mac);
  EXPECT_EQ(got.state, NeighState::Permanent);
  EXPECT_EQ(got.devIndex(), ifindex("v0"));
  EXPECT_FALSE(neigh.find(IpAddress::parse("10.0.0.99"), "v0"));
}

TEST_F(NeighTest, AddExistingFailsReplaceOverwritesDelRemoves) {
  NeighInfo n = NeighInfo(IpAddress::parse("10.0.0.2"), "v0").setLladdr(MacAddress::parse("02:00:00:00:00:02"));
  neigh.add(n);  // state defaults to permanent, like `ip neigh add`
  EXPECT_EQ(oracle("dev v0"), std::set<std::string>{"10.0.0.2 02:00:00:00:00:02 PERMANENT"});
  try {
    neigh.add(n);
    FAIL() << "a second add must fail";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::file_exists) << e.what();
  }
  neigh.replace(NeighInfo(IpAddress::parse("10.0.0.2"), "v0")
                    .setLladdr(MacAddress::parse("02:00:00:00:00:aa"))
                    .setState(NeighState::Stale));
  EXPECT_EQ(oracle("dev v0"), std::set<std::string>{"10.0.0.2 02:00:00:00:00:aa STALE"});
  neigh.change(NeighInfo(IpAddress::parse("10.0.0.2"), "v0")
                   .setLladdr(MacAddress::parse("02:00:00:00:00:bb"))
                   .setState(NeighState::Noarp));
  EXPECT_EQ(oracle("dev v0"), std::set<std::string>{"10.0.0.2 02:00:00:00:00:bb NOARP"});
  neigh.del(NeighInfo(IpAddress::parse("10.0.0.2"), "v0"));
  EXPECT_TRUE(oracle("dev v0").empty());
  try {
    neigh.del(NeighInfo(IpAddress::parse("10.0.0.2"), "v0"));
    FAIL() << "deleting a missing entry must fail";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::no_such_file_or_directory) << e.what();
  }
}

TEST_F(NeighTest, ProxyEntries) {
  neigh.add(NeighInfo(IpAddress::parse("10.0.0.9"), "v0").setProxy(true));
  neigh.add(NeighInfo(IpAddress::parse("2001:db8::9"), "v0").setProxy(true));
  neigh.add(NeighInfo(IpAddress::parse("10.0.0.10"), "v2").setProxy(true));
  // A proxy entry is not a neighbour.
  EXPECT_TRUE(mine(NeighFilter().setDev("v0"), false).empty());

  std::set<std::string> all = {"10.0.0.9 dev v0 proxy", "2001:db8::9 dev v0 proxy", "10.0.0.10 dev v2 proxy"};
  EXPECT_EQ(oracle("proxy"), all);
  EXPECT_EQ(mine(NeighFilter().setProxy(true), true), all);
  EXPECT_EQ(mine(NeighFilter().setProxy(true).setDev("v2"), true), std::set<std::string>{"10.0.0.10 dev v2 proxy"});

  NeighInfo got = neigh.get(IpAddress::parse("10.0.0.9"), "v0", true);
  EXPECT_TRUE(got.isProxy());
  neigh.del(NeighInfo(IpAddress::parse("10.0.0.9"), "v0").setProxy(true));
  EXPECT_EQ(oracle("proxy"), (std::set<std::string>{"2001:db8::9 dev v0 proxy", "10.0.0.10 dev v2 proxy"}));
}

TEST_F(NeighTest, DeviceAndMasterFiltersReturnNothingFromOtherDevices) {
  for (int i = 0; i < 5; ++i) {
    neigh.add(NeighInfo(IpAddress::parse("10.0.0." + std::to_string(10 + i)), "v0")
                  .setLladdr(MacAddress::parse("02:00:00:00:00:1" + std::to_string(i))));
    neigh.add(NeighInfo(IpAddress::parse("10.0.1." + std::to_string(10 + i)), "v2")
                  .setLladdr(MacAddress::parse("02:00:00:00:01:1" + std::to_string(i))));
  }
  uint32_t v0 = ifindex("v0"), v2 = ifindex("v2");
  auto onV0 = neigh.list(NeighFilter().setDev("v0").setFamily(IpAddress::Family::v4));
  ASSERT_EQ(onV0.size(), 5u);
  for (const auto& n : onV0) EXPECT_EQ(n.devIndex(), v0);
  auto onV2 = neigh.list(NeighFilter().setDev(v2).setFamily(IpAddress::Family::v4));
  ASSERT_EQ(onV2.size(), 5u);
  for (const auto& n : onV2) EXPECT_EQ(n.devIndex(), v2);
  EXPECT_EQ(mine(NeighFilter().setDev("v2"), false), oracle("dev v2"));

  // Master: only the bridge port's entries.
  ns.ip("link add br0 type bridge");
  ns.ip("link set v2 master br0");
  ns.ip("link set br0 up");
  // Enslaving flushes nothing permanent; the entries of v2 are still there.
  auto onBridge = neigh.list(NeighFilter().setMaster("br0").setFamily(IpAddress::Family::v4));
  ASSERT_EQ(onBridge.size(), 5u);
  for (const auto& n : onBridge) EXPECT_EQ(n.devIndex(), v2);
  EXPECT_EQ(mine(NeighFilter().setMaster("br0"), true), oracle("master br0"));

  // A device without entries: nothing at all.
  EXPECT_TRUE(neigh.list(NeighFilter().setDev("v3").setFamily(IpAddress::Family::v4)).empty());

  // A state filter (user space).
  neigh.replace(NeighInfo(IpAddress::parse("10.0.0.10"), "v0")
                    .setLladdr(MacAddress::parse("02:00:00:00:00:10"))
                    .setState(NeighState::Stale));
  auto stale = neigh.list(NeighFilter().setDev("v0").addState(NeighState::Stale));
  ASSERT_EQ(stale.size(), 1u);
  EXPECT_EQ(stale[0].dst->toString(), "10.0.0.10");
}

TEST_F(NeighTest, FlushDeviceKeepsPermanentAndOtherDevices) {
  for (int i = 0; i < 4; ++i) {
    neigh.add(NeighInfo(IpAddress::parse("10.0.0." + std::to_string(10 + i)), "v0")
                  .setLladdr(MacAddress::parse("02:00:00:00:00:1" + std::to_string(i)))
                  .setState(NeighState::Stale));
    neigh.add(NeighInfo(IpAddress::parse("10.0.1." + std::to_string(10 + i)), "v2")
                  .setLladdr(MacAddress::parse("02:00:00:00:01:1" + std::to_string(i)))
                  .setState(NeighState::Stale));
  }
  neigh.add(NeighInfo(IpAddress::parse("10.0.0.99"), "v0").setLladdr(MacAddress::parse("02:00:00:00:00:99")));
  auto before = oracle("dev v2");
  EXPECT_EQ(neigh.flush(NeighFilter().setDev("v0")), 4u);
  EXPECT_EQ(oracle("dev v0"), std::set<std::string>{"10.0.0.99 02:00:00:00:00:99 PERMANENT"});
  EXPECT_EQ(oracle("dev v2"), before);
  // With an explicit state mask, permanent entries go too.
  EXPECT_EQ(neigh.flush(NeighFilter().setDev("v0").addState(NeighState::Permanent)), 1u);
  EXPECT_TRUE(oracle("dev v0").empty());
  EXPECT_EQ(neigh.flush(NeighFilter().setDev("v0")), 0u);
}

TEST_F(NeighTest, BadInputIsRefusedAndChangesNothing) {
  neigh.add(NeighInfo(IpAddress::parse("10.0.0.2"), "v0").setLladdr(MacAddress::parse("02:00:00:00:00:02")));
  auto before = oracle("");

  EXPECT_THROW(MacAddress::parse("02:00:00:00:00"), Error);
  EXPECT_THROW(MacAddress::parse("zz:00:00:00:00:01"), Error);
  EXPECT_THROW(IpAddress::parse("10.0.0.300"), Error);
  try {
    neigh.add(NeighInfo(IpAddress::parse("10.0.0.3"), "nosuch0").setLladdr(MacAddress::parse("02:00:00:00:00:03")));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::no_such_device) << e.what();
  }
  try {
    neigh.add(NeighInfo().setDev("v0").setLladdr(MacAddress::parse("02:00:00:00:00:03")));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("destination"), std::string::npos) << e.what();
  }
  try {
    neigh.add(NeighInfo(IpAddress::parse("10.0.0.3"), "v0").setState(
        static_cast<NeighState>(static_cast<uint16_t>(NeighState::Stale) | static_cast<uint16_t>(NeighState::Permanent))));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("one state"), std::string::npos) << e.what();
  }
  try {
    neigh.add(NeighInfo(IpAddress::parse("10.0.0.3"), "v0").setProxy(true).setLladdr(MacAddress::parse("02:00:00:00:00:03")));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::invalid_argument) << e.what();
  }
  EXPECT_THROW(parseNeighState("bogus"), Error);
  // The kernel's own refusal carries its extack: a lladdr shorter than the device's.
  try {
    neigh.add(NeighInfo(IpAddress::parse("10.0.0.4"), "v0").setLladdr(MacAddress(std::vector<uint8_t>{1, 2})));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::invalid_argument) << e.what();
  }
  EXPECT_EQ(oracle(""), before);
}

TEST_F(NeighTest, BatchOfNeighbourRequests) {
  Batch b;
  uint32_t v0 = ifindex("v0");
  for (int i = 1; i <= 100; ++i) {
    char mac[32];
    std::snprintf(mac, sizeof mac, "02:00:00:00:%02x:%02x", i / 256, i % 256);
    b.add(NeighRequests::add(NeighInfo(IpAddress::parse("10.1.0." + std::to_string(i)), v0).setLladdr(MacAddress::parse(mac))));
  }
  auto r = nl.run(b, {.onError = OnError::Continue});
  EXPECT_TRUE(r.ok()) << (r.firstError() ? r.firstError()->what() : "");
  EXPECT_EQ(oracle("dev v0").size(), 100u);
  EXPECT_THROW(NeighRequests::add(NeighInfo(IpAddress::parse("10.1.0.1"), "v0")), Error) << "names must be resolved";
}

}  // namespace
}  // namespace fastlink::test
