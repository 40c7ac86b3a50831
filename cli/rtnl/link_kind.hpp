// The CLI side of link kinds: how `link add NAME type KIND <options>` parses a kind's words and
// how `link show -d` prints its options (text and JSON, as `ip -d [-j] link show`).
//
// ---- Adding a kind ------------------------------------------------------------------------------
// One file, cli/rtnl/link_kinds/<kind>.cpp, that registers itself at start-up:
//
//   namespace fastlink::cli {
//   namespace {
//   void parseGeneve(Args& args, ParsedLink& p) { ... p.info.setKindOptions(g); }
//   std::vector<KindOption> printGeneve(const LinkInfo& l, const NameOf& nameOf) { ... }
//   const LinkKindRegistrar kGeneve{{.kinds = {"geneve"}, .usage = "geneve:  id VNI | remote IP | ...",
//                                    .parse = parseGeneve, .print = printGeneve}};
//   }  // namespace
//   }  // namespace fastlink::cli
//
// The CLI is linked from object files (not an archive), so every registrar runs; the list it
// joins is constant-initialised, so registering before main() is safe in any order. Kinds the library
// knows but the CLI has no file for are created without options and printed by name.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "kit/args.hpp"
#include "kit/command.hpp"
#include "fastlink/link.hpp"
#include "fastlink/prefix.hpp"

namespace fastlink::cli {

/// A parsed link command: the LinkInfo, plus the device names the kernel wants as ifindexes.
struct ParsedLink {
  /// A device named inside kind options (vxlan dev, gre dev), and where its ifindex goes.
  struct KindDevice {
    std::string name;
    std::function<void(LinkInfo&, uint32_t index)> set;
  };

  LinkInfo info;
  /// `link set ... type KIND ...`: the device exists, so a kind's parse adds no defaults of its
  /// own (ip's tunnels send theirs only when creating).
  bool change = false;
  /// `link set NAME type KIND ...` of a kind that `readsDevice`: NAME as the kernel has it, read
  /// before the kind's words are parsed (tunnelStart), as ip's tunnels do.
  std::optional<LinkInfo> current;
  std::optional<std::string> master;
  std::optional<std::string> parent;
  std::vector<KindDevice> kindDevices;

  std::vector<std::string> names() const;
  LinkInfo resolved(Resolver& resolver) const;
};

/// One option as `ip -d` prints it: the JSON key and value, and the text words. A null value is
/// printed in text only, an empty text in JSON only (iproute2 has both cases).
struct KindOption {
  std::string key;
  nlohmann::ordered_json value;
  std::string text;
};

/// The name of the device with ifindex `index` ("if5" when unknown).
using NameOf = std::function<std::string(uint32_t index)>;

/// A kind's CLI entry. Literals and plain functions only, as ObjectCommand (cli/kit/command.hpp):
/// every fastlink process registers every kind before main, so registering builds nothing.
struct CliLinkKind {
  CommandAliases kinds;    ///< "macvlan", "macvtap" share one entry
  std::string_view usage;  ///< its line(s) of `link help`, e.g. "vrf:     table TABLE"
  /// Parses the words after `type KIND` (the kind is in p.info.kind). Null: takes no options.
  void (*parse)(Args&, ParsedLink&) = nullptr;
  /// The decoded options of a link of this kind, in `ip -d` order.
  std::vector<KindOption> (*print)(const LinkInfo&, const NameOf&) = nullptr;
  /// Ifindexes the printed options name (so `show` knows their names). Null: none.
  std::vector<uint32_t> (*devices)(const LinkInfo&) = nullptr;
  /// What a master of this kind reports about a port (a link whose slaveKind is this kind), in
  /// `ip -d` order: the words after `KIND_slave`, JSON `info_slave_data`. Null: ip prints
  /// neither (only `KIND_slave` / `info_slave_kind`).
  std::vector<KindOption> (*printPort)(const LinkInfo&, const NameOf&) = nullptr;
  /// Ifindexes printPort names (a bridge port's backup port). Null: none.
  std::vector<uint32_t> (*portDevices)(const LinkInfo&) = nullptr;
  /// `link set NAME type KIND ...` reads NAME first (ParsedLink::current): ip's tunnels do, since
  /// their kernel side resets every option a change does not carry, so ip sends them all back.
  bool readsDevice = false;
};

/// Registers a kind from a static object in its file, which links itself into the kinds' list.
struct LinkKindRegistrar {
  explicit LinkKindRegistrar(CliLinkKind kind);
  CliLinkKind kind;
  mutable const LinkKindRegistrar* next = nullptr;  ///< set when the next kind registers
};

/// The CLI entry of `kind`, or nullptr.
const CliLinkKind* findCliLinkKind(std::string_view kind);
/// Every CLI entry, sorted by first kind name.
std::vector<const CliLinkKind*> allCliLinkKinds();

// ---- Words of the link itself, which a veth peer takes too (ip's iplink_parse) --------------

constexpr uint32_t kGsoMaxSegs = 65535;  // the kernel's GSO_MAX_SEGS, which ip checks
/// `group GROUP`: "default" (0) or a number.
uint32_t parseGroup(std::string_view text);
/// ip's get_unsigned: the whole word as strtoul reads it with base 0 (decimal, 0x hex, 0 octal),
/// at most `max`; anything else is ip's invarg for `keyword` (usage, 255).
uint32_t parseIpUnsigned(const std::string& text, std::string_view keyword, uint32_t max = UINT32_MAX);
/// A link-layer address as ip's ll_addr_a2n reads `broadcast LLADDR` (see the definition).
MacAddress parseLinkLayerAddress(const std::string& text);

/// Helpers for kind files.
inline KindOption numberOption(std::string key, uint64_t value) {
  std::string text = key + " " + std::to_string(value);
  return {std::move(key), value, std::move(text)};
}
/// `key on|off` in text, true/false in JSON (iproute2's print_on_off).
inline KindOption onOffOption(std::string key, bool on) {
  std::string text = key + (on ? " on" : " off");
  return {std::move(key), on, std::move(text)};
}
inline KindOption stringOption(std::string key, std::string value, std::string text) {
  return {std::move(key), std::move(value), std::move(text)};
}
/// `key VALUE` in text, the value as a string in JSON.
inline KindOption stringOption(std::string key, std::string value) {
  std::string text = key + " " + value;
  return stringOption(std::move(key), std::move(value), std::move(text));
}
/// `ttl N`, "ttl inherit" (0) in text and 0 in JSON, as iproute2 prints tunnels.
KindOption tunnelTtl(uint8_t ttl);
/// `tos 0xN` / "tos inherit" (1) in text, "0xN" in JSON; nullopt for 0 (not printed).
std::optional<KindOption> tunnelTos(uint8_t tos);
/// Parses `ttl N | inherit | auto` for tunnels (inherit and auto are 0).
uint8_t parseTunnelTtl(std::string_view text);
/// Parses `tos HEX | 0xHEX | inherit` (inherit is 1), hex like iproute2.
uint8_t parseTunnelTos(std::string_view text);
/// vxlan's and geneve's `df unset|set|inherit` (VxlanDf, GeneveDf: 0, 1, 2) as ip prints it: JSON always, text unless unset.
KindOption udpTunnelDf(uint8_t df);
/// Their `[no]udpcsum`, `[no]udp6zerocsumtx`, `[no]udp6zerocsumrx` as ip prints them: JSON always, text "[no]WORD".
template <class Info>
void printUdpChecksums(std::vector<KindOption>& out, const Info& o) {
  for (auto [key, word, on] : {std::tuple{"udp_csum", "udpcsum", o.udpCsum}, {"udp_zero_csum6_tx", "udp6zerocsumtx", o.udp6ZeroCsumTx},
                               {"udp_zero_csum6_rx", "udp6zerocsumrx", o.udp6ZeroCsumRx}})
    if (on) out.push_back({key, *on, std::string(*on ? "" : "no") + word});
}

// ---- The options every IP tunnel kind shares ------------------------------------------------
// gre, gretap, ipip, sit (GreInfo, IpTunnelInfo), ip6tnl, ip6gre, ip6gretap (Ip6TunnelInfo), vti
// and vti6 (VtiInfo) name their shared options alike, as the library's tunnel rows do
// (src/rtnl/link_kind.hpp, tunnelFields): what an options struct has decides which words it takes
// and prints (`tos` and `pmtudisc` over IPv4, `flowinfo` and `flags` over IPv6, ...).

/// Options over IPv6 (ip6tnl, ip6gre): hoplimit, encaplimit, tclass, flowlabel, IP6_TNL_F_* flags.
template <class Info>
constexpr bool kIp6Tunnel = requires(Info o) { o.flowinfo; };

/// `remote|local ADDR|any` of a tunnel over IPv6 (`v6`) or IPv4; "KEYWORD: `rule`" for another family.
IpAddress parseTunnelEndpoint(std::string_view text, std::string_view keyword, bool v6, std::string_view rule);
/// 0.0.0.0 or :: (ip's `any`).
bool isUnspecified(const IpAddress& ip);
/// An endpoint as iproute2 prints it: "any" for unset, 0.0.0.0 or ::.
std::string tunnelEndpoint(const std::optional<IpAddress>& ip);
/// A sit's 6rd prefix (`v6`) or relay prefix as ip's get_prefix reads it; nullopt for text that
/// is no prefix of that family (ip then ends the command with status 1).
std::optional<Prefix> sixrdPrefix(std::string_view text, bool v6);
/// ip's get_u32(.., 0) / get_u16 for `fwmark`, `encap-sport`, `encap-dport`: decimal, 0x hex, 0 octal.
uint32_t parseTunnelNumber(std::string_view text, std::string_view keyword, uint32_t max);
/// `encap fou|gue` as ip prints it (tnl_print_encap): a JSON object, one run of text words.
KindOption tunnelEncap(uint16_t type, uint16_t flags, uint16_t sport, uint16_t dport);
/// Parses `tclass`, `flowlabel`, `encaplimit`, `dscp inherit`, `[no]allow-localremote` of a tunnel over
/// IPv6 into its flowinfo and flags (ip6tunnel.c's words); false when the word is none of them.
bool parseIp6TunnelOption(Args& args, std::optional<uint32_t>& flowinfo, std::optional<uint32_t>& flags,
                          std::optional<uint8_t>& encapLimit);
/// The same options printed (tclass, flowlabel, encaplimit, dscp inherit, as ip6tunnel_print_opt).
void printIp6TunnelOptions(std::vector<KindOption>& out, const std::optional<uint32_t>& flowinfo, uint32_t flags,
                           const std::optional<uint8_t>& encapLimit);

/// `external`, `[no]encap ...` of the kinds that have them (ip's tunnel encapsulation words).
template <class Info>
bool parseTunnelEncapOption(Args& args, Info& o) {
  if constexpr (requires { o.encapType; }) {
    auto flag = [&](uint16_t bit, bool on) {
      o.encapFlags = static_cast<uint16_t>(on ? o.encapFlags.value_or(0) | bit : o.encapFlags.value_or(0) & ~bit);
    };
    if (args.accept("external")) o.external = true;
    else if (args.accept("noencap")) o.encapType = 0;
    else if (args.accept("encap")) {
      std::string type = args.value("encap");
      if (type == "fou") o.encapType = 1;
      else if (type == "gue") o.encapType = 2;
      else if (type == "none") o.encapType = 0;
      else throw UsageError(fmt::format("encap: \"{}\" is not fou, gue or none", type));
    } else if (args.accept("encap-sport")) {
      std::string port = args.value("encap-sport");
      o.encapSport = port == "auto" ? 0 : static_cast<uint16_t>(parseTunnelNumber(port, "encap-sport", UINT16_MAX));
    } else if (args.accept("encap-dport")) o.encapDport = static_cast<uint16_t>(parseTunnelNumber(args.value("encap-dport"), "encap-dport", UINT16_MAX));
    else if (args.accept("encap-csum")) flag(1, true);
    else if (args.accept("noencap-csum")) flag(1, false);
    else if (args.accept("encap-udp6-csum")) flag(2, true);
    else if (args.accept("noencap-udp6-csum")) flag(2, false);
    else if (args.accept("encap-remcsum")) flag(4, true);
    else if (args.accept("noencap-remcsum")) flag(4, false);
    else return false;
    return true;
  } else {
    return false;
  }
}

/// Parses the next word if it is a shared tunnel option (remote, local, ttl|hoplimit|hlim,
/// tos|dsfield|tclass, [no]pmtudisc, dev, fwmark, external, encap ...; over IPv6 also tclass,
/// flowlabel, encaplimit, dscp, [no]allow-localremote); false when it is none of them.
/// `rule`: what an endpoint of the other family is told; `v6`: the endpoints' family (vti6's
/// options are vti's).
template <class Info, bool v6 = kIp6Tunnel<Info>>
bool parseTunnelOption(Args& args, ParsedLink& p, Info& o, std::string_view rule) {
  if (args.accept("remote")) o.remote = parseTunnelEndpoint(args.value("remote"), "remote", v6, rule);
  else if (args.accept("local")) o.local = parseTunnelEndpoint(args.value("local"), "local", v6, rule);
  else if (args.accept("dev"))
    p.kindDevices.push_back({parseIfname(args.value("dev"), "dev"), [](LinkInfo& l, uint32_t index) { l.kindOptions<Info>()->dev = Ifref(index); }});
  else if (args.accept("fwmark")) {
    std::string mark = args.value("fwmark");
    if constexpr (kIp6Tunnel<Info>) {
      // ip6's `fwmark inherit`: the inner packet's mark (a flag; the mark itself 0).
      uint32_t flags = o.flags.value_or(0) & ~Info::kUseOrigFwmark;
      o.fwmark = mark == "inherit" ? 0 : parseTunnelNumber(mark, "fwmark", UINT32_MAX);
      o.flags = flags | (mark == "inherit" ? Info::kUseOrigFwmark : 0);
    } else {
      o.fwmark = parseTunnelNumber(mark, "fwmark", UINT32_MAX);
    }
  } else if constexpr (requires { o.ttl; }) {
    if (args.acceptAny({"ttl", "hoplimit", "hlim"})) o.ttl = parseTunnelTtl(args.value("ttl"));
    else if (args.acceptAny({"tos", "dsfield", "tclass", "tc"})) o.tos = parseTunnelTos(args.value("tos"));
    else if (args.acceptSwitch("pmtudisc", o.pmtudisc)) return true;
    else return parseTunnelEncapOption(args, o);
  } else if constexpr (kIp6Tunnel<Info>) {
    if (args.acceptAny({"ttl", "hoplimit", "hlim"})) o.hoplimit = parseTunnelTtl(args.value("hoplimit"));
    else if (parseIp6TunnelOption(args, o.flowinfo, o.flags, o.encapLimit)) return true;
    else return parseTunnelEncapOption(args, o);
  } else {
    return false;
  }
  return true;
}

/// What a tunnel's words are parsed over: for `link set`, the tunnel's own options (the kernel
/// resets the ones a change leaves out), else nothing (the kind adds ip's defaults for `add`).
template <class Info>
Info tunnelStart(const ParsedLink& p) {
  if (p.change && p.current)
    if (const auto* o = p.current->kindOptions<Info>()) return *o;
  return Info{};
}

/// The end of a tunnel's parse: refuses what iproute2 refuses, stores the options. `external`
/// sends nothing else (ip: the collect-metadata flag, and ip6tnl's and ipip's protocol, alone).
template <class Info>
void finishTunnel(ParsedLink& p, const Info& o) {
  if constexpr (requires { o.pmtudisc; })
    if (o.ttl && *o.ttl && o.pmtudisc == false) throw UsageError("ttl != 0 and nopmtudisc are incompatible");
  if constexpr (requires { o.external; }) {
    if (o.external) {
      Info only;
      only.external = true;
      if constexpr (requires { o.proto; }) only.proto = o.proto;
      p.kindDevices.clear();
      p.info.setKindOptions(only);
      return;
    }
  }
  p.info.setKindOptions(o);
}

/// A tunnel's options in `ip -d` order: external, what `head` adds (a protocol), remote, local,
/// link, ttl (hoplimit over IPv6) and tos (how iproute2's tunnel printers begin), then what
/// `more(out, options)` adds (the kind's own), then fwmark and the encapsulation (how they end).
template <class Info, class Head, class More>
std::vector<KindOption> printTunnel(const LinkInfo& l, const NameOf& nameOf, Head&& head, More&& more) {
  std::vector<KindOption> out;
  const Info* options = l.kindOptions<Info>();
  if (!options) return out;
  const Info& o = *options;
  if constexpr (requires { o.external; })
    if (o.external) out.push_back({"external", true, "external"});
  head(out, o);
  out.push_back(stringOption("remote", tunnelEndpoint(o.remote)));
  out.push_back(stringOption("local", tunnelEndpoint(o.local)));
  if (o.dev && o.dev->isIndex()) {
    std::string dev = nameOf(o.dev->index());
    out.push_back(stringOption("link", dev, "dev " + dev));
  }
  if constexpr (requires { o.ttl; }) {
    out.push_back(tunnelTtl(o.ttl.value_or(0)));
    if (auto tos = tunnelTos(o.tos.value_or(0))) out.push_back(*tos);
  } else if constexpr (kIp6Tunnel<Info>) {
    uint8_t hops = o.hoplimit.value_or(0);
    out.push_back({"ttl", hops, hops ? fmt::format("hoplimit {}", hops) : std::string("hoplimit inherit")});
  }
  more(out, o);
  bool inheritMark = false;
  if constexpr (kIp6Tunnel<Info>) inheritMark = o.flags.value_or(0) & Info::kUseOrigFwmark;
  if (inheritMark) {
    out.push_back({"ip6_tnl_f_use_orig_fwmark", true, "fwmark inherit"});
  } else if (o.fwmark.value_or(0)) {
    out.push_back(stringOption("fwmark", fmt::format("{:#x}", *o.fwmark)));
  }
  if constexpr (requires { o.encapType; })
    if (o.encapType.value_or(0))
      out.push_back(tunnelEncap(*o.encapType, o.encapFlags.value_or(0), o.encapSport.value_or(0), o.encapDport.value_or(0)));
  return out;
}

/// printTunnel without a head.
template <class Info, class More>
std::vector<KindOption> printTunnel(const LinkInfo& l, const NameOf& nameOf, More&& more) {
  return printTunnel<Info>(l, nameOf, [](std::vector<KindOption>&, const Info&) {}, std::forward<More>(more));
}

/// The device a tunnel is bound to (`dev`), for `show` to name.
template <class Info>
std::vector<uint32_t> tunnelDevices(const LinkInfo& l) {
  const auto* o = l.kindOptions<Info>();
  if (o && o->dev && o->dev->isIndex()) return {o->dev->index()};
  return {};
}

}  // namespace fastlink::cli
