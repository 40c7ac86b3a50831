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
    else args.unknown("type bridge takes: vlan_filtering, vlan_default_pvid, stp_state, ageing_time, no_linklocal_learn");
  }
  p.info.bridge = b;
}

std::vector<KindOption> printBridge(const LinkInfo& l, const NameOf&) {
  std::vector<KindOption> out;
  if (!l.bridge) return out;
  const auto& b = *l.bridge;
  if (b.ageingTime) out.push_back(numberOption("ageing_time", *b.ageingTime));
  if (b.stpState) out.push_back(numberOption("stp_state", *b.stpState));
  if (b.vlanFiltering) out.push_back(numberOption("vlan_filtering", *b.vlanFiltering ? 1 : 0));
  if (b.vlanDefaultPvid) out.push_back(numberOption("vlan_default_pvid", *b.vlanDefaultPvid));
  if (b.noLinklocalLearn) out.push_back(numberOption("no_linklocal_learn", *b.noLinklocalLearn ? 1 : 0));
  return out;
}

const LinkKindRegistrar kBridge{{.kinds = {"bridge"},
                                 .usage = "bridge:  vlan_filtering 0|1 | vlan_default_pvid VID | stp_state 0|1 | ageing_time CENTISECONDS |\n"
                                          "           no_linklocal_learn 0|1",
                                 .parse = parseBridge,
                                 .print = printBridge}};

}  // namespace
}  // namespace fastlink::cli
