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
// The CLI is linked from object files (not an archive), so every registrar runs; the registry is
// a function-local static, so registering before main() is safe in any order. Kinds the library
// knows but the CLI has no file for are created without options and printed by name.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kit/args.hpp"
#include "kit/command.hpp"
#include "fastlink/link.hpp"

namespace fastlink::cli {

/// A parsed link command: the LinkInfo, plus the device names the kernel wants as ifindexes.
struct ParsedLink {
  /// A device named inside kind options (vxlan dev, gre dev), and where its ifindex goes.
  struct KindDevice {
    std::string name;
    std::function<void(LinkInfo&, uint32_t index)> set;
  };

  LinkInfo info;
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

struct CliLinkKind {
  std::vector<std::string> kinds = {};  ///< "macvlan", "macvtap" share one entry
  std::string usage = {};          ///< its line(s) of `link help`, e.g. "vrf:     table TABLE"
  /// Parses the words after `type KIND` (the kind is in p.info.kind). Empty: takes no options.
  std::function<void(Args&, ParsedLink&)> parse = {};
  /// The decoded options of a link of this kind, in `ip -d` order.
  std::function<std::vector<KindOption>(const LinkInfo&, const NameOf&)> print = {};
  /// Ifindexes the printed options name (so `show` knows their names). Empty: none.
  std::function<std::vector<uint32_t>(const LinkInfo&)> devices = {};
  /// What a master of this kind reports about a port (a link whose slaveKind is this kind), in
  /// `ip -d` order: the words after `KIND_slave`, JSON `info_slave_data`. Empty: ip prints
  /// neither (only `KIND_slave` / `info_slave_kind`).
  std::function<std::vector<KindOption>(const LinkInfo&, const NameOf&)> printPort = {};
  /// Ifindexes printPort names (a bridge port's backup port). Empty: none.
  std::function<std::vector<uint32_t>(const LinkInfo&)> portDevices = {};
};

struct LinkKindRegistrar {
  explicit LinkKindRegistrar(CliLinkKind kind);
};

/// The CLI entry of `kind`, or nullptr.
const CliLinkKind* findCliLinkKind(std::string_view kind);
/// Every CLI entry, sorted by first kind name.
std::vector<const CliLinkKind*> allCliLinkKinds();

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
/// `ttl N`, "ttl inherit" (0) in text and 0 in JSON, as iproute2 prints tunnels.
KindOption tunnelTtl(uint8_t ttl);
/// `tos 0xN` / "tos inherit" (1) in text, "0xN" in JSON; nullopt for 0 (not printed).
std::optional<KindOption> tunnelTos(uint8_t tos);
/// Parses `ttl N | inherit | auto` for tunnels (inherit and auto are 0).
uint8_t parseTunnelTtl(std::string_view text);
/// Parses `tos HEX | 0xHEX | inherit` (inherit is 1), hex like iproute2.
uint8_t parseTunnelTos(std::string_view text);

// ---- The options every IP tunnel kind shares (gre, gretap, ipip, sit) ---------------------------
// Info has remote, local, ttl, tos, pmtudisc and dev, as the library's tunnel rows
// (src/rtnl/link_kind.hpp, tunnelFields).

/// `remote|local ADDR|any` of a tunnel over IPv4; "KEYWORD: `rule`" for another family.
IpAddress parseIpv4Endpoint(std::string_view text, std::string_view keyword, std::string_view rule);
/// An endpoint as iproute2 prints it: "any" for unset or 0.0.0.0.
std::string tunnelEndpoint(const std::optional<IpAddress>& ip);

/// Parses the next word if it is a shared tunnel option (remote, local, ttl|hoplimit,
/// tos|dsfield|tclass, [no]pmtudisc, dev); false when it is none of them.
template <class Info>
bool parseTunnelOption(Args& args, ParsedLink& p, Info& o, std::string_view rule) {
  if (args.accept("remote")) o.remote = parseIpv4Endpoint(args.value("remote"), "remote", rule);
  else if (args.accept("local")) o.local = parseIpv4Endpoint(args.value("local"), "local", rule);
  else if (args.acceptAny({"ttl", "hoplimit"})) o.ttl = parseTunnelTtl(args.value("ttl"));
  else if (args.acceptAny({"tos", "dsfield", "tclass"})) o.tos = parseTunnelTos(args.value("tos"));
  else if (args.acceptSwitch("pmtudisc", o.pmtudisc)) return true;
  else if (args.accept("dev"))
    p.kindDevices.push_back({parseIfname(args.value("dev"), "dev"), [](LinkInfo& l, uint32_t index) { l.kindOptions<Info>()->dev = Ifref(index); }});
  else return false;
  return true;
}

/// The end of a tunnel's parse: refuses what iproute2 refuses, stores the options.
template <class Info>
void finishTunnel(ParsedLink& p, const Info& o) {
  if (o.ttl && *o.ttl && o.pmtudisc == false) throw UsageError("ttl != 0 and nopmtudisc are incompatible");
  p.info.setKindOptions(o);
}

/// A tunnel's options in `ip -d` order: remote, local, link, ttl and tos (how iproute2's tunnel
/// printers begin), then what `more(out, options)` adds (the kind's own).
template <class Info, class More>
std::vector<KindOption> printTunnel(const LinkInfo& l, const NameOf& nameOf, More&& more) {
  std::vector<KindOption> out;
  const Info* options = l.kindOptions<Info>();
  if (!options) return out;
  const Info& o = *options;
  out.push_back(stringOption("remote", tunnelEndpoint(o.remote), "remote " + tunnelEndpoint(o.remote)));
  out.push_back(stringOption("local", tunnelEndpoint(o.local), "local " + tunnelEndpoint(o.local)));
  if (o.dev && o.dev->isIndex()) {
    std::string dev = nameOf(o.dev->index());
    out.push_back(stringOption("link", dev, "dev " + dev));
  }
  out.push_back(tunnelTtl(o.ttl.value_or(0)));
  if (auto tos = tunnelTos(o.tos.value_or(0))) out.push_back(*tos);
  more(out, o);
  return out;
}

/// The device a tunnel is bound to (`dev`), for `show` to name.
template <class Info>
std::vector<uint32_t> tunnelDevices(const LinkInfo& l) {
  const auto* o = l.kindOptions<Info>();
  if (o && o->dev && o->dev->isIndex()) return {o->dev->index()};
  return {};
}

}  // namespace fastlink::cli
