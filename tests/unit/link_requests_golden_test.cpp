// Golden bytes for every link request LinkRequests builds, against the hand-laid expectation of
// golden.hpp. Requests leave seq and pid 0 (the engine stamps them when sending, and adds
// NLM_F_ACK), so the goldens do too.
#include <gtest/gtest.h>
#include <linux/if.h>
#include <linux/if_bridge.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>

#include "fastlink/link.hpp"
#include "unit/golden.hpp"

namespace fastlink {
namespace {

using test::Attrs;
using test::Bytes;
using test::Ifinfo;
using test::linkMessage;
using test::sameBytes;

constexpr uint16_t kCreateFlags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL;  // add: fail if it exists
constexpr uint16_t kReplaceFlags = NLM_F_REQUEST | NLM_F_CREATE;               // create or change
constexpr uint16_t kPlainFlags = NLM_F_REQUEST;                                // set, del

/// IFLA_LINKINFO { IFLA_INFO_KIND kind [, IFLA_INFO_DATA { data }] }
Attrs linkInfo(std::string_view kind) { return Attrs().nest(IFLA_LINKINFO, Attrs().str(IFLA_INFO_KIND, kind)); }
Attrs linkInfo(std::string_view kind, const Attrs& data) {
  return Attrs().nest(IFLA_LINKINFO, Attrs().str(IFLA_INFO_KIND, kind).nest(IFLA_INFO_DATA, data));
}

Bytes addMessage(const Attrs& attrs, const Ifinfo& ifi = {}) { return linkMessage(RTM_NEWLINK, kCreateFlags, ifi, attrs); }

IpAddress ip(std::string_view text) { return IpAddress::parse(text); }

// ---- add: one test per kind ------------------------------------------------------------------

TEST(LinkRequestsGolden, AddVethWithPeerName) {
  // ip link add v0 type veth peer name v1
  Request r = LinkRequests::add(LinkInfo("v0", "veth").setVeth(VethInfo().setPeerName("v1")));
  // The peer is described by a whole ifinfomsg + attributes inside VETH_INFO_PEER.
  Attrs peer = Attrs().header(Ifinfo{}).str(IFLA_IFNAME, "v1");
  Bytes expected = addMessage(Attrs().str(IFLA_IFNAME, "v0").append(linkInfo("veth", Attrs().nest(VETH_INFO_PEER, peer))));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
  EXPECT_EQ(r.operation(), "link add v0 type veth");
}

TEST(LinkRequestsGolden, AddVethWithPeerAddressAndPeerNetnsPid) {
  // ip link add v0 type veth peer name v1 address 02:00:00:00:00:01 netns <pid 4242> (ip adds
  // the peer's name last, after its loop over the words)
  Request r = LinkRequests::add(LinkInfo("v0", "veth").setVeth(VethInfo()
                                                                   .setPeerName("v1")
                                                                   .setPeerAddress(MacAddress::parse("02:00:00:00:00:01"))
                                                                   .setPeerNetns(Netns::pid(4242))));
  Attrs peer = Attrs()
                   .header(Ifinfo{})
                   .raw(IFLA_ADDRESS, {0x02, 0, 0, 0, 0, 0x01})
                   .u32(IFLA_NET_NS_PID, 4242)
                   .str(IFLA_IFNAME, "v1");
  Bytes expected = addMessage(Attrs().str(IFLA_IFNAME, "v0").append(linkInfo("veth", Attrs().nest(VETH_INFO_PEER, peer))));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
}

TEST(LinkRequestsGolden, AddVethWithThePeersOwnMtuTxqlenAndQueues) {
  // ip link add v0 type veth peer mtu 1400 txqlen 50 numtxqueues 3 numrxqueues 2 (no name: the
  // kernel names the peer)
  Request r = LinkRequests::add(
      LinkInfo("v0", "veth").setVeth(VethInfo().setPeerMtu(1400).setPeerTxqlen(50).setPeerQueues(3, 2)));
  Attrs peer = Attrs()
                   .header(Ifinfo{})
                   .u32(IFLA_MTU, 1400)
                   .u32(IFLA_TXQLEN, 50)
                   .u32(IFLA_NUM_TX_QUEUES, 3)
                   .u32(IFLA_NUM_RX_QUEUES, 2);
  Bytes expected = addMessage(Attrs().str(IFLA_IFNAME, "v0").append(linkInfo("veth", Attrs().nest(VETH_INFO_PEER, peer))));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
}

TEST(LinkRequestsGolden, AddVethWithThePeersBroadcastGroupAndGsoGroLimits) {
  // ip link add v0 type veth peer name v1 broadcast 02:ff:ff:ff:ff:fe group 7 gso_max_size 32000
  //   gso_max_segs 100 gro_max_size 30000: rtnl_create_link's attributes, which a new peer gets
  VethInfo v;
  v.peerName = "v1";
  v.peerBroadcast = MacAddress::parse("02:ff:ff:ff:ff:fe");
  v.peerGroup = 7;
  v.peerGsoMaxSize = 32000;
  v.peerGsoMaxSegs = 100;
  v.peerGroMaxSize = 30000;
  Request r = LinkRequests::add(LinkInfo("v0", "veth").setVeth(v));
  Attrs peer = Attrs()
                   .header(Ifinfo{})
                   .raw(IFLA_BROADCAST, {0x02, 0xff, 0xff, 0xff, 0xff, 0xfe})
                   .u32(IFLA_GROUP, 7)
                   .u32(IFLA_GSO_MAX_SIZE, 32000)
                   .u32(IFLA_GSO_MAX_SEGS, 100)
                   .u32(IFLA_GRO_MAX_SIZE, 30000)
                   .str(IFLA_IFNAME, "v1");
  Bytes expected = addMessage(Attrs().str(IFLA_IFNAME, "v0").append(linkInfo("veth", Attrs().nest(VETH_INFO_PEER, peer))));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
}

TEST(LinkRequestsGolden, AddVethWithoutPeerOptionsHasNoData) {
  Request r = LinkRequests::add(LinkInfo("v0", "veth"));
  EXPECT_TRUE(sameBytes(r.bytes(), addMessage(Attrs().str(IFLA_IFNAME, "v0").append(linkInfo("veth")))));
}

TEST(LinkRequestsGolden, AddBridgeWithEveryOption) {
  // ip link add br0 type bridge vlan_filtering 1 vlan_default_pvid 10 stp_state 1
  //   ageing_time 30000 no_linklocal_learn 1
  Request r = LinkRequests::add(LinkInfo("br0", "bridge").setBridge(BridgeInfo()
                                                                        .setVlanFiltering(true)
                                                                        .setVlanDefaultPvid(10)
                                                                        .setStpState(1)
                                                                        .setAgeingTime(30000)
                                                                        .setNoLinklocalLearn(true)));
  // struct br_boolopt_multi { u32 optval; u32 optmask; }, BR_BOOLOPT_NO_LL_LEARN is bit 0.
  Attrs data = Attrs()
                   .u8(IFLA_BR_VLAN_FILTERING, 1)
                   .u16(IFLA_BR_VLAN_DEFAULT_PVID, 10)
                   .u32(IFLA_BR_STP_STATE, 1)
                   .u32(IFLA_BR_AGEING_TIME, 30000)
                   .raw(IFLA_BR_MULTI_BOOLOPT, {1, 0, 0, 0, 1, 0, 0, 0});
  EXPECT_TRUE(sameBytes(r.bytes(), addMessage(Attrs().str(IFLA_IFNAME, "br0").append(linkInfo("bridge", data)))));
}

TEST(LinkRequestsGolden, AddBridgeOptionsOffAreSentAsZero) {
  // ip link add br0 type bridge vlan_filtering 0 vlan_default_pvid 0 stp_state 0 no_linklocal_learn 0
  Request r = LinkRequests::add(LinkInfo("br0", "bridge").setBridge(
      BridgeInfo().setVlanFiltering(false).setVlanDefaultPvid(0).setStpState(0).setNoLinklocalLearn(false)));
  Attrs data = Attrs()
                   .u8(IFLA_BR_VLAN_FILTERING, 0)
                   .u16(IFLA_BR_VLAN_DEFAULT_PVID, 0)
                   .u32(IFLA_BR_STP_STATE, 0)
                   .raw(IFLA_BR_MULTI_BOOLOPT, {0, 0, 0, 0, 1, 0, 0, 0});  // value 0, mask says "change it"
  EXPECT_TRUE(sameBytes(r.bytes(), addMessage(Attrs().str(IFLA_IFNAME, "br0").append(linkInfo("bridge", data)))));
}

TEST(LinkRequestsGolden, AddBridgeWithStpTimersPriorityAndSnooping) {
  // ip link add br0 type bridge forward_delay 400 hello_time 300 max_age 1000 priority 4096
  //   mcast_snooping 0
  Request r = LinkRequests::add(LinkInfo("br0", "bridge").setBridge(BridgeInfo()
                                                                        .setForwardDelay(400)
                                                                        .setHelloTime(300)
                                                                        .setMaxAge(1000)
                                                                        .setPriority(4096)
                                                                        .setMcastSnooping(false)));
  Attrs data = Attrs()
                   .u32(IFLA_BR_FORWARD_DELAY, 400)
                   .u32(IFLA_BR_HELLO_TIME, 300)
                   .u32(IFLA_BR_MAX_AGE, 1000)
                   .u16(IFLA_BR_PRIORITY, 4096)
                   .u8(IFLA_BR_MCAST_SNOOPING, 0);  // off is sent, not left out
  EXPECT_TRUE(sameBytes(r.bytes(), addMessage(Attrs().str(IFLA_IFNAME, "br0").append(linkInfo("bridge", data)))));
}

TEST(LinkRequestsGolden, AddBridgeWithoutOptionsHasNoData) {
  Request r = LinkRequests::add(LinkInfo("br0", "bridge").setBridge(BridgeInfo()));
  EXPECT_TRUE(sameBytes(r.bytes(), addMessage(Attrs().str(IFLA_IFNAME, "br0").append(linkInfo("bridge")))));
}

TEST(LinkRequestsGolden, AddVxlanV4) {
  // ip link add vx0 type vxlan id 42 local 10.0.0.1 remote 10.0.0.2 dstport 4789 dev <3>
  //   nolearning ttl 64
  Request r = LinkRequests::add(LinkInfo("vx0", "vxlan").setVxlan(VxlanInfo()
                                                                      .setVni(42)
                                                                      .setLocal(ip("10.0.0.1"))
                                                                      .setRemote(ip("10.0.0.2"))
                                                                      .setDstPort(4789)
                                                                      .setDev(3u)
                                                                      .setLearning(false)
                                                                      .setTtl(64)));
  Attrs data = Attrs()
                   .u32(IFLA_VXLAN_ID, 42)
                   .raw(IFLA_VXLAN_LOCAL, {10, 0, 0, 1})
                   .raw(IFLA_VXLAN_GROUP, {10, 0, 0, 2})  // remote and group share the attribute
                   .raw(IFLA_VXLAN_PORT, {0x12, 0xb5})    // 4789, network byte order
                   .u32(IFLA_VXLAN_LINK, 3)
                   .u8(IFLA_VXLAN_LEARNING, 0)
                   .u8(IFLA_VXLAN_TTL, 64);
  EXPECT_TRUE(sameBytes(r.bytes(), addMessage(Attrs().str(IFLA_IFNAME, "vx0").append(linkInfo("vxlan", data)))));
}

TEST(LinkRequestsGolden, AddVxlanV6WithLearning) {
  // ip link add vx6 type vxlan id 16777215 local 2001:db8::1 remote 2001:db8::2 dstport 8472 learning
  Request r = LinkRequests::add(LinkInfo("vx6", "vxlan").setVxlan(VxlanInfo()
                                                                      .setVni(16777215)
                                                                      .setLocal(ip("2001:db8::1"))
                                                                      .setRemote(ip("2001:db8::2"))
                                                                      .setDstPort(8472)
                                                                      .setLearning(true)));
  Attrs data = Attrs()
                   .u32(IFLA_VXLAN_ID, 0xffffff)
                   .raw(IFLA_VXLAN_LOCAL6, {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01})
                   .raw(IFLA_VXLAN_GROUP6, {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02})
                   .raw(IFLA_VXLAN_PORT, {0x21, 0x18})  // 8472
                   .u8(IFLA_VXLAN_LEARNING, 1);
  EXPECT_TRUE(sameBytes(r.bytes(), addMessage(Attrs().str(IFLA_IFNAME, "vx6").append(linkInfo("vxlan", data)))));
}

TEST(LinkRequestsGolden, AddVxlanWithTosSrcportAgeingUdpcsum) {
  // ip link add vx0 type vxlan id 42 dstport 4789 tos 0x10 ageing 100 srcport 1000 2000 noudpcsum
  Request r = LinkRequests::add(LinkInfo("vx0", "vxlan").setVxlan(VxlanInfo()
                                                                      .setVni(42)
                                                                      .setDstPort(4789)
                                                                      .setTos(0x10)
                                                                      .setAgeing(100)
                                                                      .setSrcPortRange(1000, 2000)
                                                                      .setUdpCsum(false)));
  Attrs data = Attrs()
                   .u32(IFLA_VXLAN_ID, 42)
                   .raw(IFLA_VXLAN_PORT, {0x12, 0xb5})
                   .u8(IFLA_VXLAN_TOS, 0x10)
                   .u32(IFLA_VXLAN_AGEING, 100)
                   // struct ifla_vxlan_port_range { __be16 low, high; }: 1000 = 0x03e8, 2000 = 0x07d0
                   .raw(IFLA_VXLAN_PORT_RANGE, {0x03, 0xe8, 0x07, 0xd0})
                   .u8(IFLA_VXLAN_UDP_CSUM, 0);
  EXPECT_TRUE(sameBytes(r.bytes(), addMessage(Attrs().str(IFLA_IFNAME, "vx0").append(linkInfo("vxlan", data)))));
}

TEST(LinkRequestsGolden, AddVxlanWithDfAndIpv6ZeroChecksums) {
  // ip link add vx0 type vxlan id 42 remote 2001:db8::2 df inherit udp6zerocsumtx noudp6zerocsumrx
  Request r = LinkRequests::add(LinkInfo("vx0", "vxlan").setVxlan(VxlanInfo()
                                                                      .setVni(42)
                                                                      .setRemote(ip("2001:db8::2"))
                                                                      .setDf(VxlanDf::Inherit)
                                                                      .setUdp6ZeroCsumTx(true)
                                                                      .setUdp6ZeroCsumRx(false)));
  Attrs data = Attrs()
                   .u32(IFLA_VXLAN_ID, 42)
                   .raw(IFLA_VXLAN_GROUP6, {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02})
                   .u8(IFLA_VXLAN_UDP_ZERO_CSUM6_TX, 1)
                   .u8(IFLA_VXLAN_UDP_ZERO_CSUM6_RX, 0)
                   .u8(IFLA_VXLAN_DF, 2);  // VXLAN_DF_INHERIT
  EXPECT_TRUE(sameBytes(r.bytes(), addMessage(Attrs().str(IFLA_IFNAME, "vx0").append(linkInfo("vxlan", data)))));
}

TEST(LinkRequestsGolden, VxlanSrcportRangeMustBeOrderedAndComplete) {
  for (VxlanInfo v : {VxlanInfo().setVni(1).setSrcPortRange(2000, 1000), [] {
                        VxlanInfo half = VxlanInfo().setVni(1);
                        half.srcPortMin = 1000;
                        return half;
                      }()}) {
    try {
      LinkRequests::add(LinkInfo("vx0", "vxlan").setVxlan(v));
      FAIL() << "an inverted or half source port range was encoded";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), std::errc::invalid_argument);
      EXPECT_NE(std::string(e.what()).find("port range"), std::string::npos) << e.what();
    }
  }
}

TEST(LinkRequestsGolden, AddVxlanMulticastGroup) {
  // ip link add vx1 type vxlan id 7 group 239.1.1.1 dev <2>
  Request r = LinkRequests::add(
      LinkInfo("vx1", "vxlan").setVxlan(VxlanInfo().setVni(7).setGroup(ip("239.1.1.1")).setDev(2u)));
  Attrs data = Attrs().u32(IFLA_VXLAN_ID, 7).raw(IFLA_VXLAN_GROUP, {239, 1, 1, 1}).u32(IFLA_VXLAN_LINK, 2);
  EXPECT_TRUE(sameBytes(r.bytes(), addMessage(Attrs().str(IFLA_IFNAME, "vx1").append(linkInfo("vxlan", data)))));
}

TEST(LinkRequestsGolden, AddMacvlanWithBcQueueLen) {
  // ip link add mv0 link <2> type macvlan mode vepa bcqueuelen 2000; the used length is never sent
  MacvlanInfo m = MacvlanInfo().setMode(MacvlanMode::Vepa).setBcQueueLen(2000);
  m.usedBcQueueLen = 3000;
  Request r = LinkRequests::add(LinkInfo("mv0", "macvlan").setParent(2u).setMacvlan(m));
  Attrs data = Attrs().u32(IFLA_MACVLAN_MODE, 2).u32(IFLA_MACVLAN_BC_QUEUE_LEN, 2000);
  EXPECT_TRUE(sameBytes(r.bytes(), addMessage(Attrs().str(IFLA_IFNAME, "mv0").u32(IFLA_LINK, 2).append(linkInfo("macvlan", data)))));
  // bcqueuelen alone (ip link set mv0 type macvlan bcqueuelen 10): no mode attribute.
  Request set = LinkRequests::set(Ifref(5u), LinkInfo().setKind("macvlan").setMacvlan(MacvlanInfo().setBcQueueLen(10)));
  EXPECT_TRUE(sameBytes(set.bytes(), linkMessage(RTM_NEWLINK, NLM_F_REQUEST, Ifinfo{.index = 5},
                                                 linkInfo("macvlan", Attrs().u32(IFLA_MACVLAN_BC_QUEUE_LEN, 10)))));
}

TEST(LinkRequestsGolden, AddMacvlanBridgeMode) {
  // ip link add mv0 link <2> type macvlan mode bridge
  Request r = LinkRequests::add(
      LinkInfo("mv0", "macvlan").setParent(2u).setMacvlan(MacvlanInfo().setMode(MacvlanMode::Bridge)));
  Attrs data = Attrs().u32(IFLA_MACVLAN_MODE, 4);  // MACVLAN_MODE_BRIDGE
  Bytes expected =
      addMessage(Attrs().str(IFLA_IFNAME, "mv0").u32(IFLA_LINK, 2).append(linkInfo("macvlan", data)));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
}

TEST(LinkRequestsGolden, AddMacvtapEachMode) {
  // ip link add mt0 link <2> type macvtap mode MODE — macvtap takes the macvlan options.
  const std::pair<MacvlanMode, uint32_t> modes[] = {{MacvlanMode::Private, 1},
                                                    {MacvlanMode::Vepa, 2},
                                                    {MacvlanMode::Bridge, 4},
                                                    {MacvlanMode::Passthru, 8},
                                                    {MacvlanMode::Source, 16}};
  for (auto [mode, wire] : modes) {
    SCOPED_TRACE(wire);
    Request r = LinkRequests::add(LinkInfo("mt0", "macvtap").setParent(2u).setMacvlan(MacvlanInfo().setMode(mode)));
    Attrs data = Attrs().u32(IFLA_MACVLAN_MODE, wire);
    EXPECT_TRUE(sameBytes(r.bytes(), addMessage(Attrs().str(IFLA_IFNAME, "mt0").u32(IFLA_LINK, 2).append(
                                         linkInfo("macvtap", data)))));
  }
}

TEST(LinkRequestsGolden, AddVlan) {
  // ip link add link <2> name eth0.100 type vlan id 100 protocol 802.1Q
  Request r = LinkRequests::add(
      LinkInfo("eth0.100", "vlan").setParent(2u).setVlan(VlanInfo().setId(100).setProtocol(VlanProtocol::Dot1Q)));
  Attrs data = Attrs().u16(IFLA_VLAN_ID, 100).raw(IFLA_VLAN_PROTOCOL, {0x81, 0x00});  // network byte order
  Bytes expected = addMessage(Attrs().str(IFLA_IFNAME, "eth0.100").u32(IFLA_LINK, 2).append(linkInfo("vlan", data)));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
}

TEST(LinkRequestsGolden, AddVlanKindInferredFromOptions) {
  // No kind given: the single options struct names it.
  Request r = LinkRequests::add(LinkInfo("qinq").setParent(9u).setVlan(VlanInfo().setId(4094).setProtocol(VlanProtocol::Dot1AD)));
  Attrs data = Attrs().u16(IFLA_VLAN_ID, 4094).raw(IFLA_VLAN_PROTOCOL, {0x88, 0xa8});
  EXPECT_TRUE(sameBytes(r.bytes(), addMessage(Attrs().str(IFLA_IFNAME, "qinq").u32(IFLA_LINK, 9).append(linkInfo("vlan", data)))));
}

TEST(LinkRequestsGolden, AddVrf) {
  // ip link add vrf-blue type vrf table 10
  Request r = LinkRequests::add(LinkInfo("vrf-blue", "vrf").setVrf(VrfInfo().setTable(10)));
  Attrs data = Attrs().u32(IFLA_VRF_TABLE, 10);
  EXPECT_TRUE(sameBytes(r.bytes(), addMessage(Attrs().str(IFLA_IFNAME, "vrf-blue").append(linkInfo("vrf", data)))));
}

TEST(LinkRequestsGolden, AddBond) {
  // ip link add bond0 type bond mode active-backup miimon 100
  Request r = LinkRequests::add(
      LinkInfo("bond0", "bond").setBond(BondInfo().setMode(BondMode::ActiveBackup).setMiimon(100)));
  Attrs data = Attrs().u8(IFLA_BOND_MODE, 1).u32(IFLA_BOND_MIIMON, 100);
  EXPECT_TRUE(sameBytes(r.bytes(), addMessage(Attrs().str(IFLA_IFNAME, "bond0").append(linkInfo("bond", data)))));
}

TEST(LinkRequestsGolden, AddBondModes) {
  const std::pair<BondMode, uint8_t> modes[] = {{BondMode::BalanceRr, 0},  {BondMode::ActiveBackup, 1},
                                                {BondMode::BalanceXor, 2}, {BondMode::Broadcast, 3},
                                                {BondMode::Lacp8023ad, 4}, {BondMode::BalanceTlb, 5},
                                                {BondMode::BalanceAlb, 6}};
  for (auto [mode, wire] : modes) {
    SCOPED_TRACE(int(wire));
    Request r = LinkRequests::add(LinkInfo("bond0", "bond").setBond(BondInfo().setMode(mode)));
    EXPECT_TRUE(sameBytes(r.bytes(), addMessage(Attrs().str(IFLA_IFNAME, "bond0").append(
                                         linkInfo("bond", Attrs().u8(IFLA_BOND_MODE, wire))))));
  }
}

TEST(LinkRequestsGolden, AddKindOnly) {
  // ip link add NAME type dummy|ifb|wireguard
  for (std::string kind : {"dummy", "ifb", "wireguard"}) {
    SCOPED_TRACE(kind);
    Request r = LinkRequests::add(LinkInfo("x0", kind));
    EXPECT_TRUE(sameBytes(r.bytes(), addMessage(Attrs().str(IFLA_IFNAME, "x0").append(linkInfo(kind)))));
  }
}

TEST(LinkRequestsGolden, AddUnknownKindIsSentWithoutOptions) {
  Request r = LinkRequests::add(LinkInfo("gn0", "geneve"));
  EXPECT_TRUE(sameBytes(r.bytes(), addMessage(Attrs().str(IFLA_IFNAME, "gn0").append(linkInfo("geneve")))));
}

TEST(LinkRequestsGolden, AddWithEveryCommonField) {
  // ip link add d0 mtu 9000 address 02:11:22:33:44:55 group 7 master <4> up txqueuelen 500
  //   numtxqueues 4 numrxqueues 2 type dummy
  Request r = LinkRequests::add(LinkInfo("d0", "dummy")
                                    .setMtu(9000)
                                    .setAddress(MacAddress::parse("02:11:22:33:44:55"))
                                    .setGroup(7)
                                    .setMaster(4u)
                                    .setAdmin(true)
                                    .setTxqlen(500)
                                    .setNumTxQueues(4)
                                    .setNumRxQueues(2));
  Attrs attrs = Attrs()
                    .str(IFLA_IFNAME, "d0")
                    .u32(IFLA_MTU, 9000)
                    .raw(IFLA_ADDRESS, {0x02, 0x11, 0x22, 0x33, 0x44, 0x55})
                    .u32(IFLA_GROUP, 7)
                    .u32(IFLA_MASTER, 4)
                    .u32(IFLA_TXQLEN, 500)
                    .u32(IFLA_NUM_TX_QUEUES, 4)
                    .u32(IFLA_NUM_RX_QUEUES, 2)
                    .append(linkInfo("dummy"));
  EXPECT_TRUE(sameBytes(r.bytes(), addMessage(attrs, Ifinfo{.flags = IFF_UP, .change = IFF_UP})));
  EXPECT_EQ(r.operation(), "link add d0 type dummy mtu 9000 up");
}

TEST(LinkRequestsGolden, AliasAtCreationIsRefused) {
  // The kernel ignores IFLA_IFALIAS in a creating RTM_NEWLINK; refusing beats losing it silently.
  try {
    LinkRequests::add(LinkInfo("d0", "dummy").setAlias("uplink"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("alias"), std::string::npos);
  }
}

TEST(LinkRequestsGolden, AddDown) {
  Request r = LinkRequests::add(LinkInfo("d0", "dummy").setAdmin(false));
  // Down: IFF_UP in the change mask, cleared in the flags.
  EXPECT_TRUE(sameBytes(r.bytes(), addMessage(Attrs().str(IFLA_IFNAME, "d0").append(linkInfo("dummy")),
                                              Ifinfo{.flags = 0, .change = IFF_UP})));
}

TEST(LinkRequestsGolden, AddIntoNetnsByBorrowedFd) {
  // ip link add d0 netns <fd 9> type dummy — a borrowed fd is sent as is (no I/O here).
  Request r = LinkRequests::add(LinkInfo("d0", "dummy").setNetns(Netns::fd(9)));
  Attrs attrs = Attrs().str(IFLA_IFNAME, "d0").u32(IFLA_NET_NS_FD, 9).append(linkInfo("dummy"));
  EXPECT_TRUE(sameBytes(r.bytes(), addMessage(attrs)));
}

// ---- replace -----------------------------------------------------------------------------------

TEST(LinkRequestsGolden, ReplaceHasCreateWithoutExcl) {
  Request r = LinkRequests::replace(LinkInfo("br0", "bridge").setMtu(1500).setBridge(BridgeInfo().setStpState(0)));
  Attrs attrs = Attrs().str(IFLA_IFNAME, "br0").u32(IFLA_MTU, 1500).append(linkInfo("bridge", Attrs().u32(IFLA_BR_STP_STATE, 0)));
  EXPECT_TRUE(sameBytes(r.bytes(), linkMessage(RTM_NEWLINK, kReplaceFlags, {}, attrs)));
  EXPECT_EQ(r.operation(), "link replace br0 type bridge mtu 1500");
}

TEST(LinkRequestsGolden, ReplaceByIndex) {
  Request r = LinkRequests::replace(LinkInfo().setIndex(12).setKind("dummy").setMtu(1280));
  Attrs attrs = Attrs().u32(IFLA_MTU, 1280).append(linkInfo("dummy"));
  EXPECT_TRUE(sameBytes(r.bytes(), linkMessage(RTM_NEWLINK, kReplaceFlags, Ifinfo{.index = 12}, attrs)));
}

// ---- set ---------------------------------------------------------------------------------------

TEST(LinkRequestsGolden, SetByName) {
  // ip link set dev v0 mtu 9000 up
  Request r = LinkRequests::set("v0", LinkInfo().setMtu(9000).setAdmin(true));
  Attrs attrs = Attrs().str(IFLA_IFNAME, "v0").u32(IFLA_MTU, 9000);
  EXPECT_TRUE(sameBytes(r.bytes(), linkMessage(RTM_NEWLINK, kPlainFlags, Ifinfo{.flags = IFF_UP, .change = IFF_UP}, attrs)));
  EXPECT_EQ(r.operation(), "link set dev v0");
}

TEST(LinkRequestsGolden, SetFlagsOnOff) {
  // ip link set v0 arp off promisc on multicast off trailers on carrier off: NOARP set, PROMISC
  // set, MULTICAST cleared, NOTRAILERS cleared (all in the change mask), IFLA_CARRIER 0.
  Request r = LinkRequests::set("v0", LinkInfo()
                                          .setFlag(LinkFlag::Arp, false)
                                          .setFlag(LinkFlag::Promisc, true)
                                          .setFlag(LinkFlag::Multicast, false)
                                          .setFlag(LinkFlag::Trailers, true)
                                          .setFlag(LinkFlag::Carrier, false));
  Attrs attrs = Attrs().str(IFLA_IFNAME, "v0").u8(IFLA_CARRIER, 0);
  Ifinfo ifi{.flags = IFF_NOARP | IFF_PROMISC, .change = IFF_NOARP | IFF_PROMISC | IFF_MULTICAST | IFF_NOTRAILERS};
  EXPECT_TRUE(sameBytes(r.bytes(), linkMessage(RTM_NEWLINK, kPlainFlags, ifi, attrs)));
}

TEST(LinkRequestsGolden, SetByIndex) {
  // ip link set dev <ifindex 5> down
  Request r = LinkRequests::set(5u, LinkInfo().setAdmin(false));
  EXPECT_TRUE(sameBytes(r.bytes(), linkMessage(RTM_NEWLINK, kPlainFlags, Ifinfo{.index = 5, .flags = 0, .change = IFF_UP})));
  EXPECT_EQ(r.operation(), "link set dev ifindex 5");
}

TEST(LinkRequestsGolden, SetByIndexIgnoresAnIndexInTheChanges) {
  Request r = LinkRequests::set(5u, LinkInfo().setIndex(99).setMtu(1400));
  EXPECT_TRUE(sameBytes(r.bytes(), linkMessage(RTM_NEWLINK, kPlainFlags, Ifinfo{.index = 5}, Attrs().u32(IFLA_MTU, 1400))));
}

TEST(LinkRequestsGolden, RenameByIndex) {
  // ip link set dev <ifindex 5> name wan0
  Request r = LinkRequests::set(5u, LinkInfo("wan0"));
  EXPECT_TRUE(sameBytes(r.bytes(), linkMessage(RTM_NEWLINK, kPlainFlags, Ifinfo{.index = 5}, Attrs().str(IFLA_IFNAME, "wan0"))));
}

TEST(LinkRequestsGolden, SetByNameWithTheSameNameIsNotARename) {
  Request r = LinkRequests::set("v0", LinkInfo("v0").setTxqlen(1000));
  EXPECT_TRUE(sameBytes(r.bytes(), linkMessage(RTM_NEWLINK, kPlainFlags, {}, Attrs().str(IFLA_IFNAME, "v0").u32(IFLA_TXQLEN, 1000))));
}

TEST(LinkRequestsGolden, SetEveryChangeableField) {
  // ip link set dev v0 mtu 1400 address 02:00:00:00:00:aa group 3 master <8> txqueuelen 0 alias ""
  Request r = LinkRequests::set("v0", LinkInfo()
                                          .setMtu(1400)
                                          .setAddress(MacAddress::parse("02-00-00-00-00-AA"))
                                          .setGroup(3)
                                          .setMaster(8u)
                                          .setTxqlen(0)
                                          .setAlias(""));
  Attrs attrs = Attrs()
                    .str(IFLA_IFNAME, "v0")
                    .u32(IFLA_MTU, 1400)
                    .raw(IFLA_ADDRESS, {0x02, 0, 0, 0, 0, 0xaa})
                    .u32(IFLA_GROUP, 3)
                    .u32(IFLA_MASTER, 8)
                    .u32(IFLA_TXQLEN, 0)
                    .str(IFLA_IFALIAS, "");  // an empty alias clears it: just the NUL
  EXPECT_TRUE(sameBytes(r.bytes(), linkMessage(RTM_NEWLINK, kPlainFlags, {}, attrs)));
}

TEST(LinkRequestsGolden, SetNoMaster) {
  // ip link set dev v0 nomaster
  Request r = LinkRequests::set("v0", LinkInfo().setNoMaster());
  EXPECT_TRUE(sameBytes(r.bytes(), linkMessage(RTM_NEWLINK, kPlainFlags, {}, Attrs().str(IFLA_IFNAME, "v0").u32(IFLA_MASTER, 0))));
}

TEST(LinkRequestsGolden, SetNetnsByPid) {
  // ip link set dev v0 netns 4242
  Request r = LinkRequests::set("v0", LinkInfo().setNetns(Netns::pid(4242)));
  EXPECT_TRUE(sameBytes(r.bytes(), linkMessage(RTM_NEWLINK, kPlainFlags, {}, Attrs().str(IFLA_IFNAME, "v0").u32(IFLA_NET_NS_PID, 4242))));
}

TEST(LinkRequestsGolden, SetBridgeOptionsByIndex) {
  // ip link set dev <ifindex 3> type bridge vlan_filtering 1 — the kind comes from the options.
  Request r = LinkRequests::set(3u, LinkInfo().setBridge(BridgeInfo().setVlanFiltering(true)));
  Attrs attrs = linkInfo("bridge", Attrs().u8(IFLA_BR_VLAN_FILTERING, 1));
  EXPECT_TRUE(sameBytes(r.bytes(), linkMessage(RTM_NEWLINK, kPlainFlags, Ifinfo{.index = 3}, attrs)));
}

// ---- del ---------------------------------------------------------------------------------------

TEST(LinkRequestsGolden, DelByName) {
  // ip link del dev v0
  Request r = LinkRequests::del("v0");
  EXPECT_TRUE(sameBytes(r.bytes(), linkMessage(RTM_DELLINK, kPlainFlags, {}, Attrs().str(IFLA_IFNAME, "v0"))));
  EXPECT_EQ(r.operation(), "link del dev v0");
}

TEST(LinkRequestsGolden, DelByIndex) {
  Request r = LinkRequests::del(17u);
  EXPECT_TRUE(sameBytes(r.bytes(), linkMessage(RTM_DELLINK, kPlainFlags, Ifinfo{.index = 17})));
  EXPECT_EQ(r.operation(), "link del dev ifindex 17");
}

// ---- groups ------------------------------------------------------------------------------------

TEST(LinkRequestsGolden, SetGroup) {
  // ip link set group 7 mtu 1400 up — ifindex 0 and no IFLA_IFNAME, so the kernel applies the
  // change to every device whose group is IFLA_GROUP.
  Request r = LinkRequests::setGroup(7, LinkInfo().setMtu(1400).setAdmin(true));
  Attrs attrs = Attrs().u32(IFLA_MTU, 1400).u32(IFLA_GROUP, 7);
  EXPECT_TRUE(sameBytes(r.bytes(), linkMessage(RTM_NEWLINK, kPlainFlags, Ifinfo{.flags = IFF_UP, .change = IFF_UP}, attrs)));
  EXPECT_EQ(r.operation(), "link set group 7 mtu 1400 up");
}

TEST(LinkRequestsGolden, SetGroupDownWithMaster) {
  // ip link set group 2 down master <6>
  Request r = LinkRequests::setGroup(2, LinkInfo().setAdmin(false).setMaster(6u));
  Attrs attrs = Attrs().u32(IFLA_MASTER, 6).u32(IFLA_GROUP, 2);
  EXPECT_TRUE(sameBytes(r.bytes(), linkMessage(RTM_NEWLINK, kPlainFlags, Ifinfo{.change = IFF_UP}, attrs)));
}

TEST(LinkRequestsGolden, DelGroup) {
  // ip link del group 9
  Request r = LinkRequests::delGroup(9);
  EXPECT_TRUE(sameBytes(r.bytes(), linkMessage(RTM_DELLINK, kPlainFlags, {}, Attrs().u32(IFLA_GROUP, 9))));
  EXPECT_EQ(r.operation(), "link del group 9");
}

// ---- general properties -------------------------------------------------------------------------

TEST(LinkRequestsGolden, LengthFieldMatchesTheBytes) {
  Request r = LinkRequests::set(Ifref(3u), LinkInfo().setAlias("abc"));  // odd string lengths
  ASSERT_GE(r.bytes().size(), 16u);
  uint32_t len;
  std::memcpy(&len, r.bytes().data(), 4);
  EXPECT_EQ(len, r.bytes().size());
  EXPECT_EQ(len % 4, 0u);
}

}  // namespace
}  // namespace fastlink
