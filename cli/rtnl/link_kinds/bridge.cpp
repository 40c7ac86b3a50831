// `type bridge`: its options, and `-d` of a bridge (its options and STP state) and of a bridge
// port (`bridge_slave ...`) as iproute2 6.1 prints them.
#include <fmt/format.h>

#include <iterator>

#include "rtnl/link_kind.hpp"
#include "kit/output.hpp"

namespace fastlink::cli {
namespace {

void parseBridge(Args& args, ParsedLink& p) {
  BridgeInfo b;
  while (!args.done()) {
    if (args.accept("vlan_filtering")) b.vlanFiltering = parseBool01(args.value("vlan_filtering"), "vlan_filtering");
    else if (args.accept("vlan_default_pvid"))
      b.vlanDefaultPvid = static_cast<uint16_t>(parseInteger(args.value("vlan_default_pvid"), "vlan_default_pvid", 0, 4094));
    else if (args.accept("stp_state")) b.stpState = parseBool01(args.value("stp_state"), "stp_state") ? 1 : 0;
    else if (args.accept("ageing_time")) b.ageingTime = parseU32(args.value("ageing_time"), "ageing_time");
    else if (args.accept("no_linklocal_learn"))
      b.noLinklocalLearn = parseBool01(args.value("no_linklocal_learn"), "no_linklocal_learn");
    else if (args.accept("forward_delay")) b.forwardDelay = parseU32(args.value("forward_delay"), "forward_delay");
    else if (args.accept("hello_time")) b.helloTime = parseU32(args.value("hello_time"), "hello_time");
    else if (args.accept("max_age")) b.maxAge = parseU32(args.value("max_age"), "max_age");
    else if (args.accept("priority"))
      b.priority = static_cast<uint16_t>(parseInteger(args.value("priority"), "priority", 0, 65535));
    else if (args.accept("mcast_snooping"))  // a u8 for ip and the kernel: any nonzero value is on
      b.mcastSnooping = parseInteger(args.value("mcast_snooping"), "mcast_snooping", 0, 255) != 0;
    else args.unknown("type bridge takes: forward_delay, hello_time, max_age, ageing_time, stp_state, priority, "
                      "vlan_filtering, vlan_default_pvid, mcast_snooping, no_linklocal_learn");
  }
  p.info.bridge = b;
}

/// A bridge id under JSON `key` and after the text `word`, "8000.0:0:0:0:0:0" as iproute2 prints
/// one: the priority as four hex digits, then the MAC as ether_ntoa() writes it (no leading zeros).
KindOption bridgeIdOption(std::string key, std::string_view word, const BridgeId& id) {
  std::string text = fmt::format("{:04x}.", id.priority);
  bool first = true;
  for (uint8_t byte : id.address.bytes()) {
    if (!first) text += ':';
    first = false;
    text += fmt::format("{:x}", byte);
  }
  return stringOption(std::move(key), text, fmt::format("{} {}", word, text));
}

/// A running timer, centiseconds as seconds with two decimals: " %4i.%.2i" in text (so
/// "hello_timer    0.00"), a number with two decimals in JSON, as iproute2.
KindOption timerOption(std::string key, uint64_t centiseconds) {
  std::string seconds = fmt::format("{}.{:02}", centiseconds / 100, centiseconds % 100);
  std::string text = fmt::format("{} {:>7}", key, seconds);
  return {std::move(key), jsonNumberText(seconds), std::move(text)};
}

/// A number as iproute2's print_0xhex prints it: "%#llx" ("0" for zero, else "0x..."), in text
/// after `word` and as a string in JSON under `key`.
KindOption hexOption(std::string key, std::string_view word, uint64_t value) {
  std::string hex = value ? fmt::format("{:#x}", value) : "0";
  std::string text = fmt::format("{} {}", word, hex);
  return {std::move(key), std::move(hex), std::move(text)};
}

/// The VLAN protocol as iproute2's ll_proto_n2a names it ("[N]" for one it does not know).
std::string vlanProtocolName(uint16_t protocol) {
  switch (protocol) {
    case 0x8100: return "802.1Q";
    case 0x88a8: return "802.1ad";
    default: return fmt::format("[{}]", protocol);
  }
}

/// The tail iproute2 prints after the options BridgeInfo sets: what BridgeState holds, in
/// bridge_print_opt's order, split in two around the options `out` already has.
void printStpState(std::vector<KindOption>& out, const BridgeState& s) {
  if (s.vlanProtocol) out.push_back(stringOption("vlan_protocol", vlanProtocolName(*s.vlanProtocol)));
  if (s.bridgeId) out.push_back(bridgeIdOption("bridge_id", "bridge_id", *s.bridgeId));
  // ip's JSON key is root_id, its text word designated_root. (ip 6.1 prints the bridge's own id
  // here, a bug fixed in later versions: fastlink prints the root's.)
  if (s.rootId) out.push_back(bridgeIdOption("root_id", "designated_root", *s.rootId));
  if (s.rootPort) out.push_back(numberOption("root_port", *s.rootPort));
  if (s.rootPathCost) out.push_back(numberOption("root_path_cost", *s.rootPathCost));
  if (s.topologyChange) out.push_back(numberOption("topology_change", *s.topologyChange ? 1 : 0));
  if (s.topologyChangeDetected)
    out.push_back(numberOption("topology_change_detected", *s.topologyChangeDetected ? 1 : 0));
  if (s.helloTimer) out.push_back(timerOption("hello_timer", *s.helloTimer));
  if (s.tcnTimer) out.push_back(timerOption("tcn_timer", *s.tcnTimer));
  if (s.topologyChangeTimer) out.push_back(timerOption("topology_change_timer", *s.topologyChangeTimer));
  if (s.gcTimer) out.push_back(timerOption("gc_timer", *s.gcTimer));
}

/// A number whose JSON key and text word differ (iproute2 shortens some keys: mcast_last_member_cnt).
KindOption renamedNumber(std::string key, std::string_view word, uint64_t value) {
  return {std::move(key), value, fmt::format("{} {}", word, value)};
}

void printMulticastState(std::vector<KindOption>& out, const BridgeState& s) {
  auto flag = [&](const char* key, const std::optional<bool>& v) {
    if (v) out.push_back(numberOption(key, *v ? 1 : 0));
  };
  auto number = [&](const char* key, std::string_view word, const auto& v) {
    if (v) out.push_back(renamedNumber(key, word, *v));
  };
  flag("mcast_vlan_snooping", s.mcastVlanSnooping);
  number("mcast_router", "mcast_router", s.mcastRouter);
  flag("mcast_query_use_ifaddr", s.mcastQueryUseIfaddr);
  flag("mcast_querier", s.mcastQuerier);
  number("mcast_hash_elasticity", "mcast_hash_elasticity", s.mcastHashElasticity);
  number("mcast_hash_max", "mcast_hash_max", s.mcastHashMax);
  number("mcast_last_member_cnt", "mcast_last_member_count", s.mcastLastMemberCount);
  number("mcast_startup_query_cnt", "mcast_startup_query_count", s.mcastStartupQueryCount);
  number("mcast_last_member_intvl", "mcast_last_member_interval", s.mcastLastMemberInterval);
  number("mcast_membership_intvl", "mcast_membership_interval", s.mcastMembershipInterval);
  number("mcast_querier_intvl", "mcast_querier_interval", s.mcastQuerierInterval);
  number("mcast_query_intvl", "mcast_query_interval", s.mcastQueryInterval);
  number("mcast_query_response_intvl", "mcast_query_response_interval", s.mcastQueryResponseInterval);
  number("mcast_startup_query_intvl", "mcast_startup_query_interval", s.mcastStartupQueryInterval);
  flag("mcast_stats_enabled", s.mcastStatsEnabled);
  number("mcast_igmp_version", "mcast_igmp_version", s.mcastIgmpVersion);
  number("mcast_mld_version", "mcast_mld_version", s.mcastMldVersion);
  flag("nf_call_iptables", s.nfCallIptables);
  flag("nf_call_ip6tables", s.nfCallIp6tables);
  flag("nf_call_arptables", s.nfCallArptables);
}

std::vector<KindOption> printBridge(const LinkInfo& l, const NameOf&) {
  std::vector<KindOption> out;
  if (!l.bridge) return out;
  const auto& b = *l.bridge;
  static const BridgeState kNothing;
  const BridgeState& s = b.state ? *b.state : kNothing;
  // iproute2's bridge_print_opt order (6.1), which interleaves settable options and state.
  if (b.forwardDelay) out.push_back(numberOption("forward_delay", *b.forwardDelay));
  if (b.helloTime) out.push_back(numberOption("hello_time", *b.helloTime));
  if (b.maxAge) out.push_back(numberOption("max_age", *b.maxAge));
  if (b.ageingTime) out.push_back(numberOption("ageing_time", *b.ageingTime));
  if (b.stpState) out.push_back(numberOption("stp_state", *b.stpState));
  if (b.priority) out.push_back(numberOption("priority", *b.priority));
  if (b.vlanFiltering) out.push_back(numberOption("vlan_filtering", *b.vlanFiltering ? 1 : 0));
  printStpState(out, s);
  if (b.vlanDefaultPvid) out.push_back(numberOption("vlan_default_pvid", *b.vlanDefaultPvid));
  if (s.vlanStatsEnabled) out.push_back(numberOption("vlan_stats_enabled", *s.vlanStatsEnabled ? 1 : 0));
  if (s.vlanStatsPerPort) out.push_back(numberOption("vlan_stats_per_port", *s.vlanStatsPerPort ? 1 : 0));
  if (s.groupFwdMask) out.push_back(hexOption("group_fwd_mask", "group_fwd_mask", *s.groupFwdMask));
  if (s.groupAddress)
    out.push_back(stringOption("group_addr", s.groupAddress->toString(), "group_address " + s.groupAddress->toString()));
  if (b.mcastSnooping) out.push_back(numberOption("mcast_snooping", *b.mcastSnooping ? 1 : 0));
  if (b.noLinklocalLearn) out.push_back(numberOption("no_linklocal_learn", *b.noLinklocalLearn ? 1 : 0));
  printMulticastState(out, s);
  return out;
}

// ---- Ports: what a bridge reports about each device enslaved to it (`bridge_slave ...`) --------

/// `state forwarding` (JSON "state": "forwarding"); a state iproute2 has no name for is
/// `state (5)` (JSON "state_index": 5).
KindOption portStateOption(BridgePortStpState state) {
  static const char* const kNames[] = {"disabled", "listening", "learning", "forwarding", "blocking"};
  auto number = static_cast<uint8_t>(state);
  if (number < std::size(kNames)) return stringOption("state", kNames[number]);
  return {"state_index", number, fmt::format("state ({})", number)};
}

/// The forwarded link-local groups as iproute2 names them: each bit set, lowest first, as
/// "stp" (bit 0), "lacp" (2), "lldp" (14) or "0x<bit value>", comma-separated; "0x0" for none.
std::string groupFwdMaskText(uint16_t mask) {
  std::string text;
  for (unsigned bit = 0; bit < 16; ++bit) {
    if (!(mask & (1u << bit))) continue;
    if (!text.empty()) text += ',';
    switch (bit) {
      case 0: text += "stp"; break;
      case 2: text += "lacp"; break;
      case 14: text += "lldp"; break;
      default: text += fmt::format("{:#x}", 1u << bit);
    }
  }
  return text.empty() ? "0x0" : text;
}

/// `key on|off`, when the kernel reported the flag.
void addOnOff(std::vector<KindOption>& out, const char* key, const std::optional<bool>& v) {
  if (v) out.push_back(onOffOption(key, *v));
}

/// The port's STP settings and state, up to the timers and flags (bridge_slave_print_opt's
/// first half).
void printPortStp(std::vector<KindOption>& out, const BridgePortInfo& p) {
  if (p.state) out.push_back(portStateOption(*p.state));
  if (p.priority) out.push_back(numberOption("priority", *p.priority));
  if (p.cost) out.push_back(numberOption("cost", *p.cost));
  addOnOff(out, "hairpin", p.hairpin);
  addOnOff(out, "guard", p.guard);
  addOnOff(out, "root_block", p.rootBlock);
  addOnOff(out, "fastleave", p.fastLeave);
  addOnOff(out, "learning", p.learning);
  addOnOff(out, "flood", p.unicastFlood);
  if (p.portId) out.push_back(hexOption("id", "port_id", *p.portId));
  if (p.portNumber) out.push_back(hexOption("no", "port_no", *p.portNumber));
  if (p.designatedPort) out.push_back(numberOption("designated_port", *p.designatedPort));
  if (p.designatedCost) out.push_back(numberOption("designated_cost", *p.designatedCost));
  // JSON keys bridge_id and root_id, text words designated_bridge and designated_root.
  if (p.designatedBridge) out.push_back(bridgeIdOption("bridge_id", "designated_bridge", *p.designatedBridge));
  if (p.designatedRoot) out.push_back(bridgeIdOption("root_id", "designated_root", *p.designatedRoot));
  if (p.holdTimer) out.push_back(timerOption("hold_timer", *p.holdTimer));
  if (p.messageAgeTimer) out.push_back(timerOption("message_age_timer", *p.messageAgeTimer));
  if (p.forwardDelayTimer) out.push_back(timerOption("forward_delay_timer", *p.forwardDelayTimer));
  if (p.topologyChangeAck) out.push_back(numberOption("topology_change_ack", *p.topologyChangeAck ? 1 : 0));
  if (p.configPending) out.push_back(numberOption("config_pending", *p.configPending ? 1 : 0));
}

std::vector<KindOption> printBridgePort(const LinkInfo& l, const NameOf& nameOf) {
  std::vector<KindOption> out;
  if (!l.bridgePort) return out;
  const BridgePortInfo& p = *l.bridgePort;
  // iproute2 6.1's bridge_slave_print_opt order.
  printPortStp(out, p);
  addOnOff(out, "proxy_arp", p.proxyArp);
  addOnOff(out, "proxy_arp_wifi", p.proxyArpWifi);
  if (p.mcastRouter) out.push_back(renamedNumber("multicast_router", "mcast_router", *p.mcastRouter));
  // fastleave again under its other name, in text only (JSON has it as "fastleave" above).
  if (p.fastLeave) out.push_back({"mcast_fast_leave", nullptr, *p.fastLeave ? "mcast_fast_leave on" : "mcast_fast_leave off"});
  addOnOff(out, "mcast_flood", p.mcastFlood);
  addOnOff(out, "bcast_flood", p.bcastFlood);
  addOnOff(out, "mcast_to_unicast", p.mcastToUnicast);
  addOnOff(out, "neigh_suppress", p.neighSuppress);
  if (p.groupFwdMask) {
    out.push_back(hexOption("group_fwd_mask", "group_fwd_mask", *p.groupFwdMask));
    out.push_back(stringOption("group_fwd_mask_str", groupFwdMaskText(*p.groupFwdMask)));
  }
  addOnOff(out, "vlan_tunnel", p.vlanTunnel);
  addOnOff(out, "isolated", p.isolated);
  addOnOff(out, "locked", p.locked);
  if (p.backupPort) out.push_back(stringOption("backup_port", nameOf(*p.backupPort)));
  return out;
}

std::vector<uint32_t> bridgePortDevices(const LinkInfo& l) {
  if (l.bridgePort && l.bridgePort->backupPort) return {*l.bridgePort->backupPort};
  return {};
}

const LinkKindRegistrar kBridge{{.kinds = {"bridge"},
                                 .usage = "bridge:  forward_delay CENTISECONDS | hello_time CENTISECONDS | max_age CENTISECONDS |\n"
                                          "           ageing_time CENTISECONDS | stp_state 0|1 | priority PRIORITY | vlan_filtering 0|1 |\n"
                                          "           vlan_default_pvid VID | mcast_snooping 0|1 | no_linklocal_learn 0|1",
                                 .parse = parseBridge,
                                 .print = printBridge,
                                 .printPort = printBridgePort,
                                 .portDevices = bridgePortDevices}};

}  // namespace
}  // namespace fastlink::cli
