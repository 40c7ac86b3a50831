// `type vrf`: its table, and `-d` of a vrf and of a vrf port (`vrf_slave table N`) as
// iproute2 6.1 prints them.
#include "rtnl/link_kind.hpp"

namespace fastlink::cli {
namespace {

void parseVrf(Args& args, ParsedLink& p) {
  VrfInfo v;
  while (!args.done()) {
    if (args.accept("table")) v.table = parseU32(args.value("table"), "table", 1);
    else args.unknown("type vrf takes: table");
  }
  p.info.vrf = v;
}

std::vector<KindOption> printVrf(const LinkInfo& l, const NameOf&) {
  if (!l.vrf || !l.vrf->table) return {};
  return {numberOption("table", *l.vrf->table)};
}

/// The VRF's table, as iproute2's vrf_slave_print_opt prints it.
std::vector<KindOption> printVrfPort(const LinkInfo& l, const NameOf&) {
  if (!l.vrfPort || !l.vrfPort->table) return {};
  return {numberOption("table", *l.vrfPort->table)};
}

const LinkKindRegistrar kVrf{{.kinds = {"vrf"},
                              .usage = "vrf:     table TABLE",
                              .parse = parseVrf,
                              .print = printVrf,
                              .printPort = printVrfPort}};

}  // namespace
}  // namespace fastlink::cli
