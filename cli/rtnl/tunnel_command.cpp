// The `tunnel` object: ip tunnel's grammar and its `show` text, done over rtnetlink. ip talks to
// the fallback devices (gre0, tunl0, sit0, ip_vti0, ip6gre0, ip6tnl0, ip6_vti0) by ioctl; fastlink
// creates, changes and deletes the same tunnels as links of kind gre, ipip, sit (isatap: sit with
// its ISATAP flag), vti, ip6gre, ip6tnl and vti6, and reads them from a link dump; `6rd` sets a
// sit's 6rd prefixes over rtnetlink too (IFLA_IPTUN_6RD_*). `prl` (ISATAP's potential router
// list), which no netlink message carries, is the library's PrlApi (the sit driver's ioctls).
//   fastlink [-4|-6] tunnel { add | change | del | show } [ NAME ] [ mode MODE ] [ remote ADDR ]
//            [ local ADDR ] [ [i|o]seq ] [ [i|o]key KEY ] [ [i|o]csum ] [ ttl TTL ] [ tos TOS ]
//            [ [no]pmtudisc ] [ dev PHYS_DEV ]   (IPv6 modes: encaplimit, hoplimit, tclass,
//            flowlabel, dscp inherit, [no]allow-localremote)
#include <fmt/format.h>
#include <linux/if_tunnel.h>
#include <linux/sockios.h>
#include <netinet/in.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fastlink/link.hpp"
#include "fastlink/prefix.hpp"
#include "fastlink/tunnel_prl.hpp"
#include "fastlink/link_kinds/gre.hpp"
#include "fastlink/link_kinds/ip6tnl.hpp"
#include "fastlink/link_kinds/ipip.hpp"
#include "fastlink/link_kinds/vti.hpp"
#include "kit/args.hpp"
#include "kit/command.hpp"
#include "kit/usage_status.hpp"
#include "kit/failure.hpp"
#include "kit/fields.hpp"
#include "kit/ip_compat.hpp"
#include "kit/output.hpp"
#include "rtnl/ip_object.hpp"
#include "rtnl/link_kind.hpp"

namespace fastlink::cli {
namespace {

constexpr const char* kUsage = R"(Usage: fastlink tunnel { add | change | del | show } [ NAME ]
        [ mode { gre | ipip | isatap | sit | vti | ip6gre | ip6ip6 | ipip6 | any | vti6 } ]
        [ remote ADDR ] [ local ADDR ]
        [ [i|o]seq ] [ [i|o]key KEY ] [ [i|o]csum ]
        [ ttl TTL ] [ tos TOS ] [ [no]pmtudisc ] [ dev PHYS_DEV ]
        IPv6 modes also: [ encaplimit { none | 0..255 } ] [ hoplimit TTL ]
        [ tclass { 0x0..0xff | inherit } ] [ flowlabel { 0x0..0xfffff | inherit } ]
        [ dscp inherit ] [ [no]allow-localremote ]
Where: NAME := STRING
       ADDR := { IP_ADDRESS | any }
       TOS  := { 00..ff | inherit | inherit/00..ff }
       TTL  := { 1..255 | inherit }
       KEY  := { DOTTED_QUAD | NUMBER }
       fastlink tunnel 6rd dev NAME { 6rd-prefix PREFIX | 6rd-relay_prefix PREFIX | 6rd-reset }
       fastlink tunnel prl { prl-default | prl-nodefault | prl-delete } ADDR dev NAME
(-j prints JSON))";

/// ip's status for the failures its tunnel code reports itself (`return -1`).
constexpr int kExitTunnelFailed = 1;

// ip6tunnel.c's defaults for a new tunnel (DEFAULT_TNL_HOP_LIMIT, IPV6_DEFAULT_TNL_ENCAP_LIMIT).
constexpr uint8_t kDefaultHopLimit = 64;
constexpr uint8_t kDefaultEncapLimit = 4;

int fail(const std::string& message) {
  std::fflush(stdout);
  fmt::print(stderr, "{}\n", message);
  return kExitTunnelFailed;
}

/// Everything a line says, before it is applied to a kind's options.
struct TunnelArgs {
  bool v6 = false;
  std::optional<std::string> name;
  bool nameFirst = false;  ///< NAME was the first word: `change` starts from the tunnel's values
  std::optional<std::string> kind;  ///< gre, ipip, sit, vti, ip6gre, ip6tnl, vti6
  bool isatap = false;              ///< mode isatap: a sit with SIT_ISATAP
  std::optional<uint8_t> proto;     ///< ip6tnl's inner protocol
  std::optional<IpAddress> local, remote;
  std::optional<uint8_t> ttl, tos;
  std::optional<bool> pmtudisc;
  std::optional<uint32_t> ikey, okey;
  bool icsum = false, ocsum = false, iseq = false, oseq = false;
  std::optional<std::string> dev;
  // IPv6 modes
  std::optional<uint8_t> encapLimit;
  std::optional<uint8_t> tclass;
  std::optional<uint32_t> flowlabel;
  /// The Ip6TunnelInfo::k* flags the line turns on and off (its last word for each counts).
  uint32_t flagsOn = 0, flagsOff = 0;
  void setFlag(uint32_t bit, bool on) {
    flagsOn = on ? flagsOn | bit : flagsOn & ~bit;
    flagsOff = on ? flagsOff & ~bit : flagsOff | bit;
  }
};

/// iproute2's tnl_parse_key: a dotted quad, or an unsigned number (0x.. hex, 0.. octal).
uint32_t parseKey(const std::string& keyword, const std::string& word) {
  if (word.find('.') != std::string::npos) {
    IpAddress ip = parseIp(word, keyword);
    if (!ip.isV4()) throw UsageError(fmt::format("\"{}\" is not an IPv4 address", word));
    auto b = ip.bytes();
    return uint32_t{b[0]} << 24 | uint32_t{b[1]} << 16 | uint32_t{b[2]} << 8 | b[3];
  }
  char* end = nullptr;
  errno = 0;
  unsigned long v = word.empty() || word[0] == '-' ? 0 : std::strtoul(word.c_str(), &end, 0);
  if (word.empty() || word[0] == '-' || *end || errno == ERANGE || v > UINT32_MAX)
    throw UsageError(fmt::format("invalid value for \"{}\": \"{}\"; it should be an unsigned integer", keyword, word));
  return static_cast<uint32_t>(v);
}

/// An endpoint: `any` or an address of the tunnel's family; anything else ends the command with
/// status 1, as ip's get_addr32 / get_addr end it.
IpAddress parseEndpoint(const std::string& keyword, const std::string& word, bool v6) {
  if (word == "any") return IpAddress::parse(v6 ? "::" : "0.0.0.0");
  std::optional<IpAddress> ip;
  try {
    ip = parseIp(word, keyword);
  } catch (const UsageError&) {
  }
  if (!ip || ip->isV4() == v6)
    throw BadValueError(v6 ? fmt::format("inet6 address is expected rather than \"{}\".", word)
                           : fmt::format("an IP address is expected rather than \"{}\"", word));
  return *ip;
}

uint8_t parseU8(const std::string& word, const std::string& what, int base) {
  char* end = nullptr;
  errno = 0;
  unsigned long v = word.empty() || word[0] == '-' ? 256 : std::strtoul(word.c_str(), &end, base);
  if (v > 255 || (end && *end) || errno) throw UsageError(fmt::format("argument \"{}\" is wrong: {}", word, what));
  return static_cast<uint8_t>(v);
}

/// The modes of ip tunnel (iptunnel.c) and ip -6 tunnel (ip6tunnel.c), as link kinds.
void setMode(TunnelArgs& a, const std::string& mode) {
  std::string kind;
  std::optional<uint8_t> proto;
  if (mode == "ipip" || mode == "ip/ip") kind = "ipip";
  else if (mode == "gre" || mode == "gre/ip") kind = "gre";
  else if (mode == "sit" || mode == "ipv6/ip") kind = "sit";
  else if (mode == "ipv6/ipv6" || mode == "ip6ip6") kind = "ip6tnl", proto = IPPROTO_IPV6;
  else if (mode == "ip/ipv6" || mode == "ipv4/ipv6" || mode == "ipip6" || mode == "ip4ip6") kind = "ip6tnl", proto = IPPROTO_IPIP;
  else if (mode == "any/ipv6" || mode == "any") kind = "ip6tnl", proto = 0;
  else if (mode == "ip6gre" || mode == "gre/ipv6") kind = "ip6gre";
  else if (mode == "isatap" && !a.v6) kind = "sit", a.isatap = true;
  else if (mode == "vti" && !a.v6) kind = "vti";
  else if (mode == "vti6" && a.v6) kind = "vti6";
  else throw UsageError(fmt::format("Unknown tunnel mode \"{}\"", mode));
  // ip -4 refuses a second, different mode; ip -6 takes the last one.
  if (!a.v6 && a.kind && *a.kind != kind) throw UsageError("You managed to ask for more than one tunnel mode.");
  a.kind = kind;
  if (proto) a.proto = proto;
}

/// ip's IPv6 modes (tunnel_mode_is_ipv6): `mode` with one of them, or -6, selects ip6tunnel.c.
bool isV6Mode(const std::string& mode) {
  for (const char* m : {"ipv6/ipv6", "ip6ip6", "vti6", "ip/ipv6", "ipv4/ipv6", "ipip6", "ip4ip6", "ip6gre", "gre/ipv6",
                        "any/ipv6", "any"})
    if (mode == m) return true;
  return false;
}

/// ip tunnel's parse_args (both families' words; each family takes its own).
TunnelArgs parseArgs(Args& args, bool v6) {
  TunnelArgs a;
  a.v6 = v6;
  std::size_t count = 0;
  auto value = [&](const std::string& keyword) -> std::string { return args.value(keyword); };
  for (; !args.done(); ++count) {
    std::string w = args.next();
    if (w == "mode") setMode(a, value(w));
    else if (w == "key") a.ikey = a.okey = parseKey(w, value(w));
    else if (w == "ikey") a.ikey = parseKey(w, value(w));
    else if (w == "okey") a.okey = parseKey(w, value(w));
    else if (w == "seq") a.iseq = a.oseq = true;
    else if (w == "iseq") a.iseq = true;
    else if (w == "oseq") a.oseq = true;
    else if (w == "csum") a.icsum = a.ocsum = true;
    else if (w == "icsum") a.icsum = true;
    else if (w == "ocsum") a.ocsum = true;
    else if (!v6 && w == "nopmtudisc") a.pmtudisc = false;
    else if (!v6 && w == "pmtudisc") a.pmtudisc = true;
    else if (w == "remote") a.remote = parseEndpoint(w, value(w), v6);
    else if (w == "local") a.local = parseEndpoint(w, value(w), v6);
    else if (w == "dev") a.dev = value(w);
    else if (w == "ttl" || w == "hoplimit" || w == "hlim") {
      std::string t = value(w);
      if (!v6 && t == "inherit") a.ttl = 0;
      else a.ttl = parseU8(t, "invalid TTL", 0);
    } else if (!v6 && (w == "tos" || w == "tclass" || (!w.empty() && std::string_view("dsfield").starts_with(w)))) {
      std::string t = value(w);
      // `inherit`, `inherit/TOS` or `TOS` (hex): bit 0 is "inherit".
      std::string_view rest = t;
      uint8_t tos = 0;
      if (rest.starts_with("inherit")) {
        tos = 1;
        rest.remove_prefix(7);
        if (!rest.empty() && rest[0] != '/') throw UsageError(fmt::format("argument \"{}\" is wrong: bad TOS value", t));
        if (!rest.empty()) rest.remove_prefix(1);
      }
      if (!rest.empty() || tos == 0) tos |= parseU8(std::string(rest), "bad TOS value", 16);
      a.tos = tos;
    } else if (v6 && (w == "tclass" || w == "tc" || w == "tos" || (!w.empty() && std::string_view("dsfield").starts_with(w)))) {
      std::string t = value(w);
      if (t == "inherit") a.setFlag(Ip6TunnelInfo::kUseOrigTclass, true);
      else a.tclass = parseU8(t, "invalid TClass", 16), a.setFlag(Ip6TunnelInfo::kUseOrigTclass, false);
    } else if (v6 && (w == "flowlabel" || w == "fl")) {
      std::string t = value(w);
      if (t == "inherit") a.setFlag(Ip6TunnelInfo::kUseOrigFlowlabel, true);
      else {
        char* end = nullptr;
        unsigned long v = t.empty() || t[0] == '-' ? ~0ul : std::strtoul(t.c_str(), &end, 16);
        if (v > 0xfffff || (end && *end)) throw UsageError(fmt::format("argument \"{}\" is wrong: invalid Flowlabel", t));
        a.flowlabel = static_cast<uint32_t>(v);
        a.setFlag(Ip6TunnelInfo::kUseOrigFlowlabel, false);
      }
    } else if (v6 && w == "encaplimit") {
      std::string t = value(w);
      if (t == "none") a.setFlag(Ip6TunnelInfo::kIgnoreEncapLimit, true);
      else a.encapLimit = parseU8(t, "invalid ELIM", 0), a.setFlag(Ip6TunnelInfo::kIgnoreEncapLimit, false);
    } else if (v6 && w == "dscp") {
      if (value(w) != "inherit") throw UsageError(fmt::format("argument \"{}\" is wrong: not inherit", args.text()));
      a.setFlag(Ip6TunnelInfo::kRcvDscpCopy, true);
    } else if (v6 && w == "allow-localremote") a.setFlag(Ip6TunnelInfo::kAllowLocalRemote, true);
    else if (v6 && w == "noallow-localremote") a.setFlag(Ip6TunnelInfo::kAllowLocalRemote, false);
    else {
      if (w == "name") w = value(w);
      else if (!w.empty() && std::string_view("help").starts_with(w)) throw UsageError(kUsage);
      if (a.name) throw UsageError(fmt::format("either \"name\" is duplicate, or \"{}\" is a garbage.", w));
      a.name = parseIfname(w, "name");
      a.nameFirst = count == 0;
    }
  }
  if (!a.kind && a.name && !v6) {  // ip -4 guesses the mode from the name
    if (a.name->starts_with("gre")) a.kind = "gre";
    else if (a.name->starts_with("ipip")) a.kind = "ipip";
    else if (a.name->starts_with("sit")) a.kind = "sit";
    else if (a.name->starts_with("isatap")) a.kind = "sit", a.isatap = true;
    else if (a.name->starts_with("vti")) a.kind = "vti";
  }
  return a;
}

bool isKindOf(const std::string& kind, bool v6) {
  return v6 ? kind == "ip6tnl" || kind == "ip6gre" || kind == "vti6" : kind == "gre" || kind == "ipip" || kind == "sit" || kind == "vti";
}

// ---- the options of a kind, from a line and from the kernel ----------------------------------

/// IPv4 tunnels: the line's words over `base` (the tunnel's values for `change NAME`).
template <class Options>
void applyV4(const TunnelArgs& a, Options& o) {
  if (a.local) o.local = a.local;
  if (a.remote) o.remote = a.remote;
  if (a.ttl) o.ttl = a.ttl;
  if (a.tos) o.tos = a.tos;
  if (a.pmtudisc) o.pmtudisc = a.pmtudisc;
  if (a.dev) o.dev = Ifref(*a.dev);
}

void applyGreKeys(const TunnelArgs& a, auto& o) {
  if (a.ikey) o.ikey = a.ikey;
  if (a.okey) o.okey = a.okey;
  if (a.icsum) o.icsum = true;
  if (a.ocsum) o.ocsum = true;
  if (a.iseq) o.iseq = true;
  if (a.oseq) o.oseq = true;
}

void applyV6(const TunnelArgs& a, Ip6TunnelInfo& o) {
  if (a.local) o.local = a.local;
  if (a.remote) o.remote = a.remote;
  if (a.ttl) o.hoplimit = a.ttl;
  if (a.dev) o.dev = Ifref(*a.dev);
  uint32_t flowinfo = o.flowinfo.value_or(0);
  if (a.encapLimit) o.encapLimit = a.encapLimit;
  if (a.tclass) flowinfo = (flowinfo & ~Ip6TunnelInfo::kTclassMask) | (uint32_t{*a.tclass} << 20);
  if (a.flowlabel) flowinfo = (flowinfo & ~Ip6TunnelInfo::kFlowlabelMask) | *a.flowlabel;
  o.flags = (o.flags.value_or(0) & ~a.flagsOff) | a.flagsOn;
  o.flowinfo = flowinfo;
}

/// The link to send: kind and options, from the line over `current` (nullptr: ip's defaults).
LinkInfo buildLink(const TunnelArgs& a, const std::string& kind, const LinkInfo* current) {
  LinkInfo l(*a.name, kind);
  if (kind == "gre") {
    GreInfo g = current && current->kindOptions<GreInfo>() ? *current->kindOptions<GreInfo>() : GreInfo{};
    applyV4(a, g);
    applyGreKeys(a, g);
    // A multicast remote without keys: ip keys the tunnel with the group address.
    if (g.remote && g.remote->isV4() && (g.remote->bytes()[0] & 0xf0) == 0xe0) {
      auto b = g.remote->bytes();
      uint32_t group = uint32_t{b[0]} << 24 | uint32_t{b[1]} << 16 | uint32_t{b[2]} << 8 | b[3];
      if (!g.ikey) g.ikey = group;
      if (!g.okey) g.okey = group;
    }
    l.setKindOptions(g);
  } else if (kind == "ipip" || kind == "sit") {
    IpTunnelInfo t = current && current->kindOptions<IpTunnelInfo>() ? *current->kindOptions<IpTunnelInfo>() : IpTunnelInfo{};
    applyV4(a, t);
    if (a.isatap) t.flags = t.flags.value_or(0) | IpTunnelInfo::kIsatap;
    l.setKindOptions(t);
  } else if (kind == "vti" || kind == "vti6") {
    // vti's ioctl takes the endpoints, keys and device only (ttl, tos and the rest are ignored).
    VtiInfo t = current && current->kindOptions<VtiInfo>() ? *current->kindOptions<VtiInfo>() : VtiInfo{};
    if (a.local) t.local = a.local;
    if (a.remote) t.remote = a.remote;
    if (a.dev) t.dev = Ifref(*a.dev);
    if (a.ikey) t.ikey = a.ikey;
    if (a.okey) t.okey = a.okey;
    l.setKindOptions(t);
  } else {
    Ip6TunnelInfo t;
    if (current && current->kindOptions<Ip6TunnelInfo>()) t = *current->kindOptions<Ip6TunnelInfo>();
    else t.hoplimit = kDefaultHopLimit, t.encapLimit = kDefaultEncapLimit, t.flags = 0, t.flowinfo = 0;
    applyV6(a, t);
    if (kind == "ip6gre") {
      applyGreKeys(a, t);
      t.proto.reset();
    } else {
      // ip's ip6tnl takes keys and the kernel ignores them: dropped here, as they are there.
      if (a.proto) t.proto = a.proto;
      else if (!t.proto) t.proto = IPPROTO_IPV6;
    }
    l.setKindOptions(t);
  }
  return l;
}

// ---- add, change, del -------------------------------------------------------------------------

/// Checks ip makes after parsing, for add and change; returns a failure status or 0.
int checkLine(Context& ctx, const TunnelArgs& a, const std::string& kind) {
  if (!a.v6 && (a.ikey || a.okey) && kind != "gre" && kind != "vti") return fail("Keys are not allowed with ipip and sit tunnels");
  if (a.dev && !ctx.netlink().links().findIndex(*a.dev)) return fail(fmt::format("Cannot find device \"{}\"", *a.dev));
  if (!a.v6 && a.remote && (a.remote->bytes()[0] & 0xf0) == 0xe0 && !(a.local && !isUnspecified(*a.local)))
    return fail("A broadcast tunnel requires a source address");
  return 0;
}

int add(Context& ctx, Args& args, bool v6, bool change) {
  TunnelArgs a = parseArgs(args, v6);
  const char* verb = change ? "change" : "add";
  std::string kind = a.kind.value_or(v6 ? "ip6tnl" : "");
  Netlink& nl = ctx.netlink();
  std::optional<LinkInfo> current;
  if (change && a.name) {
    // ip reads the tunnel first (SIOCGETTUNNEL): a change of one that is not there fails here.
    try {
      current = nl.links().find(Ifref(*a.name));
    } catch (const Error& e) {
      return fail(fmt::format("get tunnel \"{}\" failed: {}", *a.name, e.reason()));
    }
    if (!current) return fail(fmt::format("get tunnel \"{}\" failed: No such device", *a.name));
    if (!current->kind || !isKindOf(*current->kind, v6))
      return fail(fmt::format("get tunnel \"{}\" failed: it is no {} tunnel (type {})", *a.name, v6 ? "IPv6" : "IPv4",
                              current->kind.value_or("none")));
    if (a.kind && *a.kind != *current->kind)
      return fail(fmt::format("change tunnel \"{}\" failed: it is a {} tunnel; its mode cannot be changed", *a.name, *current->kind));
    kind = *current->kind;
  }
  if (int status = checkLine(ctx, a, kind)) return status;
  if (!v6 && a.ttl && *a.ttl && a.pmtudisc == false) return fail("ttl != 0 and nopmtudisc are incompatible");
  if (kind.empty()) return fail("cannot determine tunnel mode (ipip, gre, vti or sit)");
  if (!a.name) return fail(v6 ? "Tunnel interface name not specified" : "tunnel name not specified");
  try {
    // `change NAME ...` starts from the tunnel's values (the kernel resets what is not sent).
    LinkInfo link = buildLink(a, kind, change && a.nameFirst ? &*current : nullptr);
    if (change) nl.links().set(Ifref(*a.name), link);
    else nl.links().add(link);
  } catch (const Error& e) {
    return fail(fmt::format("{} tunnel \"{}\" failed: {}", verb, *a.name, e.reason()));
  }
  return kExitOk;
}

int del(Context& ctx, Args& args, bool v6) {
  TunnelArgs a = parseArgs(args, v6);
  if (!a.name) return fail(v6 ? "Tunnel interface name not specified" : "tunnel name not specified");
  Netlink& nl = ctx.netlink();
  try {
    std::optional<LinkInfo> current = nl.links().find(Ifref(*a.name));
    if (!current) return fail(fmt::format("delete tunnel \"{}\" failed: No such device", *a.name));
    // Never a device that is no tunnel: `tunnel del eth0` must not remove eth0. A tunnel of either
    // family is deleted, as ip's ioctl on the device itself deletes it (add_tunnel.t deletes its
    // ip6gre tunnel with a plain `ip tunnel del NAME`).
    std::string kind = current->kind.value_or("none");
    if (!isKindOf(kind, false) && !isKindOf(kind, true))
      return fail(fmt::format("delete tunnel \"{}\" failed: it is no tunnel (type {})", *a.name, kind));
    nl.links().del(Ifref(*a.name));
  } catch (const Error& e) {
    return fail(fmt::format("delete tunnel \"{}\" failed: {}", *a.name, e.reason()));
  }
  return kExitOk;
}

// ---- 6rd --------------------------------------------------------------------------------------

/// ip's do_6rd: SIOCADD6RD sets both prefixes (the one not given: ::/0, 0.0.0.0/0), SIOCDEL6RD
/// puts back the default (2002::/16, no relay prefix); the last word decides which. fastlink sets
/// the same over rtnetlink: a sit's change carries all its options (the kernel resets what one
/// does not), so the tunnel's are read first and sent back with the new prefixes.
int sixrd(Context& ctx, Args& args) {
  enum class Cmd { None, Add, Reset } cmd = Cmd::None;
  Prefix prefix = Prefix::parse("::/0"), relay = Prefix::parse("0.0.0.0/0");
  std::optional<std::string> dev;
  auto parsePrefixOf = [](const std::string& word, bool v6) {
    // ip's get_prefix ends the command (status 1) before its "invalid 6rd_prefix" can be said.
    if (auto p = sixrdPrefix(word, v6)) return *p;
    throw BadValueError(fmt::format("{} prefix is expected rather than \"{}\".", v6 ? "inet6" : "inet", word));
  };
  while (!args.done()) {
    std::string w = args.next();
    if (w == "6rd-prefix") prefix = parsePrefixOf(args.value(w), true), cmd = Cmd::Add;
    else if (w == "6rd-relay_prefix") relay = parsePrefixOf(args.value(w), false), cmd = Cmd::Add;
    else if (w == "6rd-reset") cmd = Cmd::Reset;
    else if (w == "dev") dev = parseIfname(args.value(w), "dev");
    else throw UsageError(fmt::format("Invalid 6RD parameter \"{}\"", w));
  }
  if (!dev) throw UsageError("Must specify device");
  // ip's ioctl numbers, for its message: SIOCADD6RD 0x89f9, SIOCDEL6RD 0x89fa (0: no command).
  const unsigned ioctlNumber = cmd == Cmd::Add ? 0x89f9 : cmd == Cmd::Reset ? 0x89fa : 0;
  auto failed = [&](const std::string& reason) { return fail(fmt::format("{}: ioctl {:x} failed: {}", *dev, ioctlNumber, reason)); };
  if (cmd == Cmd::None) return failed("Invalid argument");
  if (cmd == Cmd::Reset) prefix = Prefix::parse("2002::/16"), relay = Prefix::parse("0.0.0.0/0");
  Netlink& nl = ctx.netlink();
  try {
    std::optional<LinkInfo> current = nl.links().find(Ifref(*dev));
    if (!current) return failed("No such device");
    const IpTunnelInfo* options = current->kindOptions<IpTunnelInfo>();
    // Only a sit has 6rd prefixes; the ioctl on another device fails so.
    if (current->kind != "sit" || !options) return failed("Operation not supported");
    IpTunnelInfo t = *options;
    t.sixrdPrefix = prefix;
    t.sixrdRelayPrefix = relay;
    LinkInfo link(*dev, "sit");
    link.setKindOptions(t);
    nl.links().set(Ifref(*dev), link);
  } catch (const Error& e) {
    return failed(e.reason());
  }
  return kExitOk;
}

// ---- prl --------------------------------------------------------------------------------------

/// ip's do_prl: one entry at a time (prl-default ADDR | prl-nodefault ADDR | prl-delete ADDR)
/// on `dev NAME`, an ISATAP tunnel's potential router list, by the sit driver's ioctls
/// (IPrlApi: the library's PrlApi). ip's words and statuses: a word it does not know, two entries
/// or no device end the command with 255; an address that is not IPv4 with 1; a refused ioctl
/// with 1 and "NAME: ioctl NUMBER failed: ERRNO TEXT" (0x89f5 SIOCADDPRL, 0x89f6 SIOCDELPRL;
/// no entry at all is ip's ioctl 0, which every kernel refuses with ENOTTY).
int prl(Context& ctx, Args& args) {
  enum class Cmd { None, Add, Delete } cmd = Cmd::None;
  bool isDefault = false;
  IpAddress router = IpAddress::parse("0.0.0.0");
  std::optional<std::string> dev;
  int entries = 0;
  auto address = [](const std::string& keyword, const std::string& word) {
    // get_addr32: default, all and any are 0.0.0.0 (prl-delete's "every router").
    if (word == "default" || word == "all") return IpAddress::parse("0.0.0.0");
    return parseEndpoint(keyword, word, false);
  };
  while (!args.done()) {
    std::string w = args.next();
    if (w == "prl-default" || w == "prl-nodefault") {
      router = address(w, args.value(w));
      cmd = Cmd::Add;
      isDefault = isDefault || w == "prl-default";  // ip ORs PRL_DEFAULT in
      ++entries;
    } else if (w == "prl-delete") {
      router = address(w, args.value(w));
      cmd = Cmd::Delete;
      ++entries;
    } else if (w == "dev") {
      dev = parseIfname(args.value(w), "dev");
    } else {
      throw UsageError(fmt::format("Invalid PRL parameter \"{}\"", w));
    }
    if (entries > 1) throw UsageError("One PRL entry at a time");
  }
  if (!dev) throw UsageError("Must specify device");
  const unsigned ioctlNumber = cmd == Cmd::Add ? SIOCADDPRL : cmd == Cmd::Delete ? SIOCDELPRL : 0;
  if (cmd == Cmd::None)
    return fail(fmt::format("{}: ioctl 0 failed: {}", *dev, std::make_error_code(std::errc::inappropriate_io_control_operation).message()));
  try {
    IPrlApi& routers = ctx.netlink().potentialRouters();
    if (cmd == Cmd::Add) routers.add(*dev, router, isDefault);
    else routers.remove(*dev, router);
  } catch (const Error& e) {
    // The library's error names the request ("ip tunnel prl prl-default ADDR dev NAME"); ip's
    // message names the device and the ioctl, and scripts match it.
    return fail(fmt::format("{}: ioctl {:x} failed: {}", *dev, ioctlNumber, e.code().message()));
  }
  return kExitOk;
}

// ---- show -------------------------------------------------------------------------------------

/// tnl_strproto: the inner protocol's word in `MODE/ip` and `MODE/ipv6`.
std::string protoName(uint8_t proto) {
  switch (proto) {
    case IPPROTO_IPIP: return "ip";
    case IPPROTO_GRE: return "gre";
    case IPPROTO_IPV6: return "ipv6";
    case IPPROTO_ESP: return "esp";
    case IPPROTO_MPLS: return "mpls";
    case 0: return "any";
  }
  return "unknown";
}

std::string v4Text(const std::optional<IpAddress>& ip) { return ip ? ip->toString() : std::string("0.0.0.0"); }

/// tnl_print_gre_flags: keys (decimal), then GRE's flags on lines of their own (a list in JSON).
void writeKeys(FieldOut& f, bool gre, const std::optional<uint32_t>& ikey, const std::optional<uint32_t>& okey, bool iseq,
               bool icsum, bool oseq, bool ocsum) {
  if (ikey && okey && *ikey == *okey) {
    f.any("key", " key {}", *ikey);
  } else {
    if (ikey) f.any("ikey", " ikey {}", *ikey);
    if (okey) f.any("okey", " okey {}", *okey);
  }
  if (!gre) return;
  nlohmann::ordered_json flags = nlohmann::ordered_json::array();
  if (iseq) flags.push_back("rx_drop_ooseq"), f.text("\n  Drop packets out of sequence.");
  if (icsum) flags.push_back("rx_csum"), f.text("\n  Checksum in received packet is required.");
  if (oseq) flags.push_back("tx_seq"), f.text("\n  Sequence packets on output.");
  if (ocsum) flags.push_back("tx_csum"), f.text("\n  Checksum output packets.");
  f.json("flags", flags);
}

/// An ISATAP tunnel's potential router list, as ip's print_tunnel reads it (SIOCGETPRL with room
/// for 15 entries); nothing when the read fails, as ip prints nothing then.
using RouterLists = std::map<std::string, std::vector<PotentialRouter>>;

/// What the tunnel kinds' options name alike, from whichever kind `l` is.
struct Common {
  std::optional<IpAddress> local, remote;
  std::optional<Ifref> dev;
  std::optional<uint32_t> ikey;  ///< not ipip's and sit's
  uint8_t ttl = 0, tos = 0;      ///< gre's, ipip's and sit's
  bool pmtudisc = true;
};

Common commonOf(const LinkInfo& l) {
  Common c;
  auto read = [&c](const auto* o) {
    if (!o) return;
    c.local = o->local, c.remote = o->remote, c.dev = o->dev;
    if constexpr (requires { o->ikey; }) c.ikey = o->ikey;
    // vti's ioctl reports no ttl or tos, and DF only as ip's own ioctl set it (a vti made over
    // rtnetlink has none: "nopmtudisc").
    if constexpr (requires { o->pmtudisc; }) c.ttl = o->ttl.value_or(0), c.tos = o->tos.value_or(0), c.pmtudisc = o->pmtudisc.value_or(true);
    else c.pmtudisc = false;
  };
  read(l.kindOptions<GreInfo>());
  read(l.kindOptions<IpTunnelInfo>());
  read(l.kindOptions<Ip6TunnelInfo>());
  read(l.kindOptions<VtiInfo>());
  return c;
}

/// print_tunnel of iptunnel.c.
void writeV4(FieldOut& f, const LinkInfo& l, const std::map<uint32_t, std::string>& names, const RouterLists& routers) {
  const Common c = commonOf(l);
  const GreInfo* g = l.kindOptions<GreInfo>();
  const IpTunnelInfo* t = l.kindOptions<IpTunnelInfo>();
  const VtiInfo* vti = l.kindOptions<VtiInfo>();
  const std::string& kind = *l.kind;
  f.any("ifname", "{}: ", l.name.value_or(""));
  // The inner protocol as the kernel reports it (ip's ioctl reads iph.protocol): ipip and sit
  // keep IFLA_IPTUN_PROTO raw, and `ip link add type ipip` makes 0, "any".
  uint8_t proto = kind == "gre" ? uint8_t{IPPROTO_GRE} : kind == "sit" ? uint8_t{IPPROTO_IPV6} : uint8_t{IPPROTO_IPIP};
  if (t && t->proto) proto = *t->proto;
  f.any("mode", "{} ", protoName(proto) + "/ip");
  f.text("remote ").any("remote", v4Text(c.remote), "{} ", tunnelEndpoint(c.remote));
  f.text("local ").any("local", v4Text(c.local), "{}", tunnelEndpoint(c.local));
  // ` pdr ADDR` (a default router) or ` pr ADDR` per entry. ip's JSON repeats the key for each;
  // a JSON object here holds one value per key, the last.
  if (auto it = routers.find(l.name.value_or("")); it != routers.end())
    for (const PotentialRouter& r : it->second) {
      if (r.isDefault) f.any("pdr", " pdr {}", r.address.toString());
      else f.any("pr", " pr {}", r.address.toString());
    }
  if (c.dev && c.dev->isIndex() && c.dev->index())
    if (auto it = names.find(c.dev->index()); it != names.end()) f.any("dev", " dev {}", it->second);
  if (c.ttl) f.any("ttl", " ttl {}", unsigned{c.ttl});
  else f.text(" ttl inherit");
  if (c.tos) {
    if (c.tos == 1) f.text(" tos inherit");
    else if (!f.isJson() && (c.tos & 1)) f.text(" tos inherit/0x{:02x}", c.tos & ~1);
    else f.any("tos", " tos {}", fmt::format("0x{:02x}", c.tos));
  }
  if (!c.pmtudisc) f.any("nopmtudisc", nullptr, "{}", std::string(" nopmtudisc"));
  if (kind == "sit" && proto == IPPROTO_IPV6 && t && t->sixrdPrefix && t->sixrdPrefix->length()) {
    // ip asks for the 6rd prefix only for a tunnel of IPv6 (not `any`).
    f.any("6rd-prefix", " 6rd-prefix {}", t->sixrdPrefix->address().toString());
    f.any("6rd-prefixlen", "/{}", unsigned{t->sixrdPrefix->length()});
    if (const auto& r = t->sixrdRelayPrefix; r && !isUnspecified(r->address())) {
      f.any("6rd-relay_prefix", " 6rd-relay_prefix {}", r->address().toString());
      f.any("6rd-relay_prefixlen", "/{}", unsigned{r->length()});
    }
  }
  if (g) writeKeys(f, true, g->ikey, g->okey, g->iseq.value_or(false), g->icsum.value_or(false), g->oseq.value_or(false),
                   g->ocsum.value_or(false));
  // vti's ioctl sets GRE_KEY on both directions whatever the keys are.
  if (vti) writeKeys(f, false, vti->ikey.value_or(0), vti->okey.value_or(0), false, false, false, false);
}

/// print_tunnel of ip6tunnel.c.
void writeV6(FieldOut& f, const LinkInfo& l, const std::map<uint32_t, std::string>& names) {
  Ip6TunnelInfo t;
  if (const auto* o = l.kindOptions<Ip6TunnelInfo>()) t = *o;
  // vti6's ioctl fills only the endpoints, the device and the keys of an ip6tnl's parameters
  // (vti6_parm_to_user), a key flagged when it is not 0: IPv6 in IPv6, the rest zero.
  if (const auto* v = l.kindOptions<VtiInfo>()) {
    t.local = v->local, t.remote = v->remote, t.dev = v->dev;
    if (v->ikey.value_or(0)) t.ikey = v->ikey;
    if (v->okey.value_or(0)) t.okey = v->okey;
  }
  bool gre = *l.kind == "ip6gre";
  uint8_t proto = gre ? uint8_t{IPPROTO_GRE} : t.proto.value_or(uint8_t{IPPROTO_IPV6});
  std::string mode = protoName(proto) + "/ipv6";
  auto v6 = [](const std::optional<IpAddress>& ip) { return ip ? ip->toString() : std::string("::"); };
  uint32_t flags = t.flags.value_or(0), flowinfo = t.flowinfo.value_or(0);
  f.any("ifname", "{}: ", l.name.value_or(""));
  f.any("mode", "{} ", mode);
  f.text("remote ").any("remote", "{} ", v6(t.remote));
  f.text("local ").any("local", "{}", v6(t.local));
  if (t.dev && t.dev->isIndex() && t.dev->index())
    if (auto it = names.find(t.dev->index()); it != names.end()) f.any("link", " dev {}", it->second);
  if (flags & Ip6TunnelInfo::kIgnoreEncapLimit) f.any("ip6_tnl_f_ign_encap_limit", nullptr, "{}", std::string(" encaplimit none"));
  else f.any("encap_limit", " encaplimit {}", unsigned{t.encapLimit.value_or(0)});
  if (t.hoplimit.value_or(0)) f.any("hoplimit", " hoplimit {}", unsigned{*t.hoplimit});
  else f.text(" hoplimit inherit");
  if (flags & Ip6TunnelInfo::kUseOrigTclass) f.any("ip6_tnl_f_use_orig_tclass", nullptr, "{}", std::string(" tclass inherit"));
  else f.any("tclass", " tclass {}", fmt::format("0x{:02x}", (flowinfo & Ip6TunnelInfo::kTclassMask) >> 20));
  if (flags & Ip6TunnelInfo::kUseOrigFlowlabel)
    f.any("ip6_tnl_f_use_orig_flowlabel", nullptr, "{}", std::string(" flowlabel inherit"));
  else f.any("flowlabel", " flowlabel {}", fmt::format("0x{:05x}", flowinfo & Ip6TunnelInfo::kFlowlabelMask));
  f.any("flowinfo", " (flowinfo {})", fmt::format("0x{:08x}", flowinfo));
  if (flags & Ip6TunnelInfo::kRcvDscpCopy) f.any("ip6_tnl_f_rcv_dscp_copy", nullptr, "{}", std::string(" dscp inherit"));
  if (flags & Ip6TunnelInfo::kAllowLocalRemote)
    f.any("ip6_tnl_f_allow_local_remote", nullptr, "{}", std::string(" allow-localremote"));
  writeKeys(f, gre, t.ikey, t.okey, t.iseq.value_or(false), t.icsum.value_or(false), t.oseq.value_or(false),
            t.ocsum.value_or(false));
}

/// ip's match of a listed tunnel against the line's selectors (name, dev, endpoints, key, mode).
bool selected(const TunnelArgs& a, const LinkInfo& l, std::optional<uint32_t> devIndex) {
  if (a.name && l.name != a.name) return false;
  const Common c = commonOf(l);
  auto same = [](const std::optional<IpAddress>& want, const std::optional<IpAddress>& have) {
    return !want || isUnspecified(*want) || (have && *have == *want);
  };
  if (!same(a.local, c.local) || !same(a.remote, c.remote)) return false;
  if (devIndex && !(c.dev && c.dev->isIndex() && c.dev->index() == *devIndex)) return false;
  if (a.ikey && c.ikey != a.ikey) return false;
  if (a.v6 && a.kind && *a.kind != *l.kind) return false;
  if (a.v6 && a.proto && l.kindOptions<Ip6TunnelInfo>() && *l.kind == "ip6tnl" &&
      l.kindOptions<Ip6TunnelInfo>()->proto.value_or(IPPROTO_IPV6) != *a.proto && *a.proto != 0)
    return false;
  return true;
}

int show(Context& ctx, Args& args, bool v6) {
  TunnelArgs a = parseArgs(args, v6);
  Netlink& nl = ctx.netlink();
  std::optional<uint32_t> devIndex;
  if (a.dev) {
    devIndex = nl.links().findIndex(*a.dev);
    if (!devIndex) return fail(fmt::format("Cannot find device \"{}\"", *a.dev));
  }
  std::vector<LinkInfo> tunnels;
  std::map<uint32_t, std::string> names;
  try {
    LinkFilter all;
    all.withStats = ctx.options().stats > 0;
    for (LinkInfo& l : nl.links().list(all)) {
      if (l.index && l.name) names[*l.index] = *l.name;
      if (l.kind && isKindOf(*l.kind, v6) && selected(a, l, devIndex)) tunnels.push_back(std::move(l));
    }
  } catch (const Error& e) {
    return reportFailure(e);
  }
  // ip -4 names a tunnel by the ioctl on it: one that is not there (or no tunnel) fails.
  if (!v6 && a.name && tunnels.empty())
    return fail(fmt::format("get tunnel \"{}\" failed: No such device", *a.name));
  bool stats = ctx.options().stats > 0 && (v6 || !a.name);  // ip -4 prints a named tunnel without them
  // ip reads the router list of each ISATAP tunnel it prints (of IPv6 in IPv4, SIT_ISATAP set).
  RouterLists routers;
  if (!v6)
    for (const LinkInfo& l : tunnels) {
      const IpTunnelInfo* t = l.kindOptions<IpTunnelInfo>();
      if (*l.kind != "sit" || !t || !(t->flags.value_or(0) & IpTunnelInfo::kIsatap) || t->proto.value_or(IPPROTO_IPV6) != IPPROTO_IPV6 ||
          !l.name)
        continue;
      try {
        std::vector<PotentialRouter> list = nl.potentialRouters().list(*l.name);
        if (list.size() > 15) list.resize(15);
        routers[*l.name] = std::move(list);
      } catch (const Error&) {
      }
    }
  auto write = [&](FieldOut& f, const LinkInfo& l) {
    if (v6) writeV6(f, l, names);
    else writeV4(f, l, names, routers);
    // tnl_print_stats: text only (ip prints it into its JSON too, breaking it).
    if (stats && l.stats) {
      const LinkStats& s = *l.stats;
      f.text("\nRX: Packets    Bytes        Errors CsumErrs OutOfSeq Mcasts\n    {:<10} {:<12} {:<6} {:<8} {:<8} {:<8}",
             s.rxPackets, s.rxBytes, s.rxErrors, s.rxFrameErrors, s.rxFifoErrors, s.multicast);
      f.text("\nTX: Packets    Bytes        Errors DeadLoop NoRoute  NoBufs\n    {:<10} {:<12} {:<6} {:<8} {:<8} {:<6}",
             s.txPackets, s.txBytes, s.txErrors, s.collisions, s.txCarrierErrors, s.txDropped);
    }
  };
  if (ctx.options().json && !ctx.options().pretty) {
    // ip ends each tunnel with a newline, in JSON too (`[{...}\n,{...}\n]`): the same bytes.
    std::string out = "[";
    for (const LinkInfo& l : tunnels) {
      nlohmann::ordered_json j = nlohmann::ordered_json::object();
      FieldOut f(j);
      write(f, l);
      out += (out.size() > 1 ? "," : "") + j.dump() + "\n";
    }
    std::fputs((out + "]\n").c_str(), stdout);
    return kExitOk;
  }
  if (v6 && a.name && !stats && !ctx.options().json) {
    // ip -6 prints a named tunnel without the newline that ends a listed one.
    std::string text;
    FieldOut f(text);
    for (const LinkInfo& l : tunnels) write(f, l);
    std::fputs(text.c_str(), stdout);
    return kExitOk;
  }
  printRecords(tunnels, ctx.options().json, ctx.options().pretty, write);
  return kExitOk;
}

// ---- the verbs --------------------------------------------------------------------------------

int runTunnel(Context& ctx, Args& args) {
  // ip's do_iptunnel: a `mode` of IPv6 (or -6) selects ip6tunnel.c's grammar and print.
  std::vector<std::string> words;
  while (!args.done()) words.push_back(args.next());
  bool v6 = ctx.options().family == FamilyOption::Inet6;
  for (std::size_t i = 0; i + 1 < words.size(); ++i)
    if (words[i] == "mode") {
      if (isV6Mode(words[i + 1])) v6 = true;
      break;
    }
  if (ctx.options().family == FamilyOption::Link) throw UsageError("Unsupported protocol family: 0");
  if (words.empty()) {
    Args none(std::vector<std::string>{});
    return show(ctx, none, v6);
  }
  std::string verb = words[0];
  Args rest(std::vector<std::string>(words.begin() + 1, words.end()));
  if (matches(verb, "add")) return add(ctx, rest, v6, false);
  if (matches(verb, "change")) return add(ctx, rest, v6, true);
  if (matches(verb, "delete")) return del(ctx, rest, v6);
  if (matches(verb, "show") || matches(verb, "lst") || matches(verb, "list")) return show(ctx, rest, v6);
  if (!v6 && matches(verb, "prl")) return prl(ctx, rest);
  if (!v6 && matches(verb, "6rd")) return sixrd(ctx, rest);
  if (matches(verb, "help")) return printUsage(kUsage);
  throw UsageError(fmt::format("Command \"{}\" is unknown, try \"fastlink tunnel help\"", verb));
}

/// In -batch: the line runs at its turn (it reads the tunnel before a change, and lists links).
PreparedRequest prepareTunnel(Context& ctx, Args& args) {
  std::vector<std::string> words;
  while (!args.done()) words.push_back(args.next());
  PreparedRequest p;
  p.run = [&ctx, words] {
    Args line(words);
    return runTunnel(ctx, line);
  };
  return p;
}

const Registrar kTunnel{
    ObjectCommand{.name = "tunnel", .aliases = {}, .usage = kUsage, .run = runTunnel, .prepare = prepareTunnel}};

}  // namespace
}  // namespace fastlink::cli
