// The `rule` and `mrule` objects: `fastlink [m]rule { add | del | show | flush } ...`, in `ip rule`'s
// grammar; `mrule` is ip's: the same rules in the multicast routing families (RTNL_FAMILY_IPMR,
// with -6 RTNL_FAMILY_IP6MR), which choose the multicast forwarding table of `mroute`.
#include <fmt/format.h>
#include <netdb.h>

#include "kit/args.hpp"
#include "kit/command.hpp"
#include "fastlink/route.hpp"
#include "fastlink/rule.hpp"
#include "kit/ip_compat.hpp"
#include "kit/ip_names.hpp"
#include "kit/fields.hpp"
#include "kit/output.hpp"
#include "rtnl/ip_object.hpp"
#include "rtnl/ip_print.hpp"
#include "rtnl/route_words.hpp"

namespace fastlink::cli {
namespace {

constexpr const char* kUsage = R"(Usage: fastlink rule { add | del } [ -4 | -6 ] SELECTOR ACTION
       fastlink rule { show | list | flush } [ -4 | -6 ] [ SELECTOR ] [ lookup TABLE ]
SELECTOR := [ not ] [ from PREFIX ] [ to PREFIX ] [ tos TOS ] [ fwmark FWMARK[/MASK] ]
            [ iif STRING ] [ oif STRING ] [ pref NUMBER ] [ l3mdev ] [ uidrange NUMBER-NUMBER ]
            [ ipproto PROTOCOL ] [ sport NUMBER[-NUMBER] ] [ dport NUMBER[-NUMBER] ] [ protocol PROTO ]
ACTION := [ lookup TABLE_ID ] [ goto NUMBER ] [ blackhole | unreachable | prohibit | nop ]
          [ suppress_prefixlength NUMBER ] [ suppress_ifgroup GROUP ]
TABLE_ID := [ local | main | default | NAME (rt_tables) | NUMBER ])";

constexpr const char* kMruleUsage = R"(Usage: fastlink [ -6 ] mrule { add | del } SELECTOR ACTION
       fastlink [ -6 ] mrule { show | list | flush } [ SELECTOR ] [ lookup TABLE ]
SELECTOR := [ not ] [ from all ] [ to all ] [ fwmark FWMARK[/MASK] ] [ iif STRING ] [ oif STRING ]
            [ pref NUMBER ] [ l3mdev ] [ uidrange NUMBER-NUMBER ] [ ipproto PROTOCOL ]
            [ sport NUMBER[-NUMBER] ] [ dport NUMBER[-NUMBER] ] [ protocol PROTO ]
ACTION := [ lookup TABLE_ID ] [ goto NUMBER ] [ blackhole | unreachable | prohibit | nop ]
TABLE_ID := [ local | main | default | NAME (rt_tables) | NUMBER ]
Multicast rules choose the multicast forwarding table (mroute); they match no addresses or tos.)";

const char* usageOf(bool multicast) { return multicast ? kMruleUsage : kUsage; }
const char* nounOf(bool multicast) { return multicast ? "mrule" : "rule"; }

/// `from`/`to` of a multicast rule: ip parses the prefix in the multicast family, so only `all`
/// (no address) passes; anything else exits 1, as ip's `??? prefix is expected`.
void refuseMulticastPrefix(std::string_view keyword, std::string_view text) {
  throw BadValueError(fmt::format("mrule: a multicast rule matches no addresses: {} takes only \"all\", not \"{}\"",
                                  keyword, text));
}

// Protocol names as iproute2 reads and prints them: /etc/protocols through libc, "ipproto-N"
// when it has no name, and a few well-known names when /etc/protocols is missing.
struct IpProtoName {
  const char* name;
  uint8_t number;
};
constexpr IpProtoName kIpProtos[] = {{"icmp", 1}, {"igmp", 2}, {"tcp", 6},  {"udp", 17},       {"dccp", 33},
                                     {"gre", 47}, {"esp", 50}, {"ah", 51},  {"ipv6-icmp", 58}, {"sctp", 132},
                                     {"udplite", 136}};

uint8_t parseIpProto(std::string_view text) {
  std::string s(text);
  if (const protoent* p = getprotobyname(s.c_str()); p && p->p_proto >= 0 && p->p_proto <= 255)
    return static_cast<uint8_t>(p->p_proto);
  for (const auto& p : kIpProtos)
    if (text == p.name) return p.number;
  if (text.starts_with("ipproto-")) text.remove_prefix(8);
  return static_cast<uint8_t>(parseInteger(text, "ipproto", 0, 255));
}

std::string ipProtoName(uint8_t number) {
  if (const protoent* p = getprotobynumber(number)) return p->p_name;
  return "ipproto-" + std::to_string(number);
}

/// `tos`/`dsfield`: hexadecimal with or without 0x, as ip's rtnl_dsfield_a2n (`tos 16` is 0x16).
uint8_t parseDsfield(std::string_view text) {
  std::string hex = text.starts_with("0x") || text.starts_with("0X") ? std::string(text) : "0x" + std::string(text);
  return static_cast<uint8_t>(parseInteger(hex, "tos", 0, 255));
}

std::pair<uint64_t, uint64_t> parseRange(std::string_view text, std::string_view keyword, uint64_t max) {
  auto dash = text.find('-');
  uint64_t a = parseInteger(text.substr(0, dash), keyword, 0, max);
  uint64_t b = dash == std::string_view::npos ? a : parseInteger(text.substr(dash + 1), keyword, 0, max);
  if (b < a) throw UsageError(fmt::format("{}: range {} is empty", keyword, text));
  return {a, b};
}

std::optional<Prefix> parsePrefixOrAll(std::string_view text, std::string_view keyword) {
  if (text == "all") return std::nullopt;
  return parsePrefixAs(keyword, text);  // ip: 1 for a prefix it cannot read; `10.2/16` as ip reads it
}

/// The selector words `rule add/del` and `rule show` share (all but from/to, whose family checks
/// differ): tos, fwmark, iif/dev, oif, pref, l3mdev, uidrange, ipproto, sport, dport, protocol.
/// Returns false when the next word is none of them.
bool parseSelectorWord(Args& args, RuleInfo& r) {
  if (args.acceptAny({"tos", "dsfield"})) r.tos = parseDsfield(args.value("tos"));
  else if (args.accept("fwmark")) {
    std::string text = args.value("fwmark");
    auto slash = text.find('/');
    r.fwmark = parseU32(text.substr(0, slash), "fwmark");
    if (slash != std::string::npos) r.fwmask = parseU32(text.substr(slash + 1), "fwmark mask");
  } else if (args.acceptAny({"iif", "dev"})) r.iif = parseIfname(args.value("iif"), "iif");
  else if (args.accept("oif")) r.oif = parseIfname(args.value("oif"), "oif");
  else if (args.acceptAny({"pref", "priority", "preference", "order"})) r.priority = parseU32(args.value("pref"), "pref");
  else if (args.accept("l3mdev")) r.l3mdev = true;
  else if (args.accept("uidrange")) {
    auto [a, b] = parseRange(args.value("uidrange"), "uidrange", UINT32_MAX);
    r.uidRange = UidRange{static_cast<uint32_t>(a), static_cast<uint32_t>(b)};
  } else if (args.accept("ipproto")) r.ipProto = parseIpProto(args.value("ipproto"));
  else if (args.accept("sport")) {
    auto [a, b] = parseRange(args.value("sport"), "sport", 65535);
    r.sport = PortRange{static_cast<uint16_t>(a), static_cast<uint16_t>(b)};
  } else if (args.accept("dport")) {
    auto [a, b] = parseRange(args.value("dport"), "dport", 65535);
    r.dport = PortRange{static_cast<uint16_t>(a), static_cast<uint16_t>(b)};
  } else if (args.acceptAny({"protocol", "proto"})) {  // ip's matches(): `proto` too
    r.protocol = static_cast<uint8_t>(parseRouteProtocol(args.value("protocol"), "protocol"));
  } else {
    return false;
  }
  return true;
}

RuleInfo parseRule(Args& args, bool multicast) {
  RuleInfo r;
  r.multicast = multicast;
  while (!args.done()) {
    if (args.accept("-4")) r.family = IpAddress::Family::v4;
    else if (args.accept("-6")) r.family = IpAddress::Family::v6;
    else if (args.accept("not")) r.invert = true;
    else if (args.accept("from")) {
      std::string text = args.value("from");
      if (multicast && text != "all") refuseMulticastPrefix("from", text);
      r.src = parsePrefixOrAll(text, "from");
    } else if (args.accept("to")) {
      std::string text = args.value("to");
      if (multicast && text != "all") refuseMulticastPrefix("to", text);
      r.dst = parsePrefixOrAll(text, "to");
    } else if (parseSelectorWord(args, r)) {
    } else if (args.acceptAny({"table", "lookup"})) r.table = parseRouteTable(args.value("table"));
    else if (args.accept("goto")) r.setGoto(parseU32(args.value("goto"), "goto"));
    else if (args.accept("type")) {  // ip: `type blackhole`, the action word after it
      std::string word = args.value("type");
      if (word == "blackhole") r.action = RuleAction::Blackhole;
      else if (word == "unreachable") r.action = RuleAction::Unreachable;
      else if (word == "prohibit") r.action = RuleAction::Prohibit;
      else if (word == "nop") r.action = RuleAction::Nop;
      else throw UsageError(fmt::format("type: \"{}\" is not a rule action (blackhole, unreachable, prohibit, nop)", word));
    } else if (args.accept("blackhole")) r.action = RuleAction::Blackhole;
    else if (args.accept("unreachable")) r.action = RuleAction::Unreachable;
    else if (args.accept("prohibit")) r.action = RuleAction::Prohibit;
    else if (args.accept("nop")) r.action = RuleAction::Nop;
    else if (args.accept("suppress_prefixlength"))
      r.suppressPrefixLength = parseU32(args.value("suppress_prefixlength"), "suppress_prefixlength", 0, 128);
    else if (args.accept("suppress_ifgroup")) r.suppressIfgroup = parseU32(args.value("suppress_ifgroup"), "suppress_ifgroup");
    else if (args.peek() == "help") throw UsageError(usageOf(multicast));
    else args.unknown(fmt::format("see \"fastlink {} help\"", nounOf(multicast)));
  }
  return r;
}

/// ip's -0 / -f link with mrule: "Multicast rules are only supported for IPv4/IPv6" (255).
void requireIpFamilyForMulticast(const Context& ctx) {
  FamilyOption f = ctx.options().family;
  if (f != FamilyOption::Any && f != FamilyOption::Inet && f != FamilyOption::Inet6)
    throw UsageError("mrule: multicast rules are only supported for IPv4/IPv6 (-4 or -6)");
}

/// A -batch flush line (defined with show's selectors below).
PreparedRequest prepareRuleFlush(Context& ctx, Args& args, bool multicast);

PreparedRequest prepareRuleKind(Context& ctx, Args& args, bool multicast) {
  const char* noun = nounOf(multicast);
  if (multicast) requireIpFamilyForMulticast(ctx);
  if (args.done()) throw UsageError(fmt::format("{}: a verb is required (add, del, show, flush)", noun));
  if (args.peek() == "help") throw UsageError(usageOf(multicast));
  bool add = false;
  if (args.acceptAny({"add", "insert"})) add = true;
  else if (args.acceptAny({"del", "delete"})) {
    // A delete without a selector would remove the kernel's first deletable rule: ip refuses it (1).
    if (args.done()) throw BadValueError(fmt::format("\"{} del\" requires arguments.", noun));
  } else if (args.accept("flush")) {
    // ip runs a flush line at its turn: the selectors read now, the rules listed and deleted then.
    return prepareRuleFlush(ctx, args, multicast);
  } else if (args.acceptAny({"show", "list", "ls", "lst"}))
    throw UsageError(fmt::format("{} show cannot be used in a batch (a batch sends changes and flushes)", noun));
  else args.unknown(fmt::format("{} verbs: add, del, show, flush", noun));
  RuleInfo r = parseRule(args, multicast);
  // -4/-6 before the object chooses the rule's family, as ip's preferred_family: `ip -6 rule add
  // tos 0x10 ...` makes an IPv6 rule. A prefix of the other family is refused, as ip does.
  if (!r.family) r.family = familyOption(ctx);
  for (const auto& prefix : {r.src, r.dst})
    if (prefix) requireFamily(ctx, prefix->address().family(), prefix->toString(), "prefix");
  PreparedRequest p;
  p.encode = [r, add](Resolver&) { return add ? RuleRequests::add(r) : RuleRequests::del(r); };
  return p;
}

PreparedRequest prepareRule(Context& ctx, Args& args) { return prepareRuleKind(ctx, args, false); }
PreparedRequest prepareMrule(Context& ctx, Args& args) { return prepareRuleKind(ctx, args, true); }

// ---- show ----------------------------------------------------------------------------------------

std::string hex(uint32_t v) { return fmt::format("{:#x}", v); }

constexpr uint32_t kFlagUnresolved = 0x4;    // FIB_RULE_UNRESOLVED: goto target missing
constexpr uint32_t kFlagIifDetached = 0x8;   // FIB_RULE_IIF_DETACHED: iif does not exist
constexpr uint32_t kFlagOifDetached = 0x10;  // FIB_RULE_OIF_DETACHED
constexpr uint8_t kProtoKernel = 2;

bool hasFlag(const RuleInfo& r, uint32_t flag) { return (r.flags.value_or(0) & flag) != 0; }

/// Like iproute2: the protocol is shown when it is neither unset (0) nor "kernel", and with -d
/// whatever it is (`proto unspec` for a rule added without one).
bool showProtocol(const RuleInfo& r, bool details) {
  return r.protocol && (details || (*r.protocol && *r.protocol != kProtoKernel));
}

}  // namespace

/// One rule in ip's words and -j keys (iprule.c's print_rule): `PRIO:\tfrom ...` in text; in
/// JSON the prefixes' lengths apart and l3mdev among the selectors.
void writeRule(FieldOut& f, const RuleInfo& r, bool details) {
  f.any("priority", "{}:\t", r.priority.value_or(0));
  if (r.invert.value_or(false)) f.json("not", nullptr).text("not ");
  // Prefix::toString prints a host prefix without its length, like iproute2.
  if (r.src) f.json("src", r.src->address().toString()).json("srclen", r.src->length()).text("from {}", r.src->toString());
  else f.any("src", "from {}", std::string("all"));
  if (r.dst) f.json("dst", r.dst->address().toString()).json("dstlen", r.dst->length()).text(" to {}", r.dst->toString());
  if (r.tos) f.any("tos", " tos {}", ipDsfieldName(*r.tos));  // rt_dsfield's name (AF11), else hex, as ip
  if (r.fwmark || r.fwmask) {
    f.any("fwmark", " fwmark {}", hex(r.fwmark.value_or(0)));
    if (r.fwmask && *r.fwmask != UINT32_MAX) f.any("fwmask", "/{}", hex(*r.fwmask));
  }
  if (r.iif) f.any("iif", " iif {}", *r.iif);
  if (r.iif && hasFlag(r, kFlagIifDetached)) f.json("iif_detached", nullptr).text(" [detached]");
  if (r.oif) f.any("oif", " oif {}", *r.oif);
  if (r.oif && hasFlag(r, kFlagOifDetached)) f.json("oif_detached", nullptr).text(" [detached]");
  const bool l3mdev = r.l3mdev.value_or(false);
  if (l3mdev) f.json("l3mdev", nullptr);
  if (r.uidRange)
    f.json("uid_start", r.uidRange->start).json("uid_end", r.uidRange->end).text(" uidrange {}-{}", r.uidRange->start, r.uidRange->end);
  if (r.ipProto) f.any("ipproto", " ipproto {}", ipProtoName(*r.ipProto));
  for (auto [key, range] : {std::pair{"sport", r.sport}, std::pair{"dport", r.dport}}) {
    if (!range) continue;
    if (range->start == range->end) f.json(key, range->start).text(" {} {}", key, range->start);
    else
      f.json((std::string(key) + "_start").c_str(), range->start)
          .json((std::string(key) + "_end").c_str(), range->end)
          .text(" {} {}-{}", key, range->start, range->end);
  }
  // What ip's text leaves out, written nowhere: the action beside l3mdev (whose table the text
  // names instead), a suppressor of a rule that looks up no table in JSON.
  std::string dropped;
  FieldOut nowhere(dropped);
  FieldOut& act = l3mdev && !f.isJson() ? nowhere : f;
  RuleAction action = r.action.value_or(RuleAction::ToTable);
  if (l3mdev) f.text(" lookup [l3mdev-table]");
  if (action == RuleAction::ToTable) {
    if (r.table) act.any("table", " lookup {}", ipTableName(*r.table));
  } else if (action == RuleAction::Goto) {
    act.any("goto", " goto {}", r.gotoTarget.value_or(0));
    if (hasFlag(r, kFlagUnresolved)) act.json("unresolved", nullptr).text(" [unresolved]");
  } else {
    act.any("action", " {}", ruleActionName(action));
  }
  FieldOut& suppress = action == RuleAction::ToTable || !f.isJson() ? f : nowhere;
  if (r.suppressPrefixLength) suppress.any("suppress_prefixlen", " suppress_prefixlength {}", *r.suppressPrefixLength);
  if (r.suppressIfgroup) suppress.any("suppress_ifgroup", " suppress_ifgroup {}", *r.suppressIfgroup);
  if (showProtocol(r, details)) f.any("protocol", " proto {}", ipProtocolName(static_cast<RouteProtocol>(*r.protocol)));
}

namespace {

/// The selectors of `rule show` that the library's filter has not (iprule.c's filter_nlmsg):
/// `from`/`to` P (rules whose prefix lies inside P), `tos`, `fwmark M[/MASK]`, `not`, `l3mdev`,
/// `uidrange`, `ipproto`, `sport`, `dport`, `protocol` (each compared for equality).
struct RuleSelectors {
  RuleInfo want;

  static bool inside(const std::optional<Prefix>& selector, const std::optional<Prefix>& rule, IpAddress::Family family) {
    if (!selector) return true;
    Prefix p = rule.value_or(Prefix::any(family));
    return p.family() == selector->family() && p.length() >= selector->length() && selector->contains(p.address());
  }
  bool admits(const RuleInfo& r) const {
    IpAddress::Family family = r.effectiveFamily();
    if (!inside(want.src, r.src, family) || !inside(want.dst, r.dst, family)) return false;
    if (want.tos && r.tos.value_or(0) != *want.tos) return false;
    if (want.fwmark && r.fwmark.value_or(0) != *want.fwmark) return false;
    if (want.fwmask && r.fwmask.value_or(0) != *want.fwmask) return false;
    if (want.invert && !r.invert.value_or(false)) return false;
    if (want.l3mdev && !r.l3mdev.value_or(false)) return false;
    if (want.uidRange && (!r.uidRange || r.uidRange->start != want.uidRange->start || r.uidRange->end != want.uidRange->end))
      return false;
    if (want.ipProto && r.ipProto.value_or(0) != *want.ipProto) return false;
    if (want.sport && r.sport != want.sport) return false;
    if (want.dport && r.dport != want.dport) return false;
    if (want.protocol && r.protocol.value_or(0) != *want.protocol) return false;
    return true;
  }
};

/// `from`/`to` in `rule show`: `all` selects every rule; a bad prefix exits 1, as ip.
std::optional<Prefix> parseShowPrefix(const Context& ctx, const std::string& text) {
  if (text == "all") return std::nullopt;
  return parseIpPrefix(ctx, text);
}

/// `show` and `flush`: the selectors, then each selected rule printed or (flush) deleted. Like
/// ip's flush_rule, flush leaves the rules the kernel reports without a priority (pref 0: the
/// IPv4 `local` rule), and deletes every other one selected, main's and default's included.
/// What a show or flush line selects, read before anything is asked of the kernel (a -batch
/// flush line is read in the batch's first pass and run at its turn).
struct RuleQuery {
  RuleFilter filter;
  RuleSelectors selectors;
};

RuleQuery parseRuleQuery(Context& ctx, Args& args, bool multicast, bool flush) {
  RuleFilter filter;
  filter.multicast = multicast;
  filter.family = familyOption(ctx).value_or(IpAddress::Family::v4);  // like `ip rule show`, `ip -6 rule show`
  RuleSelectors selectors;
  RuleInfo& want = selectors.want;
  while (!args.done()) {
    if (args.accept("-4")) filter.family = IpAddress::Family::v4;
    else if (args.accept("-6")) filter.family = IpAddress::Family::v6;
    else if (args.acceptAny({"pref", "priority", "preference", "order"})) filter.priority = parseU32(args.value("pref"), "pref");
    else if (args.acceptAny({"table", "lookup"})) filter.table = parseRouteTable(args.value("table"));
    else if (args.acceptAny({"iif", "dev"})) filter.iif = parseIfname(args.value("iif"), "iif");
    else if (args.accept("oif")) filter.oif = parseIfname(args.value("oif"), "oif");
    else if (args.peek() == "from" || args.peek() == "src" || args.peek() == "to" || args.peek() == "dst") {
      const std::string& word = args.next();
      bool from = word == "from" || word == "src";
      std::string text = args.value(from ? "from" : "to");
      if (multicast && text != "all") refuseMulticastPrefix(from ? "from" : "to", text);
      (from ? want.src : want.dst) = parseShowPrefix(ctx, text);
    } else if (args.accept("not")) want.invert = true;
    else if (parseSelectorWord(args, want)) {
    } else if (args.peek() == "help") throw UsageError(usageOf(multicast));
    else  // ip reads any other word as a prefix: status 1
      throw BadValueError(fmt::format("{} {}: \"{}\" is not a selector (pref, lookup, iif, oif, from, to, tos, fwmark, not, "
                                      "l3mdev, uidrange, ipproto, sport, dport, protocol)",
                                      nounOf(multicast), flush ? "flush" : "show", args.peek()));
  }
  // ip parses from/to in the family it lists (IPv4 without -6): another family's prefix exits 1.
  for (const auto& prefix : {want.src, want.dst})
    if (prefix && prefix->family() != *filter.family)
      throw BadValueError(fmt::format("{} prefix is expected rather than \"{}\".",
                                      *filter.family == IpAddress::Family::v6 ? "inet6" : "inet", prefix->toStringWithLength()));
  return {filter, selectors};
}

int runRuleQuery(Context& ctx, const RuleQuery& q, bool flush) {
  const RuleFilter& filter = q.filter;
  const RuleSelectors& selectors = q.selectors;
  if (isOtherFamily()) {
    // -M, -B: ip dumps the rules of that family; the kernel has no rules of either (no fib rules
    // ops: EAFNOSUPPORT), and ip reports it as a failed dump, status 255.
    std::size_t n = 0;
    try {
      n = otherFamilyDumpSize(ctx.netlink(), RTM_GETRULE);
    } catch (const Error& e) {
      std::fflush(stdout);
      fmt::print(stderr, "RTNETLINK answers: {}\nDump terminated\n", e.code().message());
      return kExitUsage;
    }
    if (n) throw UsageError(fmt::format("rule show: the kernel has {} rule(s) of that family, which fastlink cannot print", n));
    if (ctx.options().json) printLine("[]");
    return kExitOk;
  }
  if (flush) {
    std::vector<RuleInfo> doomed;
    for (RuleInfo& r : ctx.netlink().rules().list(filter))
      if (selectors.admits(r) && r.priority.value_or(0) != 0) doomed.push_back(std::move(r));
    for (const RuleInfo& r : doomed) {
      // The listed rule as the key: every field it reported, so the kernel deletes this one.
      RuleInfo key = r;
      key.flags.reset();
      key.unknown = {};
      ctx.netlink().rules().del(key);
    }
    return kExitOk;
  }
  std::optional<JsonArrayWriter> json;
  if (ctx.options().json) json.emplace(stdout, ctx.options().pretty);
  ctx.netlink().rules().forEach(filter, [&](const RuleInfo& r) {
    if (!selectors.admits(r)) return;
    auto write = [&](FieldOut& f) { writeRule(f, r, ctx.options().details); };
    if (json) json->add(writeFields<nlohmann::ordered_json>(write));
    else printLine(writeFields<std::string>(write));
  });
  if (json) json->finish();
  return kExitOk;
}

PreparedRequest prepareRuleFlush(Context& ctx, Args& args, bool multicast) {
  PreparedRequest p;
  p.run = [&ctx, q = parseRuleQuery(ctx, args, multicast, true)] { return runRuleQuery(ctx, q, true); };
  return p;
}

int showRule(Context& ctx, Args& args, bool multicast, bool flush) {
  return runRuleQuery(ctx, parseRuleQuery(ctx, args, multicast, flush), flush);
}

int showRules(Context& ctx, Args& args) { return showRule(ctx, args, false, false); }
int flushRules(Context& ctx, Args& args) { return showRule(ctx, args, false, true); }
int showMrules(Context& ctx, Args& args) { return showRule(ctx, args, true, false); }
int flushMrules(Context& ctx, Args& args) { return showRule(ctx, args, true, true); }

int runRule(Context& ctx, Args& args) {
  return runObject(ctx, args, kUsage, {{{"show", "list", "ls", "lst"}, showRules}, {{"flush"}, flushRules}}, prepareRule);
}

int runMrule(Context& ctx, Args& args) {
  requireIpFamilyForMulticast(ctx);
  if (!args.done() && args.peek() == "help") throw UsageError(kMruleUsage);  // ip mrule help: the usage, status 255
  return runObject(ctx, args, kMruleUsage, {{{"show", "list", "ls", "lst"}, showMrules}, {{"flush"}, flushMrules}},
                   prepareMrule);
}

const Registrar kRule{ObjectCommand{.name = "rule", .aliases = {"ru"}, .usage = kUsage, .run = runRule, .prepare = prepareRule}};
const Registrar kMrule{
    ObjectCommand{.name = "mrule", .aliases = {}, .usage = kMruleUsage, .run = runMrule, .prepare = prepareMrule}};

}  // namespace
}  // namespace fastlink::cli
