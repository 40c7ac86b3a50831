#include <fmt/format.h>

#include "rtnl/link_kind.hpp"

namespace fastlink::cli {
namespace {

void parseVlan(Args& args, ParsedLink& p) {
  VlanInfo v;
  while (!args.done()) {
    if (args.accept("id")) v.id = static_cast<uint16_t>(parseInteger(args.value("id"), "vlan id", 0, 4094));
    else if (args.accept("protocol")) {
      std::string proto = args.value("protocol");
      if (proto == "802.1Q" || proto == "802.1q") v.protocol = VlanProtocol::Dot1Q;
      else if (proto == "802.1ad" || proto == "802.1AD") v.protocol = VlanProtocol::Dot1AD;
      else throw UsageError(fmt::format("protocol: unknown vlan protocol \"{}\" (known: 802.1Q, 802.1ad)", proto));
    } else args.unknown("type vlan takes: id, protocol");
  }
  p.info.vlan = v;
}

std::vector<KindOption> printVlan(const LinkInfo& l, const NameOf&) {
  std::vector<KindOption> out;
  if (!l.vlan) return out;
  if (l.vlan->protocol) {
    std::string proto = *l.vlan->protocol == VlanProtocol::Dot1AD ? "802.1ad" : "802.1Q";
    out.push_back(stringOption("protocol", proto, "protocol " + proto));
  }
  if (l.vlan->id) out.push_back(numberOption("id", *l.vlan->id));
  return out;
}

const LinkKindRegistrar kVlan{{.kinds = {"vlan"},
                               .usage = "vlan:    id VID | protocol { 802.1Q | 802.1ad }   (parent: link DEV)",
                               .parse = parseVlan,
                               .print = printVlan}};

}  // namespace
}  // namespace fastlink::cli
