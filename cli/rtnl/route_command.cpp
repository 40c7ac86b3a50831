// The `route` object: `fastlink route { add | del | replace | append | show | get | flush }`,
// iproute2 grammar. Every change is a PreparedRequest, so `-batch` files can hold a million
// `route add` lines.
#include <fmt/format.h>
#include <linux/rtnetlink.h>

#include <cstring>
#include <memory>
#include <unordered_map>

#include "kit/args.hpp"
#include "kit/command.hpp"
#include "fastlink/link_view.hpp"
#include "kit/failure.hpp"
#include "kit/device_names.hpp"
#include "kit/field_stream.hpp"
#include "fastlink/route.hpp"
#include "fastlink/route_view.hpp"
#include "kit/ip_compat.hpp"
#include "kit/ip_names.hpp"
#include "kit/output.hpp"
#include "kit/writer.hpp"
#include "rtnl/ip_object.hpp"
#include "rtnl/ip_print.hpp"
#include "rtnl/route_words.hpp"

namespace fastlink::cli {
namespace {

constexpr const char* kUsage = R"(Usage: fastlink route { add | del | replace | append | prepend | change } ROUTE
       fastlink route [ show ] [ table TABLE | all | vrf NAME ] [ proto PROTO ] [ dev DEV ] [ type TYPE ] [ via PREFIX ] [ src PREFIX ] [ -4 | -6 ]
       fastlink route flush [ table TABLE | all ] [ proto PROTO ] [ dev DEV ] [ type TYPE ] [ -4 | -6 ]
       fastlink route get ADDRESS [ from ADDRESS ] [ iif DEV ] [ oif DEV ] [ vrf NAME | table TABLE ]
                                  [ mark MARK ] [ fibmatch ]
ROUTE := [ TYPE ] PREFIX [ via ADDRESS ] [ dev DEV ] [ table TABLE | vrf NAME ] [ metric N ] [ proto PROTO ]
         [ scope SCOPE ] [ src ADDRESS ] [ tos TOS ] [ mtu N ] [ advmss N ] [ hoplimit N ] [ window N ]
         [ initcwnd N ] [ initrwnd N ] [ onlink ] [ nhid ID ] [ pref { low | medium | high } ]
         [ NEXTHOP ... ]
NEXTHOP := nexthop [ via ADDRESS ] [ dev DEV ] [ weight 1-256 ] [ onlink ]
PREFIX := default | ADDRESS[/LENGTH]
TYPE := unicast | local | broadcast | multicast | blackhole | unreachable | prohibit | throw | nat
TABLE := main | local | default | a name from rt_tables / rt_tables.d/*.conf | 0-4294967295)";

bool isHelp(const Args& args) { return args.peek() == "help"; }

/// The table of VRF `name`, found as ip finds it (ipvrf_get_table): the VRF device's table;
/// `default`, when no device has that name, is main. A device that is no VRF, or none, is refused
/// as ip refuses it (status 255).
uint32_t vrfTable(Context& ctx, const std::string& name) {
  std::optional<LinkInfo> l = ctx.netlink().links().find(Ifref(name));
  if (!l && name == "default") return kTableMain;
  if (l && l->kind == "vrf" && l->vrf && l->vrf->table) return *l->vrf->table;
  throw UsageError(fmt::format("argument \"{}\" is wrong: Invalid VRF", name));
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

/// The metrics `route add` takes (RTAX_*), as ip words them: the member and the keyword.
using Metric = std::pair<std::optional<uint32_t> RouteMetrics::*, std::string_view>;
constexpr std::pair<std::string_view, Metric> kMetricWords[] = {
    {"mtu", {&RouteMetrics::mtu, "mtu"}},           {"advmss", {&RouteMetrics::advmss, "advmss"}},
    {"hoplimit", {&RouteMetrics::hoplimit, "hoplimit"}}, {"window", {&RouteMetrics::window, "window"}},
    {"initcwnd", {&RouteMetrics::initcwnd, "initcwnd"}}, {"initrwnd", {&RouteMetrics::initrwnd, "initrwnd"}},
};

ParsedRoute parseRoute(Context& ctx, Args& args, bool del) {
  ParsedRoute p;
  RouteMetrics metrics;
  bool haveMetrics = false;
  if (isRouteType(args.peek())) p.info.type = parseRouteType(args.next());
  args.accept("to");  // `route add to PREFIX`, as ip (also after the type: `to unicast` is not)
  if (args.done()) throw UsageError("route: a destination prefix is required (PREFIX or default)");
  std::string dst = args.next();
  if (dst == "default" || dst == "all" || dst == "any") p.isDefault = true;
  else p.info.dst = parsePrefixAs("prefix", dst);  // ip: exit status 1
  if (p.info.dst) requireFamily(ctx, p.info.dst->address().family(), dst, "prefix");  // `ip -6 route add 10.0.0.0/8`
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
      p.info.table = parseRouteTable(args.value("table"));
    } else if (args.accept("vrf")) {
      p.info.table = vrfTable(ctx, args.value("vrf"));  // looked up when the line is read, as ip does
    } else if (args.acceptAny({"metric", "priority", "preference"})) {
      p.info.metric = parseU32(args.value("metric"), "metric");
    } else if (args.acceptAny({"proto", "protocol"})) {
      p.info.protocol = parseRouteProtocol(args.value("proto"));
    } else if (args.accept("scope")) {
      std::string s = args.value("scope");
      p.info.scope = orUsage("scope", [&] { return parseScope(s); });
    } else if (args.acceptAny({"src", "prefsrc"})) {
      p.info.prefsrc = parseIp(args.value("src"), "src");
    } else if (args.acceptAny({"tos", "dsfield"})) {
      // ip's rtnl_dsfield_a2n: hexadecimal with or without 0x (`tos 16` is 0x16), as rule's.
      std::string text = args.value("tos");
      if (!text.starts_with("0x") && !text.starts_with("0X")) text = "0x" + text;
      p.info.tos = static_cast<uint8_t>(parseInteger(text, "tos", 0, 255));
    } else if (auto member = args.acceptFrom(kMetricWords)) {
      metrics.*member->first = metric(member->second);
    } else if (args.accept("onlink")) {
      p.info.onlink = true;
    } else if (args.accept("nhid")) {
      p.info.nhid = parseU32(args.value("nhid"), "nhid", 1);
    } else if (args.accept("type")) {
      p.info.type = orUsage("type", [&] { return parseRouteType(args.value("type")); });
    } else if (args.accept("pref")) {
      std::string v = args.value("pref");
      if (v == "low") p.info.pref = 3;  // ICMPV6_ROUTER_PREF_* (RFC 4191)
      else if (v == "medium") p.info.pref = 0;
      else if (v == "high") p.info.pref = 1;
      else throw UsageError("pref: \"" + v + "\" is not low, medium or high");
    } else if (args.accept("nexthop")) {
      std::optional<std::string> dev;
      p.info.paths.push_back(parsePath(args, dev));
      p.pathDevs.push_back(dev);
    } else {
      args.unknown("expected a route option");
    }
  }
  if (haveMetrics) p.info.metrics = metrics;
  // As ip: without `table`, local, broadcast, nat and anycast routes go to the local table.
  if (auto t = p.info.type; !p.info.table && t &&
                            (*t == RouteType::Local || *t == RouteType::Broadcast || *t == RouteType::Nat ||
                             *t == RouteType::Anycast))
    p.info.table = kTableLocal;
  if (p.isDefault) {
    // -4/-6 choose it as ip's preferred_family does (`ip -6 route add default dev v0`); else it
    // follows the addresses given, like iproute2 with -4/-6 unset.
    IpAddress::Family f = IpAddress::Family::v4;
    if (auto option = familyOption(ctx)) f = *option;
    else if (p.info.gateway) f = p.info.gateway->family();
    else if (p.info.prefsrc) f = p.info.prefsrc->family();
    else if (!p.info.paths.empty() && p.info.paths[0].gateway) f = p.info.paths[0].gateway->family();
    p.info.dst = Prefix::any(f);
  }
  // A gateway of the other family is a bad value for ip (1), found before anything is sent.
  if (p.info.gateway && p.info.gateway->family() != p.info.dst->family())
    throw BadValueError(fmt::format("{} address is expected rather than \"{}\".",
                                    p.info.dst->isV4() ? "inet" : "inet6", p.info.gateway->toString()));
  (void)del;
  return p;
}

/// ip's `route prepend`: a create without NLM_F_EXCL (nor APPEND or REPLACE): the kernel puts
/// the route before those with the same key. `request` is `route add`'s, its EXCL cleared.
Request withoutExclusive(const Request& request) {
  std::vector<uint8_t> bytes(request.bytes().begin(), request.bytes().end());
  nlmsghdr header;
  std::memcpy(&header, bytes.data(), sizeof header);
  header.nlmsg_flags &= ~NLM_F_EXCL;
  std::memcpy(bytes.data(), &header, sizeof header);
  std::string operation = request.operation();
  if (operation.starts_with("route add")) operation.replace(6, 3, "prepend");
  return Request(std::move(bytes), std::move(operation));
}

PreparedRequest prepareChange(Context& ctx, Args& args, const std::string& verb) {
  auto p = std::make_shared<ParsedRoute>(parseRoute(ctx, args, verb == "del"));
  PreparedRequest r;
  r.needs = p->names();
  r.device = p->dev;
  r.namedAsTyped = true;  // errors name the devices as typed, not their ifindexes
  r.encode = [p, verb](Resolver& res) {
    RouteInfo route = p->resolved(res);
    if (verb == "add") return RouteRequests::add(route);
    if (verb == "replace") return RouteRequests::replace(route);
    if (verb == "append") return RouteRequests::append(route);
    if (verb == "prepend") return withoutExclusive(RouteRequests::add(route));
    if (verb == "change") return RouteRequests::change(route);
    return RouteRequests::del(route);
  };
  return r;
}

PreparedRequest prepareRoute(Context& ctx, Args& args) {
  if (args.done()) throw UsageError("route: a verb is required (add, del, replace, append, prepend, change, show, get, flush)");
  for (const char* verb : {"add", "replace", "append", "prepend", "change"})
    if (args.accept(verb)) return isHelp(args) ? throw UsageError(kUsage) : prepareChange(ctx, args, verb);
  if (args.acceptAny({"del", "delete"})) return isHelp(args) ? throw UsageError(kUsage) : prepareChange(ctx, args, "del");
  if (args.acceptAny({"show", "list", "ls", "lst", "get", "flush"}))
    throw UsageError("route show/get/flush cannot be used in a batch (a batch sends one request per line)");
  args.unknown("route verbs: add, del, replace, append, prepend, change, show, get, flush");
}

// ---- Output ----------------------------------------------------------------------------------
// Streams: each route is written to the OutBuffer as it is decoded, text and JSON by the same
// calls (kit/field_stream.hpp), in ip's field order (`ip route show` / `ip -j route show`).

/// Names of tables, protocols, scopes and types, formatted once per value rather than per route.
class RouteWords {
 public:
  const std::string& table(uint32_t id) { return cached(tables_, id, [&] { return ipTableName(id); }); }
  const std::string& protocol(RouteProtocol p) {
    return cached(protocols_, static_cast<uint32_t>(p), [&] { return ipProtocolName(p); });
  }
  const std::string& scope(Scope s) { return cached(scopes_, static_cast<uint32_t>(s), [&] { return ipScopeName(s); }); }
  const std::string& type(RouteType t) { return cached(types_, static_cast<uint32_t>(t), [&] { return ipRouteTypeName(t); }); }

 private:
  template <class F>
  static const std::string& cached(std::unordered_map<uint32_t, std::string>& cache, uint32_t key, F&& make) {
    auto it = cache.find(key);
    if (it == cache.end()) it = cache.emplace(key, make()).first;
    return it->second;
  }
  std::unordered_map<uint32_t, std::string> tables_, protocols_, scopes_, types_;
};

/// RTNH_F_* bits (a route's and a nexthop's flags) as iproute2 names them, in its order.
constexpr std::pair<uint32_t, const char*> kNexthopFlags[] = {
    {1, "dead"}, {2, "pervasive"}, {4, "onlink"}, {8, "offload"}, {16, "linkdown"}, {32, "unresolved"}, {64, "trap"}};

/// ICMPv6 router preference (RFC 4191) as ip prints it; nullptr for a value it has no word for.
constexpr const char* routePrefName(uint8_t pref) {
  switch (pref) {
    case 0: return "medium";
    case 1: return "high";
    case 3: return "low";
    default: return nullptr;
  }
}

/// RTCF_* (linux/in_route.h), the routing cache flags in the high half of rtm_flags of an IPv4
/// lookup result, as ip's print_cache_flags names them, in its order.
constexpr std::pair<uint32_t, const char*> kCacheFlags[] = {
    {0x80000000u, "local"},      {0x40000000u, "reject"},     {0x20000000u, "mc"},     {0x10000000u, "brd"},
    {0x08000000u, "dst-nat"},    {0x00800000u, "snat"},       {0x00400000u, "masq"},   {0x04000000u, "dst-direct"},
    {0x00040000u, "redirected"}, {0x01000000u, "redirect"},   {0x00200000u, "fastroute"}, {0x00010000u, "notify"},
    {0x00080000u, "tproxy"}};

/// The names of the cache flags set in `flags` (bits ip has no name for: one hex word).
std::vector<std::string> cacheFlagNames(uint32_t flags) {
  flags &= ~0xffffu;
  std::vector<std::string> out;
  for (const auto& [bit, name] : kCacheFlags)
    if (flags & bit) out.emplace_back(name), flags &= ~bit;
  if (flags) out.push_back(fmt::format("{:x}", flags));
  return out;
}

/// A RouteInfo read through RouteView's accessors, so that one printer serves `route get` (an
/// owning object) and the views of a dump (`route show`, nothing decoded into a RouteInfo). The
/// header's fields the decoder always sets read as the view reads them.
class RouteInfoFields {
 public:
  explicit RouteInfoFields(const RouteInfo& r) : r_(r) {}
  uint8_t tos() const { return r_.tos.value_or(0); }
  RouteType type() const { return r_.type.value_or(RouteType::Unicast); }
  uint32_t table() const { return r_.table.value_or(kTableMain); }
  RouteProtocol protocol() const { return r_.protocol.value_or(RouteProtocol::Boot); }
  Scope scope() const { return r_.scope.value_or(Scope::Universe); }
  uint32_t flags() const { return r_.flags.value_or(0); }
  bool isCloned() const { return r_.isCloned(); }
  IpAddress::Family family() const { return r_.family(); }
  const std::optional<Prefix>& dst() const { return r_.dst; }
  const std::optional<Prefix>& src() const { return r_.src; }
  const std::optional<IpAddress>& gateway() const { return r_.gateway; }
  uint32_t devIndex() const { return r_.devIndex(); }
  std::optional<uint32_t> metric() const { return r_.metric; }
  const std::optional<IpAddress>& prefsrc() const { return r_.prefsrc; }
  std::optional<uint32_t> nhid() const { return r_.nhid; }
  std::optional<uint8_t> pref() const { return r_.pref; }
  std::optional<uint32_t> uid() const { return r_.uid; }
  std::optional<uint32_t> expires() const { return r_.expires; }
  std::optional<uint32_t> mark() const { return r_.mark; }
  const std::optional<RouteMetrics>& metrics() const { return r_.metrics; }
  bool isMultipath() const { return !r_.paths.empty(); }
  const std::vector<RoutePath>& paths() const { return r_.paths; }

 private:
  const RouteInfo& r_;
};

/// RTA_MARK of a view (a lookup's firewall mark; RouteView has no reader of its own for it).
std::optional<uint32_t> markOf(const RouteView& r) {
  auto a = r.attribute(RTA_MARK);
  if (!a || a->size() < sizeof(uint32_t)) return std::nullopt;
  uint32_t mark;
  std::memcpy(&mark, a->data(), sizeof mark);
  return mark;
}
std::optional<uint32_t> markOf(const RouteInfoFields& r) { return r.mark(); }
/// RTA_FLOW (the realms: from in the high half, to in the low); RouteInfo does not carry it.
std::optional<uint32_t> flowOf(const RouteView& r) {
  auto flow = r.attribute(RTA_FLOW);
  if (!flow || flow->size() < 4) return std::nullopt;
  uint32_t v;
  std::memcpy(&v, flow->data(), 4);
  return v;
}
std::optional<uint32_t> flowOf(const RouteInfoFields&) { return std::nullopt; }

/// `-j`'s `"flow": {"from": REALM, "to": REALM}` (ip's print_rta_flow; from only when set).
struct FlowJson {
  uint32_t flow;
};

}  // namespace

template <>
void putJson<FlowJson>(JsonOut& j, const FlowJson& f) {
  OutBuffer& out = j.rawValue();
  out.put('{');
  if (uint32_t from = f.flow >> 16) out.put("\"from\":").putJsonString(ipRealmName(from)).put(',');
  out.put("\"to\":").putJsonString(ipRealmName(f.flow & 0xffff)).put('}');
}

namespace {

/// An IPv4 lookup result (RTM_F_CLONED): ip adds its `cache` line.
bool isIpv4Cache(bool cloned, const std::optional<Prefix>& dst) { return cloned && dst && dst->isV4(); }

struct RoutePrinter {
  DeviceNames& names;
  RouteWords words;
  bool showTable = false;
  bool isGet = false;  ///< `route get`: the table is always named
  bool hideDev = false;    ///< `route show dev D`: ip leaves out what the filter fixed
  bool hideProto = false;  ///< `route show proto P`: likewise
  bool hideScope = false;  ///< `route show scope S`: likewise
  bool hideGateway = false;  ///< `route show via A` (a host address, not a shorter prefix): likewise
  bool hidePrefsrc = false;  ///< `route show src A`: likewise
  bool oneline = false;    ///< -o: ip's line break before `cache` becomes ` \`
  /// -d: ip names what it otherwise leaves to the defaults: the type (unicast), the table
  /// (main, where it names tables), the protocol (boot) and the scope (global).
  bool details = false;

  /// One route, text or JSON by the same calls (ip's order: type, dst, from, nhid, gateway,
  /// dev, table, protocol, scope, prefsrc, metric, flags, mark, uid, cache, expires, metrics,
  /// pref, nexthops).
  template <class Fields, class Route>
  void print(Fields& f, const Route& r) {
    f.begin();
    if (RouteType type = r.type(); type != RouteType::Unicast || details) f.any("type", "", words.type(type));
    const auto& dst = r.dst();
    if (!dst) f.any("dst", "", "?");
    else if (dst->isDefault()) f.any("dst", "", "default");
    else if (ipNameOptions.resolve && dst->isHost()) f.any("dst", "", ipHostName(dst->address()));  // -r
    else f.any("dst", "", *dst);
    if (const auto& src = r.src()) {
      if (ipNameOptions.resolve && src->isHost()) f.any("from", "from ", ipHostName(src->address()));
      else f.any("from", "from ", *src);
    }
    if (auto nhid = r.nhid()) f.any("nhid", "nhid ", *nhid);
    if (uint8_t tos = r.tos()) f.any("tos", "tos ", ipDsfieldName(tos));  // rt_dsfield's name, else hex
    if (const auto& gateway = r.gateway(); gateway && !hideGateway) gatewayField(f, *gateway);
    if (r.devIndex() && !hideDev) dev(f, r.devIndex());
    // A lookup result names a table other than main.
    if (uint32_t table = r.table(); (isGet || showTable) && table && (table != kTableMain || details))
      f.any("table", "table ", words.table(table));
    bool cloned = r.isCloned();
    if (RouteProtocol proto = r.protocol(); !cloned && !hideProto && (proto != RouteProtocol::Boot || details))
      f.any("protocol", "proto ", words.protocol(proto));
    if (Scope scope = r.scope(); !cloned && !hideScope && (scope != Scope::Universe || details))
      f.any("scope", "scope ", words.scope(scope));
    if (const auto& prefsrc = r.prefsrc(); prefsrc && !hidePrefsrc) f.any("prefsrc", "src ", *prefsrc);
    if (auto metric = r.metric()) f.any("metric", "metric ", *metric);
    uint32_t bits = r.flags();
    flags(f, bits);
    // ip prints a mark below 16 in decimal, from 16 on in hex (text; JSON: the number).
    if (auto mark = markOf(r); mark && *mark)
      f.any("mark", *mark, "mark ", *mark < 16 ? fmt::format("{}", *mark) : fmt::format("{:#x}", *mark));
    if (auto flow = flowOf(r)) {  // ip's print_rta_flow: `realm TO`, `realms FROM/TO`
      uint32_t from = *flow >> 16;
      f.json("flow", FlowJson{*flow});
      if (from) f.textWord("realms " + ipRealmName(from) + "/" + ipRealmName(*flow & 0xffff));
      else f.textWord("realm " + ipRealmName(*flow & 0xffff));
    }
    if (auto uid = r.uid()) f.any("uid", "uid ", *uid);
    if (isIpv4Cache(cloned, dst)) cache(f, bits);
    if (auto expires = r.expires()) f.any("expires", "expires ", *expires).text("sec");
    if (const auto& metrics = r.metrics(); metrics && !metrics->empty()) {
      // ip's order: RTAX_* numbers (mtu 2, window 3, advmss 8, hoplimit 10, initcwnd 11, initrwnd 14).
      f.beginObjects("metrics").beginObject();
      if (metrics->mtu) f.any("mtu", "mtu ", *metrics->mtu);
      if (metrics->window) f.any("window", "window ", *metrics->window);
      if (metrics->advmss) f.any("advmss", "advmss ", *metrics->advmss);
      // The text leaves out hoplimit "infinity" (0xffffffff); JSON has the number.
      if (auto hop = metrics->hoplimit; hop && (Fields::isJson() || *hop != 0xffffffffu)) f.any("hoplimit", "hoplimit ", *hop);
      if (metrics->initcwnd) f.any("initcwnd", "initcwnd ", *metrics->initcwnd);
      if (metrics->initrwnd) f.any("initrwnd", "initrwnd ", *metrics->initrwnd);
      f.endObject().endObjects();
    }
    if (auto pref = r.pref(); pref && dst && !dst->isV4())
      if (const char* p = routePrefName(*pref)) f.any("pref", "pref ", p);
    if (r.isMultipath()) {
      f.beginObjects("nexthops");
      for (const auto& p : r.paths()) {
        f.beginObject().text("\n\tnexthop");
        if (p.gateway) gatewayField(f, *p.gateway);
        if (p.dev && p.dev->isIndex()) dev(f, p.dev->index());
        f.any("weight", "weight ", static_cast<uint32_t>(p.weight));
        flags(f, p.flags);
        f.endObject();
      }
      f.endObjects();
    }
    f.end();
  }

  /// RTNH_F_* words in text, the "flags" list in JSON (written also when empty).
  template <class Fields>
  void flags(Fields& f, uint32_t bits) {
    f.beginList("flags");
    for (const auto& [bit, name] : kNexthopFlags)
      if (bits & bit) f.item(name);
    f.endList();
  }

  template <class Fields>
  void dev(Fields& f, uint32_t index) { f.device("dev", "dev ", names.find(index), index); }

  /// `via GATEWAY`: a host name with -r (ip's format_host; the prefsrc is never resolved).
  template <class Fields>
  void gatewayField(Fields& f, const IpAddress& gateway) {
    if (ipNameOptions.resolve) f.any("gateway", "via ", ipHostName(gateway));
    else f.any("gateway", "via ", gateway);
  }

  /// An IPv4 lookup result's cache flags: ip's second line "    cache <a,b>" in text (one line
  /// with -o), the "cache" list in JSON.
  template <class Fields>
  void cache(Fields& f, uint32_t bits) {
    auto names = cacheFlagNames(bits);
    if constexpr (Fields::isJson()) {
      f.beginList("cache");
      for (const auto& name : names) f.item(name);
      f.endList();
    } else {
      f.text(oneline ? " \\    cache" : "\n    cache");
      for (std::size_t i = 0; i < names.size(); ++i) f.text(i ? "," : " <").text(names[i]);
      if (!names.empty()) f.text(">");
    }
  }
};

/// A prefix of `route show`'s selectors. `default` without -4/-6 is the /0 of either family
/// (`route show table all default` lists both default routes, as ip).
struct ShowPrefix {
  Prefix prefix;
  bool anyFamily = false;
};

/// The selectors ip applies in user space (iproute.c's filter_nlmsg): `root P` (routes inside P),
/// `match P` (routes that contain P), `[exact] P` / `default` (the route P itself), `scope S`.
struct ShowSelectors {
  std::optional<ShowPrefix> root, match;
  std::optional<Scope> scope;
  /// `via P`, `src P`: the routes whose gateway, or preferred source, P holds (ip's rvia and
  /// rprefsrc; a route without one is left out).
  std::optional<Prefix> via, prefsrc;
  bool localOrBroadcast = true;  ///< false: routes of type local and broadcast are left out (`vrf NAME`)
  bool none = false;  ///< -M, -B: no IPv4 or IPv6 route is of that family

  template <class Route>
  bool admits(const Route& r) const {
    if (none) return false;
    if (scope && r.scope() != *scope) return false;
    if (!localOrBroadcast && (r.type() == RouteType::Local || r.type() == RouteType::Broadcast)) return false;
    auto holds = [](const std::optional<Prefix>& want, const std::optional<IpAddress>& got) {
      return !want || (got && got->family() == want->family() && want->contains(*got));
    };
    if (!holds(via, r.gateway()) || !holds(prefsrc, r.prefsrc())) return false;
    if (!root && !match) return true;
    const auto& given = r.dst();
    Prefix dst = given ? *given : Prefix::any(r.family());
    auto sameFamily = [&](const ShowPrefix& s) { return s.anyFamily || dst.family() == s.prefix.family(); };
    if (root && (!sameFamily(*root) || dst.length() < root->prefix.length() ||
                 (!root->anyFamily && !root->prefix.contains(dst.address()))))
      return false;
    if (match && (!sameFamily(*match) || dst.length() > match->prefix.length() ||
                  (!match->anyFamily && !dst.contains(match->prefix.address()))))
      return false;
    return true;
  }
};

/// `default`, `all`, `any`: the /0 of the family -4/-6 selects; without one, `default` is the /0
/// of either family and `all`/`any` select every route (as ip 6.1 does, measured).
std::optional<ShowPrefix> parseShowPrefix(const Context& ctx, const std::string& word) {
  std::optional<IpAddress::Family> family = familyOption(ctx);
  if (word == "default" || word == "all" || word == "any") {
    if (family) return ShowPrefix{Prefix::any(*family), false};
    if (word != "default") return std::nullopt;
    return ShowPrefix{Prefix::any(IpAddress::Family::v4), true};
  }
  return ShowPrefix{parseIpPrefix(ctx, word), false};
}

/// `[table T|all|vrf NAME] [proto P] [dev D] [type T] [scope S] [-4|-6] [[to] [root|match|exact] PREFIX]`;
/// default: table main, IPv4 (like ip).
RouteFilter parseFilter(Context& ctx, Args& args, bool& showTable, ShowSelectors* selectors = nullptr) {
  FamilyOption family = ctx.options().family;
  RouteFilter f;
  f.setTable(kTableMain);
  f.setFamily(family == FamilyOption::Inet6 ? IpAddress::Family::v6 : IpAddress::Family::v4);
  showTable = false;
  bool familyGiven = family == FamilyOption::Inet || family == FamilyOption::Inet6;
  while (!args.done()) {
    if (args.accept("table")) {
      std::string t = args.value("table");
      if (t == "all") {
        f.table.reset();
        showTable = true;
        if (!familyGiven) f.family.reset();
      } else {
        f.table = parseRouteTable(t);
      }
    } else if (args.acceptAny({"proto", "protocol"})) {
      f.protocol = parseRouteProtocol(args.value("proto"));
    } else if (args.acceptAny({"dev", "oif"})) {
      f.dev = Ifref(parseIfname(args.value("dev"), "dev"));
    } else if (args.accept("type")) {
      std::string t = args.value("type");
      f.type = orUsage("type", [&] { return parseRouteType(t); });
    } else if (auto word = acceptFamilyWord(args)) {
      f.family = *word, familyGiven = true;
    } else if (selectors && args.accept("vrf")) {
      f.table = vrfTable(ctx, args.value("vrf"));
      selectors->localOrBroadcast = false;  // ip leaves the VRF's local and broadcast routes out
    } else if (selectors && (args.peek() == "cached" || args.peek() == "cloned")) {
      // ip dumps the kernel's exception routes (PMTU, redirects) with RTM_F_CLONED: not here.
      throw UsageError(fmt::format("route show {}: the cached (exception) routes are not supported by fastlink",
                                   args.peek()));
    } else if (selectors && args.accept("via")) {
      selectors->via = parseIpPrefix(ctx, args.value("via"));
    } else if (selectors && args.acceptAny({"src", "prefsrc"})) {
      selectors->prefsrc = parseIpPrefix(ctx, args.value("src"));
    } else if (selectors && args.accept("scope")) {
      std::string sc = args.value("scope");
      selectors->scope = orUsage("scope", [&] { return parseScope(sc); });
    } else if (selectors) {
      // As ip, any other word is a prefix (a word that is none is a bad value, status 1).
      if (args.accept("to") && args.done()) args.value("to");
      if (args.accept("root")) selectors->root = parseShowPrefix(ctx, args.value("root"));
      else if (args.accept("match")) selectors->match = parseShowPrefix(ctx, args.value("match"));
      else {
        std::string word = args.accept("exact") ? args.value("exact") : args.next();
        selectors->root = selectors->match = parseShowPrefix(ctx, word);
      }
    } else {
      args.unknown("route flush takes: table T|all, proto P, dev D, type T, -4, -6");
    }
  }
  return f;
}

/// -M, -B: ip dumps the routes of that family, which fastlink does not decode. The kernel is
/// asked (the same dump): none, and the command prints nothing, as ip; any, and it is refused.
void refuseOtherFamilyRoutes(Context& ctx, const char* verb) {
  if (std::size_t n = otherFamilyDumpSize(ctx.netlink(), RTM_GETROUTE))
    throw UsageError(fmt::format("route {}: the kernel has {} route(s) of the {} family, which fastlink cannot {}", verb,
                                 n, otherFamilyName(), std::string_view(verb) == "show" ? "print" : "flush"));
}

int showRoutes(Context& ctx, Args& args) {
  bool showTable = false;
  ShowSelectors selectors;
  RouteFilter f = parseFilter(ctx, args, showTable, &selectors);
  selectors.none = isOtherFamily();
  Netlink& nl = ctx.netlink();
  try {
    if (selectors.none) refuseOtherFamilyRoutes(ctx, "show");
    DeviceNames names = loadDeviceNames(nl);
    RoutePrinter printer{names, {}};
    printer.showTable = showTable;
    printer.oneline = ctx.options().oneline;
    printer.details = ctx.options().details;
    printer.hideDev = f.dev.has_value();
    printer.hideProto = f.protocol.has_value();
    printer.hideScope = selectors.scope.has_value();
    printer.hideGateway = selectors.via && selectors.via->isHost();
    printer.hidePrefsrc = selectors.prefsrc && selectors.prefsrc->isHost();
    streamFields(ctx, [&](auto& fields, auto restart) {
      nl.routes().forEach(f, [&](const RouteView& r) { if (selectors.admits(r)) printer.print(fields, r); }, restart);
    });
  } catch (const Error& e) {
    return reportFailure(e);
  }
  return kExitOk;
}

int flushRoutes(Context& ctx, Args& args) {
  // Without a selector ip refuses (1) rather than flush the main table.
  if (args.done()) throw BadValueError("\"route flush\" requires arguments.");
  bool showTable = false;
  RouteFilter f = parseFilter(ctx, args, showTable);
  try {
    if (isOtherFamily()) {
      // Nothing of fastlink's is of that family; the dump names a missing device, as ip's.
      ctx.netlink().routes().forEach(f, [](const RouteView&) {}, [] {});
      refuseOtherFamilyRoutes(ctx, "flush");
      return kExitOk;
    }
    ctx.netlink().routes().flush(f);
  } catch (const Error& e) {
    return reportFailure(e);
  }
  return kExitOk;
}

int getRoute(Context& ctx, Args& args) {
  if (args.done()) throw BadValueError("route get: an address is required");  // ip: 1
  // ip reads the words in any order: `route get fibmatch 10.0.0.1` as well as after the address.
  bool fibMatch = args.accept("fibmatch");
  if (args.accept("to")) {}
  if (args.done()) throw BadValueError("route get: an address is required");
  RouteQuery q(parseIp(args.next(), "route get"));
  q.fibMatch = fibMatch;
  while (!args.done()) {
    if (args.accept("from")) q.from = parseIp(args.value("from"), "from");
    else if (args.accept("iif")) q.iif = Ifref(parseIfname(args.value("iif"), "iif"));
    else if (args.accept("oif")) q.oif = Ifref(parseIfname(args.value("oif"), "oif"));
    else if (args.accept("dev")) q.oif = Ifref(parseIfname(args.value("dev"), "dev"));
    else if (args.accept("vrf")) q.vrf = Ifref(parseIfname(args.value("vrf"), "vrf"));
    else if (args.accept("table")) q.table = parseRouteTable(args.value("table"));
    else if (args.accept("mark")) q.mark = parseU32(args.value("mark"), "mark");
    else if (args.accept("fibmatch")) q.fibMatch = true;
    else args.unknown("route get takes: from A, iif D, oif|dev D, vrf NAME, table T, mark M, fibmatch");
  }
  Netlink& nl = ctx.netlink();
  try {
    RouteInfo r = nl.routes().get(q);
    DeviceNames names = loadDeviceNames(nl);
    RoutePrinter printer{names, {}};
    printer.isGet = true;
    printer.oneline = ctx.options().oneline;
    printer.details = ctx.options().details;
    streamFields(ctx, [&](auto& fields, auto) { printer.print(fields, RouteInfoFields(r)); });
  } catch (const Error& e) {
    return reportFailure(e);
  }
  return kExitOk;
}

int runRoute(Context& ctx, Args& args) {
  return runObject(ctx, args, kUsage,
                   {{{"show", "list", "ls", "lst"}, showRoutes}, {{"get"}, getRoute}, {{"flush"}, flushRoutes}}, prepareRoute);
}

const Registrar kRoute{ObjectCommand{.name = "route", .aliases = {"r", "ro", "rou"}, .usage = kUsage, .run = runRoute,
                                     .prepare = prepareRoute}};

}  // namespace

template <class Fields>
void printRoute(Fields& f, const RouteInfo& r, DeviceNames& names, const GlobalOptions& options, bool hideDev) {
  RoutePrinter printer{names, {}};
  printer.showTable = true;  // ip monitor's print_route has no table filter, as `table all`
  printer.hideDev = hideDev;
  printer.details = options.details;
  printer.print(f, RouteInfoFields(r));
}
template void printRoute(StreamText&, const RouteInfo&, DeviceNames&, const GlobalOptions&, bool);
template void printRoute(StreamJson&, const RouteInfo&, DeviceNames&, const GlobalOptions&, bool);

}  // namespace fastlink::cli
