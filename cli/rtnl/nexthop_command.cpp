// The `nexthop` object: `fastlink nexthop { add | replace | del | show | get }`, iproute2
// grammar. add/replace/del are PreparedRequests, so they work in -batch files.
#include <fmt/format.h>

#include <memory>

#include "kit/args.hpp"
#include "kit/command.hpp"
#include "kit/failure.hpp"
#include "kit/device_names.hpp"
#include "kit/fields.hpp"
#include "fastlink/nexthop.hpp"
#include "kit/ip_compat.hpp"
#include "kit/ip_names.hpp"
#include "kit/output.hpp"
#include "rtnl/ip_object.hpp"
#include "rtnl/ip_print.hpp"

namespace fastlink::cli {
namespace {

constexpr const char* kUsage = R"(Usage: fastlink nexthop { add | replace } id ID NH
       fastlink nexthop del id ID
       fastlink nexthop { get | show } id ID
       fastlink nexthop [ show ] [ dev DEV ] [ groups ] [ fdb ]
NH := { via ADDRESS [ dev DEV ] [ onlink ] | dev DEV | blackhole | group ID[,WEIGHT][/ID[,WEIGHT]...] }
      [ proto PROTO ] [ fdb ] [ -6 ]  (-6: an IPv6 blackhole)
WEIGHT := 1-256)";

bool isHelp(const Args& args) { return args.peek() == "help"; }

std::vector<NexthopGroupMember> parseGroup(const std::string& text) {
  std::vector<NexthopGroupMember> out;
  std::size_t at = 0;
  while (at <= text.size()) {
    std::size_t slash = text.find('/', at);
    std::string member = text.substr(at, slash == std::string::npos ? std::string::npos : slash - at);
    std::size_t comma = member.find(',');
    NexthopGroupMember m;
    m.id = parseU32(member.substr(0, comma), "group id", 1);
    if (comma != std::string::npos) m.weight = static_cast<uint16_t>(parseU32(member.substr(comma + 1), "group weight", 1, 256));
    out.push_back(m);
    if (slash == std::string::npos) break;
    at = slash + 1;
  }
  return out;
}

struct ParsedNexthop {
  NexthopInfo info;
  std::optional<std::string> dev;
};

ParsedNexthop parseNexthop(const Context& ctx, Args& args) {
  ParsedNexthop p;
  p.info.family = familyOption(ctx);  // `ip -6 nexthop add id 4 blackhole`: an IPv6 blackhole
  while (!args.done()) {
    if (args.accept("id")) p.info.id = parseU32(args.value("id"), "id", 1);
    else if (args.accept("via")) {
      if (args.peek() == "inet" || args.peek() == "inet6") args.next();
      std::string typed = args.value("via");
      p.info.gateway = parseIp(typed, "via");
      requireFamily(ctx, p.info.gateway->family(), typed, "address");
    } else if (args.accept("dev")) p.dev = parseIfname(args.value("dev"), "dev");
    else if (args.accept("onlink")) p.info.onlink = true;
    else if (args.accept("blackhole")) p.info.blackhole = true;
    else if (args.accept("fdb")) p.info.fdb = true;
    else if (args.accept("group")) p.info.group = parseGroup(args.value("group"));
    else if (args.acceptAny({"proto", "protocol"})) p.info.protocol = parseRouteProtocol(args.value("proto"));
    else if (auto family = acceptFamilyWord(args)) p.info.family = family;
    else args.unknown("expected a nexthop option");
  }
  return p;
}

PreparedRequest prepareChange(const Context& ctx, Args& args, bool replace) {
  auto p = std::make_shared<ParsedNexthop>(parseNexthop(ctx, args));
  PreparedRequest r;
  if (p->dev) r.needs = {*p->dev};
  r.device = p->dev;
  r.encode = [p, replace](Resolver& res) {
    NexthopInfo n = p->info;
    if (p->dev) n.dev = Ifref(res.index(*p->dev));
    return replace ? NexthopRequests::replace(n) : NexthopRequests::add(n);
  };
  return r;
}

uint32_t parseIdOnly(Args& args, const char* verb) {
  if (!args.accept("id")) throw UsageError(fmt::format("nexthop {}: \"id ID\" is required", verb));
  uint32_t id = parseU32(args.value("id"), "id", 1);
  if (!args.done()) args.unknown(fmt::format("nexthop {} takes only: id ID", verb));
  return id;
}

PreparedRequest prepareNexthop(Context& ctx, Args& args) {
  if (args.done()) throw UsageError("nexthop: a verb is required (add, replace, del, show, get)");
  if (args.accept("add")) return isHelp(args) ? throw UsageError(kUsage) : prepareChange(ctx, args, false);
  if (args.accept("replace")) return isHelp(args) ? throw UsageError(kUsage) : prepareChange(ctx, args, true);
  if (args.acceptAny({"del", "delete"})) {
    uint32_t id = parseIdOnly(args, "del");
    PreparedRequest r;
    r.encode = [id](Resolver&) { return NexthopRequests::del(id); };
    return r;
  }
  if (args.acceptAny({"show", "list", "ls", "get"}))
    throw UsageError("nexthop show/get cannot be used in a batch (a batch sends one request per line)");
  args.unknown("nexthop verbs: add, replace, del, show, get");
}

// ---- show ---------------------------------------------------------------------------------------

}  // namespace

/// One nexthop in ip's print_nexthop order (id, group, gateway, dev, ...), words and -j keys.
/// The text starts with the id, which the kernel always reports (NHA_ID).
void writeNexthop(FieldOut& f, const NexthopInfo& n, const DeviceNames& names) {
  if (n.id) f.any("id", "id {}", *n.id);
  if (n.isGroup()) {
    nlohmann::ordered_json g = nlohmann::ordered_json::array();
    std::string text;
    for (const auto& m : n.group) {
      nlohmann::ordered_json e;
      e["id"] = m.id;
      if (m.weight != 1) e["weight"] = m.weight;  // ip leaves weight 1 out
      g.push_back(e);
      text += (text.empty() ? "" : "/") + std::to_string(m.id);
      if (m.weight != 1) text += "," + std::to_string(m.weight);
    }
    f.any("group", g, " group {}", text);
  }
  if (n.gateway) f.any("gateway", " via {}", ipHostName(*n.gateway));  // -r: ip's format_host
  if (n.devIndex()) f.any("dev", " dev {}", names.nameOrIndex(n.devIndex()));
  if (n.blackhole) f.json("blackhole", nullptr).text(" blackhole");  // as ip prints it
  if (!n.isGroup() && !n.blackhole && n.scope) f.any("scope", " scope {}", ipScopeName(*n.scope));
  if (n.protocol && *n.protocol != RouteProtocol::Unspec) f.any("protocol", " proto {}", ipProtocolName(*n.protocol));
  if (n.fdb) f.json("fdb", nullptr).text(" fdb");
  nlohmann::ordered_json flags = nlohmann::ordered_json::array();
  for (auto [on, word] : {std::pair{n.onlink, "onlink"}, std::pair{n.flags && (*n.flags & 1), "dead"},
                          std::pair{n.flags && (*n.flags & 16), "linkdown"}})
    if (on) flags.push_back(word), f.text(" {}", word);
  f.json("flags", flags);
}

namespace {

int showNexthops(Context& ctx, Args& args) {
  std::optional<uint32_t> id;
  NexthopFilter f;
  while (!args.done()) {
    if (args.accept("id")) id = parseU32(args.value("id"), "id", 1);
    else if (args.accept("dev")) f.dev = Ifref(parseIfname(args.value("dev"), "dev"));
    else if (args.accept("groups")) f.groupsOnly = true;
    else if (args.accept("fdb")) f.fdbOnly = true;
    else args.unknown("nexthop show takes: id ID, dev DEV, groups, fdb");
  }
  Netlink& nl = ctx.netlink();
  try {
    DeviceNames names = loadDeviceNames(nl);
    std::vector<NexthopInfo> found = id ? std::vector<NexthopInfo>{nl.nexthops().get(*id)} : nl.nexthops().list(f);
    // -4/-6 list that family's nexthops only (not groups, whose family is none), -0 none at all:
    // as ip, which asks the kernel with that family.
    if (ctx.options().family != FamilyOption::Any)
      std::erase_if(found, [&](const NexthopInfo& n) { return !n.family || n.family != familyOption(ctx); });
    // -M, -B: ip asks for nexthops of that family; the kernel has none (nor does fastlink).
    if (isOtherFamily()) found.clear();
    printRecords(found, ctx.options().json, ctx.options().pretty,
                 [&](FieldOut& f, const NexthopInfo& n) { writeNexthop(f, n, names); });
  } catch (const Error& e) {
    return reportFailure(e);
  }
  return kExitOk;
}

int runNexthop(Context& ctx, Args& args) {
  return runObject(ctx, args, kUsage, {{{"show", "list", "ls", "get"}, showNexthops}}, prepareNexthop);
}

const Registrar kNexthop{ObjectCommand{.name = "nexthop", .aliases = {"nh", "nexthops"}, .usage = kUsage,
                                       .run = runNexthop, .prepare = prepareNexthop}};

}  // namespace
}  // namespace fastlink::cli
