#include <fmt/format.h>

#include <tuple>

#include "rtnl/link_kind.hpp"

namespace fastlink::cli {
namespace {

/// The flags in ip's order (vlan_print_flags): the name ip prints and the word that sets it.
constexpr std::tuple<uint32_t, const char*, const char*> kVlanFlags[] = {
    {VlanInfo::kReorderHdr, "REORDER_HDR", "reorder_hdr"},
    {VlanInfo::kGvrp, "GVRP", "gvrp"},
    {VlanInfo::kMvrp, "MVRP", "mvrp"},
    {VlanInfo::kLooseBinding, "LOOSE_BINDING", "loose_binding"},
    {VlanInfo::kBridgeBinding, "BRIDGE_BINDING", "bridge_binding"}};

/// `reorder_hdr on|off` and the other flag words; false when the next word is none of them.
bool parseVlanFlag(Args& args, VlanInfo& v) {
  for (auto [bit, name, word] : kVlanFlags) {
    if (!args.accept(word)) continue;
    v.setFlag(bit, parseOnOff(args.value(word), word));
    return true;
  }
  return false;
}

void parseVlan(Args& args, ParsedLink& p) {
  VlanInfo v;
  while (!args.done()) {
    if (args.accept("id")) v.id = static_cast<uint16_t>(parseInteger(args.value("id"), "vlan id", 0, 4094));
    else if (args.accept("protocol")) {
      std::string proto = args.value("protocol");
      if (proto == "802.1Q" || proto == "802.1q") v.protocol = VlanProtocol::Dot1Q;
      else if (proto == "802.1ad" || proto == "802.1AD") v.protocol = VlanProtocol::Dot1AD;
      else throw UsageError(fmt::format("protocol: unknown vlan protocol \"{}\" (known: 802.1Q, 802.1ad)", proto));
    } else if (!parseVlanFlag(args, v)) {
      args.unknown("type vlan takes: id, protocol, reorder_hdr, gvrp, mvrp, loose_binding, bridge_binding");
    }
  }
  p.info.vlan = v;
}

std::vector<KindOption> printVlan(const LinkInfo& l, const NameOf&) {
  std::vector<KindOption> out;
  if (!l.vlan) return out;
  if (l.vlan->protocol) out.push_back(stringOption("protocol", *l.vlan->protocol == VlanProtocol::Dot1AD ? "802.1ad" : "802.1Q"));
  if (l.vlan->id) out.push_back(numberOption("id", *l.vlan->id));
  if (l.vlan->flags) {
    // `<REORDER_HDR,GVRP>`, JSON "flags": [...]; bits ip has no name for in hex, as ip prints them.
    uint32_t left = *l.vlan->flags;
    nlohmann::ordered_json names = nlohmann::ordered_json::array();
    std::string text = "<";
    for (auto [bit, name, word] : kVlanFlags) {
      if (!(left & bit)) continue;
      left &= ~bit;
      names.push_back(name);
      text += left ? fmt::format("{},", name) : name;
    }
    if (left) {
      names.push_back(fmt::format("{:x}", left));
      text += fmt::format("{:x}", left);
    }
    out.push_back({"flags", names, text + ">"});
  }
  return out;
}

const LinkKindRegistrar kVlan{{.kinds = {"vlan"},
                               .usage = "vlan:    id VID | protocol { 802.1Q | 802.1ad } | { reorder_hdr | gvrp | mvrp | loose_binding |\n"
                                        "         bridge_binding } { on | off }   (parent: link DEV)",
                               .parse = parseVlan,
                               .print = printVlan}};

}  // namespace
}  // namespace fastlink::cli
