#include "rtnl/link_show.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <deque>
#include <optional>
#include <span>
#include <stdexcept>

#include "fastlink/link_view.hpp"
#include "fastlink/link_view_reads.hpp"
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

std::string nameOf(const DeviceNames& peers, uint32_t index) {
  const std::string* name = peers.find(index);
  return name ? *name : fmt::format("if{}", index);
}

/// findCliLinkKind with its last answer kept: a dump is mostly one kind (and one kind of master),
/// so a listing looks each up once, not once per device.
class CliKindCache {
 public:
  const CliLinkKind* find(std::string_view kind) {
    if (!known_ || kind != kind_) kind_ = kind, cli_ = findCliLinkKind(kind), known_ = true;
    return cli_;
  }

 private:
  bool known_ = false;
  std::string kind_;
  const CliLinkKind* cli_ = nullptr;
};

/// The caches of devices' kinds and of their masters' kinds (IFLA_INFO_SLAVE_KIND).
CliKindCache& kinds() {
  static CliKindCache cache;
  return cache;
}
CliKindCache& portKinds() {
  static CliKindCache cache;
  return cache;
}

/// What `ip -d` prints of a device's kind, by the kind's file in cli/rtnl/link_kinds/, as
/// (key, JSON value, text) lists so text and JSON agree: the kind's options, and what its master
/// reports about it as a port (the words after `bridge_slave`; nullopt when iproute2 prints none
/// for that kind of master). The kind files read a LinkInfo holding IFLA_LINKINFO alone
/// (linkKindInfo), decoded only when one of them prints something: a veth costs nothing here.
struct KindPrint {
  std::vector<KindOption> options;
  std::optional<std::vector<KindOption>> port;
};

KindPrint kindPrint(const LinkView& l, std::optional<std::string_view> kind, std::optional<std::string_view> slaveKind,
                    const DeviceNames& peers) {
  KindPrint out;
  const CliLinkKind* cli = kind ? kinds().find(*kind) : nullptr;
  const CliLinkKind* master = slaveKind ? portKinds().find(*slaveKind) : nullptr;
  bool options = cli && cli->print, port = master && master->printPort;
  if (!options && !port) return out;
  LinkInfo info = linkKindInfo(l);
  NameOf name = [&](uint32_t index) { return nameOf(peers, index); };
  if (options) out.options = cli->print(info, name);
  if (port) out.port = master->printPort(info, name);
  return out;
}

/// The lower device of `l` as iproute2 shows it: a name ("@v1"), or "if5" in another namespace.
struct LowerDevice {
  uint32_t index = 0;
  bool otherNetns = false;
  bool down = false;
  /// IFLA_LINK sent as 0: a tunnel bound to no device, which ip prints "NAME@NONE" (JSON
  /// `"link": null`); a device that is its own lower device sends no IFLA_LINK at all.
  bool none = false;
};

constexpr uint16_t kIflaLink = 5;           // IFLA_LINK
constexpr uint16_t kIflaPermAddress = 54;   // IFLA_PERM_ADDRESS
constexpr uint16_t kIflaEvent = 44;         // IFLA_EVENT
constexpr uint32_t kIffPointToPoint = 0x10; // IFF_POINTOPOINT

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

LowerDevice lowerDevice(const LinkView& l, const DeviceNames& peers) {
  if (auto link = l.attribute(kIflaLink); link && link->size() >= 4) {
    uint32_t parent = 0;
    std::memcpy(&parent, link->data(), 4);
    if (parent == 0) {
      LowerDevice none;
      none.none = true;
      return none;
    }
  }
  return lowerDevice(l.index(), l.parent().value_or(0), l.linkNetnsId().has_value(), peers);
}

/// The counters of `ip -j -s` in ip's order: each direction's own, then (-s -s) its errors.
struct JsonCounter {
  const char* key;
  uint64_t LinkStats::*member;
};
constexpr JsonCounter kRxCounters[] = {{"bytes", &LinkStats::rxBytes},        {"packets", &LinkStats::rxPackets},
                                       {"errors", &LinkStats::rxErrors},      {"dropped", &LinkStats::rxDropped},
                                       {"over_errors", &LinkStats::rxOverErrors}, {"multicast", &LinkStats::multicast}};
constexpr JsonCounter kRxErrors[] = {{"length_errors", &LinkStats::rxLengthErrors}, {"crc_errors", &LinkStats::rxCrcErrors},
                                     {"frame_errors", &LinkStats::rxFrameErrors},   {"fifo_errors", &LinkStats::rxFifoErrors},
                                     {"missed_errors", &LinkStats::rxMissedErrors}};
constexpr JsonCounter kTxCounters[] = {{"bytes", &LinkStats::txBytes},   {"packets", &LinkStats::txPackets},
                                       {"errors", &LinkStats::txErrors}, {"dropped", &LinkStats::txDropped},
                                       {"carrier_errors", &LinkStats::txCarrierErrors}, {"collisions", &LinkStats::collisions}};
constexpr JsonCounter kTxErrors[] = {{"aborted_errors", &LinkStats::txAbortedErrors}, {"fifo_errors", &LinkStats::txFifoErrors},
                                     {"window_errors", &LinkStats::txWindowErrors},
                                     {"heartbeat_errors", &LinkStats::txHeartbeatErrors}};

/// `stats64` of `ip -j -s`, streamed; `-s -s` (`twice`) adds the error counters (and the
/// carrier changes after TX's), as ip.
void statsJsonOut(JsonOut& j, const LinkStats& s, std::optional<uint32_t> carrierChanges, bool twice) {
  auto direction = [&](const char* name, std::span<const JsonCounter> counters, std::span<const JsonCounter> errors,
                       std::optional<uint32_t> changes) {
    j.key(std::string_view(name)).beginObject();
    for (const auto& c : counters) j.field(std::string_view(c.key), s.*c.member);
    if (twice) {
      for (const auto& c : errors) j.field(std::string_view(c.key), s.*c.member);
      if (changes) j.field("carrier_changes", *changes);
    }
    j.endObject();
  };
  j.beginObject();
  direction("rx", kRxCounters, kRxErrors, std::nullopt);
  direction("tx", kTxCounters, kTxErrors, carrierChanges);
  j.endObject();
}

/// A value the kind files or the XDP printer built as a document, written through the stream
/// (numbers given as text, jsonNumberText(), as they are).
void putJsonValue(JsonOut& j, const json& v) {
  if (v.is_object()) {
    j.beginObject();
    for (const auto& [key, member] : v.items()) putJsonValue(j.key(std::string_view(key)), member);
    j.endObject();
  } else if (v.is_array()) {
    j.beginArray();
    for (const auto& element : v) putJsonValue(j, element);
    j.endArray();
  } else if (v.is_binary()) {
    const auto& bytes = v.get_binary();
    j.rawValue().put(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  } else {
    j.rawValue().put(v.dump());
  }
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

/// The queue counts and offload limits `ip -d` prints after the kind, in its order, each to
/// `each(JSON key, text word, value)`.
template <class Each>
void forEachDeviceLimit(const LinkView& l, Each each) {
  auto one = [&](const char* key, const char* word, std::optional<uint32_t> value) {
    if (value) each(key, word, *value);
  };
  one("num_tx_queues", "numtxqueues", l.numTxQueues());
  one("num_rx_queues", "numrxqueues", l.numRxQueues());
  one("gso_max_size", "gso_max_size", l.gsoMaxSize());
  one("gso_max_segs", "gso_max_segs", l.gsoMaxSegs());
  one("tso_max_size", "tso_max_size", l.tsoMaxSize());
  one("tso_max_segs", "tso_max_segs", l.tsoMaxSegs());
  one("gro_max_size", "gro_max_size", l.groMaxSize());
}

/// putDetails' words and blanks, written straight to the buffer: a piece's blanks are held until
/// the next word, so those before a line break (without -o) or at the end are never written.
class DetailsOut {
 public:
  DetailsOut(OutBuffer& out, bool oneline) : out_(out), oneline_(oneline) {}
  /// Text whose leading and trailing blanks join the held ones.
  DetailsOut& text(std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1), ++blanks_;
    std::size_t trailing = 0;
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1), ++trailing;
    if (!s.empty()) {
      // Without promiscuity (never on a real kernel) the first word still needs its blank.
      if (!started_ && !blanks_) blanks_ = 1;
      putBlanks();
      out_.put(s);
      started_ = true;
    }
    blanks_ += trailing;
    return *this;
  }
  DetailsOut& number(uint64_t v) {
    if (!started_ && !blanks_) blanks_ = 1;
    putBlanks();
    out_.putUint(v);
    started_ = true;
    return *this;
  }
  DetailsOut& blank() {
    ++blanks_;
    return *this;
  }
  /// A line break and the next line's indent; -o keeps the blanks before it (ip's, before `\`).
  DetailsOut& newline() {
    if (oneline_) putBlanks();
    out_.put('\n');
    blanks_ = 4;
    started_ = true;
    return *this;
  }

 private:
  void putBlanks() {
    for (; blanks_; --blanks_) out_.put(' ');
  }
  OutBuffer& out_;
  bool oneline_;
  std::size_t blanks_ = 0;
  bool started_ = false;
};

/// What `ip -d link show` adds, from the end of the link/ line on, laid out as ip does:
/// " promiscuity N  allmulti N minmtu N maxmtu N", a line with the kind and its options, a line
/// `KIND_slave` for a port, then addrgenmode, queue counts and offload limits continuing the
/// last line. ip ends each piece with a blank, also before its line breaks; fastlink keeps
/// those only for -o, where they stand before the `\` (scripts split on them).
void putDetails(OutBuffer& out, const LinkView& l, const DeviceNames& peers, bool oneline) {
  DetailsOut d(out, oneline);
  if (auto v = l.promiscuity()) d.text(" promiscuity ").number(*v).blank();
  if (auto v = l.allmulti()) d.text(" allmulti ").number(*v).blank();
  if (auto v = l.minMtu()) d.text("minmtu ").number(*v).blank();
  if (auto v = l.maxMtu()) d.text("maxmtu ").number(*v).blank();
  auto kind = l.kind();
  auto slaveKind = l.slaveKind();
  KindPrint print = kind || slaveKind ? kindPrint(l, kind, slaveKind, peers) : KindPrint{};
  if (kind) {
    d.newline().text(*kind).blank();
    for (const auto& opt : print.options)
      if (!opt.text.empty()) d.text(opt.text).blank();  // empty: a key iproute2 prints in JSON only
  }
  if (slaveKind) {
    d.newline().text(*slaveKind).text("_slave ");
    if (print.port)
      for (const auto& opt : *print.port)
        if (!opt.text.empty()) d.text(opt.text).blank();
  }
  if (auto mode = l.addrGenMode()) d.text("addrgenmode ").text(addrGenModeName(*mode)).blank();
  forEachDeviceLimit(l, [&](const char*, const char* word, uint32_t value) { d.text(word).blank().number(value).blank(); });
}

/// What `ip -d -j` adds after link_netnsid, streamed: the counts, `linkinfo` (the kind's and
/// the port's options as the kind files print them), addrgenmode, the device limits.
void detailsJsonOut(JsonOut& j, const LinkView& l, const DeviceNames& peers) {
  if (auto v = l.promiscuity()) j.field("promiscuity", *v);
  if (auto v = l.allmulti()) j.field("allmulti", *v);
  if (auto v = l.minMtu()) j.field("min_mtu", *v);
  if (auto v = l.maxMtu()) j.field("max_mtu", *v);
  auto kind = l.kind();
  auto slaveKind = l.slaveKind();
  if (kind || slaveKind) {
    KindPrint print = kindPrint(l, kind, slaveKind, peers);
    // An option's key given twice keeps its first place and its last value, as a document does.
    auto data = [&](JsonOut& at, const std::vector<KindOption>& opts) {
      json d = json::object();
      for (const auto& opt : opts)
        if (!opt.value.is_null()) d[opt.key] = opt.value;  // null: a word iproute2 prints in text only
      putJsonValue(at, d);
    };
    j.key("linkinfo").beginObject();
    if (kind) j.field("info_kind", *kind);
    if (!print.options.empty()) data(j.key("info_data"), print.options);
    if (slaveKind) j.field("info_slave_kind", *slaveKind);
    if (print.port) data(j.key("info_slave_data"), *print.port);  // ip prints it also when empty
    j.endObject();
  }
  if (auto mode = l.addrGenMode()) j.field("inet6_addr_gen_mode", addrGenModeName(*mode));
  forEachDeviceLimit(l, [&](const char* key, const char*, uint32_t value) { j.field(std::string_view(key), value); });
}

}  // namespace

// digitCount, humanCount, printStats, statsJson: shared with `stats show` (link_show.hpp).
std::size_t digitCount(uint64_t v) {
  std::size_t n = 1;
  while (v >= 10) v /= 10, ++n;
  return n;
}

namespace {

/// ip's print_num with -human, written at `out` (room for 24 characters): below 1000 (1024 with
/// -iec) as it is, else scaled to the largest power that leaves at least 1, with 2 decimals below
/// 10, 1 below 100, none from 100 on, and the prefix (k M G T P E, `Mi` with -iec). Returns the
/// end of what it wrote.
char* putHumanCount(char* out, uint64_t count, bool iec) {
  const uint64_t base = iec ? 1024 : 1000;
  if (count < base) return std::to_chars(out, out + 20, count).ptr;
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
  // Fixed notation, correctly rounded from the double, as printf's "%.*f" (fmt's, compiled in
  // already: std::to_chars of a double would link libstdc++'s 100 KB of tables for it).
  out = fmt::format_to(out, "{:.{}f}", static_cast<double>(count) / static_cast<double>(power), precision);
  *out++ = *prefix;
  if (iec) *out++ = 'i';
  return out;
}

/// One line of the `-s` block, laid out in place (no string per cell), then copied to the
/// output. A line is at most 25 blanks of indent and 7 cells of 20 digits and a blank each.
class StatsLine {
 public:
  StatsLine& blanks(std::size_t n) {
    std::memset(room(n), ' ', n);
    size_ += n;
    return *this;
  }
  StatsLine& text(std::string_view s) {
    if (!s.empty()) std::memcpy(room(s.size()), s.data(), s.size());
    size_ += s.size();
    return *this;
  }
  /// `s` right-aligned in `width` (never cut, as printf's "%*s").
  StatsLine& right(std::string_view s, std::size_t width) { return blanks(width > s.size() ? width - s.size() : 0).text(s); }
  StatsLine& right(uint64_t v, std::size_t width, bool human, bool iec) {
    char digits[24];
    char* end = human ? putHumanCount(digits, v, iec) : std::to_chars(digits, digits + sizeof digits, v).ptr;
    return right(std::string_view(digits, static_cast<std::size_t>(end - digits)), width);
  }
  void trimBlanks() {
    while (size_ && line_[size_ - 1] == ' ') --size_;
  }
  /// Ends the line: without trailing blanks, except with -o, where ip's stand before the `\`
  /// (as putDetails keeps them).
  void put(OutBuffer& out, bool oneline) {
    if (!oneline) trimBlanks();
    out.put(std::string_view(line_, size_)).put('\n');
    size_ = 0;
  }

 private:
  char* room(std::size_t n) {
    if (size_ + n > sizeof line_) throw std::length_error("a -s line longer than its columns allow");
    return line_ + size_;
  }
  char line_[256];
  std::size_t size_ = 0;
};

}  // namespace

std::string humanCount(uint64_t count, bool iec) {
  char text[24];
  return std::string(text, putHumanCount(text, count, iec));
}

/// `-s` (and `-s -s`, `twice`) as ip prints them: seven columns, each as wide as its header's
/// widest word or its widest number, whichever is wider, shared by the RX and TX blocks (and the
/// error rows); a column for compressed packets (nohandler, carrier transitions) only when there
/// is something in it. Laid out as ip's fprintf formats do (a blank after each cell), straight
/// into the output as the rest of the listing.
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
  StatsLine line;
  auto header = [&](std::string_view label, std::array<std::string_view, 7> words) {
    line.text(label);
    for (std::size_t i = 0; i < words.size(); ++i) line.blanks(1).right(words[i], i == 0 ? cols[0] - 4 : cols[i]);
    line.put(out, o.oneline);
  };
  auto errorHeader = [&](std::string_view label, std::array<std::string_view, 6> words) {
    line.text(label).blanks(cols[0] - 10);
    for (std::size_t i = 0; i < words.size(); ++i) line.blanks(1).right(words[i], cols[i + 1]);
    line.trimBlanks();  // ip's ends at its last word, -o too
    line.put(out, o.oneline);
  };
  // `first`: the column of the first value; the columns before it are blank.
  auto numbers = [&](std::size_t indent, std::size_t first, std::initializer_list<std::optional<uint64_t>> values) {
    line.blanks(indent);
    std::size_t i = first;
    for (const auto& v : values) {
      if (v) line.right(*v, cols[i], o.human, o.iec).blanks(1);
      ++i;
    }
    line.put(out, o.oneline);
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

/// `stats64` of `ip -j -s` as a document (`stats show -j` builds its records as documents), from
/// the same tables as the streamed form.
nlohmann::ordered_json statsJson(const LinkStats& s, std::optional<uint32_t> carrierChanges, bool twice) {
  auto direction = [&](std::span<const JsonCounter> counters, std::span<const JsonCounter> errors,
                       std::optional<uint32_t> changes) {
    nlohmann::ordered_json d = nlohmann::ordered_json::object();
    for (const auto& c : counters) d[c.key] = s.*c.member;
    if (twice) {
      for (const auto& c : errors) d[c.key] = s.*c.member;
      if (changes) d["carrier_changes"] = *changes;
    }
    return d;
  };
  return {{"rx", direction(kRxCounters, kRxErrors, std::nullopt)}, {"tx", direction(kTxCounters, kTxErrors, carrierChanges)}};
}

namespace {

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
  if (lower.none) out.put("@NONE");
  if (lower.index) {
    out.put('@');
    if (lower.otherNetns) out.put("if").putUint(lower.index);
    else putName(out, peers, lower.index);
  }
}

std::optional<uint16_t> linkTypeOf(const LinkView& l) { return l.type(); }
template <class Link>
std::optional<uint16_t> linkTypeOf(const Link& l) { return l.linkType(); }
std::optional<LinkStats> statsAfterRecords(const LinkView&) { return std::nullopt; }
template <class Link>
std::optional<LinkStats> statsAfterRecords(const Link& l) { return l.statsAfterRecords(); }
/// The view -d's words are read from (nullptr: the record has none, a monitor's LinkInfo).
const LinkView* detailsViewOf(const LinkView& l) { return &l; }
template <class Link>
const LinkView* detailsViewOf(const Link& l) { return l.detailsView(); }
std::optional<std::span<const uint8_t>> permAddressOf(const LinkView& l) { return l.attribute(kIflaPermAddress); }
/// IFLA_EVENT, which the kernel puts in a notification that says why it was sent (a feature
/// change, a bond's failover, ...); a dump has none.
std::optional<uint32_t> u32Of(std::optional<std::span<const uint8_t>> a) {
  if (!a || a->size() < 4) return std::nullopt;
  uint32_t v = 0;
  std::memcpy(&v, a->data(), 4);
  return v;
}
std::optional<uint32_t> linkEventOf(const LinkView& l) { return u32Of(l.attribute(kIflaEvent)); }
template <class Link>
std::optional<uint32_t> linkEventOf(const Link& l) { return l.linkEvent(); }
/// ip's names of IFLA_EVENT_* (its link_events[]), by value.
constexpr const char* kLinkEventNames[] = {"NONE", "REBOOT", "FEATURE CHANGE", "BONDING FAILOVER", "NOTIFY PEERS",
                                           "RESEND IGMP", "BONDING OPTION"};
template <class Link>
std::optional<std::span<const uint8_t>> permAddressOf(const Link& l) { return l.permAddress(); }

/// ip's ll_addr_n2a: the link/ line's addresses of ipip, sit and gre devices (4 bytes) and of
/// ip6tnl and ip6gre devices (16 bytes) are their tunnels' endpoints, printed as IP addresses;
/// any other address (or a length that does not fit) as hex bytes.
OutBuffer& putLinkAddress(OutBuffer& out, std::span<const uint8_t> bytes, std::optional<uint16_t> type) {
  // ARPHRD_TUNNEL, ARPHRD_SIT, ARPHRD_IPGRE; ARPHRD_TUNNEL6, ARPHRD_IP6GRE.
  uint16_t t = type.value_or(0);
  if ((bytes.size() == 4 && (t == 768 || t == 776 || t == 778)) || (bytes.size() == 16 && (t == 769 || t == 823)))
    return out.putIp(IpAddress::fromBytes(bytes));
  // Longer than any link-layer address: refused as the address type refuses it (throws).
  if (bytes.size() > MacAddress::kMaxLength) (void)MacAddress(bytes);
  return out.putHexBytes(bytes);
}

/// IFLA_PERM_ADDRESS when ip prints it: when it differs from the address (or there is none).
template <class Link>
std::optional<std::span<const uint8_t>> shownPermAddress(const Link& l, const std::optional<MacAddress>& address) {
  auto perm = permAddressOf(l);
  if (!perm) return std::nullopt;
  if (address && address->size() == perm->size() && std::equal(perm->begin(), perm->end(), address->bytes().begin()))
    return std::nullopt;
  return perm;
}

/// A link as `address show` prints it: without what ip's link dump for that listing leaves out
/// (see LinkRecordHooks::inet6View), without the link/ line's fields where the listing prints
/// no such line (JSON leaves them out as well), and with its counters (-s) after the addresses
/// instead of among the link's lines.
class AddrStyleFields {
 public:
  AddrStyleFields(const LinkView& l, const LinkRecordHooks& hooks)
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
  std::optional<std::span<const uint8_t>> permAddress() const {
    return linkLine_ ? l_.attribute(kIflaPermAddress) : std::nullopt;
  }
  std::optional<int32_t> linkNetnsId() const { return l_.linkNetnsId(); }
  std::optional<uint32_t> linkEvent() const { return std::nullopt; }  // a dump carries none
  std::optional<std::string_view> alias() const { return l_.alias(); }
  std::optional<LinkStats> stats() const { return std::nullopt; }
  /// `ip -s addr`'s counters, printed after the addresses (the IPv6 link dump has them too).
  std::optional<LinkStats> statsAfterRecords() const { return l_.stats(); }
  std::optional<uint32_t> carrierChanges() const { return l_.carrierChanges(); }
  /// -d's fields: as the device reports them.
  const LinkView* detailsView() const { return &l_; }

 private:
  const LinkView& l_;
  bool inet6_;
  bool linkLine_;
};

/// A LinkInfo (a monitor's event, decoded) with a view's accessors, so that `ip monitor link`'s
/// lines come from the printer of `link show`. `monitorText`: what ip's print_linkinfo prints
/// for the monitor (no `ip link` of its own, do_link 0): no link mode, qlen or alias; -d's words
/// are not printed (a LinkInfo has no view to read them from).
class InfoFields {
 public:
  InfoFields(const LinkInfo& l, bool monitorText) : l_(l), text_(monitorText) {}
  uint32_t index() const { return l_.index.value_or(0); }
  std::optional<std::string_view> name() const { return viewOf(l_.name); }
  uint32_t flags() const { return l_.flags.value_or(0); }
  std::optional<uint32_t> mtu() const { return l_.mtu; }
  const std::optional<XdpStatus>& xdp() const { return l_.xdp; }
  std::optional<std::string_view> qdisc() const { return viewOf(l_.qdisc); }
  uint32_t masterIndex() const { return l_.masterIndex(); }
  std::optional<std::string_view> operState() const { return viewOf(l_.operState); }
  std::optional<std::string_view> linkMode() const { return text_ ? std::nullopt : viewOf(l_.linkMode); }
  std::optional<uint32_t> group() const { return l_.group; }
  std::optional<uint32_t> txqlen() const { return text_ ? std::nullopt : l_.txqlen; }
  std::optional<uint16_t> linkType() const { return l_.type; }
  const std::optional<MacAddress>& address() const { return l_.address; }
  const std::optional<MacAddress>& broadcast() const { return l_.broadcast; }
  std::optional<std::span<const uint8_t>> permAddress() const {
    if (auto a = l_.unknown.find(kIflaPermAddress)) return a->payload;
    return std::nullopt;
  }
  std::optional<int32_t> linkNetnsId() const { return l_.linkNetnsId; }
  std::optional<uint32_t> linkEvent() const {
    auto a = l_.unknown.find(kIflaEvent);
    return a ? u32Of(a->payload) : std::nullopt;
  }
  std::optional<std::string_view> alias() const { return text_ ? std::nullopt : viewOf(l_.alias); }
  const std::optional<LinkStats>& stats() const { return l_.stats; }
  std::optional<LinkStats> statsAfterRecords() const { return std::nullopt; }
  std::optional<uint32_t> carrierChanges() const { return l_.carrierChanges; }
  const LinkView* detailsView() const { return nullptr; }

 private:
  static std::optional<std::string_view> viewOf(const std::optional<std::string>& s) {
    return s ? std::optional<std::string_view>(*s) : std::nullopt;
  }
  const LinkInfo& l_;
  bool text_;
};

/// lowerDevice() of a decoded link: IFLA_LINK 0 (a tunnel bound to no device) is `@NONE`.
LowerDevice lowerDevice(const LinkInfo& l, const DeviceNames& peers) {
  if (l.parent && l.parent->isIndex() && l.parent->index() == 0) {
    LowerDevice none;
    none.none = true;
    return none;
  }
  return lowerDevice(l.index.value_or(0), l.parentIndex(), l.linkNetnsId.has_value(), peers);
}

/// Two lines (more with -d, -s) as `ip link show` prints them, written straight to the buffer.
template <class Link>
void printLinkLines(OutBuffer& out, const Link& l, const LowerDevice& lower, const DeviceNames& peers,
                    const GlobalOptions& o, bool addrStyle, bool linkLine, NetnsNames& netns) {
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
  if (auto event = linkEventOf(l); event && *event) {
    out.put(" event ");
    if (*event < std::size(kLinkEventNames)) out.put(kLinkEventNames[*event]);
    else out.putUint(*event);
  }
  out.put('\n');
  if (!linkLine) return;
  out.put("    link/");
  std::optional<uint16_t> type = linkTypeOf(l);
  if (!type) out.put("none");
  else if (const char* known = ipNameOptions.numeric ? nullptr : knownLinkTypeName(*type)) out.put(known);
  else out.put(linkTypeName(*type));
  const std::optional<MacAddress>& address = l.address();
  if (address) putLinkAddress(out.put(' '), address->bytes(), type);
  if (const auto& broadcast = l.broadcast())
    putLinkAddress(out.put(l.flags() & kIffPointToPoint ? " peer " : " brd "), broadcast->bytes(), type);
  if (auto perm = shownPermAddress(l, address)) putLinkAddress(out.put(" permaddr "), *perm, type);
  if (auto netnsid = l.linkNetnsId()) {
    if (const std::string* name = netns.nameOf(*netnsid)) out.put(" link-netns ").put(*name);
    else out.put(" link-netnsid ").putInt(*netnsid);
  }
  if (const LinkView* view = o.details ? detailsViewOf(l) : nullptr) putDetails(out, *view, peers, o.oneline);
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
    if (auto address = l.address()) putLinkAddress(out, address->bytes(), linkTypeOf(l)).put(' ');
    out.put('<');
    putFlags(out, l.flags(), lower.index && lower.down);
    out.put("> ");
  }
  out.put('\n');
}

/// A word of fastlink's own tables (flag names, operstates, link modes and types) as a JSON
/// string: nothing in them to escape, so it is copied as it is (a third of `-j link show`'s
/// strings are flag words).
JsonOut& putWord(JsonOut& j, std::string_view w) {
  j.rawValue().putQuoted(w);
  return j;
}

/// nameOf() as a JSON string value.
void jsonName(JsonOut& j, const DeviceNames& peers, uint32_t index) {
  if (const std::string* name = peers.find(index)) j.value(std::string_view(*name));
  else j.rawValue().put("\"if").putUint(index).put('"');
}

/// `ip -j link show` of a view, streamed in ip's order of keys (-d's and -s's included); `more`
/// adds the record's own fields (`address show`: addr_info) before it is closed.
template <class Link, class More>
void linkJsonFields(JsonOut& j, const Link& l, const LowerDevice& lower, const DeviceNames& peers, const GlobalOptions& o,
                    More more) {
  j.field("ifindex", l.index());
  if (lower.index && lower.otherNetns) j.field("link_index", lower.index);
  else if (lower.index) jsonName(j.key("link"), peers, lower.index);
  else if (lower.none) j.key("link").rawValue().put("null");
  if (auto name = l.name()) j.field("ifname", *name);
  j.key("flags").beginArray();
  forEachLinkFlagWord(l.flags(), lower.index && lower.down, [&](std::string_view w) { putWord(j, w); });
  j.endArray();
  if (auto mtu = l.mtu()) j.field("mtu", *mtu);
  if (auto xdp = l.xdp(); xdp && xdp->attached()) putJsonValue(j.key("xdp"), xdpJson(*xdp, o.details, lookUpXdpProgram));
  if (auto qdisc = l.qdisc()) j.field("qdisc", *qdisc);
  if (uint32_t master = l.masterIndex()) jsonName(j.key("master"), peers, master);
  if (auto state = l.operState()) putWord(j.key("operstate"), *state);
  if (auto mode = l.linkMode()) putWord(j.key("linkmode"), *mode);
  if (auto group = l.group()) {
    if (*group == 0 && !ipNameOptions.numeric) j.field("group", "default");
    else j.key("group").rawValue().put('"').putUint(*group).put('"');
  }
  if (auto qlen = l.txqlen()) j.field("txqlen", *qlen);
  if (auto event = linkEventOf(l); event && *event) {
    if (*event < std::size(kLinkEventNames)) j.field("event", kLinkEventNames[*event]);
    else j.field("event", *event);
  }
  if (std::optional<uint16_t> type = linkTypeOf(l)) {
    if (const char* known = ipNameOptions.numeric ? nullptr : knownLinkTypeName(*type)) putWord(j.key("link_type"), known);
    else j.field("link_type", linkTypeName(*type));
  }
  std::optional<uint16_t> type = linkTypeOf(l);
  const std::optional<MacAddress>& address = l.address();
  if (address) putLinkAddress(j.key("address").rawValue().put('"'), address->bytes(), type).put('"');
  if (auto broadcast = l.broadcast()) {
    if (l.flags() & kIffPointToPoint) j.field("link_pointtopoint", true);
    putLinkAddress(j.key("broadcast").rawValue().put('"'), broadcast->bytes(), type).put('"');
  }
  if (auto perm = shownPermAddress(l, address))
    putLinkAddress(j.key("permaddr").rawValue().put('"'), *perm, type).put('"');
  if (auto netnsid = l.linkNetnsId()) j.field("link_netnsid", static_cast<int64_t>(*netnsid));
  if (const LinkView* view = o.details ? detailsViewOf(l) : nullptr) detailsJsonOut(j, *view, peers);
  if (auto alias = l.alias(); alias && !alias->empty()) j.field("ifalias", *alias);
  if (o.stats)
    if (auto stats = l.stats()) statsJsonOut(j.key("stats64"), *stats, l.carrierChanges(), o.stats > 1);
  more();
  if (o.stats)
    if (auto stats = statsAfterRecords(l)) statsJsonOut(j.key("stats64"), *stats, l.carrierChanges(), o.stats > 1);
}

template <class Link, class More>
void linkJsonOut(JsonOut& j, const Link& l, const LowerDevice& lower, const DeviceNames& peers, const GlobalOptions& o,
                 More more) {
  j.beginObject();
  linkJsonFields(j, l, lower, peers, o, more);
  j.endObject();
  j.endElement();
}

/// `ip -j -br link` (briefJson) of a view, streamed; `more` adds the record's own fields.
template <class Link, class More>
void briefJsonOut(JsonOut& j, const Link& l, const LowerDevice& lower, const DeviceNames& peers, bool hooked, More more) {
  j.beginObject();
  // ip's print_name_and_link, as for the full listing, in ip's order
  if (lower.index && lower.otherNetns) j.field("link_index", lower.index);
  else if (lower.index) jsonName(j.key("link"), peers, lower.index);
  else if (lower.none) j.key("link").rawValue().put("null");
  if (auto name = l.name()) j.field("ifname", *name);
  putWord(j.key("operstate"), l.operState().value_or("UNKNOWN"));
  if (!hooked) {
    if (auto address = l.address())
      putLinkAddress(j.key("address").rawValue().put('"'), address->bytes(), linkTypeOf(l)).put('"');
    j.key("flags").beginArray();
    forEachLinkFlagWord(l.flags(), lower.index && lower.down, [&](std::string_view w) { putWord(j, w); });
    j.endArray();
  }
  more();
  j.endObject();
  j.endElement();
}

LinkRecord recordOf(const LinkView& l) { return {l.index(), l.name().value_or("?"), l.isUp()}; }

struct ShowQuery {
  std::optional<std::string> dev;
  std::optional<std::string> master;
  LinkFilter filter;
  std::optional<std::string> slaveKind;  ///< `type KIND_slave`: ports of a KIND master, as ip
  bool upOnly = false;
  bool noMaster = false;  ///< ip's `nomaster`: devices that are no device's port
  bool vrf = false;       ///< `master` came as `vrf NAME`: it must be a VRF
  /// `label PATTERN`: ip's print_linkinfo prints nothing of a device under a label filter, and
  /// `ip link` lists no addresses for it to match: every device is `{}` in JSON, nothing in text.
  bool label = false;
};

/// ip's address filters, which `ip link show` parses with `ip address show`'s code
/// (ipaddr_list_flush_or_save) and then has no addresses to apply to: the address-flag words
/// (get_filter: ifa_flag_data's names, `dynamic`, `primary`, each also as `-WORD`) change
/// nothing.
bool isAddressFlagWord(std::string_view word) {
  if (word.starts_with('-')) word.remove_prefix(1);
  static constexpr std::string_view kWords[] = {
      "secondary", "temporary",  "nodad",      "optimistic", "dadfailed",     "home",     "deprecated",
      "tentative", "permanent",  "mngtmpaddr", "noprefixroute", "autojoin", "stable-privacy", "dynamic", "primary"};
  return std::find(std::begin(kWords), std::end(kWords), word) != std::end(kWords);
}

ShowQuery parseShow(Args& args) {
  ShowQuery q;
  while (!args.done()) {
    if (args.accept("dev")) q.dev = parseIfname(args.value("dev"), "dev");
    else if (args.accept("type")) {
      std::string kind = args.value("type");
      if (kind.size() > 6 && kind.ends_with("_slave")) q.slaveKind = kind.substr(0, kind.size() - 6);
      else q.filter.kind = kind;
    }
    else if (args.accept("master")) q.master = args.value("master"), q.vrf = false;
    else if (args.accept("vrf")) q.master = args.value("vrf"), q.vrf = true;
    else if (args.accept("group")) {
      std::string g = args.value("group");
      q.filter.group = g == "default" ? 0 : parseU32(g, "group");
    } else if (args.accept("up")) q.upOnly = true;
    else if (args.accept("nomaster")) q.noMaster = true;
    // `to`, `scope`, `label` and the flag words filter addresses: ip's own reading of them.
    else if (args.accept("to")) {
      // get_prefix() refuses every prefix in ip link's family (AF_PACKET), exit 1.
      throw BadValueError(fmt::format("\"{}\" may be inet prefix, but it is not allowed in this context.", args.value("to")));
    } else if (args.accept("scope")) {
      std::string scope = args.value("scope");
      try {
        if (scope != "all") (void)parseScope(scope);
      } catch (const Error&) {
        throw UsageError(fmt::format("argument \"{}\" is wrong: invalid \"scope\"", scope));
      }
    } else if (args.accept("label")) {
      (void)args.value("label");
      q.label = true;
    } else if (isAddressFlagWord(args.peek())) args.next();
    // ip takes any prefix of "help" for help (matches()), not for a device.
    else if (!q.dev && !std::string_view("help").starts_with(args.peek())) q.dev = parseIfname(args.next(), "dev");
    else args.unknown("link show takes: [dev] NAME, type KIND, master DEV, vrf NAME, nomaster, group GROUP, up, "
                      "to PREFIX, scope SCOPE, label PATTERN, address flag words");
  }
  return q;
}

/// What the query does with a device: print it, print ip -j's `{}` for it (a filter ip's
/// print_linkinfo applies after the device's JSON object is opened), or leave it out (a filter
/// ip has the kernel apply to the dump: `nomaster`).
enum class Verdict { print, empty, omit };

Verdict keep(const LinkView& l, const ShowQuery& q, uint32_t masterIndex) {
  if (q.noMaster && l.masterIndex()) return Verdict::omit;
  if (q.upOnly && !l.isUp()) return Verdict::empty;
  if (q.label) return Verdict::empty;
  if (q.filter.group && l.group() != q.filter.group) return Verdict::empty;
  if (q.filter.kind && l.kind() != q.filter.kind) return Verdict::empty;
  if (q.slaveKind && l.slaveKind() != std::optional<std::string_view>(*q.slaveKind)) return Verdict::empty;
  if (q.master && l.masterIndex() != masterIndex) return Verdict::empty;
  return Verdict::print;
}

/// The ifindexes a link's kind options and port data name (`kind`: linkKindInfo of the link).
std::vector<uint32_t> kindReferences(const LinkInfo& l) {
  std::vector<uint32_t> refs;
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

/// A link LinkStream holds back: its message's offset in the stream's arena and its view's
/// index (none: a dropped device's `{}`).
struct Parked {
  std::size_t at = 0;
  std::optional<LinkView::Index> index;
};

/// Prints links in dump order as they arrive, each from a view over the receive buffer (nothing
/// is decoded into a LinkInfo; `ip -d` decodes a kind's options alone). A link that names a
/// device not seen yet (a veth whose peer comes next, a master listed later) waits, and the
/// links after it with it, until that device arrives: a waiting link is a copy of its message
/// in one reused arena, viewed again when it is printed with its first view's index (one veth
/// of each pair waits: indexing those again was 4.4 M of `-j link show`'s 58.5 M instructions
/// over 5,000 pairs). What still waits at the end of the dump is printed after one more dump
/// fills in the names (a kind- or master-filtered dump lists only some devices). Memory: the
/// names and flags of the devices seen, plus the waiting messages (usually none or one). JSON
/// is streamed (JsonOut), -p included.
class LinkStream {
 public:
  LinkStream(const ShowQuery& q, uint32_t masterIndex, const GlobalOptions& o, OutBuffer& out,
             const LinkRecordHooks* hooks = nullptr)
      : q_(q), masterIndex_(masterIndex), o_(o), out_(out), hooks_(hooks), netns_(o.netns) {
    if (o.json) jsonOut_.emplace(out, o.pretty);
  }

  void add(const LinkView& l) {
    if (auto name = l.name()) peers_.remember(l.index(), *name, l.flags());
    // The links this one's name resolves go first (a veth's peer waits for it), so that it
    // is printed from the dump's own view, not parked behind them and viewed again.
    printResolved();
    Verdict verdict = keep(l, q_, masterIndex_);
    if (verdict == Verdict::print) {
      if (parked_.empty() && resolved(l)) print(l);
      else park(l);
    } else if (verdict == Verdict::empty && jsonOut_) {
      // ip opens each device's JSON object before print_linkinfo applies the filters it checks
      // itself (up, group, KIND_slave; with a device named, kind and master too, the kernel
      // filtering a dump by those): a device they drop is `{}`, in its place in the dump.
      if (parked_.empty()) printDropped();
      else parked_.emplace_back();
    }
    if (parked_.empty()) arena_.clear();
  }

  void restart() {
    peers_.clear();
    parked_.clear();
    arena_.clear();
    if (jsonOut_) jsonOut_->restartDump();
    else out_.restartDump();
  }
  /// End of the dump: names still missing come from one dump of every device.
  void finish(Netlink& netlink) {
    if (!parked_.empty()) {
      forEachLink(netlink, {}, [&](const LinkView& l) {
        if (auto name = l.name(); name && !peers_.knows(l.index())) peers_.remember(l.index(), *name, l.flags());
      });
      for (const Parked& p : parked_) {
        if (!p.index) printDropped();
        else print(parkedView(p));
      }
      parked_.clear();
    }
    if (jsonOut_) jsonOut_->finish();
    out_.flush();
  }

 private:
  /// Whether every device the link's lines name is known: the master and lower device read from
  /// the view; a kind whose options (or whose ports' data) name devices decodes that nest.
  bool resolved(const LinkView& l) {
    uint32_t master = l.masterIndex();
    if (master && !peers_.knows(master)) return false;
    uint32_t parent = l.parent().value_or(0);
    if (parent && parent != l.index() && !l.linkNetnsId() && !peers_.knows(parent)) return false;
    // A port's data comes with its master only (the kernel's rtnl_have_link_slave_info): a
    // device without one has no IFLA_INFO_SLAVE_KIND to look for (a walk of IFLA_LINKINFO).
    if (namesDevices(l.kind(), false) || (master && namesDevices(l.slaveKind(), true)))
      for (uint32_t ref : kindReferences(linkKindInfo(l)))
        if (!peers_.knows(ref)) return false;
    return true;
  }
  /// Whether the CLI kind `kind` lists devices in its options (`port`: in its ports' data);
  /// the last answer is kept (a dump is mostly one kind).
  bool namesDevices(std::optional<std::string_view> kind, bool port) {
    if (!kind) return false;
    const CliLinkKind* cli = (port ? portKinds() : kinds()).find(*kind);
    return cli && (port ? bool(cli->portDevices) : bool(cli->devices));
  }
  /// Prints the parked links from the front as long as their devices are known.
  void printResolved() {
    while (!parked_.empty()) {
      if (!parked_.front().index) {
        printDropped();
        parked_.pop_front();
        continue;
      }
      LinkView front = parkedView(parked_.front());
      if (!resolved(front)) break;
      print(front);
      parked_.pop_front();
    }
  }
  /// The parked copy viewed with the index its view had (offsets: not built again).
  LinkView parkedView(const Parked& p) const {
    return LinkView(std::span<const uint8_t>(arena_.data() + p.at, p.index->message().size()), *p.index);
  }
  /// Keeps a copy of the view's message (4-byte aligned in the arena) until it can be printed.
  void park(const LinkView& l) {
    std::span<const uint8_t> m = l.message();
    std::size_t at = (arena_.size() + 3) & ~std::size_t{3};
    arena_.resize(at);
    arena_.insert(arena_.end(), m.begin(), m.end());
    parked_.push_back({at, l.attributeIndex()});
  }
  /// A device the filters dropped, as ip -j prints it.
  void printDropped() {
    jsonOut_->beginObject();
    jsonOut_->endObject();
    jsonOut_->endElement();
  }
  void print(const LinkView& l) {
    if (!hooks_) return printView(l, lowerDevice(l, peers_), nullptr);
    LinkRecord record = recordOf(l);
    if (hooks_->keep && !hooks_->keep(record)) return;
    if (hooks_->dropped && hooks_->dropped(record)) {
      if (jsonOut_) printDropped();
      return;
    }
    printView(AddrStyleFields(l, *hooks_), lowerDevice(l, peers_), &record);
  }
  /// A view's record; `record` (with hooks) is the device the hooks print for.
  template <class Link>
  void printView(const Link& l, const LowerDevice& lower, const LinkRecord* record) {
    if (jsonOut_) {
      auto more = [&] {
        if (hooks_ && hooks_->json) hooks_->json(*jsonOut_, *record);
      };
      if (hooks_ && !hooks_->linkFields) {  // the hooks' fields alone (AddrStyle: label, -o -j)
        jsonOut_->beginObject();
        more();
        jsonOut_->endObject();
        return jsonOut_->endElement();
      }
      if (o_.brief) return briefJsonOut(*jsonOut_, l, lower, peers_, hooks_ != nullptr, more);
      return linkJsonOut(*jsonOut_, l, lower, peers_, o_, more);
    }
    if (o_.brief && hooks_ && !hooks_->linkFields) {
      if (hooks_->briefText) hooks_->briefText(out_, *record);
      out_.put('\n');
      return out_.endRecord();
    }
    if (o_.brief) {
      printBrief(out_, l, lower, peers_, hooks_, record ? *record : LinkRecord{});
      return out_.endRecord();
    }
    std::size_t mark = out_.held();
    bool header = !hooks_ || hooks_->header;
    if (header) printLinkLines(out_, l, lower, peers_, o_, hooks_ != nullptr, !hooks_ || hooks_->linkLine, netns_);
    if (hooks_ && hooks_->text) hooks_->text(out_, *record);
    if (o_.stats && header)
      if (auto stats = statsAfterRecords(l)) printStats(out_, *stats, l.carrierChanges(), o_.stats > 1, o_);
    if (o_.oneline && header) out_.joinLines(mark);
    out_.endRecord();
  }
  const ShowQuery& q_;
  uint32_t masterIndex_;
  const GlobalOptions& o_;
  OutBuffer& out_;
  const LinkRecordHooks* hooks_;
  NetnsNames netns_;
  DeviceNames peers_;
  std::optional<JsonOut> jsonOut_;
  std::vector<uint8_t> arena_;
  std::deque<Parked> parked_;
};

std::string deviceMissing(const std::string& name) { return fmt::format("Device \"{}\" does not exist.", name); }

/// Prints DEV (one get), or every link the query keeps, as the dump arrives (LinkStream);
/// HOOKS, when given, print other records (addresses) under each link.
int streamLinks(Netlink& netlink, const ShowQuery& q, uint32_t masterIndex, const GlobalOptions& o,
                const std::optional<std::string>& dev, const LinkRecordHooks* hooks) {
  OutBuffer out;
  LinkStream stream(q, masterIndex, o, out, hooks);
  if (dev) {
    if (!getLinkView(netlink, Ifref(*dev), [&](const LinkView& l) { stream.add(l); }))
      return printError(deviceMissing(*dev)), kExitBadValue;  // ip: 1
  } else {
    // The group is checked by keep(), not by the dump: ip -j prints `{}` for a device in another.
    LinkFilter dump = q.filter;
    dump.group.reset();
    // The template forEach: the view is built and add() called in the library's loop over each
    // datagram, no std::function call per device.
    netlink.links().forEach(dump, [&](const LinkView& l) { stream.add(l); }, [&] { stream.restart(); });
  }
  stream.finish(netlink);
  return kExitOk;
}

}  // namespace

/// The names a link event's lines show, looked up where the cache lacks them (a device made
/// since the monitor started), so that the printer, which only reads the cache, finds them.
void learnNamesOf(const LinkInfo& l, DeviceNames& names) {
  if (uint32_t master = l.masterIndex()) names.name(master);
  if (uint32_t parent = l.parentIndex(); parent && parent != l.index.value_or(0) && !l.linkNetnsId) names.name(parent);
}

void printLinkEvent(OutBuffer& out, const LinkInfo& l, DeviceNames& names, NetnsNames& netns, const GlobalOptions& o) {
  learnNamesOf(l, names);
  GlobalOptions plain = o;
  plain.details = false;
  plain.stats = 0;
  // -br and -o are not applied: ip 6.1's monitor prints -br's columns without a line break
  // between events and keeps a blank before -o's `\`; fastlink prints the two lines.
  printLinkLines(out, InfoFields(l, true), lowerDevice(l, names), names, plain, true, true, netns);
}

void linkEventJson(JsonOut& j, const LinkInfo& l, DeviceNames& names, const GlobalOptions& o) {
  learnNamesOf(l, names);
  GlobalOptions plain = o;
  plain.details = false;
  linkJsonFields(j, InfoFields(l, false), lowerDevice(l, names), names, plain, [] {});
}

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
  try {
    uint32_t masterIndex = 0;
    if (q.master) {
      // As ip's parse of `master DEV` / `vrf NAME`: a device that is not there (or no VRF) is a
      // bad argument (usage, 255), checked before `dev`'s.
      bool isVrf = false;
      bool valid = true;
      try {
        validateIfname(*q.master);
      } catch (const Error&) {
        valid = false;  // ip finds no such device either
      }
      bool found = valid && getLinkView(ctx.netlink(), Ifref(*q.master), [&](const LinkView& m) {
        masterIndex = m.index();
        isVrf = m.kind() == std::optional<std::string_view>("vrf");
      });
      if (!found || (q.vrf && !isVrf))
        throw UsageError(fmt::format("argument \"{}\" is wrong: {}", *q.master, q.vrf ? "Not a valid VRF name" : "Device does not exist"));
      q.filter.setMaster(masterIndex);
    }
    // With a device named, ip reads that one device and its `nomaster` filters nothing (the
    // kernel applies it to a dump only).
    if (q.dev) q.noMaster = false;
    return streamLinks(ctx.netlink(), q, masterIndex, o, q.dev, nullptr);
  } catch (const Error& e) {
    return reportFailure(e);
  }
}

}  // namespace fastlink::cli
