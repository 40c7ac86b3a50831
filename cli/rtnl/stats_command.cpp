// The `stats` object: per-device statistics groups (fastlink/stats.hpp) with ip 6.1's grammar
// (ip/ipstats.c), its text and -j output and its exit statuses:
//   fastlink stats [ show [ dev DEV ] [ group GROUP [ subgroup SUBGROUP [ suite SUITE ] ... ] ... ] ... ]
//   fastlink stats set dev DEV l3_stats { on | off }
//   fastlink stats help
// ip reads its words whole (no abbreviations), prints one record per device and statistic
// (`N: DEV: group G [subgroup S [suite X]]`, then the statistic's block), and in -j a flat array
// of such records.
#include <fmt/format.h>
#include <stdio.h>

#include <array>
#include <initializer_list>
#include <cctype>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fastlink/netlink.hpp"
#include "fastlink/stats.hpp"
#include "kit/args.hpp"
#include "kit/command.hpp"
#include "kit/device_names.hpp"
#include "kit/failure.hpp"
#include "kit/output.hpp"
#include "kit/writer.hpp"
#include "rtnl/ip_object.hpp"
#include "rtnl/link_show.hpp"

namespace fastlink::cli {
namespace {

using json = nlohmann::ordered_json;

constexpr int kExitInvalid = 22;  // ip stats returns -EINVAL, and ip exits with its negation

constexpr const char* kUsage =
    "Usage: fastlink stats help\n"
    "       fastlink stats show [ dev DEV ] [ group GROUP [ subgroup SUBGROUP [ suite SUITE ] ... ] ... ] ...\n"
    "       fastlink stats set dev DEV l3_stats { on | off }\n"
    "GROUP := { link | xstats | xstats_slave | offload | afstats }\n"
    "xstats SUBGROUP := { bridge [ suite stp ] [ suite mcast ] | bond [ suite 802.3ad ] }\n"
    "xstats_slave SUBGROUP := { bridge [ suite stp ] [ suite mcast ] | bond [ suite 802.3ad ] }\n"
    "offload SUBGROUP := { cpu_hit | hw_stats_info | l3_stats }\n"
    "afstats SUBGROUP := { mpls }\n";

/// ip's usage() with fastlink's name, on stderr as ip prints it (`help` exits 0, a word it does
/// not know 22).
void printStatsUsage() { std::fputs(kUsage, stderr); }

/// The statistics ip shows, in the order ip 6.1 prints them: it sorts what was asked by the
/// address of each statistic's descriptor in its binary, which puts them in this order.
enum Leaf : std::size_t {
  AfMpls,
  Link,
  OffloadL3Stats,
  OffloadHwStatsInfo,
  OffloadCpuHit,
  SlaveBond3ad,
  Bond3ad,
  SlaveBridgeMcast,
  SlaveBridgeStp,
  BridgeMcast,
  BridgeStp,
  kLeafCount
};

/// ip's tree of groups, subgroups and suites, in its declaration order (its help lists them so).
struct Node {
  std::string_view name;
  std::optional<Leaf> leaf;  ///< a statistic; else a group of `subs`
  std::vector<Node> subs;
};

const Node& tree() {
  static const Node top{
      "top-level",
      std::nullopt,
      {{"link", Link, {}},
       {"xstats", std::nullopt,
        {{"bridge", std::nullopt, {{"stp", BridgeStp, {}}, {"mcast", BridgeMcast, {}}}},
         {"bond", std::nullopt, {{"802.3ad", Bond3ad, {}}}}}},
       {"xstats_slave", std::nullopt,
        {{"bridge", std::nullopt, {{"stp", SlaveBridgeStp, {}}, {"mcast", SlaveBridgeMcast, {}}}},
         {"bond", std::nullopt, {{"802.3ad", SlaveBond3ad, {}}}}}},
       {"offload", std::nullopt,
        {{"cpu_hit", OffloadCpuHit, {}}, {"hw_stats_info", OffloadHwStatsInfo, {}}, {"l3_stats", OffloadL3Stats, {}}}},
       {"afstats", std::nullopt, {{"mpls", AfMpls, {}}}}}};
  return top;
}

constexpr std::array<std::string_view, 3> kLevels = {"group", "subgroup", "suite"};
using Path = std::array<std::string_view, 3>;  ///< group, subgroup, suite; empty past the last

/// What `show` asked for: each statistic at most once, with the path it was named by.
struct Enabled {
  std::array<std::optional<Path>, kLeafCount> leaves;
};

/// A usage error ip reports with -EINVAL (exit 22): printed, then the status.
struct Invalid {
  std::string message;
};

void enableAll(const Node& node, Path path, std::size_t depth, Enabled& enabled) {
  if (node.leaf) {
    if (!enabled.leaves[*node.leaf]) enabled.leaves[*node.leaf] = path;
    return;
  }
  for (const Node& sub : node.subs) {
    Path deeper = path;
    deeper[depth] = sub.name;
    enableAll(sub, deeper, depth + 1, enabled);
  }
}

/// ip's ipstats_enable: the node a path names (exact names), then every statistic under it.
void enable(const Path& path, Enabled& enabled) {
  const Node* node = &tree();
  std::size_t depth = 0;
  for (; depth < kLevels.size() && !path[depth].empty(); ++depth) {
    if (node->leaf)
      throw Invalid{fmt::format("Error: {} {} requested inside leaf {} {}", kLevels[depth], path[depth],
                                kLevels[depth - 1], node->name)};
    const Node* next = nullptr;
    for (const Node& sub : node->subs)
      if (sub.name == path[depth]) next = &sub;
    if (!next)
      throw Invalid{fmt::format("Error: no {} named {} found inside {}", kLevels[depth], path[depth], node->name)};
    node = next;
  }
  enableAll(*node, path, depth, enabled);
}

/// The groups of the request: what the enabled statistics read.
StatsSelection selectionOf(const Enabled& e) {
  auto on = [&](Leaf l) { return e.leaves[l].has_value(); };
  StatsSelection s;
  s.link = on(Link);
  s.xstats = on(Bond3ad) || on(BridgeMcast) || on(BridgeStp);
  s.xstatsSlave = on(SlaveBond3ad) || on(SlaveBridgeMcast) || on(SlaveBridgeStp);
  s.cpuHit = on(OffloadCpuHit);
  s.hwStatsInfo = on(OffloadHwStatsInfo);
  s.l3Stats = on(OffloadL3Stats);
  s.afSpec = on(AfMpls);
  return s;
}

/// ip's check_ifname: what a `dev` word may be.
bool validIfname(std::string_view name) {
  if (name.empty() || name.size() >= 16) return false;
  for (char c : name)
    if (c == '/' || std::isspace(static_cast<unsigned char>(c))) return false;
  return true;
}

/// The word after `keyword`, as ip's NEXT_ARG wants it (missing: 255).
const std::string& nextWord(Args& args) {
  if (args.done()) throw UsageError("Command line is not complete. Try option \"help\"");
  return args.next();
}

/// `dev DEV` of show and set, as ip reads it: once, a valid name (else 255, ip's words).
void readDev(Args& args, std::optional<std::string>& dev) {
  const std::string& name = nextWord(args);
  if (dev) throw UsageError(fmt::format("either \"dev\" is duplicate, or \"{}\" is a garbage.", name));
  if (!validIfname(name)) throw UsageError(fmt::format("argument \"{}\" is wrong: \"dev\" not a valid ifname", name));
  dev = name;
}

/// Text as ip prints it: `nl()` is ip's print_nl (`\` under -o, as its _SL_), lines the xstats
/// printers end with a literal newline stay newlines.
class Text {
 public:
  explicit Text(const GlobalOptions& o) : o_(o) {}
  Text& put(std::string_view s) {
    out_ += s;
    return *this;
  }
  void nl() { out_ += o_.oneline ? "\\" : "\n"; }
  /// print_num: a counter right-aligned in `width`, and a blank.
  void num(uint64_t v, std::size_t width) {
    out_ += fmt::format("{:>{}} ", o_.human ? humanCount(v, o_.iec) : std::to_string(v), width);
  }
  /// ip -s link's block (print_stats64), without its last line's end.
  void stats64(const LinkStats& s, bool twice) {
    char* data = nullptr;
    std::size_t size = 0;
    FILE* memory = open_memstream(&data, &size);
    if (!memory) throw std::runtime_error("open_memstream failed");
    {
      OutBuffer buffer(memory, 0);
      GlobalOptions keepBlanks = o_;
      keepBlanks.oneline = true;  // ip's lines keep their trailing blanks
      printStats(buffer, s, std::nullopt, twice, keepBlanks);
      buffer.flush();
    }
    std::fclose(memory);
    std::string block(data, size);
    std::free(data);
    if (!block.empty() && block.back() == '\n') block.pop_back();
    for (char c : block) {
      if (c == '\n') nl();
      else out_ += c;
    }
  }
  /// The five-column blocks of the hardware (L3) and MPLS counters: `rx` and `tx` values, the
  /// last RX column headed `last`.
  void fiveColumns(std::string_view last, std::array<uint64_t, 5> rx, std::array<uint64_t, 4> tx) {
    std::array<std::size_t, 5> cols = {9, 7, 6, 7, 7};
    for (std::size_t i = 0; i < 5 && !o_.human; ++i) {
      cols[i] = std::max(cols[i], digitCount(rx[i]));
      cols[i] = std::max(cols[i], digitCount(i < 4 ? tx[i] : 0));
    }
    put(fmt::format("    RX: {:>{}} {:>{}} {:>{}} {:>{}} {:>{}}", "bytes", cols[0] - 4, "packets", cols[1], "errors",
                    cols[2], "dropped", cols[3], last, cols[4]));
    nl();
    put("    ");
    for (std::size_t i = 0; i < 5; ++i) num(rx[i], cols[i]);
    nl();
    put(fmt::format("    TX: {:>{}} {:>{}} {:>{}} {:>{}}", "bytes", cols[0] - 4, "packets", cols[1], "errors", cols[2],
                    "dropped", cols[3]));
    nl();
    put("    ");
    for (std::size_t i = 0; i < 4; ++i) num(tx[i], cols[i]);
  }
  const std::string& str() const { return out_; }

 private:
  const GlobalOptions& o_;
  std::string out_;
};

constexpr std::string_view kIndent = "                    ";  // ip's "%-16s    "

/// The bridge's multicast counters (ip's print_mcast_stats), its text lines into `t` (when there
/// is text) and its keys into `j`, by one walk.
void bridgeMcast(Text* t, json& j, const BridgeMcastStats& m) {
  auto line = [&](const std::string& s) {
    if (t) t->put(kIndent).put(s).put("\n");
  };
  // Per protocol version (IGMP v1-v3, MLD v1-v2), received [0] and sent [1]: "  RX: v1 A v2 B".
  auto versions = [&](const char* key, const char* title, std::initializer_list<const uint64_t*> counts) {
    line(title);
    json& o = j[key] = json::object();
    for (int dir : {0, 1}) {
      std::string text = dir ? "  TX:" : "  RX:";
      int version = 1;
      for (const uint64_t* c : counts) {
        o[fmt::format("{}_v{}", dir ? "tx" : "rx", version)] = c[dir];
        text += fmt::format(" v{} {}", version++, c[dir]);
      }
      line(text);
    }
  };
  auto leaves = [&](std::string_view proto, std::string_view key, const uint64_t (&counts)[2], uint64_t errors) {
    line(fmt::format("{} leaves: RX: {} TX: {}", proto, counts[0], counts[1]));
    line(fmt::format("{} parse errors: {}", proto, errors));
    j[fmt::format("{}_leaves", key)] = {{"rx", counts[0]}, {"tx", counts[1]}};
    j[fmt::format("{}_parse_errors", key)] = errors;
  };
  versions("igmp_queries", "IGMP queries:", {m.igmpV1Queries, m.igmpV2Queries, m.igmpV3Queries});
  versions("igmp_reports", "IGMP reports:", {m.igmpV1Reports, m.igmpV2Reports, m.igmpV3Reports});
  leaves("IGMP", "igmp", m.igmpLeaves, m.igmpParseErrors);
  versions("mld_queries", "MLD queries:", {m.mldV1Queries, m.mldV2Queries});
  versions("mld_reports", "MLD reports:", {m.mldV1Reports, m.mldV2Reports});
  leaves("MLD", "mld", m.mldLeaves, m.mldParseErrors);
}

void stpText(Text& t, const BridgeStpStats& s) {
  t.put(kIndent).put(fmt::format("STP BPDU:  RX: {} TX: {}\n", s.rxBpdu, s.txBpdu));
  t.put(kIndent).put(fmt::format("STP TCN:   RX: {} TX: {}\n", s.rxTcn, s.txTcn));
  t.put(kIndent).put(
      fmt::format("STP Transitions: Blocked: {} Forwarding: {}\n", s.transitionBlocked, s.transitionForwarding));
}

json stpJson(const BridgeStpStats& s) {
  return json{{"rx_bpdu", s.rxBpdu}, {"tx_bpdu", s.txBpdu}, {"rx_tcn", s.rxTcn}, {"tx_tcn", s.txTcn},
              {"transition_blk", s.transitionBlocked}, {"transition_fwd", s.transitionForwarding}};
}

/// BOND_XSTATS_3AD's counters as ip names them, in its order; each only when the kernel sent it.
template <class Each>
void for3ad(const Bond3adStats& b, Each each) {
  each("lacpdu_rx", "LACPDU Rx", b.lacpduRx);
  each("lacpdu_tx", "LACPDU Tx", b.lacpduTx);
  each("lacpdu_unknown_rx", "LACPDU Unknown type Rx", b.lacpduUnknownRx);
  each("lacpdu_illegal_rx", "LACPDU Illegal Rx", b.lacpduIllegalRx);
  each("marker_rx", "Marker Rx", b.markerRx);
  each("marker_tx", "Marker Tx", b.markerTx);
  each("marker_response_rx", "Marker response Rx", b.markerResponseRx);
  each("marker_response_tx", "Marker response Tx", b.markerResponseTx);
  each("marker_unknown_rx", "Marker unknown type Rx", b.markerUnknownRx);
}

json onOff(const HwStatsState& s) {
  json j{{"request", s.request}};
  if (s.used) j["used"] = *s.used;
  return j;
}

void onOffText(Text& t, const HwStatsState& s) {
  t.put(s.request ? " on" : " off");
  if (s.used) t.put(*s.used ? " used on" : " used off");
}

/// One statistic of one device: ip's ipstats_process_ifsm for one enabled descriptor.
void showLeaf(Leaf leaf, const Path& path, const DeviceStats& s, const std::string& name, bool twice, Text* text,
              JsonArrayWriter* js) {
  json j{{"ifindex", s.ifindex}, {"ifname", name}};
  if (text) text->put(fmt::format("{}: {}:", s.ifindex, name));
  for (std::size_t i = 0; i < kLevels.size() && !path[i].empty(); ++i) {
    j[std::string(kLevels[i])] = path[i];
    if (text) text->put(fmt::format(" {} {}", kLevels[i], path[i]));
  }
  auto stats64 = [&](const std::optional<LinkStats>& v) {
    if (text) text->nl();
    if (!v) return;
    if (text) text->stats64(*v, twice);
    j["stats64"] = statsJson(*v, std::nullopt, twice);
  };
  auto extended = [&](const ExtendedStats& x, bool bridge, bool mcast) {
    if (bridge && mcast && x.bridgeMcast) {
      if (text) text->nl();
      bridgeMcast(text, j["multicast"], *x.bridgeMcast);
    } else if (bridge && !mcast && x.bridgeStp) {
      if (text) text->nl(), stpText(*text, *x.bridgeStp);
      j["stp"] = stpJson(*x.bridgeStp);
    } else if (!bridge && x.bond3ad) {
      if (text) text->nl();
      json lacp = json::object();
      for3ad(*x.bond3ad, [&](const char* key, const char* label, const std::optional<uint64_t>& v) {
        if (!v) return;
        lacp[key] = *v;
        if (text) text->put(kIndent).put(fmt::format("{} {}\n", label, *v));
      });
      j["802.3ad"] = lacp;
    }
  };
  // The L3 offload and MPLS counters: a line break and five columns; in JSON `key`'s rx and tx.
  auto fiveColumns = [&](const char* key, std::string_view last, const char* lastKey, std::array<uint64_t, 5> rx,
                         std::array<uint64_t, 4> tx) {
    if (text) text->nl(), text->fiveColumns(last, rx, tx);
    j[key] = {{"rx", {{"bytes", rx[0]}, {"packets", rx[1]}, {"errors", rx[2]}, {"dropped", rx[3]}, {lastKey, rx[4]}}},
              {"tx", {{"bytes", tx[0]}, {"packets", tx[1]}, {"errors", tx[2]}, {"dropped", tx[3]}}}};
  };
  switch (leaf) {
    case Link: stats64(s.link); break;
    case OffloadCpuHit: stats64(s.cpuHit); break;
    case OffloadHwStatsInfo:
      if (s.l3StatsState) {
        if (text) text->nl(), text->put("    l3_stats"), onOffText(*text, *s.l3StatsState);
        j["info"] = {{"l3_stats", onOff(*s.l3StatsState)}};
      }
      break;
    case OffloadL3Stats:
      if (s.l3StatsState) {
        if (text) onOffText(*text, *s.l3StatsState);
        j["info"] = onOff(*s.l3StatsState);
        if (const std::optional<HwStats>& h = s.l3Stats)
          fiveColumns("stats64", "mcast", "multicast", {h->rxBytes, h->rxPackets, h->rxErrors, h->rxDropped, h->multicast},
                      {h->txBytes, h->txPackets, h->txErrors, h->txDropped});
      }
      break;
    case AfMpls:
      if (const std::optional<MplsStats>& m = s.mpls)
        fiveColumns("mpls_stats", "noroute", "noroute", {m->rxBytes, m->rxPackets, m->rxErrors, m->rxDropped, m->rxNoroute},
                    {m->txBytes, m->txPackets, m->txErrors, m->txDropped});
      break;
    case SlaveBond3ad: extended(s.xstatsSlave, false, false); break;
    case Bond3ad: extended(s.xstats, false, false); break;
    case SlaveBridgeMcast: extended(s.xstatsSlave, true, true); break;
    case SlaveBridgeStp: extended(s.xstatsSlave, true, false); break;
    case BridgeMcast: extended(s.xstats, true, true); break;
    case BridgeStp: extended(s.xstats, true, false); break;
    case kLeafCount: break;
  }
  if (text) text->nl();
  if (js) js->add(j);
}

/// `show` (`explicitShow`: the word was given; ip then counts one more -s, and -d one more).
int show(Context& ctx, Args& args, bool explicitShow) {
  Enabled enabled;
  Path sel{};
  std::optional<std::string> dev;
  try {
    while (!args.done()) {
      const std::string& word = args.next();
      if (word == "dev") {
        readDev(args, dev);
        continue;
      }
      if (word == "help") {
        printStatsUsage();
        return kExitOk;
      }
      std::size_t level = 0;
      while (level < kLevels.size() && word != kLevels[level]) ++level;
      if (level == kLevels.size()) {
        std::fputs(fmt::format("What is \"{}\"?\n", word).c_str(), stderr);
        printStatsUsage();
        return kExitInvalid;
      }
      const std::string& name = nextWord(args);
      // ip's ipstats_select: the levels above must be chosen; a selection at this level or
      // below is complete, and enabled, before a new one starts here.
      for (std::size_t i = 0; i < level; ++i)
        if (sel[i].empty())
          throw Invalid{fmt::format("Error: {} {} requested without selecting a {} first", kLevels[level], name,
                                    kLevels[i])};
      for (std::size_t i = level; i < kLevels.size(); ++i)
        if (!sel[i].empty()) {
          enable(sel, enabled);
          break;
        }
      sel[level] = name;
      for (std::size_t i = level + 1; i < kLevels.size(); ++i) sel[i] = {};
    }
    enable(sel, enabled);  // what was given last (nothing: every statistic)
  } catch (const Invalid& e) {
    std::fputs((e.message + "\n").c_str(), stderr);
    return kExitInvalid;
  }
  const GlobalOptions& o = ctx.options();
  bool twice = (explicitShow ? o.stats + (o.details ? 1 : 0) + 1 : o.stats) > 1;
  Netlink& nl = ctx.netlink();
  DeviceNames names([&nl](uint32_t index) { return nl.links().find(Ifref(index)); });
  std::vector<DeviceStats> records;
  StatsSelection what = selectionOf(enabled);
  try {
    if (dev) {
      std::optional<uint32_t> index = nl.links().findIndex(*dev);
      if (!index) throw BadValueError(fmt::format("Cannot find device \"{}\"", *dev));
      names.load(nl.links());
      records.push_back(nl.stats().get(*index, what));
    } else {
      names.load(nl.links());  // before the statistics dump: one dump at a time on the socket
      records = nl.stats().list(what);
    }
  } catch (const Error& e) {
    return reportFailure(e, dev.value_or(""));
  }
  std::optional<Text> text;
  OutBuffer out;
  std::optional<JsonArrayWriter> js;
  if (o.json) js.emplace(out, o.pretty);
  else text.emplace(o);
  for (const DeviceStats& s : records) {
    const std::string& name = names.name(s.ifindex);
    for (std::size_t leaf = 0; leaf < kLeafCount; ++leaf)
      if (const std::optional<Path>& path = enabled.leaves[leaf])
        showLeaf(static_cast<Leaf>(leaf), *path, s, name, twice, text ? &*text : nullptr, js ? &*js : nullptr);
    if (text && !dev) text->nl();  // ip's dump callback ends each device with one more
    if (text) {
      out.put(text->str());
      text.emplace(o);
    }
  }
  if (js) js->finish();
  out.flush();
  return kExitOk;
}

/// A `set` line: the device and the switch (ip's ipstats_set).
struct SetLine {
  std::string dev;
  bool on = false;
};

/// Parses `set`'s words; std::nullopt: `help` (printed already). Throws Invalid or UsageError.
std::optional<SetLine> parseSet(Args& args) {
  std::optional<std::string> dev;
  std::optional<bool> on;
  while (!args.done()) {
    const std::string& word = args.next();
    if (word == "dev") {
      readDev(args, dev);
    } else if (word == "l3_stats") {
      const std::string& value = nextWord(args);
      if (on) throw Invalid{"A statistics suite to toggle was already given."};
      // ip's parse_on_off: matches() against "off" then "on" (`o` is off).
      if (!value.empty() && std::string_view("off").starts_with(value)) on = false;
      else if (!value.empty() && std::string_view("on").starts_with(value)) on = true;
      else throw Invalid{fmt::format("Error: argument of \"l3_stats\" must be one of \"off\", \"on\", not \"{}\"", value)};
    } else if (word == "help") {
      printStatsUsage();
      return std::nullopt;
    } else {
      std::fputs(fmt::format("What is \"{}\"?\n", word).c_str(), stderr);
      printStatsUsage();
      throw Invalid{};
    }
  }
  // ip's own wording; these exit 255 (its exit(-1)).
  if (!dev) throw UsageError("Not enough information: \"dev\" argument is required.");
  if (!on) throw UsageError("Not enough information: stat type to toggle is required.");
  return SetLine{*dev, *on};
}

int set(Context& ctx, Args& args) {
  std::optional<SetLine> line;
  try {
    line = parseSet(args);
  } catch (const Invalid& e) {
    if (!e.message.empty()) std::fputs((e.message + "\n").c_str(), stderr);
    return kExitInvalid;
  }
  if (!line) return kExitOk;
  Netlink& nl = ctx.netlink();
  std::optional<uint32_t> index = nl.links().findIndex(line->dev);
  if (!index) throw BadValueError(fmt::format("Cannot find device \"{}\"", line->dev));
  try {
    nl.stats().setL3Stats(*index, line->on);
  } catch (const Error& e) {
    return reportFailure(Error(e.code(), args.text(), e.extack()), line->dev);
  }
  return kExitOk;
}

/// A -batch line: `set` is one request; show reads, and is refused.
PreparedRequest prepareStats(Context&, Args& args) {
  std::string verb = args.done() ? std::string("show") : args.next();
  if (verb != "set") throw UsageError(fmt::format("stats {} cannot be used in a batch (a batch sends set lines)", verb));
  std::optional<SetLine> line;
  try {
    line = parseSet(args);
  } catch (const Invalid& e) {
    throw UsageError(e.message.empty() ? std::string("stats set: a word ip does not know") : e.message);
  }
  if (!line) throw UsageError(kUsage);
  return requestNamingDevice(line->dev, [on = line->on](uint32_t index) { return StatsRequests::setL3Stats(index, on); });
}

int runStats(Context& ctx, Args& args) {
  if (args.done()) return show(ctx, args, false);
  std::string verb = args.next();
  // ip compares the verb whole: no abbreviation of show, set or help.
  if (verb == "help") {
    printStatsUsage();
    return kExitOk;
  }
  if (verb == "show") return show(ctx, args, true);
  if (verb == "set") return set(ctx, args);
  std::fputs(fmt::format("Command \"{}\" is unknown, try \"fastlink stats help\".\n", verb).c_str(), stderr);
  return kExitBadValue;
}

const Registrar kStats{ObjectCommand{.name = "stats", .aliases = {}, .usage = kUsage, .run = runStats, .prepare = prepareStats}};

}  // namespace
}  // namespace fastlink::cli
