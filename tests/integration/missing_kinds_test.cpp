// Kinds the host kernel (6.18 here) lacks: they skip visibly on the host and run for real in
// the VM (tests/vm), where FASTLINK_REQUIRE_KINDS turns a skip into a failure.
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include <chrono>
#include <thread>

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

// What a bond reports about its ports comes back typed, as `ip -d -j` reads it
// (info_slave_data): the active and the backup port of an active-backup bond, one with queue_id
// and prio set by ip; nothing of 6.1's port data stays raw.
TEST_F(LinkTest, BondPortInfoMatchesIp) {
  FASTLINK_REQUIRE_KIND("bond");
  links.add(LinkInfo("bond0", "bond").setBond(BondInfo().setMode(BondMode::ActiveBackup).setMiimon(100)));
  addVeth("u0", "u1");
  addVeth("u2", "u3");
  ns.ipBatch({"link set u1 up", "link set u3 up", "link set u0 master bond0", "link set u2 master bond0",
              "link set dev u2 type bond_slave queue_id 2 prio -3", "link set bond0 up"});
  static const char* const kStates[] = {"ACTIVE", "BACKUP"};
  static const char* const kMii[] = {"UP", "GOING_DOWN", "DOWN", "GOING_BACK"};
  for (const char* name : {"u0", "u2"}) {
    SCOPED_TRACE(name);
    auto ip = ipLink(name)["linkinfo"]["info_slave_data"];
    auto got = links.get(name);
    EXPECT_EQ(got.slaveKind, "bond");
    ASSERT_TRUE(got.bondPort.has_value());
    const BondPortInfo& p = *got.bondPort;
    ASSERT_TRUE(p.state && p.miiStatus && p.linkFailureCount && p.permanentAddress && p.queueId && p.priority);
    EXPECT_EQ(kStates[static_cast<int>(*p.state)], ip["state"].get<std::string>());
    EXPECT_EQ(kMii[static_cast<int>(*p.miiStatus)], ip["mii_status"].get<std::string>());
    EXPECT_EQ(*p.linkFailureCount, ip["link_failure_count"].get<uint32_t>());
    EXPECT_EQ(p.permanentAddress->toString(), ip["perm_hwaddr"].get<std::string>());
    EXPECT_EQ(*p.queueId, ip["queue_id"].get<uint16_t>());
    EXPECT_EQ(*p.priority, ip["prio"].get<int32_t>());
    EXPECT_FALSE(p.aggregatorId || p.actorOperPortState || p.partnerOperPortState) << "not an 802.3ad bond";
    for (const auto& kept : got.slaveData.list())
      EXPECT_GT(kept.type, IFLA_BOND_SLAVE_PRIO) << "attribute " << kept.type << " kept raw";
  }
  EXPECT_EQ(links.get("u2").bondPort->queueId, 2);
  EXPECT_EQ(links.get("u2").bondPort->priority, -3);
  // One port is the active one, the other the backup.
  EXPECT_NE(links.get("u0").bondPort->state, links.get("u2").bondPort->state);
}

// A port of an 802.3ad bond negotiating with another bond: its aggregator and both LACP states
// come back typed as ip reads them (compared when ip reads the same before and after us, as the
// state machine ticks).
TEST_F(LinkTest, LacpBondPortInfoMatchesIp) {
  FASTLINK_REQUIRE_KIND("bond");
  ns.ipBatch({"link add bond1 type bond mode 802.3ad lacp_rate fast", "link add bond2 type bond mode 802.3ad lacp_rate fast",
              "link add u0 type veth peer name u1", "link set u0 master bond1", "link set u1 master bond2",
              "link set bond1 up", "link set bond2 up"});
  for (int attempt = 0; attempt < 100; ++attempt) {
    auto before = ipLink("u0")["linkinfo"]["info_slave_data"];
    auto got = links.get("u0");
    auto after = ipLink("u0")["linkinfo"]["info_slave_data"];
    // Settled: in sync, collecting and distributing (0x08|0x10|0x20), and so an active port. In
    // sync alone the port can still be a backup for a bond timer tick.
    bool inSync = before.contains("ad_actor_oper_port_state") &&
                  (before["ad_actor_oper_port_state"].get<int>() & 0x38) == 0x38 && before.value("state", "") == "ACTIVE";
    if (before == after && inSync) {
      ASSERT_TRUE(got.bondPort.has_value());
      const BondPortInfo& p = *got.bondPort;
      EXPECT_EQ(p.aggregatorId, before["ad_aggregator_id"].get<uint16_t>());
      EXPECT_EQ(p.actorOperPortState, before["ad_actor_oper_port_state"].get<uint8_t>());
      EXPECT_EQ(p.partnerOperPortState, before["ad_partner_oper_port_state"].get<uint8_t>());
      EXPECT_EQ(p.state, BondPortState::Active);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  FAIL() << "the LACP state of u0 did not settle in 10 s: " << ipLink("u0")["linkinfo"].dump();
}

// What a VRF reports about a port (its table) comes back typed, as `ip -d -j` reads it.
TEST_F(LinkTest, VrfPortInfoMatchesIp) {
  FASTLINK_REQUIRE_KIND("vrf");
  links.add(LinkInfo("vrf-red", "vrf").setVrf(VrfInfo().setTable(1002)));
  addVeth("u0", "u1");
  links.set("u0", LinkInfo().setMaster("vrf-red"));
  auto ip = ipLink("u0")["linkinfo"]["info_slave_data"];
  auto got = links.get("u0");
  EXPECT_EQ(got.slaveKind, "vrf");
  ASSERT_TRUE(got.vrfPort.has_value());
  EXPECT_EQ(got.vrfPort->table, ip["table"].get<uint32_t>());
  EXPECT_EQ(got.vrfPort->table, 1002u);
  EXPECT_TRUE(got.slaveData.empty());
  links.set("u0", LinkInfo().setNoMaster());
  EXPECT_FALSE(links.get("u0").vrfPort.has_value());
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
