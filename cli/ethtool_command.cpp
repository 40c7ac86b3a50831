// The `ethtool` object: ethtool's short options for queues, rings, offloads, coalescing and
// standard statistics, over the kernel's ethtool netlink family:
//   fastlink ethtool [--json] { -l | -g | -k | -c | -S } DEV
//   fastlink ethtool -L DEV [rx N] [tx N] [other N] [combined N]
//   fastlink ethtool -G DEV [rx N] [rx-mini N] [rx-jumbo N] [tx N] [rx-buf-len N] [cqe-size N] [tx-push on|off]
//   fastlink ethtool -K DEV FEATURE on|off ...
//   fastlink ethtool -C DEV [adaptive-rx on|off] [rx-usecs N] ...
// The text of -l, -g, -k, -c is laid out like ethtool 6.1's, so scripts that parse it keep
// working; --json (or the global -j) prints our own JSON (ethtool 6.1 has none for -l/-k).
#include <fmt/format.h>

#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "args.hpp"
#include "command.hpp"
#include "fastlink/ethtool.hpp"
#include "output.hpp"

namespace fastlink::cli {
namespace {

constexpr const char* kUsage = R"(Usage: fastlink ethtool [ --json ] { -l | -g | -k | -c | -S } DEV
       fastlink ethtool -L DEV [ rx N ] [ tx N ] [ other N ] [ combined N ]
       fastlink ethtool -G DEV [ rx N ] [ rx-mini N ] [ rx-jumbo N ] [ tx N ] [ rx-buf-len N ]
                               [ cqe-size N ] [ tx-push on|off ]
       fastlink ethtool -K DEV FEATURE on|off [ FEATURE on|off ... ]
       fastlink ethtool -C DEV [ adaptive-rx on|off ] [ adaptive-tx on|off ] [ rx-usecs N ]
                               [ rx-frames N ] [ tx-usecs N ] [ tx-frames N ] ...
       (see docs/cli/ethtool.md))";

bool parseOnOff(Args& args, std::string_view keyword) {
  std::string v = args.value(keyword);
  if (v == "on") return true;
  if (v == "off") return false;
  throw UsageError(fmt::format("\"{}\" takes on or off, not \"{}\"", keyword, v));
}

std::string opt(const std::optional<uint32_t>& v) { return v ? std::to_string(*v) : "n/a"; }

/// Prints the library's error like the other commands (`Error: <extack or errno text>`).
int failed(const Error& e, const std::string& device) {
  if (e.code() == std::errc::no_such_device && e.extack().empty())
    printError(fmt::format("Cannot find device \"{}\"", device));
  else
    printError(e.reason());
  return kExitFailed;
}

void printJson(Context& ctx, const nlohmann::ordered_json& j) {
  JsonArrayWriter out(stdout, ctx.options().pretty);
  out.add(j);
  out.finish();
}

void putOpt(nlohmann::ordered_json& j, const char* key, const std::optional<uint32_t>& v) {
  if (v) j[key] = *v;
}
void putOpt(nlohmann::ordered_json& j, const char* key, const std::optional<bool>& v) {
  if (v) j[key] = *v;
}

// ---- -l / -L -----------------------------------------------------------------------------

int showChannels(Context& ctx, const std::string& dev) {
  ChannelsInfo c = ctx.netlink().ethtool().channels(dev);
  if (ctx.options().json) {
    nlohmann::ordered_json j{{"ifname", dev}};
    putOpt(j, "rx_max", c.rxMax);
    putOpt(j, "tx_max", c.txMax);
    putOpt(j, "other_max", c.otherMax);
    putOpt(j, "combined_max", c.combinedMax);
    putOpt(j, "rx", c.rx);
    putOpt(j, "tx", c.tx);
    putOpt(j, "other", c.other);
    putOpt(j, "combined", c.combined);
    printJson(ctx, j);
    return kExitOk;
  }
  std::fputs(fmt::format("Channel parameters for {}:\nPre-set maximums:\nRX:\t\t{}\nTX:\t\t{}\nOther:\t\t{}\n"
                         "Combined:\t{}\nCurrent hardware settings:\nRX:\t\t{}\nTX:\t\t{}\nOther:\t\t{}\n"
                         "Combined:\t{}\n",
                         dev, opt(c.rxMax), opt(c.txMax), opt(c.otherMax), opt(c.combinedMax), opt(c.rx), opt(c.tx),
                         opt(c.other), opt(c.combined))
                 .c_str(),
             stdout);
  return kExitOk;
}

int setChannels(Context& ctx, const std::string& dev, Args& args) {
  ChannelsInfo c;
  while (!args.done()) {
    if (args.accept("rx")) c.setRx(parseU32(args.value("rx"), "rx"));
    else if (args.accept("tx")) c.setTx(parseU32(args.value("tx"), "tx"));
    else if (args.accept("other")) c.setOther(parseU32(args.value("other"), "other"));
    else if (args.accept("combined")) c.setCombined(parseU32(args.value("combined"), "combined"));
    else args.unknown("ethtool -L takes: rx N, tx N, other N, combined N");
  }
  if (!c.rx && !c.tx && !c.other && !c.combined) throw UsageError("ethtool -L: no channel count given");
  ctx.netlink().ethtool().setChannels(dev, c);
  return kExitOk;
}

// ---- -g / -G -----------------------------------------------------------------------------

int showRings(Context& ctx, const std::string& dev) {
  RingsInfo g = ctx.netlink().ethtool().rings(dev);
  if (ctx.options().json) {
    nlohmann::ordered_json j{{"ifname", dev}};
    putOpt(j, "rx_max", g.rxMax);
    putOpt(j, "rx_mini_max", g.rxMiniMax);
    putOpt(j, "rx_jumbo_max", g.rxJumboMax);
    putOpt(j, "tx_max", g.txMax);
    putOpt(j, "rx", g.rx);
    putOpt(j, "rx_mini", g.rxMini);
    putOpt(j, "rx_jumbo", g.rxJumbo);
    putOpt(j, "tx", g.tx);
    putOpt(j, "rx_buf_len", g.rxBufLen);
    putOpt(j, "cqe_size", g.cqeSize);
    putOpt(j, "tx_push", g.txPush);
    if (g.tcpDataSplit) j["tcp_data_split"] = *g.tcpDataSplit;
    printJson(ctx, j);
    return kExitOk;
  }
  std::string s = fmt::format(
      "Ring parameters for {}:\nPre-set maximums:\nRX:\t\t{}\nRX Mini:\t{}\nRX Jumbo:\t{}\nTX:\t\t{}\n"
      "Current hardware settings:\nRX:\t\t{}\nRX Mini:\t{}\nRX Jumbo:\t{}\nTX:\t\t{}\n"
      "RX Buf Len:\t\t{}\nCQE Size:\t\t{}\nTX Push:\t{}\n",
      dev, opt(g.rxMax), opt(g.rxMiniMax), opt(g.rxJumboMax), opt(g.txMax), opt(g.rx), opt(g.rxMini), opt(g.rxJumbo),
      opt(g.tx), opt(g.rxBufLen), opt(g.cqeSize), g.txPush ? (*g.txPush ? "on" : "off") : "n/a");
  // ethtool 6.1 prints this line even when the kernel leaves the attribute out (6.1 sends it
  // only when the driver knows), as "n/a", like the value 0 (unknown).
  static const char* kSplit[] = {"n/a", "off", "on"};
  uint8_t split = g.tcpDataSplit.value_or(0);
  s += fmt::format("TCP data split:\t{}\n", split < 3 ? kSplit[split] : "unknown");
  std::fputs(s.c_str(), stdout);
  return kExitOk;
}

int setRings(Context& ctx, const std::string& dev, Args& args) {
  RingsInfo g;
  while (!args.done()) {
    if (args.accept("rx")) g.setRx(parseU32(args.value("rx"), "rx"));
    else if (args.accept("rx-mini")) g.setRxMini(parseU32(args.value("rx-mini"), "rx-mini"));
    else if (args.accept("rx-jumbo")) g.setRxJumbo(parseU32(args.value("rx-jumbo"), "rx-jumbo"));
    else if (args.accept("tx")) g.setTx(parseU32(args.value("tx"), "tx"));
    else if (args.accept("rx-buf-len")) g.setRxBufLen(parseU32(args.value("rx-buf-len"), "rx-buf-len"));
    else if (args.accept("cqe-size")) g.setCqeSize(parseU32(args.value("cqe-size"), "cqe-size"));
    else if (args.peek() == "tx-push") { args.next(); g.setTxPush(parseOnOff(args, "tx-push")); }
    else args.unknown("ethtool -G takes: rx N, rx-mini N, rx-jumbo N, tx N, rx-buf-len N, cqe-size N, tx-push on|off");
  }
  if (g == RingsInfo()) throw UsageError("ethtool -G: no ring parameter given");
  ctx.netlink().ethtool().setRings(dev, g);
  return kExitOk;
}

// ---- -k / -K -----------------------------------------------------------------------------

// ethtool's legacy feature groups: a long name printed over the kernel features it matches
// (a '*' in the pattern matches any run of characters), and the short name -K accepts.
struct LegacyGroup {
  const char* shortName;
  const char* longName;
  const char* pattern;
};
constexpr LegacyGroup kLegacy[] = {
    {"rx", "rx-checksumming", "rx-checksum"},
    {"tx", "tx-checksumming", "tx-checksum-*"},
    {"sg", "scatter-gather", "tx-scatter-gather*"},
    {"tso", "tcp-segmentation-offload", "tx-tcp*-segmentation"},
    {"ufo", "udp-fragmentation-offload", "tx-udp-fragmentation"},
    {"gso", "generic-segmentation-offload", "tx-generic-segmentation"},
    {"gro", "generic-receive-offload", "rx-gro"},
    {"lro", "large-receive-offload", "rx-lro"},
    {"rxvlan", "rx-vlan-offload", "rx-vlan-hw-parse"},
    {"txvlan", "tx-vlan-offload", "tx-vlan-hw-insert"},
    {"ntuple", "ntuple-filters", "rx-ntuple-filter"},
    {"rxhash", "receive-hashing", "rx-hashing"},
};

bool matches(std::string_view name, std::string_view pattern) {
  auto star = pattern.find('*');
  if (star == std::string_view::npos) return name == pattern;
  std::string_view head = pattern.substr(0, star), tail = pattern.substr(star + 1);
  return name.size() >= head.size() + tail.size() && name.starts_with(head) && name.ends_with(tail);
}

std::string featureLine(const std::string& prefix, const std::string& name, bool active, bool fixed, bool wanted) {
  std::string suffix;
  if (fixed) suffix = " [fixed]";
  else if (active != wanted) suffix = wanted ? " [requested on]" : " [requested off]";
  return fmt::format("{}{}: {}{}\n", prefix, name, active ? "on" : "off", suffix);
}

int showFeatures(Context& ctx, const std::string& dev) {
  FeaturesInfo info = ctx.netlink().ethtool().features(dev);
  if (ctx.options().json) {
    nlohmann::ordered_json features = nlohmann::ordered_json::object();
    for (const auto& f : info.features)
      features[f.name] = {{"active", f.active}, {"fixed", f.fixed()}, {"requested", f.wanted}};
    printJson(ctx, {{"ifname", dev}, {"features", features}});
    return kExitOk;
  }
  std::string s = fmt::format("Features for {}:\n", dev);
  std::vector<bool> shown(info.features.size(), false);
  for (const auto& g : kLegacy) {
    std::vector<std::size_t> hits;
    for (std::size_t i = 0; i < info.features.size(); ++i)
      if (matches(info.features[i].name, g.pattern)) hits.push_back(i);
    if (hits.empty()) continue;
    if (hits.size() == 1) {
      const Feature& f = info.features[hits[0]];
      s += featureLine("", g.longName, f.active, f.fixed(), f.wanted);
    } else {
      // ethtool prints a group's line with no [fixed]/[requested] suffix: on if any is on.
      bool any = false;
      for (auto i : hits) any = any || info.features[i].active;
      s += fmt::format("{}: {}\n", g.longName, any ? "on" : "off");
      for (auto i : hits) {
        const Feature& f = info.features[i];
        s += featureLine("\t", f.name, f.active, f.fixed(), f.wanted);
      }
    }
    for (auto i : hits) shown[i] = true;
  }
  for (std::size_t i = 0; i < info.features.size(); ++i) {
    const Feature& f = info.features[i];
    if (!shown[i]) s += featureLine("", f.name, f.active, f.fixed(), f.wanted);
  }
  std::fputs(s.c_str(), stdout);
  return kExitOk;
}

int setFeatures(Context& ctx, const std::string& dev, Args& args) {
  std::vector<std::pair<std::string, bool>> asked;
  while (!args.done()) {
    std::string name = args.next();
    if (args.done()) throw UsageError(fmt::format("ethtool -K: feature \"{}\" needs on or off", name));
    asked.emplace_back(name, parseOnOff(args, name));
  }
  if (asked.empty()) throw UsageError("ethtool -K: no feature given");
  EthtoolApi& et = ctx.netlink().ethtool();
  FeatureChanges changes;
  std::optional<FeaturesInfo> current;
  for (const auto& [name, on] : asked) {
    const LegacyGroup* legacy = nullptr;
    for (const auto& g : kLegacy)
      if (name == g.shortName || name == g.longName) legacy = &g;
    if (!legacy) {
      changes.set(name, on);
      continue;
    }
    // A legacy name stands for every changeable kernel feature of its group, like ethtool's.
    if (!current) current = et.features(dev);
    bool any = false;
    for (const auto& f : current->features)
      if (matches(f.name, legacy->pattern) && !f.fixed()) {
        changes.set(f.name, on);
        any = true;
      }
    if (!any) {
      printError(fmt::format("feature \"{}\" cannot be changed on {}", name, dev));
      return kExitFailed;
    }
  }
  FeaturesSetResult r = et.setFeatures(dev, changes);
  if (r.unmet.empty()) return kExitOk;
  // ethtool's words when the kernel accepted the request but left features as they were.
  std::string s = r.unmet.size() == changes.changes.size() ? "Could not change any device features\n" : "";
  s += "Actual changes:\n";
  for (const auto& [name, on] : r.unmet) {
    const Feature* f = r.after.find(name);
    s += fmt::format("{}: {} [requested {}]\n", name, f && f->active ? "on" : "off", on ? "on" : "off");
  }
  std::fputs(s.c_str(), stderr);
  return kExitFailed;
}

// ---- -c / -C -----------------------------------------------------------------------------

// The -C keywords (ethtool's) and the field each sets.
struct CoalesceKey {
  const char* word;
  std::optional<uint32_t> CoalesceInfo::*u32 = nullptr;
  std::optional<bool> CoalesceInfo::*flag = nullptr;
};
const CoalesceKey kCoalesceKeys[] = {
    {"adaptive-rx", nullptr, &CoalesceInfo::adaptiveRx},
    {"adaptive-tx", nullptr, &CoalesceInfo::adaptiveTx},
    {"sample-interval", &CoalesceInfo::rateSampleInterval},
    {"stats-block-usecs", &CoalesceInfo::statsBlockUsecs},
    {"pkt-rate-low", &CoalesceInfo::pktRateLow},
    {"pkt-rate-high", &CoalesceInfo::pktRateHigh},
    {"rx-usecs", &CoalesceInfo::rxUsecs},
    {"rx-frames", &CoalesceInfo::rxMaxFrames},
    {"rx-usecs-irq", &CoalesceInfo::rxUsecsIrq},
    {"rx-frames-irq", &CoalesceInfo::rxMaxFramesIrq},
    {"tx-usecs", &CoalesceInfo::txUsecs},
    {"tx-frames", &CoalesceInfo::txMaxFrames},
    {"tx-usecs-irq", &CoalesceInfo::txUsecsIrq},
    {"tx-frames-irq", &CoalesceInfo::txMaxFramesIrq},
    {"rx-usecs-low", &CoalesceInfo::rxUsecsLow},
    {"rx-frames-low", &CoalesceInfo::rxMaxFramesLow},
    {"tx-usecs-low", &CoalesceInfo::txUsecsLow},
    {"tx-frames-low", &CoalesceInfo::txMaxFramesLow},
    {"rx-usecs-high", &CoalesceInfo::rxUsecsHigh},
    {"rx-frames-high", &CoalesceInfo::rxMaxFramesHigh},
    {"tx-usecs-high", &CoalesceInfo::txUsecsHigh},
    {"tx-frames-high", &CoalesceInfo::txMaxFramesHigh},
    {"cqe-mode-rx", nullptr, &CoalesceInfo::cqeModeRx},
    {"cqe-mode-tx", nullptr, &CoalesceInfo::cqeModeTx},
};

std::string onOff(const std::optional<bool>& v) { return v ? (*v ? "on" : "off") : "n/a"; }

int showCoalesce(Context& ctx, const std::string& dev) {
  CoalesceInfo c = ctx.netlink().ethtool().coalesce(dev);
  if (ctx.options().json) {
    nlohmann::ordered_json j{{"ifname", dev}};
    for (const auto& k : kCoalesceKeys) {
      if (k.u32) putOpt(j, k.word, c.*k.u32);
      else putOpt(j, k.word, c.*k.flag);
    }
    printJson(ctx, j);
    return kExitOk;
  }
  std::string s = fmt::format("Coalesce parameters for {}:\nAdaptive RX: {}  TX: {}\n", dev, onOff(c.adaptiveRx),
                              onOff(c.adaptiveTx));
  s += fmt::format("stats-block-usecs: {}\nsample-interval: {}\npkt-rate-low: {}\npkt-rate-high: {}\n\n",
                   opt(c.statsBlockUsecs), opt(c.rateSampleInterval), opt(c.pktRateLow), opt(c.pktRateHigh));
  s += fmt::format("rx-usecs: {}\nrx-frames: {}\nrx-usecs-irq: {}\nrx-frames-irq: {}\n\n", opt(c.rxUsecs),
                   opt(c.rxMaxFrames), opt(c.rxUsecsIrq), opt(c.rxMaxFramesIrq));
  s += fmt::format("tx-usecs: {}\ntx-frames: {}\ntx-usecs-irq: {}\ntx-frames-irq: {}\n\n", opt(c.txUsecs),
                   opt(c.txMaxFrames), opt(c.txUsecsIrq), opt(c.txMaxFramesIrq));
  s += fmt::format("rx-usecs-low: {}\nrx-frame-low: {}\ntx-usecs-low: {}\ntx-frame-low: {}\n\n", opt(c.rxUsecsLow),
                   opt(c.rxMaxFramesLow), opt(c.txUsecsLow), opt(c.txMaxFramesLow));
  s += fmt::format("rx-usecs-high: {}\nrx-frame-high: {}\ntx-usecs-high: {}\ntx-frame-high: {}\n\n",
                   opt(c.rxUsecsHigh), opt(c.rxMaxFramesHigh), opt(c.txUsecsHigh), opt(c.txMaxFramesHigh));
  s += fmt::format("CQE mode RX: {}  TX: {}\n\n", onOff(c.cqeModeRx), onOff(c.cqeModeTx));
  std::fputs(s.c_str(), stdout);
  return kExitOk;
}

int setCoalesce(Context& ctx, const std::string& dev, Args& args) {
  CoalesceInfo c;
  while (!args.done()) {
    std::string word = args.peek();
    const CoalesceKey* key = nullptr;
    for (const auto& k : kCoalesceKeys)
      if (word == k.word) key = &k;
    if (!key) args.unknown("ethtool -C takes ethtool's coalescing keywords (see docs/cli/ethtool.md)");
    args.next();
    if (key->u32) c.*key->u32 = parseU32(args.value(key->word), key->word);
    else c.*key->flag = parseOnOff(args, key->word);
  }
  if (c == CoalesceInfo()) throw UsageError("ethtool -C: no coalescing parameter given");
  ctx.netlink().ethtool().setCoalesce(dev, c);
  return kExitOk;
}

// ---- -S ----------------------------------------------------------------------------------

int showStats(Context& ctx, const std::string& dev) {
  std::vector<StatsGroup> groups = ctx.netlink().ethtool().stats(dev);
  if (ctx.options().json) {
    nlohmann::ordered_json j{{"ifname", dev}};
    for (const auto& g : groups) {
      nlohmann::ordered_json counters = nlohmann::ordered_json::object();
      for (const auto& [name, value] : g.counters) counters[name] = value;
      j[g.name] = counters;
    }
    printJson(ctx, j);
    return kExitOk;
  }
  // ethtool -S DEV --all-groups: "GROUP-COUNTER: VALUE".
  std::string s = fmt::format("Standard stats for {}:\n", dev);
  for (const auto& g : groups)
    for (const auto& [name, value] : g.counters) s += fmt::format("{}-{}: {}\n", g.name, name, value);
  std::fputs(s.c_str(), stdout);
  return kExitOk;
}

// ---- dispatch ----------------------------------------------------------------------------

int runEthtool(Context& ctx, Args& args) {
  GlobalOptions options = ctx.options();
  while (!args.done() && (args.peek() == "--json" || args.peek() == "-j" || args.peek() == "--all-groups")) {
    if (args.next() != "--all-groups") options.json = true;
  }
  if (args.done()) {
    std::fputs((std::string(kUsage) + "\n").c_str(), stderr);
    return kExitUsage;
  }
  if (args.peek() == "help" || args.peek() == "-h" || args.peek() == "--help") {
    printLine(kUsage);
    return kExitOk;
  }
  std::string action = args.next();
  if (args.done()) throw UsageError(fmt::format("ethtool {}: a device name is required", action));
  std::string dev = args.next();
  // --all-groups may follow the device for -S, as ethtool takes it.
  if (action == "-S" && !args.done() && args.peek() == "--all-groups") args.next();
  Context local(options);
  Context& c = options.json == ctx.options().json ? ctx : local;
  auto showOnly = [&](int (*show)(Context&, const std::string&)) {
    if (!args.done()) args.unknown(fmt::format("ethtool {} takes only a device", action));
    return show(c, dev);
  };
  try {
    if (action == "-l" || action == "--show-channels") return showOnly(showChannels);
    if (action == "-L" || action == "--set-channels") return setChannels(c, dev, args);
    if (action == "-g" || action == "--show-ring") return showOnly(showRings);
    if (action == "-G" || action == "--set-ring") return setRings(c, dev, args);
    if (action == "-k" || action == "--show-features" || action == "--show-offload") return showOnly(showFeatures);
    if (action == "-K" || action == "--features" || action == "--offload") return setFeatures(c, dev, args);
    if (action == "-c" || action == "--show-coalesce") return showOnly(showCoalesce);
    if (action == "-C" || action == "--coalesce") return setCoalesce(c, dev, args);
    if (action == "-S" || action == "--statistics") return showOnly(showStats);
  } catch (const Error& e) {
    return failed(e, dev);
  }
  throw UsageError(fmt::format("ethtool option \"{}\" is unknown; fastlink covers -l -L -g -G -k -K -c -C -S", action));
}

const Registrar kEthtool{
    ObjectCommand{.name = "ethtool", .aliases = {}, .usage = kUsage, .run = runEthtool, .prepare = {}}};

}  // namespace
}  // namespace fastlink::cli
