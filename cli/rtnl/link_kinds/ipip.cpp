// `type { ipip | sit } [remote ADDR] [local ADDR] [ttl TTL] [tos TOS] [[no]pmtudisc] [dev PHYS_DEV]`
#include <fmt/format.h>

#include "rtnl/link_kind.hpp"
#include "fastlink/link_kinds/ipip.hpp"

namespace fastlink::cli {
namespace {

IpAddress parseEndpoint(std::string_view text, std::string_view keyword) {
  IpAddress ip = text == "any" ? IpAddress::parse("0.0.0.0") : parseIp(text, keyword);
  if (!ip.isV4()) throw UsageError(fmt::format("{}: needs an IPv4 address", keyword));
  return ip;
}

void parseIpTunnel(Args& args, ParsedLink& p) {
  IpTunnelInfo o;
  while (!args.done()) {
    if (args.accept("remote")) o.remote = parseEndpoint(args.value("remote"), "remote");
    else if (args.accept("local")) o.local = parseEndpoint(args.value("local"), "local");
    else if (args.acceptAny({"ttl", "hoplimit"})) o.ttl = parseTunnelTtl(args.value("ttl"));
    else if (args.acceptAny({"tos", "dsfield", "tclass"})) o.tos = parseTunnelTos(args.value("tos"));
    else if (args.acceptSwitch("pmtudisc", o.pmtudisc)) {
      // the switch has set its field
    } else if (args.accept("dev")) {
      p.kindDevices.push_back({parseIfname(args.value("dev"), "dev"),
                               [](LinkInfo& l, uint32_t index) { l.kindOptions<IpTunnelInfo>()->dev = Ifref(index); }});
    } else args.unknown(fmt::format("type {} takes: remote, local, ttl, tos, [no]pmtudisc, dev", *p.info.kind));
  }
  if (o.ttl && *o.ttl && o.pmtudisc == false) throw UsageError("ttl != 0 and nopmtudisc are incompatible");
  p.info.setKindOptions(o);
}

std::string endpoint(const std::optional<IpAddress>& ip) {
  if (!ip || ip->toString() == "0.0.0.0") return "any";
  return ip->toString();
}

// Keys and order of iproute2's iptunnel_print_opt (its "proto" stays undecoded: not printed).
std::vector<KindOption> printIpTunnel(const LinkInfo& l, const NameOf& nameOf) {
  std::vector<KindOption> out;
  const auto* o = l.kindOptions<IpTunnelInfo>();
  if (!o) return out;
  out.push_back(stringOption("remote", endpoint(o->remote), "remote " + endpoint(o->remote)));
  out.push_back(stringOption("local", endpoint(o->local), "local " + endpoint(o->local)));
  if (o->dev && o->dev->isIndex()) {
    std::string dev = nameOf(o->dev->index());
    out.push_back(stringOption("link", dev, "dev " + dev));
  }
  out.push_back(tunnelTtl(o->ttl.value_or(0)));
  if (auto tos = tunnelTos(o->tos.value_or(0))) out.push_back(*tos);
  bool pmtudisc = o->pmtudisc.value_or(false);
  out.push_back({"pmtudisc", pmtudisc, pmtudisc ? "pmtudisc" : "nopmtudisc"});
  return out;
}

std::vector<uint32_t> tunnelDevices(const LinkInfo& l) {
  const auto* o = l.kindOptions<IpTunnelInfo>();
  if (o && o->dev && o->dev->isIndex()) return {o->dev->index()};
  return {};
}

const LinkKindRegistrar kIpTunnel{{.kinds = {"ipip", "sit"},
                                   .usage = "ipip, sit: remote ADDR | local ADDR | ttl TTL|inherit | tos TOS|inherit | [no]pmtudisc |\n"
                                            "           dev PHYS_DEV",
                                   .parse = parseIpTunnel,
                                   .print = printIpTunnel,
                                   .devices = tunnelDevices}};

}  // namespace
}  // namespace fastlink::cli
