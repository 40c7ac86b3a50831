// The `ethtool` object: ethtool's short options for queues, rings, offloads, coalescing and
// statistics, over the kernel's ethtool netlink family (-S: the driver's counters by ioctl):
//   fastlink ethtool [--json] { -l | -g | -k | -c | -S } DEV
//   fastlink ethtool -L DEV [rx N] [tx N] [other N] [combined N]
//   fastlink ethtool -G DEV [rx N] [rx-mini N] [rx-jumbo N] [tx N] [rx-buf-len N] [cqe-size N] [tx-push on|off]
//   fastlink ethtool -K DEV FEATURE on|off ...
//   fastlink ethtool -C DEV [adaptive-rx on|off] [rx-usecs N] ...
// The text of -l, -g, -k, -c, -S and -K's report is laid out like ethtool 6.1's, so scripts that parse it keep
// working; --json (or the global -j) prints our own JSON (ethtool 6.1 has none for -l/-k).
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kit/args.hpp"
#include "kit/command.hpp"
#include "ethtool/ethtool_print.hpp"
#include "fastlink/ethtool.hpp"
#include "kit/output.hpp"

namespace fastlink::cli {
namespace {

/// ethtool's exit status for a usage error and for most failures (docs/CLI.md, "Exit statuses";
/// the others: failureStatus).
constexpr int kEthtoolFailed = 1;

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

/// ethtool 6.1's exit status when a request of `action` fails (the device missing or the kernel
/// refusing): 1 for most, but -G exits 81 and -K 92 (ethtool's rings and features code), and -S
/// 96 when it cannot read the driver's counter names, 94 when the driver has none.
int failureStatus(std::string_view action, bool driverStats, const Error& e) {
  if (action == "-G" || action == "--set-ring") return 81;
  if (action == "-K" || action == "--features" || action == "--offload") return 92;
  if (driverStats && (action == "-S" || action == "--statistics"))
    return e.code() == std::errc::operation_not_supported ? 94 : 96;
  return kEthtoolFailed;
}

/// Prints the library's error like the other commands (`Error: <extack or errno text>`).
void printFailure(const Error& e, const std::string& device) {
  if (e.code() == std::errc::no_such_device)
    printError(fmt::format("Cannot find device \"{}\"", device));
  else
    printError(e.reason());
}

void printJson(Context& ctx, const nlohmann::ordered_json& j) {
  JsonArrayWriter out(stdout, ctx.options().pretty);
  out.add(j);
  out.finish();
}

// ---- -l / -L, -g / -G, -c / -C: settings by their table -------------------------------

// A show command: the object read by `get`, as ethtool's text or as JSON by its table.
template <class Info>
int showSettings(Context& ctx, const std::string& dev, Info (EthtoolApi::*get)(const Ifref&),
                 std::string (*text)(std::string_view, const Info&)) {
  Info info = (ctx.netlink().ethtool().*get)(dev);
  if (ctx.options().json) printJson(ctx, settingsJson(dev, info));
  else std::fputs(text(dev, info).c_str(), stdout);
  return kExitOk;
}

// `KEYWORD VALUE ...` by the message's table (ethtool's words): a number for a count, on|off for a flag.
template <class Info>
Info parseSettings(Args& args, std::string_view action, const char* noun) {
  Info info;
  const auto table = ethtoolSettings(info);
  while (!args.done()) {
    std::string word = args.peek();
    auto p = std::find_if(table.begin(), table.end(), [&](const auto& p) { return p.keyword && word == p.keyword; });
    if (p == table.end()) {
      std::string words;
      for (const auto& q : table)
        if (q.keyword)
          words += fmt::format("{}{} {}", words.empty() ? "" : ", ", q.keyword,
                               std::holds_alternative<std::optional<bool> Info::*>(q.member) ? "on|off" : "N");
      args.unknown(fmt::format("ethtool {} takes: {}", action, words));
    }
    args.next();
    std::visit([&](auto member) {
      using V = typename std::remove_reference_t<decltype(info.*member)>::value_type;
      if constexpr (std::is_same_v<V, bool>) info.*member = parseOnOff(args, word);
      else info.*member = static_cast<V>(parseU32(args.value(word), word));
    }, p->member);
  }
  if (info == Info()) throw UsageError(fmt::format("ethtool {}: no {} given", action, noun));
  return info;
}

// ---- -k / -K -----------------------------------------------------------------------------

int showFeatures(Context& ctx, const std::string& dev) {
  FeaturesInfo info = ctx.netlink().ethtool().features(dev);
  if (ctx.options().json) printJson(ctx, featuresJson(dev, info));
  else std::fputs(featuresText(dev, info).c_str(), stdout);
  return kExitOk;
}

// ethtool 6.1's report after -K. Nothing when every feature asked for is as asked and no other
// changed. Otherwise "Actual changes:" on stdout, then, in the kernel's feature order, every
// feature that changed or was asked for and is not as asked, as "NAME: on|off", marked
// "[requested on|off]" when not as asked and "[not requested]" when it changed because another
// did (tx-checksumming off turns TSO off). When no feature asked for is as asked, "Could not
// change any device features" on stderr and exit 1.
int reportFeatureChanges(const FeaturesInfo& before, const FeaturesSetResult& r, const FeatureChanges& changes) {
  std::string lines;
  bool surprise = false;
  for (const Feature& f : r.after.features) {
    const Feature* old = before.find(f.name);
    bool differs = old && old->active != f.active;
    const std::pair<std::string, bool>* asked = nullptr;
    for (const auto& c : changes.changes)
      if (c.first == f.name) asked = &c;
    bool unmet = asked && asked->second != f.active;
    if (!differs && !unmet) continue;
    surprise = surprise || unmet || !asked;
    lines += fmt::format("{}: {}", f.name, f.active ? "on" : "off");
    if (unmet) lines += fmt::format(" [requested {}]", asked->second ? "on" : "off");
    else if (!asked) lines += " [not requested]";
    lines += "\n";
  }
  if (!surprise) return kExitOk;
  std::fputs(("Actual changes:\n" + lines).c_str(), stdout);
  bool anyMet = std::any_of(changes.changes.begin(), changes.changes.end(), [&](const auto& c) {
    const Feature* f = r.after.find(c.first);
    return f && f->active == c.second;
  });
  if (anyMet) return kExitOk;
  std::fflush(stdout);
  std::fputs("Could not change any device features\n", stderr);  // ethtool's words, no "Error: "
  return kEthtoolFailed;
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
  // The state before is what "Actual changes" is measured against (ethtool gets it from the
  // kernel's reply; fastlink reads the features before and after).
  const FeaturesInfo before = et.features(dev);
  for (const auto& [name, on] : asked) {
    const LegacyGroup* legacy = nullptr;
    for (const auto& g : legacyFeatureGroups())
      if (name == g.shortName || name == g.longName) legacy = &g;
    if (!legacy) {
      changes.set(name, on);
      continue;
    }
    // A legacy name stands for every kernel feature of its group, fixed ones included, as in
    // ethtool: `tx-checksumming on` reports "tx-checksum-ipv4: off [requested on]" on a veth.
    bool any = false;
    for (const auto& f : before.features)
      if (matchesFeaturePattern(f.name, legacy->pattern)) {
        changes.set(f.name, on);
        any = true;
      }
    if (!any) {
      printError(fmt::format("device {} has no feature of the group \"{}\"", dev, name));
      return kEthtoolFailed;
    }
  }
  FeaturesSetResult r;
  try {
    r = et.setFeatures(dev, changes);
  } catch (const Error& e) {
    // The kernel's "bit name not found" does not say which name: the features read before name
    // the word the user mistyped.
    if (e.extack() != "bit name not found") throw;
    for (const auto& [name, on] : changes.changes)
      if (!before.find(name)) {
        printError(fmt::format("bit name not found: \"{}\" is not a feature of {} (see ethtool -k {})", name, dev, dev));
        return failureStatus("-K", false, e);
      }
    throw;
  }
  return reportFeatureChanges(before, r, changes);
}

// ---- -S ----------------------------------------------------------------------------------

// ethtool -S DEV: the driver's counters, "NIC statistics:" then "     NAME: VALUE".
int showDriverStats(Context& ctx, const std::string& dev) {
  std::vector<DriverStat> stats = ctx.netlink().ethtool().driverStats(dev);
  if (ctx.options().json) {
    nlohmann::ordered_json counters = nlohmann::ordered_json::object();
    for (const auto& s : stats) counters[s.name] = s.value;
    printJson(ctx, nlohmann::ordered_json{{"ifname", dev}, {"statistics", counters}});
    return kExitOk;
  }
  std::string s = "NIC statistics:\n";
  for (const auto& stat : stats) s += fmt::format("     {}: {}\n", stat.name, stat.value);
  std::fputs(s.c_str(), stdout);
  return kExitOk;
}

// ethtool -S DEV --all-groups: the standard groups over netlink, "GROUP-COUNTER: VALUE".
int showStandardStats(Context& ctx, const std::string& dev) {
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
  std::string s = fmt::format("Standard stats for {}:\n", dev);
  for (const auto& g : groups)
    for (const auto& [name, value] : g.counters) s += fmt::format("{}-{}: {}\n", g.name, name, value);
  std::fputs(s.c_str(), stdout);
  return kExitOk;
}

// ---- dispatch ----------------------------------------------------------------------------

int runEthtoolCommand(Context& ctx, Args& args) {
  GlobalOptions options = ctx.options();
  bool allGroups = false;
  while (!args.done() && (args.peek() == "--json" || args.peek() == "-j" || args.peek() == "--all-groups")) {
    if (args.next() == "--all-groups") allGroups = true;
    else options.json = true;
  }
  if (args.done()) {
    std::fputs((std::string(kUsage) + "\n").c_str(), stderr);
    return kEthtoolFailed;
  }
  if (args.peek() == "help" || args.peek() == "-h" || args.peek() == "--help") {
    printLine(kUsage);
    return kExitOk;
  }
  std::string action = args.next();
  if (args.done()) throw UsageError(fmt::format("ethtool {}: a device name is required", action));
  std::string dev = args.next();
  // --all-groups may follow the device for -S, as ethtool takes it.
  if (action == "-S" && !args.done() && args.peek() == "--all-groups") {
    args.next();
    allGroups = true;
  }
  Context local(options);
  Context& c = options.json == ctx.options().json ? ctx : local;
  auto showOnly = [&](auto... show) {
    if (!args.done()) args.unknown(fmt::format("ethtool {} takes only a device", action));
    if constexpr (sizeof...(show) == 1) return (show(c, dev), ...);
    else return showSettings(c, dev, show...);
  };
  try {
    EthtoolApi& et = c.netlink().ethtool();
    if (action == "-l" || action == "--show-channels") return showOnly(&EthtoolApi::channels, channelsText);
    if (action == "-L" || action == "--set-channels")
      return et.setChannels(dev, parseSettings<ChannelsInfo>(args, "-L", "channel count")), kExitOk;
    if (action == "-g" || action == "--show-ring") return showOnly(&EthtoolApi::rings, ringsText);
    if (action == "-G" || action == "--set-ring")
      return et.setRings(dev, parseSettings<RingsInfo>(args, "-G", "ring parameter")), kExitOk;
    if (action == "-k" || action == "--show-features" || action == "--show-offload") return showOnly(showFeatures);
    if (action == "-K" || action == "--features" || action == "--offload") return setFeatures(c, dev, args);
    if (action == "-c" || action == "--show-coalesce") return showOnly(&EthtoolApi::coalesce, coalesceText);
    if (action == "-C" || action == "--coalesce")
      return et.setCoalesce(dev, parseSettings<CoalesceInfo>(args, "-C", "coalescing parameter")), kExitOk;
    if (action == "-S" || action == "--statistics") return showOnly(allGroups ? showStandardStats : showDriverStats);
  } catch (const Error& e) {
    printFailure(e, dev);
    return failureStatus(action, !allGroups, e);
  }
  throw UsageError(fmt::format("ethtool option \"{}\" is unknown; fastlink covers -l -L -g -G -k -K -c -C -S", action));
}

int runEthtool(Context& ctx, Args& args) {
  // ethtool's "bad command line argument(s)": 1, not ip's 255.
  return runWithUsageStatus(kEthtoolFailed, [&] { return runEthtoolCommand(ctx, args); });
}

const Registrar kEthtool{
    ObjectCommand{.name = "ethtool", .aliases = {}, .usage = kUsage, .run = runEthtool, .prepare = {}}};

}  // namespace
}  // namespace fastlink::cli
