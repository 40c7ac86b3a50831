// GRE's keys, checksums and sequence numbers as ip's link_gre.c and link_gre6.c read and print
// them, for the kinds whose options carry them (gre, gretap: GreInfo; ip6gre, ip6gretap:
// Ip6TunnelInfo); the library's rows are src/rtnl/gre_keys.hpp.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "rtnl/link_kind.hpp"

namespace fastlink::cli {

/// A key is a number or, as in iproute2 (tnl_parse_key), a dotted quad read as a big-endian number.
inline uint32_t parseGreKey(std::string_view text, std::string_view keyword) {
  if (text.find('.') == std::string_view::npos) return parseTunnelNumber(text, keyword, UINT32_MAX);
  IpAddress ip = parseIp(text, keyword);
  if (!ip.isV4()) throw UsageError(fmt::format("{}: \"{}\" is not a number or a dotted quad", keyword, text));
  auto b = ip.bytes();
  return uint32_t{b[0]} << 24 | uint32_t{b[1]} << 16 | uint32_t{b[2]} << 8 | b[3];
}

/// A key as ip prints it in `-d link show`: a dotted quad.
inline std::string dottedKey(uint32_t key) {
  return fmt::format("{}.{}.{}.{}", key >> 24, (key >> 16) & 0xff, (key >> 8) & 0xff, key & 0xff);
}

/// `[no]key|ikey|okey KEY`, `[no][i|o]seq`, `[no][i|o]csum`; false when the word is none of them.
template <class Info>
bool parseGreKeyOption(Args& args, Info& g) {
  if (args.accept("key")) g.ikey = g.okey = parseGreKey(args.value("key"), "key");
  else if (args.accept("ikey")) g.ikey = parseGreKey(args.value("ikey"), "ikey");
  else if (args.accept("okey")) g.okey = parseGreKey(args.value("okey"), "okey");
  else if (args.accept("nokey")) g.ikey.reset(), g.okey.reset();
  else if (args.accept("noikey")) g.ikey.reset();
  else if (args.accept("nookey")) g.okey.reset();
  else if (args.acceptSwitch("csum", g.icsum)) g.ocsum = g.icsum;
  else if (args.acceptSwitch("seq", g.iseq)) g.oseq = g.iseq;
  else if (args.acceptSwitch("icsum", g.icsum) || args.acceptSwitch("ocsum", g.ocsum) ||
           args.acceptSwitch("iseq", g.iseq) || args.acceptSwitch("oseq", g.oseq)) return true;
  else return false;
  return true;
}

/// ikey, okey, iseq, oseq, icsum, ocsum in gre_print_opt's order.
template <class Info>
void printGreKeys(std::vector<KindOption>& out, const Info& g) {
  if (g.ikey) out.push_back(stringOption("ikey", dottedKey(*g.ikey)));
  if (g.okey) out.push_back(stringOption("okey", dottedKey(*g.okey)));
  for (auto [word, on] : {std::pair{"iseq", g.iseq}, {"oseq", g.oseq}, {"icsum", g.icsum}, {"ocsum", g.ocsum}})
    if (on.value_or(false)) out.push_back({word, true, word});
}

}  // namespace fastlink::cli
