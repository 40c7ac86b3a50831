// `fastlink vlan ...` on the command line, checked with `bridge -j vlan show`. Adding VLANs needs
// a kernel with bridge vlan filtering: probed, skipped on the host, required in the VM.
#include <map>

#include "cli_fixture.hpp"

namespace fastlink::test {
namespace {

using nlohmann::json;

bool kernelHasVlanFiltering() {
  static const bool has = [] {
    TestNetns probe;
    return run("ip -n " + probe.name() + " link add brprobe type bridge vlan_filtering 1").status == 0;
  }();
  return has;
}

class VlanCliTest : public CliTest {
 protected:
  void makeBridge(bool filtering) {
    ns.ip(std::string("link add br0 type bridge") + (filtering ? " vlan_filtering 1 vlan_default_pvid 0" : ""));
    ns.ip("link add v0 type veth peer name v1");
    ns.ip("link set v1 master br0");
  }
  std::string bridgeOut(const std::string& args) { return run("bridge -n " + ns.name() + " " + args).out; }
  /// vid -> flags of one port, ranges expanded.
  static std::map<int, json> expand(const json& ports, const std::string& dev) {
    std::map<int, json> out;
    for (const auto& p : ports) {
      if (p["ifname"] != dev) continue;
      for (const auto& v : p["vlans"]) {
        int last = v.contains("vlanEnd") ? v["vlanEnd"].get<int>() : v["vlan"].get<int>();
        for (int vid = v["vlan"]; vid <= last; ++vid) out[vid] = v.value("flags", json::array());
      }
    }
    return out;
  }
};

TEST_F(VlanCliTest, ShowIsValidJsonWithoutVlanFiltering) {
  makeBridge(false);
  auto r = cli("-j vlan show");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(json::parse(r.out), json::parse(bridgeOut("-j vlan show")));
  r = cli("vlan show dev v1");
  EXPECT_EQ(r.status, 0) << r.err;
}

TEST_F(VlanCliTest, BadInputExitsWithAClearErrorAndChangesNothing) {
  makeBridge(kernelHasVlanFiltering());
  std::string before = bridgeOut("-j vlan show");
  const std::pair<const char*, const char*> usage[] = {
      {"vlan add vid 4095 dev v1", "vid: 4095 is out of range (1-4094)"},
      {"vlan add vid 0 dev v1", "out of range"},
      {"vlan add vid 30-20 dev v1", "is empty"},
      {"vlan add vid 20-30 dev v1 pvid", "cannot be the pvid"},
      {"vlan add dev v1", "\"vid VLAN_ID\" is required"},
      {"vlan add vid 10", "\"dev DEV\" is required"},
      {"vlan del vid 10 dev v1 pvid", "unknown keyword \"pvid\""},
  };
  for (const auto& [line, message] : usage) {
    auto r = cli(line);
    EXPECT_EQ(r.status, 255) << line;
    EXPECT_NE(r.err.find(message), std::string::npos) << line << ": " << r.err;
  }
  auto r = cli("vlan add vid 10 dev nosuch0");
  EXPECT_EQ(r.status, 1);  // as ip (bridge vlan): Cannot find device, status 1
  EXPECT_NE(r.err.find("Cannot find device \"nosuch0\""), std::string::npos) << r.err;
  EXPECT_EQ(bridgeOut("-j vlan show"), before);
}

TEST_F(VlanCliTest, AddRangesPvidUntagged) {
  if (!kernelHasVlanFiltering()) {
    if (kindRequired("bridge_vlan")) FAIL() << "kernel lacks bridge vlan filtering but FASTLINK_REQUIRE_KINDS requires bridge_vlan";
    GTEST_SKIP() << "kernel lacks feature 'bridge_vlan' (CONFIG_BRIDGE_VLAN_FILTERING): runs in the VM";
  }
  makeBridge(true);
  ASSERT_EQ(cli("vlan add vid 10 dev v1 pvid untagged").status, 0);
  ASSERT_EQ(cli("vlan add vid 20-30 dev v1").status, 0);
  auto theirs = expand(json::parse(bridgeOut("-j vlan show")), "v1");
  ASSERT_EQ(theirs.size(), 12u);
  EXPECT_EQ(theirs[10], json::array({"PVID", "Egress Untagged"}));
  auto r = cli("-j vlan show");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(json::parse(r.out), json::parse(bridgeOut("-j vlan show")));
  r = cli("-j vlan show dev v1 compress");
  ASSERT_EQ(r.status, 0);
  EXPECT_EQ(expand(json::parse(r.out), "v1"), theirs);
  ASSERT_EQ(cli("vlan del vid 20-30 dev v1").status, 0);
  EXPECT_EQ(expand(json::parse(bridgeOut("-j vlan show")), "v1").size(), 1u);
}

}  // namespace
}  // namespace fastlink::test
