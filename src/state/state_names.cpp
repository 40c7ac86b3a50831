#include "state/state_names.hpp"

#include <net/if_arp.h>

#include <array>
#include <cstdio>
#include <utility>

#include "fastlink/error.hpp"

namespace fastlink {
namespace {

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

/// A key the kernel cannot change in place: a different value is an error, not a silent no-op.
void immutable(const InterfaceState& iface, bool differs, const std::string& key, const std::string& hostValue) {
  if (differs)
    throw Error::invalidArgument("plan", iface.path + "." + key + ": the host's " + iface.name + " has " + hostValue +
                                             ", which cannot be changed in place (make it absent first)");
}

/// A vlan's or mac-vlan's base-iface: the host device's lower device (IFLA_LINK).
void immutableBase(const InterfaceState& iface, const LinkInfo& host, const NameOfIndex& nameOf) {
  if (!iface.baseIface) return;
  const std::string& base = nameOf(host.parentIndex());
  immutable(iface, base != *iface.baseIface, iface.type + ".base-iface", "base-iface " + base);
}

std::string flip(bool to) { return to ? "false -> true" : "true -> false"; }

// Every row's functions are written for its own type: the document's reader gives a device only
// the keys of its type's subtree, and the planner compares a device only with a host device of the
// same type.
const InterfaceKind kKinds[] = {
    {.type = "linux-bridge", .kind = "bridge", .key = "bridge", .decodedWhole = true,
     .read = [](const LinkInfo& l, const NameOfIndex&, InterfaceState& iface) {
       if (!l.bridge) return;
       iface.bridgeStp = l.bridge->stpState.value_or(0) != 0;
       if (l.bridge->vlanFiltering.value_or(false)) iface.bridgeVlanFiltering = true;
     },
     .create = [](const InterfaceState& iface, const std::optional<Ifref>&, LinkInfo& link) {
       if (!iface.bridgeStp && !iface.bridgeVlanFiltering) return;
       BridgeInfo& b = link.bridge.emplace();
       if (iface.bridgeStp) b.setStpState(*iface.bridgeStp ? 1 : 0);
       // Off is a new bridge's default, and a kernel without VLAN filtering refuses even that.
       if (iface.bridgeVlanFiltering.value_or(false)) b.setVlanFiltering(true);
     },
     .change = [](const InterfaceState& iface, const LinkInfo& host, const NameOfIndex&, LinkChanges& out) {
       if (!host.bridge) return;
       // Enabled is any STP: 1 the kernel's, 2 user space's (when /sbin/bridge-stp took it over).
       if (iface.bridgeStp && (host.bridge->stpState.value_or(0) != 0) != *iface.bridgeStp) {
         out.link.setBridge(BridgeInfo().setStpState(*iface.bridgeStp ? 1 : 0));
         out.what.push_back("bridge.options.stp.enabled " + flip(*iface.bridgeStp));
       }
       if (iface.bridgeVlanFiltering && host.bridge->vlanFiltering.value_or(false) != *iface.bridgeVlanFiltering) {
         out.link.setBridge(out.link.bridge.value_or(BridgeInfo()).setVlanFiltering(*iface.bridgeVlanFiltering));
         out.what.push_back("bridge.options.fastlink-vlan-filtering " + flip(*iface.bridgeVlanFiltering));
       }
     }},
    {.type = "bond", .kind = "bond", .key = "link-aggregation", .decodedWhole = true,
     .read = [](const LinkInfo& l, const NameOfIndex&, InterfaceState& iface) {
       if (!l.bond) return;
       iface.bondMode = l.bond->mode;
       iface.bondMiimon = l.bond->miimon;
     },
     .create = [](const InterfaceState& iface, const std::optional<Ifref>&, LinkInfo& link) {
       if (!iface.bondMode && !iface.bondMiimon) return;
       BondInfo& b = link.bond.emplace();
       if (iface.bondMode) b.setMode(*iface.bondMode);
       if (iface.bondMiimon) b.setMiimon(*iface.bondMiimon);
     },
     .change = [](const InterfaceState& iface, const LinkInfo& host, const NameOfIndex&, LinkChanges& out) {
       if (!host.bond) return;
       if (iface.bondMode && host.bond->mode)
         immutable(iface, host.bond->mode != iface.bondMode, "link-aggregation.mode", std::string("mode ") + bondModeName(*host.bond->mode));
       if (iface.bondMiimon && host.bond->miimon != iface.bondMiimon) {
         out.link.setBond(BondInfo().setMiimon(*iface.bondMiimon));
         out.what.push_back("link-aggregation.options.miimon -> " + std::to_string(*iface.bondMiimon));
       }
     }},
    {.type = "vlan", .kind = "vlan", .key = "vlan", .decodedWhole = true,
     .read = [](const LinkInfo& l, const NameOfIndex& nameOf, InterfaceState& iface) {
       iface.baseIface = nameOf(l.parentIndex());
       if (l.vlan) iface.vlanId = l.vlan->id;
     },
     .create = [](const InterfaceState& iface, const std::optional<Ifref>& base, LinkInfo& link) {
       if (base) link.setParent(*base);
       if (iface.vlanId) link.setVlan(VlanInfo().setId(*iface.vlanId));
     },
     .change = [](const InterfaceState& iface, const LinkInfo& host, const NameOfIndex& nameOf, LinkChanges&) {
       if (iface.vlanId && host.vlan) immutable(iface, host.vlan->id != iface.vlanId, "vlan.id", "id " + std::to_string(host.vlan->id.value_or(0)));
       immutableBase(iface, host, nameOf);
     }},
    {.type = "vxlan", .kind = "vxlan", .key = "vxlan", .decodedWhole = true,
     .read = [](const LinkInfo& l, const NameOfIndex& nameOf, InterfaceState& iface) {
       if (!l.vxlan) return;
       iface.vxlanId = l.vxlan->vni;
       iface.vxlanRemote = l.vxlan->remote;
       iface.vxlanLocal = l.vxlan->local;
       iface.vxlanDstPort = l.vxlan->dstPort;
       if (l.vxlan->dev && l.vxlan->dev->isIndex() && l.vxlan->dev->index()) iface.baseIface = nameOf(l.vxlan->dev->index());
     },
     .create = [](const InterfaceState& iface, const std::optional<Ifref>& base, LinkInfo& link) {
       if (!base && !iface.vxlanId) return;
       VxlanInfo& v = link.vxlan.emplace();
       if (base) v.setDev(*base);
       if (iface.vxlanId) {
         v.setVni(*iface.vxlanId);
         if (iface.vxlanRemote) v.setRemote(*iface.vxlanRemote);
         if (iface.vxlanLocal) v.setLocal(*iface.vxlanLocal);
         v.setDstPort(iface.vxlanDstPort.value_or(4789));
       }
     },
     .change = [](const InterfaceState& iface, const LinkInfo& host, const NameOfIndex&, LinkChanges&) {
       if (iface.vxlanId && host.vxlan)
         immutable(iface, host.vxlan->vni != iface.vxlanId, "vxlan.id", "id " + std::to_string(host.vxlan->vni.value_or(0)));
     }},
    {.type = "vrf", .kind = "vrf", .key = "vrf", .decodedWhole = true,
     .read = [](const LinkInfo& l, const NameOfIndex&, InterfaceState& iface) {
       if (l.vrf) iface.vrfTable = l.vrf->table;
     },
     .create = [](const InterfaceState& iface, const std::optional<Ifref>&, LinkInfo& link) {
       if (iface.vrfTable) link.setVrf(VrfInfo().setTable(*iface.vrfTable));
     },
     .change = [](const InterfaceState& iface, const LinkInfo& host, const NameOfIndex&, LinkChanges&) {
       if (iface.vrfTable && host.vrf)
         immutable(iface, host.vrf->table != iface.vrfTable, "vrf.route-table-id", "table " + std::to_string(host.vrf->table.value_or(0)));
     }},
    {.type = "veth", .kind = "veth", .key = "veth",
     .read = [](const LinkInfo& l, const NameOfIndex& nameOf, InterfaceState& iface) {
       if (l.parentIndex()) iface.vethPeer = nameOf(l.parentIndex());
     },
     .change = [](const InterfaceState& iface, const LinkInfo& host, const NameOfIndex& nameOf, LinkChanges&) {
       if (!iface.vethPeer) return;
       const std::string& peer = nameOf(host.parentIndex());
       immutable(iface, !peer.empty() && peer != *iface.vethPeer, "veth.peer", "peer " + peer);
     }},
    {.type = "dummy", .kind = "dummy"},
    {.type = "mac-vlan", .kind = "macvlan", .key = "mac-vlan", .decodedWhole = true,
     .read = [](const LinkInfo& l, const NameOfIndex& nameOf, InterfaceState& iface) {
       iface.baseIface = nameOf(l.parentIndex());
       if (l.macvlan) iface.macvlanMode = l.macvlan->mode;
     },
     .create = [](const InterfaceState& iface, const std::optional<Ifref>& base, LinkInfo& link) {
       if (base) link.setParent(*base);
       if (iface.macvlanMode) link.setMacvlan(MacvlanInfo().setMode(*iface.macvlanMode));
     },
     .change = [](const InterfaceState& iface, const LinkInfo& host, const NameOfIndex& nameOf, LinkChanges& out) {
       immutableBase(iface, host, nameOf);
       if (iface.macvlanMode && host.macvlan && host.macvlan->mode != iface.macvlanMode) {
         out.link.setMacvlan(MacvlanInfo().setMode(*iface.macvlanMode));
         out.what.push_back(std::string("mac-vlan.mode -> ") + macvlanModeName(*iface.macvlanMode));
       }
     }},
};

}  // namespace

std::optional<BondMode> bondModeFromName(std::string_view name) { return valueNamed(kBondModes, name); }
const char* bondModeName(BondMode mode) { return nameOf(kBondModes, mode, "balance-rr"); }
std::optional<MacvlanMode> macvlanModeFromName(std::string_view name) { return valueNamed(kMacvlanModes, name); }
const char* macvlanModeName(MacvlanMode mode) { return nameOf(kMacvlanModes, mode, "vepa"); }

const InterfaceKind* interfaceKind(std::string_view name, std::string_view InterfaceKind::*by) {
  for (const InterfaceKind& k : kKinds)
    if (k.*by == name) return &k;
  return nullptr;
}

std::string stateTypeOf(const LinkInfo& link) {
  if (!link.kind) return link.type && *link.type == ARPHRD_LOOPBACK ? "loopback" : "ethernet";
  const InterfaceKind* k = interfaceKind(*link.kind, &InterfaceKind::kind);
  return k ? std::string(k->type) : *link.kind;
}

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
