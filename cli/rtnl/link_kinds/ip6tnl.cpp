// `type ip6tnl [mode { ip6ip6 | ipip6 | any }] ...` (ip 6.1's link_ip6tnl.c) and
// `type { ip6gre | ip6gretap } [[no]key|ikey|okey KEY] [[no][i|o]seq] [[no][i|o]csum] ...`
// (link_gre6.c): remote, local, dev, ttl|hoplimit|hlim, tclass, flowlabel, encaplimit,
// dscp inherit, fwmark, [no]allow-localremote, external and the encap words, as ip reads them;
// a new tunnel gets ip's defaults (hoplimit 64, encaplimit 4, encap-udp6-csum).
// ip6gre's erspan words are ip6erspan's (a kind fastlink does not have): refused by name.
#include <fmt/format.h>
#include <netinet/in.h>

#include "rtnl/link_kind.hpp"
#include "rtnl/link_kinds/gre_keys.hpp"
#include "fastlink/link_kinds/ip6tnl.hpp"

namespace fastlink::cli {
namespace {

// ip6tunnel.c's DEFAULT_TNL_HOP_LIMIT, IPV6_DEFAULT_TNL_ENCAP_LIMIT, and the encapsulation's
// default flag (TUNNEL_ENCAP_FLAG_CSUM6).
constexpr uint8_t kDefaultHopLimit = 64;
constexpr uint8_t kDefaultEncapLimit = 4;
constexpr uint16_t kDefaultEncapFlags = 2;

constexpr const char* kRule = "needs an IPv6 address (the IPv4 kinds are ipip, gre, gretap)";
constexpr const char* kWords = "remote, local, dev, ttl|hoplimit|hlim, tclass, flowlabel, encaplimit, dscp inherit, fwmark, "
                               "[no]allow-localremote, external, encap, encap-sport, encap-dport, [no]encap-csum, "
                               "[no]encap-udp6-csum, [no]encap-remcsum";

Ip6TunnelInfo start(const ParsedLink& p) {
  // `link set`: the tunnel's own values, which the line's words change (as ip).
  if (p.change) return tunnelStart<Ip6TunnelInfo>(p);
  Ip6TunnelInfo o;
  o.hoplimit = kDefaultHopLimit;
  o.encapLimit = kDefaultEncapLimit;
  o.flowinfo = 0;
  o.flags = 0;
  o.fwmark = 0;
  o.encapType = 0;
  o.encapFlags = kDefaultEncapFlags;
  o.encapSport = 0;
  o.encapDport = 0;
  return o;
}

void parseIp6tnl(Args& args, ParsedLink& p) {
  Ip6TunnelInfo o = start(p);
  if (!p.change) o.proto = 0;  // ip sends `any` unless `mode` says another
  while (!args.done()) {
    if (parseTunnelOption(args, p, o, kRule)) continue;
    if (args.accept("mode")) {
      std::string mode = args.value("mode");
      if (mode == "ipv6/ipv6" || mode == "ip6ip6") o.proto = IPPROTO_IPV6;
      else if (mode == "ip/ipv6" || mode == "ipv4/ipv6" || mode == "ipip6" || mode == "ip4ip6") o.proto = IPPROTO_IPIP;
      else if (mode == "any/ipv6" || mode == "any") o.proto = 0;
      else throw UsageError(fmt::format("mode: \"{}\" is not one of ip6ip6, ipip6, any", mode));
    } else {
      args.unknown(fmt::format("type ip6tnl takes: mode, {}", kWords));
    }
  }
  finishTunnel(p, o);
}

void parseIp6gre(Args& args, ParsedLink& p) {
  Ip6TunnelInfo o = start(p);
  while (!args.done()) {
    if (parseTunnelOption(args, p, o, kRule) || parseGreKeyOption(args, o)) continue;
    for (const char* word : {"erspan", "erspan_ver", "erspan_dir", "erspan_hwid"})
      if (args.peek() == word)
        throw UsageError(fmt::format("{}: ERSPAN is type ip6erspan's, which fastlink does not support", word));
    args.unknown(fmt::format("type {} takes: [no]key, [no]ikey, [no]okey, [no][i|o]seq, [no][i|o]csum, {}", *p.info.kind, kWords));
  }
  finishTunnel(p, o);
}

void printFlags(std::vector<KindOption>& out, const Ip6TunnelInfo& o, bool gre) {
  printIp6TunnelOptions(out, o.flowinfo, o.flags.value_or(0), o.encapLimit);
  if (gre) printGreKeys(out, o);
  else if (o.flags.value_or(0) & Ip6TunnelInfo::kMip6Dev) out.push_back({"ip6_tnl_f_mip6_dev", true, "mip6"});
  if (o.flags.value_or(0) & Ip6TunnelInfo::kAllowLocalRemote)
    out.push_back({"ip6_tnl_f_allow_local_remote", true, "allow-localremote"});
}

// Keys and order of ip6tunnel_print_opt (link_ip6tnl.c).
std::vector<KindOption> printIp6tnl(const LinkInfo& l, const NameOf& nameOf) {
  auto head = [](std::vector<KindOption>& out, const Ip6TunnelInfo& o) {
    if (!o.proto) return;
    const char* name = *o.proto == IPPROTO_IPIP ? "ipip6" : *o.proto == IPPROTO_IPV6 ? "ip6ip6" : *o.proto == 0 ? "any" : nullptr;
    if (name) out.push_back(stringOption("proto", name, name));
  };
  return printTunnel<Ip6TunnelInfo>(l, nameOf, head,
                                    [](std::vector<KindOption>& out, const Ip6TunnelInfo& o) { printFlags(out, o, false); });
}

// Keys and order of gre_print_opt (link_gre6.c).
std::vector<KindOption> printIp6gre(const LinkInfo& l, const NameOf& nameOf) {
  return printTunnel<Ip6TunnelInfo>(l, nameOf, [](std::vector<KindOption>& out, const Ip6TunnelInfo& o) { printFlags(out, o, true); });
}

const LinkKindRegistrar kIp6tnl{{.kinds = {"ip6tnl"},
                                 .usage = "ip6tnl:  mode { ip6ip6 | ipip6 | any } | remote ADDR | local ADDR | dev PHYS_DEV |\n"
                                          "           hoplimit TTL|inherit | encaplimit { none | 0..255 } |\n"
                                          "           tclass { 0x0..0xff | inherit } | flowlabel { 0x0..0xfffff | inherit } |\n"
                                          "           dscp inherit | fwmark { MARK | inherit } | [no]allow-localremote | external |\n"
                                          "           encap { fou | gue | none } | encap-sport PORT|auto | encap-dport PORT |\n"
                                          "           [no]encap-csum | [no]encap-udp6-csum | [no]encap-remcsum",
                                 .parse = parseIp6tnl,
                                 .print = printIp6tnl,
                                 .devices = tunnelDevices<Ip6TunnelInfo>,
                                 .readsDevice = true}};

const LinkKindRegistrar kIp6gre{{.kinds = {"ip6gre", "ip6gretap"},
                                 .usage = "ip6gre, ip6gretap: [no]key|ikey|okey KEY | [no][i|o]seq | [no][i|o]csum |\n"
                                          "           the words of ip6tnl but mode",
                                 .parse = parseIp6gre,
                                 .print = printIp6gre,
                                 .devices = tunnelDevices<Ip6TunnelInfo>,
                                 .readsDevice = true}};

}  // namespace
}  // namespace fastlink::cli
