// The `ntable` object (also `ntbl`): neighbour tables (fastlink/ntable.hpp), with ip's grammar,
// abbreviations, text (-s, -o) and -j output and exit statuses:
//   fastlink ntable [ show | list ] [ dev DEV | dev none ] [ name NAME ]
//   fastlink ntable change name NAME [ dev DEV ] [ thresh1 VAL ] [ thresh2 VAL ] [ thresh3 VAL ]
//                          [ gc_int MSEC ] [ PARMS ]
#include <fmt/format.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fastlink/netlink.hpp"
#include "fastlink/ntable.hpp"
#include "kit/args.hpp"
#include "kit/command.hpp"
#include "kit/device_names.hpp"
#include "kit/failure.hpp"
#include "kit/fields.hpp"
#include "kit/output.hpp"
#include "rtnl/ip_object.hpp"

namespace fastlink::cli {
namespace {

constexpr const char* kUsage = R"(Usage: fastlink ntable change name NAME [ dev DEV ]
        [ thresh1 VAL ] [ thresh2 VAL ] [ thresh3 VAL ] [ gc_int MSEC ]
        [ PARMS ]
Usage: fastlink ntable show [ dev DEV ] [ name NAME ]
PARMS := [ base_reachable MSEC ] [ retrans MSEC ] [ gc_stale MSEC ]
         [ delay_probe MSEC ] [ queue LEN ]
         [ app_probes VAL ] [ ucast_probes VAL ] [ mcast_probes VAL ]
         [ anycast_delay MSEC ] [ proxy_delay MSEC ] [ proxy_queue LEN ]
         [ locktime MSEC ])";


/// -4/-6/-0 as the AF_* number ip puts in its requests (0 without one).
uint8_t requestFamily(const Context& ctx) {
  switch (ctx.options().family) {
    case FamilyOption::Inet: return AF_INET;
    case FamilyOption::Inet6: return AF_INET6;
    case FamilyOption::Link: return AF_PACKET;
    case FamilyOption::Any: break;
  }
  return 0;
}

/// ip's family_name().
const char* familyName(uint8_t family) {
  switch (family) {
    case AF_INET: return "inet";
    case AF_INET6: return "inet6";
    case AF_DECnet: return "dnet";
    case AF_PACKET: return "link";
    case AF_IPX: return "ipx";
    case AF_MPLS: return "mpls";
    case AF_BRIDGE: return "bridge";
  }
  return "???";
}

/// The moment `msec` ago in local time, as ip's ntable_strtime_delta (0: "(error)").
std::string momentAgo(uint32_t msec) {
  if (msec == 0) return "(error)";
  timeval now{};
  if (gettimeofday(&now, nullptr) < 0) return "(error)";
  time_t t = now.tv_sec - msec / 1000;
  tm local{};
  if (!localtime_r(&t, &local)) return "(error)";
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %T", &local);
  return text;
}

/// Lines of `key VALUE ` words (-j: the keys), each word printed when the kernel reported its
/// value: the first line after `first`, the others after four blanks, each ended by `sl`.
struct LineField {
  const char* key;
  std::optional<uint64_t> value;
};
void writeLines(FieldOut& f, const char* first, const std::vector<std::vector<LineField>>& lines, const char* sl) {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    f.text("{}", i ? "    " : first);
    for (const auto& [key, value] : lines[i])
      if (value) f.any(key, fmt::runtime(std::string(key) + " {} "), *value);
    f.text("{}", sl);
  }
}

/// One dump message in ip's order and words (print_ntable); `sl` ends each text line ("\n", or
/// "\\" with -o), `stats` is -s.
void writeTable(FieldOut& f, const NeighTableInfo& t, DeviceNames& names, const char* sl, bool stats) {
  f.any("family", "{} ", std::string(familyName(t.family)));
  f.any("name", "{} ", t.name);
  f.text("{}", sl);
  bool limits = t.thresh1 || t.thresh2 || t.thresh3 || t.gcInterval;
  if (limits) f.text("    ");
  if (t.thresh1) f.any("thresh1", "thresh1 {} ", *t.thresh1);
  if (t.thresh2) f.any("thresh2", "thresh2 {} ", *t.thresh2);
  if (t.thresh3) f.any("thresh3", "thresh3 {} ", *t.thresh3);
  if (t.gcInterval) f.any("gc_interval", "gc_int {} ", *t.gcInterval);
  if (limits) f.text("{}", sl);
  if (t.config && stats) {
    const NeighTableConfig& c = *t.config;
    f.any("key_length", "    config key_len {} ", unsigned{c.keyLength});
    f.any("entry_size", "entry_size {} ", unsigned{c.entrySize});
    f.any("entries", "entries {} ", c.entries);
    f.text("{}", sl);
    f.any("last_flush", "        last_flush {} ", momentAgo(c.lastFlushMs));
    f.any("last_rand", "last_rand {} ", momentAgo(c.lastRandMs));
    f.text("{}", sl);
    f.any("hash_rnd", "        hash_rnd {} ", c.hashRnd);
    f.any("hash_mask", fmt::format("{:#x}", c.hashMask), "hash_mask {} ", fmt::format("{:08x}", c.hashMask));
    f.any("hash_chain_gc", "hash_chain_gc {} ", c.hashChainGc);
    f.any("proxy_qlen", "proxy_qlen {} ", c.proxyQlen);
    f.text("{}", sl);
  }
  if (t.parms) {
    const NeighTableParms& p = *t.parms;
    if (p.ifindex) {
      f.text("    dev ");
      f.any("dev", "{} ", names.name(*p.ifindex));
      f.text("{}", sl);
    }
    // ip's four lines of parameters
    writeLines(f, "    ",
               {{{"refcnt", p.refcnt}, {"reachable", p.reachable}, {"base_reachable", p.baseReachable}, {"retrans", p.retrans}},
                {{"gc_stale", p.gcStale}, {"delay_probe", p.delayProbe}, {"queue", p.queueLen}},
                {{"app_probes", p.appProbes}, {"ucast_probes", p.ucastProbes}, {"mcast_probes", p.mcastProbes}},
                {{"anycast_delay", p.anycastDelay}, {"proxy_delay", p.proxyDelay}, {"proxy_queue", p.proxyQlen},
                 {"locktime", p.locktime}}},
               sl);
  }
  if (t.stats && stats) {
    const NeighTableStats& s = *t.stats;
    writeLines(f, "    stats ",
               {{{"allocs", s.allocs}, {"destroys", s.destroys}, {"hash_grows", s.hashGrows}},
                {{"res_failed", s.resFailed}, {"lookups", s.lookups}, {"hits", s.hits}},
                {{"rcv_probes_mcast", s.rcvProbesMcast}, {"rcv_probes_ucast", s.rcvProbesUcast}},
                {{"periodic_gc_runs", s.periodicGcRuns}, {"forced_gc_runs", s.forcedGcRuns}},
                {{"table_fulls", s.tableFulls}}},
               sl);
  }
}

int show(Context& ctx, Args& args) {
  Netlink& nl = ctx.netlink();
  std::optional<uint32_t> index;  // 0: `dev none`, the tables' own parameters
  std::optional<std::string> name;
  while (!args.done()) {
    if (args.accept("dev")) {
      const std::string& dev = args.value("dev");
      if (dev == "none") {
        index = 0;
      } else {
        std::optional<uint32_t> found = nl.links().findIndex(dev);
        // ip: "DEV" is invalid, a usage error (255), before anything is sent.
        if (!found) throw UsageError(fmt::format("dev: Cannot find device \"{}\"", dev));
        index = *found;
      }
    } else if (args.accept("name")) {
      name = args.value("name");
    } else {
      args.unknown("ntable show takes: dev DEV, dev none, name NAME");
    }
  }
  uint8_t family = requestFamily(ctx);
  DeviceNames names([&nl](uint32_t i) { return nl.links().find(Ifref(i)); });
  std::vector<NeighTableInfo> shown;
  try {
    names.load(nl.links());  // before the table dump: one dump at a time on the socket
    for (NeighTableInfo& t : nl.neighbourTables().list(family)) {
      // ip's print_ntable filter: the family, the name, the device (`none`: records without one).
      if (family && t.family != family) continue;
      if (name && t.name != *name) continue;
      if (index && t.parms && t.parms->ifindex.value_or(0) != *index) continue;
      shown.push_back(std::move(t));
    }
  } catch (const Error& e) {
    reportFailure(e);
    return kExitBadValue;  // ip: "Dump terminated", exit status 1
  }
  const char* sl = ctx.options().oneline ? "\\" : "\n";
  bool stats = ctx.options().stats > 0;
  if (ctx.options().json) {
    printRecords(shown, true, ctx.options().pretty,
                 [&](FieldOut& f, const NeighTableInfo& t) { writeTable(f, t, names, sl, stats); });
  } else {
    // ip ends every record with an empty line of its own (a "\n" after the last line).
    std::string text;
    for (const NeighTableInfo& t : shown) {
      FieldOut f(text);
      writeTable(f, t, names, sl, stats);
      text += "\n";
    }
    std::fputs(text.c_str(), stdout);
  }
  return kExitOk;
}

/// A change line: the change, and the device as typed (resolved already when `resolveNow`).
struct ParsedChange {
  NeighTableChange change;
  std::optional<std::string> dev;
};

ParsedChange parseChange(Context& ctx, Args& args, bool resolveNow) {
  ParsedChange p;
  NeighTableChange& c = p.change;
  c.family = requestFamily(ctx);
  bool named = false;
  auto u32 = [&](const char* key, std::optional<uint32_t>& field) { field = parseU32(args.value(key), key); };
  auto u64 = [&](const char* key, std::optional<uint64_t>& field) {
    field = parseInteger(args.value(key), key, 0, UINT64_MAX);
  };
  // Each word is checked where it stands, as ip does: the first bad one decides the message.
  while (!args.done()) {
    if (args.accept("name")) {
      const std::string& n = args.value("name");
      if (named) throw UsageError(fmt::format("name: given twice (\"{}\")", n));  // ip: duparg, 255
      c.name = n;
      named = true;
    } else if (args.accept("thresh1")) u32("thresh1", c.thresh1);
    else if (args.accept("thresh2")) u32("thresh2", c.thresh2);
    else if (args.accept("thresh3")) u32("thresh3", c.thresh3);
    else if (args.accept("gc_int")) u64("gc_int", c.gcInterval);
    else if (args.accept("dev")) {
      p.dev = args.value("dev");
      if (resolveNow) {
        std::optional<uint32_t> index = ctx.netlink().links().findIndex(*p.dev);
        // ip: `Cannot find device "X"`, exit status 1.
        if (!index) throw BadValueError(fmt::format("Cannot find device \"{}\"", *p.dev));
        c.parms.ifindex = *index;
      }
    } else if (args.accept("base_reachable")) u64("base_reachable", c.parms.baseReachable);
    else if (args.accept("retrans")) u64("retrans", c.parms.retrans);
    else if (args.accept("gc_stale")) u64("gc_stale", c.parms.gcStale);
    else if (args.accept("delay_probe")) u64("delay_probe", c.parms.delayProbe);
    else if (args.accept("queue")) u32("queue", c.parms.queueLen);
    else if (args.accept("app_probes")) u32("app_probes", c.parms.appProbes);
    else if (args.accept("ucast_probes")) u32("ucast_probes", c.parms.ucastProbes);
    else if (args.accept("mcast_probes")) u32("mcast_probes", c.parms.mcastProbes);
    else if (args.accept("anycast_delay")) u64("anycast_delay", c.parms.anycastDelay);
    else if (args.accept("proxy_delay")) u64("proxy_delay", c.parms.proxyDelay);
    else if (args.accept("proxy_queue")) u32("proxy_queue", c.parms.proxyQlen);
    else if (args.accept("locktime")) u64("locktime", c.parms.locktime);
    else
      args.unknown("ntable change takes: name, dev, thresh1, thresh2, thresh3, gc_int, base_reachable, retrans, "
                   "gc_stale, delay_probe, queue, app_probes, ucast_probes, mcast_probes, anycast_delay, "
                   "proxy_delay, proxy_queue, locktime");
  }
  if (!named) throw UsageError("ntable change: \"name NAME\" is required");
  const NeighTableParms& q = c.parms;
  if (!c.thresh1 && !c.thresh2 && !c.thresh3 && !c.gcInterval && !q.baseReachable && !q.retrans && !q.gcStale &&
      !q.delayProbe && !q.queueLen && !q.appProbes && !q.ucastProbes && !q.mcastProbes && !q.anycastDelay &&
      !q.proxyDelay && !q.proxyQlen && !q.locktime)
    throw UsageError("ntable change: nothing to change (thresholds, gc_int or parameters)");  // ip: 255
  return p;
}

int change(Context& ctx, Args& args) {
  ParsedChange p = parseChange(ctx, args, true);
  try {
    ctx.netlink().neighbourTables().change(p.change);
  } catch (const Error& e) {
    reportFailure(Error(e.code(), args.text(), e.extack()));  // named as the user typed it
    return kExitFailed;  // ip exits 2 whatever the kernel said
  }
  return kExitOk;
}

/// A -batch line: change is one request; show reads, and is refused.
PreparedRequest prepareNtable(Context& ctx, Args& args) {
  std::string verb = args.done() ? std::string("show") : args.next();
  if (!matches(verb, "change") && !matches(verb, "chg")) {
    if (matches(verb, "help")) throw UsageError(kUsage);
    throw UsageError(fmt::format("ntable {} cannot be used in a batch (a batch sends change lines)", verb));
  }
  ParsedChange p = parseChange(ctx, args, false);
  return requestNamingDevice(p.dev, [p](uint32_t index) {
    NeighTableChange c = p.change;
    if (p.dev) c.parms.ifindex = index;
    return NeighTableRequests::change(c);
  });
}

int runNtable(Context& ctx, Args& args) {
  return runIpVerbs(ctx, args, kUsage, "ntable verbs: change, show, help",
                    // ip's order is change, chg, then show's names: no prefix of one is a
                    // prefix of the other's, so show may come first as the verb of no words.
                    {{{"show", "lst", "list"}, show}, {{"change", "chg"}, change}});
}

const Registrar kNtable{
    ObjectCommand{.name = "ntable", .aliases = {"ntbl"}, .usage = kUsage, .run = runNtable, .prepare = prepareNtable}};

}  // namespace
}  // namespace fastlink::cli
