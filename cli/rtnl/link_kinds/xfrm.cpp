// `type xfrm [dev PHYS_DEV] if_id IF_ID | external` (iproute2's link_xfrm.c).
#include <fmt/format.h>

#include "rtnl/link_kind.hpp"
#include "fastlink/link_kinds/xfrm.hpp"

namespace fastlink::cli {
namespace {

void parseXfrm(Args& args, ParsedLink& p) {
  XfrmInfo x;
  bool dev = false;
  while (!args.done()) {
    if (args.accept("if_id")) x.ifId = parseU32(args.value("if_id"), "if_id", 1);
    else if (args.accept("dev")) {
      dev = true;
      p.kindDevices.push_back({parseIfname(args.value("dev"), "dev"), [](LinkInfo& l, uint32_t index) { l.kindOptions<XfrmInfo>()->dev = Ifref(index); }});
    } else if (args.accept("external")) x.external = true;
    else args.unknown("type xfrm takes: dev PHYS_DEV, if_id IF_ID, external");
  }
  if (x.external && (x.ifId || dev)) throw UsageError("xfrm: external takes neither if_id nor dev");
  if (!x.external && !x.ifId) throw UsageError("xfrm: \"if_id IF_ID\" is required (or \"external\")");
  p.info.setKindOptions(x);
}

// As iproute2's xfrm_print_opt: `external` alone, else `if_id 0xN` (a string in JSON).
std::vector<KindOption> printXfrm(const LinkInfo& l, const NameOf&) {
  const auto* x = l.kindOptions<XfrmInfo>();
  if (!x) return {};
  if (x->external.value_or(false)) return {{"external", true, "external"}};
  if (!x->ifId) return {};
  std::string id = fmt::format("{:#x}", *x->ifId);
  if (*x->ifId == 0) id = "0";  // printf's %#llx
  return {stringOption("if_id", id)};
}

const LinkKindRegistrar kXfrm{{.kinds = {"xfrm"},
                               .usage = "xfrm:    if_id IF_ID | dev PHYS_DEV | external",
                               .parse = parseXfrm,
                               .print = printXfrm}};

}  // namespace
}  // namespace fastlink::cli
