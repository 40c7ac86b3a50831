#include "../link_kind.hpp"

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

const LinkKindRegistrar kVrf{{.kinds = {"vrf"}, .usage = "vrf:     table TABLE", .parse = parseVrf, .print = printVrf}};

}  // namespace
}  // namespace fastlink::cli
