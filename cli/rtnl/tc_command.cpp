// The `tc` object: `fastlink tc { qdisc | class } { add | replace | change | del | show } ...` in
// tc's grammar, and `fastlink tc watch dev X` (where packets are sent and dropped, live, and the
// filters and chains added to or deleted from the device meanwhile, as `tc monitor` prints them).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <type_traits>

#include "events/monitor_print.hpp"
#include "fastlink/events.hpp"
#include "kit/arg_errors.hpp"
#include "kit/args.hpp"
#include "kit/command.hpp"
#include "kit/failure.hpp"
#include "kit/device_names.hpp"
#include "kit/netns_names.hpp"
#include "kit/writer.hpp"
#include "fastlink/link.hpp"
#include "fastlink/tc.hpp"
#include "kit/output.hpp"
#include "fastlink/ethtool.hpp"
#include "rtnl/ip_object.hpp"
#include "rtnl/tc_filter.hpp"
#include "rtnl/tc_print.hpp"

namespace fastlink::cli {
namespace {

constexpr const char* kUsage = R"(Usage: fastlink tc qdisc { add | replace | change | del } dev NAME
                       { root | ingress | clsact | parent MAJ:MIN } [ handle MAJ: ] [ KIND [ OPTIONS ] ]
       fastlink tc [ -s ] [ -d ] qdisc show [ dev NAME ] [ root | ingress | handle MAJ: | parent MAJ:MIN ] [ invisible ]
       fastlink tc class { add | replace | change | del } dev NAME parent MAJ:[MIN] classid MAJ:MIN [ KIND [ OPTIONS ] ]
       fastlink tc [ -s ] [ -d ] class show dev NAME [ parent MAJ:[MIN] ] [ classid MAJ:MIN ]
       fastlink tc filter { add | replace | change | del | show } [ OPTIONS ]    (fastlink tc filter help)
       fastlink tc chain { add | del | get | show } [ OPTIONS ]    (fastlink tc filter help)
       fastlink tc actions { add | del | show } [ OPTIONS ]    (fastlink tc actions help)
       fastlink tc [ -j ] watch dev NAME [ interval SECONDS ] [ count N ]
KIND := pfifo [ limit PACKETS ] | bfifo [ limit BYTES ] | pfifo_fast | mq | noqueue | ingress | clsact
      | htb [ default MINOR ] [ r2q N ] [ direct_qlen P ]
      | fq_codel [ limit P ] [ flows N ] [ target TIME ] [ interval TIME ] [ quantum B ] [ ecn | noecn ]
                 [ ce_threshold TIME ] [ ce_threshold_selector VALUE/MASK ] [ memory_limit B ] [ drop_batch N ]
      | fq [ limit P ] [ flow_limit P ] [ quantum B ] [ initial_quantum B ] [ maxrate RATE ] [ buckets N ]
           [ pacing | nopacing ] [ refill_delay TIME ] [ orphan_mask M ] [ ce_threshold TIME ] [ horizon TIME ]
           [ horizon_drop | horizon_cap ] [ low_rate_threshold RATE ] [ defrate RATE ] [ timer_slack TIME ]
      | netem [ limit P ] [ delay TIME [ JITTER [ CORR% ] ] ] [ distribution NAME ]
              [ loss [ random ] P% [ CORR% ] | loss state P13 [ P31 [ P32 [ P23 [ P14 ] ] ] ]
                | loss gemodel P [ R [ 1-H [ 1-K ] ] ] ] [ ecn ]
              [ duplicate P% [ CORR% ] ] [ reorder P% [ CORR% ] [ gap N ] ] [ corrupt P% [ CORR% ] ]
              [ rate { RATE | PERCENT% } [ PACKETOVERHEAD [ CELLSIZE [ CELLOVERHEAD ] ] ] ]
              [ slot { MIN_DELAY [ MAX_DELAY ] | distribution NAME DELAY JITTER } [ packets N ] [ bytes B ] ]
      | tbf rate RATE burst BYTES ( latency TIME | limit BYTES ) [ peakrate RATE mtu BYTES ]
htb class OPTIONS := rate RATE [ ceil RATE ] [ burst BYTES ] [ cburst BYTES ] [ prio N ] [ quantum BYTES ] [ mtu BYTES ]
RATE: 10mbit, 1gbit, 125kbps, ... (a unit is required); BYTES: 1600, 15k, 1mb; TIME: 5ms, 100us, 1s)";

// ---- option parsers, one per kind -----------------------------------------------------------------

template <class Fn>
auto unitValue(Args& args, std::string_view keyword, Fn parse) {
  std::string v = args.value(keyword);
  try {
    return parse(v, keyword);
  } catch (const Error& e) {
    throw UsageError(fmt::format("{}: {}", keyword, e.reason()));
  }
}
uint64_t rateArg(Args& a, std::string_view k) { return unitValue(a, k, tcunits::parseRate); }
uint32_t sizeArg(Args& a, std::string_view k) { return unitValue(a, k, tcunits::parseSize); }
uint32_t timeArg(Args& a, std::string_view k) {
  uint64_t us = unitValue(a, k, tcunits::parseTime);
  if (us > UINT32_MAX) throw UsageError(fmt::format("{}: too large", k));
  return static_cast<uint32_t>(us);
}
double percentArg(Args& a, std::string_view k) { return unitValue(a, k, tcunits::parsePercent); }
/// A rate in a u32 field (fq's maxrate, defrate, low_rate_threshold): above 2^32-1 bytes/s
/// (34.4Gbit) refused, as tc's get_rate refuses it.
uint32_t rate32Arg(Args& a, std::string_view k) {
  uint64_t r = rateArg(a, k);
  if (r > UINT32_MAX) throw UsageError(fmt::format("{}: {} is too large (at most {})", k, tcunits::rateText(r), tcunits::rateText(UINT32_MAX)));
  return static_cast<uint32_t>(r);
}

/// tc's get_time64: nanoseconds; a number without a unit is nanoseconds (not microseconds, as
/// get_time reads it); s, ms, us, ns and their sec/msec/usec/nsec(s) spellings in any case.
int64_t time64Arg(Args& a, std::string_view k) {
  std::string v = a.value(k);
  char* end = nullptr;
  double ns = std::strtod(v.c_str(), &end);
  if (end == v.c_str()) throw UsageError(fmt::format("{}: \"{}\" is not a time", k, v));
  std::string unit(end);
  std::transform(unit.begin(), unit.end(), unit.begin(), [](unsigned char c) { return std::tolower(c); });
  auto is = [&](std::initializer_list<const char*> words) {
    return std::any_of(words.begin(), words.end(), [&](const char* w) { return unit == w; });
  };
  if (is({"s", "sec", "secs"})) ns *= 1e9;
  else if (is({"ms", "msec", "msecs"})) ns *= 1e6;
  else if (is({"us", "usec", "usecs"})) ns *= 1e3;
  else if (!unit.empty() && !is({"ns", "nsec", "nsecs"})) throw UsageError(fmt::format("{}: \"{}\" is not a time", k, v));
  if (!(ns >= -9.2e18 && ns <= 9.2e18)) throw UsageError(fmt::format("{}: \"{}\" is out of range", k, v));
  return static_cast<int64_t>(ns);
}

/// A signed 32-bit number in C notation (tc's get_s32): netem's overheads, slot's packets.
int32_t s32Arg(Args& a, std::string_view k) {
  std::string v = a.value(k);
  char* end = nullptr;
  errno = 0;
  long long n = std::strtoll(v.c_str(), &end, 0);
  if (v.empty() || *end || errno || n < INT32_MIN || n > INT32_MAX)
    throw UsageError(fmt::format("{}: \"{}\" is not a number ({}-{})", k, v, INT32_MIN, INT32_MAX));
  return static_cast<int32_t>(n);
}

/// tc's NEXT_IS_NUMBER (and, `sign`, NEXT_IS_SIGNED_NUMBER): the next word starts with a digit
/// (or a minus sign), so it is the optional value of the word before.
bool nextIsNumber(const Args& args, bool sign = false) {
  if (args.done() || args.peek().empty()) return false;
  unsigned char c = static_cast<unsigned char>(args.peek()[0]);
  return std::isdigit(c) || (sign && c == '-');
}

/// A netem distribution table (`distribution NAME`): NAME.dist from tc's library directory, read
/// as tc reads it (`#` lines skipped, numbers in C notation, at most 16384 of them).
std::vector<int16_t> distributionTable(const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos)
    throw UsageError(fmt::format("distribution: \"{}\" is not a table name (NAME reads NAME.dist of tc's library directory)", name));
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("TC_LIB_DIR")) dirs.emplace_back(env);
  else dirs = {"/usr/lib/x86_64-linux-gnu/tc", "/usr/lib/aarch64-linux-gnu/tc", "/usr/lib64/tc", "/usr/lib/tc"};
  std::string path;
  FILE* f = nullptr;
  for (const auto& dir : dirs) {
    path = dir + "/" + name + ".dist";
    if ((f = std::fopen(path.c_str(), "r"))) break;
  }
  if (!f)
    throw UsageError(fmt::format("distribution: no distribution data for {} ({}.dist in none of {}{})", name, name,
                                 fmt::join(dirs, ", "), std::getenv("TC_LIB_DIR") ? "" : "; TC_LIB_DIR names another"));
  std::vector<int16_t> table;
  char* line = nullptr;
  size_t size = 0;
  bool tooMuch = false;
  while (!tooMuch && getline(&line, &size, f) != -1) {
    if (line[0] == '\n' || line[0] == '#') continue;
    for (char *p = line, *end = nullptr;; p = end) {
      long x = std::strtol(p, &end, 0);
      if (end == p) break;
      if (table.size() >= 16 * 1024) {
        tooMuch = true;
        break;
      }
      table.push_back(static_cast<int16_t>(x));
    }
  }
  std::free(line);
  std::fclose(f);
  if (tooMuch) throw UsageError(fmt::format("distribution: {}: too much data (more than 16384 values)", path));
  if (table.empty()) throw UsageError(fmt::format("distribution: {} holds no values", path));
  return table;
}

[[noreturn]] void unknownOption(Args& args, const std::string& kind) {
  args.unknown(fmt::format("not an option of {} (see \"fastlink tc help\")", kind));
}

FifoOptions parseFifo(Args& args, const std::string& kind) {
  FifoOptions o;
  while (!args.done()) {
    if (args.accept("limit")) {
      if (kind == "bfifo") o.limit = sizeArg(args, "limit");
      else o.limit = parseU32(args.value("limit"), "limit");
    } else unknownOption(args, kind);
  }
  return o;
}

/// htb's `default MINOR`: hex without 0x, like tc. The message shows the word as typed.
uint32_t parseDefaultClass(const std::string& word) {
  try {
    return static_cast<uint32_t>(parseInteger("0x" + word, "default", 0, 0xFFFF));
  } catch (const UsageError&) {
    throw UsageError(fmt::format("default: \"{}\" is not a class minor (hex, 0-ffff)", word));
  }
}

HtbOptions parseHtb(Args& args) {
  HtbOptions o;
  while (!args.done()) {
    if (args.accept("default")) o.defaultClass = parseDefaultClass(args.value("default"));
    else if (args.accept("r2q")) o.r2q = parseU32(args.value("r2q"), "r2q");
    else if (args.accept("direct_qlen")) o.directQlen = parseU32(args.value("direct_qlen"), "direct_qlen");
    else unknownOption(args, "htb");
  }
  return o;
}

HtbClassOptions parseHtbClass(Args& args) {
  HtbClassOptions o;
  bool rate = false;
  while (!args.done()) {
    if (args.accept("rate")) o.rate = rateArg(args, "rate"), rate = true;
    else if (args.accept("ceil")) o.ceil = rateArg(args, "ceil");
    else if (args.acceptAny({"burst", "buffer", "maxburst"})) o.burst = sizeArg(args, "burst");
    else if (args.acceptAny({"cburst", "cbuffer", "cmaxburst"})) o.cburst = sizeArg(args, "cburst");
    else if (args.accept("prio")) o.prio = parseU32(args.value("prio"), "prio", 0, 7);
    else if (args.accept("quantum")) o.quantum = sizeArg(args, "quantum");
    else if (args.accept("mtu")) o.mtu = parseU32(args.value("mtu"), "mtu");
    else unknownOption(args, "htb class");
  }
  if (!rate) throw UsageError("htb class: \"rate\" is required");
  return o;
}

FqCodelOptions parseFqCodel(Args& args) {
  FqCodelOptions o;
  // tc sends none of limit, flows, quantum, target, interval, drop_batch when it is 0 (the
  // kernel would refuse 0 flows): 0 leaves the kernel's value.
  auto unlessZero = [](std::optional<uint32_t>& field) {
    if (field == 0u) field.reset();
  };
  while (!args.done()) {
    if (args.accept("limit")) o.limit = parseU32(args.value("limit"), "limit");
    else if (args.accept("flows")) o.flows = parseU32(args.value("flows"), "flows");
    else if (args.accept("quantum")) o.quantum = sizeArg(args, "quantum");
    else if (args.accept("target")) o.target = timeArg(args, "target");
    else if (args.accept("interval")) o.interval = timeArg(args, "interval");
    else if (args.accept("ce_threshold")) o.ceThreshold = timeArg(args, "ce_threshold");
    else if (args.accept("memory_limit")) o.memoryLimit = sizeArg(args, "memory_limit");
    else if (args.accept("drop_batch")) o.dropBatch = parseU32(args.value("drop_batch"), "drop_batch");
    else if (args.accept("ce_threshold_selector")) {
      // VALUE/MASK, each a byte in C notation (tc's get_u8): only packets whose tc_index & MASK
      // equals VALUE are CE-marked.
      std::string v = args.value("ce_threshold_selector");
      auto slash = v.find('/');
      if (slash == std::string::npos) throw UsageError(fmt::format("ce_threshold_selector: \"{}\" has no /MASK", v));
      o.ceThresholdMask = static_cast<uint8_t>(parseInteger(v.substr(slash + 1), "ce_threshold_selector mask", 0, 255));
      o.ceThresholdSelector = static_cast<uint8_t>(parseInteger(v.substr(0, slash), "ce_threshold_selector", 0, 255));
    } else if (!args.acceptSwitch("ecn", o.ecn)) unknownOption(args, "fq_codel");  // ecn | noecn
  }
  for (auto* field : {&o.limit, &o.flows, &o.quantum, &o.target, &o.interval, &o.dropBatch}) unlessZero(*field);
  return o;
}

FqOptions parseFq(Args& args) {
  FqOptions o;
  while (!args.done()) {
    if (args.acceptSwitch("pacing", o.pacing)) continue;  // pacing | nopacing
    if (args.accept("limit")) o.limit = parseU32(args.value("limit"), "limit");
    else if (args.accept("flow_limit")) o.flowLimit = parseU32(args.value("flow_limit"), "flow_limit");
    else if (args.accept("quantum")) o.quantum = sizeArg(args, "quantum");
    else if (args.accept("initial_quantum")) o.initialQuantum = sizeArg(args, "initial_quantum");
    else if (args.accept("maxrate")) o.maxRate = rate32Arg(args, "maxrate");
    else if (args.accept("defrate")) o.defaultRate = rate32Arg(args, "defrate");
    else if (args.accept("low_rate_threshold")) o.lowRateThreshold = rate32Arg(args, "low_rate_threshold");
    else if (args.accept("buckets")) {
      // tc sends log2 rounded up (1000 buckets: 1024), and nothing for 0.
      uint32_t n = parseU32(args.value("buckets"), "buckets");
      uint32_t log = 0;
      for (uint32_t v = n - 1; n && v; v >>= 1) ++log;
      if (n) o.bucketsLog = log;
      else o.bucketsLog.reset();
    } else if (args.accept("timer_slack")) {
      int64_t ns = time64Arg(args, "timer_slack");
      if (ns < 0 || ns > UINT32_MAX) throw UsageError("timer_slack: out of range");
      o.timerSlack = static_cast<uint32_t>(ns);
    } else if (args.accept("horizon_drop")) o.horizonDrop = true;
    else if (args.accept("horizon_cap")) o.horizonDrop = false;
    else if (args.accept("refill_delay")) o.refillDelay = timeArg(args, "refill_delay");
    else if (args.accept("orphan_mask")) o.orphanMask = parseU32(args.value("orphan_mask"), "orphan_mask");
    else if (args.accept("ce_threshold")) o.ceThreshold = timeArg(args, "ce_threshold");
    else if (args.accept("horizon")) o.horizon = timeArg(args, "horizon");
    else unknownOption(args, "fq");
  }
  return o;
}

/// A probability and its optional correlation, as tc reads them (`P% [CORR%]`).
void chanceArgs(Args& args, const char* word, double& p, double& correlation) {
  p = percentArg(args, word);
  if (nextIsNumber(args)) correlation = percentArg(args, fmt::format("{} correlation", word));
}

bool acceptPrefix(Args& args, std::string_view name);

/// `slot MIN [MAX] | slot distribution NAME DELAY JITTER`, then `[packets N] [bytes B]` (each
/// by prefix, as tc).
NetemOptions::Slot parseSlot(Args& args, NetemOptions& o) {
  NetemOptions::Slot t;
  if (args.done()) args.value("slot");  // tc: the line is not complete (255)
  if (nextIsNumber(args)) {
    t.minDelay = time64Arg(args, "slot");
    t.maxDelay = t.minDelay;
    if (nextIsNumber(args)) {
      t.maxDelay = time64Arg(args, "slot max_delay");
      if (t.maxDelay < t.minDelay) throw UsageError("slot: the max_delay is below the min_delay");
    }
  } else if (args.accept("distribution")) {
    o.slotDistribution = distributionTable(args.value("slot distribution"));
    t.distDelay = time64Arg(args, "slot delay");
    t.distJitter = time64Arg(args, "slot jitter");
    if (t.distJitter <= 0) throw UsageError("slot: the jitter must be above 0");
  } else {
    args.unknown("slot takes MIN_DELAY [MAX_DELAY] or distribution NAME DELAY JITTER");
  }
  if (acceptPrefix(args, "packets")) t.maxPackets = s32Arg(args, "slot packets");
  if (acceptPrefix(args, "bytes")) t.maxBytes = static_cast<int32_t>(sizeArg(args, "slot bytes"));
  return t;
}

/// tc's matches() for netem's words: the word is a prefix of `name` (tc tries them in its order,
/// so `d` is delay, `dr` drop, `du` duplicate, `di` distribution, `l` limit, `r` reorder).
bool acceptPrefix(Args& args, std::string_view name) {
  if (!matches(args.peekView(), name)) return false;
  args.next();
  return true;
}

/// netem's `rate N%`, as tc's get_percent_rate64 reads it: N% (its leading digits, dots and %
/// signs, 0-100) of the speed the device reports (/sys/class/net/DEV/speed, Mbit/s: the ethtool
/// link speed of a device that is up), in bits per second through tc's "%lf" text, then bytes.
uint64_t percentRate(Context& ctx, const std::string& word, const std::optional<std::string>& dev) {
  if (!dev) throw UsageError("rate: no device specified; specify the device (dev NAME) to rate limit by percentage");
  std::optional<uint32_t> speed;
  try {
    std::optional<LinkInfo> link = ctx.netlink().links().find(Ifref(*dev));
    if (link && link->isUp()) speed = ctx.netlink().ethtool().linkSettings(Ifref(*dev)).modes.value_or(LinkModesInfo{}).speed;
  } catch (const Error&) {
  }
  // SPEED_UNKNOWN (sysfs prints -1; tc would turn it into a negative rate): refused as unknown.
  if (!speed || *speed == UINT32_MAX)
    throw UsageError(fmt::format("rate: the speed of device \"{}\" is unknown (it must be up and report one)", *dev));
  std::string_view percent(word);
  percent = percent.substr(0, percent.find_first_not_of("0123456789.%"));
  std::string text(percent);
  char* end = nullptr;
  double fraction = std::strtod(text.c_str(), &end) / 100.;
  if (!percent.empty() && (fraction > 1.0 || fraction < 0.0))  // checked first, as tc's parse_percent
    throw UsageError(fmt::format("rate: should be between [0,100]% but is {}", word));
  if (percent.empty() || (*end && std::string_view(end) != "%"))
    throw UsageError(fmt::format("rate: \"{}\" could not be read or is malformed", word));
  char bits[20];
  int n = std::snprintf(bits, sizeof bits, "%lf", fraction * *speed * 1000 * 1000);
  if (n <= 0 || n >= static_cast<int>(sizeof bits)) throw UsageError("rate: unable to parse the calculated rate");
  return static_cast<uint64_t>(std::strtod(bits, nullptr) / 8);
}

NetemOptions parseNetem(Context& ctx, Args& args, const std::optional<std::string>& dev) {
  NetemOptions o;
  bool lossGiven = false;
  // tc's order of the words (each matched by prefix), which decides an abbreviation.
  while (!args.done()) {
    if (acceptPrefix(args, "limit")) o.limit = parseU32(args.value("limit"), "limit");
    else if (acceptPrefix(args, "latency") || acceptPrefix(args, "delay")) {
      o.delay = timeArg(args, "delay");
      if (nextIsNumber(args)) {
        o.jitter = timeArg(args, "jitter");
        if (nextIsNumber(args)) o.delayCorrelation = percentArg(args, "delay correlation");
      }
    } else if (acceptPrefix(args, "loss") || acceptPrefix(args, "drop")) {
      if (lossGiven) throw UsageError("loss: given twice (one loss model)");
      lossGiven = true;
      if (args.done()) args.value("loss");  // tc: the line is not complete (255)
      if (args.accept("state")) {
        // P13 [P31 [P32 [P23 [P14]]]]: the rest default to a model that only moves between the
        // good state and a loss (p31 = 1 - p13).
        NetemOptions::LossState g;
        g.p13 = percentArg(args, "loss state p13");
        g.p31 = 1 - g.p13;
        for (double* p : {&g.p31, &g.p32, &g.p23, &g.p14}) {
          if (!nextIsNumber(args)) break;
          *p = percentArg(args, "loss state");
        }
        o.lossState = g;
      } else if (args.accept("gemodel")) {
        NetemOptions::LossGemodel g;
        g.p = percentArg(args, "loss gemodel p");
        g.r = 1 - g.p;
        for (double* p : {&g.r, &g.oneMinusH, &g.k1}) {
          if (!nextIsNumber(args)) break;
          *p = percentArg(args, "loss gemodel");
        }
        o.lossGemodel = g;
      } else if (args.accept("random") || nextIsNumber(args)) {
        chanceArgs(args, "loss", o.loss, o.lossCorrelation);
      } else {
        args.unknown("loss takes random P, state P13 ..., gemodel P ... or P");
      }
    } else if (acceptPrefix(args, "ecn")) o.ecn = true;
    else if (acceptPrefix(args, "reorder")) chanceArgs(args, "reorder", o.reorder, o.reorderCorrelation);
    else if (acceptPrefix(args, "corrupt")) chanceArgs(args, "corrupt", o.corrupt, o.corruptCorrelation);
    else if (acceptPrefix(args, "gap")) o.gap = parseU32(args.value("gap"), "gap");
    else if (acceptPrefix(args, "duplicate")) chanceArgs(args, "duplicate", o.duplicate, o.duplicateCorrelation);
    else if (acceptPrefix(args, "distribution")) o.delayDistribution = distributionTable(args.value("distribution"));
    else if (acceptPrefix(args, "rate")) {
      // RATE [PACKETOVERHEAD [CELLSIZE [CELLOVERHEAD]]]: the overheads may be negative; a RATE
      // with a % is that share of the device's speed.
      if (args.done() || args.peek().find('%') == std::string::npos) o.rate = rateArg(args, "rate");
      else o.rate = percentRate(ctx, args.next(), dev);
      if (nextIsNumber(args, true)) o.packetOverhead = s32Arg(args, "rate packetoverhead");
      if (nextIsNumber(args)) o.cellSize = parseU32(args.value("rate cellsize"), "rate cellsize");
      if (nextIsNumber(args, true)) o.cellOverhead = s32Arg(args, "rate celloverhead");
    } else if (acceptPrefix(args, "slot")) o.slot = parseSlot(args, o);
    else unknownOption(args, "netem");
  }
  // tc's checks after the words, in its order and with its exit status (1).
  if (o.reorder > 0 && o.delay == 0) throw UsageError("netem: reordering is not possible without a delay");
  if (o.reorder <= 0 && o.gap > 0) throw UsageError("netem: gap is given without a reorder probability");
  if (o.ecn && o.loss <= 0 && !o.lossState && !o.lossGemodel) throw UsageError("netem: ecn is requested without a loss model");
  if (!o.delayDistribution.empty() && (o.delay == 0 || o.jitter == 0))
    throw UsageError("netem: a distribution needs a delay and a jitter");
  return o;
}

TbfOptions parseTbf(Args& args) {
  TbfOptions o;
  while (!args.done()) {
    if (args.accept("rate")) o.rate = rateArg(args, "rate");
    else if (args.acceptAny({"burst", "buffer", "maxburst"})) o.burst = sizeArg(args, "burst");
    else if (args.accept("limit")) o.limit = sizeArg(args, "limit");
    else if (args.accept("latency")) o.latency = timeArg(args, "latency");
    else if (args.accept("peakrate")) o.peakrate = rateArg(args, "peakrate");
    else if (args.acceptAny({"mtu", "minburst"})) o.mtu = sizeArg(args, "mtu");
    else unknownOption(args, "tbf");
  }
  if (!o.rate) throw UsageError("tbf: \"rate\" is required");
  if (!o.burst) throw UsageError("tbf: \"burst\" is required");
  if (o.limit.has_value() == o.latency.has_value()) throw UsageError("tbf: either \"limit\" or \"latency\" is required");
  return o;
}

/// The options after KIND; kinds fastlink does not know take none (tc cannot parse them either).
TcOptions parseKindOptions(Context& ctx, Args& args, const std::string& kind, bool isClass, const std::optional<std::string>& dev) {
  if (kind == "pfifo" || kind == "bfifo" || kind == "pfifo_head_drop") return args.done() ? TcOptions{} : parseFifo(args, kind);
  if (kind == "htb") return isClass ? TcOptions{parseHtbClass(args)} : TcOptions{parseHtb(args)};
  if (!isClass && kind == "fq_codel") return parseFqCodel(args);
  if (!isClass && kind == "fq") return parseFq(args);
  if (!isClass && kind == "netem") return parseNetem(ctx, args, dev);
  if (!isClass && kind == "tbf") return parseTbf(args);
  if (!args.done()) {
    if (kind == "mq" || kind == "noqueue" || kind == "ingress" || kind == "clsact" || kind == "pfifo_fast")
      throw UsageError(fmt::format("{} takes no options (\"{}\")", kind, args.peek()));
    throw UsageError(fmt::format("unknown {} kind \"{}\", hence option \"{}\" is unparsable", isClass ? "class" : "qdisc", kind,
                                 args.peek()));
  }
  return {};
}

/// parseKindOptions with tc's exit statuses: options of the kind that do not parse exit 1 (the
/// kind's parse_opt fails), a keyword missing its value 255 ("Command line is not complete").
TcOptions parseOptions(Context& ctx, Args& args, const std::string& kind, bool isClass, const std::optional<std::string>& dev) {
  return asKindOptionError([&] { return parseKindOptions(ctx, args, kind, isClass, dev); });
}

TcHandle handleArg(Args& args, std::string_view keyword) {
  std::string v = args.value(keyword);
  try {
    return TcHandle::parse(v);
  } catch (const Error& e) {
    throw UsageError(fmt::format("{}: {}", keyword, e.reason()));
  }
}

// ---- change lines ---------------------------------------------------------------------------------

enum class TcVerb { Add, Replace, Change, Del };

TcVerb parseVerb(Args& args, const char* object) {
  if (args.acceptAny({"add", "a"})) return TcVerb::Add;
  if (args.acceptAny({"replace", "r"})) return TcVerb::Replace;
  if (args.acceptAny({"change", "c", "set"})) return TcVerb::Change;
  if (args.acceptAny({"del", "delete", "d"})) return TcVerb::Del;
  if (args.acceptAny({"show", "list", "ls"}))
    throw UsageError(fmt::format("tc {} show cannot be used in a batch (a batch only sends changes)", object));
  args.unknown(fmt::format("tc {} verbs: add, replace, change, del, show", object));
}

/// The words common to qdisc and class lines up to the kind; returns the kind ("" if none).
struct Placement {
  std::optional<std::string> dev;
  std::optional<TcHandle> parent, handle, classid;
  std::string kind;
};

Placement parsePlacement(Args& args, bool isClass) {
  Placement p;
  auto setParent = [&](TcHandle h, std::string_view word) {
    if (p.parent) throw UsageError(fmt::format("{}: a parent was already given", word));
    p.parent = h;
  };
  while (!args.done()) {
    if (args.accept("dev")) p.dev = parseIfname(args.value("dev"), "dev");
    else if (args.accept("root")) setParent(TcHandle(TcHandle::kRoot), "root");
    else if (!isClass && (args.peek() == "ingress" || args.peek() == "clsact")) {
      p.kind = args.next();
      setParent(TcHandle(TcHandle::kIngress), p.kind);
      return p;
    } else if (args.accept("parent")) setParent(handleArg(args, "parent"), "parent");
    else if (!isClass && args.accept("handle")) p.handle = handleArg(args, "handle");
    else if (isClass && args.accept("classid")) p.classid = handleArg(args, "classid");
    else if (args.peek() == "help") throw UsageError(kUsage);
    else if (args.peek() == "estimator" || args.peek() == "stab" || (!isClass && args.peek().ends_with("gress_block")))
      // tc's words before the kind: a rate estimator, a size table, a shared filter block. Not
      // taken as a kind ("unknown qdisc kind estimator" would mislead), named and refused.
      throw UsageError(fmt::format("\"{}\" (tc's {}) is not supported by fastlink", args.peek(),
                                   args.peek() == "estimator" ? "rate estimator"
                                   : args.peek() == "stab"    ? "size table"
                                                              : "shared filter block"));
    else {
      p.kind = args.next();
      return p;
    }
  }
  return p;
}

/// Errors name the device as typed (`qdisc add dev v0 root foo`), not its ifindex.
PreparedRequest prepared(std::function<Request(uint32_t)> build, const std::optional<std::string>& dev, const char* object) {
  if (!dev) throw UsageError(fmt::format("tc {}: \"dev NAME\" is required", object));
  return requestNamingDevice(dev, std::move(build));
}

/// A qdisc or class line of tc's grammar: its verb and what it names.
template <class Info>
struct Parsed {
  TcVerb verb;
  Info info;
};

template <class Info>
Parsed<Info> parseLine(Context& ctx, Args& args) {
  constexpr bool isClass = std::is_same_v<Info, ClassInfo>;
  Parsed<Info> out{parseVerb(args, isClass ? "class" : "qdisc"), {}};
  Placement p = parsePlacement(args, isClass);
  Info& x = out.info;
  x.parent = p.parent;
  if constexpr (isClass) x.classid = p.classid;
  else x.handle = p.kind == "ingress" || p.kind == "clsact" ? TcHandle(0xFFFF, 0) : p.handle;
  x.kind = p.kind;
  x.options = parseOptions(ctx, args, x.kind, isClass, p.dev);
  if (p.dev) x.dev = Ifref(*p.dev);
  return out;
}

/// TcRequests' builders of one object, in TcVerb's order (add, replace, change, del).
template <class Info>
using Builders = std::array<Request (*)(const Info&), 4>;
template <class Info>
constexpr Builders<Info> kBuilders = [] {
  if constexpr (std::is_same_v<Info, ClassInfo>)
    return Builders<Info>{TcRequests::addClass, TcRequests::replaceClass, TcRequests::changeClass, TcRequests::delClass};
  else
    return Builders<Info>{TcRequests::addQdisc, TcRequests::replaceQdisc, TcRequests::changeQdisc, TcRequests::delQdisc};
}();

template <class Info>
PreparedRequest prepareLine(const Parsed<Info>& parsed) {
  constexpr bool isClass = std::is_same_v<Info, ClassInfo>;
  const auto build = kBuilders<Info>[static_cast<std::size_t>(parsed.verb)];
  const std::optional<Ifref>& named = parsed.info.dev;
  std::optional<std::string> dev = named ? std::optional<std::string>(named->name()) : std::nullopt;
  return prepared(
      [build, x = parsed.info](uint32_t index) mutable {
        x.dev = Ifref(index);  // set again on every call: encoding twice gives the same request
        return build(x);
      },
      dev, isClass ? "class" : "qdisc");
}

PreparedRequest prepareTc(Context& ctx, Args& args) {
  if (args.acceptAny({"qdisc", "q"})) return prepareLine(parseLine<QdiscInfo>(ctx, args));
  if (args.acceptAny({"filter", "f"})) return prepareTcFilter(args);
  if (args.accept("chain")) return prepareTcChain(args);
  if (args.acceptAny({"actions", "action"})) return prepareTcActions(args);
  if (args.acceptAny({"class", "c"})) return prepareLine(parseLine<ClassInfo>(ctx, args));
  if (args.peek() == "help") throw UsageError(kUsage);
  args.unknown("tc objects: qdisc, class, filter, chain, actions, watch");
}

// ---- show -----------------------------------------------------------------------------------------

/// The device's name for "dev NAME" (its index when it has none here).
std::string nameOf(const DeviceNames& names, const std::optional<Ifref>& dev) {
  return names.nameOrIndex(dev && dev->isIndex() ? dev->index() : 0);
}

int showQdiscs(Context& ctx, Args& args) {
  QdiscFilter filter;
  while (!args.done()) {
    if (args.accept("dev")) filter.dev = Ifref(parseIfname(args.value("dev"), "dev"));
    else if (args.accept("root")) filter.parent = TcHandle(TcHandle::kRoot);
    else if (args.acceptAny({"ingress", "clsact"})) filter.parent = TcHandle(TcHandle::kIngress);
    else if (args.accept("parent")) filter.parent = handleArg(args, "parent");
    else if (args.accept("handle")) filter.handle = handleArg(args, "handle");
    else if (args.accept("invisible")) filter.invisible = true;
    else if (args.peek() == "help") throw UsageError(kUsage);
    else args.unknown("tc qdisc show takes: dev, root, ingress, parent, handle, invisible");
  }
  // Listings not filtered by device print every qdisc's device: names read before the dump.
  DeviceNames names;
  if (!filter.dev) names.load(ctx.netlink().links());
  TcPrintOptions o{.stats = ctx.options().stats > 0, .details = ctx.options().details, .iec = ctx.options().iec, .devName = {}};
  std::optional<JsonArrayWriter> json;
  if (ctx.options().json) json.emplace(stdout, ctx.options().pretty);
  std::string out;
  ctx.netlink().tc().forEachQdisc(filter, [&](const QdiscInfo& q) {
    if (!filter.dev) o.devName = nameOf(names, q.dev);
    if (json) json->add(qdiscJson(q, o));
    else std::fputs(qdiscText(q, o).c_str(), stdout);
  });
  if (json) json->finish();
  return kExitOk;
}

int showClasses(Context& ctx, Args& args) {
  ClassFilter filter;
  // tc's `parent P` (and `root`, P = ffff:ffff) is the dump request's tcm_parent, which the
  // kernel reads as "the classes of the qdisc whose handle is P's major" (tc_dump_tclass_qdisc),
  // every one of them whatever its parent class: `parent 1:` lists 1:10 whose parent is root,
  // and `root` lists nothing (no qdisc has the handle ffff:). So it selects by the class's major.
  std::optional<uint16_t> qdiscMajor;
  while (!args.done()) {
    if (args.accept("dev")) filter.dev = Ifref(parseIfname(args.value("dev"), "dev"));
    else if (args.accept("root")) qdiscMajor = TcHandle(TcHandle::kRoot).major();
    else if (args.accept("parent")) qdiscMajor = handleArg(args, "parent").major();
    else if (args.accept("classid")) filter.classid = handleArg(args, "classid");
    else if (args.peek() == "help") throw UsageError(kUsage);
    else args.unknown("tc class show takes: dev, root, parent, classid");
  }
  if (!filter.dev) throw UsageError("tc class show: \"dev NAME\" is required");
  TcPrintOptions o{.stats = ctx.options().stats > 0, .details = ctx.options().details, .iec = ctx.options().iec, .devName = {}};
  std::optional<JsonArrayWriter> json;
  if (ctx.options().json) json.emplace(stdout, ctx.options().pretty);
  ctx.netlink().tc().forEachClass(filter, [&](const ClassInfo& c) {
    if (qdiscMajor && (!c.classid || c.classid->major() != *qdiscMajor)) return;
    if (json) json->add(classJson(c, o));
    else std::fputs(classText(c, o).c_str(), stdout);
  });
  if (json) json->finish();
  return kExitOk;
}

// ---- watch ----------------------------------------------------------------------------------------

struct Counters {
  uint64_t sent = 0, dropped = 0, overlimits = 0, rxPackets = 0, rxDropped = 0;
};

/// A qdisc's line in `tc watch`: "KIND HANDLE:" and its parent as tc prints it ("root",
/// "ffff:fff1" for ingress and clsact, "1:3").
struct WatchedQdisc {
  std::string qdisc, parent;
};

std::string watchParent(const QdiscInfo& q) {
  if (!q.parent || q.parent->value == TcHandle::kRoot) return "root";
  if (q.parent->value == TcHandle::kIngress) return "ffff:fff1";
  return q.parent->toString();
}

/// Where the device's tx_dropped happens, by driver: tun (a TAP's ring of txqueuelen frames, full
/// when the reader is slow) and veth (the peer's 256-frame ptr_ring, used when the peer has GRO or
/// XDP: veth_xmit counts a frame that finds it full in the sender's tx_dropped) drop at their
/// ring; other drivers at their own transmit path.
std::string txDropPlace(const LinkInfo& link) {
  if (link.kind == "tun") return "tun ring";
  if (link.kind == "veth") return "veth ring";
  return "driver";
}

/// The filter and chain events of one device between two rounds of `tc watch`: the tc group
/// is joined before the first round, so a filter added while the counters are read is printed
/// too. Each event is a line as `tc monitor` prints it ("added filter dev X ingress ..."), or
/// with -j one object as `fastlink -j monitor filter` writes it.
class WatchedFilterEvents {
 public:
  WatchedFilterEvents(Netlink& nl, const std::string& dev, bool json, const std::optional<std::string>& netns)
      : stream_(nl, {ObjectKind::Filter, ObjectKind::Chain}),
        names_([&nl](uint32_t index) { return nl.links().find(Ifref(index)); }),
        netns_(netns),
        dev_(nl.links().indexOf(Ifref(dev))),
        json_(json) {
    names_.load(nl.links());
  }

  /// Prints the events that come until `deadline` (returns then, or at once after a signal).
  void printUntil(std::chrono::steady_clock::time_point deadline) {
    auto print = [&](const Event& e) {
      const TcFilterInfo* f = e.filter();
      if (!f || !f->dev || !f->dev->isIndex() || f->dev->index() != dev_) return;
      if (json_) {
        writeEventJson(jsonOut_, e, names_, GlobalOptions{});
        jsonOut_.endElement();
      } else {
        putEventText(out_, e, names_, netns_, GlobalOptions{});
        out_.endRecord();
      }
    };
    auto overflow = [&] {
      out_.flush();
      std::fputs("Error: the kernel dropped filter events (receive buffer overflow, ENOBUFS)\n", stderr);
    };
    for (auto now = std::chrono::steady_clock::now(); now < deadline; now = std::chrono::steady_clock::now()) {
      auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - now);
      stream_.wait(print, left, overflow);
      out_.flush();
    }
  }

 private:
  EventStream stream_;
  DeviceNames names_;
  NetnsNames netns_;
  uint32_t dev_;
  bool json_;
  OutBuffer out_{stdout};
  JsonOut jsonOut_{out_, false, JsonOut::Layout::Lines};
};

double perSecond(uint64_t now, uint64_t before, double seconds) {
  return now >= before && seconds > 0 ? static_cast<double>(now - before) / seconds : 0;
}

int watch(Context& ctx, Args& args) {
  std::optional<std::string> dev;
  double interval = 1;
  std::optional<uint64_t> count;
  while (!args.done()) {
    if (args.accept("dev")) dev = parseIfname(args.value("dev"), "dev");
    else if (args.accept("interval")) {
      std::string v = args.value("interval");
      char* end = nullptr;
      interval = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end || !(interval >= 0.01 && interval <= 3600))
        throw UsageError(fmt::format("interval: \"{}\" is not a number of seconds (0.01-3600)", v));
    } else if (args.accept("count")) count = parseInteger(args.value("count"), "count", 1, UINT32_MAX);
    else args.unknown("tc watch takes: dev, interval, count");
  }
  if (!dev) throw UsageError("tc watch: \"dev NAME\" is required");
  Netlink& nl = ctx.netlink();
  bool json = ctx.options().json;
  std::map<std::string, Counters> before;
  std::map<std::string, WatchedQdisc> names;
  WatchedFilterEvents filterEvents(nl, *dev, json, ctx.options().netns);
  auto last = std::chrono::steady_clock::now();
  for (uint64_t round = 0; !count || round <= *count; ++round) {
    LinkInfo link = nl.links().get(Ifref(*dev), true);
    auto qdiscs = nl.tc().qdiscs(QdiscFilter().setDev(Ifref(*dev)));
    auto now = std::chrono::steady_clock::now();
    double seconds = std::chrono::duration<double>(now - last).count();
    last = now;
    std::map<std::string, Counters> current;
    LinkStats s = link.stats.value_or(LinkStats{});
    current["dev"] = Counters{s.txPackets, s.txDropped, 0, s.rxPackets, s.rxDropped};
    for (const auto& q : qdiscs) {
      TcStats st = q.stats.value_or(TcStats{});
      // The parent is part of the key: the kernel gives every default child of mq the handle 0:,
      // so kind and handle alone would fold a multi-queue device's qdiscs into one line.
      WatchedQdisc name{fmt::format("{} {:x}:", q.kind, q.handle.value_or(TcHandle()).major()), watchParent(q)};
      std::string key = fmt::format("qdisc {} {}", name.qdisc, name.parent == "root" ? "root" : "parent " + name.parent);
      names[key] = name;
      current[key] = Counters{st.packets, st.drops, st.overlimits, st.backlog, st.qlen};
    }
    if (round > 0) {
      nlohmann::ordered_json j;
      if (json) j["interval"] = seconds, j["dev"] = *dev;
      const Counters& d = current["dev"];
      const Counters& db = before["dev"];
      const std::string dropPlace = txDropPlace(link);
      if (json) {
        j["device"] = {{"tx_packets", d.sent}, {"tx_pps", perSecond(d.sent, db.sent, seconds)}, {"tx_dropped", d.dropped},
                       {"tx_dropped_ps", perSecond(d.dropped, db.dropped, seconds)}, {"tx_dropped_at", dropPlace},
                       {"rx_packets", d.rxPackets},
                       {"rx_pps", perSecond(d.rxPackets, db.rxPackets, seconds)}, {"rx_dropped", d.rxDropped},
                       {"rx_dropped_ps", perSecond(d.rxDropped, db.rxDropped, seconds)}};
        j["qdiscs"] = nlohmann::ordered_json::array();
      } else {
        printLine(fmt::format("dev {}: tx {:.0f} pkt/s (total {}) tx_dropped {:.0f}/s (total {}) at {} rx {:.0f} pkt/s (total {}) "
                              "rx_dropped {:.0f}/s (total {})",
                              *dev, perSecond(d.sent, db.sent, seconds), d.sent, perSecond(d.dropped, db.dropped, seconds),
                              d.dropped, dropPlace, perSecond(d.rxPackets, db.rxPackets, seconds), d.rxPackets,
                              perSecond(d.rxDropped, db.rxDropped, seconds), d.rxDropped));
      }
      for (const auto& [key, c] : current) {
        if (key == "dev") continue;
        Counters b = before.count(key) ? before[key] : c;
        // For qdiscs rxPackets holds the backlog (bytes) and rxDropped the qlen (packets).
        if (json) {
          j["qdiscs"].push_back({{"qdisc", names[key].qdisc}, {"parent", names[key].parent}, {"sent", c.sent}, {"sent_pps", perSecond(c.sent, b.sent, seconds)},
                                 {"drops", c.dropped}, {"drops_ps", perSecond(c.dropped, b.dropped, seconds)},
                                 {"overlimits", c.overlimits}, {"overlimits_ps", perSecond(c.overlimits, b.overlimits, seconds)},
                                 {"backlog", c.rxPackets}, {"qlen", c.rxDropped}});
        } else {
          printLine(fmt::format("{} sent {:.0f} pkt/s (total {}) dropped {:.0f}/s (total {}) overlimits {:.0f}/s (total {}) "
                                "backlog {} {}p",
                                key, perSecond(c.sent, b.sent, seconds), c.sent, perSecond(c.dropped, b.dropped, seconds),
                                c.dropped, perSecond(c.overlimits, b.overlimits, seconds), c.overlimits,
                                tcunits::sizeText(static_cast<uint32_t>(c.rxPackets)), c.rxDropped));
        }
      }
      if (json) std::fputs((j.dump() + "\n").c_str(), stdout);
      std::fflush(stdout);
    }
    before = std::move(current);
    if (count && round == *count) break;
    filterEvents.printUntil(now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(interval)));
  }
  return kExitOk;
}

// ---- entry ----------------------------------------------------------------------------------------

int runTc(Context& ctx, Args& args) {
  if (args.done() || args.peek() == "help") {
    printLine(kUsage);
    return args.done() ? kExitUsage : kExitOk;
  }
  if (args.accept("watch")) return watch(ctx, args);
  if (args.acceptAny({"filter", "f"})) return runTcFilter(ctx, args);
  if (args.accept("chain")) return runTcChain(ctx, args);
  if (args.acceptAny({"actions", "action"})) return runTcActions(ctx, args);
  bool qdisc = args.acceptAny({"qdisc", "q"});
  bool klass = !qdisc && args.acceptAny({"class", "c"});
  if (!qdisc && !klass) args.unknown("tc objects: qdisc, class, filter, chain, actions, watch");
  if (args.done() || args.acceptAny({"show", "list", "ls"})) return qdisc ? showQdiscs(ctx, args) : showClasses(ctx, args);
  if (qdisc) return runPrepared(ctx, prepareLine(parseLine<QdiscInfo>(ctx, args)), args);
  Parsed<ClassInfo> parsed = parseLine<ClassInfo>(ctx, args);
  PreparedRequest p = prepareLine(parsed);
  const ClassInfo& c = parsed.info;
  // The kernel makes an htb class whose parent class is missing a top-level class without a
  // word: refuse that here (a batch cannot look, see docs/cli/tc.md).
  bool creates = parsed.verb == TcVerb::Add || parsed.verb == TcVerb::Replace;
  if (creates && c.parent && c.parent->value != TcHandle::kRoot && c.parent->minor() != 0) {
    validateEncoding(p);
    try {
      if (ctx.netlink().tc().classes(ClassFilter().setDev(*c.dev).setClassid(*c.parent)).empty()) {
        printError(fmt::format("parent class {} does not exist on dev {} (tc class {})", c.parent->toString(), *p.device,
                               parsed.verb == TcVerb::Add ? "add" : "replace"));
        return kExitFailed;
      }
    } catch (const Error& e) {
      reportFailure(e, p.device.value_or(""));
      return kExitFailed;
    }
  }
  return runPrepared(ctx, p, args);
}

const Registrar kTc{ObjectCommand{.name = "tc", .aliases = {}, .usage = kUsage, .run = runTc, .prepare = prepareTc}};

}  // namespace
}  // namespace fastlink::cli
