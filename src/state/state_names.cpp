#include "state/state_names.hpp"

#include <array>
#include <cstdio>
#include <utility>

namespace fastlink {
namespace {

// nmstate type <-> kernel kind, for the kinds fastlink creates.
constexpr std::array<std::pair<std::string_view, std::string_view>, 7> kTypes{{
    {"linux-bridge", "bridge"}, {"bond", "bond"}, {"vlan", "vlan"}, {"vxlan", "vxlan"},
    {"vrf", "vrf"}, {"veth", "veth"}, {"dummy", "dummy"},
}};

constexpr std::array<std::pair<std::string_view, BondMode>, 7> kBondModes{{
    {"balance-rr", BondMode::BalanceRr}, {"active-backup", BondMode::ActiveBackup},
    {"balance-xor", BondMode::BalanceXor}, {"broadcast", BondMode::Broadcast},
    {"802.3ad", BondMode::Lacp8023ad}, {"balance-tlb", BondMode::BalanceTlb}, {"balance-alb", BondMode::BalanceAlb},
}};

constexpr std::array<std::pair<std::string_view, MacvlanMode>, 5> kMacvlanModes{{
    {"private", MacvlanMode::Private}, {"vepa", MacvlanMode::Vepa}, {"bridge", MacvlanMode::Bridge},
    {"passthru", MacvlanMode::Passthru}, {"source", MacvlanMode::Source},
}};

/// The value named `name` in `table`, or nullopt.
template <class V, std::size_t N>
std::optional<V> valueNamed(const std::array<std::pair<std::string_view, V>, N>& table, std::string_view name) {
  for (const auto& [n, value] : table)
    if (n == name) return value;
  return std::nullopt;
}

/// The name of `value` in `table`, or `fallback`.
template <class V, std::size_t N>
const char* nameOf(const std::array<std::pair<std::string_view, V>, N>& table, V value, const char* fallback) {
  for (const auto& [n, v] : table)
    if (v == value) return n.data();
  return fallback;
}

}  // namespace

std::string stateTypeOfKind(const std::optional<std::string>& kind, bool loopback) {
  if (!kind) return loopback ? "loopback" : "ethernet";
  if (*kind == "macvlan") return "mac-vlan";
  for (const auto& [type, k] : kTypes)
    if (k == *kind) return std::string(type);
  return *kind;
}

std::optional<std::string> kindOfStateType(std::string_view type) {
  if (type == "mac-vlan") return "macvlan";
  for (const auto& [t, kind] : kTypes)
    if (t == type) return std::string(kind);
  return std::nullopt;
}

std::optional<BondMode> bondModeFromName(std::string_view name) { return valueNamed(kBondModes, name); }
const char* bondModeName(BondMode mode) { return nameOf(kBondModes, mode, "balance-rr"); }
std::optional<MacvlanMode> macvlanModeFromName(std::string_view name) { return valueNamed(kMacvlanModes, name); }
const char* macvlanModeName(MacvlanMode mode) { return nameOf(kMacvlanModes, mode, "vepa"); }

std::string jsonQuoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace fastlink
