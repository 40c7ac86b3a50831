// `type { gre | gretap } [remote ADDR] [local ADDR] [ttl TTL] [tos TOS] [[no]pmtudisc]
//  [key|ikey|okey KEY] [[i|o]csum] [[i|o]seq] [dev PHYS_DEV] [fwmark MARK] [external]
//  [encap { fou | gue | none }] [encap-sport PORT|auto] [encap-dport PORT] [[no]encap-csum]
//  [[no]encap-udp6-csum] [[no]encap-remcsum]`; the keys and their printing are shared with
//  ip6gre and ip6gretap (gre_keys.hpp here).
#include <fmt/format.h>

#include "rtnl/link_kind.hpp"
#include "rtnl/link_kinds/gre_keys.hpp"
#include "fastlink/link_kinds/gre.hpp"

namespace fastlink::cli {
namespace {

void parseGre(Args& args, ParsedLink& p) {
  GreInfo g = tunnelStart<GreInfo>(p);
  while (!args.done()) {
    if (parseTunnelOption(args, p, g, "gre needs an IPv4 address (ip6gre is another type)")) continue;
    if (!parseGreKeyOption(args, g))
      args.unknown(fmt::format("type {} takes: remote, local, ttl, tos, [no]pmtudisc, key, ikey, okey, [i|o]csum, [i|o]seq, "
                               "dev, fwmark, external, encap, encap-sport, encap-dport, [no]encap-csum, "
                               "[no]encap-udp6-csum, [no]encap-remcsum",
                               *p.info.kind));
  }
  finishTunnel(p, g);
}

// Keys and order of iproute2's gre_print_opt.
std::vector<KindOption> printGre(const LinkInfo& l, const NameOf& nameOf) {
  return printTunnel<GreInfo>(l, nameOf, [](std::vector<KindOption>& out, const GreInfo& g) {
    if (g.pmtudisc) out.push_back({"pmtudisc", *g.pmtudisc, *g.pmtudisc ? std::string() : "nopmtudisc"});
    printGreKeys(out, g);
  });
}

const LinkKindRegistrar kGre{{.kinds = {"gre", "gretap"},
                              .usage = "gre, gretap: remote ADDR | local ADDR | ttl TTL|inherit | tos TOS|inherit | [no]pmtudisc |\n"
                                       "           key KEY | ikey KEY | okey KEY | [i|o]csum | [i|o]seq | dev PHYS_DEV |\n"
                                       "           fwmark MARK | external | encap { fou | gue | none } | encap-sport PORT|auto |\n"
                                       "           encap-dport PORT | [no]encap-csum | [no]encap-udp6-csum | [no]encap-remcsum",
                              .parse = parseGre,
                              .print = printGre,
                              .devices = tunnelDevices<GreInfo>,
                              .readsDevice = true}};

}  // namespace
}  // namespace fastlink::cli
