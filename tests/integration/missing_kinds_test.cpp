// Kinds the host kernel (6.18 here) lacks: they skip visibly on the host and run for real in
// the VM (tests/vm), where FASTLINK_REQUIRE_KINDS turns a skip into a failure.
#include <linux/rtnetlink.h>

#include "integration/link_fixture.hpp"
#include "support/wire_observer.hpp"

namespace fastlink::test {
namespace {

TEST_F(LinkTest, DummyDevice) {
  FASTLINK_REQUIRE_KIND("dummy");
  links.add(LinkInfo("d0", "dummy").setMtu(9000).setAdmin(true));
  auto j = ipLink("d0");
  EXPECT_EQ(j["linkinfo"]["info_kind"], "dummy");
  EXPECT_EQ(j["mtu"], 9000);
  EXPECT_EQ(*links.get("d0").kind, "dummy");
}

TEST_F(LinkTest, VlanOnParentLink) {
  FASTLINK_REQUIRE_KIND("vlan");
  addVeth("u0", "u1");
  links.add(LinkInfo("u0.100", "vlan").setParent("u0").setVlan(VlanInfo().setId(100)));
  links.add(LinkInfo("u0.200", "vlan").setParent("u0").setVlan(VlanInfo().setId(200).setProtocol(VlanProtocol::Dot1AD)));
  auto d = ipLink("u0.100");
  EXPECT_EQ(d["link"], "u0");
  EXPECT_EQ(d["linkinfo"]["info_data"]["id"], 100);
  EXPECT_EQ(d["linkinfo"]["info_data"]["protocol"], "802.1Q");
  EXPECT_EQ(ipLink("u0.200")["linkinfo"]["info_data"]["protocol"], "802.1ad");
  auto got = links.get("u0.200");
  EXPECT_EQ(got.vlan->id, 200);
  EXPECT_EQ(got.vlan->protocol, VlanProtocol::Dot1AD);
  EXPECT_EQ(got.parentIndex(), *links.get("u0").index);
}

TEST_F(LinkTest, VrfWithTable) {
  FASTLINK_REQUIRE_KIND("vrf");
  links.add(LinkInfo("vrf-blue", "vrf").setVrf(VrfInfo().setTable(1001)));
  EXPECT_EQ(ipLink("vrf-blue")["linkinfo"]["info_data"]["table"], 1001);
  EXPECT_EQ(links.get("vrf-blue").vrf->table, 1001u);
  addVeth("u0", "u1");
  links.set("u0", LinkInfo().setMaster("vrf-blue"));
  EXPECT_EQ(ipLink("u0")["master"], "vrf-blue");
}

TEST_F(LinkTest, BondModeAndMiimon) {
  FASTLINK_REQUIRE_KIND("bond");
  links.add(LinkInfo("bond0", "bond").setBond(BondInfo().setMode(BondMode::ActiveBackup).setMiimon(100)));
  auto d = ipLink("bond0")["linkinfo"]["info_data"];
  EXPECT_EQ(d["mode"], "active-backup");
  EXPECT_EQ(d["miimon"], 100);
  auto got = links.get("bond0");
  EXPECT_EQ(got.bond->mode, BondMode::ActiveBackup);
  EXPECT_EQ(got.bond->miimon, 100u);
}

TEST_F(LinkTest, WireguardDevice) {
  FASTLINK_REQUIRE_KIND("wireguard");
  links.add(LinkInfo("wg0", "wireguard").setMtu(1420));
  auto j = ipLink("wg0");
  EXPECT_EQ(j["linkinfo"]["info_kind"], "wireguard");
  EXPECT_EQ(j["mtu"], 1420);
}

TEST_F(LinkTest, DummyGroupOfManyInOneRequest) {
  FASTLINK_REQUIRE_KIND("dummy");
  Batch b;
  for (int i = 0; i < 100; ++i) b.add(LinkRequests::add(LinkInfo("dg" + std::to_string(i), "dummy").setGroup(8)));
  ASSERT_TRUE(nl.run(b, {.onError = OnError::Continue}).ok());
  // One request each, counted on the wire (every netlink message this process sends).
  wire::reset();
  links.setGroup(8, LinkInfo().setMtu(4000));
  EXPECT_EQ(wire::counts().requests, 1u);
  EXPECT_EQ(wire::counts().requestTypes[RTM_NEWLINK], 1u);
  auto group = dropEmptyObjects(ns.ipJson("link show group 8"));
  ASSERT_EQ(group.size(), 100u);
  for (const auto& l : group) EXPECT_EQ(l["mtu"], 4000) << l["ifname"];
  wire::reset();
  links.delGroup(8);
  EXPECT_EQ(wire::counts().requests, 1u);
  EXPECT_EQ(wire::counts().requestTypes[RTM_DELLINK], 1u);
  EXPECT_EQ(dropEmptyObjects(ns.ipJson("link show group 8")).size(), 0u);
}

}  // namespace
}  // namespace fastlink::test
