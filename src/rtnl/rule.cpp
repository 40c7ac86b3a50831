// Rules: the codec (RuleInfo <-> RTM_NEWRULE/RTM_DELRULE/RTM_GETRULE, fib_rule_hdr + FRA_*), the
// request builders, and the kernel-backed RuleApi over the kit.
#include <sys/socket.h>
#include <linux/fib_rules.h>
#include <linux/rtnetlink.h>

#include <cstring>

#include "fastlink/netlink.hpp"
#include "fastlink/route.hpp"
#include "fastlink/rule.hpp"
#include "core/attr_fields.hpp"
#include "rtnl/codec_helpers.hpp"
#include "rtnl/kit.hpp"
#include "rtnl/rule_codec.hpp"

namespace fastlink::rtnl {
namespace {

constexpr uint32_t kTableMain = 254;  // RT_TABLE_MAIN
constexpr uint8_t kFamilyIpmr = RTNL_FAMILY_IPMR;
constexpr uint8_t kFamilyIp6mr = RTNL_FAMILY_IP6MR;

// The fib_rule_hdr family of a rule: AF_INET/AF_INET6, or their multicast routing families.
uint8_t ruleFamily(IpAddress::Family family, bool multicast) {
  if (!multicast) return familyOf(family);
  return family == IpAddress::Family::v4 ? kFamilyIpmr : kFamilyIp6mr;
}

void checkIfname(const auto& operation, const char* what, const std::string& name) {
  try {
    validateIfname(name);
  } catch (const Error& e) {
    throw invalid(operation, std::string(what) + ": " + e.reason());
  }
}

// A range member from the kernel struct of the same two fields (uid and port ranges).
template <uint16_t kType, auto kMember, class Kernel>
constexpr AttrField<RuleInfo> rangeField() {
  auto put = [](core::MessageWriter& w, const AttrField<RuleInfo>&, const RuleInfo& r) {
    if (const auto& v = r.*kMember) putStruct(w, kType, Kernel{v->start, v->end});
  };
  auto get = [](const nlattr* a, RuleInfo& r, const FieldContext& context) {
    auto k = readExact<Kernel>(a, context.what);
    r.*kMember = {{k.start, k.end}};
    return true;
  };
  return {kType, put, get};
}

// A number the kernel reports as all ones when it is not set.
template <uint16_t kType, auto kMember>
constexpr AttrField<RuleInfo> unlessAllOnes() {
  auto row = field<kType, kMember>();
  row.get = [](const nlattr* a, RuleInfo& r, const FieldContext&) {
    if (uint32_t v = core::readU32(a); v != UINT32_MAX) r.*kMember = v;
    return true;
  };
  row.member = {};  // its own get: not the generic reader a view would use
  return row;
}

// Like iproute2: a table below 256 fits the header, a larger one goes in FRA_TABLE.
constexpr AttrField<RuleInfo> kLargeTable{
    FRA_TABLE,
    [](core::MessageWriter& w, const AttrField<RuleInfo>&, const RuleInfo& r) {
      if (r.table && *r.table >= 256) w.putU32(FRA_TABLE, *r.table);
    },
    [](const nlattr* a, RuleInfo& r, const FieldContext&) {
      uint32_t table = core::readU32(a);
      r.table = table ? std::optional(table) : std::nullopt;
      return true;
    }};

// l3mdev is sent only when asked for.
constexpr AttrField<RuleInfo> kL3mdev{
    FRA_L3MDEV,
    [](core::MessageWriter& w, const AttrField<RuleInfo>&, const RuleInfo& r) {
      if (r.l3mdev.value_or(false)) w.putU8(FRA_L3MDEV, 1);
    },
    field<FRA_L3MDEV, &RuleInfo::l3mdev>().get};

// Every attribute, in the order iproute2 sends them; FRA_SRC and FRA_DST are decoded with the
// header's prefix lengths.
constexpr FieldTable kFields({
    field<FRA_PRIORITY, &RuleInfo::priority>(),
    field<FRA_SRC, &RuleInfo::src, Wire::Sent>(),
    field<FRA_DST, &RuleInfo::dst, Wire::Sent>(),
    field<FRA_FWMARK, &RuleInfo::fwmark>(),
    field<FRA_FWMASK, &RuleInfo::fwmask>(),
    field<FRA_IIFNAME, &RuleInfo::iif>(),
    field<FRA_OIFNAME, &RuleInfo::oif>(),
    kLargeTable,
    field<FRA_GOTO, &RuleInfo::gotoTarget>(),
    unlessAllOnes<FRA_SUPPRESS_PREFIXLEN, &RuleInfo::suppressPrefixLength>(),
    unlessAllOnes<FRA_SUPPRESS_IFGROUP, &RuleInfo::suppressIfgroup>(),
    kL3mdev,
    rangeField<FRA_UID_RANGE, &RuleInfo::uidRange, fib_rule_uid_range>(),
    field<FRA_IP_PROTO, &RuleInfo::ipProto>(),
    rangeField<FRA_SPORT_RANGE, &RuleInfo::sport, fib_rule_port_range>(),
    rangeField<FRA_DPORT_RANGE, &RuleInfo::dport, fib_rule_port_range>(),
    field<FRA_PROTOCOL, &RuleInfo::protocol>(),
});

std::string describe(Verb verb, const RuleInfo& r) {
  std::string s = std::string(r.multicast ? "mrule " : "rule ") + verbWord(verb);
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
  // ipmr/ip6mr rules store no addresses and no tos (the kernel accepts and drops them, and
  // reports 0): refused rather than silently lost.
  if (r.multicast && (r.src || r.dst))
    throw invalid(operation, "a multicast rule matches no addresses (from/to): select by iif, oif, fwmark, uidrange, ...");
  if (r.multicast && r.tos) throw invalid(operation, "a multicast rule matches no tos");
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
  frh.family = ruleFamily(family, r.multicast);
  if (r.src) frh.src_len = r.src->length();
  if (r.dst) frh.dst_len = r.dst->length();
  if (r.tos) frh.tos = *r.tos;
  if (action) frh.action = static_cast<uint8_t>(*action);
  if (r.invert.value_or(false)) frh.flags |= FIB_RULE_INVERT;
  if (table) frh.table = static_cast<uint8_t>(*table < 256 ? *table : RT_TABLE_UNSPEC);
  kFields.encode(w, r);  // FRA_TABLE from r.table: a defaulted table (main) fits the header
  return w.toRequest(lazily(verb, r, describe));
}

void encodeRuleDump(core::MessageWriter& w, std::optional<IpAddress::Family> family, bool multicast) {
  auto& frh = w.putHeader<fib_rule_hdr>();
  frh.family = family ? ruleFamily(*family, multicast) : AF_UNSPEC;
}

bool isRuleFamily(uint8_t family) {
  return family == AF_INET || family == AF_INET6 || family == kFamilyIpmr || family == kFamilyIp6mr;
}

RuleInfo decodeRule(const nlmsghdr* message) {
  const auto& frh = headerOf<fib_rule_hdr>(message, "rule");
  auto bad = [](const std::string& why) { return malformed("decode rule", why); };
  if (!isRuleFamily(frh.family)) throw bad("rule of family " + std::to_string(frh.family));
  RuleInfo r;
  r.multicast = frh.family == kFamilyIpmr || frh.family == kFamilyIp6mr;
  r.family = frh.family == AF_INET || frh.family == kFamilyIpmr ? IpAddress::Family::v4 : IpAddress::Family::v6;
  if (frh.tos) r.tos = frh.tos;
  if (frh.table) r.table = frh.table;
  r.action = static_cast<RuleAction>(frh.action);
  r.flags = frh.flags;
  r.invert = (frh.flags & FIB_RULE_INVERT) != 0;
  r.priority = 0;  // the kernel omits FRA_PRIORITY for priority 0
  auto prefix = [&](const nlattr* a, uint8_t length) {
    auto bytes = core::readBytes(a);
    if (bytes.size() != (*r.family == IpAddress::Family::v4 ? 4u : 16u)) throw bad("rule address of the wrong size");
    return Prefix(IpAddress::fromBytes(bytes), length);
  };
  kFields.decodeAll(attrsOf(message, sizeof(fib_rule_hdr)), r, {"decode rule"}, [&](const nlattr* a) {
    if (core::attrType(a) == FRA_SRC) r.src = prefix(a, frh.src_len);
    else if (core::attrType(a) == FRA_DST) r.dst = prefix(a, frh.dst_len);
    else return false;
    return true;
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

// An unfiltered dump carries the rules of every fib_rules family: the unicast ones (AF_INET,
// AF_INET6) and the multicast ones (RTNL_FAMILY_IPMR 128, RTNL_FAMILY_IP6MR 129, beyond the
// kit's 64-bit family set): all are kept here, and `matches` keeps the filter's kind.
struct Traits : rtnl::Object<RuleInfo, RuleFilter, RTM_NEWRULE> {
  static constexpr const char* kNoun = "rule";
  static std::string show(const Filter& f) { return f.multicast ? "mrule show" : "rule show"; }
  static void encodeDump(core::MessageWriter& w, const Filter& f, const rtnl::Indexes&) {
    rtnl::encodeRuleDump(w, f.family, f.multicast);
  }
  // A family the decoder does not know (none today) leaves an Info without family: not matched.
  static void decode(const nlmsghdr* m, Info& out, const Filter&) {
    const auto* frh = core::messageHeader<fib_rule_hdr>(m);
    if (frh && !rtnl::isRuleFamily(frh->family)) out = RuleInfo{};
    else out = rtnl::decodeRule(m);
  }
  // The kernel only filters rule dumps by family.
  static bool matches(const Info& r, const Filter& f, const rtnl::Indexes&) {
    return r.family && r.multicast == f.multicast && (!f.priority || r.priority == f.priority) &&
           (!f.table || r.table == f.table) && (!f.iif || r.iif == f.iif) && (!f.oif || r.oif == f.oif);
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
