// Event printers (see monitor_print.hpp). Text follows iproute2 6.1's `ip monitor` byte for byte
// where tests compare it (trailing spaces aside); JSON uses the field names of the show commands.
#include "events/monitor_print.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <utility>
#include <vector>

#include "fastlink/prefix.hpp"
#include "rtnl/link_show.hpp"
#include "rtnl/route_words.hpp"
#include "rtnl/tc_filter_print.hpp"
#include "rtnl/tc_print.hpp"
#include "kit/ip_names.hpp"
#include "kit/writer.hpp"
#include "xdp/xdp_show.hpp"

namespace fastlink::cli {
namespace {

constexpr uint32_t kTableMain = 254;

// Address flags in iproute2's order (IFA_F_* bits); "secondary"/"temporary" share a bit.
constexpr std::pair<uint32_t, const char*> kAddrFlags[] = {
    {0x02, "nodad"},      {0x04, "optimistic"},  {0x08, "dadfailed"},        {0x10, "home"},
    {0x20, "deprecated"}, {0x40, "tentative"},   {0x100, "mngtmpaddr"},      {0x200, "noprefixroute"},
    {0x400, "autojoin"},  {0x800, "stable-privacy"}};
constexpr uint32_t kAddrSecondary = 0x01;
constexpr uint32_t kAddrPermanent = 0x80;

std::string lifetime(std::optional<uint32_t> v) {
  return !v || *v == 0xffffffffu ? "forever" : fmt::format("{}sec", *v);
}

void appendNumber(std::string& out, uint64_t value) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, value).ptr);
}

// IPv4 by hand (writeIpv4): glibc's inet_ntop formats it with sprintf, which was a fifth of the
// monitor's own CPU per route event. IPv6 keeps inet_ntop (its zero compression).
void appendAddress(std::string& out, const IpAddress& a) {
  if (!a.isV4()) {
    out += a.toString();
    return;
  }
  char buf[kIpv4Room];
  out.append(buf, static_cast<std::size_t>(writeIpv4(buf, a.bytes().data()) - buf));
}

// "default", an address (host routes: iproute2 prints them without their length), or a prefix.
void appendRouteDst(std::string& out, const RouteInfo& r) {
  if (!r.dst || r.dst->isDefault()) {
    out += "default";
    return;
  }
  appendAddress(out, r.dst->address());
  if (r.dst->isHost()) return;
  out += '/';
  appendNumber(out, r.dst->length());
}

// ---- addresses ------------------------------------------------------------------------------

std::vector<std::string> addrFlagWords(const AddrInfo& a) {
  std::vector<std::string> out;
  uint32_t flags = a.flags.value_or(0);
  bool v4 = a.address && a.address->isV4();
  if (flags & kAddrSecondary) out.emplace_back(v4 ? "secondary" : "temporary");
  if (!(flags & kAddrPermanent)) out.emplace_back("dynamic");
  for (const auto& [bit, name] : kAddrFlags)
    if (flags & bit) out.emplace_back(name);
  return out;
}

void addrText(std::string& out, const AddrInfo& a, DeviceNames& names) {
  if (!a.address) return;
  uint32_t dev = a.devIndex();
  fmt::format_to(std::back_inserter(out), "{}: {}    {} {}", dev, names.name(dev), a.address->isV4() ? "inet" : "inet6",
                 a.peer ? a.address->address().toString() : a.address->toStringWithLength());
  if (a.peer) fmt::format_to(std::back_inserter(out), " peer {}/{}", a.peer->toString(), a.address->length());
  if (a.broadcast) fmt::format_to(std::back_inserter(out), " brd {}", a.broadcast->toString());
  fmt::format_to(std::back_inserter(out), " scope {}", ipScopeName(a.scope.value_or(Scope::Universe)));
  for (const auto& w : addrFlagWords(a)) fmt::format_to(std::back_inserter(out), " {}", w);
  if (a.label) fmt::format_to(std::back_inserter(out), " {}", *a.label);
  else out += ' ';
  fmt::format_to(std::back_inserter(out), "\n       valid_lft {} preferred_lft {}\n", lifetime(a.validLifetime),
                 lifetime(a.preferredLifetime));
}

void addrJson(JsonOut& j, const AddrInfo& a, DeviceNames& names) {
  if (!a.address) return;
  uint32_t dev = a.devIndex();
  j.field("ifindex", dev).field("ifname", names.name(dev));
  bool v4 = a.address->isV4();
  j.field("family", v4 ? "inet" : "inet6").field("local", a.address->address());
  if (a.peer) j.field("address", *a.peer);
  j.field("prefixlen", a.address->length());
  if (a.broadcast) j.field("broadcast", *a.broadcast);
  j.field("scope", ipScopeName(a.scope.value_or(Scope::Universe)));
  for (const auto& w : addrFlagWords(a)) j.field(std::string_view(w), true);
  if (a.label) j.field("label", *a.label);
  j.field("valid_life_time", a.validLifetime.value_or(0xffffffffu));
  j.field("preferred_life_time", a.preferredLifetime.value_or(0xffffffffu));
}

// ---- routes ---------------------------------------------------------------------------------

std::vector<std::string> routeFlagWords(uint32_t flags) {
  std::vector<std::string> out;
  for (const auto& [bit, name] : kNexthopFlags)
    if (flags & bit) out.emplace_back(name);
  return out;
}

/// The monitor prints "?" for a preference ip has no word for.
const char* prefName(uint8_t pref) {
  const char* name = routePrefName(pref);
  return name ? name : "?";
}

bool isV6(const RouteInfo& r) { return r.dst && !r.dst->isV4(); }

/// `devFiltered`: `monitor ... dev DEV`, where ip leaves the (known) output device out of a route's
/// line and a neighbour's (its filter's oifmask / index).
void routeText(std::string& out, const RouteInfo& r, DeviceNames& names, bool devFiltered) {
  auto put = [&](std::string_view f, const auto&... args) { fmt::format_to(std::back_inserter(out), fmt::runtime(f), args...); };
  if (r.type && *r.type != RouteType::Unicast) put("{} ", ipRouteTypeName(*r.type));
  appendRouteDst(out, r);
  if (r.src && r.src->length()) put(" from {}", r.src->toString());
  if (r.nhid) put(" nhid {}", *r.nhid);
  if (r.gateway) put(" via {}", r.gateway->toString());
  if (r.devIndex() && !devFiltered) put(" dev {}", names.name(r.devIndex()));
  if (r.table && *r.table != kTableMain) put(" table {}", ipTableName(*r.table));
  if (r.protocol && *r.protocol != RouteProtocol::Boot) put(" proto {}", ipProtocolName(*r.protocol));
  if (r.scope && *r.scope != Scope::Universe) put(" scope {}", ipScopeName(*r.scope));
  if (r.metric || isV6(r)) put(" metric {}", r.metric.value_or(0));
  if (r.prefsrc) put(" src {}", r.prefsrc->toString());
  for (const auto& f : routeFlagWords(r.flags.value_or(0) & 0xff)) put(" {}", f);
  if (r.metrics) {
    if (r.metrics->mtu) put(" mtu {}", *r.metrics->mtu);
    if (r.metrics->advmss) put(" advmss {}", *r.metrics->advmss);
  }
  if (isV6(r) && r.pref) put(" pref {}", prefName(*r.pref));
  else if (!isV6(r)) out += ' ';
  for (const auto& p : r.paths) {
    out += "\n\tnexthop";
    if (p.gateway) put(" via {}", p.gateway->toString());
    if (p.dev && p.dev->isIndex()) put(" dev {}", names.name(p.dev->index()));
    put(" weight {}", p.weight);
    for (const auto& f : routeFlagWords(p.flags)) put(" {}", f);
    out += ' ';
  }
  out += '\n';
}

// The flag words of RTNH_F_* bits, written straight from the table (a route event has them).
void routeFlagArray(JsonOut& j, uint32_t flags) {
  j.beginArray();
  for (const auto& [bit, name] : kNexthopFlags)
    if (flags & bit) j.value(name);
  j.endArray();
}

void routeJson(JsonOut& j, const RouteInfo& r, DeviceNames& names) {
  if (r.type && *r.type != RouteType::Unicast) j.field("type", ipRouteTypeName(*r.type));
  if (!r.dst || r.dst->isDefault()) j.field("dst", "default");
  else j.field("dst", *r.dst);  // a host route without its length, like iproute2
  if (r.nhid) j.field("nhid", *r.nhid);
  if (r.gateway) j.field("gateway", *r.gateway);
  if (r.devIndex()) j.field("dev", names.name(r.devIndex()));
  if (r.table && *r.table != kTableMain) j.field("table", ipTableName(*r.table));
  if (r.protocol && *r.protocol != RouteProtocol::Boot) j.field("protocol", ipProtocolName(*r.protocol));
  if (r.scope && *r.scope != Scope::Universe) j.field("scope", ipScopeName(*r.scope));
  if (r.metric) j.field("metric", *r.metric);
  if (r.prefsrc) j.field("prefsrc", *r.prefsrc);
  routeFlagArray(j.key("flags"), r.flags.value_or(0) & 0xff);
  if (isV6(r) && r.pref) j.field("pref", prefName(*r.pref));
  if (r.paths.empty()) return;
  j.key("nexthops").beginArray();
  for (const auto& p : r.paths) {
    j.beginObject();
    if (p.gateway) j.field("gateway", *p.gateway);
    if (p.dev && p.dev->isIndex()) j.field("dev", names.name(p.dev->index()));
    j.field("weight", p.weight);
    routeFlagArray(j.key("flags"), p.flags);
    j.endObject();
  }
  j.endArray();
}

// ---- neighbours -----------------------------------------------------------------------------

void neighText(std::string& out, const NeighInfo& n, DeviceNames& names, bool devFiltered) {
  if (n.isProxy()) out += "proxy ";
  out += n.dst ? n.dst->toString() : "?";
  if (!devFiltered) fmt::format_to(std::back_inserter(out), " dev {}", names.name(n.devIndex()));
  if (n.lladdr) fmt::format_to(std::back_inserter(out), " lladdr {}", n.lladdr->toString());
  if (n.isRouter()) out += " router";
  if (n.externLearn.value_or(false)) out += " extern_learn";
  if (!n.isProxy() && n.state && *n.state != NeighState::None) fmt::format_to(std::back_inserter(out), " {}", neighStateName(*n.state));
  out += " \n";
}

void neighJson(JsonOut& j, const NeighInfo& n, DeviceNames& names) {
  if (n.dst) j.field("dst", *n.dst);
  j.field("dev", names.name(n.devIndex()));
  if (n.lladdr) j.key("lladdr").rawValue().put('"').putMac(*n.lladdr).put('"');
  if (n.isRouter()) j.field("router", true);
  if (n.isProxy()) j.field("proxy", true);
  if (!n.isProxy() && n.state && *n.state != NeighState::None)
    j.key("state").beginArray().value(neighStateName(*n.state)).endArray();
}

// ---- fdb ------------------------------------------------------------------------------------

void fdbText(std::string& out, const FdbInfo& f, DeviceNames& names) {
  out += f.mac ? f.mac->toString() : "?";
  fmt::format_to(std::back_inserter(out), " dev {}", names.name(f.devIndex()));
  if (f.vlan) fmt::format_to(std::back_inserter(out), " vlan {}", *f.vlan);
  if (f.dst) fmt::format_to(std::back_inserter(out), " dst {}", f.dst->toString());
  out += " \n";
}

void fdbJson(JsonOut& j, const FdbInfo& f, DeviceNames& names) {
  if (f.mac) j.key("mac").rawValue().put('"').putMac(*f.mac).put('"');
  j.field("ifname", names.name(f.devIndex()));
  if (f.vlan) j.field("vlan", *f.vlan);
  if (f.dst) j.field("dst", *f.dst);
}

// ---- rules ----------------------------------------------------------------------------------

std::string ruleTable(uint32_t table) { return ipTableName(table); }

void ruleText(std::string& out, const RuleInfo& r) {
  auto put = [&](std::string_view f, const auto&... args) { fmt::format_to(std::back_inserter(out), fmt::runtime(f), args...); };
  put("{}:\t", r.priority.value_or(0));
  if (r.invert.value_or(false)) out += "not ";
  put("from {}", r.src && r.src->length() ? r.src->toString() : "all");
  if (r.dst && r.dst->length()) put(" to {}", r.dst->toString());
  if (r.tos) put(" tos {:#x}", *r.tos);
  if (r.fwmark || r.fwmask) {
    put(" fwmark {:#x}", r.fwmark.value_or(0));
    if (r.fwmask && *r.fwmask != 0xffffffffu) put("/{:#x}", *r.fwmask);
  }
  if (r.iif) put(" iif {}", *r.iif);
  if (r.oif) put(" oif {}", *r.oif);
  if (r.l3mdev.value_or(false)) out += " lookup [l3mdev-table]";
  RuleAction action = r.action.value_or(RuleAction::ToTable);
  if (action == RuleAction::ToTable && r.table && !r.l3mdev.value_or(false)) put(" lookup {}", ruleTable(*r.table));
  else if (action == RuleAction::Goto) put(" goto {}", r.gotoTarget.value_or(0));
  else if (action != RuleAction::ToTable) put(" {}", ruleActionName(action));
  if (r.suppressPrefixLength && *r.suppressPrefixLength != 0xffffffffu) put(" suppress_prefixlength {}", *r.suppressPrefixLength);
  out += '\n';
}

void ruleJson(JsonOut& j, const RuleInfo& r) {
  j.field("priority", r.priority.value_or(0));
  if (r.invert.value_or(false)) j.field("not", true);
  if (r.src && r.src->length()) j.field("src", r.src->address()).field("srclen", r.src->length());
  else j.field("src", "all");
  if (r.dst && r.dst->length()) j.field("dst", r.dst->address()).field("dstlen", r.dst->length());
  if (r.fwmark) j.field("fwmark", fmt::format("{:#x}", *r.fwmark));
  if (r.iif) j.field("iif", *r.iif);
  if (r.oif) j.field("oif", *r.oif);
  RuleAction action = r.action.value_or(RuleAction::ToTable);
  if (action == RuleAction::ToTable && r.table) j.field("table", ruleTable(*r.table));
  else if (action == RuleAction::Goto) j.field("goto", r.gotoTarget.value_or(0));
  else if (action != RuleAction::ToTable) j.field("action", ruleActionName(action));
}

// ---- nexthops -------------------------------------------------------------------------------

void nexthopText(std::string& out, const NexthopInfo& n, DeviceNames& names) {
  auto put = [&](std::string_view f, const auto&... args) { fmt::format_to(std::back_inserter(out), fmt::runtime(f), args...); };
  put("id {}", n.id.value_or(0));
  if (n.isGroup()) {
    out += " group ";
    for (std::size_t i = 0; i < n.group.size(); ++i) {
      if (i) out += '/';
      put("{}", n.group[i].id);
      if (n.group[i].weight > 1) put(",{}", n.group[i].weight);
    }
  }
  if (n.gateway) put(" via {}", n.gateway->toString());
  if (n.devIndex()) put(" dev {}", names.name(n.devIndex()));
  if (n.blackhole) out += " blackhole";
  if (n.scope && *n.scope != Scope::Universe) put(" scope {}", ipScopeName(*n.scope));
  for (const auto& f : routeFlagWords(n.flags.value_or(0))) put(" {}", f);
  // Unlike a route's line, a nexthop's names `proto boot` too: only unspec is left out (ip does so).
  if (n.protocol && *n.protocol != RouteProtocol::Unspec) put(" proto {}", ipProtocolName(*n.protocol));
  if (n.fdb) out += " fdb";
  out += " \n";
}

void nexthopJson(JsonOut& j, const NexthopInfo& n, DeviceNames& names) {
  j.field("id", n.id.value_or(0));
  if (n.isGroup()) {
    j.key("group").beginArray();
    for (const auto& member : n.group) {
      j.beginObject().field("id", member.id);
      if (member.weight > 1) j.field("weight", member.weight);
      j.endObject();
    }
    j.endArray();
  }
  if (n.gateway) j.field("gateway", *n.gateway);
  if (n.devIndex()) j.field("dev", names.name(n.devIndex()));
  if (n.blackhole) j.field("blackhole", true);
  // The keys `ip -j nexthop show` (and `fastlink -j nexthop show`) print: no scope for a group or
  // a blackhole, no protocol when unset.
  if (n.scope && !n.isGroup() && !n.blackhole) j.field("scope", ipScopeName(*n.scope));
  routeFlagArray(j.key("flags"), n.flags.value_or(0));
  if (n.protocol && *n.protocol != RouteProtocol::Unspec) j.field("protocol", ipProtocolName(*n.protocol));
  if (n.fdb) j.field("fdb", true);
}

// ---- tc: qdiscs and classes ------------------------------------------------------------------

uint32_t tcDevIndex(const std::optional<Ifref>& dev) { return dev && dev->isIndex() ? dev->index() : 0; }

// `tc monitor` prints the line of `tc qdisc show` / `tc class show` (with "dev NAME"), after
// "deleted " for a deletion.
TcPrintOptions tcOptions(const std::optional<Ifref>& dev, DeviceNames& names) {
  TcPrintOptions o;
  o.devName = names.name(tcDevIndex(dev));
  return o;
}

// The fields of `fastlink -j tc qdisc show` / `tc -j qdisc show`, in their order.
void tcJson(JsonOut& j, const nlohmann::ordered_json& fields) {
  for (const auto& [key, value] : fields.items()) j.key(std::string_view(key)).rawValue().put(value.dump());
}

// A filter as `tc monitor` prints it (tc's print_filter): its `tc filter show` lines with "dev
// NAME" and its parent, after "added " or "replaced " (the request's CREATE/EXCL flags, which the
// kernel copies into the notification) or "deleted "; a chain's the same way ("added chain dev
// NAME parent ffff: chain 5").
FilterPrintOptions filterOptions(const Event& e, DeviceNames& names) {
  FilterPrintOptions o;
  o.chainObject = e.kind == ObjectKind::Chain;
  o.devName = [&names](uint32_t index) { return names.name(index); };
  o.program = lookUpXdpProgram;
  return o;
}

std::string filterText(const Event& e, const TcFilterInfo& f, DeviceNames& names) {
  TcPrinter p(false);
  if (e.action != EventAction::Deleted && e.created) p.text(e.exclusive ? "added " : "replaced ");
  printFilter(p, f, filterOptions(e, names));
  return p.take();
}

std::string filterJson(const Event& e, const TcFilterInfo& f, DeviceNames& names) {
  TcPrinter p(true);
  printFilter(p, f, filterOptions(e, names));
  return p.take();
}

}  // namespace

void putEventText(OutBuffer& out, std::string& scratch, const Event& e, DeviceNames& names, NetnsNames& netns,
                  const GlobalOptions& o, bool devFiltered) {
  if (const LinkInfo* l = e.link()) {
    if (e.action == EventAction::Deleted) out.put("Deleted ");
    return printLinkEvent(out, *l, names, netns, o);
  }
  scratch.clear();
  appendEventText(scratch, e, names, netns, devFiltered);
  out.put(scratch);
}

void appendEventText(std::string& out, const Event& e, DeviceNames& names, NetnsNames& /*netns: a link's, which is putEventText's*/,
                     bool devFiltered) {
  if (e.link()) throw std::logic_error("a link event is written by putEventText (the printer of link show)");
  bool tc = e.kind == ObjectKind::Qdisc || e.kind == ObjectKind::Class || e.kind == ObjectKind::Filter ||
            e.kind == ObjectKind::Chain;
  if (e.action == EventAction::Deleted) out += tc ? "deleted " : "Deleted ";  // each tool's word
  std::visit(
      [&](const auto& o) {
        using T = std::decay_t<decltype(o)>;
        if constexpr (std::is_same_v<T, AddrInfo>) addrText(out, o, names);
        else if constexpr (std::is_same_v<T, RouteInfo>) routeText(out, o, names, devFiltered);
        else if constexpr (std::is_same_v<T, NeighInfo>) neighText(out, o, names, devFiltered);
        else if constexpr (std::is_same_v<T, RuleInfo>) ruleText(out, o);
        else if constexpr (std::is_same_v<T, NexthopInfo>) nexthopText(out, o, names);
        else if constexpr (std::is_same_v<T, FdbInfo>) fdbText(out, o, names);
        else if constexpr (std::is_same_v<T, QdiscInfo>) out += qdiscText(o, tcOptions(o.dev, names));
        else if constexpr (std::is_same_v<T, ClassInfo>) out += classText(o, tcOptions(o.dev, names));
        else if constexpr (std::is_same_v<T, TcFilterInfo>) out += filterText(e, o, names);
      },
      e.object);
}

void writeEventJson(JsonOut& j, const Event& e, DeviceNames& names, const GlobalOptions& options) {
  j.beginObject();
  j.field("event", eventActionName(e.action)).field("object", objectKindName(e.kind));
  if (e.nsid) j.field("nsid", *e.nsid);
  std::visit(
      [&](const auto& o) {
        using T = std::decay_t<decltype(o)>;
        if constexpr (std::is_same_v<T, LinkInfo>) linkEventJson(j, o, names, options);
        else if constexpr (std::is_same_v<T, AddrInfo>) addrJson(j, o, names);
        else if constexpr (std::is_same_v<T, RouteInfo>) routeJson(j, o, names);
        else if constexpr (std::is_same_v<T, NeighInfo>) neighJson(j, o, names);
        else if constexpr (std::is_same_v<T, RuleInfo>) ruleJson(j, o);
        else if constexpr (std::is_same_v<T, NexthopInfo>) nexthopJson(j, o, names);
        else if constexpr (std::is_same_v<T, FdbInfo>) fdbJson(j, o, names);
        else if constexpr (std::is_same_v<T, QdiscInfo>) tcJson(j, qdiscJson(o, tcOptions(o.dev, names)));
        else if constexpr (std::is_same_v<T, ClassInfo>) tcJson(j, classJson(o, tcOptions(o.dev, names)));
        // tc's own JSON for the filter (`tc -j filter show`'s object), whose repeated keys no
        // JSON library keeps: nested as written.
        else if constexpr (std::is_same_v<T, TcFilterInfo>) j.key(e.kind == ObjectKind::Chain ? "chain" : "filter").rawValue().put(filterJson(e, o, names));
      },
      e.object);
  j.endObject();
}

}  // namespace fastlink::cli
