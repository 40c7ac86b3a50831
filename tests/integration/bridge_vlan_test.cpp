// Bridge port VLANs against the real kernel, with `bridge -j vlan show` as the oracle.
//
// The host kernel of the CI machine is built without CONFIG_BRIDGE_VLAN_FILTERING: tests that
// need VLANs probe for it and skip with a reason; FASTLINK_REQUIRE_KINDS=bridge_vlan (the VM,
// tests/vm) turns the skip into a failure. Bad input and the dump itself run everywhere.
#include <gtest/gtest.h>
#include <linux/netlink.h>
#include <sys/socket.h>

#include <fastlink/bridge_vlan.hpp>
#include <fastlink/fastlink.hpp>

#include <map>

#include "support/test_netns.hpp"
#include "support/wire_observer.hpp"

namespace fastlink::test {
namespace {

bool kernelHasVlanFiltering() {
  static const bool has = [] {
    TestNetns probe;
    return run("ip -n " + probe.name() + " link add brprobe type bridge vlan_filtering 1").status == 0;
  }();
  return has;
}

#define FASTLINK_REQUIRE_BRIDGE_VLAN()                                                                       \
  do {                                                                                                       \
    if (!kernelHasVlanFiltering()) {                                                                         \
      if (::fastlink::test::kindRequired("bridge_vlan"))                                                     \
        FAIL() << "kernel lacks bridge vlan filtering but FASTLINK_REQUIRE_KINDS requires bridge_vlan";      \
      GTEST_SKIP() << "kernel lacks feature 'bridge_vlan' (CONFIG_BRIDGE_VLAN_FILTERING): runs in the VM";   \
    }                                                                                                        \
  } while (0)

class BridgeVlanTest : public ::testing::Test {
 protected:
  TestNetns ns;
  Netlink nl{NetlinkOptions{.netns = Netns::named(ns.name())}};
  BridgeVlanApi& vlans = nl.bridgeVlans();

  void makeBridge(bool vlanFiltering) {
    BridgeInfo bridge;
    if (vlanFiltering) bridge.setVlanFiltering(true).setVlanDefaultPvid(0);
    nl.links().add(LinkInfo("br0", "bridge").setBridge(bridge));
    nl.links().add(LinkInfo("v0", "veth").setVeth(VethInfo().setPeerName("v1")));
    nl.links().set("v1", LinkInfo().setMaster("br0"));
  }

  /// vid -> "pvid,untagged" of a device, as `bridge -j vlan show dev DEV` reports it.
  std::map<int, std::string> oracle(const std::string& dev) {
    auto r = run("bridge -n " + ns.name() + " -j vlan show dev " + dev);
    EXPECT_EQ(r.status, 0) << r.err;
    std::map<int, std::string> out;
    if (r.out.find_first_not_of(" \n") == std::string::npos) return out;
    for (const auto& port : nlohmann::json::parse(r.out)) {
      for (const auto& v : port["vlans"]) {
        std::string flags;
        bool pvid = false, untagged = false;
        if (v.contains("flags"))
          for (const auto& f : v["flags"]) {
            pvid |= f == "PVID";
            untagged |= f == "Egress Untagged";
          }
        flags = std::string(pvid ? "pvid" : "") + (untagged ? (pvid ? ",untagged" : "untagged") : "");
        int last = v.contains("vlanEnd") ? v["vlanEnd"].get<int>() : v["vlan"].get<int>();
        for (int vid = v["vlan"].get<int>(); vid <= last; ++vid) out[vid] = flags;
      }
    }
    return out;
  }

  std::map<int, std::string> mine(const std::string& dev, bool compressed) {
    std::map<int, std::string> out;
    for (const auto& v : vlans.list(BridgeVlanFilter().setDev(dev).setCompressed(compressed))) {
      EXPECT_EQ(v.devName, dev);
      bool pvid = v.pvid.value_or(false), untagged = v.untagged.value_or(false);
      std::string flags = std::string(pvid ? "pvid" : "") + (untagged ? (pvid ? ",untagged" : "untagged") : "");
      for (int vid = *v.vid; vid <= v.lastVid(); ++vid) out[vid] = flags;
    }
    return out;
  }
};

TEST_F(BridgeVlanTest, DumpIsAcceptedWithStrictChecking) {
  makeBridge(false);
  // Strict checking really is on for the socket these dumps go through (the kernel would accept
  // almost any header without it, and this test would prove nothing): asked of the kernel.
  wire::reset();
  EXPECT_NO_THROW(vlans.list(BridgeVlanFilter().setDev("v1")));
  std::vector<int> fds = wire::sockets();
  ASSERT_EQ(fds.size(), 1u) << "the dump crossed one rtnetlink socket";
  int strict = 0;
  socklen_t len = sizeof strict;
  ASSERT_EQ(getsockopt(fds[0], SOL_NETLINK, NETLINK_GET_STRICT_CHK, &strict, &len), 0);
  EXPECT_EQ(strict, 1) << "NETLINK_GET_STRICT_CHK is off";
  EXPECT_EQ(wire::counts().dumpRequests, 1u);
  // Without vlan filtering the ports have no VLANs, but the dump request itself must be valid.
  EXPECT_NO_THROW(vlans.list());
  EXPECT_NO_THROW(vlans.list(BridgeVlanFilter().setCompressed(false)));
  EXPECT_NO_THROW(vlans.list(BridgeVlanFilter().setDev("v1")));
  EXPECT_THROW(vlans.list(BridgeVlanFilter().setDev("nosuch0")), Error);
}

TEST_F(BridgeVlanTest, BadInputIsRefusedAndChangesNothing) {
  makeBridge(kernelHasVlanFiltering());
  auto before = run("bridge -n " + ns.name() + " -j vlan show").out;
  auto expectInvalid = [&](const BridgeVlanInfo& v, const std::string& words) {
    try {
      vlans.add(v);
      ADD_FAILURE() << "accepted: " << words;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), std::errc::invalid_argument) << e.what();
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  expectInvalid(BridgeVlanInfo("v1", 4095), "vid 4095 out of range");
  expectInvalid(BridgeVlanInfo("v1", 0), "vid 0 out of range");
  expectInvalid(BridgeVlanInfo("v1", 30).setVidEnd(20), "empty");
  expectInvalid(BridgeVlanInfo("v1", 20).setVidEnd(30).setPvid(true), "pvid");
  expectInvalid(BridgeVlanInfo().setDev("v1"), "vid");
  try {
    vlans.add(BridgeVlanInfo("nosuch0", 10));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::no_such_device) << e.what();
  }
  EXPECT_EQ(run("bridge -n " + ns.name() + " -j vlan show").out, before);
}

TEST_F(BridgeVlanTest, PortVlansWithPvidUntaggedAndRanges) {
  FASTLINK_REQUIRE_BRIDGE_VLAN();
  makeBridge(true);
  EXPECT_TRUE(oracle("v1").empty()) << "vlan_default_pvid 0: a new port has no VLAN";
  vlans.add(BridgeVlanInfo("v1", 10).setPvid(true).setUntagged(true));
  vlans.add(BridgeVlanInfo("v1", 20).setVidEnd(30));
  vlans.add(BridgeVlanInfo("v1", 40).setUntagged(true));

  std::map<int, std::string> expected = {{10, "pvid,untagged"}, {40, "untagged"}};
  for (int vid = 20; vid <= 30; ++vid) expected[vid] = "";
  EXPECT_EQ(oracle("v1"), expected);
  EXPECT_EQ(mine("v1", true), expected);
  EXPECT_EQ(mine("v1", false), expected);

  // Compressed: the range comes back as one entry.
  bool sawRange = false;
  for (const auto& v : vlans.list(BridgeVlanFilter().setDev("v1")))
    if (v.vid == 20 && v.vidEnd == 30) sawRange = true;
  EXPECT_TRUE(sawRange);

  // Deleting a VLAN out of the middle splits the range.
  vlans.del(BridgeVlanInfo("v1", 25));
  expected.erase(25);
  EXPECT_EQ(oracle("v1"), expected);
  vlans.del(BridgeVlanInfo("v1", 20).setVidEnd(30));
  for (int vid = 20; vid <= 30; ++vid) expected.erase(vid);
  EXPECT_EQ(oracle("v1"), expected);
  EXPECT_EQ(mine("v1", true), expected);

  // The bridge's own VLANs (self) are separate from the port's.
  vlans.add(BridgeVlanInfo("br0", 100).setSelf(true));
  EXPECT_EQ(oracle("br0").count(100), 1u);
  EXPECT_EQ(mine("br0", true).count(100), 1u);
  EXPECT_EQ(mine("v1", true), expected) << "the port is untouched";
}

TEST_F(BridgeVlanTest, BatchOfVlans) {
  FASTLINK_REQUIRE_BRIDGE_VLAN();
  makeBridge(true);
  uint32_t v1 = nl.links().indexOf("v1");
  Batch b;
  for (uint16_t vid = 100; vid < 200; ++vid) b.add(BridgeVlanRequests::add(BridgeVlanInfo(v1, vid)));
  auto r = nl.run(b, {.onError = OnError::Continue});
  EXPECT_TRUE(r.ok()) << (r.firstError() ? r.firstError()->what() : "");
  EXPECT_EQ(oracle("v1").size(), 100u);
  auto compressed = vlans.list(BridgeVlanFilter().setDev("v1"));
  ASSERT_EQ(compressed.size(), 1u);
  EXPECT_EQ(compressed[0].vid, 100);
  EXPECT_EQ(compressed[0].vidEnd, 199);
}

}  // namespace
}  // namespace fastlink::test
