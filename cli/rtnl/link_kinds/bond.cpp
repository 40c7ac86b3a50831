// `type bond`: its options, and `-d` of a bond and of a bond port (`bond_slave ...`) as
// iproute2 6.1 prints them.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "rtnl/link_kind.hpp"

namespace fastlink::cli {
namespace {

constexpr const char* kModes[] = {"balance-rr", "active-backup", "balance-xor", "broadcast", "802.3ad", "balance-tlb", "balance-alb"};

void parseBond(Args& args, ParsedLink& p) {
  BondInfo b;
  while (!args.done()) {
    if (args.accept("mode")) {
      std::string mode = args.value("mode");
      auto it = std::find_if(std::begin(kModes), std::end(kModes), [&](const char* m) { return mode == m; });
      if (it == std::end(kModes))
        throw UsageError(fmt::format("mode: unknown bond mode \"{}\" (known: balance-rr, active-backup, balance-xor, "
                                     "broadcast, 802.3ad, balance-tlb, balance-alb)", mode));
      b.mode = static_cast<BondMode>(it - std::begin(kModes));
    } else if (args.accept("miimon")) b.miimon = parseU32(args.value("miimon"), "miimon");
    else args.unknown("type bond takes: mode, miimon");
  }
  p.info.bond = b;
}

std::vector<KindOption> printBond(const LinkInfo& l, const NameOf&) {
  std::vector<KindOption> out;
  if (!l.bond) return out;
  if (l.bond->mode) {
    auto i = static_cast<std::size_t>(*l.bond->mode);
    out.push_back(stringOption("mode", i < std::size(kModes) ? kModes[i] : "unknown"));
  }
  if (l.bond->miimon) out.push_back(numberOption("miimon", *l.bond->miimon));
  return out;
}

// ---- Ports: what a bond reports about each device enslaved to it (`bond_slave ...`) ----------

/// `key NAME` (JSON "key": "NAME") for a value iproute2 names, else `key N` (JSON
/// "key_index": N), as iproute2 prints a port's state and MII status.
template <std::size_t N>
KindOption namedOrIndex(const char* key, const char* const (&names)[N], uint8_t value) {
  if (value < N) return stringOption(key, names[value]);
  return {fmt::format("{}_index", key), value, fmt::format("{} {}", key, value)};
}

/// A LACP port state twice, as iproute2 prints it: the number (`ad_actor_oper_port_state 61`),
/// then its bits by name, lowest first, as an array under `key_str` in JSON and in text after
/// that same key (`ad_actor_oper_port_state_str <active,in_sync>`: ip prints a JSON array's
/// name in text too).
void addLacpState(std::vector<KindOption>& out, const char* key, uint8_t state) {
  static const char* const kBits[] = {"active",     "short_timeout", "aggregating", "in_sync",
                                      "collecting", "distributing",  "defaulted",   "expired"};
  out.push_back(numberOption(key, state));
  nlohmann::ordered_json names = nlohmann::ordered_json::array();
  std::string text;
  for (unsigned bit = 0; bit < std::size(kBits); ++bit) {
    if (!(state & (1u << bit))) continue;
    names.push_back(kBits[bit]);
    text += text.empty() ? kBits[bit] : fmt::format(",{}", kBits[bit]);
  }
  std::string arrayKey = fmt::format("{}_str", key);
  std::string words = fmt::format("{} <{}>", arrayKey, text);
  out.push_back({std::move(arrayKey), std::move(names), std::move(words)});
}

/// iproute2 6.1's bond_slave_print_opt: each value the bond reported, in its order. Numbers
/// are printed signed (%d), as ip does.
std::vector<KindOption> printBondPort(const LinkInfo& l, const NameOf&) {
  std::vector<KindOption> out;
  if (!l.bondPort) return out;
  const BondPortInfo& p = *l.bondPort;
  static const char* const kStates[] = {"ACTIVE", "BACKUP"};
  static const char* const kMiiStatuses[] = {"UP", "GOING_DOWN", "DOWN", "GOING_BACK"};
  auto signedNumber = [&](const char* key, int32_t value) { out.push_back({key, value, fmt::format("{} {}", key, value)}); };
  if (p.state) out.push_back(namedOrIndex("state", kStates, static_cast<uint8_t>(*p.state)));
  if (p.miiStatus) out.push_back(namedOrIndex("mii_status", kMiiStatuses, static_cast<uint8_t>(*p.miiStatus)));
  if (p.linkFailureCount) signedNumber("link_failure_count", static_cast<int32_t>(*p.linkFailureCount));
  if (p.permanentAddress) out.push_back(stringOption("perm_hwaddr", p.permanentAddress->toString()));
  if (p.queueId) signedNumber("queue_id", *p.queueId);
  if (p.priority) signedNumber("prio", *p.priority);
  if (p.aggregatorId) signedNumber("ad_aggregator_id", *p.aggregatorId);
  if (p.actorOperPortState) addLacpState(out, "ad_actor_oper_port_state", *p.actorOperPortState);
  if (p.partnerOperPortState) addLacpState(out, "ad_partner_oper_port_state", *p.partnerOperPortState);
  return out;
}

const LinkKindRegistrar kBond{{.kinds = {"bond"},
                               .usage = "bond:    mode { balance-rr | active-backup | balance-xor | broadcast | 802.3ad | balance-tlb |\n"
                                        "           balance-alb } | miimon MS",
                               .parse = parseBond,
                               .print = printBond,
                               .printPort = printBondPort}};

}  // namespace
}  // namespace fastlink::cli
