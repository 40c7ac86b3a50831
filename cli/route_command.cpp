// The `route` object: `fastlink route { add | del | replace | append | show | get | flush }`,
// iproute2 grammar. Every change is a PreparedRequest, so `-batch` files can hold a million
// `route add` lines.
#include <fmt/format.h>

#include <map>
#include <memory>

#include "args.hpp"
#include "command.hpp"
#include "fastlink/route.hpp"
#include "output.hpp"

namespace fastlink::cli {
namespace {

constexpr const char* kUsage = R"(Usage: fastlink route { add | del | replace | append } ROUTE
       fastlink route [ show ] [ table TABLE | all ] [ proto PROTO ] [ dev DEV ] [ type TYPE ] [ -4 | -6 ]
       fastlink route flush [ table TABLE | all ] [ proto PROTO ] [ dev DEV ] [ type TYPE ] [ -4 | -6 ]
       fastlink route get ADDRESS [ from ADDRESS ] [ iif DEV ] [ oif DEV ] [ vrf NAME | table TABLE ]
                                  [ mark MARK ] [ fibmatch ]
ROUTE := [ TYPE ] PREFIX [ via ADDRESS ] [ dev DEV ] [ table TABLE ] [ metric N ] [ proto PROTO ]
         [ scope SCOPE ] [ src ADDRESS ] [ tos TOS ] [ mtu N ] [ advmss N ] [ hoplimit N ] [ window N ]
         [ initcwnd N ] [ initrwnd N ] [ onlink ] [ nhid ID ] [ NEXTHOP ... ]
NEXTHOP := nexthop [ via ADDRESS ] [ dev DEV ] [ weight 1-256 ] [ onlink ]
PREFIX := default | ADDRESS[/LENGTH]
TYPE := unicast | local | broadcast | multicast | blackhole | unreachable | prohibit | throw | nat
TABLE := main | local | default | a name from rt_tables / rt_tables.d/*.conf | 0-4294967295)";

bool isHelp(const Args& args) { return args.peek() == "help"; }

uint32_t parseTable(std::string_view text) {
  try {
    return RouteNames::system().tableId(text);
  } catch (const Error& e) {
    throw UsageError("table: " + e.reason());
  }
}

RouteProtocol parseProtocol(std::string_view text) {
  try {
    return RouteNames::system().protocol(text);
  } catch (const Error& e) {
    throw UsageError("proto: " + e.reason());
  }
}

template <class F>
auto orUsage(std::string_view keyword, F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    throw UsageError(fmt::format("{}: {}", keyword, e.reason()));
  }
}

/// A parsed route line, plus the device names to resolve when it is encoded.
struct ParsedRoute {
  RouteInfo info;
  std::optional<std::string> dev;
  std::vector<std::optional<std::string>> pathDevs;
  bool isDefault = false;

  std::vector<std::string> names() const {
    std::vector<std::string> out;
    if (dev) out.push_back(*dev);
    for (const auto& d : pathDevs)
      if (d) out.push_back(*d);
    return out;
  }
  RouteInfo resolved(Resolver& r) const {
    RouteInfo out = info;
    if (dev) out.dev = Ifref(r.index(*dev));
    for (std::size_t i = 0; i < pathDevs.size(); ++i)
      if (pathDevs[i]) out.paths[i].dev = Ifref(r.index(*pathDevs[i]));
    return out;
  }
};

bool isRouteType(std::string_view w) {
  for (const char* t : {"unicast", "local", "broadcast", "anycast", "multicast", "blackhole", "unreachable", "prohibit",
                        "throw", "nat", "xresolve"})
    if (w == t) return true;
  return false;
}

RoutePath parsePath(Args& args, std::optional<std::string>& dev) {
  RoutePath p;
  while (!args.done() && args.peek() != "nexthop") {
    if (args.accept("via")) {
      if (args.peek() == "inet" || args.peek() == "inet6") args.next();
      p.gateway = parseIp(args.value("via"), "via");
    } else if (args.accept("dev")) {
      dev = parseIfname(args.value("dev"), "dev");
    } else if (args.accept("weight")) {
      p.weight = static_cast<uint16_t>(parseU32(args.value("weight"), "weight", 1, 256));
    } else if (args.accept("onlink")) {
      p.onlink = true;
    } else {
      args.unknown("nexthop takes: via ADDRESS, dev DEV, weight N, onlink");
    }
  }
  return p;
}

ParsedRoute parseRoute(Args& args, bool del) {
  ParsedRoute p;
  RouteMetrics metrics;
  bool haveMetrics = false;
  if (isRouteType(args.peek())) p.info.type = parseRouteType(args.next());
  if (args.done()) throw UsageError("route: a destination prefix is required (PREFIX or default)");
  std::string dst = args.next();
  if (dst == "default" || dst == "all" || dst == "any") p.isDefault = true;
  else p.info.dst = orUsage("prefix", [&] { return Prefix::parse(dst); });
  auto metric = [&](std::string_view keyword) {
    if (args.accept("lock")) metrics.lock = metrics.lock.value_or(0);  // accepted, not locked (rare)
    haveMetrics = true;
    return parseU32(args.value(keyword), keyword);
  };
  while (!args.done()) {
    if (args.accept("via")) {
      if (args.peek() == "inet" || args.peek() == "inet6") args.next();
      p.info.gateway = parseIp(args.value("via"), "via");
    } else if (args.acceptAny({"dev", "oif"})) {
      p.dev = parseIfname(args.value("dev"), "dev");
    } else if (args.accept("table")) {
      p.info.table = parseTable(args.value("table"));
    } else if (args.acceptAny({"metric", "priority", "preference"})) {
      p.info.metric = parseU32(args.value("metric"), "metric");
    } else if (args.acceptAny({"proto", "protocol"})) {
      p.info.protocol = parseProtocol(args.value("proto"));
    } else if (args.accept("scope")) {
      std::string s = args.value("scope");
      p.info.scope = orUsage("scope", [&] { return parseScope(s); });
    } else if (args.acceptAny({"src", "prefsrc"})) {
      p.info.prefsrc = parseIp(args.value("src"), "src");
    } else if (args.acceptAny({"tos", "dsfield"})) {
      p.info.tos = static_cast<uint8_t>(parseU32(args.value("tos"), "tos", 0, 255));
    } else if (args.accept("mtu")) {
      metrics.mtu = metric("mtu");
    } else if (args.accept("advmss")) {
      metrics.advmss = metric("advmss");
    } else if (args.accept("hoplimit")) {
      metrics.hoplimit = metric("hoplimit");
    } else if (args.accept("window")) {
      metrics.window = metric("window");
    } else if (args.accept("initcwnd")) {
      metrics.initcwnd = metric("initcwnd");
    } else if (args.accept("initrwnd")) {
      metrics.initrwnd = metric("initrwnd");
    } else if (args.accept("onlink")) {
      p.info.onlink = true;
    } else if (args.accept("nhid")) {
      p.info.nhid = parseU32(args.value("nhid"), "nhid", 1);
    } else if (args.accept("type")) {
      p.info.type = orUsage("type", [&] { return parseRouteType(args.value("type")); });
    } else if (args.accept("nexthop")) {
      std::optional<std::string> dev;
      p.info.paths.push_back(parsePath(args, dev));
      p.pathDevs.push_back(dev);
    } else {
      args.unknown("expected a route option");
    }
  }
  if (haveMetrics) p.info.metrics = metrics;
  if (p.isDefault) {
    // The family of "default" follows the addresses given, like iproute2 with -4/-6 unset.
    IpAddress::Family f = IpAddress::Family::v4;
    if (p.info.gateway) f = p.info.gateway->family();
    else if (p.info.prefsrc) f = p.info.prefsrc->family();
    else if (!p.info.paths.empty() && p.info.paths[0].gateway) f = p.info.paths[0].gateway->family();
    p.info.dst = Prefix::any(f);
  }
  (void)del;
  return p;
}

PreparedRequest prepareChange(Args& args, const std::string& verb) {
  std::string text = args.text();  // errors name the devices as typed, not their ifindexes
  auto p = std::make_shared<ParsedRoute>(parseRoute(args, verb == "del"));
  PreparedRequest r;
  r.needs = p->names();
  r.device = p->dev;
  r.encode = [p, verb, text](Resolver& res) {
    RouteInfo route = p->resolved(res);
    if (verb == "add") return asTyped(RouteRequests::add(route), text);
    if (verb == "replace") return asTyped(RouteRequests::replace(route), text);
    if (verb == "append") return asTyped(RouteRequests::append(route), text);
    return asTyped(RouteRequests::del(route), text);
  };
  return r;
}

PreparedRequest prepareRoute(Context&, Args& args) {
  if (args.done()) throw UsageError("route: a verb is required (add, del, replace, append, show, get, flush)");
  for (const char* verb : {"add", "replace", "append"})
    if (args.accept(verb)) return isHelp(args) ? throw UsageError(kUsage) : prepareChange(args, verb);
  if (args.acceptAny({"del", "delete"})) return isHelp(args) ? throw UsageError(kUsage) : prepareChange(args, "del");
  if (args.acceptAny({"show", "list", "ls", "lst", "get", "flush"}))
    throw UsageError("route show/get/flush cannot be used in a batch (a batch sends one request per line)");
  args.unknown("route verbs: add, del, replace, append, show, get, flush");
}

// ---- Output ----------------------------------------------------------------------------------

using Names = std::map<uint32_t, std::string>;

Names deviceNames(Netlink& nl) {
  Names out;
  for (const auto& l : nl.links().list()) out[*l.index] = l.name.value_or(std::to_string(*l.index));
  return out;
}

std::string devName(const Names& names, uint32_t index) {
  auto it = names.find(index);
  return it == names.end() ? std::to_string(index) : it->second;
}

std::string dstText(const RouteInfo& r) {
  if (!r.dst) return "?";
  if (r.dst->isDefault()) return "default";
  return r.dst->toString();
}

nlohmann::json flagsJson(uint32_t flags) {
  nlohmann::json f = nlohmann::json::array();
  if (flags & 1) f.push_back("dead");       // RTNH_F_DEAD
  if (flags & 2) f.push_back("pervasive");  // RTNH_F_PERVASIVE
  if (flags & 4) f.push_back("onlink");     // RTNH_F_ONLINK
  if (flags & 8) f.push_back("offload");
  if (flags & 16) f.push_back("linkdown");
  if (flags & 32) f.push_back("unresolved");
  if (flags & 64) f.push_back("trap");
  return f;
}

/// One route in iproute2's JSON vocabulary (`ip -j route show`).
nlohmann::json routeJson(const RouteInfo& r, const Names& names, bool showTable) {
  nlohmann::json j;
  const RouteNames& rn = RouteNames::system();
  if (r.type && *r.type != RouteType::Unicast) j["type"] = routeTypeName(*r.type);
  j["dst"] = dstText(r);
  if (r.nhid) j["nhid"] = *r.nhid;
  if (r.gateway) j["gateway"] = r.gateway->toString();
  if (r.devIndex()) j["dev"] = devName(names, r.devIndex());
  if (showTable && r.table && *r.table != kTableMain) j["table"] = rn.tableName(*r.table);
  // A lookup result (`route get`) is a clone: iproute2 leaves out its protocol and scope.
  bool cloned = r.isCloned();
  if (!cloned && r.protocol && *r.protocol != RouteProtocol::Boot) j["protocol"] = rn.protocolName(*r.protocol);
  if (!cloned && r.scope && *r.scope != Scope::Universe) j["scope"] = scopeName(*r.scope);
  if (r.metric) j["metric"] = *r.metric;
  if (r.prefsrc) j["prefsrc"] = r.prefsrc->toString();
  j["flags"] = flagsJson(r.flags.value_or(0) & 0xff);
  if (r.metrics && !r.metrics->empty()) {
    nlohmann::json m;
    if (r.metrics->mtu) m["mtu"] = *r.metrics->mtu;
    if (r.metrics->advmss) m["advmss"] = *r.metrics->advmss;
    if (r.metrics->window) m["window"] = *r.metrics->window;
    if (r.metrics->hoplimit) m["hoplimit"] = *r.metrics->hoplimit;
    if (r.metrics->initcwnd) m["initcwnd"] = *r.metrics->initcwnd;
    if (r.metrics->initrwnd) m["initrwnd"] = *r.metrics->initrwnd;
    j["metrics"] = nlohmann::json::array({m});
  }
  if (!r.paths.empty()) {
    nlohmann::json hops = nlohmann::json::array();
    for (const auto& p : r.paths) {
      nlohmann::json h;
      if (p.gateway) h["gateway"] = p.gateway->toString();
      if (p.dev && p.dev->isIndex()) h["dev"] = devName(names, p.dev->index());
      h["weight"] = p.weight;
      h["flags"] = flagsJson(p.flags);
      hops.push_back(h);
    }
    j["nexthops"] = hops;
  }
  return j;
}

/// One route as `ip route show` prints it.
std::string routeText(const RouteInfo& r, const Names& names, bool showTable) {
  const RouteNames& rn = RouteNames::system();
  TextLine line;
  if (r.type && *r.type != RouteType::Unicast) line.add(routeTypeName(*r.type));
  line.add(dstText(r));
  if (r.nhid) line.add("nhid", *r.nhid);
  if (r.gateway) line.add("via", r.gateway->toString());
  if (r.devIndex()) line.add("dev", devName(names, r.devIndex()));
  if (showTable && r.table && *r.table != kTableMain) line.add("table", rn.tableName(*r.table));
  bool cloned = r.isCloned();
  if (!cloned && r.protocol && *r.protocol != RouteProtocol::Boot) line.add("proto", rn.protocolName(*r.protocol));
  if (!cloned && r.scope && *r.scope != Scope::Universe) line.add("scope", scopeName(*r.scope));
  if (r.metric) line.add("metric", *r.metric);
  if (r.prefsrc) line.add("src", r.prefsrc->toString());
  for (const auto& f : flagsJson(r.flags.value_or(0) & 0xff)) line.add(f.get<std::string>());
  if (r.metrics) {
    if (r.metrics->mtu) line.add("mtu", *r.metrics->mtu);
    if (r.metrics->advmss) line.add("advmss", *r.metrics->advmss);
  }
  std::string text = line.str();
  for (const auto& p : r.paths) {
    TextLine hop("\n\tnexthop");
    if (p.gateway) hop.add("via", p.gateway->toString());
    if (p.dev && p.dev->isIndex()) hop.add("dev", devName(names, p.dev->index()));
    hop.add("weight", p.weight);
    for (const auto& f : flagsJson(p.flags)) hop.add(f.get<std::string>());
    text += hop.str();
  }
  return text;
}

/// `[table T|all] [proto P] [dev D] [type T] [-4|-6]`; default: table main, IPv4 (like ip).
RouteFilter parseFilter(Args& args, bool& showTable) {
  RouteFilter f;
  f.setTable(kTableMain);
  f.setFamily(IpAddress::Family::v4);
  showTable = false;
  bool familyGiven = false;
  while (!args.done()) {
    if (args.accept("table")) {
      std::string t = args.value("table");
      if (t == "all") {
        f.table.reset();
        showTable = true;
        if (!familyGiven) f.family.reset();
      } else {
        f.table = parseTable(t);
      }
    } else if (args.acceptAny({"proto", "protocol"})) {
      f.protocol = parseProtocol(args.value("proto"));
    } else if (args.acceptAny({"dev", "oif"})) {
      f.dev = Ifref(parseIfname(args.value("dev"), "dev"));
    } else if (args.accept("type")) {
      std::string t = args.value("type");
      f.type = orUsage("type", [&] { return parseRouteType(t); });
    } else if (args.acceptAny({"-4", "inet"})) {
      f.family = IpAddress::Family::v4, familyGiven = true;
    } else if (args.acceptAny({"-6", "inet6"})) {
      f.family = IpAddress::Family::v6, familyGiven = true;
    } else {
      args.unknown("route show takes: table T|all, proto P, dev D, type T, -4, -6");
    }
  }
  return f;
}

int failed(const Error& e) {
  printError(fmt::format("{} ({})", failureReason(e, nullptr), e.operation()));
  return kExitFailed;
}

int showRoutes(Context& ctx, Args& args) {
  bool showTable = false;
  RouteFilter f = parseFilter(args, showTable);
  Netlink& nl = ctx.netlink();
  try {
    Names names = deviceNames(nl);
    if (ctx.options().json) {
      JsonArrayWriter out(stdout, ctx.options().pretty);
      nl.routes().forEach(f, [&](const RouteInfo& r) { out.add(routeJson(r, names, showTable)); });
    } else {
      nl.routes().forEach(f, [&](const RouteInfo& r) { printLine(routeText(r, names, showTable)); });
    }
  } catch (const Error& e) {
    return failed(e);
  }
  return kExitOk;
}

int flushRoutes(Context& ctx, Args& args) {
  bool showTable = false;
  RouteFilter f = parseFilter(args, showTable);
  try {
    ctx.netlink().routes().flush(f);
  } catch (const Error& e) {
    return failed(e);
  }
  return kExitOk;
}

int getRoute(Context& ctx, Args& args) {
  if (args.done()) throw UsageError("route get: an address is required");
  if (args.accept("to")) {}
  RouteQuery q(parseIp(args.next(), "route get"));
  while (!args.done()) {
    if (args.accept("from")) q.from = parseIp(args.value("from"), "from");
    else if (args.accept("iif")) q.iif = Ifref(parseIfname(args.value("iif"), "iif"));
    else if (args.accept("oif")) q.oif = Ifref(parseIfname(args.value("oif"), "oif"));
    else if (args.accept("vrf")) q.vrf = Ifref(parseIfname(args.value("vrf"), "vrf"));
    else if (args.accept("table")) q.table = parseTable(args.value("table"));
    else if (args.accept("mark")) q.mark = parseU32(args.value("mark"), "mark");
    else if (args.accept("fibmatch")) q.fibMatch = true;
    else args.unknown("route get takes: from A, iif D, oif D, vrf NAME, table T, mark M, fibmatch");
  }
  Netlink& nl = ctx.netlink();
  try {
    RouteInfo r = nl.routes().get(q);
    Names names = deviceNames(nl);
    if (ctx.options().json) {
      nlohmann::json j = routeJson(r, names, false);
      if (r.table) j["table"] = RouteNames::system().tableName(*r.table);
      JsonArrayWriter out(stdout, ctx.options().pretty);
      out.add(j);
    } else {
      std::string text = routeText(r, names, false);
      if (r.table && *r.table != kTableMain) text += " table " + RouteNames::system().tableName(*r.table);
      printLine(text);
    }
  } catch (const Error& e) {
    return failed(e);
  }
  return kExitOk;
}

int runRoute(Context& ctx, Args& args) {
  if (args.done()) return showRoutes(ctx, args);
  if (args.accept("help")) {
    printLine(kUsage);
    return kExitOk;
  }
  if (args.acceptAny({"show", "list", "ls", "lst"})) return showRoutes(ctx, args);
  if (args.accept("get")) return getRoute(ctx, args);
  if (args.accept("flush")) return flushRoutes(ctx, args);
  return runPrepared(ctx, prepareRoute(ctx, args));
}

const Registrar kRoute{ObjectCommand{.name = "route", .aliases = {"r", "ro", "rou"}, .usage = kUsage, .run = runRoute,
                                     .prepare = prepareRoute}};

}  // namespace
}  // namespace fastlink::cli
