// bridge: its options and the kernel's STP state (IFLA_BR_*), and what a bridge reports about
// each of its ports (IFLA_BRPORT_* in a port's IFLA_INFO_SLAVE_DATA).
#include <linux/if_bridge.h>
#include <linux/if_link.h>

#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {
namespace {

bool hasData(const LinkInfo& link) {
  const auto& b = link.bridge;
  return b && (b->vlanFiltering || b->vlanDefaultPvid || b->stpState || b->ageingTime || b->noLinklocalLearn ||
               b->forwardDelay || b->helloTime || b->maxAge || b->priority || b->mcastSnooping);
}

void encodeData(core::MessageWriter& w, const LinkInfo& link, KeepAlive&) {
  const BridgeInfo& b = *link.bridge;
  putOption(w, IFLA_BR_FORWARD_DELAY, b.forwardDelay);
  putOption(w, IFLA_BR_HELLO_TIME, b.helloTime);
  putOption(w, IFLA_BR_MAX_AGE, b.maxAge);
  putOption(w, IFLA_BR_PRIORITY, b.priority);
  putOption(w, IFLA_BR_VLAN_FILTERING, b.vlanFiltering);
  if (b.vlanDefaultPvid) {
    if (*b.vlanDefaultPvid >= 4095) throw Error::invalidArgument("bridge", "vlan_default_pvid must be 0-4094");
    w.putU16(IFLA_BR_VLAN_DEFAULT_PVID, *b.vlanDefaultPvid);
  }
  putOption(w, IFLA_BR_STP_STATE, b.stpState);
  putOption(w, IFLA_BR_AGEING_TIME, b.ageingTime);
  putOption(w, IFLA_BR_MCAST_SNOOPING, b.mcastSnooping);
  if (b.noLinklocalLearn) {
    br_boolopt_multi opt{};
    opt.optmask = 1u << BR_BOOLOPT_NO_LL_LEARN;
    opt.optval = *b.noLinklocalLearn ? opt.optmask : 0;
    w.putBytes(IFLA_BR_MULTI_BOOLOPT, {reinterpret_cast<const uint8_t*>(&opt), sizeof opt});
  }
}

/// A bridge id (struct ifla_bridge_id: two priority bytes, big-endian, then the MAC); one of
/// another size is left unread (kept raw).
void readBridgeId(KindAttrs& d, uint16_t type, std::optional<BridgeId>& field) {
  const nlattr* a = d.peek(type);
  if (!a || core::readBytes(a).size() != sizeof(ifla_bridge_id)) return;
  auto bytes = core::readBytes(d.take(type));
  field = BridgeId{.priority = static_cast<uint16_t>(bytes[0] << 8 | bytes[1]), .address = MacAddress(bytes.subspan(2))};
}

/// What the kernel reports beyond the settable options (see BridgeState in link.hpp).
BridgeState decodeState(KindAttrs& d, const std::optional<br_boolopt_multi>& boolopts) {
  BridgeState s;
  readBridgeId(d, IFLA_BR_BRIDGE_ID, s.bridgeId);
  readBridgeId(d, IFLA_BR_ROOT_ID, s.rootId);
  d.read(IFLA_BR_ROOT_PORT, s.rootPort);
  d.read(IFLA_BR_ROOT_PATH_COST, s.rootPathCost);
  d.read(IFLA_BR_TOPOLOGY_CHANGE, s.topologyChange);
  d.read(IFLA_BR_TOPOLOGY_CHANGE_DETECTED, s.topologyChangeDetected);
  d.readU64(IFLA_BR_HELLO_TIMER, s.helloTimer);
  d.readU64(IFLA_BR_TCN_TIMER, s.tcnTimer);
  d.readU64(IFLA_BR_TOPOLOGY_CHANGE_TIMER, s.topologyChangeTimer);
  d.readU64(IFLA_BR_GC_TIMER, s.gcTimer);
  d.readBe16(IFLA_BR_VLAN_PROTOCOL, s.vlanProtocol);
  d.read(IFLA_BR_VLAN_STATS_ENABLED, s.vlanStatsEnabled);
  d.read(IFLA_BR_VLAN_STATS_PER_PORT, s.vlanStatsPerPort);
  d.read(IFLA_BR_GROUP_FWD_MASK, s.groupFwdMask);
  if (const nlattr* a = d.peek(IFLA_BR_GROUP_ADDR); a && core::readBytes(a).size() == 6)
    s.groupAddress = MacAddress(core::readBytes(d.take(IFLA_BR_GROUP_ADDR)));
  constexpr uint32_t kVlanSnoopingBit = 1u << BR_BOOLOPT_MCAST_VLAN_SNOOPING;
  if (boolopts && (boolopts->optmask & kVlanSnoopingBit)) s.mcastVlanSnooping = (boolopts->optval & kVlanSnoopingBit) != 0;
  d.read(IFLA_BR_MCAST_ROUTER, s.mcastRouter);
  d.read(IFLA_BR_MCAST_QUERY_USE_IFADDR, s.mcastQueryUseIfaddr);
  d.read(IFLA_BR_MCAST_QUERIER, s.mcastQuerier);
  d.read(IFLA_BR_MCAST_HASH_ELASTICITY, s.mcastHashElasticity);
  d.read(IFLA_BR_MCAST_HASH_MAX, s.mcastHashMax);
  d.read(IFLA_BR_MCAST_LAST_MEMBER_CNT, s.mcastLastMemberCount);
  d.read(IFLA_BR_MCAST_STARTUP_QUERY_CNT, s.mcastStartupQueryCount);
  d.readU64(IFLA_BR_MCAST_LAST_MEMBER_INTVL, s.mcastLastMemberInterval);
  d.readU64(IFLA_BR_MCAST_MEMBERSHIP_INTVL, s.mcastMembershipInterval);
  d.readU64(IFLA_BR_MCAST_QUERIER_INTVL, s.mcastQuerierInterval);
  d.readU64(IFLA_BR_MCAST_QUERY_INTVL, s.mcastQueryInterval);
  d.readU64(IFLA_BR_MCAST_QUERY_RESPONSE_INTVL, s.mcastQueryResponseInterval);
  d.readU64(IFLA_BR_MCAST_STARTUP_QUERY_INTVL, s.mcastStartupQueryInterval);
  d.read(IFLA_BR_MCAST_STATS_ENABLED, s.mcastStatsEnabled);
  d.read(IFLA_BR_MCAST_IGMP_VERSION, s.mcastIgmpVersion);
  d.read(IFLA_BR_MCAST_MLD_VERSION, s.mcastMldVersion);
  d.read(IFLA_BR_NF_CALL_IPTABLES, s.nfCallIptables);
  d.read(IFLA_BR_NF_CALL_IP6TABLES, s.nfCallIp6tables);
  d.read(IFLA_BR_NF_CALL_ARPTABLES, s.nfCallArptables);
  return s;
}

void decodeData(const nlattr* data, LinkInfo& link) {
  KindAttrs d(data, IFLA_BR_MAX);
  BridgeInfo b;
  d.read(IFLA_BR_VLAN_FILTERING, b.vlanFiltering);
  d.read(IFLA_BR_VLAN_DEFAULT_PVID, b.vlanDefaultPvid);
  d.read(IFLA_BR_STP_STATE, b.stpState);
  d.read(IFLA_BR_AGEING_TIME, b.ageingTime);
  d.read(IFLA_BR_FORWARD_DELAY, b.forwardDelay);
  d.read(IFLA_BR_HELLO_TIME, b.helloTime);
  d.read(IFLA_BR_MAX_AGE, b.maxAge);
  d.read(IFLA_BR_PRIORITY, b.priority);
  d.read(IFLA_BR_MCAST_SNOOPING, b.mcastSnooping);
  std::optional<br_boolopt_multi> boolopts;
  if (auto* a = d.peek(IFLA_BR_MULTI_BOOLOPT); a && core::readBytes(a).size() >= sizeof(br_boolopt_multi)) {
    boolopts.emplace();
    std::memcpy(&*boolopts, core::readBytes(d.take(IFLA_BR_MULTI_BOOLOPT)).data(), sizeof *boolopts);
    b.noLinklocalLearn = (boolopts->optval & (1u << BR_BOOLOPT_NO_LL_LEARN)) != 0;
  }
  b.state = decodeState(d, boolopts);
  d.keepRest(link);
  link.bridge = b;
}

bool hasOptions(const LinkInfo& link) { return link.bridge.has_value(); }

/// What a bridge reports about a port (br_port_fill_attrs; see BridgePortInfo in link.hpp).
/// What a newer kernel adds (IFLA_BRPORT_MAB, the multicast group counts, ...) stays raw in
/// slaveData, as does the alignment padding of the timers (IFLA_BRPORT_PAD).
void decodePortData(const nlattr* data, LinkInfo& link) {
  KindAttrs d(data, IFLA_BRPORT_MAX);
  BridgePortInfo p;
  d.read(IFLA_BRPORT_STATE, p.state);
  d.read(IFLA_BRPORT_PRIORITY, p.priority);
  d.read(IFLA_BRPORT_COST, p.cost);
  d.read(IFLA_BRPORT_ID, p.portId);
  d.read(IFLA_BRPORT_NO, p.portNumber);
  d.read(IFLA_BRPORT_DESIGNATED_PORT, p.designatedPort);
  d.read(IFLA_BRPORT_DESIGNATED_COST, p.designatedCost);
  readBridgeId(d, IFLA_BRPORT_BRIDGE_ID, p.designatedBridge);
  readBridgeId(d, IFLA_BRPORT_ROOT_ID, p.designatedRoot);
  d.read(IFLA_BRPORT_TOPOLOGY_CHANGE_ACK, p.topologyChangeAck);
  d.read(IFLA_BRPORT_CONFIG_PENDING, p.configPending);
  d.readU64(IFLA_BRPORT_MESSAGE_AGE_TIMER, p.messageAgeTimer);
  d.readU64(IFLA_BRPORT_FORWARD_DELAY_TIMER, p.forwardDelayTimer);
  d.readU64(IFLA_BRPORT_HOLD_TIMER, p.holdTimer);
  d.read(IFLA_BRPORT_GUARD, p.guard);
  d.read(IFLA_BRPORT_PROTECT, p.rootBlock);
  d.read(IFLA_BRPORT_MODE, p.hairpin);
  d.read(IFLA_BRPORT_LEARNING, p.learning);
  d.read(IFLA_BRPORT_UNICAST_FLOOD, p.unicastFlood);
  d.read(IFLA_BRPORT_MCAST_FLOOD, p.mcastFlood);
  d.read(IFLA_BRPORT_BCAST_FLOOD, p.bcastFlood);
  d.read(IFLA_BRPORT_PROXYARP, p.proxyArp);
  d.read(IFLA_BRPORT_PROXYARP_WIFI, p.proxyArpWifi);
  d.read(IFLA_BRPORT_NEIGH_SUPPRESS, p.neighSuppress);
  d.read(IFLA_BRPORT_VLAN_TUNNEL, p.vlanTunnel);
  d.read(IFLA_BRPORT_ISOLATED, p.isolated);
  d.read(IFLA_BRPORT_LOCKED, p.locked);
  d.read(IFLA_BRPORT_GROUP_FWD_MASK, p.groupFwdMask);
  d.read(IFLA_BRPORT_BACKUP_PORT, p.backupPort);
  d.read(IFLA_BRPORT_MRP_RING_OPEN, p.mrpRingOpen);
  d.read(IFLA_BRPORT_MRP_IN_OPEN, p.mrpInOpen);
  d.read(IFLA_BRPORT_FAST_LEAVE, p.fastLeave);
  d.read(IFLA_BRPORT_MCAST_TO_UCAST, p.mcastToUnicast);
  d.read(IFLA_BRPORT_MULTICAST_ROUTER, p.mcastRouter);
  d.read(IFLA_BRPORT_MCAST_EHT_HOSTS_LIMIT, p.mcastEhtHostsLimit);
  d.read(IFLA_BRPORT_MCAST_EHT_HOSTS_CNT, p.mcastEhtHostsCount);
  d.keepRest(link.slaveData);
  link.bridgePort = p;
}

}  // namespace

const LinkKindCodec kBridgeKind{.kind = "bridge", .options = "bridge", .hasFieldOptions = hasOptions, .hasData = hasData,
                                .encodeData = encodeData, .decodeData = decodeData, .decodePortData = decodePortData};

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(bridge, &kBridgeKind)
