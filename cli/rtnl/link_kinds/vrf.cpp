// `type vrf`: its table, and `-d` of a vrf and of a vrf port (`vrf_slave table N`) as
// iproute2 6.1 prints them.
#include "fastlink/route.hpp"
#include "kit/arg_errors.hpp"
#include "rtnl/link_kind.hpp"

namespace fastlink::cli {
namespace {

void parseVrf(Args& args, ParsedLink& p) {
  VrfInfo v;
  while (!args.done()) {
    if (args.accept("table")) {
      // A number or a name of rt_tables, as ip's rtnl_rttable_a2n reads it (`table main`: 254).
      std::string word = args.value("table");
      try {
        v.table = RouteNames::system().tableId(word);
      } catch (const Error& e) {
        throw UsageError("table: " + e.reason());
      }
      if (*v.table == 0) throw UsageError("table: 0 is not a VRF table (1-4294967295 or a name)");
    }
    else asKindOptionError([&] { args.unknown("type vrf takes: table"); });  // ip: 1 (vrf's parse_opt fails)
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
