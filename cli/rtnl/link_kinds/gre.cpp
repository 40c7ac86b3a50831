// `type { gre | gretap } [remote ADDR] [local ADDR] [ttl TTL] [tos TOS] [[no]pmtudisc]
//  [key|ikey|okey KEY] [[i|o]csum] [[i|o]seq] [dev PHYS_DEV]`
#include <fmt/format.h>

#include "rtnl/link_kind.hpp"
#include "fastlink/link_kinds/gre.hpp"

namespace fastlink::cli {
namespace {

// A key is a number or, as in iproute2, a dotted quad read as a big-endian number.
uint32_t parseKey(std::string_view text, std::string_view keyword) {
  if (text.find('.') == std::string_view::npos) return parseU32(text, keyword);
  IpAddress ip = parseIp(text, keyword);
  if (!ip.isV4()) throw UsageError(fmt::format("{}: \"{}\" is not a number or a dotted quad", keyword, text));
  auto b = ip.bytes();
  return uint32_t{b[0]} << 24 | uint32_t{b[1]} << 16 | uint32_t{b[2]} << 8 | b[3];
}

std::string dottedKey(uint32_t key) { return fmt::format("{}.{}.{}.{}", key >> 24, (key >> 16) & 0xff, (key >> 8) & 0xff, key & 0xff); }

void parseGre(Args& args, ParsedLink& p) {
  GreInfo g;
  while (!args.done()) {
    if (parseTunnelOption(args, p, g, "gre needs an IPv4 address (ip6gre is another type)")) continue;
    if (args.accept("key")) g.setKey(parseKey(args.value("key"), "key"));
    else if (args.accept("ikey")) g.ikey = parseKey(args.value("ikey"), "ikey");
    else if (args.accept("okey")) g.okey = parseKey(args.value("okey"), "okey");
    else if (args.accept("csum")) g.setCsum(true);
    else if (args.accept("icsum")) g.icsum = true;
    else if (args.accept("ocsum")) g.ocsum = true;
    else if (args.accept("seq")) g.setSeq(true);
    else if (args.accept("iseq")) g.iseq = true;
    else if (args.accept("oseq")) g.oseq = true;
    else args.unknown(fmt::format("type {} takes: remote, local, ttl, tos, [no]pmtudisc, key, ikey, okey, [i|o]csum, [i|o]seq, dev",
                                  *p.info.kind));
  }
  finishTunnel(p, g);
}

// Keys and order of iproute2's gre_print_opt.
std::vector<KindOption> printGre(const LinkInfo& l, const NameOf& nameOf) {
  return printTunnel<GreInfo>(l, nameOf, [](std::vector<KindOption>& out, const GreInfo& g) {
    if (g.pmtudisc) out.push_back({"pmtudisc", *g.pmtudisc, *g.pmtudisc ? std::string() : "nopmtudisc"});
    if (g.ikey) out.push_back(stringOption("ikey", dottedKey(*g.ikey), "ikey " + dottedKey(*g.ikey)));
    if (g.okey) out.push_back(stringOption("okey", dottedKey(*g.okey), "okey " + dottedKey(*g.okey)));
    for (auto [word, on] : {std::pair{"iseq", g.iseq}, {"oseq", g.oseq}, {"icsum", g.icsum}, {"ocsum", g.ocsum}})
      if (on.value_or(false)) out.push_back({word, true, word});
  });
}

const LinkKindRegistrar kGre{{.kinds = {"gre", "gretap"},
                              .usage = "gre, gretap: remote ADDR | local ADDR | ttl TTL|inherit | tos TOS|inherit | [no]pmtudisc |\n"
                                       "           key KEY | ikey KEY | okey KEY | [i|o]csum | [i|o]seq | dev PHYS_DEV",
                              .parse = parseGre,
                              .print = printGre,
                              .devices = tunnelDevices<GreInfo>}};

}  // namespace
}  // namespace fastlink::cli
