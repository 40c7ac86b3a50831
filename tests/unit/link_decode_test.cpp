// Parse -> compare -> emit -> compare: kernel-shaped RTM_NEWLINK messages (laid out the way
// rtnl_fill_ifinfo() does: no NLA_F_NESTED on IFLA_LINKINFO, IFLA_PAD before 64-bit stats,
// attributes fastlink does not decode) go through rtnl::decodeLink; the typed fields are
// checked, unknown attributes must come back byte-exact, and the settable fields re-encoded
// with LinkRequests::set must give the expected golden bytes.
#include <gtest/gtest.h>
#include <linux/if.h>
#include <linux/if_bridge.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "rtnl/link_codec.hpp"
#include "support/view_agreement.hpp"
#include "unit/golden.hpp"

namespace fastlink {
namespace {

using test::AlignedMessage;
using test::Attrs;
using test::Bytes;
using test::Ifinfo;
using test::sameBytes;

constexpr uint32_t kUpRunning = IFF_UP | IFF_BROADCAST | IFF_RUNNING | IFF_MULTICAST | IFF_LOWER_UP;
constexpr uint16_t kArphrdEther = 1;

/// A dump reply: RTM_NEWLINK with NLM_F_MULTI, the sequence number and port id of our socket.
Bytes kernelLink(int32_t index, uint32_t flags, const Attrs& attrs) {
  return test::linkMessage(RTM_NEWLINK, NLM_F_MULTI, Ifinfo{.type = kArphrdEther, .index = index, .flags = flags},
                           attrs, 1700000000, 4242);
}

LinkInfo decode(const Bytes& message, bool withStats = false) {
  AlignedMessage m(message);
  // Every message decoded here is also read as a LinkView, which must agree field by field.
  LinkView view(std::span(m.as<uint8_t>(), m.as<nlmsghdr>()->nlmsg_len));
  EXPECT_EQ(test::linkViewDisagreement(view, rtnl::decodeLink(m.as<nlmsghdr>(), true)), "");
  return rtnl::decodeLink(m.as<nlmsghdr>(), withStats);
}

/// The payload of the first attribute of `attrs` (to compare kept raw attributes with).
Bytes payload(const Attrs& one) {
  const Bytes& b = one.bytes();
  uint16_t len = static_cast<uint16_t>(b[0] | (b[1] << 8));
  return Bytes(b.begin() + 4, b.begin() + len);
}

Bytes bytesOf(std::span<const uint8_t> s) { return Bytes(s.begin(), s.end()); }

/// IFLA_LINKINFO as the kernel reports it (nla_nest_start_noflag: no NLA_F_NESTED).
Attrs kernelLinkInfo(std::string_view kind, const Attrs& data) {
  return Attrs().nestNoFlag(IFLA_LINKINFO, Attrs().str(IFLA_INFO_KIND, kind).nestNoFlag(IFLA_INFO_DATA, data));
}

/// IFLA_LINKINFO of a request (libmnl sets NLA_F_NESTED).
Attrs requestLinkInfo(std::string_view kind, const Attrs& data) {
  return Attrs().nest(IFLA_LINKINFO, Attrs().str(IFLA_INFO_KIND, kind).nest(IFLA_INFO_DATA, data));
}

/// The request LinkRequests::set(index, ...) should build for kind options alone.
Bytes kindChange(int32_t index, std::string_view kind, const Attrs& data) {
  return test::linkMessage(RTM_NEWLINK, NLM_F_REQUEST, Ifinfo{.index = index}, requestLinkInfo(kind, data));
}

/// What a user re-applies from a decoded link: the fields `ip link set` can change.
LinkInfo settableFields(const LinkInfo& d) {
  LinkInfo c;
  c.name = d.name;
  c.mtu = d.mtu;
  c.address = d.address;
  c.group = d.group;
  c.master = d.master;
  c.admin = d.admin;
  c.txqlen = d.txqlen;
  c.alias = d.alias;
  c.kind = d.kind;
  c.bridge = d.bridge;
  c.vxlan = d.vxlan;
  c.macvlan = d.macvlan;
  c.vlan = d.vlan;
  c.vrf = d.vrf;
  c.bond = d.bond;
  return c;
}

/// struct rtnl_link_stats64 of kernel 6.x: 25 u64 counters, value (i + 1) * 1000 + i.
Bytes stats64(std::size_t counters = 25) {
  Bytes b;
  for (std::size_t i = 0; i < counters; ++i) test::appendLe64(b, (i + 1) * 1000 + i);
  return b;
}

// The unknown top-level attributes of the veth message, each on its own so they can be compared.
const Attrs kLinkMode = Attrs().u8(IFLA_LINKMODE, 0);
const Attrs kPromiscuity = Attrs().u32(IFLA_PROMISCUITY, 1);
const Attrs kCarrierChanges = Attrs().u32(IFLA_CARRIER_CHANGES, 2);
const Attrs kPad = Attrs().flag(IFLA_PAD);
const Attrs kXdp = Attrs().nestNoFlag(IFLA_XDP, Attrs().u8(IFLA_XDP_ATTACHED, 0));
const Attrs kPropList = Attrs().nest(IFLA_PROP_LIST, Attrs().str(IFLA_ALT_IFNAME, "veth-alt-name"));
const Attrs kAfSpec = Attrs().nestNoFlag(IFLA_AF_SPEC, Attrs().nestNoFlag(2 /* AF_INET */, Attrs().u32(1, 1)));
const Attrs kPermAddress = Attrs().raw(IFLA_PERM_ADDRESS, {0x02, 0x42, 0xac, 0x11, 0x00, 0x02});

// Port options reported by the bridge master (IFLA_INFO_SLAVE_DATA).
const Attrs kBrportState = Attrs().u8(IFLA_BRPORT_STATE, 3);
const Attrs kBrportPriority = Attrs().u16(IFLA_BRPORT_PRIORITY, 32);
const Attrs kBrportCost = Attrs().u32(IFLA_BRPORT_COST, 2);

/// veth v0 (index 7), peer index 8, enslaved to bridge index 3, with attributes of every sort.
Bytes vethPortMessage() {
  Attrs slaveData = Attrs().append(kBrportState).append(kBrportPriority).append(kBrportCost);
  Bytes stats32(96, 0);  // struct rtnl_link_stats: the 32-bit copy, ignored
  Attrs a = Attrs()
                .str(IFLA_IFNAME, "v0")
                .u32(IFLA_TXQLEN, 1000)
                .u8(IFLA_OPERSTATE, 6)  // IF_OPER_UP
                .append(kLinkMode)
                .u32(IFLA_MTU, 1500)
                .u32(IFLA_MIN_MTU, 68)
                .u32(IFLA_MAX_MTU, 65535)
                .u32(IFLA_GROUP, 5)
                .append(kPromiscuity)
                .u32(IFLA_NUM_TX_QUEUES, 2)
                .u32(IFLA_NUM_RX_QUEUES, 3)
                .u8(IFLA_CARRIER, 1)
                .str(IFLA_QDISC, "noqueue")
                .append(kCarrierChanges)
                .u32(IFLA_LINK, 8)
                .u32(IFLA_MASTER, 3)
                .raw(IFLA_ADDRESS, {0x02, 0x00, 0x00, 0x00, 0x00, 0x07})
                .raw(IFLA_BROADCAST, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
                .str(IFLA_IFALIAS, "uplink")
                .append(kPad)
                .raw(IFLA_STATS64, stats64())
                .raw(IFLA_STATS, stats32)
                .append(kXdp)
                .nestNoFlag(IFLA_LINKINFO, Attrs()
                                               .str(IFLA_INFO_KIND, "veth")
                                               .str(IFLA_INFO_SLAVE_KIND, "bridge")
                                               .nestNoFlag(IFLA_INFO_SLAVE_DATA, slaveData))
                .append(kPropList)
                .append(kAfSpec)
                .append(kPermAddress);
  return kernelLink(7, kUpRunning, a);
}

TEST(LinkDecode, VethBridgePortEveryField) {
  LinkInfo d = decode(vethPortMessage());
  EXPECT_EQ(d.index, 7u);
  EXPECT_EQ(d.flags, kUpRunning);
  EXPECT_EQ(d.type, kArphrdEther);
  EXPECT_EQ(d.admin, true);
  EXPECT_TRUE(d.isUp());
  EXPECT_TRUE(d.isRunning());
  EXPECT_EQ(d.name, "v0");
  EXPECT_EQ(d.txqlen, 1000u);
  EXPECT_EQ(d.operState, "UP");
  EXPECT_EQ(d.mtu, 1500u);
  EXPECT_EQ(d.minMtu, 68u);
  EXPECT_EQ(d.maxMtu, 65535u);
  EXPECT_EQ(d.group, 5u);
  EXPECT_EQ(d.numTxQueues, 2u);
  EXPECT_EQ(d.numRxQueues, 3u);
  EXPECT_EQ(d.carrier, true);
  EXPECT_EQ(d.qdisc, "noqueue");
  EXPECT_EQ(d.parent, Ifref(8u));
  EXPECT_EQ(d.parentIndex(), 8u);
  EXPECT_EQ(d.master, Ifref(3u));
  EXPECT_EQ(d.masterIndex(), 3u);
  EXPECT_EQ(d.address, MacAddress::parse("02:00:00:00:00:07"));
  EXPECT_EQ(d.broadcast, MacAddress::parse("ff:ff:ff:ff:ff:ff"));
  EXPECT_EQ(d.alias, "uplink");
  EXPECT_EQ(d.kind, "veth");
  EXPECT_EQ(d.slaveKind, "bridge");
  EXPECT_FALSE(d.linkNetnsId.has_value());
  EXPECT_FALSE(d.veth.has_value());  // the kernel does not report the peer
  EXPECT_FALSE(d.stats.has_value()) << "statistics are decoded only when asked for";
  EXPECT_TRUE(d.unknownKindData.empty());
}

TEST(LinkDecode, UnknownTopLevelAttributesAreKeptByteExactInOrder) {
  LinkInfo d = decode(vethPortMessage());
  auto unknown = d.unknown.list();
  // IFLA_LINKMODE, IFLA_PROMISCUITY, IFLA_XDP and IFLA_CARRIER_CHANGES are decoded (linkMode,
  // promiscuity, xdp, carrierChanges), so not kept raw.
  EXPECT_EQ(d.linkMode, "DEFAULT");
  EXPECT_EQ(d.promiscuity, 1u);
  EXPECT_EQ(d.xdp, XdpStatus{}) << "reported, nothing attached";
  EXPECT_EQ(d.carrierChanges, 2u);
  const Attrs* expected[] = {&kPad, &kPropList, &kAfSpec, &kPermAddress};
  const uint16_t types[] = {IFLA_PAD, IFLA_PROP_LIST, IFLA_AF_SPEC, IFLA_PERM_ADDRESS};
  ASSERT_EQ(unknown.size(), std::size(expected));
  for (std::size_t i = 0; i < unknown.size(); ++i) {
    SCOPED_TRACE(types[i]);
    EXPECT_EQ(unknown[i].type, types[i]);  // IFLA_PROP_LIST arrives with NLA_F_NESTED: cleared
    EXPECT_TRUE(sameBytes(unknown[i].payload, payload(*expected[i])));
  }
  // IFLA_STATS (the 32-bit copy) is known and dropped, not kept as unknown.
  EXPECT_FALSE(d.unknown.find(IFLA_STATS).has_value());
  EXPECT_FALSE(d.unknown.find(IFLA_STATS64).has_value());
}

// The bridge decodes what it reports about a port: nothing of the veth's port data stays raw.
TEST(LinkDecode, VethBridgePortDataIsDecoded) {
  LinkInfo d = decode(vethPortMessage());
  ASSERT_TRUE(d.bridgePort.has_value());
  EXPECT_EQ(d.bridgePort->state, BridgePortStpState::Forwarding);
  EXPECT_EQ(d.bridgePort->priority, 32);
  EXPECT_EQ(d.bridgePort->cost, 2u);
  EXPECT_FALSE(d.bridgePort->learning.has_value()) << "not reported, so unset";
  EXPECT_TRUE(d.slaveData.empty());
}

/// A port of a master of `slaveKind` (not a kind: a device enslaved only) with `slaveData`.
Bytes portMessage(std::string_view slaveKind, const Attrs& slaveData) {
  return kernelLink(7, kUpRunning,
                    Attrs().str(IFLA_IFNAME, "p0").nestNoFlag(IFLA_LINKINFO, Attrs()
                                                                             .str(IFLA_INFO_SLAVE_KIND, slaveKind)
                                                                             .nestNoFlag(IFLA_INFO_SLAVE_DATA, slaveData)));
}

// The port data of a master fastlink does not decode it for (a team's, say) is kept raw, byte-exact.
TEST(LinkDecode, PortDataOfOtherMastersIsKeptByteExact) {
  const Attrs first = Attrs().u8(1, 1);
  const Attrs second = Attrs().u32(2, 0);
  const Attrs third = Attrs().raw(3, {0x02, 0, 0, 0, 0, 0x07});
  LinkInfo d = decode(portMessage("team", Attrs().append(first).append(second).append(third)));
  EXPECT_EQ(d.slaveKind, "team");
  EXPECT_FALSE(d.kind.has_value());
  EXPECT_FALSE(d.bridgePort.has_value());
  EXPECT_FALSE(d.bondPort.has_value());
  EXPECT_FALSE(d.vrfPort.has_value());
  auto slave = d.slaveData.list();
  ASSERT_EQ(slave.size(), 3u);
  EXPECT_EQ(slave[0].type, 1);
  EXPECT_TRUE(sameBytes(slave[0].payload, payload(first)));
  EXPECT_EQ(slave[1].type, 2);
  EXPECT_TRUE(sameBytes(slave[1].payload, payload(second)));
  EXPECT_EQ(slave[2].type, 3);
  EXPECT_TRUE(sameBytes(slave[2].payload, payload(third)));
}

// A port of a bond in 802.3ad mode, laid out as bond_fill_slave_info() sends it (its order and
// sizes: the partner's state as a u16, the s32 prio of 6.0+), with values other than the
// defaults; an attribute after IFLA_BOND_SLAVE_PRIO (what newer kernels add, e.g. the actor port
// priority) stays raw, byte-exact.
TEST(LinkDecode, BondPortEveryReportedAttribute) {
  const Attrs newer = Attrs().u16(IFLA_BOND_SLAVE_PRIO + 1, 255);
  Attrs data = Attrs()
                   .u8(IFLA_BOND_SLAVE_STATE, 1)  // backup
                   .u8(IFLA_BOND_SLAVE_MII_STATUS, 2)  // down
                   .u32(IFLA_BOND_SLAVE_LINK_FAILURE_COUNT, 3)
                   .raw(IFLA_BOND_SLAVE_PERM_HWADDR, {0x02, 0x1a, 0x2b, 0x3c, 0x4d, 0x05})
                   .u16(IFLA_BOND_SLAVE_QUEUE_ID, 2)
                   .u32(IFLA_BOND_SLAVE_PRIO, static_cast<uint32_t>(-5))
                   .u16(IFLA_BOND_SLAVE_AD_AGGREGATOR_ID, 4)
                   .u8(IFLA_BOND_SLAVE_AD_ACTOR_OPER_PORT_STATE, 0x3d)
                   .u16(IFLA_BOND_SLAVE_AD_PARTNER_OPER_PORT_STATE, 0x41)
                   .append(newer);
  LinkInfo d = decode(portMessage("bond", data));
  ASSERT_TRUE(d.bondPort.has_value());
  const BondPortInfo& p = *d.bondPort;
  EXPECT_EQ(p.state, BondPortState::Backup);
  EXPECT_EQ(p.miiStatus, BondPortMiiStatus::Down);
  EXPECT_EQ(p.linkFailureCount, 3u);
  ASSERT_TRUE(p.permanentAddress.has_value());
  EXPECT_EQ(p.permanentAddress->toString(), "02:1a:2b:3c:4d:05");
  EXPECT_EQ(p.queueId, 2);
  EXPECT_EQ(p.priority, -5);
  EXPECT_EQ(p.aggregatorId, 4);
  EXPECT_EQ(p.actorOperPortState, 0x3d);
  EXPECT_EQ(p.partnerOperPortState, 0x41);
  EXPECT_FALSE(d.bridgePort.has_value());
  ASSERT_EQ(d.slaveData.count(), 1u);
  EXPECT_EQ(d.slaveData.list()[0].type, IFLA_BOND_SLAVE_PRIO + 1);
  EXPECT_TRUE(sameBytes(d.slaveData.list()[0].payload, payload(newer)));

  // The port data is reported only: a LinkInfo carrying it sends nothing of it.
  LinkInfo onlyPort;
  onlyPort.bondPort = p;
  Request r = LinkRequests::set(7, onlyPort);
  EXPECT_TRUE(sameBytes(r.bytes(), test::linkMessage(RTM_NEWLINK, NLM_F_REQUEST, Ifinfo{.index = 7}, Attrs())));
}

// An active-backup bond's port reports no 802.3ad fields (they stay unset); a state or MII
// status past the ones fastlink names is kept as its number; a permanent address of another
// length (an InfiniBand port's 20 bytes) is kept as it is, an empty one stays raw.
TEST(LinkDecode, BondPortOfActiveBackupBond) {
  const std::vector<uint8_t> infiniband(20, 0xab);
  LinkInfo d = decode(portMessage("bond", Attrs()
                                              .u8(IFLA_BOND_SLAVE_STATE, 7)
                                              .u8(IFLA_BOND_SLAVE_MII_STATUS, 9)
                                              .u32(IFLA_BOND_SLAVE_LINK_FAILURE_COUNT, 0)
                                              .raw(IFLA_BOND_SLAVE_PERM_HWADDR, infiniband)
                                              .u16(IFLA_BOND_SLAVE_QUEUE_ID, 0)
                                              .u32(IFLA_BOND_SLAVE_PRIO, 0)));
  ASSERT_TRUE(d.bondPort.has_value());
  EXPECT_EQ(static_cast<int>(d.bondPort->state.value()), 7);
  EXPECT_EQ(static_cast<int>(d.bondPort->miiStatus.value()), 9);
  ASSERT_TRUE(d.bondPort->permanentAddress.has_value());
  EXPECT_EQ(d.bondPort->permanentAddress->size(), 20u);
  EXPECT_FALSE(d.bondPort->aggregatorId || d.bondPort->actorOperPortState || d.bondPort->partnerOperPortState);
  EXPECT_TRUE(d.slaveData.empty());

  const Attrs empty = Attrs().flag(IFLA_BOND_SLAVE_PERM_HWADDR);
  LinkInfo e = decode(portMessage("bond", Attrs().u8(IFLA_BOND_SLAVE_STATE, 0).append(empty)));
  ASSERT_TRUE(e.bondPort.has_value());
  EXPECT_EQ(e.bondPort->state, BondPortState::Active);
  EXPECT_FALSE(e.bondPort->permanentAddress.has_value());
  ASSERT_EQ(e.slaveData.count(), 1u);
  EXPECT_TRUE(sameBytes(e.slaveData.list()[0].payload, payload(empty)));
}

// A VRF reports its table about each port (vrf_fill_slave_info); an attribute it does not know
// stays raw; and nothing of it is sent.
TEST(LinkDecode, VrfPortTable) {
  const Attrs unknown = Attrs().u32(IFLA_VRF_PORT_MAX + 1, 42);
  LinkInfo d = decode(portMessage("vrf", Attrs().u32(IFLA_VRF_PORT_TABLE, 1001).append(unknown)));
  ASSERT_TRUE(d.vrfPort.has_value());
  EXPECT_EQ(d.vrfPort->table, 1001u);
  EXPECT_FALSE(d.bondPort.has_value());
  ASSERT_EQ(d.slaveData.count(), 1u);
  EXPECT_EQ(d.slaveData.list()[0].type, IFLA_VRF_PORT_MAX + 1);
  EXPECT_TRUE(sameBytes(d.slaveData.list()[0].payload, payload(unknown)));

  LinkInfo onlyPort;
  onlyPort.vrfPort = d.vrfPort;
  Request r = LinkRequests::set(7, onlyPort);
  EXPECT_TRUE(sameBytes(r.bytes(), test::linkMessage(RTM_NEWLINK, NLM_F_REQUEST, Ifinfo{.index = 7}, Attrs())));
}

// Every IFLA_BRPORT_* attribute a 6.x kernel reports for a bridge port, in br_port_fill_attrs'
// order and sizes (6.18, read from a live kernel: ids as struct ifla_bridge_id, timers as u64
// after IFLA_BRPORT_PAD when unaligned), with values other than the defaults; the attributes
// of kernels newer than the build's headers (6.1: up to IFLA_BRPORT_LOCKED) stay raw.
TEST(LinkDecode, BridgePortEveryReportedAttribute) {
  const Attrs pad = Attrs().flag(IFLA_BRPORT_PAD);
  // Newer than 6.1's headers, so numbered here: IFLA_BRPORT_MAB (6.2), IFLA_BRPORT_NEIGH_VLAN_SUPPRESS
  // (6.8), IFLA_BRPORT_BACKUP_NHID (6.7), IFLA_BRPORT_MCAST_N_GROUPS and _MAX_GROUPS (6.3).
  const Attrs mab = Attrs().u8(IFLA_BRPORT_LOCKED + 1, 1);
  const Attrs neighVlanSuppress = Attrs().u8(IFLA_BRPORT_LOCKED + 4, 1);
  const Attrs backupNhid = Attrs().u32(IFLA_BRPORT_LOCKED + 5, 9);
  const Attrs groups = Attrs().u32(IFLA_BRPORT_LOCKED + 2, 3);
  const Attrs maxGroups = Attrs().u32(IFLA_BRPORT_LOCKED + 3, 100);
  Attrs data = Attrs()
                   .u8(IFLA_BRPORT_STATE, 1)  // listening
                   .u16(IFLA_BRPORT_PRIORITY, 5)
                   .u32(IFLA_BRPORT_COST, 7)
                   .u8(IFLA_BRPORT_MODE, 1)
                   .u8(IFLA_BRPORT_GUARD, 1)
                   .u8(IFLA_BRPORT_PROTECT, 1)
                   .u8(IFLA_BRPORT_FAST_LEAVE, 1)
                   .u8(IFLA_BRPORT_MCAST_TO_UCAST, 1)
                   .u8(IFLA_BRPORT_LEARNING, 0)
                   .u8(IFLA_BRPORT_UNICAST_FLOOD, 0)
                   .u8(IFLA_BRPORT_MCAST_FLOOD, 0)
                   .u8(IFLA_BRPORT_BCAST_FLOOD, 0)
                   .u8(IFLA_BRPORT_PROXYARP, 1)
                   .u8(IFLA_BRPORT_PROXYARP_WIFI, 1)
                   .raw(IFLA_BRPORT_ROOT_ID, {0x0f, 0xff, 0x02, 0x00, 0x00, 0x00, 0x00, 0x0a})
                   .raw(IFLA_BRPORT_BRIDGE_ID, {0x10, 0x00, 0xde, 0xec, 0x86, 0x3a, 0xaa, 0x8d})
                   .u16(IFLA_BRPORT_DESIGNATED_PORT, 0x5002)
                   .u16(IFLA_BRPORT_DESIGNATED_COST, 19)
                   .u16(IFLA_BRPORT_ID, 0x5001)
                   .u16(IFLA_BRPORT_NO, 1)
                   .u8(IFLA_BRPORT_TOPOLOGY_CHANGE_ACK, 1)
                   .u8(IFLA_BRPORT_CONFIG_PENDING, 1)
                   .u8(IFLA_BRPORT_VLAN_TUNNEL, 1)
                   .u16(IFLA_BRPORT_GROUP_FWD_MASK, 0x400d)
                   .u8(IFLA_BRPORT_NEIGH_SUPPRESS, 1)
                   .u8(IFLA_BRPORT_MRP_RING_OPEN, 1)
                   .u8(IFLA_BRPORT_MRP_IN_OPEN, 1)
                   .u8(IFLA_BRPORT_ISOLATED, 1)
                   .u8(IFLA_BRPORT_LOCKED, 1)
                   .append(mab)
                   .append(neighVlanSuppress)
                   .u32(IFLA_BRPORT_BACKUP_PORT, 9)
                   .append(backupNhid)
                   .append(pad)
                   .u64(IFLA_BRPORT_MESSAGE_AGE_TIMER, 1234)
                   .u64(IFLA_BRPORT_FORWARD_DELAY_TIMER, 0x100000000ull + 2998)  // all 64 bits are read
                   .u64(IFLA_BRPORT_HOLD_TIMER, 95)
                   .u8(IFLA_BRPORT_MULTICAST_ROUTER, 2)
                   .u32(IFLA_BRPORT_MCAST_EHT_HOSTS_LIMIT, 512)
                   .u32(IFLA_BRPORT_MCAST_EHT_HOSTS_CNT, 4)
                   .append(groups)
                   .append(maxGroups);
  LinkInfo d = decode(portMessage("bridge", data));
  ASSERT_TRUE(d.bridgePort.has_value());
  const BridgePortInfo& p = *d.bridgePort;
  EXPECT_EQ(p.state, BridgePortStpState::Listening);
  EXPECT_EQ(p.priority, 5);
  EXPECT_EQ(p.cost, 7u);
  EXPECT_EQ(p.hairpin, true);
  EXPECT_EQ(p.guard, true);
  EXPECT_EQ(p.rootBlock, true);
  EXPECT_EQ(p.fastLeave, true);
  EXPECT_EQ(p.mcastToUnicast, true);
  EXPECT_EQ(p.learning, false);
  EXPECT_EQ(p.unicastFlood, false);
  EXPECT_EQ(p.mcastFlood, false);
  EXPECT_EQ(p.bcastFlood, false);
  EXPECT_EQ(p.proxyArp, true);
  EXPECT_EQ(p.proxyArpWifi, true);
  ASSERT_TRUE(p.designatedRoot && p.designatedBridge);
  EXPECT_EQ(p.designatedRoot->priority, 0x0fff);
  EXPECT_EQ(p.designatedRoot->address.toString(), "02:00:00:00:00:0a");
  EXPECT_EQ(p.designatedBridge->priority, 0x1000);
  EXPECT_EQ(p.designatedBridge->address.toString(), "de:ec:86:3a:aa:8d");
  EXPECT_EQ(p.designatedPort, 0x5002);
  EXPECT_EQ(p.designatedCost, 19);
  EXPECT_EQ(p.portId, 0x5001);
  EXPECT_EQ(p.portNumber, 1);
  EXPECT_EQ(p.topologyChangeAck, true);
  EXPECT_EQ(p.configPending, true);
  EXPECT_EQ(p.vlanTunnel, true);
  EXPECT_EQ(p.groupFwdMask, 0x400d);
  EXPECT_EQ(p.neighSuppress, true);
  EXPECT_EQ(p.mrpRingOpen, true);
  EXPECT_EQ(p.mrpInOpen, true);
  EXPECT_EQ(p.isolated, true);
  EXPECT_EQ(p.locked, true);
  EXPECT_EQ(p.backupPort, 9u);
  EXPECT_EQ(p.messageAgeTimer, 1234u);
  EXPECT_EQ(p.forwardDelayTimer, 0x100000000ull + 2998);
  EXPECT_EQ(p.holdTimer, 95u);
  EXPECT_EQ(p.mcastRouter, 2);
  EXPECT_EQ(p.mcastEhtHostsLimit, 512u);
  EXPECT_EQ(p.mcastEhtHostsCount, 4u);

  // Only the padding and what the build's headers do not know stay raw, byte-exact, in order.
  const Attrs* raw[] = {&mab, &neighVlanSuppress, &backupNhid, &pad, &groups, &maxGroups};
  const uint16_t types[] = {IFLA_BRPORT_LOCKED + 1, IFLA_BRPORT_LOCKED + 4, IFLA_BRPORT_LOCKED + 5,
                            IFLA_BRPORT_PAD,        IFLA_BRPORT_LOCKED + 2, IFLA_BRPORT_LOCKED + 3};
  auto kept = d.slaveData.list();
  ASSERT_EQ(kept.size(), std::size(raw));
  for (std::size_t i = 0; i < kept.size(); ++i) {
    SCOPED_TRACE(types[i]);
    EXPECT_EQ(kept[i].type, types[i]);
    EXPECT_TRUE(sameBytes(kept[i].payload, payload(*raw[i])));
  }
  EXPECT_TRUE(d.unknownKindData.empty());

  // The port data is reported only: a LinkInfo carrying it sends nothing of it.
  LinkInfo onlyPort;
  onlyPort.bridgePort = p;
  Request r = LinkRequests::set(7, onlyPort);
  EXPECT_TRUE(sameBytes(r.bytes(), test::linkMessage(RTM_NEWLINK, NLM_F_REQUEST, Ifinfo{.index = 7}, Attrs())));
}

// An id of another size (a future or broken kernel) is kept raw, not guessed; a state past
// Blocking is kept as its number (the CLI prints it as ip does, `state (7)`).
TEST(LinkDecode, BridgePortIdOfWrongSizeIsKeptRaw) {
  const Attrs shortRoot = Attrs().raw(IFLA_BRPORT_ROOT_ID, {0x80, 0x00, 0x02});
  LinkInfo d = decode(portMessage("bridge", Attrs().u8(IFLA_BRPORT_STATE, 7).append(shortRoot)));
  ASSERT_TRUE(d.bridgePort.has_value());
  EXPECT_EQ(static_cast<int>(d.bridgePort->state.value()), 7);
  EXPECT_FALSE(d.bridgePort->designatedRoot.has_value());
  ASSERT_EQ(d.slaveData.count(), 1u);
  EXPECT_TRUE(sameBytes(d.slaveData.list()[0].payload, payload(shortRoot)));
}
TEST(LinkDecode, StatisticsWhenAsked) {
  LinkInfo d = decode(vethPortMessage(), true);
  ASSERT_TRUE(d.stats.has_value());
  const LinkStats& s = *d.stats;
  auto v = [](uint64_t i) { return (i + 1) * 1000 + i; };  // field i of rtnl_link_stats64
  EXPECT_EQ(s.rxPackets, v(0));
  EXPECT_EQ(s.txPackets, v(1));
  EXPECT_EQ(s.rxBytes, v(2));
  EXPECT_EQ(s.txBytes, v(3));
  EXPECT_EQ(s.rxErrors, v(4));
  EXPECT_EQ(s.txErrors, v(5));
  EXPECT_EQ(s.rxDropped, v(6));
  EXPECT_EQ(s.txDropped, v(7));
  EXPECT_EQ(s.multicast, v(8));
  EXPECT_EQ(s.collisions, v(9));
  EXPECT_EQ(s.rxLengthErrors, v(10));
  EXPECT_EQ(s.rxOverErrors, v(11));
  EXPECT_EQ(s.rxCrcErrors, v(12));
  EXPECT_EQ(s.rxFrameErrors, v(13));
  EXPECT_EQ(s.rxFifoErrors, v(14));
  EXPECT_EQ(s.rxMissedErrors, v(15));
  EXPECT_EQ(s.txAbortedErrors, v(16));
  EXPECT_EQ(s.txCarrierErrors, v(17));
  EXPECT_EQ(s.txFifoErrors, v(18));
  EXPECT_EQ(s.txHeartbeatErrors, v(19));
  EXPECT_EQ(s.txWindowErrors, v(20));
  EXPECT_EQ(s.rxCompressed, v(21));
  EXPECT_EQ(s.txCompressed, v(22));
  EXPECT_EQ(s.rxNohandler, v(23));
}

TEST(LinkDecode, ShorterStatisticsOfOlderKernels) {
  // Before rx_nohandler (4.6) the struct had 23 counters.
  LinkInfo d = decode(kernelLink(1, 0, Attrs().str(IFLA_IFNAME, "lo").raw(IFLA_STATS64, stats64(23))), true);
  ASSERT_TRUE(d.stats.has_value());
  EXPECT_EQ(d.stats->txCompressed, 22u * 1000 + 1000 + 22);
  EXPECT_EQ(d.stats->rxNohandler, 0u);
}

TEST(LinkDecode, VethReEncodedAsASetRequest) {
  LinkInfo d = decode(vethPortMessage());
  Request r = LinkRequests::set(*d.index, settableFields(d));
  Attrs attrs = Attrs()
                    .str(IFLA_IFNAME, "v0")
                    .u32(IFLA_MTU, 1500)
                    .raw(IFLA_ADDRESS, {0x02, 0x00, 0x00, 0x00, 0x00, 0x07})
                    .u32(IFLA_GROUP, 5)
                    .u32(IFLA_MASTER, 3)
                    .u32(IFLA_TXQLEN, 1000)
                    .str(IFLA_IFALIAS, "uplink")
                    .nest(IFLA_LINKINFO, Attrs().str(IFLA_INFO_KIND, "veth"));
  Bytes expected = test::linkMessage(RTM_NEWLINK, NLM_F_REQUEST, Ifinfo{.index = 7, .flags = IFF_UP, .change = IFF_UP}, attrs);
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
}

TEST(LinkDecode, TheWholeDecodedLinkIsNotASetRequest) {
  // numtxqueues/numrxqueues and the parent are reported but can only be given at creation.
  LinkInfo d = decode(vethPortMessage());
  try {
    LinkRequests::set(*d.index, d);
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::invalid_argument);
    EXPECT_EQ(e.extack(), "numtxqueues/numrxqueues can only be set when creating");
  }
}

TEST(LinkDecode, PeerInAnotherNamespace) {
  LinkInfo d = decode(kernelLink(9, IFF_UP, Attrs()
                                                 .str(IFLA_IFNAME, "v1")
                                                 .u32(IFLA_LINK, 2)
                                                 .u8(IFLA_OPERSTATE, 3)
                                                 .u8(IFLA_CARRIER, 0)
                                                 .u32(IFLA_LINK_NETNSID, static_cast<uint32_t>(-1))
                                                 .nestNoFlag(IFLA_LINKINFO, Attrs().str(IFLA_INFO_KIND, "veth"))));
  EXPECT_EQ(d.linkNetnsId, -1);
  EXPECT_EQ(d.operState, "LOWERLAYERDOWN");
  EXPECT_EQ(d.carrier, false);
  EXPECT_TRUE(d.isUp());
  EXPECT_FALSE(d.isRunning());
  EXPECT_FALSE(d.master.has_value());
  EXPECT_EQ(d.masterIndex(), 0u);
  EXPECT_TRUE(d.unknown.empty());
}

// ---- per-kind data -------------------------------------------------------------------------------

TEST(LinkDecode, BridgeKnownAndUnknownKindData) {
  const Attrs forwardDelay = Attrs().u32(IFLA_BR_FORWARD_DELAY, 1500);
  const Attrs helloTime = Attrs().u32(IFLA_BR_HELLO_TIME, 200);
  const Attrs priority = Attrs().u16(IFLA_BR_PRIORITY, 32768);
  const Attrs vlanProtocol = Attrs().be16(IFLA_BR_VLAN_PROTOCOL, 0x8100);
  const Attrs bridgeId = Attrs().raw(IFLA_BR_BRIDGE_ID, {0x80, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01});
  const Attrs pad = Attrs().flag(IFLA_BR_PAD);
  const Attrs helloTimer = Attrs().u64(IFLA_BR_HELLO_TIMER, 12345);
  Attrs data = Attrs()
                   .append(forwardDelay)
                   .append(helloTime)
                   .u32(IFLA_BR_AGEING_TIME, 30000)
                   .u32(IFLA_BR_STP_STATE, 1)
                   .append(priority)
                   .u8(IFLA_BR_VLAN_FILTERING, 1)
                   .append(vlanProtocol)
                   .u16(IFLA_BR_VLAN_DEFAULT_PVID, 1)
                   .append(bridgeId)
                   .append(pad)
                   .append(helloTimer)
                   // the kernel reports every option's bit in optmask (3 options in 6.x)
                   .raw(IFLA_BR_MULTI_BOOLOPT, {0x01, 0, 0, 0, 0x07, 0, 0, 0});
  LinkInfo d = decode(kernelLink(3, kUpRunning, Attrs().str(IFLA_IFNAME, "br0").append(kernelLinkInfo("bridge", data))));
  ASSERT_TRUE(d.bridge.has_value());
  EXPECT_EQ(d.bridge->vlanFiltering, true);
  EXPECT_EQ(d.bridge->vlanDefaultPvid, 1);
  EXPECT_EQ(d.bridge->stpState, 1u);
  EXPECT_EQ(d.bridge->ageingTime, 30000u);
  EXPECT_EQ(d.bridge->noLinklocalLearn, true);
  EXPECT_EQ(d.bridge->forwardDelay, 1500u);
  EXPECT_EQ(d.bridge->helloTime, 200u);
  EXPECT_EQ(d.bridge->priority, 32768);
  EXPECT_FALSE(d.bridge->maxAge.has_value()) << "not reported, so unset";
  ASSERT_TRUE(d.bridge->state.has_value());
  EXPECT_EQ(d.bridge->state->vlanProtocol, 0x8100);
  ASSERT_TRUE(d.bridge->state->bridgeId.has_value());
  EXPECT_EQ(d.bridge->state->bridgeId->priority, 0x8000);
  EXPECT_EQ(d.bridge->state->bridgeId->address.toString(), "02:00:00:00:00:01");
  EXPECT_EQ(d.bridge->state->helloTimer, 12345u);
  // The kernel's optmask names mcast_vlan_snooping (bit 1): reported, off.
  EXPECT_EQ(d.bridge->state->mcastVlanSnooping, false);
  EXPECT_FALSE(d.bridge->state->gcTimer.has_value()) << "not reported, so unset";

  // IFLA_BR_PAD carries nothing, but is not ours to drop: kept raw like any unknown attribute.
  auto kept = d.unknownKindData.list();
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].type, IFLA_BR_PAD);
  EXPECT_TRUE(sameBytes(kept[0].payload, payload(pad)));

  // Emit: the bridge options go back as IFLA_INFO_DATA; the boolopt mask names only what is set;
  // the reported state (vlan protocol, bridge id, timer) is never sent.
  Request r = LinkRequests::set(*d.index, LinkInfo().setKind(*d.kind).setBridge(*d.bridge));
  Attrs out = Attrs()
                  .u32(IFLA_BR_FORWARD_DELAY, 1500)
                  .u32(IFLA_BR_HELLO_TIME, 200)
                  .u16(IFLA_BR_PRIORITY, 32768)
                  .u8(IFLA_BR_VLAN_FILTERING, 1)
                  .u16(IFLA_BR_VLAN_DEFAULT_PVID, 1)
                  .u32(IFLA_BR_STP_STATE, 1)
                  .u32(IFLA_BR_AGEING_TIME, 30000)
                  .raw(IFLA_BR_MULTI_BOOLOPT, {0x01, 0, 0, 0, 0x01, 0, 0, 0});
  EXPECT_TRUE(sameBytes(r.bytes(), kindChange(3, "bridge", out)));
}

// Every IFLA_BR_* attribute a 6.x kernel reports for a bridge (br_fill_info's order and sizes:
// ids as struct ifla_bridge_id, timers and intervals as u64 after IFLA_BR_PAD, the VLAN
// protocol big-endian), decoded into BridgeInfo and its reported-only BridgeState.
TEST(LinkDecode, BridgeEveryReportedAttribute) {
  const Attrs pad = Attrs().flag(IFLA_BR_PAD);
  const Attrs unknownFuture = Attrs().u32(IFLA_BR_MAX + 1, 7);  // e.g. IFLA_BR_FDB_N_LEARNED
  Attrs data = Attrs()
                   .u32(IFLA_BR_FORWARD_DELAY, 1500)
                   .u32(IFLA_BR_HELLO_TIME, 100)
                   .u32(IFLA_BR_MAX_AGE, 2000)
                   .u32(IFLA_BR_AGEING_TIME, 1000)
                   .u32(IFLA_BR_STP_STATE, 1)
                   .u16(IFLA_BR_PRIORITY, 4096)
                   .u8(IFLA_BR_VLAN_FILTERING, 1)
                   .u16(IFLA_BR_GROUP_FWD_MASK, 0x8)
                   .raw(IFLA_BR_BRIDGE_ID, {0x10, 0x00, 0xde, 0xec, 0x86, 0x3a, 0xaa, 0x8d})
                   .raw(IFLA_BR_ROOT_ID, {0x0f, 0xff, 0x02, 0x00, 0x00, 0x00, 0x00, 0x0a})
                   .u16(IFLA_BR_ROOT_PORT, 3)
                   .u32(IFLA_BR_ROOT_PATH_COST, 200)
                   .u8(IFLA_BR_TOPOLOGY_CHANGE, 1)
                   .u8(IFLA_BR_TOPOLOGY_CHANGE_DETECTED, 0)
                   .raw(IFLA_BR_GROUP_ADDR, {0x01, 0x80, 0xc2, 0x00, 0x00, 0x00})
                   .raw(IFLA_BR_MULTI_BOOLOPT, {0x03, 0, 0, 0, 0x07, 0, 0, 0})  // no_ll_learn, mcast_vlan_snooping on
                   .append(pad)
                   .u64(IFLA_BR_HELLO_TIMER, 86)
                   .u64(IFLA_BR_TCN_TIMER, 1)
                   .u64(IFLA_BR_TOPOLOGY_CHANGE_TIMER, 3456)
                   .u64(IFLA_BR_GC_TIMER, 29880)
                   .be16(IFLA_BR_VLAN_PROTOCOL, 0x88a8)
                   .u16(IFLA_BR_VLAN_DEFAULT_PVID, 7)
                   .u8(IFLA_BR_VLAN_STATS_ENABLED, 1)
                   .u8(IFLA_BR_VLAN_STATS_PER_PORT, 0)
                   .u8(IFLA_BR_MCAST_ROUTER, 2)
                   .u8(IFLA_BR_MCAST_SNOOPING, 0)
                   .u8(IFLA_BR_MCAST_QUERY_USE_IFADDR, 1)
                   .u8(IFLA_BR_MCAST_QUERIER, 1)
                   .u8(IFLA_BR_MCAST_STATS_ENABLED, 1)
                   .u32(IFLA_BR_MCAST_HASH_ELASTICITY, 16)
                   .u32(IFLA_BR_MCAST_HASH_MAX, 512)
                   .u32(IFLA_BR_MCAST_LAST_MEMBER_CNT, 3)
                   .u32(IFLA_BR_MCAST_STARTUP_QUERY_CNT, 4)
                   .u8(IFLA_BR_MCAST_IGMP_VERSION, 3)
                   .u8(IFLA_BR_MCAST_MLD_VERSION, 2)
                   .u64(IFLA_BR_MCAST_LAST_MEMBER_INTVL, 100)
                   .u64(IFLA_BR_MCAST_MEMBERSHIP_INTVL, 26000)
                   .u64(IFLA_BR_MCAST_QUERIER_INTVL, 25500)
                   .u64(IFLA_BR_MCAST_QUERY_INTVL, 0x100000000ull + 6000)  // all 64 bits are read
                   .u64(IFLA_BR_MCAST_QUERY_RESPONSE_INTVL, 1000)
                   .u64(IFLA_BR_MCAST_STARTUP_QUERY_INTVL, 3124)
                   .u8(IFLA_BR_NF_CALL_IPTABLES, 1)
                   .u8(IFLA_BR_NF_CALL_IP6TABLES, 0)
                   .u8(IFLA_BR_NF_CALL_ARPTABLES, 1)
                   .append(unknownFuture);
  LinkInfo d = decode(kernelLink(3, kUpRunning, Attrs().str(IFLA_IFNAME, "br0").append(kernelLinkInfo("bridge", data))));
  ASSERT_TRUE(d.bridge.has_value());
  const BridgeInfo& b = *d.bridge;
  EXPECT_EQ(b.forwardDelay, 1500u);
  EXPECT_EQ(b.helloTime, 100u);
  EXPECT_EQ(b.maxAge, 2000u);
  EXPECT_EQ(b.ageingTime, 1000u);
  EXPECT_EQ(b.stpState, 1u);
  EXPECT_EQ(b.priority, 4096);
  EXPECT_EQ(b.vlanFiltering, true);
  EXPECT_EQ(b.vlanDefaultPvid, 7);
  EXPECT_EQ(b.mcastSnooping, false);
  EXPECT_EQ(b.noLinklocalLearn, true);
  ASSERT_TRUE(b.state.has_value());
  const BridgeState& s = *b.state;
  ASSERT_TRUE(s.bridgeId && s.rootId);
  EXPECT_EQ(s.bridgeId->priority, 0x1000);
  EXPECT_EQ(s.bridgeId->address.toString(), "de:ec:86:3a:aa:8d");
  EXPECT_EQ(s.rootId->priority, 0x0fff);
  EXPECT_EQ(s.rootId->address.toString(), "02:00:00:00:00:0a");
  EXPECT_EQ(s.rootPort, 3);
  EXPECT_EQ(s.rootPathCost, 200u);
  EXPECT_EQ(s.topologyChange, true);
  EXPECT_EQ(s.topologyChangeDetected, false);
  EXPECT_EQ(s.helloTimer, 86u);
  EXPECT_EQ(s.tcnTimer, 1u);
  EXPECT_EQ(s.topologyChangeTimer, 3456u);
  EXPECT_EQ(s.gcTimer, 29880u);
  EXPECT_EQ(s.vlanProtocol, 0x88a8);
  EXPECT_EQ(s.vlanStatsEnabled, true);
  EXPECT_EQ(s.vlanStatsPerPort, false);
  EXPECT_EQ(s.groupFwdMask, 0x8);
  ASSERT_TRUE(s.groupAddress.has_value());
  EXPECT_EQ(s.groupAddress->toString(), "01:80:c2:00:00:00");
  EXPECT_EQ(s.mcastVlanSnooping, true);
  EXPECT_EQ(s.mcastRouter, 2);
  EXPECT_EQ(s.mcastQueryUseIfaddr, true);
  EXPECT_EQ(s.mcastQuerier, true);
  EXPECT_EQ(s.mcastHashElasticity, 16u);
  EXPECT_EQ(s.mcastHashMax, 512u);
  EXPECT_EQ(s.mcastLastMemberCount, 3u);
  EXPECT_EQ(s.mcastStartupQueryCount, 4u);
  EXPECT_EQ(s.mcastLastMemberInterval, 100u);
  EXPECT_EQ(s.mcastMembershipInterval, 26000u);
  EXPECT_EQ(s.mcastQuerierInterval, 25500u);
  EXPECT_EQ(s.mcastQueryInterval, 0x100000000ull + 6000);
  EXPECT_EQ(s.mcastQueryResponseInterval, 1000u);
  EXPECT_EQ(s.mcastStartupQueryInterval, 3124u);
  EXPECT_EQ(s.mcastStatsEnabled, true);
  EXPECT_EQ(s.mcastIgmpVersion, 3);
  EXPECT_EQ(s.mcastMldVersion, 2);
  EXPECT_EQ(s.nfCallIptables, true);
  EXPECT_EQ(s.nfCallIp6tables, false);
  EXPECT_EQ(s.nfCallArptables, true);

  // Only the padding and the attribute this build does not know stay raw, byte-exact.
  auto kept = d.unknownKindData.list();
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[0].type, IFLA_BR_PAD);
  EXPECT_EQ(kept[1].type, IFLA_BR_MAX + 1);
  EXPECT_TRUE(sameBytes(kept[1].payload, payload(unknownFuture)));

  // Sending the decoded options back sends the settable ones only, never the state.
  Request r = LinkRequests::set(*d.index, LinkInfo().setKind(*d.kind).setBridge(b));
  Attrs out = Attrs()
                  .u32(IFLA_BR_FORWARD_DELAY, 1500)
                  .u32(IFLA_BR_HELLO_TIME, 100)
                  .u32(IFLA_BR_MAX_AGE, 2000)
                  .u16(IFLA_BR_PRIORITY, 4096)
                  .u8(IFLA_BR_VLAN_FILTERING, 1)
                  .u16(IFLA_BR_VLAN_DEFAULT_PVID, 7)
                  .u32(IFLA_BR_STP_STATE, 1)
                  .u32(IFLA_BR_AGEING_TIME, 1000)
                  .u8(IFLA_BR_MCAST_SNOOPING, 0)
                  .raw(IFLA_BR_MULTI_BOOLOPT, {0x01, 0, 0, 0, 0x01, 0, 0, 0});
  EXPECT_TRUE(sameBytes(r.bytes(), kindChange(3, "bridge", out)));
  // A BridgeInfo holding nothing but state needs no IFLA_INFO_DATA at all.
  BridgeInfo onlyState;
  onlyState.state = s;
  Request bare = LinkRequests::set(3, LinkInfo().setKind("bridge").setBridge(onlyState));
  EXPECT_TRUE(sameBytes(bare.bytes(), test::linkMessage(RTM_NEWLINK, NLM_F_REQUEST, Ifinfo{.index = 3},
                                                         Attrs().nest(IFLA_LINKINFO, Attrs().str(IFLA_INFO_KIND, "bridge")))));
}

// Ids and the group address of another size (a future or broken kernel) are kept raw, not guessed.
TEST(LinkDecode, BridgeIdOfWrongSizeIsKeptRaw) {
  const Attrs shortId = Attrs().raw(IFLA_BR_BRIDGE_ID, {0x80, 0x00, 0x02});
  const Attrs longAddr = Attrs().raw(IFLA_BR_GROUP_ADDR, {1, 2, 3, 4, 5, 6, 7, 8});
  LinkInfo d = decode(kernelLink(3, 0, kernelLinkInfo("bridge", Attrs().append(shortId).append(longAddr))));
  ASSERT_TRUE(d.bridge && d.bridge->state);
  EXPECT_FALSE(d.bridge->state->bridgeId.has_value());
  EXPECT_FALSE(d.bridge->state->groupAddress.has_value());
  ASSERT_EQ(d.unknownKindData.count(), 2u);
  EXPECT_TRUE(sameBytes(d.unknownKindData.list()[0].payload, payload(shortId)));
  EXPECT_TRUE(sameBytes(d.unknownKindData.list()[1].payload, payload(longAddr)));
}

TEST(LinkDecode, BridgeShortBooloptIsKeptRaw) {
  const Attrs shortOpt = Attrs().raw(IFLA_BR_MULTI_BOOLOPT, {1, 0, 0, 0});
  LinkInfo d = decode(kernelLink(3, 0, kernelLinkInfo("bridge", shortOpt)));
  ASSERT_TRUE(d.bridge.has_value());
  EXPECT_FALSE(d.bridge->noLinklocalLearn.has_value());
  ASSERT_EQ(d.unknownKindData.count(), 1u);
  EXPECT_TRUE(sameBytes(d.unknownKindData.list()[0].payload, payload(shortOpt)));
}

TEST(LinkDecode, DetailsIpPrintsWithDashD) {
  // What `ip -d link show` prints beyond the kind: allmulti count, GSO/TSO/GRO limits, and the
  // IPv6 address generation mode from IFLA_AF_SPEC (AF_INET6 nest), which also stays raw.
  const Attrs afSpec = Attrs().nestNoFlag(
      IFLA_AF_SPEC, Attrs()
                        .nestNoFlag(2 /* AF_INET */, Attrs().u32(1, 1))
                        .nestNoFlag(10 /* AF_INET6 */, Attrs().u32(IFLA_INET6_FLAGS, 0).u8(IFLA_INET6_ADDR_GEN_MODE, 3)));
  LinkInfo d = decode(kernelLink(5, kUpRunning, Attrs()
                                                    .str(IFLA_IFNAME, "v0")
                                                    .u32(IFLA_PROMISCUITY, 1)
                                                    .u32(IFLA_ALLMULTI, 2)
                                                    .u32(IFLA_GSO_MAX_SEGS, 65535)
                                                    .u32(IFLA_GSO_MAX_SIZE, 65536)
                                                    .u32(IFLA_GRO_MAX_SIZE, 65536)
                                                    .u32(IFLA_TSO_MAX_SIZE, 524280)
                                                    .u32(IFLA_TSO_MAX_SEGS, 65535)
                                                    .append(afSpec)));
  EXPECT_EQ(d.promiscuity, 1u);
  EXPECT_EQ(d.allmulti, 2u);
  EXPECT_EQ(d.gsoMaxSegs, 65535u);
  EXPECT_EQ(d.gsoMaxSize, 65536u);
  EXPECT_EQ(d.groMaxSize, 65536u);
  EXPECT_EQ(d.tsoMaxSize, 524280u);
  EXPECT_EQ(d.tsoMaxSegs, 65535u);
  EXPECT_EQ(d.addrGenMode, Ipv6AddrGenMode::Random);
  auto kept = d.unknown.list();
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].type, IFLA_AF_SPEC);
  EXPECT_TRUE(sameBytes(kept[0].payload, payload(afSpec)));

  // Without an AF_INET6 nest (IPv6 disabled) there is no mode, and nothing fails.
  const Attrs v4Only = Attrs().nestNoFlag(IFLA_AF_SPEC, Attrs().nestNoFlag(2, Attrs().u32(1, 1)));
  EXPECT_FALSE(decode(kernelLink(6, 0, v4Only)).addrGenMode.has_value());
}

Attrs vxlanKernelData(bool v6) {
  Attrs a;
  a.u32(IFLA_VXLAN_ID, 42);
  if (v6) {
    a.raw(IFLA_VXLAN_GROUP6, {0xff, 0x05, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x99});
    a.raw(IFLA_VXLAN_LOCAL6, {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01});
  } else {
    a.raw(IFLA_VXLAN_GROUP, {239, 1, 1, 1});
    a.raw(IFLA_VXLAN_LOCAL, {10, 0, 0, 1});
  }
  a.u32(IFLA_VXLAN_LINK, 2)
      .u8(IFLA_VXLAN_TTL, 0)
      .u8(IFLA_VXLAN_TOS, 0x10)
      .u8(IFLA_VXLAN_LEARNING, 1)
      .u32(IFLA_VXLAN_AGEING, 300)
      .raw(IFLA_VXLAN_PORT_RANGE, {0x03, 0xe8, 0x07, 0xd0})  // 1000-2000, network byte order
      .u8(IFLA_VXLAN_UDP_CSUM, 0)
      .u8(IFLA_VXLAN_L2MISS, 0)  // unknown
      .be16(IFLA_VXLAN_PORT, 4789);
  return a;
}

TEST(LinkDecode, VxlanV4) {
  LinkInfo d = decode(kernelLink(11, 0, Attrs().str(IFLA_IFNAME, "vx0").append(kernelLinkInfo("vxlan", vxlanKernelData(false)))));
  ASSERT_TRUE(d.vxlan.has_value());
  const VxlanInfo& v = *d.vxlan;
  EXPECT_EQ(v.vni, 42u);
  EXPECT_EQ(v.remote, IpAddress::parse("239.1.1.1"));
  EXPECT_EQ(v.local, IpAddress::parse("10.0.0.1"));
  EXPECT_EQ(v.dev, Ifref(2u));
  EXPECT_EQ(v.ttl, 0);
  EXPECT_EQ(v.learning, true);
  EXPECT_EQ(v.dstPort, 4789) << "IFLA_VXLAN_PORT is network byte order on the wire";
  EXPECT_EQ(v.tos, 0x10);
  EXPECT_EQ(v.ageing, 300u);
  EXPECT_EQ(v.srcPortMin, 1000) << "IFLA_VXLAN_PORT_RANGE is network byte order on the wire";
  EXPECT_EQ(v.srcPortMax, 2000);
  EXPECT_EQ(v.udpCsum, false);
  auto kept = d.unknownKindData.list();
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].type, IFLA_VXLAN_L2MISS);
  EXPECT_EQ(bytesOf(kept[0].payload), (Bytes{0}));

  Request r = LinkRequests::set(*d.index, LinkInfo().setKind("vxlan").setVxlan(v));
  Attrs out = Attrs()
                  .u32(IFLA_VXLAN_ID, 42)
                  .raw(IFLA_VXLAN_LOCAL, {10, 0, 0, 1})
                  .raw(IFLA_VXLAN_GROUP, {239, 1, 1, 1})
                  .raw(IFLA_VXLAN_PORT, {0x12, 0xb5})
                  .u32(IFLA_VXLAN_LINK, 2)
                  .u8(IFLA_VXLAN_LEARNING, 1)
                  .u8(IFLA_VXLAN_TTL, 0)
                  .u8(IFLA_VXLAN_TOS, 0x10)
                  .u32(IFLA_VXLAN_AGEING, 300)
                  .raw(IFLA_VXLAN_PORT_RANGE, {0x03, 0xe8, 0x07, 0xd0})
                  .u8(IFLA_VXLAN_UDP_CSUM, 0);
  EXPECT_TRUE(sameBytes(r.bytes(), kindChange(11, "vxlan", out)));
}

TEST(LinkDecode, VxlanV6) {
  LinkInfo d = decode(kernelLink(12, 0, kernelLinkInfo("vxlan", vxlanKernelData(true))));
  ASSERT_TRUE(d.vxlan.has_value());
  EXPECT_EQ(d.vxlan->remote, IpAddress::parse("ff05::99"));
  EXPECT_EQ(d.vxlan->local, IpAddress::parse("2001:db8::1"));
  EXPECT_TRUE(d.vxlan->remote->isMulticast());
}

TEST(LinkDecode, VlanProtocolIsNetworkOrder) {
  const Attrs flags = Attrs().raw(IFLA_VLAN_FLAGS, {1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff});  // struct ifla_vlan_flags
  Attrs data = Attrs().be16(IFLA_VLAN_PROTOCOL, 0x88a8).u16(IFLA_VLAN_ID, 100).append(flags);
  LinkInfo d = decode(kernelLink(20, kUpRunning, Attrs().str(IFLA_IFNAME, "eth0.100").u32(IFLA_LINK, 2).append(kernelLinkInfo("vlan", data))));
  ASSERT_TRUE(d.vlan.has_value());
  EXPECT_EQ(d.vlan->id, 100);
  EXPECT_EQ(d.vlan->protocol, VlanProtocol::Dot1AD);
  EXPECT_EQ(d.parentIndex(), 2u);
  // IFLA_VLAN_FLAGS is read into the typed flags (the kernel reports every bit: mask all ones).
  EXPECT_TRUE(d.unknownKindData.empty());
  EXPECT_EQ(d.vlan->flags, VlanInfo::kReorderHdr);
  EXPECT_EQ(d.vlan->flagsMask, 0xffffffffu);

  // Sent back as read: the same flags under the same mask.
  Request r = LinkRequests::set(*d.index, LinkInfo().setKind("vlan").setVlan(*d.vlan));
  Attrs out = Attrs().u16(IFLA_VLAN_ID, 100).raw(IFLA_VLAN_PROTOCOL, {0x88, 0xa8}).append(flags);
  EXPECT_TRUE(sameBytes(r.bytes(), kindChange(20, "vlan", out)));
}

TEST(LinkDecode, MacvtapVrfBond) {
  LinkInfo mt = decode(kernelLink(30, 0, kernelLinkInfo("macvtap", Attrs().u32(IFLA_MACVLAN_MODE, 2).u16(IFLA_MACVLAN_FLAGS, 0))));
  ASSERT_TRUE(mt.macvlan.has_value());
  EXPECT_EQ(mt.macvlan->mode, MacvlanMode::Vepa);
  EXPECT_EQ(mt.unknownKindData.count(), 1u);

  LinkInfo vrf = decode(kernelLink(31, 0, kernelLinkInfo("vrf", Attrs().u32(IFLA_VRF_TABLE, 1001))));
  ASSERT_TRUE(vrf.vrf.has_value());
  EXPECT_EQ(vrf.vrf->table, 1001u);
  EXPECT_TRUE(vrf.unknownKindData.empty());

  const Attrs updelay = Attrs().u32(IFLA_BOND_UPDELAY, 0);
  const Attrs adInfo = Attrs().nestNoFlag(IFLA_BOND_AD_INFO, Attrs().u16(IFLA_BOND_AD_INFO_AGGREGATOR, 1));
  Attrs bondData = Attrs().u8(IFLA_BOND_MODE, 4).u32(IFLA_BOND_MIIMON, 100).append(updelay).append(adInfo);
  LinkInfo bond = decode(kernelLink(32, 0, kernelLinkInfo("bond", bondData)));
  ASSERT_TRUE(bond.bond.has_value());
  EXPECT_EQ(bond.bond->mode, BondMode::Lacp8023ad);
  EXPECT_EQ(bond.bond->miimon, 100u);
  auto kept = bond.unknownKindData.list();
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_TRUE(sameBytes(kept[0].payload, payload(updelay)));
  EXPECT_EQ(kept[1].type, IFLA_BOND_AD_INFO);
  EXPECT_TRUE(sameBytes(kept[1].payload, payload(adInfo)));

  Request r = LinkRequests::set(32u, LinkInfo().setBond(*bond.bond));
  Attrs out = Attrs().u8(IFLA_BOND_MODE, 4).u32(IFLA_BOND_MIIMON, 100);
  EXPECT_TRUE(sameBytes(r.bytes(), kindChange(32, "bond", out)));
}

TEST(LinkDecode, UnknownKindKeepsAllItsData) {
  // A kind fastlink has no codec for (geneve was one until it got its own file).
  const Attrs id = Attrs().u32(1, 5);                   // IFLA_BAREUDP_PORT
  const Attrs remote = Attrs().raw(2, {192, 0, 2, 1});  // IFLA_BAREUDP_ETHERTYPE
  LinkInfo d = decode(kernelLink(40, 0, kernelLinkInfo("bareudp", Attrs().append(id).append(remote))));
  EXPECT_EQ(d.kind, "bareudp");
  auto kept = d.unknownKindData.list();
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[0].type, 1);
  EXPECT_TRUE(sameBytes(kept[0].payload, payload(id)));
  EXPECT_EQ(kept[1].type, 2);
  EXPECT_TRUE(sameBytes(kept[1].payload, payload(remote)));
}

TEST(LinkDecode, DataOfAKindWithoutOptionsIsKept) {
  LinkInfo d = decode(kernelLink(41, 0, kernelLinkInfo("wireguard", Attrs().u8(1, 1))));
  EXPECT_EQ(d.kind, "wireguard");
  EXPECT_EQ(d.unknownKindData.count(), 1u);
}

TEST(LinkDecode, NestedFlagOnLinkInfoIsAccepted) {
  // A message built by libmnl (NLA_F_NESTED set) decodes like the kernel's.
  LinkInfo d = decode(kernelLink(5, 0, requestLinkInfo("vlan", Attrs().u16(IFLA_VLAN_ID, 7))));
  EXPECT_EQ(d.kind, "vlan");
  ASSERT_TRUE(d.vlan.has_value());
  EXPECT_EQ(d.vlan->id, 7);
}

TEST(LinkDecode, DeviceWithoutKind) {
  // A physical NIC has no rtnl_link_ops: no IFLA_LINKINFO at all.
  LinkInfo d = decode(kernelLink(2, kUpRunning, Attrs().str(IFLA_IFNAME, "eth0").u32(IFLA_MTU, 9000)));
  EXPECT_FALSE(d.kind.has_value());
  EXPECT_EQ(d.mtu, 9000u);
}

// ---- malformed input -------------------------------------------------------------------------------

TEST(LinkDecode, ShortMessageIsMalformed) {
  Bytes m = test::netlinkMessage(RTM_NEWLINK, 0, Bytes(8, 0));
  try {
    decode(m);
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), make_error_code(Errc::malformed_reply));
    EXPECT_EQ(e.extack(), "short link message");
  }
}

TEST(LinkDecode, AttributeTooShortForItsTypeIsMalformed) {
  Bytes m = kernelLink(2, 0, Attrs().str(IFLA_IFNAME, "eth0").raw(IFLA_MTU, {0xdc, 0x05}));
  try {
    decode(m);
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), make_error_code(Errc::malformed_reply));
  }
}

TEST(LinkDecode, TruncatedLastAttributeIsIgnored) {
  Bytes m = kernelLink(2, 0, Attrs().str(IFLA_IFNAME, "eth0").u32(IFLA_MTU, 1500).str(IFLA_QDISC, "fq_codel"));
  m.resize(m.size() - 4);  // cut into IFLA_QDISC, with nlmsg_len saying so
  m[0] = static_cast<uint8_t>(m.size());
  LinkInfo d = decode(m);
  EXPECT_EQ(d.name, "eth0");
  EXPECT_EQ(d.mtu, 1500u);
  EXPECT_FALSE(d.qdisc.has_value());
}

TEST(LinkDecode, OperStateNames) {
  const char* names[] = {"UNKNOWN", "NOTPRESENT", "DOWN", "LOWERLAYERDOWN", "TESTING", "DORMANT", "UP"};
  for (uint8_t i = 0; i < 7; ++i) EXPECT_EQ(rtnl::operStateName(i), names[i]);
  EXPECT_EQ(rtnl::operStateName(7), "UNKNOWN");
  EXPECT_EQ(rtnl::operStateName(255), "UNKNOWN");
}

TEST(LinkInfoHelpers, UpFromAdminWhenNoFlags) {
  EXPECT_TRUE(LinkInfo().setAdmin(true).isUp());
  EXPECT_FALSE(LinkInfo().isUp());
  EXPECT_FALSE(LinkInfo().setAdmin(true).isRunning());
  EXPECT_EQ(LinkInfo().setMaster("br0").masterIndex(), 0u);
  EXPECT_EQ(LinkInfo().setParent(4u).parentIndex(), 4u);
}

}  // namespace
}  // namespace fastlink
