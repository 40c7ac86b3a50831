#include "../link_kind.hpp"

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

std::vector<KindOption> printBridge(const LinkInfo& l, const NameOf&) {
  std::vector<KindOption> out;
  if (!l.bridge) return out;
  const auto& b = *l.bridge;
  // iproute2's bridge_print_opt order.
  if (b.forwardDelay) out.push_back(numberOption("forward_delay", *b.forwardDelay));
  if (b.helloTime) out.push_back(numberOption("hello_time", *b.helloTime));
  if (b.maxAge) out.push_back(numberOption("max_age", *b.maxAge));
  if (b.ageingTime) out.push_back(numberOption("ageing_time", *b.ageingTime));
  if (b.stpState) out.push_back(numberOption("stp_state", *b.stpState));
  if (b.priority) out.push_back(numberOption("priority", *b.priority));
  if (b.vlanFiltering) out.push_back(numberOption("vlan_filtering", *b.vlanFiltering ? 1 : 0));
  if (b.vlanDefaultPvid) out.push_back(numberOption("vlan_default_pvid", *b.vlanDefaultPvid));
  if (b.mcastSnooping) out.push_back(numberOption("mcast_snooping", *b.mcastSnooping ? 1 : 0));
  if (b.noLinklocalLearn) out.push_back(numberOption("no_linklocal_learn", *b.noLinklocalLearn ? 1 : 0));
  return out;
}

const LinkKindRegistrar kBridge{{.kinds = {"bridge"},
                                 .usage = "bridge:  forward_delay CENTISECONDS | hello_time CENTISECONDS | max_age CENTISECONDS |\n"
                                          "           ageing_time CENTISECONDS | stp_state 0|1 | priority PRIORITY | vlan_filtering 0|1 |\n"
                                          "           vlan_default_pvid VID | mcast_snooping 0|1 | no_linklocal_learn 0|1",
                                 .parse = parseBridge,
                                 .print = printBridge}};

}  // namespace
}  // namespace fastlink::cli
