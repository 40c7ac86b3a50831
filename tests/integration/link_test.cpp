// Links against the real kernel, each test in a fresh namespace, checked with `ip -j` and /sys.
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "fastlink/link_view_reads.hpp"
#include "integration/link_fixture.hpp"
#include "support/settled.hpp"
#include "support/wire_observer.hpp"

// ASan's own query; weak, so it is null where no ASan runtime is linked (the Release build).
extern "C" int __asan_address_is_poisoned(const volatile void* address) __attribute__((weak));

namespace fastlink::test {
namespace {

TEST_F(LinkTest, AddVethPairIsSeenByIp) {
  addVeth("v0", "v1");
  auto v0 = ipLink("v0");
  EXPECT_EQ(v0["linkinfo"]["info_kind"], "veth");
  EXPECT_EQ(v0["link"], "v1");
  EXPECT_TRUE(ipHasLink("v1"));
  auto got = links.get("v0");
  EXPECT_EQ(*got.index, v0["ifindex"].get<uint32_t>());
  EXPECT_EQ(*got.kind, "veth");
  EXPECT_EQ(got.parentIndex(), ipLink("v1")["ifindex"].get<uint32_t>());
}

TEST_F(LinkTest, SetMtuAdminTxqlenAliasAddressGroup) {
  addVeth("v0", "v1");
  links.set("v0", LinkInfo()
                      .setMtu(9000)
                      .setAdmin(true)
                      .setTxqlen(4242)
                      .setAlias("uplink to spine")
                      .setAddress(MacAddress::parse("02:00:00:aa:bb:cc"))
                      .setGroup(42));
  auto j = ipLink("v0");
  EXPECT_EQ(j["mtu"], 9000);
  EXPECT_TRUE(hasFlag(j, "UP"));
  EXPECT_EQ(j["txqlen"], 4242);
  EXPECT_EQ(j["ifalias"], "uplink to spine");
  EXPECT_EQ(j["address"], "02:00:00:aa:bb:cc");
  EXPECT_EQ(j["group"], "42");
  EXPECT_EQ(ns.sysfs("v0", "mtu"), "9000");
  links.set("v0", LinkInfo().setAdmin(false));
  EXPECT_FALSE(hasFlag(ipLink("v0"), "UP"));
}

TEST_F(LinkTest, GetByNameAndIndexAgree) {
  addVeth("v0", "v1");
  auto byName = links.get("v0");
  auto byIndex = links.get(*byName.index);
  EXPECT_EQ(byIndex.name, byName.name);
  EXPECT_EQ(byIndex.mtu, byName.mtu);
  EXPECT_EQ(byName.address->toString(), ipLink("v0")["address"].get<std::string>());
  EXPECT_EQ(*byName.operState, ipLink("v0")["operstate"].get<std::string>());
  EXPECT_FALSE(byName.unknown.empty()) << "attributes fastlink does not decode must be kept raw";
}

TEST_F(LinkTest, GetLinkViewReadsOneDeviceAsIpShowsIt) {
  addVeth("v0", "v1");
  ns.ip("link add br0 type bridge forward_delay 500");
  ns.ip("link set v0 master br0");
  ns.ip("link set v0 type bridge_slave cost 7");
  auto ip = ipLink("v0");
  auto bridge = ipLink("br0");
  int calls = 0;
  EXPECT_TRUE(getLinkView(nl, Ifref("v0"), [&](const LinkView& l) {
    ++calls;
    EXPECT_EQ(l.index(), ip["ifindex"].get<uint32_t>());
    EXPECT_EQ(l.name(), "v0");
    EXPECT_EQ(l.mtu(), ip["mtu"].get<uint32_t>());
    EXPECT_EQ(l.masterIndex(), bridge["ifindex"].get<uint32_t>());
    EXPECT_EQ(l.parent(), ipLink("v1")["ifindex"].get<uint32_t>());
    EXPECT_TRUE(l.stats()) << "a get carries the counters";
    // The kind's nest alone: the master's report about its port, nothing of the device.
    LinkInfo kind = linkKindInfo(l);
    EXPECT_EQ(kind.kind, "veth");
    EXPECT_EQ(kind.slaveKind, "bridge");
    ASSERT_TRUE(kind.bridgePort);
    EXPECT_EQ(kind.bridgePort->cost, ip["linkinfo"]["info_slave_data"]["cost"].get<uint32_t>());
    EXPECT_FALSE(kind.name || kind.mtu || kind.index || kind.stats) << "only IFLA_LINKINFO is decoded";
  }));
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(getLinkView(nl, Ifref(bridge["ifindex"].get<uint32_t>()), [&](const LinkView& l) {
    ++calls;
    EXPECT_EQ(l.name(), "br0");
    LinkInfo kind = linkKindInfo(l);
    ASSERT_TRUE(kind.bridge);
    EXPECT_EQ(kind.bridge->forwardDelay, bridge["linkinfo"]["info_data"]["forward_delay"].get<uint32_t>());
  }));
  EXPECT_EQ(calls, 2);
  EXPECT_FALSE(getLinkView(nl, Ifref("nosuch0"), [&](const LinkView&) { ++calls; }));
  EXPECT_EQ(calls, 2) << "no device, no call";
}

TEST_F(LinkTest, GetLinkViewIsTheReplyWhereItWasReceived) {
  // Zero copy: the view spans the engine's receive buffer, where a dump's first reply starts too
  // (a copy would be somewhere else on the heap, the buffer being alive).
  addVeth("v0", "v1");
  const uint8_t* bufferStart = nullptr;
  forEachLink(nl, LinkFilter{}, [&](const LinkView& l) {
    if (!bufferStart) bufferStart = l.message().data();
  });
  ASSERT_NE(bufferStart, nullptr);
  std::span<const uint8_t> kept;
  ASSERT_TRUE(getLinkView(nl, Ifref("v0"), [&](const LinkView& l) {
    EXPECT_EQ(l.name(), "v0");
    kept = l.message();
  }));
  EXPECT_EQ(kept.data(), bufferStart) << "getLinkView's view is not over the engine's receive buffer (a copy)";
  // Valid during the callback only: the sanitizer build poisons the buffer after it, as after a
  // dump's datagram (ViewLifetime.* checks a late read is reported).
  if (__asan_address_is_poisoned) {
    EXPECT_TRUE(__asan_address_is_poisoned(kept.data())) << "the reply is readable after the callback";
  }

  // What the callback throws leaves getLinkView as it is: a lookup of the caller's own that finds
  // no device (ENODEV) is not taken for "v0 does not exist".
  EXPECT_THROW(getLinkView(nl, Ifref("v0"),
                           [&](const LinkView&) {
                             throw Error(std::make_error_code(std::errc::no_such_device), "the caller's own lookup");
                           }),
               Error);
  EXPECT_TRUE(getLinkView(nl, Ifref("v0"), [&](const LinkView& l) { EXPECT_EQ(l.name(), "v0"); }))
      << "the socket is usable after a callback threw";
}

TEST_F(LinkTest, MissingDeviceIsEnodevAndFindIsEmpty) {
  try {
    links.get("nosuch0");
    FAIL() << "expected ENODEV";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::no_such_device);
    EXPECT_NE(std::string(e.what()).find("nosuch0"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(links.find("nosuch0").has_value());
  std::string before = ipLinkSnapshot();
  EXPECT_THROW(links.set("nosuch0", LinkInfo().setMtu(1400)), Error);
  EXPECT_THROW(links.del("nosuch0"), Error);
  EXPECT_EQ(ipLinkSnapshot(), before);
}

// Netlink::execute(build), the check-resolve-send every object API takes, for a request built
// outside the library (the CLI's runPrepared): built once with placeholder indexes, then with
// the real ones, then sent.
TEST_F(LinkTest, ExecuteBuildChecksWithPlaceholdersThenResolvesAndSends) {
  addVeth("v0", "v1");
  std::vector<uint32_t> seen;
  nl.execute([&](const IndexOf& indexOf) {
    seen.push_back(indexOf("v0"));
    return LinkRequests::set(Ifref(seen.back()), LinkInfo().setMtu(1400));
  });
  ASSERT_EQ(seen.size(), 2u) << "built once to check (placeholders), once to send";
  EXPECT_EQ(seen[0], 1u) << "the check's placeholder index";
  EXPECT_EQ(seen[1], ipLink("v0")["ifindex"].get<uint32_t>());
  EXPECT_EQ(ipLink("v0")["mtu"], 1400);
}

// Bad input is reported before any lookup (a missing device must not hide the real mistake),
// a missing device is ENODEV naming it, and neither sends anything.
TEST_F(LinkTest, ExecuteBuildReportsBadInputBeforeAMissingDeviceAndSendsNothing) {
  addVeth("v0", "v1");
  std::string before = ipLinkSnapshot();
  try {
    nl.execute([](const IndexOf& indexOf) -> Request {
      (void)indexOf("nosuch0");
      throw Error::invalidArgument("test", "a bad value");
    });
    FAIL() << "expected the builder's EINVAL";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::invalid_argument) << e.what();
  }
  try {
    nl.execute([](const IndexOf& indexOf) { return LinkRequests::set(Ifref(indexOf("nosuch0")), LinkInfo().setMtu(1400)); });
    FAIL() << "expected ENODEV";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::no_such_device) << e.what();
    EXPECT_NE(std::string(e.what()).find("nosuch0"), std::string::npos) << e.what();
  }
  EXPECT_THROW(nl.execute([](const IndexOf& indexOf) { return LinkRequests::set(Ifref(indexOf("bad name")), LinkInfo()); }),
               Error);
  EXPECT_EQ(ipLinkSnapshot(), before);
}

// findIndex asks with an ioctl on the Netlink's own socket: it must answer for the Netlink's
// namespace (not the process's), see altnames like RTM_GETLINK does, and send no netlink message.
TEST_F(LinkTest, FindIndexAnswersForTheSocketsNamespaceWithoutAMessage) {
  addVeth("fx0", "fx1");
  ASSERT_EQ(run("ip -n " + ns.name() + " link property add dev fx0 altname fx0-uplink").status, 0);
  ASSERT_EQ(if_nametoindex("fx0"), 0u) << "fx0 must exist only in the test namespace";
  uint32_t want0 = ipLink("fx0")["ifindex"].get<uint32_t>();
  uint32_t want1 = ipLink("fx1")["ifindex"].get<uint32_t>();
  wire::reset();
  EXPECT_EQ(links.findIndex("fx0"), want0);
  EXPECT_EQ(links.findIndex("fx1"), want1);
  EXPECT_EQ(links.findIndex("fx0-uplink"), want0);
  EXPECT_EQ(links.findIndex("nosuch0"), std::nullopt);
  EXPECT_EQ(links.indexOf("fx1"), want1);
  EXPECT_EQ(wire::counts().requests, 0u) << "names are looked up by ioctl, not RTM_GETLINK";
  try {
    links.indexOf("nosuch0");
    FAIL() << "expected ENODEV";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::no_such_device);
    EXPECT_NE(std::string(e.what()).find("No such device"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("link show dev nosuch0"), std::string::npos) << e.what();
  }
  EXPECT_THROW(links.findIndex("name-longer-than-15"), Error) << "an invalid name is bad input, not absent";
}

TEST_F(LinkTest, AddExistingFailsWithEexist) {
  addVeth("v0", "v1");
  try {
    addVeth("v0", "v9");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::file_exists);
  }
  EXPECT_FALSE(ipHasLink("v9"));
}

TEST_F(LinkTest, KernelExtackReachesTheError) {
  addVeth("v0", "v1");
  try {
    links.set("v0", LinkInfo().setMtu(65536));  // veth max is 65535: the kernel refuses
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::invalid_argument);
    EXPECT_NE(e.extack().find("mtu"), std::string::npos) << "extack: " << e.extack();
    EXPECT_NE(std::string(e.what()).find(e.extack()), std::string::npos);
  }
  EXPECT_EQ(ipLink("v0")["mtu"], 1500);
}

TEST_F(LinkTest, RenameByNameAndByIndex) {
  addVeth("v0", "v1");
  uint32_t index = *links.get("v0").index;
  links.set("v0", LinkInfo().setName("uplink0"));
  EXPECT_EQ(ipLink("uplink0")["ifindex"], index);
  EXPECT_FALSE(ipHasLink("v0"));
  links.set(index, LinkInfo().setName("uplink1"));
  EXPECT_EQ(ipLink("uplink1")["ifindex"], index);
}

TEST_F(LinkTest, DeleteByNameAndIndex) {
  addVeth("v0", "v1");
  addVeth("v2", "v3");
  links.del("v0");
  EXPECT_FALSE(ipHasLink("v0"));
  EXPECT_FALSE(ipHasLink("v1")) << "deleting one end of a veth deletes the pair";
  links.del(*links.get("v2").index);
  EXPECT_FALSE(ipHasLink("v2"));
}

TEST_F(LinkTest, ReplaceCreatesThenChangesInPlace) {
  links.replace(LinkInfo("br0", "bridge").setMtu(1400));
  uint32_t index = ipLink("br0")["ifindex"];
  links.replace(LinkInfo("br0", "bridge").setMtu(1300).setBridge(BridgeInfo().setStpState(1)));
  auto j = ipLink("br0");
  EXPECT_EQ(j["ifindex"], index);
  EXPECT_EQ(j["mtu"], 1300);
  EXPECT_EQ(j["linkinfo"]["info_data"]["stp_state"], 1);
}

TEST_F(LinkTest, BridgeOptions) {
  links.add(LinkInfo("br0", "bridge").setBridge(
      BridgeInfo().setStpState(1).setAgeingTime(20000).setNoLinklocalLearn(true)));
  auto d = ipLink("br0")["linkinfo"]["info_data"];
  EXPECT_EQ(d["stp_state"], 1);
  EXPECT_EQ(d["ageing_time"], 20000);
  EXPECT_EQ(d["no_linklocal_learn"], 1);
  auto got = links.get("br0");
  ASSERT_TRUE(got.bridge);
  EXPECT_EQ(got.bridge->ageingTime, 20000u);  // centiseconds; the kernel keeps jiffies, so pick a value that round-trips
  EXPECT_EQ(got.bridge->noLinklocalLearn, true);
  EXPECT_EQ(got.bridge->stpState, 1u);
  // The kernel's state is decoded too (ids, timers, multicast settings): only what a kernel
  // newer than fastlink adds stays raw (6.18's FDB counts; nothing on 6.1), never an attribute
  // fastlink decodes.
  ASSERT_TRUE(got.bridge->state);
  EXPECT_TRUE(got.bridge->state->bridgeId);
  EXPECT_TRUE(got.bridge->state->gcTimer);
  for (uint16_t decoded : {IFLA_BR_FORWARD_DELAY, IFLA_BR_STP_STATE, IFLA_BR_AGEING_TIME, IFLA_BR_BRIDGE_ID,
                           IFLA_BR_ROOT_ID, IFLA_BR_GC_TIMER, IFLA_BR_GROUP_ADDR, IFLA_BR_MCAST_ROUTER,
                           IFLA_BR_MCAST_MLD_VERSION, IFLA_BR_NF_CALL_ARPTABLES, IFLA_BR_MULTI_BOOLOPT})
    EXPECT_FALSE(got.unknownKindData.find(decoded)) << "attribute " << decoded << " is decoded, not kept raw";
}

TEST_F(LinkTest, BridgeVlanFilteringOptions) {
  if (run("ip -n " + ns.name() + " link add brprobe type bridge vlan_filtering 1").status != 0) {
    if (kindRequired("bridge_vlan")) FAIL() << "kernel lacks bridge vlan filtering";
    GTEST_SKIP() << "kernel lacks feature 'bridge_vlan' (CONFIG_BRIDGE_VLAN_FILTERING): runs in the VM (tests/vm)";
  }
  links.add(LinkInfo("br0", "bridge").setBridge(BridgeInfo().setVlanFiltering(true).setVlanDefaultPvid(0)));
  auto d = ipLink("br0")["linkinfo"]["info_data"];
  EXPECT_EQ(d["vlan_filtering"], 1);
  EXPECT_EQ(d["vlan_default_pvid"], 0);
  EXPECT_EQ(links.get("br0").bridge->vlanFiltering, true);
}

TEST_F(LinkTest, MasterAndNomaster) {
  links.add(LinkInfo("br0", "bridge"));
  addVeth("v0", "v1");
  links.set("v0", LinkInfo().setMaster("br0"));
  EXPECT_EQ(ipLink("v0")["master"], "br0");
  auto got = links.get("v0");
  EXPECT_EQ(got.masterIndex(), *links.get("br0").index);
  EXPECT_EQ(got.slaveKind, "bridge");
  EXPECT_TRUE(got.bridgePort.has_value()) << "the bridge's port data is decoded";
  links.set("v0", LinkInfo().setNoMaster());
  EXPECT_FALSE(ipLink("v0").contains("master"));
  EXPECT_FALSE(links.get("v0").bridgePort.has_value());
}

// What a bridge reports about a port comes back typed, as `ip -d -j` reads it (info_slave_data):
// options set with ip, the STP ids and numbers, the backup port; only what a kernel newer than
// fastlink adds stays raw (6.18's MAB and group counts; nothing on 6.1).
TEST_F(LinkTest, BridgePortInfoMatchesIp) {
  links.add(LinkInfo("br0", "bridge"));
  addVeth("v0", "v1");
  addVeth("v2", "v3");
  links.set("v0", LinkInfo().setMaster("br0"));
  links.set("v2", LinkInfo().setMaster("br0"));
  ns.ip("link set dev v0 type bridge_slave cost 7 priority 5 hairpin on learning off flood off proxy_arp on "
        "mcast_router 2 mcast_to_unicast on group_fwd_mask 0x4004 isolated on locked on backup_port v2");
  auto ip = ipLink("v0")["linkinfo"]["info_slave_data"];
  auto got = links.get("v0");
  ASSERT_TRUE(got.bridgePort.has_value());
  const BridgePortInfo& p = *got.bridgePort;
  static const char* const kStates[] = {"disabled", "listening", "learning", "forwarding", "blocking"};
  ASSERT_TRUE(p.state);
  EXPECT_EQ(kStates[static_cast<int>(*p.state)], ip["state"].get<std::string>());
  EXPECT_EQ(p.priority, ip["priority"].get<uint16_t>());
  EXPECT_EQ(p.cost, ip["cost"].get<uint32_t>());
  EXPECT_EQ(p.priority, 5);
  EXPECT_EQ(p.cost, 7u);
  auto hex = [](const std::optional<uint16_t>& v) {
    char text[16] = "(unset)";
    if (v) std::snprintf(text, sizeof text, "%#x", *v);  // ip's print_0xhex ("%#llx")
    return std::string(text);
  };
  EXPECT_EQ(hex(p.portId), ip["id"].get<std::string>());
  EXPECT_EQ(hex(p.portNumber), ip["no"].get<std::string>());
  EXPECT_EQ(hex(p.groupFwdMask), ip["group_fwd_mask"].get<std::string>());
  EXPECT_EQ(p.designatedPort, ip["designated_port"].get<uint16_t>());
  EXPECT_EQ(p.designatedCost, ip["designated_cost"].get<uint16_t>());
  auto id = [](const std::optional<BridgeId>& v) {  // ip's "8000.a:b:c:d:e:f" (ether_ntoa)
    if (!v) return std::string("(unset)");
    char text[40];
    auto b = v->address.bytes();
    std::snprintf(text, sizeof text, "%04x.%x:%x:%x:%x:%x:%x", v->priority, b[0], b[1], b[2], b[3], b[4], b[5]);
    return std::string(text);
  };
  EXPECT_EQ(id(p.designatedBridge), ip["bridge_id"].get<std::string>());
  EXPECT_EQ(id(p.designatedRoot), ip["root_id"].get<std::string>());
  for (auto [key, value] : std::initializer_list<std::pair<const char*, const std::optional<bool>*>>{
           {"hairpin", &p.hairpin},           {"guard", &p.guard},
           {"root_block", &p.rootBlock},      {"fastleave", &p.fastLeave},
           {"learning", &p.learning},         {"flood", &p.unicastFlood},
           {"proxy_arp", &p.proxyArp},        {"proxy_arp_wifi", &p.proxyArpWifi},
           {"mcast_flood", &p.mcastFlood},    {"bcast_flood", &p.bcastFlood},
           {"mcast_to_unicast", &p.mcastToUnicast}, {"neigh_suppress", &p.neighSuppress},
           {"vlan_tunnel", &p.vlanTunnel},    {"isolated", &p.isolated},
           {"locked", &p.locked}}) {
    SCOPED_TRACE(key);
    ASSERT_TRUE(value->has_value());
    EXPECT_EQ(**value, ip[key].get<bool>());
  }
  EXPECT_EQ(p.topologyChangeAck, ip["topology_change_ack"].get<int>() != 0);
  EXPECT_EQ(p.configPending, ip["config_pending"].get<int>() != 0);
  EXPECT_EQ(p.mcastRouter, ip["multicast_router"].get<uint8_t>());
  EXPECT_EQ(p.backupPort, *links.get("v2").index);
  EXPECT_EQ(ip["backup_port"], "v2");
  // The timers tick: present, and no larger than the bridge's forward delay (15 s) allows.
  ASSERT_TRUE(p.holdTimer && p.messageAgeTimer && p.forwardDelayTimer);
  EXPECT_LE(*p.forwardDelayTimer, 1500u);
  for (uint16_t decoded : {IFLA_BRPORT_STATE, IFLA_BRPORT_COST, IFLA_BRPORT_ROOT_ID, IFLA_BRPORT_HOLD_TIMER,
                           IFLA_BRPORT_GROUP_FWD_MASK, IFLA_BRPORT_BACKUP_PORT, IFLA_BRPORT_LOCKED,
                           IFLA_BRPORT_MCAST_EHT_HOSTS_LIMIT})
    EXPECT_FALSE(got.slaveData.find(decoded)) << "attribute " << decoded << " is decoded, not kept raw";
  for (const auto& kept : got.slaveData.list())
    EXPECT_TRUE(kept.type > IFLA_BRPORT_MAX || kept.type == IFLA_BRPORT_PAD) << "attribute " << kept.type << " kept raw";
}

TEST_F(LinkTest, VxlanOptions) {
  addVeth("u0", "u1");
  links.add(LinkInfo("vx0", "vxlan").setVxlan(VxlanInfo()
                                                    .setVni(4242)
                                                    .setLocal(IpAddress::parse("10.0.0.1"))
                                                    .setRemote(IpAddress::parse("10.0.0.2"))
                                                    .setDstPort(4789)
                                                    .setDev("u0")
                                                    .setLearning(false)
                                                    .setTtl(16)));
  auto d = ipLink("vx0")["linkinfo"]["info_data"];
  EXPECT_EQ(d["id"], 4242);
  EXPECT_EQ(d["local"], "10.0.0.1");
  EXPECT_EQ(d["remote"], "10.0.0.2");
  EXPECT_EQ(d["port"], 4789);
  EXPECT_EQ(d["link"], "u0");
  EXPECT_EQ(d["learning"], false);
  EXPECT_EQ(d["ttl"], 16);
  auto got = links.get("vx0").vxlan;
  ASSERT_TRUE(got);
  EXPECT_EQ(got->vni, 4242u);
  EXPECT_EQ(got->remote->toString(), "10.0.0.2");
  EXPECT_EQ(got->dstPort, 4789);
  EXPECT_EQ(got->learning, false);
}

TEST_F(LinkTest, VxlanIpv6MulticastGroup) {
  addVeth("u0", "u1");
  links.add(LinkInfo("vx6", "vxlan").setVxlan(
      VxlanInfo().setVni(7).setGroup(IpAddress::parse("ff05::100")).setDev("u0").setDstPort(4789)));
  auto d = ipLink("vx6")["linkinfo"]["info_data"];
  EXPECT_EQ(d["group6"], "ff05::100");
  EXPECT_EQ(links.get("vx6").vxlan->remote->toString(), "ff05::100");
}

TEST_F(LinkTest, MacvlanAndMacvtapModes) {
  addVeth("u0", "u1");
  links.add(LinkInfo("mv0", "macvlan").setParent("u0").setMacvlan(MacvlanInfo().setMode(MacvlanMode::Bridge)));
  links.add(LinkInfo("mt0", "macvtap").setParent("u0").setMacvlan(MacvlanInfo().setMode(MacvlanMode::Vepa)));
  EXPECT_EQ(ipLink("mv0")["linkinfo"]["info_data"]["mode"], "bridge");
  EXPECT_EQ(ipLink("mt0")["linkinfo"]["info_data"]["mode"], "vepa");
  EXPECT_EQ(ipLink("mv0")["link"], "u0");
  EXPECT_EQ(links.get("mv0").macvlan->mode, MacvlanMode::Bridge);
  EXPECT_EQ(links.get("mt0").macvlan->mode, MacvlanMode::Vepa);
}

TEST_F(LinkTest, IfbDevice) {
  links.add(LinkInfo("ifb0", "ifb"));
  EXPECT_EQ(ipLink("ifb0")["linkinfo"]["info_kind"], "ifb");
}

TEST_F(LinkTest, QueuesAtCreation) {
  links.add(LinkInfo("v0", "veth").setNumTxQueues(4).setNumRxQueues(3).setVeth(VethInfo().setPeerName("v1")));
  auto j = ipLink("v0");
  EXPECT_EQ(j["num_tx_queues"], 4);
  EXPECT_EQ(j["num_rx_queues"], 3);
  EXPECT_EQ(*links.get("v0").numTxQueues, 4u);
}

TEST_F(LinkTest, MoveToAnotherNamespaceAndVethPeerNetns) {
  TestNetns other;
  links.add(LinkInfo("v0", "veth").setVeth(VethInfo().setPeerName("p0").setPeerNetns(Netns::named(other.name()))));
  EXPECT_TRUE(ipHasLink("v0"));
  EXPECT_FALSE(ipHasLink("p0"));
  EXPECT_EQ(other.ipJson("link show dev p0").size(), 1u);
  addVeth("v1", "v2");
  links.set("v1", LinkInfo().setNetns(Netns::named(other.name())));
  EXPECT_FALSE(ipHasLink("v1"));
  EXPECT_EQ(other.ipJson("link show dev v1").size(), 1u);
  // By path, too.
  addVeth("v3", "v4");
  links.set("v3", LinkInfo().setNetns(Netns::path("/run/netns/" + other.name())));
  EXPECT_EQ(other.ipJson("link show dev v3").size(), 1u);
}

TEST_F(LinkTest, MissingNamespaceIsAClearErrorAndChangesNothing) {
  addVeth("v0", "v1");
  try {
    links.set("v0", LinkInfo().setNetns(Netns::named("fastlink-no-such-ns")));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::no_such_file_or_directory);
    EXPECT_NE(std::string(e.what()).find("fastlink-no-such-ns"), std::string::npos);
  }
  EXPECT_TRUE(ipHasLink("v0"));
}

TEST_F(LinkTest, ListFiltersKindAndMasterInTheKernel) {
  for (int i = 0; i < 3; ++i) links.add(LinkInfo("br" + std::to_string(i), "bridge"));
  for (int i = 0; i < 30; ++i) addVeth("a" + std::to_string(i), "b" + std::to_string(i));
  for (int i = 0; i < 4; ++i) links.set("a" + std::to_string(i), LinkInfo().setMaster("br1"));
  const std::size_t total = ns.ipJson("link show").size();  // lo + 3 bridges + 60 veths
  ASSERT_EQ(total, 64u);

  // Counted on the wire by an observer of the socket calls, not by fastlink's own counters:
  // filtering in user space would show every device crossing the socket.
  wire::reset();
  auto bridges = links.list(LinkFilter().setKind("bridge"));
  wire::Counts w = wire::counts();
  std::set<std::string> names;
  for (const auto& l : bridges) names.insert(*l.name);
  EXPECT_EQ(names, (std::set<std::string>{"br0", "br1", "br2"}));
  EXPECT_EQ(w.dumpRequests, 1u);
  EXPECT_EQ(w.dataMessages, 3u) << "the kernel sent only the 3 bridges, not all " << total << " devices";

  wire::reset();
  auto all = links.list();
  EXPECT_EQ(all.size(), total);
  EXPECT_EQ(wire::counts().dataMessages, total);

  wire::reset();
  auto ports = links.list(LinkFilter().setMaster("br1"));
  w = wire::counts();
  names.clear();
  for (const auto& l : ports) names.insert(*l.name);
  EXPECT_EQ(names, (std::set<std::string>{"a0", "a1", "a2", "a3"}));
  EXPECT_EQ(w.dumpRequests, 1u);
  // The 4 ports, plus at most the lookup of br1's index.
  EXPECT_LE(w.dataMessages, 5u) << "the kernel filtered by master";
  std::set<std::string> oracle;
  for (const auto& l : ns.ipJson("link show master br1")) oracle.insert(l["ifname"].get<std::string>());
  EXPECT_EQ(names, oracle);
}

TEST_F(LinkTest, ListFiltersGroupAndNameInUserSpaceAndStatsOnlyWhenAsked) {
  for (int i = 0; i < 6; ++i) addVeth("g" + std::to_string(i), "h" + std::to_string(i));
  links.set("g1", LinkInfo().setGroup(9));
  links.set("g4", LinkInfo().setGroup(9));
  auto group = links.list(LinkFilter().setGroup(9));
  ASSERT_EQ(group.size(), 2u);
  auto named = links.list(LinkFilter().setNamePattern("h*"));
  EXPECT_EQ(named.size(), 6u);
  EXPECT_FALSE(named[0].stats.has_value());
  auto withStats = links.list(LinkFilter().setNamePattern("lo").setWithStats(true));
  ASSERT_EQ(withStats.size(), 1u);
  EXPECT_TRUE(withStats[0].stats.has_value());

  // The skip-stats mask reaches the kernel: the dump request carries IFLA_EXT_MASK with
  // RTEXT_FILTER_SKIP_STATS (seen on the wire), and without the option it carries none.
  auto extMask = [](const wire::Counts& w) -> std::optional<uint32_t> {
    for (const auto& m : w.sentBytes) {
      auto* h = reinterpret_cast<const nlmsghdr*>(m.data());
      if (h->nlmsg_type != RTM_GETLINK || !(h->nlmsg_flags & NLM_F_DUMP)) continue;
      auto attrs = wire::attributes(m, sizeof(ifinfomsg));
      auto it = attrs.find(IFLA_EXT_MASK);
      if (it == attrs.end() || it->second.size() != 4) return std::nullopt;
      uint32_t v;
      std::memcpy(&v, it->second.data(), 4);
      return v;
    }
    return std::nullopt;
  };
  wire::reset();
  auto skip = links.list(LinkFilter().setKernelSkipStats(true).setWithStats(true).setNamePattern("g0"));
  auto mask = extMask(wire::counts());
  ASSERT_TRUE(mask.has_value()) << "no IFLA_EXT_MASK in the dump request";
  EXPECT_TRUE(*mask & RTEXT_FILTER_SKIP_STATS);
  ASSERT_EQ(skip.size(), 1u);
  // RTEXT_FILTER_SKIP_STATS only drops per-VF statistics; the device's own counters still come.
  EXPECT_TRUE(skip[0].stats.has_value());
  wire::reset();
  links.list(LinkFilter().setWithStats(true).setNamePattern("g0"));
  mask = extMask(wire::counts());
  EXPECT_FALSE(mask && (*mask & RTEXT_FILTER_SKIP_STATS)) << "skip-stats only when asked";
}

// Sends `count` UDP datagrams to `to` from inside the test namespace (a thread may change its
// own network namespace without affecting the rest of the test).
void sendUdpInNamespace(const std::string& netns, const char* to, int count) {
  std::thread([&] {
    int nsFd = ::open(("/run/netns/" + netns).c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(nsFd, 0);
    ASSERT_EQ(setns(nsFd, CLONE_NEWNET), 0);
    ::close(nsFd);
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(s, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(9);
    inet_pton(AF_INET, to, &addr.sin_addr);
    for (int i = 0; i < count; ++i)
      EXPECT_EQ(sendto(s, "fastlink", 8, 0, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 8);
    ::close(s);
  }).join();
}

TEST_F(LinkTest, StatisticsMatchSysfs) {
  // No IPv6 on new devices: no router solicitations or MLD reports to race with.
  ns.exec("echo 1 > /proc/sys/net/ipv6/conf/default/disable_ipv6");
  addVeth("v0", "v1");
  links.set("v0", LinkInfo().setAdmin(true));
  links.set("v1", LinkInfo().setAdmin(true));
  ns.ip("addr add 10.9.0.1/24 dev v0");
  ns.ip("neigh add 10.9.0.2 lladdr 02:00:00:00:00:02 dev v0 nud permanent");  // no ARP needed
  // Until linkwatch has seen the carrier (late on a loaded VM), v0 has no qdisc to send through.
  ASSERT_TRUE(waitUntil([&] { return ns.sysfs("v0", "operstate") == "up"; })) << ns.sysfs("v0", "operstate");
  sendUdpInNamespace(ns.name(), "10.9.0.2", 5);
  links.set("v0", LinkInfo().setAdmin(false));  // quiesce before comparing
  auto got = links.get("v0", /*withStats=*/true);
  ASSERT_TRUE(got.stats);
  EXPECT_EQ(got.stats->txPackets, 5u);
  EXPECT_EQ(got.stats->txPackets, std::stoull(ns.sysfs("v0", "statistics/tx_packets")));
  EXPECT_EQ(got.stats->txBytes, std::stoull(ns.sysfs("v0", "statistics/tx_bytes")));
  EXPECT_EQ(links.get("v1", true).stats->rxPackets, 5u) << "the peer received them";
  EXPECT_FALSE(links.get("v0").stats.has_value()) << "statistics only when asked";
}

TEST_F(LinkTest, GroupSetAndDeleteAreSingleRequests) {
  for (int i = 0; i < 20; ++i) {
    addVeth("m" + std::to_string(i), "n" + std::to_string(i));
    if (i < 12) links.set("m" + std::to_string(i), LinkInfo().setGroup(5));
  }
  // Requests counted on the wire (every netlink message this process sends), not sendmsg calls.
  wire::reset();
  links.setGroup(5, LinkInfo().setMtu(1400).setAdmin(true));
  wire::Counts w = wire::counts();
  EXPECT_EQ(w.requests, 1u) << "one RTM_NEWLINK for the whole group, no per-device requests or dumps";
  EXPECT_EQ(w.requestTypes[RTM_NEWLINK], 1u);
  EXPECT_EQ(w.dumpRequests, 0u);
  std::map<std::string, int> mtu;
  for (const auto& l : ns.ipJson("link show")) mtu[l["ifname"].get<std::string>()] = l["mtu"].get<int>();
  for (int i = 0; i < 20; ++i) EXPECT_EQ(mtu["m" + std::to_string(i)], i < 12 ? 1400 : 1500) << i;
  wire::reset();
  links.delGroup(5);
  w = wire::counts();
  EXPECT_EQ(w.requests, 1u) << "one RTM_DELLINK for the whole group";
  EXPECT_EQ(w.requestTypes[RTM_DELLINK], 1u);
  EXPECT_EQ(w.dumpRequests, 0u);
  std::set<std::string> have;
  for (const auto& l : ns.ipJson("link show")) have.insert(l["ifname"].get<std::string>());
  for (int i = 0; i < 20; ++i) EXPECT_EQ(have.count("m" + std::to_string(i)), i >= 12 ? 1u : 0u) << i;
}

TEST_F(LinkTest, GroupZeroDeletionIsRefused) {
  std::string before = ipLinkSnapshot();
  try {
    links.delGroup(0);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::invalid_argument);
  }
  EXPECT_EQ(ipLinkSnapshot(), before);
}

TEST_F(LinkTest, BadInputChangesNothing) {
  addVeth("v0", "v1");
  std::string before = ipLinkSnapshot();
  auto expectInvalid = [&](auto&& f, const std::string& needle) {
    try {
      f();
      ADD_FAILURE() << "expected EINVAL mentioning " << needle;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), std::errc::invalid_argument) << e.what();
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expectInvalid([&] { links.add(LinkInfo("abcdefghijklmnop", "veth")); }, "longer than 15");
  expectInvalid([&] { links.add(LinkInfo("a/b", "bridge")); }, "'/'");
  expectInvalid([&] { links.add(LinkInfo("a:b", "bridge")); }, "':'");
  expectInvalid([&] { links.add(LinkInfo("a b", "bridge")); }, "whitespace");
  expectInvalid([&] { links.set("v0", LinkInfo().setMtu(99999999)); }, "out of range");
  expectInvalid([&] { links.set("v0", LinkInfo().setMtu(10)); }, "out of range");
  expectInvalid([&] { MacAddress::parse("00:11:22:33:44"); }, "MAC");
  expectInvalid([&] { links.add(LinkInfo("x0", "veth").setBridge(BridgeInfo().setStpState(1))); }, "bridge options");
  expectInvalid([&] { links.add(LinkInfo("x0")); }, "type");
  // A kind the kernel does not know is the kernel's word, and also changes nothing.
  EXPECT_THROW(links.add(LinkInfo("x0", "nosuchkind")), Error);
  EXPECT_EQ(ipLinkSnapshot(), before);
}

TEST_F(LinkTest, DumpRetriesWhenInterruptedAndStaysConsistent) {
  // Another socket keeps adding and removing devices while we dump: the kernel marks the
  // dump interrupted (NLM_F_DUMP_INTR) and fastlink restarts it. The result must be exactly
  // the stable devices plus whatever of the churn existed, never duplicates.
  for (int i = 0; i < 300; ++i) addVeth("s" + std::to_string(i), "t" + std::to_string(i));
  Netlink churn{NetlinkOptions{.netns = Netns::named(ns.name())}};
  uint64_t restarts = 0;
  for (int round = 0; round < 30 && restarts == 0; ++round) {
    std::size_t restartsSeen = 0;
    bool churned = false;
    std::vector<std::string> seen;
    links.forEach(
        {},
        [&](const LinkInfo& l) {
          seen.push_back(*l.name);
          if (seen.size() == 50 && !churned) {  // change the table in the middle of the first try
            churned = true;
            churn.links().add(LinkInfo("c0", "veth").setVeth(VethInfo().setPeerName("c1")));
            churn.links().del("c0");
          }
        },
        [&] {
          ++restartsSeen;
          seen.clear();
        });
    std::set<std::string> unique(seen.begin(), seen.end());
    EXPECT_EQ(unique.size(), seen.size()) << "duplicates after a restart";
    EXPECT_GE(seen.size(), 601u);
    restarts += restartsSeen;
  }
  EXPECT_GT(nl.counters().dumpRestarts, 0u) << "the churn never interrupted a dump";
}

TEST_F(LinkTest, ThrowingCallbackLeavesTheSocketUsable) {
  for (int i = 0; i < 200; ++i) addVeth("s" + std::to_string(i), "t" + std::to_string(i));  // many datagrams
  struct Stop {};
  EXPECT_THROW(links.forEach({}, [](const LinkInfo&) { throw Stop{}; }), Stop);
  // The abandoned dump was drained: the next dump on the same socket works and is complete.
  EXPECT_EQ(links.list().size(), ns.ipJson("link show").size());
}

TEST_F(LinkTest, SocketInNamespaceByFdAndPath) {
  addVeth("v0", "v1");
  int fd = ::open(("/run/netns/" + ns.name()).c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  {
    Netlink byFd{NetlinkOptions{.netns = Netns::fd(fd)}};
    EXPECT_TRUE(byFd.links().find("v0").has_value());
    Netlink byPath{NetlinkOptions{.netns = Netns::path("/run/netns/" + ns.name())}};
    EXPECT_TRUE(byPath.links().find("v0").has_value());
  }
  ::close(fd);
  EXPECT_THROW(Netlink(NetlinkOptions{.netns = Netns::named("fastlink-no-such-ns")}), Error);
}

}  // namespace
}  // namespace fastlink::test
