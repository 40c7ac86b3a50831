// The `address` object: `fastlink address { add | del | replace | show | flush }`, iproute2
// grammar. add/del/replace are PreparedRequests, so they work in -batch files.
#include <fmt/format.h>

#include <map>
#include <memory>

#include "kit/args.hpp"
#include "kit/command.hpp"
#include "kit/failure.hpp"
#include "fastlink/addr.hpp"
#include "rtnl/link_show.hpp"
#include "kit/ip_compat.hpp"
#include "kit/output.hpp"
#include "kit/writer.hpp"

namespace fastlink::cli {
namespace {

constexpr const char* kUsage = R"(Usage: fastlink address { add | replace } IFADDR dev DEV [ OPTIONS ]
       fastlink address del IFADDR dev DEV [ peer PEER ] [ label LABEL ]
       fastlink address [ show ] [ dev DEV ] [ scope SCOPE ] [ label LABEL ] [ -4 | -6 ]
       fastlink address flush dev DEV [ scope SCOPE ] [ label LABEL ] [ -4 | -6 ]
IFADDR := PREFIX [ peer PREFIX ]
OPTIONS := broadcast ADDRESS | broadcast + | scope SCOPE | label LABEL | valid_lft LFT |
           preferred_lft LFT | metric N | nodad | noprefixroute | home | mngtmpaddr | optimistic | autojoin
LFT := forever | SECONDS
SCOPE := global | site | link | host | 0-255)";

bool isHelp(const Args& args) { return args.peek() == "help"; }

uint32_t parseLifetime(const std::string& text, std::string_view keyword) {
  if (text == "forever" || text == "infinity") return kLifetimeForever;
  return parseU32(text, keyword);
}

Scope parseScopeWord(const std::string& text) {
  try {
    return parseScope(text);
  } catch (const Error& e) {
    throw UsageError("scope: " + e.reason());
  }
}

struct ParsedAddr {
  AddrInfo info;
  std::string dev;
};

ParsedAddr parseAddr(const Context& ctx, Args& args, bool del) {
  ParsedAddr p;
  bool broadcastAuto = false;
  std::optional<std::string> dev;
  while (!args.done()) {
    bool keyword = args.acceptAny({"local", "address"});
    if (keyword || (!p.info.address && args.peek().find_first_of(".:") != std::string::npos)) {
      // `add 10.0.0.1/24 dev v0` or `add local 10.0.0.1/24 dev v0`.
      std::string text = keyword ? args.value("local") : args.next();
      try {
        p.info.address = Prefix::parse(text);
      } catch (const Error& e) {
        throw BadValueError("address: " + e.reason());
      }
      requireFamily(ctx, p.info.address->address().family(), text, "prefix");  // `ip -6 addr add 10.0.0.1/24`
    } else if (args.accept("dev")) {
      dev = parseIfname(args.value("dev"), "dev");
    } else if (args.accept("peer")) {
      std::string text = args.value("peer");
      // `peer 10.1.0.2/32`: the length is the address's prefix length, like iproute2.
      try {
        Prefix peer = Prefix::parse(text);
        p.info.peer = peer.address();
        if (text.find('/') != std::string::npos && p.info.address)
          p.info.address = Prefix(p.info.address->address(), peer.length());
      } catch (const Error& e) {
        throw UsageError("peer: " + e.reason());
      }
    } else if (args.acceptAny({"broadcast", "brd"})) {
      std::string b = args.value("broadcast");
      if (b == "+") broadcastAuto = true;
      else if (b == "-") throw UsageError("broadcast -: not supported, give the address or +");
      else p.info.broadcast = parseIp(b, "broadcast");
    } else if (args.accept("scope")) {
      p.info.scope = parseScopeWord(args.value("scope"));
    } else if (args.accept("label")) {
      p.info.label = args.value("label");
    } else if (args.accept("valid_lft")) {
      p.info.validLifetime = parseLifetime(args.value("valid_lft"), "valid_lft");
    } else if (args.accept("preferred_lft")) {
      p.info.preferredLifetime = parseLifetime(args.value("preferred_lft"), "preferred_lft");
    } else if (args.acceptAny({"metric", "priority"})) {
      p.info.metric = parseU32(args.value("metric"), "metric");
    } else if (args.accept("nodad")) {
      p.info.setFlag(AddrFlag::Nodad);
    } else if (args.accept("noprefixroute")) {
      p.info.setFlag(AddrFlag::Noprefixroute);
    } else if (args.accept("home")) {
      p.info.setFlag(AddrFlag::Home);
    } else if (args.accept("mngtmpaddr")) {
      p.info.setFlag(AddrFlag::Mngtmpaddr);
    } else if (args.accept("optimistic")) {
      p.info.setFlag(AddrFlag::Optimistic);
    } else if (args.accept("autojoin")) {
      p.info.setFlag(AddrFlag::Autojoin);
    } else {
      args.unknown("expected an address option");
    }
  }
  if (!p.info.address) throw UsageError("address: IFADDR (ADDRESS/LENGTH) is required");
  if (!dev) throw UsageError("address: \"dev DEV\" is required");
  p.dev = *dev;
  if (broadcastAuto) {
    if (!p.info.address->isV4()) throw UsageError("broadcast +: only IPv4 addresses have a broadcast address");
    p.info.setBroadcastAuto();
  }
  if (p.info.label && p.info.label->compare(0, p.dev.size(), p.dev) != 0)
    throw UsageError(fmt::format("label \"{}\" must begin with the device name \"{}\"", *p.info.label, p.dev));
  (void)del;
  return p;
}

PreparedRequest prepareChange(const Context& ctx, Args& args, const std::string& verb) {
  auto p = std::make_shared<ParsedAddr>(parseAddr(ctx, args, verb == "del"));
  PreparedRequest r;
  r.needs = {p->dev};
  r.device = p->dev;
  r.encode = [p, verb](Resolver& res) {
    AddrInfo a = p->info;
    a.dev = Ifref(res.index(p->dev));
    if (verb == "add") return AddrRequests::add(a);
    if (verb == "replace") return AddrRequests::replace(a);
    return AddrRequests::del(a);
  };
  return r;
}

PreparedRequest prepareAddr(Context& ctx, Args& args) {
  if (args.done()) throw UsageError("address: a verb is required (add, del, replace, show, flush)");
  if (args.accept("add")) return isHelp(args) ? throw UsageError(kUsage) : prepareChange(ctx, args, "add");
  if (args.accept("replace")) return isHelp(args) ? throw UsageError(kUsage) : prepareChange(ctx, args, "replace");
  if (args.acceptAny({"del", "delete"})) return isHelp(args) ? throw UsageError(kUsage) : prepareChange(ctx, args, "del");
  if (args.acceptAny({"show", "list", "ls", "lst", "flush"}))
    throw UsageError("address show/flush cannot be used in a batch (a batch sends one request per line)");
  args.unknown("address verbs: add, del, replace, show, flush");
}

// ---- show / flush ------------------------------------------------------------------------------

/// ip's selectors of `address show` the kernel cannot filter: applied here, to each address
/// (`to`, `primary`, `secondary`) and device (`up`).
struct AddrSelectors {
  std::optional<Prefix> to;         ///< `to PREFIX`: addresses inside it
  std::optional<bool> secondary;    ///< `primary` (false) / `secondary` (true)
  bool up = false;                  ///< `up`: devices that are up
  bool any() const { return to || secondary; }
  bool keeps(const AddrInfo& a) const {
    if (to && (!a.address || a.address->address().family() != to->address().family() ||
               !to->contains(a.address->address())))
      return false;
    return !secondary || a.has(AddrFlag::Secondary) == *secondary;
  }
};

AddrFilter parseFilter(Args& args, AddrSelectors* selectors = nullptr) {
  AddrFilter f;
  while (!args.done()) {
    if (selectors && args.accept("up")) selectors->up = true;
    else if (selectors && args.accept("primary")) selectors->secondary = false;
    else if (selectors && args.acceptAny({"secondary", "temporary"})) selectors->secondary = true;
    else if (selectors && args.accept("to")) {
      std::string text = args.value("to");
      try {
        selectors->to = Prefix::parse(text);
      } catch (const Error& e) {
        throw BadValueError("to: " + e.reason());
      }
      if (!f.family) f.family = selectors->to->address().family();  // as ip: `to` sets the family
    } else if (args.accept("dev")) f.dev = Ifref(parseIfname(args.value("dev"), "dev"));
    else if (args.accept("scope")) f.scope = parseScopeWord(args.value("scope"));
    else if (args.accept("label")) f.label = args.value("label");
    else if (args.acceptAny({"-4", "inet"})) f.family = IpAddress::Family::v4;
    else if (args.acceptAny({"-6", "inet6"})) f.family = IpAddress::Family::v6;
    else if (!f.dev && args.peek().find_first_of(" ") == std::string::npos && args.peek() != "")
      f.dev = Ifref(parseIfname(args.next(), "dev"));  // `address show v0`
    else args.unknown("address show takes: dev DEV, scope S, label L, to PREFIX, primary, secondary, up, -4, -6");
  }
  return f;
}

struct FlagName {
  AddrFlag flag;
  const char* name;
};
constexpr FlagName kFlagNames[] = {{AddrFlag::Nodad, "nodad"},           {AddrFlag::Optimistic, "optimistic"},
                                   {AddrFlag::Dadfailed, "dadfailed"},   {AddrFlag::Home, "home"},
                                   {AddrFlag::Deprecated, "deprecated"}, {AddrFlag::Tentative, "tentative"},
                                   {AddrFlag::Mngtmpaddr, "mngtmpaddr"}, {AddrFlag::Noprefixroute, "noprefixroute"},
                                   {AddrFlag::Autojoin, "autojoin"},     {AddrFlag::StablePrivacy, "stable-privacy"}};

/// One entry of addr_info, with iproute2's field names.
nlohmann::ordered_json addrJson(const AddrInfo& a) {
  nlohmann::ordered_json j;
  bool v4 = a.address->isV4();
  j["family"] = v4 ? "inet" : "inet6";
  j["local"] = a.address->address().toString();
  if (a.peer) j["address"] = a.peer->toString();
  j["prefixlen"] = a.address->length();
  if (a.metric) j["metric"] = *a.metric;
  if (a.broadcast) j["broadcast"] = a.broadcast->toString();
  j["scope"] = scopeName(a.scope.value_or(Scope::Universe));
  if (a.has(AddrFlag::Secondary)) j[v4 ? "secondary" : "temporary"] = true;
  for (const auto& f : kFlagNames)
    if (a.has(f.flag)) j[f.name] = true;
  if (!a.has(AddrFlag::Permanent)) j["dynamic"] = true;
  if (a.label) j["label"] = *a.label;
  j["valid_life_time"] = a.validLifetime.value_or(kLifetimeForever);
  j["preferred_life_time"] = a.preferredLifetime.value_or(kLifetimeForever);
  return j;
}

std::string lifetimeText(std::optional<uint32_t> v) {
  return !v || *v == kLifetimeForever ? "forever" : std::to_string(*v) + "sec";
}

/// One address as `ip addr show` prints it: "    inet PREFIX ... scope S [flags] LABEL" and the
/// lifetimes line.
void putAddrText(OutBuffer& out, const AddrInfo& a, bool oneline = false) {
  TextLine line(a.address->isV4() ? "    inet" : "    inet6");
  // ip: "10.0.0.1/24", or "10.0.0.1 peer 10.0.0.2/32"; then the prefix route's metric.
  if (a.peer) line.add(a.address->address().toString()).add("peer", fmt::format("{}/{}", a.peer->toString(), a.address->length()));
  else line.add(a.address->toStringWithLength());
  if (a.metric) line.add("metric", *a.metric);
  if (a.broadcast) line.add("brd", a.broadcast->toString());
  line.add("scope", scopeName(a.scope.value_or(Scope::Universe)));
  if (a.has(AddrFlag::Secondary)) line.add(a.address->isV4() ? "secondary" : "temporary");
  if (!a.has(AddrFlag::Permanent)) line.add("dynamic");
  for (const auto& fl : kFlagNames)
    if (a.has(fl.flag)) line.add(fl.name);
  if (a.label) line.add(*a.label);
  // ip ends each word but the label with a blank; -o keeps it before the `\`.
  out.put(line.str()).put(oneline && !a.label ? " \n" : "\n");
  out.put(fmt::format("       valid_lft {} preferred_lft {}\n", lifetimeText(a.validLifetime),
                      lifetimeText(a.preferredLifetime)));
}

int showAddrs(Context& ctx, Args& args) {
  AddrSelectors selectors;
  AddrFilter f = parseFilter(args, &selectors);
  const GlobalOptions& o = ctx.options();
  if (o.family == FamilyOption::Inet) f.family = IpAddress::Family::v4;
  if (o.family == FamilyOption::Inet6) f.family = IpAddress::Family::v6;
  bool linksOnly = o.family == FamilyOption::Link;  // `ip -0 addr`: the devices, no address
  Netlink& nl = ctx.netlink();
  std::optional<std::string> dev;
  if (f.dev) dev = f.dev->isName() ? f.dev->name() : std::to_string(f.dev->index());
  try {
    // Addresses come grouped by family; iproute2 prints them per device, so they are kept and
    // the devices streamed.
    std::map<uint32_t, std::vector<AddrInfo>> byDev;
    if (!linksOnly)
      nl.addresses().forEach(f, [&](const AddrInfo& a) { if (selectors.keeps(a)) byDev[a.devIndex()].push_back(a); },
                             [&] { byDev.clear(); });
    bool filtered = f.scope || f.label || f.family || selectors.any();
    auto addrsOf = [&](const LinkInfo& l) -> const std::vector<AddrInfo>* {
      auto it = byDev.find(l.index.value_or(0));
      return it == byDev.end() ? nullptr : &it->second;
    };
    LinkRecordHooks hooks;
    // As ip: `-o` prints address lines only, so does a label filter; a family filter drops the
    // link/ether line.
    hooks.header = (!o.oneline && !f.label) || linksOnly;
    hooks.linkLine = !f.family;
    hooks.inet6View = f.family == IpAddress::Family::v6 && !f.dev;
    hooks.keep = [&](const LinkInfo& l) {
      if (selectors.up && !l.isUp()) return false;
      return !(filtered || (o.oneline && !linksOnly)) || addrsOf(l);
    };
    if (!linksOnly) {
      hooks.text = [&](OutBuffer& out, const LinkInfo& l) {
        const auto* addrs = addrsOf(l);
        if (!addrs) return;
        for (const auto& a : *addrs) {
          std::size_t mark = out.held();
          if (o.oneline) out.putUint(l.index.value_or(0)).put(": ").put(l.name.value_or("?"));
          putAddrText(out, a, o.oneline);
          if (o.oneline) out.joinLines(mark);
        }
      };
      // ip -br: "LOCAL[ peer PEER]/LEN [metric N ]" per address.
      hooks.briefText = [&](OutBuffer& out, const LinkInfo& l) {
        if (const auto* addrs = addrsOf(l))
          for (const auto& a : *addrs) {
            if (a.peer) out.put(a.address->address().toString()).put(" peer ").put(a.peer->toString()).put('/').putUint(a.address->length());
            else out.put(a.address->toStringWithLength());
            out.put(' ');
            if (a.metric) out.put("metric ").putUint(*a.metric).put(' ');
          }
      };
      hooks.json = [&](nlohmann::ordered_json& j, const LinkInfo& l) {
        auto list = nlohmann::ordered_json::array();
        if (const auto* addrs = addrsOf(l))
          for (const auto& a : *addrs) {
            if (o.brief) {
              nlohmann::ordered_json one{{"local", a.address->address().toString()}};
              if (a.peer) one["address"] = a.peer->toString();
              one["prefixlen"] = a.address->length();
              if (a.metric) one["metric"] = *a.metric;
              list.push_back(std::move(one));
              continue;
            }
            list.push_back(addrJson(a));
          }
        j["addr_info"] = std::move(list);
      };
    } else {
      hooks.briefText = [](OutBuffer&, const LinkInfo&) {};
    }
    return showLinkRecords(ctx, dev, hooks);
  } catch (const Error& e) {
    return reportFailure(e);
  }
}

int flushAddrs(Context& ctx, Args& args) {
  AddrFilter f = parseFilter(args);
  if (ctx.options().family == FamilyOption::Inet) f.family = IpAddress::Family::v4;
  if (ctx.options().family == FamilyOption::Inet6) f.family = IpAddress::Family::v6;
  if (!f.dev && !f.label) throw UsageError("address flush: name a device (flush dev DEV) or a label");
  try {
    ctx.netlink().addresses().flush(f);
  } catch (const Error& e) {
    return reportFailure(e);
  }
  return kExitOk;
}

int runAddr(Context& ctx, Args& args) {
  if (args.done()) return showAddrs(ctx, args);
  if (args.accept("help")) {
    printLine(kUsage);
    return kExitOk;
  }
  if (args.acceptAny({"show", "list", "ls", "lst"})) return showAddrs(ctx, args);
  if (args.accept("flush")) return flushAddrs(ctx, args);
  return runPrepared(ctx, prepareAddr(ctx, args), args);
}

const Registrar kAddr{ObjectCommand{.name = "address", .aliases = {"a", "addr", "ad", "addre"}, .usage = kUsage,
                                    .run = runAddr, .prepare = prepareAddr}};

}  // namespace
}  // namespace fastlink::cli
