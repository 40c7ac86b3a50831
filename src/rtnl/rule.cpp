// Rules: the codec (RuleInfo <-> RTM_NEWRULE/RTM_DELRULE/RTM_GETRULE, fib_rule_hdr + FRA_*), the
// request builders, and the kernel-backed RuleApi over the kit.
#include <sys/socket.h>
#include <linux/fib_rules.h>
#include <linux/rtnetlink.h>

#include <cstring>

#include "fastlink/netlink.hpp"
#include "fastlink/route.hpp"
#include "fastlink/rule.hpp"
#include "rtnl/kit.hpp"
#include "rtnl/rule_codec.hpp"

namespace fastlink::rtnl {
namespace {

constexpr uint32_t kTableMain = 254;  // RT_TABLE_MAIN

void checkIfname(const auto& operation, const char* what, const std::string& name) {
  try {
    validateIfname(name);
  } catch (const Error& e) {
    throw invalid(operation, std::string(what) + ": " + e.reason());
  }
}

std::string describe(Verb verb, const RuleInfo& r) {
  std::string s = std::string("rule ") + verbWord(verb);
  if (r.effectiveFamily() == IpAddress::Family::v6) s = std::string("-6 ") + s;
  if (r.priority) s += " pref " + std::to_string(*r.priority);
  if (r.invert.value_or(false)) s += " not";
  if (r.src) s += " from " + r.src->toStringWithLength();
  if (r.dst) s += " to " + r.dst->toStringWithLength();
  if (r.fwmark) s += " fwmark " + std::to_string(*r.fwmark);
  if (r.iif) s += " iif " + *r.iif;
  if (r.oif) s += " oif " + *r.oif;
  if (r.l3mdev.value_or(false)) s += " l3mdev";
  if (r.table) s += " lookup " + std::to_string(*r.table);
  if (r.action && *r.action != RuleAction::ToTable) s += " " + ruleActionName(*r.action);
  if (r.gotoTarget) s += " " + std::to_string(*r.gotoTarget);
  return s;
}

}  // namespace

Request encodeRule(const RuleInfo& r, Verb verb) {
  bool add = verb == Verb::Add;
  auto operation = [&] { return describe(verb, r); };
  IpAddress::Family family = r.effectiveFamily();
  for (const auto* p : {&r.src, &r.dst}) {
    if (*p && (*p)->family() != family)
      throw invalid(operation, "an " + std::string(familyWord(family)) + " rule cannot match the " + familyWord((*p)->family()) +
                                   " prefix " + (*p)->toStringWithLength());
  }
  if (r.iif) checkIfname(operation, "iif", *r.iif);
  if (r.oif) checkIfname(operation, "oif", *r.oif);
  if (r.fwmask && !r.fwmark) throw invalid(operation, "a fwmark mask needs a fwmark (fwmark M/MASK)");
  if (r.uidRange && r.uidRange->start > r.uidRange->end)
    throw invalid(operation, "uidrange " + std::to_string(r.uidRange->start) + "-" + std::to_string(r.uidRange->end) +
                                 " is empty (start > end)");
  if (r.sport && r.sport->start > r.sport->end) throw invalid(operation, "sport range is empty (start > end)");
  if (r.dport && r.dport->start > r.dport->end) throw invalid(operation, "dport range is empty (start > end)");
  if ((r.sport || r.dport) && r.ipProto && *r.ipProto != 6 && *r.ipProto != 17 && *r.ipProto != 132 && *r.ipProto != 33)
    throw invalid(operation, "sport/dport need a protocol with ports (tcp, udp, sctp, dccp)");

  std::optional<RuleAction> action = r.action;
  if (r.gotoTarget && action && *action != RuleAction::Goto)
    throw invalid(operation, "goto and " + ruleActionName(*action) + " are exclusive");
  if (r.gotoTarget) action = RuleAction::Goto;
  bool l3mdev = r.l3mdev.value_or(false);
  std::optional<uint32_t> table = r.table;
  if (add) {
    if (!action) action = RuleAction::ToTable;
    if (*action == RuleAction::Goto && !r.gotoTarget) throw invalid(operation, "goto needs a target priority");
    if (*action == RuleAction::Goto && r.priority && *r.gotoTarget <= *r.priority)
      throw invalid(operation, "goto " + std::to_string(*r.gotoTarget) + " must jump forward (past pref " +
                                   std::to_string(*r.priority) + ")");
    if (*action != RuleAction::ToTable && table)
      throw invalid(operation, "a table is only looked up by a lookup rule, not by " + ruleActionName(*action));
    if (l3mdev && table) throw invalid(operation, "l3mdev picks the VRF's table: it takes no table");
    if (l3mdev && *action != RuleAction::ToTable) throw invalid(operation, "l3mdev is a lookup rule");
    if (*action == RuleAction::ToTable && !table && !l3mdev) table = kTableMain;  // like `ip rule add`
    if (*action == RuleAction::ToTable && table && *table == 0) throw invalid(operation, "table 0 (unspec) cannot be looked up");
  }
  if (r.suppressPrefixLength && *r.suppressPrefixLength > (family == IpAddress::Family::v4 ? 32u : 128u))
    throw invalid(operation, "suppress_prefixlength " + std::to_string(*r.suppressPrefixLength) + " exceeds the address width");

  core::MessageWriter w(messageType(verb, RTM_NEWRULE), createFlags(verb));
  auto& frh = w.putHeader<fib_rule_hdr>();
  frh.family = familyOf(family);
  if (r.src) frh.src_len = r.src->length();
  if (r.dst) frh.dst_len = r.dst->length();
  if (r.tos) frh.tos = *r.tos;
  if (action) frh.action = static_cast<uint8_t>(*action);
  if (r.invert.value_or(false)) frh.flags |= FIB_RULE_INVERT;
  // Like iproute2: a table below 256 fits the header, a larger one goes in FRA_TABLE.
  if (table) {
    if (*table < 256) frh.table = static_cast<uint8_t>(*table);
    else frh.table = RT_TABLE_UNSPEC;
  }
  if (r.priority) w.putU32(FRA_PRIORITY, *r.priority);
  if (r.src) w.putBytes(FRA_SRC, r.src->address().bytes());
  if (r.dst) w.putBytes(FRA_DST, r.dst->address().bytes());
  if (r.fwmark) w.putU32(FRA_FWMARK, *r.fwmark);
  if (r.fwmask) w.putU32(FRA_FWMASK, *r.fwmask);
  if (r.iif) w.putString(FRA_IIFNAME, *r.iif);
  if (r.oif) w.putString(FRA_OIFNAME, *r.oif);
  if (table && *table >= 256) w.putU32(FRA_TABLE, *table);
  if (r.gotoTarget) w.putU32(FRA_GOTO, *r.gotoTarget);
  if (r.suppressPrefixLength) w.putU32(FRA_SUPPRESS_PREFIXLEN, *r.suppressPrefixLength);
  if (r.suppressIfgroup) w.putU32(FRA_SUPPRESS_IFGROUP, *r.suppressIfgroup);
  if (l3mdev) w.putU8(FRA_L3MDEV, 1);
  if (r.uidRange) putStruct(w, FRA_UID_RANGE, fib_rule_uid_range{r.uidRange->start, r.uidRange->end});
  if (r.ipProto) w.putU8(FRA_IP_PROTO, *r.ipProto);
  if (r.sport) putStruct(w, FRA_SPORT_RANGE, fib_rule_port_range{r.sport->start, r.sport->end});
  if (r.dport) putStruct(w, FRA_DPORT_RANGE, fib_rule_port_range{r.dport->start, r.dport->end});
  if (r.protocol) w.putU8(FRA_PROTOCOL, *r.protocol);
  return w.toRequest(lazily(verb, r, describe));
}

void encodeRuleDump(core::MessageWriter& w, std::optional<IpAddress::Family> family) {
  auto& frh = w.putHeader<fib_rule_hdr>();
  frh.family = family ? familyOf(*family) : AF_UNSPEC;
}

RuleInfo decodeRule(const nlmsghdr* message) {
  const auto& frh = headerOf<fib_rule_hdr>(message, "rule");
  auto bad = [](const std::string& why) { return malformed("decode rule", why); };
  if (frh.family != AF_INET && frh.family != AF_INET6) throw bad("rule of family " + std::to_string(frh.family));
  RuleInfo r;
  r.family = frh.family == AF_INET ? IpAddress::Family::v4 : IpAddress::Family::v6;
  if (frh.tos) r.tos = frh.tos;
  if (frh.table) r.table = frh.table;
  r.action = static_cast<RuleAction>(frh.action);
  r.flags = frh.flags;
  r.invert = (frh.flags & FIB_RULE_INVERT) != 0;
  r.priority = 0;  // the kernel omits FRA_PRIORITY for priority 0
  auto prefix = [&](const nlattr* a, uint8_t length) {
    auto bytes = core::readBytes(a);
    if (bytes.size() != (frh.family == AF_INET ? 4u : 16u)) throw bad("rule address of the wrong size");
    return Prefix(IpAddress::fromBytes(bytes), length);
  };
  forEachAttr(attrsOf(message, sizeof(fib_rule_hdr)), [&](const nlattr* a) {
    switch (core::attrType(a)) {
      case FRA_PRIORITY: r.priority = core::readU32(a); break;
      case FRA_SRC: r.src = prefix(a, frh.src_len); break;
      case FRA_DST: r.dst = prefix(a, frh.dst_len); break;
      case FRA_IIFNAME: r.iif = core::readString(a); break;
      case FRA_OIFNAME: r.oif = core::readString(a); break;
      case FRA_FWMARK: r.fwmark = core::readU32(a); break;
      case FRA_FWMASK: r.fwmask = core::readU32(a); break;
      case FRA_TABLE: {
        uint32_t table = core::readU32(a);
        if (table) r.table = table;
        else r.table.reset();
        break;
      }
      case FRA_GOTO: r.gotoTarget = core::readU32(a); break;
      case FRA_SUPPRESS_PREFIXLEN: {
        uint32_t v = core::readU32(a);
        if (v != UINT32_MAX) r.suppressPrefixLength = v;
        break;
      }
      case FRA_SUPPRESS_IFGROUP: {
        uint32_t v = core::readU32(a);
        if (v != UINT32_MAX) r.suppressIfgroup = v;
        break;
      }
      case FRA_L3MDEV: r.l3mdev = core::readU8(a) != 0; break;
      case FRA_UID_RANGE: {
        auto u = readExact<fib_rule_uid_range>(a, "decode rule");
        r.uidRange = UidRange{u.start, u.end};
        break;
      }
      case FRA_IP_PROTO: r.ipProto = core::readU8(a); break;
      case FRA_SPORT_RANGE:
      case FRA_DPORT_RANGE: {
        auto p = readExact<fib_rule_port_range>(a, "decode rule");
        (core::attrType(a) == FRA_SPORT_RANGE ? r.sport : r.dport) = PortRange{p.start, p.end};
        break;
      }
      case FRA_PROTOCOL: r.protocol = core::readU8(a); break;
      default: r.unknown.append(core::attrType(a), core::readBytes(a));
    }
  });
  return r;
}

}  // namespace fastlink::rtnl

namespace fastlink {

std::string ruleActionName(RuleAction action) {
  switch (action) {
    case RuleAction::ToTable: return "lookup";
    case RuleAction::Goto: return "goto";
    case RuleAction::Nop: return "nop";
    case RuleAction::Blackhole: return "blackhole";
    case RuleAction::Unreachable: return "unreachable";
    case RuleAction::Prohibit: return "prohibit";
  }
  return "action " + std::to_string(static_cast<unsigned>(action));
}

IpAddress::Family RuleInfo::effectiveFamily() const {
  if (family) return *family;
  if (src) return src->family();
  if (dst) return dst->family();
  return IpAddress::Family::v4;
}

namespace {

// IPv4/IPv6 rules only (a dump also carries ipmr rules of other families).
struct Traits : rtnl::Object<RuleInfo, RuleFilter, RTM_NEWRULE, rtnl::kIpFamilies> {
  static constexpr const char* kNoun = "rule";
  static void encodeDump(core::MessageWriter& w, const Filter& f, const rtnl::Indexes&) { rtnl::encodeRuleDump(w, f.family); }
  static void decode(const nlmsghdr* m, Info& out, const Filter&) { out = rtnl::decodeRule(m); }
  // The kernel only filters rule dumps by family.
  static bool matches(const Info& r, const Filter& f, const rtnl::Indexes&) {
    return (!f.priority || r.priority == f.priority) && (!f.table || r.table == f.table) && (!f.iif || r.iif == f.iif) &&
           (!f.oif || r.oif == f.oif);
  }
};

}  // namespace

RuleApi& Netlink::rules() { return lazy(rules_); }

RuleInfo& RuleInfo::setTable(std::string_view nameOrNumber) {
  table = RouteNames::system().tableId(nameOrNumber);
  return *this;
}

FASTLINK_RTNL_VERB(Rule, add, Add, encodeRule)
FASTLINK_RTNL_VERB(Rule, del, Del, encodeRule)

FASTLINK_RTNL_LIST_API(RuleApi, Traits)

}  // namespace fastlink
