#include "rtnl/link_show.hpp"

#include <fmt/format.h>

#include <array>
#include <deque>
#include <map>
#include <optional>
#include <unordered_map>

#include "fastlink/link_view.hpp"
#include "kit/device_names.hpp"
#include "kit/failure.hpp"
#include "kit/ip_names.hpp"
#include "kit/netns_names.hpp"
#include "rtnl/link_kind.hpp"
#include "rtnl/link_words.hpp"
#include "kit/writer.hpp"
#include "xdp/xdp_show.hpp"

namespace fastlink::cli {
namespace {

using json = nlohmann::ordered_json;

const char* knownLinkTypeName(uint16_t type) {
  // ARPHRD_* values (<net/if_arp.h>) of the device types fastlink users meet.
  switch (type) {
    case 1: return "ether";
    case 6: return "ieee802";
    case 768: return "ipip";
    case 769: return "tunnel6";
    case 772: return "loopback";
    case 776: return "sit";
    case 778: return "gre";
    case 823: return "gre6";
    case 65534: return "none";
    case 0xffff: return "void";
    default: return nullptr;
  }
}

/// linkFlagNames() written straight to the buffer, comma-separated (no strings built).
void putFlags(OutBuffer& out, uint32_t flags, bool lowerDown) {
  bool first = true;
  forEachLinkFlagWord(flags, lowerDown, [&](std::string_view w) {
    if (!first) out.put(',');
    first = false;
    out.put(w);
  });
}

/// ip's ll_type_n2a: the ARPHRD name, or "[N]" (always "[N]" with -N).
std::string linkTypeName(uint16_t type) {
  const char* known = ipNameOptions.numeric ? nullptr : knownLinkTypeName(type);
  return known ? known : fmt::format("[{}]", type);
}

std::string groupName(uint32_t group) { return ipGroupName(group); }

std::string nameOf(const DeviceNames& peers, uint32_t index) {
  const std::string* name = peers.find(index);
  return name ? *name : fmt::format("if{}", index);
}

/// The kind options fastlink decodes, printed by the kind's file in cli/rtnl/link_kinds/, as one
/// (key, JSON value, text) list so text and JSON agree.
std::vector<KindOption> kindOptions(const LinkInfo& l, const DeviceNames& peers) {
  const CliLinkKind* cli = l.kind ? findCliLinkKind(*l.kind) : nullptr;
  if (!cli || !cli->print) return {};
  return cli->print(l, [&](uint32_t index) { return nameOf(peers, index); });
}

/// What the master reports about `l` as a port (the words after `bridge_slave`), printed by the
/// master kind's file; nullopt when iproute2 prints none for that kind of master.
std::optional<std::vector<KindOption>> portOptions(const LinkInfo& l, const DeviceNames& peers) {
  const CliLinkKind* cli = l.slaveKind ? findCliLinkKind(*l.slaveKind) : nullptr;
  if (!cli || !cli->printPort) return std::nullopt;
  return cli->printPort(l, [&](uint32_t index) { return nameOf(peers, index); });
}

/// The lower device of `l` as iproute2 shows it: a name ("@v1"), or "if5" in another namespace.
struct LowerDevice {
  uint32_t index = 0;
  bool otherNetns = false;
  bool down = false;
};

/// `index` and `parent` of the device itself; `otherNetns`: it reports a link-netnsid.
LowerDevice lowerDevice(uint32_t index, uint32_t parent, bool otherNetns, const DeviceNames& peers) {
  LowerDevice d;
  d.index = parent;
  // A device naming itself has no lower device; a veth peer in another namespace may have the
  // same index as the device (each namespace numbers its own): ip prints it ("v0@if2").
  if (d.index == 0 || (d.index == index && !otherNetns)) return {};
  d.otherNetns = otherNetns;
  if (d.otherNetns) return d;  // its flags are not ours to see; iproute2 prints no M-DOWN either
  d.down = !(peers.flags(d.index) & kIffUp);
  return d;
}

LowerDevice lowerDevice(const LinkInfo& l, const DeviceNames& peers) {
  return lowerDevice(l.index.value_or(0), l.parentIndex(), l.linkNetnsId.has_value(), peers);
}

LowerDevice lowerDevice(const LinkView& l, const DeviceNames& peers) {
  return lowerDevice(l.index(), l.parent().value_or(0), l.linkNetnsId().has_value(), peers);
}

/// `stats64` of `ip -j -s`; `-s -s` (`twice`) adds the error counters, as ip.
json statsJson(const LinkStats& s, std::optional<uint32_t> carrierChanges, bool twice) {
  json rx = {{"bytes", s.rxBytes},       {"packets", s.rxPackets}, {"errors", s.rxErrors},
             {"dropped", s.rxDropped},   {"over_errors", s.rxOverErrors}, {"multicast", s.multicast}};
  json tx = {{"bytes", s.txBytes},     {"packets", s.txPackets},
             {"errors", s.txErrors},   {"dropped", s.txDropped},
             {"carrier_errors", s.txCarrierErrors}, {"collisions", s.collisions}};
  if (twice) {
    rx["length_errors"] = s.rxLengthErrors;
    rx["crc_errors"] = s.rxCrcErrors;
    rx["frame_errors"] = s.rxFrameErrors;
    rx["fifo_errors"] = s.rxFifoErrors;
    rx["missed_errors"] = s.rxMissedErrors;
    tx["aborted_errors"] = s.txAbortedErrors;
    tx["fifo_errors"] = s.txFifoErrors;
    tx["window_errors"] = s.txWindowErrors;
    tx["heartbeat_errors"] = s.txHeartbeatErrors;
    if (carrierChanges) tx["carrier_changes"] = *carrierChanges;
  }
  return {{"rx", rx}, {"tx", tx}};
}

const char* addrGenModeName(Ipv6AddrGenMode mode) {
  switch (mode) {
    case Ipv6AddrGenMode::Eui64: return "eui64";
    case Ipv6AddrGenMode::None: return "none";
    case Ipv6AddrGenMode::StableSecret: return "stable_secret";
    case Ipv6AddrGenMode::Random: return "random";
  }
  return "unknown";
}

struct DeviceLimit {
  const char* key;   ///< JSON
  const char* word;  ///< text
  const std::optional<uint32_t>* value;
};

/// The queue counts and offload limits `ip -d` prints after the kind, in its order.
std::vector<DeviceLimit> deviceLimits(const LinkInfo& l) {
  std::vector<DeviceLimit> out;
  for (DeviceLimit d : {DeviceLimit{"num_tx_queues", "numtxqueues", &l.numTxQueues},
                        DeviceLimit{"num_rx_queues", "numrxqueues", &l.numRxQueues},
                        DeviceLimit{"gso_max_size", "gso_max_size", &l.gsoMaxSize},
                        DeviceLimit{"gso_max_segs", "gso_max_segs", &l.gsoMaxSegs},
                        DeviceLimit{"tso_max_size", "tso_max_size", &l.tsoMaxSize},
                        DeviceLimit{"tso_max_segs", "tso_max_segs", &l.tsoMaxSegs},
                        DeviceLimit{"gro_max_size", "gro_max_size", &l.groMaxSize}})
    if (*d.value) out.push_back(d);
  return out;
}

/// What `ip -d link show` adds, from the end of the link/ line on, laid out as ip does:
/// " promiscuity N  allmulti N minmtu N maxmtu N", a line with the kind and its options, a line
/// `KIND_slave` for a port, then addrgenmode, queue counts and offload limits continuing the
/// last line. ip ends each piece with a blank, also before its line breaks; fastlink keeps
/// those only for -o, where they stand before the `\` (scripts split on them).
std::string detailsText(const LinkInfo& l, const DeviceNames& peers, bool oneline) {
  std::string d;
  if (l.promiscuity) d += fmt::format(" promiscuity {} ", *l.promiscuity);
  if (l.allmulti) d += fmt::format(" allmulti {} ", *l.allmulti);
  if (l.minMtu) d += fmt::format("minmtu {} ", *l.minMtu);
  if (l.maxMtu) d += fmt::format("maxmtu {} ", *l.maxMtu);
  if (l.kind) {
    d += "\n    " + *l.kind + " ";
    for (const auto& opt : kindOptions(l, peers))
      if (!opt.text.empty()) d += opt.text + " ";  // empty: a key iproute2 prints in JSON only
  }
  if (l.slaveKind) {
    d += "\n    " + *l.slaveKind + "_slave ";
    if (auto opts = portOptions(l, peers))
      for (const auto& opt : *opts)
        if (!opt.text.empty()) d += opt.text + " ";
  }
  if (l.addrGenMode) d += fmt::format("addrgenmode {} ", addrGenModeName(*l.addrGenMode));
  for (const auto& [key, word, value] : deviceLimits(l)) d += fmt::format("{} {} ", word, **value);
  std::string out;
  out.reserve(d.size());
  for (char c : d) {
    if (c == '\n' && !oneline)
      while (!out.empty() && out.back() == ' ') out.pop_back();
    out += c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  // Without promiscuity (never on a real kernel) the first word still needs its blank.
  if (!out.empty() && out[0] != ' ' && out[0] != '\n') out.insert(out.begin(), ' ');
  return out;
}

json linkJson(const LinkInfo& l, const DeviceNames& peers, const GlobalOptions& o, bool addrStyle) {
  json j = json::object();
  if (l.index) j["ifindex"] = *l.index;
  LowerDevice lower = lowerDevice(l, peers);
  if (lower.index && lower.otherNetns) j["link_index"] = lower.index;
  else if (lower.index) j["link"] = nameOf(peers, lower.index);
  if (l.name) j["ifname"] = *l.name;
  j["flags"] = linkFlagNames(l.flags.value_or(0), lower.index && lower.down);
  if (l.mtu) j["mtu"] = *l.mtu;
  if (l.xdp && l.xdp->attached()) j["xdp"] = xdpJson(*l.xdp, o.details, lookUpXdpProgram);
  if (l.qdisc) j["qdisc"] = *l.qdisc;
  if (l.masterIndex()) j["master"] = nameOf(peers, l.masterIndex());
  if (l.operState) j["operstate"] = *l.operState;
  if (l.linkMode && !addrStyle) j["linkmode"] = *l.linkMode;  // `ip addr` leaves the mode out
  if (l.group) j["group"] = groupName(*l.group);
  if (l.txqlen) j["txqlen"] = *l.txqlen;
  if (l.type) j["link_type"] = linkTypeName(*l.type);
  if (l.address) j["address"] = l.address->toString();
  if (l.broadcast) j["broadcast"] = l.broadcast->toString();
  if (l.linkNetnsId) j["link_netnsid"] = *l.linkNetnsId;
  if (o.details) {
    if (l.promiscuity) j["promiscuity"] = *l.promiscuity;
    if (l.allmulti) j["allmulti"] = *l.allmulti;
    if (l.minMtu) j["min_mtu"] = *l.minMtu;
    if (l.maxMtu) j["max_mtu"] = *l.maxMtu;
    if (l.kind || l.slaveKind) {
      json info = json::object();
      if (l.kind) info["info_kind"] = *l.kind;
      auto opts = kindOptions(l, peers);
      if (!opts.empty()) {
        json data = json::object();
        for (auto& opt : opts)
          if (!opt.value.is_null()) data[opt.key] = opt.value;  // null: a word iproute2 prints in text only
        info["info_data"] = data;
      }
      if (l.slaveKind) info["info_slave_kind"] = *l.slaveKind;
      if (auto opts = portOptions(l, peers)) {
        json data = json::object();  // ip prints it also when empty
        for (auto& opt : *opts)
          if (!opt.value.is_null()) data[opt.key] = opt.value;
        info["info_slave_data"] = data;
      }
      j["linkinfo"] = info;
    }
    if (l.addrGenMode) j["inet6_addr_gen_mode"] = addrGenModeName(*l.addrGenMode);
    for (const auto& [key, word, value] : deviceLimits(l)) j[key] = **value;
  }
  if (l.alias && !l.alias->empty()) j["ifalias"] = *l.alias;
  if (o.stats && l.stats) j["stats64"] = statsJson(*l.stats, l.carrierChanges, o.stats > 1);
  return j;
}

std::size_t digitCount(uint64_t v) {
  std::size_t n = 1;
  while (v >= 10) v /= 10, ++n;
  return n;
}

/// `-s` (and `-s -s`, `twice`) as ip prints them: seven columns, each as wide as its header's
/// widest word or its widest number, whichever is wider, shared by the RX and TX blocks (and the
/// error rows); a column for compressed packets (nohandler, carrier transitions) only when there
/// is something in it.
/// A counter as ip's print_num writes it with -human: below 1000 (1024 with -iec) as it is,
/// else scaled to the largest power that leaves at least 1, with 2 decimals below 10, 1 below
/// 100, none from 100 on, and the prefix (k M G T P E, `Mi` with -iec).
std::string humanCount(uint64_t count, bool iec) {
  const uint64_t base = iec ? 1024 : 1000;
  if (count < base) return std::to_string(count);
  const char* prefix = "kMGTPE";
  uint64_t power = 1;
  for (;;) {
    power *= base;
    if (count / base < power || !prefix[1]) break;
    ++prefix;
  }
  int precision = 2;
  for (uint64_t ten = 1; precision > 0; --precision) {
    ten *= 10;
    if (count / power < ten) break;
  }
  return fmt::format("{:.{}f}{}{}", static_cast<double>(count) / static_cast<double>(power), precision, *prefix,
                     iec ? "i" : "");
}

void printStats(OutBuffer& out, const LinkStats& s, std::optional<uint32_t> carrierChanges, bool twice,
                const GlobalOptions& o) {
  std::array<std::size_t, 7> cols = {10, 7, 6, 7, 7, 7, 10};
  // ip's size_columns: with -human the columns keep their headers' widths.
  auto size = [&](std::array<uint64_t, 7> v) {
    for (std::size_t i = 0; i < cols.size() && !o.human; ++i) cols[i] = std::max(cols[i], digitCount(v[i]));
  };
  size({s.rxBytes, s.rxPackets, s.rxErrors, s.rxDropped, s.rxMissedErrors, s.multicast, s.rxCompressed});
  size({s.txBytes, s.txPackets, s.txErrors, s.txDropped, s.txCarrierErrors, s.collisions, s.txCompressed});
  if (twice) {
    size({0, s.rxLengthErrors, s.rxCrcErrors, s.rxFrameErrors, s.rxFifoErrors, s.rxOverErrors, s.rxNohandler});
    size({0, s.txAbortedErrors, s.txFifoErrors, s.txWindowErrors, s.txHeartbeatErrors, carrierChanges.value_or(0), 0});
  }
  // Laid out as ip's fprintf formats do (a blank after each cell), then without trailing blanks
  // except with -o, where ip's stand before the `\` (as detailsText keeps them).
  auto line = [&](std::string text) {
    while (!o.oneline && !text.empty() && text.back() == ' ') text.pop_back();
    out.put(text).put('\n');
  };
  auto cell = [](const auto& v, std::size_t width) { return fmt::format("{:>{}}", v, width); };
  auto header = [&](std::string_view label, std::array<std::string_view, 7> words) {
    std::string text(label);
    for (std::size_t i = 0; i < words.size(); ++i) text += " " + cell(words[i], i == 0 ? cols[0] - 4 : cols[i]);
    line(text);
  };
  auto errorHeader = [&](std::string_view label, std::array<std::string_view, 6> words) {
    std::string text = std::string(label) + std::string(cols[0] - 10, ' ');
    for (std::size_t i = 0; i < words.size(); ++i) text += " " + cell(words[i], cols[i + 1]);
    while (!text.empty() && text.back() == ' ') text.pop_back();  // ip's ends at its last word, -o too
    line(text);
  };
  // `first`: the column of the first value; the columns before it are blank.
  auto numbers = [&](std::size_t indent, std::size_t first, std::initializer_list<std::optional<uint64_t>> values) {
    std::string text(indent, ' ');
    std::size_t i = first;
    for (const auto& v : values) {
      if (v) text += (o.human ? cell(humanCount(*v, o.iec), cols[i]) : cell(*v, cols[i])) + " ";
      ++i;
    }
    line(text);
  };
  auto some = [](uint64_t v) { return v ? std::optional<uint64_t>(v) : std::nullopt; };
  header("    RX:", {"bytes", "packets", "errors", "dropped", "missed", "mcast", s.rxCompressed ? "compressed" : ""});
  numbers(4, 0, {s.rxBytes, s.rxPackets, s.rxErrors, s.rxDropped, s.rxMissedErrors, s.multicast, some(s.rxCompressed)});
  if (twice) {
    errorHeader("    RX errors:", {"length", "crc", "frame", "fifo", "overrun", s.rxNohandler ? "nohandler" : ""});
    numbers(cols[0] + 5, 1, {s.rxLengthErrors, s.rxCrcErrors, s.rxFrameErrors, s.rxFifoErrors, s.rxOverErrors, some(s.rxNohandler)});
  }
  header("    TX:", {"bytes", "packets", "errors", "dropped", "carrier", "collsns", s.txCompressed ? "compressed" : ""});
  numbers(4, 0, {s.txBytes, s.txPackets, s.txErrors, s.txDropped, s.txCarrierErrors, s.collisions, some(s.txCompressed)});
  if (twice) {
    errorHeader("    TX errors:", {"aborted", "fifo", "window", "heartbt", carrierChanges ? "transns" : "", ""});
    std::optional<uint64_t> transitions;
    if (carrierChanges) transitions = *carrierChanges;
    numbers(cols[0] + 5, 1, {s.txAbortedErrors, s.txFifoErrors, s.txWindowErrors, s.txHeartbeatErrors, transitions});
  }
}

void putName(OutBuffer& out, const DeviceNames& peers, uint32_t index) {
  if (const std::string* name = peers.find(index)) out.put(*name);
  else out.put("if").putUint(index);
}

void putGroup(OutBuffer& out, uint32_t group) {
  if (group == 0 && !ipNameOptions.numeric) out.put("default");
  else out.putUint(group);
}

/// NAME, or NAME@LOWER as ip prints it ("v1@v0", "v1@if5" in another namespace).
void putNameAt(OutBuffer& out, std::optional<std::string_view> name, const DeviceNames& peers, const LowerDevice& lower) {
  out.put(name ? *name : "?");
  if (lower.index) {
    out.put('@');
    if (lower.otherNetns) out.put("if").putUint(lower.index);
    else putName(out, peers, lower.index);
  }
}

std::optional<std::string_view> viewOf(const std::optional<std::string>& s) {
  return s ? std::optional<std::string_view>(*s) : std::nullopt;
}

/// A LinkInfo read through LinkView's accessors, so that one printer serves the owning objects
/// (`link show dev X`, -d, -s, `addr show`) and the views of a plain dump.
class InfoFields {
 public:
  explicit InfoFields(const LinkInfo& l) : l_(l) {}
  uint32_t index() const { return l_.index.value_or(0); }
  std::optional<std::string_view> name() const { return viewOf(l_.name); }
  uint32_t flags() const { return l_.flags.value_or(0); }
  std::optional<uint32_t> mtu() const { return l_.mtu; }
  const std::optional<XdpStatus>& xdp() const { return l_.xdp; }
  std::optional<std::string_view> qdisc() const { return viewOf(l_.qdisc); }
  uint32_t masterIndex() const { return l_.masterIndex(); }
  std::optional<std::string_view> operState() const { return viewOf(l_.operState); }
  std::optional<std::string_view> linkMode() const { return viewOf(l_.linkMode); }
  std::optional<uint32_t> group() const { return l_.group; }
  std::optional<uint32_t> txqlen() const { return l_.txqlen; }
  std::optional<uint16_t> linkType() const { return l_.type; }
  const std::optional<MacAddress>& address() const { return l_.address; }
  const std::optional<MacAddress>& broadcast() const { return l_.broadcast; }
  std::optional<int32_t> linkNetnsId() const { return l_.linkNetnsId; }
  std::optional<std::string_view> alias() const { return viewOf(l_.alias); }
  const std::optional<LinkStats>& stats() const { return l_.stats; }
  std::optional<uint32_t> carrierChanges() const { return l_.carrierChanges; }

 private:
  const LinkInfo& l_;
};

std::optional<uint16_t> linkTypeOf(const LinkView& l) { return l.type(); }
template <class Link>
std::optional<uint16_t> linkTypeOf(const Link& l) { return l.linkType(); }

/// A link as `address show` prints it: without what ip's link dump for that listing leaves out
/// (see LinkRecordHooks::inet6View), and without the link/ line's fields where the listing
/// prints no such line (JSON leaves them out as well).
template <class Link>
class AddrStyleFields {
 public:
  AddrStyleFields(const Link& l, const LinkRecordHooks& hooks)
      : l_(l), inet6_(hooks.inet6View), linkLine_(hooks.linkLine && !hooks.inet6View) {}
  uint32_t index() const { return l_.index(); }
  std::optional<std::string_view> name() const { return l_.name(); }
  uint32_t flags() const { return l_.flags(); }
  std::optional<uint32_t> mtu() const { return l_.mtu(); }
  std::optional<XdpStatus> xdp() const { return l_.xdp(); }
  std::optional<std::string_view> qdisc() const { return inet6_ ? std::nullopt : l_.qdisc(); }
  uint32_t masterIndex() const { return inet6_ ? 0 : l_.masterIndex(); }
  std::optional<std::string_view> operState() const { return l_.operState(); }
  std::optional<std::string_view> linkMode() const { return std::nullopt; }  // `ip addr` leaves the mode out
  std::optional<uint32_t> group() const { return inet6_ ? std::nullopt : l_.group(); }
  std::optional<uint32_t> txqlen() const { return l_.txqlen(); }
  std::optional<uint16_t> linkType() const { return linkLine_ ? linkTypeOf(l_) : std::nullopt; }
  std::optional<MacAddress> address() const { return linkLine_ ? l_.address() : std::nullopt; }
  std::optional<MacAddress> broadcast() const { return linkLine_ ? l_.broadcast() : std::nullopt; }
  std::optional<int32_t> linkNetnsId() const { return l_.linkNetnsId(); }
  std::optional<std::string_view> alias() const { return l_.alias(); }
  std::optional<LinkStats> stats() const { return l_.stats(); }
  std::optional<uint32_t> carrierChanges() const { return l_.carrierChanges(); }

 private:
  const Link& l_;
  bool inet6_;
  bool linkLine_;
};

/// Two lines (more with -d, -s) as `ip link show` prints them, written straight to the buffer.
/// `full` (the owning object) is needed for -d only; a view is printed without it (-s reads the
/// counters from the view: a dump asked for them).
template <class Link>
void printLinkLines(OutBuffer& out, const Link& l, const LowerDevice& lower, const DeviceNames& peers,
                    const GlobalOptions& o, bool addrStyle, bool linkLine, const LinkInfo* full, NetnsNames& netns) {
  out.putUint(l.index()).put(": ");
  putNameAt(out, l.name(), peers, lower);
  out.put(": <");
  putFlags(out, l.flags(), lower.index && lower.down);
  out.put('>');
  if (auto mtu = l.mtu()) out.put(" mtu ").putUint(*mtu);
  const std::optional<XdpStatus>& xdp = l.xdp();
  if (xdp && xdp->attached()) out.put(' ').put(xdpModeWord(*xdp));
  if (auto qdisc = l.qdisc()) out.put(" qdisc ").put(*qdisc);
  if (uint32_t master = l.masterIndex()) putName(out.put(" master "), peers, master);
  if (auto state = l.operState()) out.put(" state ").put(*state);
  if (auto mode = l.linkMode(); mode && !addrStyle) out.put(" mode ").put(*mode);
  if (auto group = l.group()) putGroup(out.put(" group "), *group);
  if (auto qlen = l.txqlen()) out.put(" qlen ").putUint(*qlen);
  out.put('\n');
  if (!linkLine) return;
  out.put("    link/");
  std::optional<uint16_t> type = linkTypeOf(l);
  if (!type) out.put("none");
  else if (const char* known = ipNameOptions.numeric ? nullptr : knownLinkTypeName(*type)) out.put(known);
  else out.put(linkTypeName(*type));
  if (const auto& address = l.address()) out.put(' ').putMac(*address);
  if (const auto& broadcast = l.broadcast()) out.put(" brd ").putMac(*broadcast);
  if (auto netnsid = l.linkNetnsId()) {
    if (const std::string* name = netns.nameOf(*netnsid)) out.put(" link-netns ").put(*name);
    else out.put(" link-netnsid ").putInt(*netnsid);
  }
  if (o.details && full) out.put(detailsText(*full, peers, o.oneline));
  out.put('\n');

  if (auto alias = l.alias(); alias && !alias->empty()) out.put("    alias ").put(*alias).put('\n');
  if (xdp && xdp->attached()) out.put(xdpProgramLines(*xdp, o.details, lookUpXdpProgram));
  if (o.stats)
    if (const std::optional<LinkStats>& stats = l.stats()) printStats(out, *stats, l.carrierChanges(), o.stats > 1, o);
}

/// Left-aligns what `write` prints in `width` columns, then one blank (ip's "%-16s ").
template <typename Write>
void putColumn(OutBuffer& out, std::size_t width, Write write) {
  std::size_t start = out.held();
  write();
  for (std::size_t n = out.held() - start; n < width; ++n) out.put(' ');
  out.put(' ');
}

/// `ip -br link` / `ip -br addr`: name, state, then the object's columns (`record`: the
/// device the hooks print for).
template <class Link>
void printBrief(OutBuffer& out, const Link& l, const LowerDevice& lower, const DeviceNames& peers,
                const LinkRecordHooks* hooks, const LinkRecord& record) {
  putColumn(out, 16, [&] { putNameAt(out, l.name(), peers, lower); });
  putColumn(out, 14, [&] { out.put(l.operState().value_or("UNKNOWN")); });
  if (hooks && hooks->briefText) {
    hooks->briefText(out, record);
  } else {
    if (auto address = l.address()) out.putMac(*address).put(' ');
    out.put('<');
    putFlags(out, l.flags(), lower.index && lower.down);
    out.put("> ");
  }
  out.put('\n');
}

json briefJson(const LinkInfo& l, const DeviceNames& peers, const LinkRecordHooks* hooks) {
  json j = json::object();
  LowerDevice lower = lowerDevice(l, peers);
  if (lower.index && !lower.otherNetns) j["link"] = nameOf(peers, lower.index);  // ip's order
  if (l.name) j["ifname"] = *l.name;
  j["operstate"] = l.operState.value_or("UNKNOWN");
  if (!hooks) {
    if (l.address) j["address"] = l.address->toString();
    j["flags"] = linkFlagNames(l.flags.value_or(0), lower.index && lower.down);
  }
  return j;
}

void printLinkText(OutBuffer& out, const LinkInfo& l, const DeviceNames& peers, const GlobalOptions& o, bool addrStyle,
                   bool linkLine, NetnsNames& netns) {
  printLinkLines(out, InfoFields(l), lowerDevice(l, peers), peers, o, addrStyle, linkLine, &l, netns);
}

/// nameOf() as a JSON string value.
void jsonName(JsonOut& j, const DeviceNames& peers, uint32_t index) {
  if (const std::string* name = peers.find(index)) j.value(std::string_view(*name));
  else j.rawValue().put("\"if").putUint(index).put('"');
}

/// `ip -j link show` (no -d, -s) of a view, streamed: the keys and values of linkJson in its
/// order; `more` adds the record's own fields (`address show`: addr_info) before it is closed.
template <class Link, class More>
void linkJsonOut(JsonOut& j, const Link& l, const LowerDevice& lower, const DeviceNames& peers, More more) {
  j.beginObject();
  j.field("ifindex", l.index());
  if (lower.index && lower.otherNetns) j.field("link_index", lower.index);
  else if (lower.index) jsonName(j.key("link"), peers, lower.index);
  if (auto name = l.name()) j.field("ifname", *name);
  j.key("flags").beginArray();
  forEachLinkFlagWord(l.flags(), lower.index && lower.down, [&](std::string_view w) { j.value(w); });
  j.endArray();
  if (auto mtu = l.mtu()) j.field("mtu", *mtu);
  if (auto xdp = l.xdp(); xdp && xdp->attached()) {
    j.key("xdp");
    j.rawValue().put(xdpJson(*xdp, false, lookUpXdpProgram).dump());  // compact output only
  }
  if (auto qdisc = l.qdisc()) j.field("qdisc", *qdisc);
  if (uint32_t master = l.masterIndex()) jsonName(j.key("master"), peers, master);
  if (auto state = l.operState()) j.field("operstate", *state);
  if (auto mode = l.linkMode()) j.field("linkmode", *mode);
  if (auto group = l.group()) {
    if (*group == 0 && !ipNameOptions.numeric) j.field("group", "default");
    else j.key("group").rawValue().put('"').putUint(*group).put('"');
  }
  if (auto qlen = l.txqlen()) j.field("txqlen", *qlen);
  if (std::optional<uint16_t> type = linkTypeOf(l)) {
    if (const char* known = ipNameOptions.numeric ? nullptr : knownLinkTypeName(*type)) j.field("link_type", known);
    else j.field("link_type", linkTypeName(*type));
  }
  if (auto address = l.address()) j.key("address").rawValue().put('"').putMac(*address).put('"');
  if (auto broadcast = l.broadcast()) j.key("broadcast").rawValue().put('"').putMac(*broadcast).put('"');
  if (auto netnsid = l.linkNetnsId()) j.field("link_netnsid", static_cast<int64_t>(*netnsid));
  if (auto alias = l.alias(); alias && !alias->empty()) j.field("ifalias", *alias);
  more();
  j.endObject();
  j.endElement();
}

/// `ip -j -br link` (briefJson) of a view, streamed; `more` adds the record's own fields.
template <class Link, class More>
void briefJsonOut(JsonOut& j, const Link& l, const LowerDevice& lower, const DeviceNames& peers, bool hooked, More more) {
  j.beginObject();
  if (lower.index && !lower.otherNetns) jsonName(j.key("link"), peers, lower.index);  // ip's order
  if (auto name = l.name()) j.field("ifname", *name);
  j.field("operstate", l.operState().value_or("UNKNOWN"));
  if (!hooked) {
    if (auto address = l.address()) j.key("address").rawValue().put('"').putMac(*address).put('"');
    j.key("flags").beginArray();
    forEachLinkFlagWord(l.flags(), lower.index && lower.down, [&](std::string_view w) { j.value(w); });
    j.endArray();
  }
  more();
  j.endObject();
  j.endElement();
}

/// What `hook` streams into a JSON object, merged into `j` (a document built from LinkInfo):
/// the hook's fields are written once, by the streaming writer, whichever path prints them.
void addStreamedFields(json& j, const std::function<void(JsonOut&, const LinkRecord&)>& hook, const LinkRecord& r) {
  char* text = nullptr;
  std::size_t size = 0;
  std::FILE* stream = open_memstream(&text, &size);
  if (!stream) throw std::bad_alloc();
  {
    OutBuffer buffer(stream, 0);
    JsonOut out(buffer, false, JsonOut::Layout::Lines);
    out.beginObject();
    hook(out, r);
    out.endObject();
    out.endElement();
  }
  std::fclose(stream);
  json fields = json::parse(std::string_view(text, size));
  std::free(text);
  for (auto& [key, value] : fields.items()) j[key] = std::move(value);
}

LinkRecord recordOf(const LinkInfo& l) {
  return {l.index.value_or(0), l.name ? std::string_view(*l.name) : "?", l.isUp()};
}

LinkRecord recordOf(const LinkView& l) { return {l.index(), l.name().value_or("?"), l.isUp()}; }

struct ShowQuery {
  std::optional<std::string> dev;
  std::optional<std::string> master;
  LinkFilter filter;
  bool upOnly = false;
  bool noMaster = false;  ///< ip's `nomaster`: devices that are no device's port
};

ShowQuery parseShow(Args& args) {
  ShowQuery q;
  while (!args.done()) {
    if (args.accept("dev")) q.dev = parseIfname(args.value("dev"), "dev");
    else if (args.accept("type")) q.filter.kind = args.value("type");
    else if (args.accept("master")) q.master = parseIfname(args.value("master"), "master");
    else if (args.accept("group")) {
      std::string g = args.value("group");
      q.filter.group = g == "default" ? 0 : parseU32(g, "group");
    } else if (args.accept("up")) q.upOnly = true;
    else if (args.accept("nomaster")) q.noMaster = true;
    else if (args.peek() == "vrf")  // not a device name: ip's VRF selector, which fastlink lacks
      throw UsageError("link show vrf: not supported by fastlink (the ports of a VRF: link show master VRF)");
    else if (!q.dev && args.peek() != "help") q.dev = parseIfname(args.next(), "dev");
    else args.unknown("link show takes: [dev] NAME, type KIND, master DEV, nomaster, group GROUP, up");
  }
  return q;
}

bool keep(const LinkInfo& l, const ShowQuery& q, uint32_t masterIndex) {
  if (q.upOnly && !l.isUp()) return false;
  if (q.filter.group && l.group != q.filter.group) return false;
  if (q.filter.kind && l.kind != q.filter.kind) return false;
  if (q.master && l.masterIndex() != masterIndex) return false;
  if (q.noMaster && l.masterIndex()) return false;
  return true;
}

bool keep(const LinkView& l, const ShowQuery& q, uint32_t masterIndex) {
  if (q.upOnly && !l.isUp()) return false;
  if (q.filter.group && l.group() != q.filter.group) return false;
  if (q.filter.kind && l.kind() != q.filter.kind) return false;
  if (q.master && l.masterIndex() != masterIndex) return false;
  if (q.noMaster && l.masterIndex()) return false;
  return true;
}

/// The ifindexes a link's lines name (master, lower device, devices in its kind options).
std::vector<uint32_t> references(const LinkInfo& l) {
  std::vector<uint32_t> refs;
  if (l.masterIndex()) refs.push_back(l.masterIndex());
  uint32_t parent = l.parentIndex();
  if (parent && !(l.index && parent == *l.index) && !l.linkNetnsId) refs.push_back(parent);
  if (const CliLinkKind* cli = l.kind ? findCliLinkKind(*l.kind) : nullptr; cli && cli->devices) {
    auto more = cli->devices(l);
    refs.insert(refs.end(), more.begin(), more.end());
  }
  if (const CliLinkKind* master = l.slaveKind ? findCliLinkKind(*l.slaveKind) : nullptr; master && master->portDevices) {
    auto more = master->portDevices(l);
    refs.insert(refs.end(), more.begin(), more.end());
  }
  return refs;
}

/// Prints links in dump order as they arrive. A link that names a device not seen yet (a veth
/// whose peer comes next, a master listed later) waits, and the links after it with it, until
/// that device arrives; what still waits at the end of the dump is printed after one more dump
/// fills in the names (a kind- or master-filtered dump lists only some devices). Memory: the
/// names and flags of the devices seen, plus the waiting links (usually none or one).
///
/// With `views` (a plain `link show` or `addr show`, -o, -br, or compact -j without -br: no -d, -s) the
/// dump is printed from views over the receive buffer: nothing is decoded into a LinkInfo, and a
/// waiting link is a copy of its message in one reused arena, viewed again when it is printed.
/// JSON is then streamed (JsonOut) instead of built as a document. Otherwise each link is a
/// LinkInfo, as the -d, -s, `-br -j` and `dev X` printers need.
class LinkStream {
 public:
  LinkStream(const ShowQuery& q, uint32_t masterIndex, const GlobalOptions& o, OutBuffer& out,
             std::optional<JsonArrayWriter>& json, const LinkRecordHooks* hooks = nullptr, bool views = false)
      : q_(q), masterIndex_(masterIndex), o_(o), out_(out), json_(json), hooks_(hooks), netns_(o.netns) {
    if (views && o.json) jsonOut_.emplace(out, false);
  }

  void add(const LinkView& l) {
    if (auto name = l.name()) peers_.remember(l.index(), *name, l.flags());
    if (keep(l, q_, masterIndex_)) {
      if (parked_.empty() && resolved(l)) print(l);
      else park(l);
    }
    while (!parked_.empty()) {
      LinkView front = parkedView(parked_.front());
      if (!resolved(front)) break;
      print(front);
      parked_.pop_front();
    }
    if (parked_.empty()) arena_.clear();
  }

  void add(const LinkInfo& l) {
    if (l.index && l.name) peers_.remember(*l.index, *l.name, l.flags.value_or(0));
    if (keep(l, q_, masterIndex_)) {
      if (waiting_.empty() && resolved(l)) print(l);
      else waiting_.push_back(l);
    }
    while (!waiting_.empty() && resolved(waiting_.front())) {
      print(waiting_.front());
      waiting_.pop_front();
    }
  }
  void restart() {
    peers_.clear();
    waiting_.clear();
    parked_.clear();
    arena_.clear();
    if (jsonOut_) jsonOut_->restartDump();
    else if (json_) json_->restartDump();
    else out_.restartDump();
  }
  /// End of the dump: names still missing come from one dump of every device.
  void finish(Netlink& netlink) {
    if (!waiting_.empty() || !parked_.empty()) {
      forEachLink(netlink, {}, [&](const LinkView& l) {
        if (auto name = l.name(); name && !peers_.knows(l.index())) peers_.remember(l.index(), *name, l.flags());
      });
      for (const auto& l : waiting_) print(l);
      waiting_.clear();
      for (const auto& at : parked_) print(parkedView(at));
      parked_.clear();
    }
    if (jsonOut_) jsonOut_->finish();
    if (json_) json_->finish();
    out_.flush();
  }

 private:
  bool resolved(const LinkInfo& l) const {
    for (uint32_t ref : references(l))
      if (!peers_.knows(ref)) return false;
    return true;
  }
  /// references() of a view: the master and lower device read from it; a kind whose options
  /// (or whose ports' data) name devices is decoded for them.
  bool resolved(const LinkView& l) {
    if (uint32_t master = l.masterIndex(); master && !peers_.knows(master)) return false;
    uint32_t parent = l.parent().value_or(0);
    if (parent && parent != l.index() && !l.linkNetnsId() && !peers_.knows(parent)) return false;
    if (namesDevices(l.kind(), false) || namesDevices(l.slaveKind(), true)) return resolved(l.toInfo());
    return true;
  }
  /// Whether the CLI kind `kind` lists devices in its options (`port`: in its ports' data);
  /// the last answer is kept (a dump is mostly one kind).
  bool namesDevices(std::optional<std::string_view> kind, bool port) {
    if (!kind) return false;
    KindMemo& memo = port ? portKind_ : kind_;
    if (!memo.known || memo.kind != *kind) {
      const CliLinkKind* cli = findCliLinkKind(*kind);
      memo = {true, std::string(*kind), cli && (port ? bool(cli->portDevices) : bool(cli->devices))};
    }
    return memo.namesDevices;
  }
  LinkView parkedView(std::pair<std::size_t, std::size_t> at) const {
    return LinkView(std::span<const uint8_t>(arena_.data() + at.first, at.second));
  }
  /// Keeps a copy of the view's message (4-byte aligned in the arena) until it can be printed.
  void park(const LinkView& l) {
    std::span<const uint8_t> m = l.message();
    std::size_t at = (arena_.size() + 3) & ~std::size_t{3};
    arena_.resize(at);
    arena_.insert(arena_.end(), m.begin(), m.end());
    parked_.emplace_back(at, m.size());
  }
  void print(const LinkView& l) {
    if (!hooks_) return printView(l, lowerDevice(l, peers_), nullptr);
    LinkRecord record = recordOf(l);
    if (hooks_->keep && !hooks_->keep(record)) return;
    printView(AddrStyleFields(l, *hooks_), lowerDevice(l, peers_), &record);
  }
  /// A view's record; `record` (with hooks) is the device the hooks print for.
  template <class Link>
  void printView(const Link& l, const LowerDevice& lower, const LinkRecord* record) {
    if (jsonOut_) {
      auto more = [&] {
        if (hooks_ && hooks_->json) hooks_->json(*jsonOut_, *record);
      };
      if (o_.brief) return briefJsonOut(*jsonOut_, l, lower, peers_, hooks_ != nullptr, more);
      return linkJsonOut(*jsonOut_, l, lower, peers_, more);
    }
    if (o_.brief) {
      printBrief(out_, l, lower, peers_, hooks_, record ? *record : LinkRecord{});
      return out_.endRecord();
    }
    std::size_t mark = out_.held();
    bool header = !hooks_ || hooks_->header;
    if (header) printLinkLines(out_, l, lower, peers_, o_, hooks_ != nullptr, !hooks_ || hooks_->linkLine, nullptr, netns_);
    if (hooks_ && hooks_->text) hooks_->text(out_, *record);
    if (o_.oneline && header) out_.joinLines(mark);
    out_.endRecord();
  }
  void print(const LinkInfo& full) {
    LinkRecord record = recordOf(full);
    if (hooks_ && hooks_->keep && !hooks_->keep(record)) return;
    std::optional<LinkInfo> reduced;
    if (hooks_ && hooks_->inet6View) {
      reduced = full;
      reduced->qdisc.reset(), reduced->group.reset(), reduced->master.reset(), reduced->type.reset();
      reduced->address.reset(), reduced->broadcast.reset(), reduced->linkMode.reset();
    } else if (hooks_ && !hooks_->linkLine) {
      reduced = full;  // what the link/ether line shows is left out of the JSON as well
      reduced->type.reset(), reduced->address.reset(), reduced->broadcast.reset();
    }
    const LinkInfo& l = reduced ? *reduced : full;
    if (json_) {
      json j = o_.brief ? briefJson(l, peers_, hooks_) : linkJson(l, peers_, o_, hooks_ != nullptr);
      if (hooks_ && hooks_->json) addStreamedFields(j, hooks_->json, record);
      json_->add(j);
      return;
    }
    std::size_t mark = out_.held();
    if (o_.brief) {
      printBrief(out_, InfoFields(l), lowerDevice(l, peers_), peers_, hooks_, record);
    } else {
      if (!hooks_ || hooks_->header) printLinkText(out_, l, peers_, o_, hooks_ != nullptr, !hooks_ || hooks_->linkLine, netns_);
      if (hooks_ && hooks_->text) hooks_->text(out_, record);
      if (o_.oneline && (!hooks_ || hooks_->header)) out_.joinLines(mark);
    }
    out_.endRecord();
  }

  const ShowQuery& q_;
  uint32_t masterIndex_;
  const GlobalOptions& o_;
  OutBuffer& out_;
  std::optional<JsonArrayWriter>& json_;
  const LinkRecordHooks* hooks_;
  NetnsNames netns_;
  DeviceNames peers_;
  std::deque<LinkInfo> waiting_;
  // The views' side: streamed JSON, parked messages (offset, length in arena_).
  std::optional<JsonOut> jsonOut_;
  std::vector<uint8_t> arena_;
  std::deque<std::pair<std::size_t, std::size_t>> parked_;
  struct KindMemo {
    bool known = false;
    std::string kind;
    bool namesDevices = false;
  };
  KindMemo kind_, portKind_;
};

std::string deviceMissing(const std::string& name) { return fmt::format("Device \"{}\" does not exist.", name); }

}  // namespace

namespace {

/// Prints DEV, or every link the query keeps, as the dump arrives (LinkStream); HOOKS, when
/// given, print other records (addresses) under each link.
int streamLinks(Netlink& netlink, const ShowQuery& q, uint32_t masterIndex, const GlobalOptions& o,
                const std::optional<std::string>& dev, const LinkRecordHooks* hooks) {
  LinkApi& api = netlink.links();
  OutBuffer out;
  // A whole dump printed as ip prints it without -d (and JSON compact) goes by views; -s too in
  // text of links (the JSON document and `addr show`'s records take them from LinkInfo).
  bool views = !dev && !o.details && !(o.stats && (o.json || hooks)) && !(o.json && o.pretty);
  std::optional<JsonArrayWriter> json;
  if (o.json && !views) json.emplace(out, o.pretty);
  LinkStream stream(q, masterIndex, o, out, json, hooks, views);
  if (dev) {
    auto l = api.find(*dev, q.filter.withStats);
    if (!l) {
      json.reset();
      return printError(deviceMissing(*dev)), kExitBadValue;  // ip: 1
    }
    stream.add(*l);
  } else if (views) {
    forEachLink(netlink, q.filter, [&](const LinkView& l) { stream.add(l); }, [&] { stream.restart(); });
  } else {
    api.forEach(q.filter, [&](const LinkInfo& l) { stream.add(l); }, [&] { stream.restart(); });
  }
  stream.finish(netlink);
  return kExitOk;
}

}  // namespace

int showLinkRecords(Context& ctx, const std::optional<std::string>& dev, const LinkRecordHooks& hooks) {
  try {
    return streamLinks(ctx.netlink(), ShowQuery{}, 0, ctx.options(), dev, &hooks);
  } catch (const Error& e) {
    return reportFailure(e);
  }
}

int showLinks(Context& ctx, Args& args) {
  ShowQuery q = parseShow(args);
  const GlobalOptions& o = ctx.options();
  LinkApi& api = ctx.netlink().links();
  try {
    uint32_t masterIndex = 0;
    if (q.master) {
      auto m = api.find(*q.master);
      if (!m) return printError(deviceMissing(*q.master)), kExitBadValue;
      masterIndex = *m->index;
      q.filter.setMaster(masterIndex);
    }
    q.filter.withStats = o.stats > 0;
    return streamLinks(ctx.netlink(), q, masterIndex, o, q.dev, nullptr);
  } catch (const Error& e) {
    return reportFailure(e);
  }
}

}  // namespace fastlink::cli
