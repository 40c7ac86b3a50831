// bridge: its options and the kernel's STP state (IFLA_BR_*), and what a bridge reports about
// each of its ports (IFLA_BRPORT_* in a port's IFLA_INFO_SLAVE_DATA).
#include <linux/if_bridge.h>
#include <linux/if_link.h>

#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {
namespace {

/// A bridge id (struct ifla_bridge_id: two priority bytes, big-endian, then the MAC); one of
/// another size stays raw.
template <uint16_t kType, auto kMember>
constexpr auto bridgeIdField() {
  using Info = decltype(fields::ownerOf(kMember));
  auto get = [](const nlattr* a, Info& info, const FieldContext&) {
    auto bytes = core::readBytes(a);
    if (bytes.size() != sizeof(ifla_bridge_id)) return false;
    info.*kMember = BridgeId{.priority = static_cast<uint16_t>(bytes[0] << 8 | bytes[1]), .address = MacAddress(bytes.subspan(2))};
    return true;
  };
  return AttrField<Info>{kType, nullptr, get};
}

bool getGroupAddress(const nlattr* a, BridgeState& s, const FieldContext&) {
  if (core::readBytes(a).size() != 6) return false;
  s.groupAddress = MacAddress(core::readBytes(a));
  return true;
}

/// IFLA_BR_MULTI_BOOLOPT: `no_linklocal_learn` is sent under its mask; decodeData reads the
/// bits of both the options and the state from it.
void putBoolopts(core::MessageWriter& w, const AttrField<BridgeInfo>&, const BridgeInfo& b) {
  if (!b.noLinklocalLearn) return;
  br_boolopt_multi opt{};
  opt.optmask = 1u << BR_BOOLOPT_NO_LL_LEARN;
  opt.optval = *b.noLinklocalLearn ? opt.optmask : 0;
  putStruct(w, IFLA_BR_MULTI_BOOLOPT, opt);
}

void putVlanDefaultPvid(core::MessageWriter& w, const AttrField<BridgeInfo>&, const BridgeInfo& b) {
  if (!b.vlanDefaultPvid) return;
  if (*b.vlanDefaultPvid >= 4095) throw Error::invalidArgument("bridge", "vlan_default_pvid must be 0-4094");
  w.putU16(IFLA_BR_VLAN_DEFAULT_PVID, *b.vlanDefaultPvid);
}

constexpr FieldTable kFields({
    field<IFLA_BR_FORWARD_DELAY, &BridgeInfo::forwardDelay>(),
    field<IFLA_BR_HELLO_TIME, &BridgeInfo::helloTime>(),
    field<IFLA_BR_MAX_AGE, &BridgeInfo::maxAge>(),
    field<IFLA_BR_PRIORITY, &BridgeInfo::priority>(),
    field<IFLA_BR_VLAN_FILTERING, &BridgeInfo::vlanFiltering>(),
    AttrField<BridgeInfo>{IFLA_BR_VLAN_DEFAULT_PVID, putVlanDefaultPvid, field<IFLA_BR_VLAN_DEFAULT_PVID, &BridgeInfo::vlanDefaultPvid>().get},
    field<IFLA_BR_STP_STATE, &BridgeInfo::stpState>(),
    field<IFLA_BR_AGEING_TIME, &BridgeInfo::ageingTime>(),
    field<IFLA_BR_MCAST_SNOOPING, &BridgeInfo::mcastSnooping>(),
    AttrField<BridgeInfo>{IFLA_BR_MULTI_BOOLOPT, putBoolopts},
});

/// What the kernel reports beyond the settable options (see BridgeState in link.hpp).
constexpr FieldTable kStateFields({
    bridgeIdField<IFLA_BR_BRIDGE_ID, &BridgeState::bridgeId>(),
    bridgeIdField<IFLA_BR_ROOT_ID, &BridgeState::rootId>(),
    field<IFLA_BR_ROOT_PORT, &BridgeState::rootPort, Wire::Reported>(),
    field<IFLA_BR_ROOT_PATH_COST, &BridgeState::rootPathCost, Wire::Reported>(),
    field<IFLA_BR_TOPOLOGY_CHANGE, &BridgeState::topologyChange, Wire::Reported>(),
    field<IFLA_BR_TOPOLOGY_CHANGE_DETECTED, &BridgeState::topologyChangeDetected, Wire::Reported>(),
    field<IFLA_BR_HELLO_TIMER, &BridgeState::helloTimer, Wire::Reported>(),
    field<IFLA_BR_TCN_TIMER, &BridgeState::tcnTimer, Wire::Reported>(),
    field<IFLA_BR_TOPOLOGY_CHANGE_TIMER, &BridgeState::topologyChangeTimer, Wire::Reported>(),
    field<IFLA_BR_GC_TIMER, &BridgeState::gcTimer, Wire::Reported>(),
    field<IFLA_BR_VLAN_PROTOCOL, &BridgeState::vlanProtocol, Wire::Be16>(),
    field<IFLA_BR_VLAN_STATS_ENABLED, &BridgeState::vlanStatsEnabled, Wire::Reported>(),
    field<IFLA_BR_VLAN_STATS_PER_PORT, &BridgeState::vlanStatsPerPort, Wire::Reported>(),
    field<IFLA_BR_GROUP_FWD_MASK, &BridgeState::groupFwdMask, Wire::Reported>(),
    AttrField<BridgeState>{IFLA_BR_GROUP_ADDR, nullptr, getGroupAddress},
    field<IFLA_BR_MCAST_ROUTER, &BridgeState::mcastRouter, Wire::Reported>(),
    field<IFLA_BR_MCAST_QUERY_USE_IFADDR, &BridgeState::mcastQueryUseIfaddr, Wire::Reported>(),
    field<IFLA_BR_MCAST_QUERIER, &BridgeState::mcastQuerier, Wire::Reported>(),
    field<IFLA_BR_MCAST_HASH_ELASTICITY, &BridgeState::mcastHashElasticity, Wire::Reported>(),
    field<IFLA_BR_MCAST_HASH_MAX, &BridgeState::mcastHashMax, Wire::Reported>(),
    field<IFLA_BR_MCAST_LAST_MEMBER_CNT, &BridgeState::mcastLastMemberCount, Wire::Reported>(),
    field<IFLA_BR_MCAST_STARTUP_QUERY_CNT, &BridgeState::mcastStartupQueryCount, Wire::Reported>(),
    field<IFLA_BR_MCAST_LAST_MEMBER_INTVL, &BridgeState::mcastLastMemberInterval, Wire::Reported>(),
    field<IFLA_BR_MCAST_MEMBERSHIP_INTVL, &BridgeState::mcastMembershipInterval, Wire::Reported>(),
    field<IFLA_BR_MCAST_QUERIER_INTVL, &BridgeState::mcastQuerierInterval, Wire::Reported>(),
    field<IFLA_BR_MCAST_QUERY_INTVL, &BridgeState::mcastQueryInterval, Wire::Reported>(),
    field<IFLA_BR_MCAST_QUERY_RESPONSE_INTVL, &BridgeState::mcastQueryResponseInterval, Wire::Reported>(),
    field<IFLA_BR_MCAST_STARTUP_QUERY_INTVL, &BridgeState::mcastStartupQueryInterval, Wire::Reported>(),
    field<IFLA_BR_MCAST_STATS_ENABLED, &BridgeState::mcastStatsEnabled, Wire::Reported>(),
    field<IFLA_BR_MCAST_IGMP_VERSION, &BridgeState::mcastIgmpVersion, Wire::Reported>(),
    field<IFLA_BR_MCAST_MLD_VERSION, &BridgeState::mcastMldVersion, Wire::Reported>(),
    field<IFLA_BR_NF_CALL_IPTABLES, &BridgeState::nfCallIptables, Wire::Reported>(),
    field<IFLA_BR_NF_CALL_IP6TABLES, &BridgeState::nfCallIp6tables, Wire::Reported>(),
    field<IFLA_BR_NF_CALL_ARPTABLES, &BridgeState::nfCallArptables, Wire::Reported>(),
});

/// What a bridge reports about a port (br_port_fill_attrs; see BridgePortInfo in link.hpp).
/// What a newer kernel adds (IFLA_BRPORT_MAB, the multicast group counts, ...) stays raw in
/// slaveData, as does the alignment padding of the timers (IFLA_BRPORT_PAD).
constexpr FieldTable kPortFields({
    field<IFLA_BRPORT_STATE, &BridgePortInfo::state, Wire::Reported>(),
    field<IFLA_BRPORT_PRIORITY, &BridgePortInfo::priority, Wire::Reported>(),
    field<IFLA_BRPORT_COST, &BridgePortInfo::cost, Wire::Reported>(),
    field<IFLA_BRPORT_ID, &BridgePortInfo::portId, Wire::Reported>(),
    field<IFLA_BRPORT_NO, &BridgePortInfo::portNumber, Wire::Reported>(),
    field<IFLA_BRPORT_DESIGNATED_PORT, &BridgePortInfo::designatedPort, Wire::Reported>(),
    field<IFLA_BRPORT_DESIGNATED_COST, &BridgePortInfo::designatedCost, Wire::Reported>(),
    bridgeIdField<IFLA_BRPORT_BRIDGE_ID, &BridgePortInfo::designatedBridge>(),
    bridgeIdField<IFLA_BRPORT_ROOT_ID, &BridgePortInfo::designatedRoot>(),
    field<IFLA_BRPORT_TOPOLOGY_CHANGE_ACK, &BridgePortInfo::topologyChangeAck, Wire::Reported>(),
    field<IFLA_BRPORT_CONFIG_PENDING, &BridgePortInfo::configPending, Wire::Reported>(),
    field<IFLA_BRPORT_MESSAGE_AGE_TIMER, &BridgePortInfo::messageAgeTimer, Wire::Reported>(),
    field<IFLA_BRPORT_FORWARD_DELAY_TIMER, &BridgePortInfo::forwardDelayTimer, Wire::Reported>(),
    field<IFLA_BRPORT_HOLD_TIMER, &BridgePortInfo::holdTimer, Wire::Reported>(),
    field<IFLA_BRPORT_GUARD, &BridgePortInfo::guard, Wire::Reported>(),
    field<IFLA_BRPORT_PROTECT, &BridgePortInfo::rootBlock, Wire::Reported>(),
    field<IFLA_BRPORT_MODE, &BridgePortInfo::hairpin, Wire::Reported>(),
    field<IFLA_BRPORT_LEARNING, &BridgePortInfo::learning, Wire::Reported>(),
    field<IFLA_BRPORT_UNICAST_FLOOD, &BridgePortInfo::unicastFlood, Wire::Reported>(),
    field<IFLA_BRPORT_MCAST_FLOOD, &BridgePortInfo::mcastFlood, Wire::Reported>(),
    field<IFLA_BRPORT_BCAST_FLOOD, &BridgePortInfo::bcastFlood, Wire::Reported>(),
    field<IFLA_BRPORT_PROXYARP, &BridgePortInfo::proxyArp, Wire::Reported>(),
    field<IFLA_BRPORT_PROXYARP_WIFI, &BridgePortInfo::proxyArpWifi, Wire::Reported>(),
    field<IFLA_BRPORT_NEIGH_SUPPRESS, &BridgePortInfo::neighSuppress, Wire::Reported>(),
    field<IFLA_BRPORT_VLAN_TUNNEL, &BridgePortInfo::vlanTunnel, Wire::Reported>(),
    field<IFLA_BRPORT_ISOLATED, &BridgePortInfo::isolated, Wire::Reported>(),
    field<IFLA_BRPORT_LOCKED, &BridgePortInfo::locked, Wire::Reported>(),
    field<IFLA_BRPORT_GROUP_FWD_MASK, &BridgePortInfo::groupFwdMask, Wire::Reported>(),
    field<IFLA_BRPORT_BACKUP_PORT, &BridgePortInfo::backupPort, Wire::Reported>(),
    field<IFLA_BRPORT_MRP_RING_OPEN, &BridgePortInfo::mrpRingOpen, Wire::Reported>(),
    field<IFLA_BRPORT_MRP_IN_OPEN, &BridgePortInfo::mrpInOpen, Wire::Reported>(),
    field<IFLA_BRPORT_FAST_LEAVE, &BridgePortInfo::fastLeave, Wire::Reported>(),
    field<IFLA_BRPORT_MCAST_TO_UCAST, &BridgePortInfo::mcastToUnicast, Wire::Reported>(),
    field<IFLA_BRPORT_MULTICAST_ROUTER, &BridgePortInfo::mcastRouter, Wire::Reported>(),
    field<IFLA_BRPORT_MCAST_EHT_HOSTS_LIMIT, &BridgePortInfo::mcastEhtHostsLimit, Wire::Reported>(),
    field<IFLA_BRPORT_MCAST_EHT_HOSTS_CNT, &BridgePortInfo::mcastEhtHostsCount, Wire::Reported>(),
});

bool hasData(const LinkInfo& link) {
  const auto& b = link.bridge;
  return b && (b->vlanFiltering || b->vlanDefaultPvid || b->stpState || b->ageingTime || b->noLinklocalLearn ||
               b->forwardDelay || b->helloTime || b->maxAge || b->priority || b->mcastSnooping);
}

void encodeData(core::MessageWriter& w, const LinkInfo& link, KeepAlive&) { kFields.encode(w, *link.bridge); }

void decodeData(const nlattr* data, LinkInfo& link) {
  BridgeInfo b;
  BridgeState s;
  auto stateOrBoolopts = [&](const nlattr* a) {
    if (kStateFields.decode(a, s, kKindContext)) return true;
    if (core::attrType(a) != IFLA_BR_MULTI_BOOLOPT || core::readBytes(a).size() < sizeof(br_boolopt_multi)) return false;
    auto boolopts = readStruct<br_boolopt_multi>(a);
    b.noLinklocalLearn = (boolopts.optval & (1u << BR_BOOLOPT_NO_LL_LEARN)) != 0;
    constexpr uint32_t kVlanSnoopingBit = 1u << BR_BOOLOPT_MCAST_VLAN_SNOOPING;
    if (boolopts.optmask & kVlanSnoopingBit) s.mcastVlanSnooping = (boolopts.optval & kVlanSnoopingBit) != 0;
    return true;
  };
  kFields.decodeAll(core::nestPayload(data), b, kKindContext, stateOrBoolopts, link.unknownKindData);
  b.state = s;
  link.bridge = b;
}

}  // namespace

const LinkKindCodec kBridgeKind{.kind = "bridge", .options = "bridge", .hasFieldOptions = fieldHas<&LinkInfo::bridge>, .hasData = hasData,
                                .encodeData = encodeData, .decodeData = decodeData, .decodePortData = decodeField<&LinkInfo::bridgePort, kPortFields, &LinkInfo::slaveData>};

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(bridge, &kBridgeKind)
