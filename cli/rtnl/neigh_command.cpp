// The `neigh` object: `fastlink neigh { add | del | change | replace | show | flush | get } ...`,
// in `ip neigh`'s grammar.
#include <fmt/format.h>
#include <linux/neighbour.h>

#include <algorithm>
#include <functional>

#include "kit/args.hpp"
#include "kit/command.hpp"
#include "fastlink/link_view.hpp"
#include "kit/failure.hpp"
#include "kit/device_names.hpp"
#include "kit/field_stream.hpp"
#include "fastlink/fdb.hpp"
#include "fastlink/neigh.hpp"
#include "fastlink/neigh_view.hpp"
#include "fastlink/prefix.hpp"
#include "kit/ip_compat.hpp"
#include "kit/ip_names.hpp"
#include "kit/output.hpp"
#include "rtnl/ip_object.hpp"

namespace fastlink::cli {
namespace {

constexpr const char* kUsage = R"(Usage: fastlink neigh { add | del | change | replace }
                      { ADDR [ lladdr LLADDR ] [ nud STATE ] | proxy ADDR } dev DEV
                      [ router ] [ extern_learn ] [ protocol PROTO ]
       fastlink neigh { show | flush } [ proxy ] [ to PREFIX ] [ dev DEV ] [ master DEV ]
                      [ nud STATE ] [ protocol PROTO ] [ -4 | -6 ]
       fastlink neigh get [ proxy ] ADDR dev DEV
STATE := { permanent | noarp | stale | reachable | none | incomplete | delay | probe | failed | all })";

enum class Verb { Add, Del, Change, Replace };

struct ParsedNeigh {
  NeighInfo info;
  std::string dev;
};

ParsedNeigh parseModify(const Context& ctx, Args& args, Verb verb) {
  ParsedNeigh p;
  std::string typed;  // the address as given, for ip's family message
  while (!args.done()) {
    if (args.accept("lladdr")) p.info.lladdr = parseMac(args.value("lladdr"), "lladdr");
    else if (args.accept("nud")) p.info.state = orUsage("nud", [&] { return parseNeighState(args.value("nud")); });
    else if (args.accept("dev")) p.dev = parseIfname(args.value("dev"), "dev");
    else if (args.accept("proxy")) {
      p.info.proxy = true;
      typed = args.value("proxy");
      p.info.dst = parseIp(typed, "proxy");
    } else if (args.accept("router")) p.info.router = true;
    else if (args.accept("extern_learn")) p.info.externLearn = true;
    else if (args.accept("protocol")) p.info.protocol = static_cast<uint8_t>(parseRouteProtocol(args.value("protocol"), "protocol"));
    else if (args.acceptAny({"to"})) p.info.dst = parseIp(typed = args.value("to"), "to");
    else if (!p.info.dst) p.info.dst = parseIp(typed = args.next(), "address");
    else args.unknown("neigh takes: lladdr, nud, dev, proxy, router, extern_learn, protocol");
  }
  if (!p.info.dst) throw UsageError("neigh: an address is required");
  requireFamily(ctx, p.info.dst->family(), typed, "address");
  if (p.dev.empty()) throw UsageError("neigh: \"dev DEV\" is required");
  if (verb == Verb::Del) {
    // `ip neigh del` ignores lladdr and nud; the library insists on the key only.
    p.info.lladdr.reset();
    p.info.state.reset();
    p.info.router.reset();
    p.info.externLearn.reset();
    p.info.protocol.reset();
  }
  return p;
}

PreparedRequest prepareModify(const Context& ctx, Args& args, Verb verb) {
  ParsedNeigh p = parseModify(ctx, args, verb);
  return deviceRequest(p.dev, p.info, [verb](const NeighInfo& n, Resolver&) {
    switch (verb) {
      case Verb::Add: return NeighRequests::add(n);
      case Verb::Del: return NeighRequests::del(n);
      case Verb::Change: return NeighRequests::change(n);
      case Verb::Replace: break;
    }
    return NeighRequests::replace(n);
  });
}

PreparedRequest prepareNeigh(Context& ctx, Args& args) {
  if (args.done()) throw UsageError("neigh: a verb is required (add, del, change, replace, show, flush, get)");
  if (args.peek() == "help") throw UsageError(kUsage);
  if (args.accept("add")) return prepareModify(ctx, args, Verb::Add);
  if (args.acceptAny({"del", "delete"})) return prepareModify(ctx, args, Verb::Del);
  if (args.acceptAny({"change", "chg", "set"})) return prepareModify(ctx, args, Verb::Change);
  if (args.accept("replace")) return prepareModify(ctx, args, Verb::Replace);
  if (args.acceptAny({"show", "list", "ls", "lst", "flush", "get"}))
    throw UsageError("neigh show/flush/get cannot be used in a batch (a batch only sends changes)");
  args.unknown("neigh verbs: add, del, change, replace, show, flush, get");
}

// ---- show / flush / get --------------------------------------------------------------------

struct ShowOptions {
  NeighFilter filter;
  std::optional<Prefix> to;
  uint8_t protocol = 0;  // `protocol PROTO`; 0 (`all`, or not given): every entry, as ip
  bool devGiven = false;

  /// `to PREFIX` and `protocol PROTO`, matched in user space as ip does.
  template <class Neigh>
  bool selects(const Neigh& n) const {
    if (protocol && n.protocol().value_or(0) != protocol) return false;
    if (!to) return true;
    const auto& dst = n.dst();
    return dst && to->contains(*dst);
  }
};

ShowOptions parseShow(const Context& ctx, Args& args, bool flush) {
  ShowOptions s;
  s.filter.family = familyOption(ctx);  // -4/-6 before the object, as ip
  bool stateGiven = false;
  uint16_t mask = 0;
  while (!args.done()) {
    if (args.accept("proxy")) s.filter.proxy = true;
    else if (args.accept("dev")) {
      s.filter.dev = parseIfname(args.value("dev"), "dev");
      s.devGiven = true;
    } else if (args.accept("master")) s.filter.master = parseIfname(args.value("master"), "master");
    else if (args.accept("nud")) {
      std::string word = args.value("nud");
      stateGiven = true;
      if (word == "all") {
        mask = 0xffff;
      } else {
        NeighState st = orUsage("nud", [&] { return parseNeighState(word); });
        mask |= st == NeighState::None ? kNeighStateNoneBit : static_cast<uint16_t>(st);
      }
    } else if (auto family = acceptFamilyWord(args)) s.filter.family = family;
    else if (args.accept("to")) s.to = orUsage("to", [&] { return Prefix::parse(args.value("to")); });
    else if (args.accept("protocol")) {
      std::string word = args.value("protocol");
      s.protocol = word == "all" ? 0 : static_cast<uint8_t>(parseRouteProtocol(word, "protocol"));
    } else if (args.peek() == "help") {
      throw UsageError(kUsage);
    } else {
      try {
        s.to = Prefix::parse(args.peek());
        args.next();
      } catch (const Error&) {
        args.unknown("neigh show takes: proxy, to, dev, master, nud, protocol, -4, -6");
      }
    }
  }
  if (stateGiven) s.filter.stateMask = mask;
  else if (!flush && !s.filter.proxy)
    // Like `ip neigh show`: NOARP and NONE entries only with "nud all" (or asked for).
    s.filter.stateMask = static_cast<uint16_t>(0xff & ~static_cast<uint16_t>(NeighState::Noarp));
  if (flush && !s.filter.dev && !s.filter.master && !s.to && !s.filter.proxy && !stateGiven && !s.protocol)
    throw UsageError("neigh flush needs a selector (dev DEV, to PREFIX, master DEV, nud STATE, protocol PROTO, proxy)");
  return s;
}

/// A NeighInfo read through NeighView's accessors, so that one printer serves `neigh get` (an
/// owning object) and the views of `neigh show`'s dump.
class NeighInfoFields {
 public:
  explicit NeighInfoFields(const NeighInfo& n) : n_(n) {}
  const std::optional<IpAddress>& dst() const { return n_.dst; }
  uint32_t devIndex() const { return n_.devIndex(); }
  const std::optional<MacAddress>& lladdr() const { return n_.lladdr; }
  bool router() const { return n_.isRouter(); }
  bool proxy() const { return n_.isProxy(); }
  bool externLearn() const { return n_.externLearn.value_or(false); }
  std::optional<uint8_t> protocol() const { return n_.protocol; }
  std::optional<NeighState> state() const { return n_.state; }

 private:
  const NeighInfo& n_;
};

/// A bridge FDB entry read as ip's print_neigh reads it under -B (the AF_BRIDGE neighbour dump
/// is the FDB): its MAC as lladdr, its NUD state, its NTF_* flags; a vxlan entry's remote as dst.
class FdbAsNeigh {
 public:
  static constexpr bool kBridge = true;
  explicit FdbAsNeigh(const FdbInfo& e) : e_(e) {}
  const std::optional<IpAddress>& dst() const { return e_.dst; }
  uint32_t devIndex() const { return e_.dev && !e_.dev->isName() ? e_.dev->index() : 0; }
  const std::optional<MacAddress>& lladdr() const { return e_.mac; }
  bool router() const { return e_.flags.value_or(0) & NTF_ROUTER; }
  bool proxy() const { return e_.flags.value_or(0) & NTF_PROXY; }
  bool externLearn() const { return e_.flags.value_or(0) & NTF_EXT_LEARNED; }
  std::optional<uint8_t> protocol() const { return std::nullopt; }
  std::optional<NeighState> state() const { return static_cast<NeighState>(e_.nudState.value_or(0)); }

 private:
  const FdbInfo& e_;
};

/// One neighbour, text or JSON by the same calls, in ip's order.
template <class Fields, class Neigh>
void printNeigh(Fields& f, const Neigh& n, const DeviceNames& names, bool withDev) {
  f.begin();
  const auto& dst = n.dst();
  if (dst && ipNameOptions.resolve) f.any("dst", "", ipHostName(*dst));  // -r: ip's format_host
  else if (dst) f.any("dst", "", *dst);
  else if constexpr (!requires { Neigh::kBridge; }) f.json("dst", "");
  if (withDev) f.device("dev", "dev ", names.find(n.devIndex()), n.devIndex());
  if (const auto& lladdr = n.lladdr()) f.any("lladdr", "lladdr ", *lladdr);
  if (n.router()) f.null("router", "router");
  if (n.proxy()) f.null("proxy", "proxy");
  if (n.externLearn()) f.null("extern_learn", "extern_learn");
  if (auto state = n.state(); !n.proxy() && state && *state != NeighState::None) {
    // A bridge entry may hold several states ("NOARP,PERMANENT"): ip prints each, a word in
    // text and an item of the list in JSON.
    std::string all = neighStateName(*state);
    f.beginList("state");
    for (std::size_t at = 0; at <= all.size();) {
      std::size_t comma = all.find(',', at);
      if (comma == std::string::npos) comma = all.size();
      f.item(std::string_view(all).substr(at, comma - at));
      at = comma + 1;
    }
    f.endList();
  }
  // After the state, by its rt_protos name, in text too (print_neigh).
  if (auto protocol = n.protocol(); protocol && *protocol)
    f.any("protocol", "proto ", ipProtocolName(static_cast<RouteProtocol>(*protocol)));
  f.end();
}

/// `ip -B neigh show`: the AF_BRIDGE neighbour dump is the FDB; ip prints its entries with
/// print_neigh's filter (the state mask, proxy and externally learned entries always).
void listBridgeNeigh(Netlink& nl, const ShowOptions& s, const std::function<void(const FdbInfo&)>& each) {
  FdbFilter f;
  if (s.filter.dev) f.dev = *s.filter.dev;
  if (s.filter.master) f.bridge = *s.filter.master;
  uint16_t mask = s.filter.stateMask.value_or(0xffff);
  for (const FdbInfo& e : nl.fdb().list(f)) {
    uint16_t state = e.nudState.value_or(0);
    uint8_t flags = e.flags.value_or(0);
    bool none = !state && (mask & kNeighStateNoneBit);
    if (!(mask & state) && !(flags & (NTF_PROXY | NTF_EXT_LEARNED)) && !none) continue;
    if (!s.selects(FdbAsNeigh(e))) continue;
    each(e);
  }
}

int showNeigh(Context& ctx, Args& args) {
  ShowOptions s = parseShow(ctx, args, false);
  // `ip -0 neigh show` asks for AF_PACKET neighbours: there are none, it prints nothing; nor
  // are there MPLS ones (-M).
  bool linkFamily = (ctx.options().family == FamilyOption::Link && !s.filter.family) ||
                    ipNameOptions.family == OtherFamily::Mpls;
  bool bridge = ipNameOptions.family == OtherFamily::Bridge;
  if (bridge && s.to) throw UsageError("neigh show -B: \"to\" selects IP addresses; the bridge family has none");
  Netlink& nl = ctx.netlink();
  auto names = loadDeviceNames(nl);
  bool withDev = !s.devGiven;
  streamFields(ctx, [&](auto& fields, auto restart) {
    if (bridge) return listBridgeNeigh(nl, s, [&](const FdbInfo& e) { printNeigh(fields, FdbAsNeigh(e), names, withDev); });
    if (!linkFamily) nl.neighbours().forEach(s.filter, [&](const NeighView& n) {
      if (s.selects(n)) printNeigh(fields, n, names, withDev);
    }, restart);
  });
  return kExitOk;
}

int flushNeigh(Context& ctx, Args& args) {
  ShowOptions s = parseShow(ctx, args, true);
  // -M: there are no MPLS neighbours, ip's flush finds nothing (status 0). -B would delete FDB
  // entries through the neighbour table's grammar: refused by name.
  if (ipNameOptions.family == OtherFamily::Mpls) return kExitOk;
  if (ipNameOptions.family == OtherFamily::Bridge)
    throw UsageError("the bridge family (-B, -family bridge) is not supported by fastlink with \"neigh flush\" (use fdb del)");
  if (s.to || s.protocol) {
    // A prefix or protocol is matched in user space: delete the selected entries one by one.
    Netlink& nl = ctx.netlink();
    NeighFilter f = s.filter;
    if (!f.stateMask && !f.proxy)
      f.stateMask = static_cast<uint16_t>(0xffff & ~(static_cast<uint16_t>(NeighState::Permanent) |
                                                     static_cast<uint16_t>(NeighState::Noarp)));
    std::vector<NeighInfo> victims;
    nl.neighbours().forEach(f, [&](const NeighInfo& n) {
      if (n.dst && s.selects(NeighInfoFields(n))) victims.push_back(NeighInfo(*n.dst, n.dev.value()).setProxy(n.isProxy()));
    });
    for (const auto& v : victims) {
      try {
        nl.neighbours().del(v);
      } catch (const Error& e) {
        if (e.code() != std::errc::no_such_file_or_directory) throw;
      }
    }
    return kExitOk;
  }
  ctx.netlink().neighbours().flush(s.filter);
  return kExitOk;
}

int getNeigh(Context& ctx, Args& args) {
  bool proxy = false;
  std::optional<IpAddress> dst;
  std::string dev;
  while (!args.done()) {
    if (args.accept("proxy")) proxy = true;
    else if (args.accept("dev")) dev = parseIfname(args.value("dev"), "dev");
    else if (args.accept("to")) dst = parseIp(args.value("to"), "to");
    else if (!dst) dst = parseIp(args.next(), "address");
    else args.unknown("neigh get takes: [proxy] ADDR dev DEV");
  }
  if (!dst || dev.empty()) throw UsageError("neigh get: ADDR and \"dev DEV\" are required");
  Netlink& nl = ctx.netlink();
  NeighInfo n;
  try {
    n = nl.neighbours().get(*dst, dev, proxy);
  } catch (const Error& e) {
    return reportFailure(e, dev);
  }
  auto names = loadDeviceNames(nl);
  streamFields(ctx, [&](auto& fields, auto) { printNeigh(fields, NeighInfoFields(n), names, true); });
  return kExitOk;
}

int runNeigh(Context& ctx, Args& args) {
  return runObject(ctx, args, kUsage,
                   {{{"show", "list", "ls", "lst"}, showNeigh}, {{"flush"}, flushNeigh}, {{"get"}, getNeigh}}, prepareNeigh);
}

const Registrar kNeigh{ObjectCommand{.name = "neigh",
                                     .aliases = {"n", "ne", "nei", "neighbor", "neighbour"},
                                     .usage = kUsage,
                                     .run = runNeigh,
                                     .prepare = prepareNeigh}};

}  // namespace

template <class Fields>
void printNeighbour(Fields& f, const NeighInfo& n, const DeviceNames& names, bool withDev) {
  printNeigh(f, NeighInfoFields(n), names, withDev);
}
template void printNeighbour(StreamText&, const NeighInfo&, const DeviceNames&, bool);
template void printNeighbour(StreamJson&, const NeighInfo&, const DeviceNames&, bool);

template <class Fields>
void printFdbNeighbour(Fields& f, const FdbInfo& e, const DeviceNames& names, bool withDev) {
  printNeigh(f, FdbAsNeigh(e), names, withDev);
}
template void printFdbNeighbour(StreamText&, const FdbInfo&, const DeviceNames&, bool);
template void printFdbNeighbour(StreamJson&, const FdbInfo&, const DeviceNames&, bool);

}  // namespace fastlink::cli
