// The `ethtool` object: ethtool 6.1's options over the kernel's ethtool netlink family (-i and
// -S's driver counters by ioctl), each as ethtool 6.1 parses, prints and exits; the options of
// its table (ethtool.c's args[]) fastlink does not implement are refused by name:
//   fastlink ethtool [ --json ] [ -I ] [ --debug N ] DEV | -s | -a | -A | -c | -C | -g | -G |
//                    -k | -K | -i | -S | -T | -P | -l | -L | --show-fec | --set-fec |
//                    --show-tunnels ... (kUsage)
// The text of every read is laid out like ethtool 6.1's, so scripts that parse it keep working;
// --json (or the global -j) is ethtool 6.1's JSON where 6.1 has it (-a, -k, -S with groups,
// --show-fec) and a usage error elsewhere, as in 6.1.
#include <fmt/format.h>

#include <linux/ethtool.h>
#include <linux/if_link.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <string>
#include <type_traits>
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
/// the others: kOptions).
constexpr int kEthtoolFailed = 1;

constexpr const char* kUsage = R"(Usage: fastlink ethtool [ FLAGS ] DEV
       fastlink ethtool [ FLAGS ] { -a | -k | -S | --show-fec } DEV   (--json: ethtool 6.1's JSON)
       fastlink ethtool [ FLAGS ] { -c | -g | -l | -i | -T | -P | --show-tunnels } DEV
       fastlink ethtool [ FLAGS ] -S DEV [ --all-groups | --groups GROUP... ]
       fastlink ethtool -s DEV [ speed N ] [ lanes N ] [ duplex half|full ] [ autoneg on|off ]
                               [ advertise HEX[/HEX] | advertise MODE on|off ... [ -- ] ]
                               [ port tp|aui|bnc|mii|fibre|da ] [ mdix auto|on|off ] [ phyad N ]
                               [ wol pumbagsfd|d|N ] [ sopass XX:XX:XX:XX:XX:XX ]
                               [ msglvl N[/M] | msglvl TYPE on|off ... [ -- ] ]
                               [ master-slave preferred-master|preferred-slave|forced-master|forced-slave ]
       fastlink ethtool -A DEV [ autoneg on|off ] [ rx on|off ] [ tx on|off ]
       fastlink ethtool -L DEV [ rx N ] [ tx N ] [ other N ] [ combined N ]
       fastlink ethtool -G DEV [ rx N ] [ rx-mini N ] [ rx-jumbo N ] [ tx N ] [ rx-buf-len N ]
                               [ cqe-size N ] [ tx-push on|off ]
       fastlink ethtool -K DEV FEATURE on|off [ FEATURE on|off ... ]
       fastlink ethtool -C DEV [ adaptive-rx on|off ] [ adaptive-tx on|off ] [ rx-usecs N ]
                               [ rx-frames N ] [ tx-usecs N ] [ tx-frames N ] ...
       fastlink ethtool --set-fec DEV encoding auto|off|rs|baser|llrs ... [ -- ]
       fastlink ethtool --version | -h
FLAGS := { --json | -I | --include-statistics | --debug 0 }
Long option names are ethtool's (--show-channels, --set-ring, ...); ethtool 6.1's other options
are refused by name (see docs/cli/ethtool.md).)";

bool parseOnOff(Args& args, std::string_view keyword) {
  std::string v = args.value(keyword);
  if (v == "on") return true;
  if (v == "off") return false;
  throw UsageError(fmt::format("\"{}\" takes on or off, not \"{}\"", keyword, v));
}

/// ethtool 6.1's exit statuses of the operations that have their own (ethtool's codes per
/// operation, as measured against it: see kOptions' `failed`); -S has two, 96 when it cannot read
/// the driver's counter names, 94 when the driver has none.
constexpr int kFeaturesFailed = 92;

/// What the option's run gets: the command, the device, the words after it, -I, and the
/// option's first spelling ("-c"; "DEV" for `ethtool DEV`), which its messages name.
struct Call {
  Context& ctx;
  const std::string& dev;
  Args& args;
  bool statistics;  ///< -I: the statistics the driver keeps (pause frames, FEC counters)
  std::string_view name;
  const char* what;  ///< the row's `what` (kOptions)
  EthtoolApi& et() const { return ctx.netlink().ethtool(); }
};

/// Prints the library's error in fastlink's `Error: ` shape with ethtool's words: a missing device
/// as every fastlink command does, the -i ioctl's failure as ethtool words it, the rest as the
/// kernel's extack or the errno text ("Operation not supported").
void printFailure(const Error& e, const std::string& device, std::string_view name) {
  if (e.code() == std::errc::no_such_device)
    printError(fmt::format("Cannot find device \"{}\"", device));
  else if (name == "-i")
    printError("Cannot get driver information: " + e.code().message());
  else
    printError(e.reason());
}

// ---- show commands; -L, -G, -C: settings by their table ---------------------------------

/// ethtool's JSON: always indented, the array opened before the request so that a failure
/// leaves `[ ]` on stdout as ethtool's does.
template <class Produce>
int printEthtoolJson(Produce produce) {
  JsonArrayWriter json(stdout, true);
  json.add(produce());
  json.finish();
  return kExitOk;
}

/// A read that takes nothing after the device: ethtool's "unexpected parameter".
void onlyDevice(const Call& c) {
  if (!c.args.done()) c.args.unknown(fmt::format("ethtool {} takes only a device", c.name));
}

// A show command: the object `Read` gets (an EthtoolApi member, or a function of the call), as
// ethtool's text, or with --json as `Json` makes it (none where 6.1 has no JSON: -l, -g, -c, ...).
template <auto Read, auto Text, auto Json = nullptr>
int show(const Call& c) {
  onlyDevice(c);
  auto get = [&] {
    if constexpr (std::is_member_function_pointer_v<decltype(Read)>) return (c.et().*Read)(Ifref(c.dev));
    else return Read(c);
  };
  if constexpr (!std::is_null_pointer_v<decltype(Json)>)
    if (c.ctx.options().json) return printEthtoolJson([&] { return Json(c.dev, get()); });
  std::fputs(Text(c.dev, get()).c_str(), stdout);
  return kExitOk;
}

// --show-fec: with -I the FEC counters the driver keeps.
FecSettings fecOf(const Call& c) { return c.et().fec(c.dev, c.statistics); }

// -A, -C, -G, -L: `KEYWORD VALUE ...` by the message's table (ethtool's words), a number for a
// count, on|off for a flag (the row's `what` names them when none is given); one request.
template <class Info, void (EthtoolApi::*Set)(const Ifref&, const Info&)>
int sets(const Call& c) {
  EthtoolApi& et = c.et();  // the socket first, as before the table: a bad -n namespace is said first
  Args& args = c.args;
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
      args.unknown(fmt::format("ethtool {} takes: {}", c.name, words));
    }
    args.next();
    std::visit([&](auto member) {
      using V = typename std::remove_reference_t<decltype(info.*member)>::value_type;
      if constexpr (std::is_same_v<V, bool>) info.*member = parseOnOff(args, word);
      else info.*member = static_cast<V>(parseU32(args.value(word), word));
    }, p->member);
  }
  if (info == Info()) throw UsageError(fmt::format("ethtool {}: no {} given", c.name, c.what));
  (et.*Set)(c.dev, info);
  return kExitOk;
}

// ---- -k / -K -----------------------------------------------------------------------------

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

int setFeatures(const Call& c) {
  const std::string& dev = c.dev;
  std::vector<std::pair<std::string, bool>> asked;
  while (!c.args.done()) {
    std::string name = c.args.next();
    if (c.args.done()) throw UsageError(fmt::format("ethtool -K: feature \"{}\" needs on or off", name));
    asked.emplace_back(name, parseOnOff(c.args, name));
  }
  if (asked.empty()) throw UsageError("ethtool -K: no feature given");
  EthtoolApi& et = c.et();
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
        return kFeaturesFailed;
      }
    throw;
  }
  return reportFeatureChanges(before, r, changes);
}

// ---- -S ----------------------------------------------------------------------------------

// ethtool -S DEV: the driver's counters, "NIC statistics:" then "     NAME: VALUE" (ethtool 6.1
// reads them by ioctl and has no JSON for them: a usage error, as there).
// ethtool -S DEV --all-groups | --groups NAME... (one of the two, once): the standard groups
// over netlink, as text "GROUP-COUNTER: VALUE" or as ethtool's JSON. The library asks for every
// group; --groups keeps the named ones (what the kernel would send for them alone), a name the
// kernel does not know refused as the kernel refuses it, "bit name not found".
int showStats(const Call& c) {
  Args& args = c.args;
  if (args.done()) {
    if (c.ctx.options().json) throw UsageError("ethtool -S DEV has no JSON output without --all-groups or --groups (as in ethtool 6.1)");
    std::string s = "NIC statistics:\n";
    for (const auto& stat : c.et().driverStats(c.dev)) s += fmt::format("     {}: {}\n", stat.name, stat.value);
    std::fputs(s.c_str(), stdout);
    return kExitOk;
  }
  std::vector<std::string> only;
  bool all = false;
  while (!args.done()) {
    std::string word = args.next();
    if (word != "--all-groups" && word != "--groups")
      throw UsageError(fmt::format("ethtool -S: unknown parameter \"{}\" (it takes --all-groups or --groups NAME...)", word));
    if (all || !only.empty()) throw UsageError(fmt::format("ethtool -S: duplicate parameter \"{}\" (--all-groups and --groups are one parameter)", word));
    if (word == "--all-groups") {
      all = true;
      continue;
    }
    while (!args.done() && !args.peek().starts_with("--")) only.push_back(args.next());
    if (only.empty()) throw UsageError("ethtool -S: --groups needs a group name (eth-phy, eth-mac, eth-ctrl, rmon, ...)");
  }
  auto read = [&] {
    std::vector<StatsGroup> groups = c.et().stats(c.dev);
    if (only.empty()) return groups;
    for (const auto& name : only)
      if (std::none_of(groups.begin(), groups.end(), [&](const auto& g) { return g.name == name; })) {
        std::string known;
        for (const auto& g : groups) known += (known.empty() ? "" : ", ") + g.name;
        throw Error(std::make_error_code(std::errc::operation_not_supported), "ethtool -S --groups",
                    fmt::format("bit name not found: \"{}\" is not a statistics group (this kernel's: {})", name, known));
      }
    std::erase_if(groups, [&](const auto& g) { return std::find(only.begin(), only.end(), g.name) == only.end(); });
    return groups;
  };
  if (c.ctx.options().json) return printEthtoolJson([&] { return statsEthtoolJson(c.dev, read()); });
  std::string s = fmt::format("Standard stats for {}:\n", c.dev);
  for (const auto& g : read())
    for (const auto& [name, value] : g.counters) s += fmt::format("{}-{}: {}\n", g.name, name, value);
  std::fputs(s.c_str(), stdout);
  return kExitOk;
}

// ---- ethtool DEV, -s ----------------------------------------------------------------------

int showLinkSettings(const Call& c) {
  onlyDevice(c);
  EthtoolOutput r = linkSettingsText(c.dev, c.et().linkSettings(c.dev));
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

bool hex0x(std::string_view t) { return t.starts_with("0x") || t.starts_with("0X"); }
bool allHex(std::string_view t) { return t.find_first_not_of("0123456789abcdefABCDEF") == std::string_view::npos; }

/// A number as ethtool's bitset parameters take it: hexadecimal of any length with 0x (always
/// for `hex`: advertise), else decimal up to 32 bits; optionally /MASK in the same form. Without
/// a mask the number is the whole set (NOMASK).
BitsetChange numericBits(std::string_view word, const std::string& text, bool hex) {
  auto parse = [&](std::string_view t) {
    bool isHex = hex || hex0x(t);
    if (hex0x(t)) t.remove_prefix(2);
    std::vector<uint32_t> words;
    if (!isHex) {
      words.push_back(parseU32(std::string(t), word));
      return words;
    }
    if (t.empty() || !allHex(t))
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

/// A bitset parameter as ethtool's parser takes it (advertise, msglvl): a number (hexadecimal
/// for `hex`) with an optional /MASK, or the kernel's names of the bits, `NAME on|off` pairs
/// up to "--" or the end ("wol" is a message class as well as a keyword of -s: it is a name
/// here, as in ethtool).
BitsetChange bitsArgument(Args& args, std::string_view word, bool hex) {
  std::string v = args.value(word);
  // ethtool's test (netlink/parser.c): 0x in front, or hex digits with at most one "/" (the
  // mask may have its own 0x).
  auto numeric = [](std::string_view t) {
    if (hex0x(t)) return true;
    std::size_t slash = t.find('/');
    std::string_view value = t.substr(0, slash), mask = slash == std::string_view::npos ? "" : t.substr(slash + 1);
    if (hex0x(mask)) mask.remove_prefix(2);
    return allHex(value) && allHex(mask);
  };
  if (numeric(v)) return numericBits(word, v, hex);
  BitsetChange named;
  named.named.emplace_back(v, parseOnOff(args, v));
  while (!args.done() && args.peek() != "--") {
    std::string name = args.next();
    named.named.emplace_back(name, parseOnOff(args, name));
  }
  if (!args.done()) args.next();
  return named;
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
    if (part.empty() || part.size() > 2 || !allHex(part)) break;
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
    "speed N, lanes N, duplex half|full, autoneg on|off, advertise HEX[/HEX] | advertise MODE on|off ... [--], port tp|aui|bnc|mii|fibre|da, "
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
    else if (word == "advertise") modes.advertise = bitsArgument(args, word, true);
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
    else if (word == "msglvl") debug.change = bitsArgument(args, word, false);
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

// ethtool -a: with --json, ethtool's own JSON; -I adds the pause frame counters (a driver
// without them refuses the request, as with ethtool).
int showPause(const Call& c) {
  onlyDevice(c);
  const std::string& dev = c.dev;
  auto read = [&] {
    PauseInfo p = c.et().pause(dev, c.statistics);
    std::optional<std::pair<bool, bool>> negotiated;
    if (p.autoneg == true)
      if (auto modes = c.et().linkSettings(dev).modes) negotiated = negotiatedPause(*modes);
    return std::pair(p, negotiated);
  };
  if (c.ctx.options().json) return printEthtoolJson([&] {
    auto [p, negotiated] = read();
    return pauseJson(dev, p, negotiated, c.statistics);
  });
  auto [p, negotiated] = read();
  std::fputs(pauseText(dev, p, negotiated).c_str(), stdout);
  return kExitOk;
}

int showDriverInfo(const Call& c) {
  onlyDevice(c);
  std::fputs(driverInfoText(c.et().driverInfo(c.dev)).c_str(), stdout);
  return kExitOk;
}

// ethtool -P: the permanent address is rtnetlink's (IFLA_PERM_ADDRESS), as ethtool reads it;
// LinkInfo keeps it among the attributes it does not decode.
int showPermanentAddress(const Call& c) {
  onlyDevice(c);
  LinkInfo link = c.ctx.netlink().links().get(c.dev);
  std::optional<RawAttribute> perm = link.unknown.find(IFLA_PERM_ADDRESS);
  std::fputs(permanentAddressText(perm ? std::optional(perm->payload) : std::nullopt).c_str(), stdout);
  return kExitOk;
}

// ---- --set-fec -----------------------------------------------------------------------------

/// ethtool 6.1's --set-fec status for a refused request: the kernel's refusal of an encoding
/// name it does not know exits with it too.
constexpr int kSetFecFailed = 83;

// ethtool --set-fec DEV encoding WORD... [--]: the whole set of encodings, case-insensitive
// (auto, off, rs, baser, llrs), `--` ending the list; `encoding` once, as 6.1's parser takes it.
// What is not one of the five is refused before anything is sent, with the status 6.1 gets
// when the kernel refuses the name (its "bit name not found").
int setFec(Context& ctx, const std::string& dev, Args& args) {
  if (args.done()) throw UsageError("ethtool --set-fec: parameters missing (encoding auto|off|rs|baser|llrs ...)");
  static constexpr std::pair<const char*, uint32_t> kWords[] = {
      {"off", ETHTOOL_FEC_OFF}, {"rs", ETHTOOL_FEC_RS}, {"baser", ETHTOOL_FEC_BASER}, {"llrs", ETHTOOL_FEC_LLRS}};
  FecSettings fec;
  std::optional<std::string> unknown;
  while (!args.done()) {
    std::string word = args.next();
    if (word != "encoding")
      throw UsageError(fmt::format("ethtool --set-fec: unknown parameter \"{}\" (it takes encoding auto|off|rs|baser|llrs ...)", word));
    if (fec.modes) throw UsageError("ethtool --set-fec: duplicate parameter \"encoding\"");
    if (args.done()) throw UsageError("ethtool --set-fec: no value for parameter \"encoding\"");
    fec.setModes(0).setAutomatic(false);
    while (!args.done()) {
      std::string mode = args.next();
      if (mode == "--") break;
      std::string lower = mode;
      std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
      if (lower == "auto") {
        fec.automatic = true;
        continue;
      }
      auto known = std::find_if(std::begin(kWords), std::end(kWords), [&](const auto& w) { return lower == w.first; });
      if (known == std::end(kWords)) unknown = unknown.value_or(mode);
      else *fec.modes |= known->second;
    }
  }
  if (unknown) {
    printError(fmt::format("ethtool --set-fec: \"{}\" is not an FEC encoding (auto, off, rs, baser, llrs)", *unknown));
    return kSetFecFailed;
  }
  ctx.netlink().ethtool().setFec(dev, fec);
  return kExitOk;
}

// ---- dispatch: ethtool 6.1's option table -------------------------------------------------

using Run = int (*)(const Call&);

/// One row of ethtool 6.1's args[] (ethtool.c): its spellings, whether 6.1 prints JSON for it,
/// fastlink's implementation, `what` (for a refused option, without `run`: what it does, for the
/// error refusing it; for -A, -C, -G, -L: what their words are), and ethtool's exit status when
/// its request fails (the device missing or the kernel refusing).
struct EthtoolOption {
  const char* names;
  bool json = false;
  Run run = nullptr;
  const char* what = nullptr;
  int failed = kEthtoolFailed;
};

constexpr EthtoolOption kOptions[] = {
    {.names = "", .run = showLinkSettings, .failed = 75},
    {.names = "-s|--change", .run = [](const Call& c) { return setLinkSettings(c.ctx, c.dev, c.args); }, .failed = 75},
    {"-a|--show-pause", true, showPause},
    {"-A|--pause", false, sets<PauseInfo, &EthtoolApi::setPause>, "pause parameter", 76},
    {"-c|--show-coalesce", false, show<&EthtoolApi::coalesce, coalesceText>},
    {"-C|--coalesce", false, sets<CoalesceInfo, &EthtoolApi::setCoalesce>, "coalescing parameter"},
    {"-g|--show-ring", false, show<&EthtoolApi::rings, ringsText>},
    {"-G|--set-ring", false, sets<RingsInfo, &EthtoolApi::setRings>, "ring parameter", 81},
    {"-k|--show-features|--show-offload", true, show<&EthtoolApi::features, featuresText, featuresEthtoolJson>},
    {.names = "-K|--features|--offload", .run = setFeatures, .failed = kFeaturesFailed},
    {.names = "-i|--driver", .run = showDriverInfo, .failed = 71},
    {"-d|--register-dump", false, nullptr, "a register dump"},
    {"-e|--eeprom-dump", false, nullptr, "an EEPROM dump"},
    {"-E|--change-eeprom", false, nullptr, "writing the EEPROM"},
    {"-r|--negotiate", false, nullptr, "restarting autonegotiation"},
    {"-p|--identify", false, nullptr, "identifying the port (blinking)"},
    {"-t|--test", false, nullptr, "the adapter's self test"},
    {"-S|--statistics", true, showStats},
    {"--phy-statistics", false, nullptr, "the PHY's statistics"},
    {"-n|-u|--show-nfc|--show-ntuple", false, nullptr, "showing flow classification rules (fastlink steer covers ntuple rules)"},
    {"-N|-U|--config-nfc|--config-ntuple", false, nullptr, "flow classification rules (fastlink steer covers ntuple rules)"},
    {"-T|--show-time-stamping", false, show<&EthtoolApi::tsInfo, tsInfoText>},
    {"-x|--show-rxfh-indir|--show-rxfh", false, nullptr, "showing the RSS indirection table and key"},
    {"-X|--set-rxfh-indir|--rxfh", false, nullptr, "setting the RSS indirection table and key"},
    {"-f|--flash", false, nullptr, "flashing firmware"},
    {"-P|--show-permaddr", false, showPermanentAddress},
    {"-w|--get-dump", false, nullptr, "the firmware dump"},
    {"-W|--set-dump", false, nullptr, "the firmware dump flag"},
    {"-l|--show-channels", false, show<&EthtoolApi::channels, channelsText>},
    {"-L|--set-channels", false, sets<ChannelsInfo, &EthtoolApi::setChannels>, "channel count"},
    {"--show-priv-flags", false, nullptr, "the driver's private flags"},
    {"--set-priv-flags", false, nullptr, "the driver's private flags"},
    {"-m|--dump-module-eeprom|--module-info", false, nullptr, "the module EEPROM"},
    {"--show-eee", false, nullptr, "EEE settings"},
    {"--set-eee", false, nullptr, "EEE settings"},
    {"--set-phy-tunable", false, nullptr, "PHY tunables"},
    {"--get-phy-tunable", false, nullptr, "PHY tunables"},
    {"--get-tunable", false, nullptr, "tunables"},
    {"--set-tunable", false, nullptr, "tunables"},
    {"--reset", false, nullptr, "resetting components"},
    {"--show-fec", true, show<fecOf, fecText, fecJson>},
    {.names = "--set-fec", .run = [](const Call& c) { return setFec(c.ctx, c.dev, c.args); }, .failed = kSetFecFailed},
    {"-Q|--per-queue", false, nullptr, "per-queue commands"},
    {"--cable-test", true, nullptr, "the cable test"},
    {"--cable-test-tdr", true, nullptr, "the cable test"},
    {"--show-tunnels", false, show<&EthtoolApi::tunnelInfo, tunnelInfoText>},
    {"--show-module", true, nullptr, "transceiver module settings"},
    {"--set-module", false, nullptr, "transceiver module settings"},
};

const EthtoolOption* findOption(std::string_view word) {
  for (const auto& o : kOptions) {
    std::string_view names = o.names;
    if (names.empty()) continue;
    for (std::size_t at = 0; at <= names.size();) {
      std::size_t bar = std::min(names.find('|', at), names.size());
      if (names.substr(at, bar - at) == word) return &o;
      at = bar + 1;
    }
  }
  return nullptr;
}

int runEthtoolCommand(Context& ctx, Args& args) {
  GlobalOptions options = ctx.options();
  bool statistics = false;
  // ethtool's flags, before the option: --json (and fastlink's -j), -I, --debug N.
  for (;;) {
    if (args.accept("--json") || args.accept("-j")) options.json = true;
    else if (args.accept("-I") || args.accept("--include-statistics")) statistics = true;
    else if (args.accept("--debug")) {
      // ethtool's debug mask prints its netlink messages; fastlink has no such output, so only
      // the mask that prints nothing is taken.
      if (args.done()) throw UsageError("ethtool --debug needs a mask (N)");
      if (parseU32(args.next(), "--debug") != 0)
        throw UsageError("ethtool --debug N: fastlink prints no ethtool debug messages (only --debug 0 is taken)");
    } else break;
  }
  if (args.done()) {
    std::fputs((std::string(kUsage) + "\n").c_str(), stderr);
    return kEthtoolFailed;
  }
  if (args.peek() == "help" || args.peek() == "-h" || args.peek() == "--help") {
    printLine(kUsage);
    return kExitOk;
  }
  if (args.accept("--version")) {
    // The grammar, texts and statuses fastlink's ethtool follows (docs/cli/ethtool.md).
    printLine("ethtool version 6.1");
    return kExitOk;
  }
  if (args.peek() == "--monitor") throw UsageError("ethtool --monitor is \"fastlink monitor ethtool\" in fastlink");
  // A first word that is not an option is the device: `ethtool DEV`, the link settings.
  const EthtoolOption* option = &kOptions[0];
  std::string action;
  if (args.peek().starts_with("-")) {
    option = findOption(args.peek());
    if (!option)
      throw UsageError(fmt::format("ethtool option \"{}\" is not one of ethtool 6.1's (see fastlink ethtool help)", args.peek()));
    action = args.next();
    if (!option->run)
      throw UsageError(fmt::format("ethtool {} ({}) is not supported by fastlink; it covers DEV, -s, -a, -A, -c, -C, "
                                   "-g, -G, -k, -K, -i, -S, -T, -P, -l, -L, --show-fec, --set-fec, --show-tunnels (docs/cli/ethtool.md)",
                                   action, option->what));
  }
  if (args.done()) throw UsageError(fmt::format("ethtool {}: a device name is required", action));
  std::string dev = args.next();
  if (options.json && !option->json)
    throw UsageError(fmt::format("ethtool {} has no JSON output (as in ethtool 6.1)", action.empty() ? "DEV" : action));
  Context local(options);
  Context& c = options.json == ctx.options().json ? ctx : local;
  const bool driverStats = args.done();  // -S with no parameter: the driver's counters
  std::string_view name = std::string_view(option->names).substr(0, std::string_view(option->names).find('|'));
  try {
    return option->run(Call{c, dev, args, statistics, name.empty() ? "DEV" : name, option->what});
  } catch (const Error& e) {
    // `ethtool DEV` reports on stdout that it got nothing, whatever the reason.
    if (action.empty()) std::fputs("No data available\n", stdout);
    printFailure(e, dev, name);
    if (driverStats && name == "-S") return e.code() == std::errc::operation_not_supported ? 94 : 96;
    return option->failed;
  }
}

int runEthtool(Context& ctx, Args& args) {
  // ethtool's "bad command line argument(s)": 1, not ip's 255.
  return runWithUsageStatus(kEthtoolFailed, [&] { return runEthtoolCommand(ctx, args); });
}

const Registrar kEthtool{
    ObjectCommand{.name = "ethtool", .aliases = {}, .usage = kUsage, .run = runEthtool, .prepare = {}}};

}  // namespace
}  // namespace fastlink::cli
