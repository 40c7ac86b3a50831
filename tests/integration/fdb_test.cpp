// Bridge FDB against the real kernel, with `bridge -j fdb` as the oracle.
#include <gtest/gtest.h>

#include <fastlink/fastlink.hpp>
#include <fastlink/fdb.hpp>

#include <set>

#include "support/test_netns.hpp"

namespace fastlink::test {
namespace {

class FdbTest : public ::testing::Test {
 protected:
  TestNetns ns;
  Netlink nl{NetlinkOptions{.netns = Netns::named(ns.name())}};
  FdbApi& fdb = nl.fdb();

  void SetUp() override {
    ns.ip("link add br0 type bridge");
    ns.ip("link add v0 type veth peer name v1");
    ns.ip("link set v1 master br0");
    for (const char* d : {"br0", "v0", "v1"}) ns.ip(std::string("link set ") + d + " up");
  }

  nlohmann::json bridgeJson(const std::string& args) {
    auto r = run("bridge -n " + ns.name() + " -j " + args);
    EXPECT_EQ(r.status, 0) << "bridge " << args << ": " << r.err;
    if (r.out.find_first_not_of(" \n") == std::string::npos) return nlohmann::json::array();
    return nlohmann::json::parse(r.out);
  }

  std::string devName(uint32_t index) { return *nl.links().get(index).name; }
  static bool ours(const std::string& mac) { return mac.rfind("02:00:00:00:00:", 0) == 0; }

  /// One line per entry, in bridge(8)'s words, for the unicast entries an oracle shows.
  std::set<std::string> oracle(const std::string& args) {
    std::set<std::string> out;
    // With `dev D`, bridge(8) leaves the device out of each entry.
    std::string filterDev = args.rfind("dev ", 0) == 0 ? args.substr(4) : "";
    for (const auto& e : bridgeJson("fdb show " + args)) {
      std::string mac = e["mac"];
      MacAddress address = MacAddress::parse(mac);
      if (address.bytes()[0] & 1) continue;  // multicast filter entries of the NIC
      if (e["state"] == "" && !ours(mac)) continue;          // learned from traffic: comes and goes
      std::string line = mac;
      if (e.contains("ifname")) line += " dev " + e["ifname"].get<std::string>();
      else if (!filterDev.empty()) line += " dev " + filterDev;
      if (e.contains("vlan")) line += " vlan " + std::to_string(e["vlan"].get<int>());
      if (e.contains("dst")) line += " dst " + e["dst"].get<std::string>();
      if (e.contains("port")) line += " port " + std::to_string(e["port"].get<int>());
      if (e.contains("vni")) line += " vni " + std::to_string(e["vni"].get<int>());
      for (const auto& f : e["flags"]) line += " " + f.get<std::string>();
      if (e.contains("master")) line += " master " + e["master"].get<std::string>();
      if (!e["state"].get<std::string>().empty()) line += " " + e["state"].get<std::string>();
      out.insert(line);
    }
    return out;
  }

  std::set<std::string> mine(const FdbFilter& filter) {
    std::set<std::string> out;
    for (const auto& e : fdb.list(filter)) {
      if (e.mac->bytes()[0] & 1) continue;
      if (e.state == FdbState::Dynamic && !ours(e.mac->toString())) continue;
      std::string line = e.mac->toString();
      line += " dev " + devName(e.devIndex());
      if (e.vlan) line += " vlan " + std::to_string(*e.vlan);
      if (e.dst) line += " dst " + e.dst->toString();
      if (e.port) line += " port " + std::to_string(*e.port);
      if (e.vni) line += " vni " + std::to_string(*e.vni);
      if (e.self.value_or(false)) line += " self";
      if (e.externLearn.value_or(false)) line += " extern_learn";
      if (e.sticky.value_or(false)) line += " sticky";
      if (e.masterDev) line += " master " + devName(*e.masterDev);
      std::string state = fdbStateName(*e.state);
      if (!state.empty()) line += " " + state;
      out.insert(line);
    }
    return out;
  }

  /// The entries of the bridge table for `mac`, as iproute2 sees them.
  nlohmann::json oracleEntry(const std::string& args, const std::string& mac) {
    for (const auto& e : bridgeJson("fdb show " + args))
      if (e["mac"] == mac) return e;
    return nlohmann::json();
  }
};

TEST_F(FdbTest, BridgePortEntriesInEveryStateMatchBridgeFdb) {
  fdb.add(FdbInfo(MacAddress::parse("02:00:00:00:00:11"), "v1").setMaster(true).setState(FdbState::Static));
  fdb.add(FdbInfo(MacAddress::parse("02:00:00:00:00:12"), "v1").setMaster(true).setState(FdbState::Dynamic));
  fdb.add(FdbInfo(MacAddress::parse("02:00:00:00:00:13"), "v1").setMaster(true));  // permanent by default
  fdb.add(FdbInfo(MacAddress::parse("02:00:00:00:00:14"), "v1")
              .setMaster(true)
              .setState(FdbState::Static)
              .setSticky(true));
  fdb.add(FdbInfo(MacAddress::parse("02:00:00:00:00:15"), "v1")
              .setMaster(true)
              .setState(FdbState::Static)
              .setExternLearn(true));

  auto e = oracleEntry("dev v1", "02:00:00:00:00:11");
  ASSERT_FALSE(e.is_null());
  EXPECT_EQ(e["master"], "br0");
  EXPECT_EQ(e["state"], "static");
  EXPECT_EQ(oracleEntry("dev v1", "02:00:00:00:00:12")["state"], "");
  EXPECT_EQ(oracleEntry("dev v1", "02:00:00:00:00:13")["state"], "permanent");
  EXPECT_EQ(oracleEntry("dev v1", "02:00:00:00:00:14")["flags"], nlohmann::json::array({"sticky"}));

  // Everything iproute2 shows for the port, fastlink shows too (bridge adds the port's own
  // address as a permanent entry; learned entries may come and go, so compare ours).
  auto expected = oracle("dev v1");
  auto actual = mine(FdbFilter().setDev("v1"));
  for (const char* mac : {"02:00:00:00:00:11", "02:00:00:00:00:12", "02:00:00:00:00:13", "02:00:00:00:00:14",
                          "02:00:00:00:00:15"}) {
    bool inOracle = false, inMine = false;
    for (const auto& l : expected) inOracle |= l.rfind(mac, 0) == 0;
    for (const auto& l : actual) inMine |= l.rfind(mac, 0) == 0;
    EXPECT_TRUE(inOracle && inMine) << mac;
  }
  EXPECT_EQ(actual, expected);

  auto list = fdb.list(FdbFilter().setDev("v1"));
  bool found = false;
  for (const auto& x : list) {
    if (x.mac != MacAddress::parse("02:00:00:00:00:11")) continue;
    found = true;
    EXPECT_EQ(x.state, FdbState::Static);
    EXPECT_EQ(x.masterDev, nl.links().indexOf("br0"));
    EXPECT_FALSE(x.self.value_or(true));
  }
  EXPECT_TRUE(found);

  // del, then replace with another state.
  fdb.del(FdbInfo(MacAddress::parse("02:00:00:00:00:11"), "v1").setMaster(true));
  EXPECT_TRUE(oracleEntry("dev v1", "02:00:00:00:00:11").is_null());
  fdb.replace(FdbInfo(MacAddress::parse("02:00:00:00:00:12"), "v1").setMaster(true).setState(FdbState::Static));
  EXPECT_EQ(oracleEntry("dev v1", "02:00:00:00:00:12")["state"], "static");
  try {
    fdb.add(FdbInfo(MacAddress::parse("02:00:00:00:00:12"), "v1").setMaster(true).setState(FdbState::Static));
    FAIL() << "add of an existing entry must fail";
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), std::errc::file_exists) << err.what();
  }
}

TEST_F(FdbTest, ListFilteredByBridgeAndPortInTheKernel) {
  ns.ip("link add br1 type bridge");
  ns.ip("link add v2 type veth peer name v3");
  ns.ip("link set v3 master br1");
  for (const char* d : {"br1", "v2", "v3"}) ns.ip(std::string("link set ") + d + " up");
  fdb.add(FdbInfo(MacAddress::parse("02:00:00:00:00:21"), "v1").setMaster(true).setState(FdbState::Static));
  fdb.add(FdbInfo(MacAddress::parse("02:00:00:00:00:31"), "v3").setMaster(true).setState(FdbState::Static));

  uint32_t br0 = nl.links().indexOf("br0"), v1 = nl.links().indexOf("v1"), v3 = nl.links().indexOf("v3");
  for (const auto& e : fdb.list(FdbFilter().setBridge("br0"))) {
    EXPECT_NE(e.devIndex(), v3) << e.mac->toString();
    if (e.masterDev) {
      EXPECT_EQ(*e.masterDev, br0);
    }
  }
  auto port = fdb.list(FdbFilter().setDev("v1"));
  ASSERT_FALSE(port.empty());
  for (const auto& e : port) EXPECT_EQ(e.devIndex(), v1);
  auto other = fdb.list(FdbFilter().setDev("v3"));
  bool seen = false;
  for (const auto& e : other) {
    EXPECT_EQ(e.devIndex(), v3);
    seen |= e.mac == MacAddress::parse("02:00:00:00:00:31");
  }
  EXPECT_TRUE(seen);
  EXPECT_EQ(mine(FdbFilter().setBridge("br0")), oracle("br br0"));
  EXPECT_EQ(mine(FdbFilter().setBridge("br1")), oracle("br br1"));
  EXPECT_EQ(mine(FdbFilter().setDev("v3")), oracle("dev v3"));
}

TEST_F(FdbTest, VxlanRemotesAppendSeveralDestinationsForTheAllZeroMac) {
  ns.ip("link add vx0 type vxlan id 42 dstport 4789 local 10.0.0.1 nolearning");
  auto zero = MacAddress::parse("00:00:00:00:00:00");
  fdb.append(FdbInfo(zero, "vx0").setDst(IpAddress::parse("10.0.0.2")).setVni(100).setPort(4790));
  fdb.append(FdbInfo(zero, "vx0").setDst(IpAddress::parse("10.0.0.3")));
  fdb.append(FdbInfo(zero, "vx0").setDst(IpAddress::parse("10.0.0.4")).setSelf(true));
  fdb.add(FdbInfo(MacAddress::parse("02:00:00:00:00:41"), "vx0").setDst(IpAddress::parse("10.0.0.5")).setState(FdbState::Static));

  std::set<std::string> expected = {
      "00:00:00:00:00:00 dev vx0 dst 10.0.0.2 port 4790 vni 100 self permanent",
      "00:00:00:00:00:00 dev vx0 dst 10.0.0.3 self permanent",
      "00:00:00:00:00:00 dev vx0 dst 10.0.0.4 self permanent",
      "02:00:00:00:00:41 dev vx0 dst 10.0.0.5 self static",
  };
  EXPECT_EQ(mine(FdbFilter().setDev("vx0")), expected);
  EXPECT_EQ(oracle("dev vx0"), expected);

  // Delete one remote of the all-zero MAC: the others stay.
  fdb.del(FdbInfo(zero, "vx0").setDst(IpAddress::parse("10.0.0.3")));
  expected.erase("00:00:00:00:00:00 dev vx0 dst 10.0.0.3 self permanent");
  EXPECT_EQ(oracle("dev vx0"), expected);

  // Replace moves the unicast MAC to another remote.
  fdb.replace(FdbInfo(MacAddress::parse("02:00:00:00:00:41"), "vx0").setDst(IpAddress::parse("10.0.0.6")).setState(FdbState::Static));
  expected.erase("02:00:00:00:00:41 dev vx0 dst 10.0.0.5 self static");
  expected.insert("02:00:00:00:00:41 dev vx0 dst 10.0.0.6 self static");
  EXPECT_EQ(oracle("dev vx0"), expected);
  EXPECT_EQ(mine(FdbFilter().setDev("vx0")), expected);
}

TEST_F(FdbTest, VxlanExternalSrcVni) {
  ns.ip("link add vx1 type vxlan external dstport 4790");
  fdb.add(FdbInfo(MacAddress::parse("02:00:00:00:00:51"), "vx1").setDst(IpAddress::parse("10.0.0.5")).setVni(9).setSrcVni(7));
  auto e = oracleEntry("dev vx1", "02:00:00:00:00:51");
  ASSERT_FALSE(e.is_null());
  EXPECT_EQ(e["src_vni"], 7);
  EXPECT_EQ(e["vni"], 9);
  bool found = false;
  for (const auto& x : fdb.list(FdbFilter().setDev("vx1"))) {
    if (x.mac != MacAddress::parse("02:00:00:00:00:51")) continue;
    found = true;
    EXPECT_EQ(x.srcVni, 7u);
    EXPECT_EQ(x.vni, 9u);
  }
  EXPECT_TRUE(found);
}

TEST_F(FdbTest, BadInputIsRefusedAndChangesNothing) {
  ns.ip("link add vx0 type vxlan id 42 dstport 4789 local 10.0.0.1 nolearning");
  auto before = oracle("");
  auto expectInvalid = [&](const FdbInfo& e, const std::string& words) {
    try {
      fdb.add(e);
      ADD_FAILURE() << "accepted: " << words;
    } catch (const Error& err) {
      EXPECT_EQ(err.code(), std::errc::invalid_argument) << err.what();
      EXPECT_NE(std::string(err.what()).find(words), std::string::npos) << err.what();
    }
  };
  auto mac = MacAddress::parse("02:00:00:00:00:61");
  expectInvalid(FdbInfo(mac, "v1").setMaster(true).setVlan(4095), "vlan 4095 out of range");
  expectInvalid(FdbInfo(mac, "v1").setMaster(true).setVlan(0), "out of range");
  expectInvalid(FdbInfo(mac, "v1").setMaster(true).setSticky(true), "sticky");
  expectInvalid(FdbInfo(mac, "vx0").setDst(IpAddress::parse("10.0.0.2")).setVni(1u << 24), "vni");
  expectInvalid(FdbInfo(mac, "v1").setMaster(true).setDst(IpAddress::parse("10.0.0.2")), "vxlan");
  expectInvalid(FdbInfo().setDev("v1"), "MAC");
  EXPECT_THROW(MacAddress::parse("02:00:00:00:00:6g"), Error);
  try {
    fdb.add(FdbInfo(mac, "nosuch0").setMaster(true));
    FAIL();
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), std::errc::no_such_device) << err.what();
  }
  EXPECT_EQ(oracle(""), before);
}

}  // namespace
}  // namespace fastlink::test
