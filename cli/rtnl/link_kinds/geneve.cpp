// `type geneve id VNI remote IP [ttl TTL|inherit|auto] [tos TOS] [df set|unset|inherit]
//  [flowlabel LABEL] [dstport PORT] [external] [[no]udpcsum] [[no]udp6zerocsumtx] [[no]udp6zerocsumrx]`
#include <fmt/format.h>

#include "rtnl/link_kind.hpp"
#include "fastlink/link_kinds/geneve.hpp"

namespace fastlink::cli {
namespace {

void parseGeneve(Args& args, ParsedLink& p) {
  GeneveInfo g;
  while (!args.done()) {
    if (args.acceptAny({"id", "vni"})) g.vni = parseU32(args.value("id"), "geneve id", 0, (1u << 24) - 1);
    else if (args.accept("remote")) {
      g.remote = parseIp(args.value("remote"), "remote");
      if (g.remote->isMulticast()) throw UsageError("remote: geneve needs a unicast address");
    } else if (args.acceptAny({"ttl", "hoplimit"})) {
      std::string t = args.value("ttl");
      if (t == "inherit") g.ttlInherit = true;
      else g.ttl = t == "auto" ? 0 : static_cast<uint8_t>(parseInteger(t, "ttl", 0, 255));
    } else if (args.acceptAny({"tos", "dsfield"})) g.tos = parseTunnelTos(args.value("tos"));
    else if (args.accept("df")) {
      std::string df = args.value("df");
      if (df == "unset") g.df = GeneveDf::Unset;
      else if (df == "set") g.df = GeneveDf::Set;
      else if (df == "inherit") g.df = GeneveDf::Inherit;
      else throw UsageError(fmt::format("df: \"{}\" is not one of set, unset, inherit", df));
    } else if (args.acceptAny({"flowlabel", "label"})) g.flowLabel = parseU32(args.value("flowlabel"), "flowlabel", 0, (1u << 20) - 1);
    else if (args.acceptAny({"dstport", "port"})) g.dstPort = static_cast<uint16_t>(parseInteger(args.value("dstport"), "dstport", 0, 65535));
    else if (args.acceptSwitch("external", g.external) || args.acceptSwitch("udpcsum", g.udpCsum) ||
             args.acceptSwitch("udp6zerocsumtx", g.udp6ZeroCsumTx) || args.acceptSwitch("udp6zerocsumrx", g.udp6ZeroCsumRx)) {
      // the switch has set its field
    } else args.unknown("type geneve takes: id, remote, ttl, tos, df, flowlabel, dstport, external, [no]udpcsum, "
                      "[no]udp6zerocsumtx, [no]udp6zerocsumrx");
  }
  if (!g.external.value_or(false) && !g.vni) throw UsageError("geneve: \"id VNI\" is required (or \"external\")");
  p.info.setKindOptions(g);
}

// Keys and order of iproute2's geneve_print_opt.
std::vector<KindOption> printGeneve(const LinkInfo& l, const NameOf&) {
  std::vector<KindOption> out;
  const auto* g = l.kindOptions<GeneveInfo>();
  if (!g) return out;
  if (g->external.value_or(false)) return {{"external", true, "external"}};
  if (!g->vni) return out;
  out.push_back(numberOption("id", *g->vni));
  if (g->remote && !isUnspecified(*g->remote))
    out.push_back(stringOption(g->remote->isV4() ? "remote" : "remote6", g->remote->toString(), "remote " + g->remote->toString()));
  if (g->ttlInherit.value_or(false)) out.push_back({"ttl", nullptr, "ttl inherit"});  // text only, as iproute2
  else if (g->ttl) out.push_back({"ttl", *g->ttl, *g->ttl ? fmt::format("ttl {}", *g->ttl) : std::string("ttl auto")});
  if (g->tos) {
    if (auto tos = tunnelTos(*g->tos)) out.push_back(*tos);
  }
  if (g->df) out.push_back(udpTunnelDf(static_cast<uint8_t>(*g->df)));
  if (g->flowLabel && *g->flowLabel) {
    std::string label = fmt::format("0x{:x}", *g->flowLabel);
    out.push_back(stringOption("label", label, "flowlabel " + label));
  }
  if (g->dstPort) out.push_back({"port", *g->dstPort, fmt::format("dstport {}", *g->dstPort)});
  printUdpChecksums(out, *g);
  return out;
}

const LinkKindRegistrar kGeneve{{.kinds = {"geneve"},
                                 .usage = "geneve:  id VNI | remote IP | ttl TTL|inherit|auto | tos TOS | df set|unset|inherit |\n"
                                          "           flowlabel LABEL | dstport PORT | external | [no]udpcsum | [no]udp6zerocsumtx |\n"
                                          "           [no]udp6zerocsumrx",
                                 .parse = parseGeneve,
                                 .print = printGeneve}};

}  // namespace
}  // namespace fastlink::cli
