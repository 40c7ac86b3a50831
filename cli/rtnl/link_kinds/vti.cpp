// `type { vti | vti6 } [[i|o]key KEY] [remote ADDR] [local ADDR] [dev PHYS_DEV] [fwmark MARK]`
// (ip 6.1's link_vti.c and link_vti6.c): vti's endpoints IPv4, vti6's IPv6.
#include <fmt/format.h>

#include "rtnl/link_kind.hpp"
#include "rtnl/link_kinds/gre_keys.hpp"
#include "fastlink/link_kinds/vti.hpp"

namespace fastlink::cli {
namespace {

template <bool kV6>
void parseVti(Args& args, ParsedLink& p) {
  VtiInfo o = tunnelStart<VtiInfo>(p);
  // ip sends both keys and the mark always (0: none) when creating.
  if (!p.change) o.ikey = o.okey = o.fwmark = 0;
  const char* rule = kV6 ? "needs an IPv6 address (vti is the IPv4 type)" : "needs an IPv4 address (vti6 is the IPv6 type)";
  while (!args.done()) {
    if (parseTunnelOption<VtiInfo, kV6>(args, p, o, rule)) continue;
    if (args.accept("key")) o.ikey = o.okey = parseGreKey(args.value("key"), "key");
    else if (args.accept("ikey")) o.ikey = parseGreKey(args.value("ikey"), "ikey");
    else if (args.accept("okey")) o.okey = parseGreKey(args.value("okey"), "okey");
    else args.unknown(fmt::format("type {} takes: key, ikey, okey, remote, local, dev, fwmark", *p.info.kind));
  }
  p.info.setKindOptions(o);
}

// Keys and order of vti_print_opt / vti6_print_opt: keys as dotted quads, only when not 0.
std::vector<KindOption> printVti(const LinkInfo& l, const NameOf& nameOf) {
  return printTunnel<VtiInfo>(l, nameOf, [](std::vector<KindOption>& out, const VtiInfo& o) {
    if (o.ikey.value_or(0)) out.push_back(stringOption("ikey", dottedKey(*o.ikey)));
    if (o.okey.value_or(0)) out.push_back(stringOption("okey", dottedKey(*o.okey)));
  });
}



const LinkKindRegistrar kVti{{.kinds = {"vti"},
                              .usage = "vti:     key KEY | ikey KEY | okey KEY | remote ADDR | local ADDR | dev PHYS_DEV | fwmark MARK",
                              .parse = parseVti<false>,
                              .print = printVti,
                              .devices = tunnelDevices<VtiInfo>,
                              .readsDevice = true}};
const LinkKindRegistrar kVti6{{.kinds = {"vti6"},
                               .usage = "vti6:    the words of vti, with IPv6 endpoints",
                               .parse = parseVti<true>,
                               .print = printVti,
                               .devices = tunnelDevices<VtiInfo>,
                              .readsDevice = true}};

}  // namespace
}  // namespace fastlink::cli
