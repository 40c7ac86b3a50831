// Addresses, routes, neighbours and rules: their Info types.
#include "binding.hpp"

#include "fastlink/addr.hpp"
#include "fastlink/neigh.hpp"
#include "fastlink/route.hpp"
#include "fastlink/rule.hpp"

namespace fastlink::python {

namespace {
/// A rule's action as iproute2's word ("lookup", "goto", "nop", "blackhole", ...).
std::optional<fastlink::RuleAction> ruleActionParsed(const std::optional<std::string>& word) {
  if (!word) return std::nullopt;
  for (auto action : {fastlink::RuleAction::ToTable, fastlink::RuleAction::Goto, fastlink::RuleAction::Nop,
                      fastlink::RuleAction::Blackhole, fastlink::RuleAction::Unreachable, fastlink::RuleAction::Prohibit})
    if (fastlink::ruleActionName(action) == *word) return action;
  throw fastlink::Error::invalidArgument("rule", "unknown action '" + *word +
                                         "' (lookup, goto, nop, blackhole, unreachable, prohibit)");
}

// Text <-> value for the fields Python sees as strings. Parsing throws fastlink::Error (EINVAL)
}  // namespace

void bindAddrRouteNeighTypes(nb::module_& m) {
  using fastlink::AddrInfo;
  Fields<AddrInfo> addr(m, "AddrInfo", "An interface address (`ip addr`).");
  addr.text("address", &AddrInfo::address, "'10.0.0.1/24'")
      .rw("dev", &AddrInfo::dev, "required to add/delete; reported as an ifindex")
      .text("peer", &AddrInfo::peer)
      .text("broadcast", &AddrInfo::broadcast)
      .rw("label", &AddrInfo::label)
      .prop<std::optional<std::string>>(
          "scope", [](const AddrInfo& a) { return scopeText(a.scope); },
          [](AddrInfo& a, std::optional<std::string> v) { a.scope = scopeParsed(v); }, "'global', 'link', 'host', ...")
      .rw("flags", &AddrInfo::flags, "IFA_F_* bits")
      .rw("valid_lifetime", &AddrInfo::validLifetime, "seconds; 0xffffffff = forever")
      .rw("preferred_lifetime", &AddrInfo::preferredLifetime)
      .rw("metric", &AddrInfo::metric)
      .done();

  using fastlink::RoutePath;
  Fields<RoutePath> path(m, "RoutePath", "One path of a multipath route: `nexthop via GW dev D weight W`.");
  path.text("gateway", &RoutePath::gateway)
      .rw("dev", &RoutePath::dev)
      .rw("weight", &RoutePath::weight)
      .rw("onlink", &RoutePath::onlink)
      .done();

  using fastlink::RouteMetrics;
  Fields<RouteMetrics> metrics(m, "RouteMetrics", "Route metrics: `ip route add ... mtu N advmss N`.");
  metrics.rw("mtu", &RouteMetrics::mtu)
      .rw("advmss", &RouteMetrics::advmss)
      .rw("window", &RouteMetrics::window)
      .rw("hoplimit", &RouteMetrics::hoplimit)
      .rw("initcwnd", &RouteMetrics::initcwnd)
      .rw("initrwnd", &RouteMetrics::initrwnd)
      .done();

  using fastlink::RouteInfo;
  Fields<RouteInfo> route(m, "RouteInfo", "A route (`ip route`). dst is required to add or delete one.");
  route.text("dst", &RouteInfo::dst, "'10.1.0.0/16', 'default' is '0.0.0.0/0'")
      .rw("table", &RouteInfo::table, "default: main (254)")
      .prop<std::optional<std::string>>(
          "type", [](const RouteInfo& r) { return r.type ? std::optional(fastlink::routeTypeName(*r.type)) : std::nullopt; },
          [](RouteInfo& r, std::optional<std::string> v) {
            r.type = v ? std::optional(fastlink::parseRouteType(*v)) : std::nullopt;
          },
          "'unicast', 'blackhole', 'unreachable', 'local', ...")
      .prop<std::optional<uint8_t>>(
          "protocol",
          [](const RouteInfo& r) { return r.protocol ? std::optional(static_cast<uint8_t>(*r.protocol)) : std::nullopt; },
          [](RouteInfo& r, std::optional<uint8_t> v) {
            r.protocol = v ? std::optional(static_cast<fastlink::RouteProtocol>(*v)) : std::nullopt;
          },
          "who installed it, 0-255 (4 static, 186 bgp, ...)")
      .prop<std::optional<std::string>>(
          "scope", [](const RouteInfo& r) { return scopeText(r.scope); },
          [](RouteInfo& r, std::optional<std::string> v) { r.scope = scopeParsed(v); })
      .text("gateway", &RouteInfo::gateway)
      .rw("dev", &RouteInfo::dev)
      .rw("metric", &RouteInfo::metric)
      .text("prefsrc", &RouteInfo::prefsrc)
      .rw("tos", &RouteInfo::tos)
      .rw("nhid", &RouteInfo::nhid)
      .rw("metrics", &RouteInfo::metrics)
      .rw("paths", &RouteInfo::paths, "multipath: set instead of gateway/dev")
      .rw("onlink", &RouteInfo::onlink)
      .done();

  using fastlink::NeighInfo;
  Fields<NeighInfo> neigh(m, "NeighInfo", "A neighbour (ARP/NDP) entry (`ip neigh`).");
  neigh.text("dst", &NeighInfo::dst)
      .rw("dev", &NeighInfo::dev)
      .text("lladdr", &NeighInfo::lladdr)
      .prop<std::optional<std::string>>(
          "state",
          [](const NeighInfo& n) { return n.state ? std::optional(fastlink::neighStateName(*n.state)) : std::nullopt; },
          [](NeighInfo& n, std::optional<std::string> v) {
            n.state = v ? std::optional(fastlink::parseNeighState(*v)) : std::nullopt;
          },
          "'PERMANENT', 'REACHABLE', 'STALE', ... (iproute2's words)")
      .rw("router", &NeighInfo::router)
      .rw("proxy", &NeighInfo::proxy)
      .rw("extern_learn", &NeighInfo::externLearn)
      .rw("protocol", &NeighInfo::protocol)
      .done();

  using fastlink::RuleInfo;
  Fields<RuleInfo> rule(m, "RuleInfo", "A policy routing rule (`ip rule`).");
  rule.prop<std::optional<int>>(
          "family", [](const RuleInfo& r) { return familyNumber(r.family); },
          [](RuleInfo& r, std::optional<int> v) { r.family = familyOf(v); }, "4 or 6; taken from src/dst when unset")
      .rw("priority", &RuleInfo::priority, "`pref N`")
      .text("src", &RuleInfo::src, "`from PREFIX`")
      .text("dst", &RuleInfo::dst, "`to PREFIX`")
      .rw("iif", &RuleInfo::iif)
      .rw("oif", &RuleInfo::oif)
      .rw("fwmark", &RuleInfo::fwmark)
      .rw("fwmask", &RuleInfo::fwmask)
      .rw("tos", &RuleInfo::tos)
      .rw("table", &RuleInfo::table, "`lookup TABLE` (main when no action is given)")
      .prop<std::optional<std::string>>(
          "action", [](const RuleInfo& r) { return r.action ? std::optional(fastlink::ruleActionName(*r.action)) : std::nullopt; },
          [](RuleInfo& r, std::optional<std::string> v) { r.action = ruleActionParsed(v); },
          "'lookup', 'goto', 'nop', 'blackhole', 'unreachable', 'prohibit'")
      .rw("goto_target", &RuleInfo::gotoTarget, "`goto PRIORITY`")
      .rw("l3mdev", &RuleInfo::l3mdev)
      .rw("ip_proto", &RuleInfo::ipProto)
      .rw("invert", &RuleInfo::invert, "`not`")
      .rw("protocol", &RuleInfo::protocol)
      .done();
}

}  // namespace fastlink::python
