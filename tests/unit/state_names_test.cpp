// The planner's kind table (src/state/state_names.cpp, kKinds): what it reads from a host device,
// what it sets on a new one and what it decides on an existing one, without a kernel (a bridge
// reports STP state 2 when /sbin/bridge-stp took STP over, which the kernel asks only for bridges
// of the initial namespace: no test's namespace has one).
#include <gtest/gtest.h>

#include <string>

#include "fastlink/error.hpp"
#include "state/state_names.hpp"

namespace fastlink {
namespace {

const std::string& noName(uint32_t) {
  static const std::string none;
  return none;
}

LinkInfo hostBridge(uint32_t stpState) {
  LinkInfo bridge("br0", "bridge");
  bridge.setBridge(BridgeInfo().setStpState(stpState).setVlanFiltering(false));
  return bridge;
}

InterfaceState wantBridge(bool stp) {
  InterfaceState iface;
  iface.path = "interfaces[0]";
  iface.name = "br0";
  iface.type = "linux-bridge";
  iface.bridgeStp = stp;
  return iface;
}

/// The words of the change the planner makes to `host` for `want` ("" none).
std::string changeOf(const InterfaceState& want, const LinkInfo& host, LinkChanges& out) {
  const InterfaceKind* kind = interfaceKind(want.type);
  EXPECT_NE(kind, nullptr);
  kind->change(want, host, noName, out);
  std::string words;
  for (const auto& w : out.what) words += (words.empty() ? "" : ", ") + w;
  return words;
}

TEST(InterfaceKinds, StpStateTwoIsEnabledAndPlansNoChange) {
  // IFLA_BR_STP_STATE 2: STP run by user space (BR_USER_STP; 1 is the kernel's). `show state` writes
  // `stp.enabled: true`; applying that back must plan nothing.
  LinkInfo host = hostBridge(2);
  InterfaceState shown;
  shown.type = "linux-bridge";
  interfaceKind("linux-bridge")->read(host, noName, shown);
  EXPECT_EQ(shown.bridgeStp, std::optional<bool>(true));
  LinkChanges same;
  EXPECT_EQ(changeOf(wantBridge(true), host, same), "") << "stp_state 2 is enabled: nothing to change";
  EXPECT_FALSE(same.link.bridge.has_value());
  LinkChanges off;
  EXPECT_EQ(changeOf(wantBridge(false), host, off), "bridge.options.stp.enabled true -> false");
  ASSERT_TRUE(off.link.bridge.has_value());
  EXPECT_EQ(off.link.bridge->stpState, std::optional<uint32_t>(0));
}

TEST(InterfaceKinds, StpOffAndOnAsTheKernelSetsThem) {
  LinkChanges on;
  EXPECT_EQ(changeOf(wantBridge(true), hostBridge(0), on), "bridge.options.stp.enabled false -> true");
  ASSERT_TRUE(on.link.bridge.has_value());
  EXPECT_EQ(on.link.bridge->stpState, std::optional<uint32_t>(1));
  LinkChanges same;
  EXPECT_EQ(changeOf(wantBridge(true), hostBridge(1), same), "");
  EXPECT_EQ(changeOf(wantBridge(false), hostBridge(0), same), "");
}

TEST(InterfaceKinds, AnImmutableKeyIsAnErrorNamingTheDocumentsKey) {
  LinkInfo host("v0", "vlan");
  host.setVlan(VlanInfo().setId(5));
  InterfaceState want;
  want.path = "interfaces[2]";
  want.name = "v0";
  want.type = "vlan";
  want.vlanId = 6;
  LinkChanges out;
  try {
    changeOf(want, host, out);
    FAIL() << "a vlan id cannot be changed in place";
  } catch (const Error& e) {
    EXPECT_EQ(e.reason(), "interfaces[2].vlan.id: the host's v0 has id 5, which cannot be changed in place (make it absent first)");
  }
}

TEST(InterfaceKinds, TypesOfHostDevices) {
  EXPECT_EQ(stateTypeOf(LinkInfo("m0", "macvlan")), "mac-vlan");
  EXPECT_EQ(stateTypeOf(LinkInfo("b0", "bridge")), "linux-bridge");
  EXPECT_EQ(stateTypeOf(LinkInfo("g0", "gre")), "gre");  // no nmstate type: the kernel's kind
  LinkInfo nic;
  nic.name = "eth0";
  EXPECT_EQ(stateTypeOf(nic), "ethernet");
  EXPECT_EQ(interfaceKind("ethernet"), nullptr);
  ASSERT_NE(interfaceKind("mac-vlan"), nullptr);
  EXPECT_EQ(interfaceKind("mac-vlan")->kind, "macvlan");
}

}  // namespace
}  // namespace fastlink
