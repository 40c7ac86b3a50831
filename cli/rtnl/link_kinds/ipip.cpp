// `type { ipip | sit } [mode MODE] [remote ADDR] [local ADDR] [ttl TTL] [tos TOS] [[no]pmtudisc]
//  [dev PHYS_DEV] [fwmark MARK] [external] [encap ...]`, sit also `[isatap] [6rd-prefix PREFIX]
//  [6rd-relay_prefix PREFIX] [6rd-reset]` (ip 6.1's link_iptnl.c).
#include <fmt/format.h>
#include <netinet/in.h>

#include "rtnl/link_kind.hpp"
#include "fastlink/error.hpp"
#include "fastlink/link_kinds/ipip.hpp"

namespace fastlink::cli {
namespace {

/// `mode` of link_iptnl.c: ip6ip only for sit.
uint8_t parseMode(std::string_view mode, bool sit) {
  if (sit && (mode == "ipv6/ipv4" || mode == "ip6ip")) return IPPROTO_IPV6;
  if (mode == "ipv4/ipv4" || mode == "ipip" || mode == "ip4ip4") return IPPROTO_IPIP;
  if (mode == "mpls/ipv4" || mode == "mplsip") return IPPROTO_MPLS;
  if (mode == "any/ipv4" || mode == "any") return 0;
  throw UsageError(fmt::format("mode: \"{}\" is not one of {}ipip, mplsip, any", mode, sit ? "ip6ip, " : ""));
}

Prefix parseSixrdPrefix(std::string_view text, std::string_view keyword, bool v6) {
  // ip's get_prefix: status 1, as an address that does not parse.
  if (auto prefix = sixrdPrefix(text, v6)) return *prefix;
  throw BadValueError(fmt::format("{}: \"{}\" is not an IPv{} prefix", keyword, text, v6 ? 6 : 4));
}

void parseIpTunnel(Args& args, ParsedLink& p) {
  IpTunnelInfo o = tunnelStart<IpTunnelInfo>(p);
  const bool sit = *p.info.kind == "sit";
  // ip sends every option when it creates a tunnel, its defaults for what the line does not say
  // (link_iptnl.c): the inner protocol 0 ("any"), ttl 0 (sit's kernel default is 64), pmtudisc,
  // no fwmark or encapsulation, and sit's flags.
  if (!p.change) {
    o.proto = 0, o.ttl = 0, o.tos = 0, o.pmtudisc = true, o.fwmark = 0;
    o.encapType = 0, o.encapFlags = 0, o.encapSport = 0, o.encapDport = 0;
    if (sit) o.flags = 0;
  }
  while (!args.done()) {
    if (parseTunnelOption(args, p, o, "needs an IPv4 address")) continue;
    if (args.accept("mode")) o.proto = parseMode(args.value("mode"), sit);
    else if (sit && args.accept("isatap")) o.flags = o.flags.value_or(0) | IpTunnelInfo::kIsatap;
    else if (sit && args.accept("6rd-prefix")) o.sixrdPrefix = parseSixrdPrefix(args.value("6rd-prefix"), "6rd-prefix", true);
    else if (sit && args.accept("6rd-relay_prefix"))
      o.sixrdRelayPrefix = parseSixrdPrefix(args.value("6rd-relay_prefix"), "6rd-relay_prefix", false);
    else if (sit && args.accept("6rd-reset"))
      o.sixrdPrefix = Prefix::parse("2002::/16"), o.sixrdRelayPrefix = Prefix::parse("0.0.0.0/0");
    else
      args.unknown(fmt::format("type {} takes: mode, remote, local, ttl, tos, [no]pmtudisc, dev, fwmark, external, encap, "
                               "encap-sport, encap-dport, [no]encap-csum, [no]encap-udp6-csum, [no]encap-remcsum{}",
                               *p.info.kind, sit ? ", isatap, 6rd-prefix, 6rd-relay_prefix, 6rd-reset" : ""));
  }
  finishTunnel(p, o);
}

// Keys and order of iproute2's iptunnel_print_opt.
std::vector<KindOption> printIpTunnel(const LinkInfo& l, const NameOf& nameOf) {
  auto head = [](std::vector<KindOption>& out, const IpTunnelInfo& o) {
    if (!o.proto) return;
    const char* name = *o.proto == IPPROTO_IPIP ? "ipip" : *o.proto == IPPROTO_IPV6 ? "ip6ip" : *o.proto == IPPROTO_MPLS ? "mplsip"
                       : *o.proto == 0                ? "any"
                                                      : nullptr;
    if (name) out.push_back(stringOption("proto", name, name));
  };
  return printTunnel<IpTunnelInfo>(l, nameOf, head, [](std::vector<KindOption>& out, const IpTunnelInfo& o) {
    bool pmtudisc = o.pmtudisc.value_or(false);
    out.push_back({"pmtudisc", pmtudisc, pmtudisc ? "pmtudisc" : "nopmtudisc"});
    if (o.flags.value_or(0) & IpTunnelInfo::kIsatap) out.push_back({"isatap", true, "isatap"});
    if (o.sixrdPrefix && o.sixrdPrefix->length()) {
      const Prefix& p = *o.sixrdPrefix;
      out.push_back({"prefix", p.address().toString(), fmt::format("6rd-prefix {}/{}", p.address().toString(), p.length())});
      out.push_back({"prefixlen", p.length(), ""});
      // ip prints the relay prefix when its address is not 0.0.0.0.
      if (const auto& r = o.sixrdRelayPrefix; r && r->address().toString() != "0.0.0.0") {
        out.push_back({"relay_prefix", r->address().toString(),
                       fmt::format("6rd-relay_prefix {}/{}", r->address().toString(), r->length())});
        out.push_back({"relay_prefixlen", r->length(), ""});
      }
    }
  });
}

const LinkKindRegistrar kIpTunnel{
    {.kinds = {"ipip", "sit"},
     .usage = "ipip, sit: mode { ipip | mplsip | any } (sit also ip6ip) | remote ADDR | local ADDR | ttl TTL|inherit |\n"
              "           tos TOS|inherit | [no]pmtudisc | dev PHYS_DEV | fwmark MARK | external |\n"
              "           encap { fou | gue | none } | encap-sport PORT|auto | encap-dport PORT | [no]encap-csum |\n"
              "           [no]encap-udp6-csum | [no]encap-remcsum | sit only: isatap | 6rd-prefix PREFIX |\n"
              "           6rd-relay_prefix PREFIX | 6rd-reset",
     .parse = parseIpTunnel,
     .print = printIpTunnel,
     .devices = tunnelDevices<IpTunnelInfo>,
     .readsDevice = true}};

}  // namespace
}  // namespace fastlink::cli
