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

#include <linux/ethtool.h>
#include <linux/if_link.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kit/args.hpp"
#include "kit/command.hpp"
#include "ethtool/ethtool_print.hpp"
#include "fastlink/ethtool.hpp"
#include "fastlink/link.hpp"
#include "fastlink/netlink.hpp"
#include "kit/output.hpp"

namespace fastlink::cli {
namespace {

/// ethtool's exit status for a usage error and for most failures (docs/CLI.md, "Exit statuses";
/// the others: failureStatus).
constexpr int kEthtoolFailed = 1;

constexpr const char* kUsage = R"(Usage: fastlink ethtool DEV
       fastlink ethtool [ --json ] { -l | -g | -k | -c | -S | -a } DEV
       fastlink ethtool { -i | -T | -P } DEV
       fastlink ethtool -s DEV [ speed N ] [ lanes N ] [ duplex half|full ] [ autoneg on|off ]
                               [ advertise HEX[/HEX] ] [ port tp|aui|bnc|mii|fibre|da ]
                               [ mdix auto|on|off ] [ phyad N ] [ wol pumbagsfd|d|N ]
                               [ sopass XX:XX:XX:XX:XX:XX ] [ msglvl N[/M] | msglvl TYPE on|off ... [ -- ] ]
                               [ master-slave preferred-master|preferred-slave|forced-master|forced-slave ]
       fastlink ethtool -A DEV [ autoneg on|off ] [ rx on|off ] [ tx on|off ]
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
/// refusing), as measured against it: 1 for most; `ethtool DEV` and -s 75, -A 76, -i 71, -G 81,
/// -K 92 (ethtool's codes per operation), and -S 96 when it cannot read the driver's counter
/// names, 94 when the driver has none.
int failureStatus(std::string_view action, bool driverStats, const Error& e) {
  if (action.empty() || action == "-s" || action == "--change") return 75;
  if (action == "-A" || action == "--pause") return 76;
  if (action == "-i" || action == "--driver") return 71;
  if (action == "-G" || action == "--set-ring") return 81;
  if (action == "-K" || action == "--features" || action == "--offload") return 92;
  if (driverStats && (action == "-S" || action == "--statistics"))
    return e.code() == std::errc::operation_not_supported ? 94 : 96;
  return kEthtoolFailed;
}

/// Prints the library's error in fastlink's `Error: ` shape with ethtool's words: a missing device
/// as every fastlink command does, the -i ioctl's failure as ethtool words it, the rest as the
/// kernel's extack or the errno text ("Operation not supported").
void printFailure(const Error& e, const std::string& device, std::string_view action) {
  if (e.code() == std::errc::no_such_device)
    printError(fmt::format("Cannot find device \"{}\"", device));
  else if (action == "-i" || action == "--driver")
    printError("Cannot get driver information: " + e.code().message());
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

// ---- ethtool DEV, -s ----------------------------------------------------------------------

int showLinkSettings(Context& ctx, const std::string& dev) {
  EthtoolOutput r = linkSettingsText(dev, ctx.netlink().ethtool().linkSettings(dev));
  std::fputs(r.out.c_str(), stdout);
  std::fflush(stdout);
  std::fputs(r.err.c_str(), stderr);
  return r.status;
}

/// One of `names` for `word`'s value.
uint8_t lookupValue(Args& args, std::string_view word, std::initializer_list<std::pair<const char*, uint8_t>> names) {
  std::string v = args.value(word);
  std::string all;
  for (const auto& [name, value] : names) {
    if (v == name) return value;
    all += (all.empty() ? "" : "|") + std::string(name);
  }
  throw UsageError(fmt::format("\"{}\" takes {}, not \"{}\"", word, all, v));
}

/// A number as ethtool's bitset parameters take it: hexadecimal of any length with 0x (always
/// for `hex`: advertise), else decimal up to 32 bits; optionally /MASK in the same form. Without
/// a mask the number is the whole set (NOMASK).
BitsetChange numericBits(std::string_view word, const std::string& text, bool hex) {
  auto parse = [&](std::string_view t) {
    bool isHex = hex || t.starts_with("0x") || t.starts_with("0X");
    if (t.starts_with("0x") || t.starts_with("0X")) t.remove_prefix(2);
    std::vector<uint32_t> words;
    if (!isHex) {
      words.push_back(parseU32(std::string(t), word));
      return words;
    }
    if (t.empty() || t.find_first_not_of("0123456789abcdefABCDEF") != std::string_view::npos)
      throw UsageError(fmt::format("{}: \"{}\" is not a hexadecimal number", word, text));
    for (std::size_t end = t.size(); end > 0; end -= std::min<std::size_t>(end, 8)) {
      std::size_t begin = end > 8 ? end - 8 : 0;
      words.push_back(static_cast<uint32_t>(std::stoul(std::string(t.substr(begin, end - begin)), nullptr, 16)));
    }
    return words;
  };
  BitsetChange change;
  auto slash = text.find('/');
  change.value = parse(std::string_view(text).substr(0, slash));
  if (slash != std::string::npos) change.mask = parse(std::string_view(text).substr(slash + 1));
  std::size_t words = std::max(change.value.size(), change.mask.size());
  change.value.resize(words, 0);
  if (!change.mask.empty()) change.mask.resize(words, 0);
  change.size = static_cast<uint32_t>(words * 32);
  return change;
}

/// wol: ethtool's letters (p u m b a g s f; d: none) or a number, the whole set either way.
BitsetChange wolBits(const std::string& text) {
  if (text.find_first_not_of("pumbagsfd") != std::string::npos) return numericBits("wol", text, false);
  static constexpr std::string_view kLetters = "pumbagsf";  // WAKE_* bit 0 to 7
  BitsetChange change{8, {0}, {}, {}};
  for (char c : text) change.value[0] = c == 'd' ? 0 : change.value[0] | 1u << kLetters.find(c);
  return change;
}

std::vector<uint8_t> sopassBytes(const std::string& text) {
  std::vector<uint8_t> out;
  std::size_t pos = 0;
  while (out.size() < 6 && pos <= text.size()) {
    std::size_t end = text.find(':', pos);
    std::string part = text.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    if (part.empty() || part.size() > 2 || part.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) break;
    out.push_back(static_cast<uint8_t>(std::stoul(part, nullptr, 16)));
    if (end == std::string::npos) {
      pos = text.size() + 1;
      break;
    }
    pos = end + 1;
  }
  if (out.size() != 6 || pos != text.size() + 1)
    throw UsageError(fmt::format("sopass: \"{}\" is not six hexadecimal bytes XX:XX:XX:XX:XX:XX", text));
  return out;
}

constexpr const char* kSetWords =
    "speed N, lanes N, duplex half|full, autoneg on|off, advertise HEX[/HEX], port tp|aui|bnc|mii|fibre|da, "
    "mdix auto|on|off, phyad N, wol pumbagsfd|d|N, sopass XX:XX:XX:XX:XX:XX, msglvl N[/M] | msglvl TYPE on|off ... [--], "
    "master-slave preferred-master|preferred-slave|forced-master|forced-slave";

// ethtool -s: each word to the message that carries it (link info, link modes, wake-on, message
// level); the messages are sent in ethtool's order, each one request the kernel checks whole.
int setLinkSettings(Context& ctx, const std::string& dev, Args& args) {
  LinkInfoSettings info;
  LinkModesInfo modes;
  WolInfo wol;
  DebugInfo debug;
  static constexpr std::string_view kWords[] = {"speed", "lanes", "duplex", "autoneg", "advertise", "master-slave",
                                                "port", "mdix", "phyad", "xcvr", "wol", "sopass", "msglvl"};
  while (!args.done()) {
    std::string word = args.peek();
    if (std::find(std::begin(kWords), std::end(kWords), word) == std::end(kWords))
      args.unknown(fmt::format("ethtool -s takes: {}", kSetWords));
    args.next();
    if (word == "speed") modes.speed = parseU32(args.value(word), word);
    else if (word == "lanes") modes.lanes = parseU32(args.value(word), word);
    else if (word == "duplex") modes.duplex = lookupValue(args, word, {{"half", DUPLEX_HALF}, {"full", DUPLEX_FULL}});
    else if (word == "autoneg") modes.autoneg = parseOnOff(args, word);
    else if (word == "advertise") modes.advertise = numericBits(word, args.value(word), true);
    else if (word == "master-slave")
      modes.masterSlaveCfg = lookupValue(args, word, {{"preferred-master", MASTER_SLAVE_CFG_MASTER_PREFERRED},
                                                      {"preferred-slave", MASTER_SLAVE_CFG_SLAVE_PREFERRED},
                                                      {"forced-master", MASTER_SLAVE_CFG_MASTER_FORCE},
                                                      {"forced-slave", MASTER_SLAVE_CFG_SLAVE_FORCE}});
    else if (word == "port")
      info.port = lookupValue(args, word, {{"tp", PORT_TP}, {"aui", PORT_AUI}, {"mii", PORT_MII}, {"fibre", PORT_FIBRE},
                                           {"bnc", PORT_BNC}, {"da", PORT_DA}});
    else if (word == "mdix")
      info.mdixCtrl = lookupValue(args, word, {{"auto", ETH_TP_MDI_AUTO}, {"on", ETH_TP_MDI_X}, {"off", ETH_TP_MDI}});
    else if (word == "phyad") {
      uint32_t n = parseU32(args.value(word), word);
      if (n > 255) throw UsageError(fmt::format("phyad: {} is more than 255", n));
      info.phyAddress = static_cast<uint8_t>(n);
    } else if (word == "xcvr") {
      throw UsageError("deprecated parameter \"xcvr\" is not supported by the kernel");
    } else if (word == "wol") wol.change = wolBits(args.value(word));
    else if (word == "sopass") wol.sopass = sopassBytes(args.value(word));
    else if (word == "msglvl") {
      std::string v = args.value(word);
      if (!v.empty() && std::isdigit(static_cast<unsigned char>(v[0]))) {
        debug.change = numericBits(word, v, false);
      } else {
        // msglvl TYPE on|off ... [--]: by the kernel's names of the message classes, every pair
        // up to "--" or the end, as ethtool reads them ("wol" is a class as well as a keyword).
        BitsetChange named;
        named.named.emplace_back(v, parseOnOff(args, v));
        while (!args.done() && args.peek() != "--") {
          std::string type = args.next();
          named.named.emplace_back(type, parseOnOff(args, type));
        }
        if (!args.done()) args.next();
        debug.change = named;
      }
    }
  }
  EthtoolApi& et = ctx.netlink().ethtool();
  // "autoneg on" alone advertises every speed the device supports (ethtool's compatibility with
  // its ioctl days): read them first.
  if (modes.autoneg == true && !modes.advertise && !modes.speed && !modes.duplex && !modes.lanes) {
    LinkSettings now = et.linkSettings(dev);
    if (now.modes && now.modes->ours) modes.advertise = speedModes(*now.modes->ours);
  }
  if (info != LinkInfoSettings()) et.setLinkInfo(dev, info);
  if (modes != LinkModesInfo()) et.setLinkModes(dev, modes);
  if (wol != WolInfo()) et.setWol(dev, wol);
  if (debug != DebugInfo()) et.setDebug(dev, debug);
  return kExitOk;
}

// ---- -a / -A, -i, -T, -P ------------------------------------------------------------------

// ethtool -a: with --json, ethtool's own JSON (always indented; an empty array when it fails).
int showPause(Context& ctx, const std::string& dev) {
  std::optional<JsonArrayWriter> json;
  if (ctx.options().json) json.emplace(stdout, true);
  EthtoolApi& et = ctx.netlink().ethtool();
  PauseInfo p = et.pause(dev);
  std::optional<std::pair<bool, bool>> negotiated;
  if (p.autoneg == true)
    if (auto modes = et.linkSettings(dev).modes) negotiated = negotiatedPause(*modes);
  if (json) json->add(pauseJson(dev, p, negotiated));
  else std::fputs(pauseText(dev, p, negotiated).c_str(), stdout);
  return kExitOk;
}

int showDriverInfo(Context& ctx, const std::string& dev) {
  std::fputs(driverInfoText(ctx.netlink().ethtool().driverInfo(dev)).c_str(), stdout);
  return kExitOk;
}

int showTsInfo(Context& ctx, const std::string& dev) {
  std::fputs(tsInfoText(dev, ctx.netlink().ethtool().tsInfo(dev)).c_str(), stdout);
  return kExitOk;
}

// ethtool -P: the permanent address is rtnetlink's (IFLA_PERM_ADDRESS), as ethtool reads it;
// LinkInfo keeps it among the attributes it does not decode.
int showPermanentAddress(Context& ctx, const std::string& dev) {
  LinkInfo link = ctx.netlink().links().get(dev);
  std::optional<RawAttribute> perm = link.unknown.find(IFLA_PERM_ADDRESS);
  std::fputs(permanentAddressText(perm ? std::optional(perm->payload) : std::nullopt).c_str(), stdout);
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
  // A first word that is not an option is the device: `ethtool DEV`, the link settings.
  std::string action = args.peek().starts_with("-") ? args.next() : std::string();
  if (args.done()) throw UsageError(fmt::format("ethtool {}: a device name is required", action));
  std::string dev = args.next();
  // ethtool 6.1 has --json only for -a, -k, -S (and fastlink for -l, -g, -c too): elsewhere it is
  // a bad command line, status 1.
  static constexpr std::string_view kNoJson[] = {"", "-i", "--driver", "-T", "--show-time-stamping", "-P",
                                                 "--show-permaddr", "-s", "--change", "-A", "--pause"};
  if (options.json && std::find(std::begin(kNoJson), std::end(kNoJson), action) != std::end(kNoJson))
    throw UsageError(fmt::format("ethtool {} has no JSON output (ethtool 6.1 has none either)",
                                 action.empty() ? "DEV" : action));
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
    if (action.empty()) return showOnly(showLinkSettings);
    if (action == "-s" || action == "--change") return setLinkSettings(c, dev, args);
    if (action == "-a" || action == "--show-pause") return showOnly(showPause);
    if (action == "-A" || action == "--pause")
      return et.setPause(dev, parseSettings<PauseInfo>(args, "-A", "pause parameter")), kExitOk;
    if (action == "-i" || action == "--driver") return showOnly(showDriverInfo);
    if (action == "-T" || action == "--show-time-stamping") return showOnly(showTsInfo);
    if (action == "-P" || action == "--show-permaddr") return showOnly(showPermanentAddress);
  } catch (const Error& e) {
    // `ethtool DEV` reports on stdout that it got nothing, whatever the reason.
    if (action.empty()) std::fputs("No data available\n", stdout);
    printFailure(e, dev, action);
    return failureStatus(action, !allGroups, e);
  }
  throw UsageError(fmt::format("ethtool option \"{}\" is unknown; fastlink covers -s -a -A -i -T -P -l -L -g -G -k -K -c -C -S", action));
}

int runEthtool(Context& ctx, Args& args) {
  // ethtool's "bad command line argument(s)": 1, not ip's 255.
  return runWithUsageStatus(kEthtoolFailed, [&] { return runEthtoolCommand(ctx, args); });
}

const Registrar kEthtool{
    ObjectCommand{.name = "ethtool", .aliases = {}, .usage = kUsage, .run = runEthtool, .prepare = {}}};

}  // namespace
}  // namespace fastlink::cli
