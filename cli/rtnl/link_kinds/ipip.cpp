// `type { ipip | sit } [remote ADDR] [local ADDR] [ttl TTL] [tos TOS] [[no]pmtudisc] [dev PHYS_DEV]`
#include <fmt/format.h>

#include "rtnl/link_kind.hpp"
#include "fastlink/link_kinds/ipip.hpp"

namespace fastlink::cli {
namespace {

void parseIpTunnel(Args& args, ParsedLink& p) {
  IpTunnelInfo o;
  while (!args.done())
    if (!parseTunnelOption(args, p, o, "needs an IPv4 address"))
      args.unknown(fmt::format("type {} takes: remote, local, ttl, tos, [no]pmtudisc, dev", *p.info.kind));
  finishTunnel(p, o);
}

// Keys and order of iproute2's iptunnel_print_opt (its "proto" stays undecoded: not printed).
std::vector<KindOption> printIpTunnel(const LinkInfo& l, const NameOf& nameOf) {
  return printTunnel<IpTunnelInfo>(l, nameOf, [](std::vector<KindOption>& out, const IpTunnelInfo& o) {
    bool pmtudisc = o.pmtudisc.value_or(false);
    out.push_back({"pmtudisc", pmtudisc, pmtudisc ? "pmtudisc" : "nopmtudisc"});
  });
}

const LinkKindRegistrar kIpTunnel{{.kinds = {"ipip", "sit"},
                                   .usage = "ipip, sit: remote ADDR | local ADDR | ttl TTL|inherit | tos TOS|inherit | [no]pmtudisc |\n"
                                            "           dev PHYS_DEV",
                                   .parse = parseIpTunnel,
                                   .print = printIpTunnel,
                                   .devices = tunnelDevices<IpTunnelInfo>}};

}  // namespace
}  // namespace fastlink::cli
