// The `conntrack` object: `fastlink conntrack -L|-G|-D|-I|-U|-F|-E [selectors]` in conntrack-tools'
// grammar, printing entries as conntrack 1.4.7 does (stdout), its counts on stderr.
#include <fmt/format.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/time.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <unordered_map>

#include "kit/args.hpp"
#include "kit/command.hpp"
#include "kit/failure.hpp"
#include "fastlink/conntrack.hpp"
#include "fastlink/subscription.hpp"
#include "kit/output.hpp"
#include "kit/writer.hpp"

namespace fastlink::cli {
namespace {

/// conntrack-tools' exit statuses, not ip's: OTHER_PROBLEM (a request failed, nothing matched)
/// and PARAMETER_PROBLEM (bad command line, nothing sent).
constexpr int kConntrackFailed = 1;
constexpr int kConntrackUsage = 2;

constexpr const char* kUsage = R"(Usage: fastlink conntrack COMMAND [ SELECTOR ]... [ -o extended,id,timestamp,ktimestamp,labels,userspace ]
COMMAND := { -L | --dump } | { -G | --get } | { -D | --delete } | { -I | --create } | { -U | --update }
           | { -F | --flush } | { -E | --event } [ -e NEW,UPDATE,DESTROY ] [ -b | --buffer-size BYTES ]
SELECTOR := [ -f | --family ipv4|ipv6 ] [ -s | --src | --orig-src ADDR ] [ -d | --dst | --orig-dst ADDR ]
            [ -r | --reply-src ADDR ] [ -q | --reply-dst ADDR ] [ -p | --proto tcp|udp|icmp|icmpv6|sctp|NUMBER ]
            [ --sport | --orig-port-src PORT ] [ --dport | --orig-port-dst PORT ]
            [ --reply-port-src PORT ] [ --reply-port-dst PORT ]
            [ --icmp-type N ] [ --icmp-code N ] [ --icmp-id N ]
            [ -m | --mark MARK[/MASK] ] [ -w | --zone ZONE ] [ -u | --status ASSURED|SEEN_REPLY|FIXED_TIMEOUT|EXPECTED[,...] ]
            [ -n | --src-nat [ NAT ] ] [ -g | --dst-nat [ NAT ] ] [ -j | --any-nat ]
            [ -t | --timeout SECONDS ] [ --state TCP_STATE ] [ -l | --label LABEL[,LABEL]... ]
            [ --label-add LABEL[,LABEL]... ] [ --label-del [ LABEL[,LABEL]... ] ]
NAT := ADDR[:PORT] (with -I: the NAT to set up, [IPV6]:PORT; as a selector: ADDR is compared)
LABEL := a name of /etc/xtables/connlabel.conf (the file conntrack-tools reads))";

/// The label names of connlabel.conf ("BIT NAME" lines, '#' comments), read as
/// libnetfilter_conntrack reads them: the first name of a bit wins, a name used twice keeps its
/// first bit, names of other characters than letters, digits, ' ' and '-' are skipped.
constexpr const char* kConnlabelFile = "/etc/xtables/connlabel.conf";
/// The kernel holds 128 label bits (NF_CT_LABELS_MAX_SIZE); the file may name up to 1023.
constexpr unsigned kKernelLabelBits = 128;

class LabelMap {
 public:
  /// Reads the file; false when it cannot be opened (conntrack then prints no labels).
  bool load(const char* path) {
    std::ifstream in(path);
    if (!in) return false;
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      char* end = nullptr;
      unsigned long bit = std::strtoul(line.c_str(), &end, 0);
      if ((bit == 0 && end == line.c_str()) || bit >= 1024) continue;
      std::string_view rest(end);
      auto isSpace = [](char c) { return c == ' ' || c == '\f' || c == '\r' || c == '\t' || c == '\v'; };
      while (!rest.empty() && isSpace(rest.front())) rest.remove_prefix(1);
      while (!rest.empty() && isSpace(rest.back())) rest.remove_suffix(1);
      if (rest.empty() || !sane(rest) || (bit < names_.size() && !names_[bit].empty()) || byName(rest)) continue;
      if (names_.size() <= bit) names_.resize(bit + 1);
      names_[bit] = rest;
      ++named_;
    }
    return true;
  }
  /// libnetfilter_conntrack keeps no map of a file without one name: nothing is printed then.
  bool usable() const { return named_ > 0; }
  std::optional<unsigned> byName(std::string_view name) const {
    for (unsigned bit = 0; bit < names_.size(); ++bit)
      if (names_[bit] == name) return bit;
    return std::nullopt;
  }
  std::string_view name(unsigned bit) const { return bit < names_.size() ? std::string_view(names_[bit]) : std::string_view(); }

 private:
  static bool sane(std::string_view name) {
    for (char c : name)
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == ' ' || c == '-')) return false;
    return true;
  }
  std::vector<std::string> names_;
  std::size_t named_ = 0;
};

enum class Verb { None, List, Get, Delete, Create, Update, Flush, Event };

struct StatusName {
  const char* name;
  uint32_t bit;
};
constexpr StatusName kStatusNames[] = {{"EXPECTED", conntrack_status::kExpected},
                                       {"SEEN_REPLY", conntrack_status::kSeenReply},
                                       {"ASSURED", conntrack_status::kAssured},
                                       {"FIXED_TIMEOUT", conntrack_status::kFixedTimeout},
                                       {"OFFLOAD", conntrack_status::kOffload},
                                       {"UNSET", 0}};

struct ProtoName {
  const char* name;
  uint8_t number;
};
constexpr ProtoName kProtos[] = {{"tcp", IPPROTO_TCP},   {"udp", IPPROTO_UDP},         {"icmp", IPPROTO_ICMP},
                                 {"icmpv6", IPPROTO_ICMPV6}, {"sctp", IPPROTO_SCTP},   {"dccp", IPPROTO_DCCP},
                                 {"udplite", IPPROTO_UDPLITE}, {"gre", IPPROTO_GRE}};

std::string_view protoName(uint8_t number) {
  for (const auto& p : kProtos)
    if (p.number == number) return p.name;
  return "unknown";
}

/// Everything a conntrack command line says.
struct Command {
  Verb verb = Verb::None;
  ConntrackFilter filter;  // the selectors
  ConntrackEntry entry;    // -I / -G / -U: the tuple and the values to set
  std::optional<uint16_t> replySport, replyDport;
  std::optional<uint32_t> newMark;
  bool extended = false;
  bool showId = false;
  bool timestamp = false;  // -E -o timestamp: when each event was read
  bool ktimestamp = false;  // -o ktimestamp: the kernel's [start=...] [stop=...] (-L, -E)
  bool labelsOutput = false;  // -o labels
  std::optional<LabelMap> labelMap;  // read when labels are printed or named (-o labels, -l, --label-*)
  std::vector<uint8_t> labelAdd;  // --label-add (-I: the labels of the new entry; -U: added)
  std::optional<std::vector<uint8_t>> labelDel;  // --label-del (-U; empty: every label)
  uint32_t eventMask = 0;  // 0 = every event
  std::optional<int> bufferSize;  // -E's socket receive buffer (conntrack's -b)
  std::optional<ConntrackNat> srcNat, dstNat;  // -n / -g with an address (-I: the NAT to set up)
  bool srcNatSelector = false, dstNatSelector = false;
};

/// ADDR, ADDR:PORT or [IPv6]:PORT, as conntrack's --src-nat/--dst-nat take it.
ConntrackNat parseNat(std::string_view text, std::string_view keyword) {
  ConntrackNat nat;
  std::string_view address = text;
  std::optional<std::string_view> port;
  if (text.starts_with('[')) {
    auto close = text.find(']');
    if (close == std::string_view::npos) throw UsageError(fmt::format("{}: \"{}\" lacks its ']'", keyword, text));
    address = text.substr(1, close - 1);
    if (close + 1 < text.size()) {
      if (text[close + 1] != ':') throw UsageError(fmt::format("{}: \"{}\" is not [ADDR]:PORT", keyword, text));
      port = text.substr(close + 2);
    }
  } else if (auto colon = text.find(':'); colon != std::string_view::npos && text.find(':', colon + 1) == std::string_view::npos) {
    address = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  nat.address = parseIp(address, keyword);
  if (port) nat.port = static_cast<uint16_t>(parseInteger(*port, keyword, 0, 65535));
  return nat;
}

/// -E's receive buffer unless -b or -rcvbuf says otherwise: the events of a burst queue there
/// while the printer catches up (a flush of N entries is N DESTROY events at once, ~1 KiB of
/// kernel memory each). 64 MiB holds ~60,000; the kernel charges only what is queued.
constexpr int kEventBufferBytes = 64 * 1024 * 1024;

/// Calls `each` with every word of a comma-separated list, empty ones included (so "A,,B" and
/// "A," reach the caller's error for an empty word).
template <class Each>
void forEachListed(std::string_view text, Each each) {
  for (std::size_t start = 0;;) {
    std::size_t comma = text.find(',', start);
    each(text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (comma == std::string_view::npos) return;
    start = comma + 1;
  }
}

uint32_t parseStatus(std::string_view text) {
  uint32_t bits = 0;
  forEachListed(text, [&](std::string_view word) {
    bool found = false;
    for (const auto& s : kStatusNames)
      if (word == s.name) bits |= s.bit, found = true;
    if (!found) throw UsageError(fmt::format("--status: \"{}\" is not a status (ASSURED, SEEN_REPLY, FIXED_TIMEOUT, EXPECTED, UNSET)", word));
  });
  return bits;
}

uint8_t parseProto(std::string_view text) {
  for (const auto& p : kProtos)
    if (text == p.name) return p.number;
  return static_cast<uint8_t>(parseInteger(text, "--proto", 0, 255));
}

Verb verbOf(std::string_view word) {
  static constexpr std::pair<const char*, Verb> kVerbs[] = {
      {"-L", Verb::List},   {"--dump", Verb::List},   {"-G", Verb::Get},     {"--get", Verb::Get},
      {"-D", Verb::Delete}, {"--delete", Verb::Delete}, {"-I", Verb::Create}, {"--create", Verb::Create},
      {"-U", Verb::Update}, {"--update", Verb::Update}, {"-F", Verb::Flush},  {"--flush", Verb::Flush},
      {"-E", Verb::Event},  {"--event", Verb::Event}};
  for (const auto& [name, verb] : kVerbs)
    if (word == name) return verb;
  return Verb::None;
}

/// LABEL[,LABEL]... as a bitmap of the kernel's size, names looked up in connlabel.conf.
std::vector<uint8_t> parseLabels(Command& c, std::string_view text, std::string_view keyword) {
  if (!c.labelMap) {
    c.labelMap.emplace();
    if (!c.labelMap->load(kConnlabelFile))
      throw UsageError(fmt::format("{}: cannot read the label names of {}: {}", keyword, kConnlabelFile, std::strerror(errno)));
  }
  std::vector<uint8_t> bits(kKernelLabelBits / 8, 0);
  forEachListed(text, [&](std::string_view name) {
    std::optional<unsigned> bit = c.labelMap->byName(name);
    if (!bit) throw UsageError(fmt::format("{}: unknown label '{}' (not in {})", keyword, name, kConnlabelFile));
    if (*bit >= kKernelLabelBits)
      throw UsageError(fmt::format("{}: label '{}' is bit {}; the kernel holds bits 0-{}", keyword, name, *bit, kKernelLabelBits - 1));
    bits[*bit / 8] |= static_cast<uint8_t>(1u << (*bit % 8));
  });
  return bits;
}

void mergeLabels(std::vector<uint8_t>& into, const std::vector<uint8_t>& bits) {
  if (into.size() < bits.size()) into.resize(bits.size(), 0);
  for (std::size_t i = 0; i < bits.size(); ++i) into[i] |= bits[i];
}

Command parse(Args& args) {
  Command c;
  ConntrackFilter& f = c.filter;  // the selectors (-L, -D, -U, -E); -I and -G's tuple
  std::optional<uint32_t> mark, markMask;
  std::vector<std::pair<std::string, std::string>> labelWords;  // (option, LABEL[,LABEL]...)
  bool labelDelSeen = false;
  while (!args.done()) {
    std::string word = args.next();
    std::optional<std::string> inlineValue;
    if (word.starts_with("--") && word.find('=') != std::string::npos) {
      inlineValue = word.substr(word.find('=') + 1);
      word = word.substr(0, word.find('='));
    }
    auto value = [&]() { return inlineValue ? *inlineValue : args.value(word); };
    // conntrack's optional argument: --option=VALUE, or a next word that is not an option.
    auto optionalValue = [&]() -> std::optional<std::string> {
      if (inlineValue || args.done() || args.peek().starts_with('-')) return inlineValue;
      return args.next();
    };
    if (Verb v = verbOf(word); v != Verb::None) {
      if (c.verb != Verb::None) throw UsageError(fmt::format("{}: only one command at a time", word));
      c.verb = v;
    } else if (word == "-s" || word == "--src" || word == "--orig-src") f.src = parseIp(value(), word);
    else if (word == "-d" || word == "--dst" || word == "--orig-dst") f.dst = parseIp(value(), word);
    else if (word == "-r" || word == "--reply-src") f.replySrc = parseIp(value(), word);
    else if (word == "-q" || word == "--reply-dst") f.replyDst = parseIp(value(), word);
    else if (word == "-p" || word == "--proto" || word == "--protonum") f.protocol = parseProto(value());
    else if (word == "--sport" || word == "--orig-port-src") f.srcPort = static_cast<uint16_t>(parseInteger(value(), word, 0, 65535));
    else if (word == "--dport" || word == "--orig-port-dst") f.dstPort = static_cast<uint16_t>(parseInteger(value(), word, 0, 65535));
    else if (word == "--reply-port-src") c.replySport = static_cast<uint16_t>(parseInteger(value(), word, 0, 65535));
    else if (word == "--reply-port-dst") c.replyDport = static_cast<uint16_t>(parseInteger(value(), word, 0, 65535));
    else if (word == "--icmp-type") c.entry.orig.icmpType = static_cast<uint8_t>(parseInteger(value(), word, 0, 255));
    else if (word == "--icmp-code") c.entry.orig.icmpCode = static_cast<uint8_t>(parseInteger(value(), word, 0, 255));
    else if (word == "--icmp-id") c.entry.orig.icmpId = static_cast<uint16_t>(parseInteger(value(), word, 0, 65535));
    else if (word == "-m" || word == "--mark") {
      std::string v = value();
      auto slash = v.find('/');
      mark = parseU32(std::string_view(v).substr(0, slash), word);
      if (slash != std::string::npos) markMask = parseU32(std::string_view(v).substr(slash + 1), word);
    } else if (word == "-w" || word == "--zone") c.entry.zone = static_cast<uint16_t>(parseInteger(value(), word, 0, 65535));
    else if (word == "-u" || word == "--status") c.entry.status = parseStatus(value());
    else if (word == "-t" || word == "--timeout") c.entry.timeout = parseU32(value(), word);
    else if (word == "--state") {
      std::string v = value();
      auto s = tcpStateByName(v);
      if (!s) throw UsageError(fmt::format("--state: \"{}\" is not a TCP state", v));
      c.entry.tcpState = *s;
    } else if (word == "-l" || word == "--label" || word == "--label-add") {
      // Names are looked up once the command line is known to be whole (below).
      labelWords.emplace_back(word == "--label-add" ? "--label-add" : "-l", value());
    } else if (word == "--label-del") {
      // Without its optional argument, every label goes.
      std::optional<std::string> v = optionalValue();
      labelDelSeen = true;
      if (v) labelWords.emplace_back("--label-del", *v);
    } else if (word == "-f" || word == "--family") {
      std::string v = value();
      if (v == "ipv4") c.filter.family = IpAddress::Family::v4;
      else if (v == "ipv6") c.filter.family = IpAddress::Family::v6;
      else throw UsageError(fmt::format("{}: \"{}\" is not ipv4 or ipv6", word, v));
    } else if (word == "-o" || word == "--output") {
      forEachListed(value(), [&](std::string_view opt) {
        if (opt == "extended") c.extended = true;
        else if (opt == "id") c.showId = true;
        else if (opt == "timestamp") c.timestamp = true;
        else if (opt == "ktimestamp") c.ktimestamp = true;
        else if (opt == "labels") c.labelsOutput = true;
        else if (opt == "userspace") {
          // conntrack prints [USERSPACE] with or without it, and so does fastlink.
        } else throw UsageError(fmt::format("{}: \"{}\" is not supported (extended, id, timestamp, ktimestamp, labels, userspace)", word, opt));
      });
    } else if (word == "-n" || word == "--src-nat" || word == "-g" || word == "--dst-nat") {
      bool srcNat = word == "-n" || word == "--src-nat";
      (srcNat ? c.srcNatSelector : c.dstNatSelector) = true;
      if (std::optional<std::string> v = optionalValue()) (srcNat ? c.srcNat : c.dstNat) = parseNat(*v, word);
    } else if (word == "-j" || word == "--any-nat") {
      c.filter.anyNat = true;
    } else if (word == "-b" || word == "--buffer-size") {
      c.bufferSize = static_cast<int>(parseInteger(value(), word, 4096, 1 << 30));
    } else if (word == "-e" || word == "--event-mask") {
      forEachListed(value(), [&](std::string_view e) {
        if (e == "NEW") c.eventMask |= 1u << conntrack_group::kNew;
        else if (e == "UPDATE") c.eventMask |= 1u << conntrack_group::kUpdate;
        else if (e == "DESTROY") c.eventMask |= 1u << conntrack_group::kDestroy;
        else if (e == "ALL") c.eventMask = 0;
        else throw UsageError(fmt::format("{}: \"{}\" is not NEW, UPDATE, DESTROY or ALL", word, e));
      });
    } else {
      throw UsageError(fmt::format("unknown option \"{}\" in \"{}\"", word, args.text()));
    }
  }
  if (c.verb == Verb::None) throw UsageError("conntrack: a command is needed (-L, -G, -D, -I, -U, -F or -E)");
  auto used = [&](std::string_view option) {
    return std::any_of(labelWords.begin(), labelWords.end(), [&](const auto& w) { return w.first == option; });
  };
  if (used("--label-add") && labelDelSeen) throw UsageError("cannot use --label-add and --label-del at the same time");
  if ((used("--label-add") && c.verb != Verb::Create && c.verb != Verb::Update) || (labelDelSeen && c.verb != Verb::Update))
    throw UsageError("--label-add goes with -I or -U, --label-del with -U");
  if (used("-l") && (c.verb == Verb::Create || c.verb == Verb::Get || c.verb == Verb::Flush))
    throw UsageError("-l selects entries (-L, -D, -U, -E); -I sets labels with --label-add");
  if (labelDelSeen) c.labelDel.emplace();
  for (const auto& [option, names] : labelWords) {
    std::vector<uint8_t> bits = parseLabels(c, names, option);
    mergeLabels(option == "-l" ? c.filter.labels : option == "--label-add" ? c.labelAdd : *c.labelDel, bits);
  }
  if (c.labelsOutput && !c.labelMap) {
    c.labelMap.emplace();
    // conntrack-tools says so and prints no labels (perror of nfct_labelmap_new).
    if (!c.labelMap->load(kConnlabelFile)) std::fprintf(stderr, "fastlink conntrack: cannot read %s: %s\n", kConnlabelFile, std::strerror(errno));
  }
  if ((f.srcPort || f.dstPort) && !f.protocol) throw UsageError("--sport and --dport need a protocol (-p)");
  if (f.src && f.dst && f.src->family() != f.dst->family()) throw UsageError("-s and -d must be of one family");
  auto family = c.filter.family;
  for (const auto* a : {&f.src, &f.dst, &f.replySrc, &f.replyDst})
    if (*a && family && (*a)->family() != *family) throw UsageError("an address does not match -f");

  f.zone = c.entry.zone;
  if (c.verb != Verb::Create) {
    // A selector compares the address only (conntrack 1.4.7 ignores a port there too).
    if (c.srcNatSelector) c.filter.srcNat = c.srcNat ? std::optional(c.srcNat->address) : std::nullopt;
    if (c.dstNatSelector) c.filter.dstNat = c.dstNat ? std::optional(c.dstNat->address) : std::nullopt;
  } else {
    if ((c.srcNatSelector && !c.srcNat) || (c.dstNatSelector && !c.dstNat))
      throw UsageError("-I: --src-nat and --dst-nat need an address");
    if (c.filter.anyNat) throw UsageError("-I: --any-nat selects entries, it sets up no NAT");
    c.entry.srcNat = c.srcNat;
    c.entry.dstNat = c.dstNat;
  }
  if (c.entry.status && c.verb != Verb::Create && c.verb != Verb::Update) c.filter.status = c.entry.status;
  if (mark) {
    if (c.verb == Verb::Update || c.verb == Verb::Create) c.newMark = mark;
    else c.filter.setMark(*mark, markMask.value_or(0xffffffff));
  }
  // The tuple (-I, -G).
  if (c.verb == Verb::Create || c.verb == Verb::Get) {
    if (!f.src || !f.dst || !f.protocol) throw UsageError("-I and -G need -s, -d and -p");
    c.entry.family = f.src->family();
    c.entry.orig.src = *f.src;
    c.entry.orig.dst = *f.dst;
    c.entry.orig.protocol = *f.protocol;
    c.entry.orig.srcPort = f.srcPort;
    c.entry.orig.dstPort = f.dstPort;
    bool icmp = *f.protocol == IPPROTO_ICMP || *f.protocol == IPPROTO_ICMPV6;
    if (!icmp && (*f.protocol == IPPROTO_TCP || *f.protocol == IPPROTO_UDP || *f.protocol == IPPROTO_SCTP) && (!f.srcPort || !f.dstPort))
      throw UsageError("-I and -G need --sport and --dport for this protocol");
    if (c.verb == Verb::Create) {
      for (const auto* nat : {&c.srcNat, &c.dstNat})
        if (*nat && (*nat)->address.family() != f.src->family()) throw UsageError("-I: the NAT address must be of the entry's family");
      if (!c.entry.timeout) throw UsageError("-I needs a timeout (-t)");
      if (*f.protocol == IPPROTO_TCP && !c.entry.tcpState) throw UsageError("-I -p tcp needs --state");
      c.entry.mark = c.newMark;
      if (!c.labelAdd.empty()) c.entry.labels = c.labelAdd;
      ConntrackTuple reply = c.entry.orig.inverted();
      if (f.replySrc) reply.src = *f.replySrc;
      if (f.replyDst) reply.dst = *f.replyDst;
      if (c.replySport) reply.srcPort = c.replySport;
      if (c.replyDport) reply.dstPort = c.replyDport;
      c.entry.reply = reply;
    }
  }
  return c;
}

// ---- printing, as libnetfilter_conntrack's default format ----

/// ctime(3)'s text without its newline, in local time: libnetfilter_conntrack's [start=...].
std::string ctimeText(uint64_t ns) {
  time_t seconds = static_cast<time_t>(ns / 1000000000);
  tm local{};
  localtime_r(&seconds, &local);
  char text[64];
  std::strftime(text, sizeof text, "%a %b %e %H:%M:%S %Y", &local);
  return text;
}

/// Calls `each` with the number of every set bit of a label bitmap, lowest first.
template <class Each>
void forEachLabel(const std::vector<uint8_t>& labels, Each each) {
  for (unsigned bit = 0; bit < labels.size() * 8; ++bit)
    if ((labels[bit / 8] >> (bit % 8)) & 1) each(bit);
}

void putTuple(OutBuffer& out, const ConntrackTuple& t) {
  out.put("src=").putIp(t.src).put(" dst=").putIp(t.dst).put(' ');
  if (t.srcPort && t.dstPort) out.put("sport=").putUint(*t.srcPort).put(" dport=").putUint(*t.dstPort).put(' ');
  if (t.icmpType) {
    out.put("type=").putUint(*t.icmpType).put(" code=").putUint(t.icmpCode.value_or(0));
    out.put(" id=").putUint(t.icmpId.value_or(0)).put(' ');
  }
}

void putCounters(OutBuffer& out, const std::optional<ConntrackCounters>& c) {
  if (c) out.put("packets=").putUint(c->packets).put(" bytes=").putUint(c->bytes).put(' ');
}

/// One entry as `conntrack -L` prints it (no line break; a trailing space is removed).
void putEntry(OutBuffer& out, const ConntrackEntry& e, const Command& c) {
  if (c.extended) {
    std::string fam = fmt::format("{:<8} {} ", e.family == IpAddress::Family::v4 ? "ipv4" : "ipv6",
                                  e.family == IpAddress::Family::v4 ? 2 : 10);
    out.put(fam);
  }
  out.put(fmt::format("{:<8} {} ", protoName(e.orig.protocol), e.orig.protocol));
  if (e.timeout) out.putUint(*e.timeout).put(' ');
  if (e.tcpState && e.orig.protocol == IPPROTO_TCP) out.put(tcpStateName(*e.tcpState)).put(' ');
  putTuple(out, e.orig);
  putCounters(out, e.origCounters);
  uint32_t status = e.status.value_or(0);
  if (e.status && !(status & conntrack_status::kSeenReply)) out.put("[UNREPLIED] ");
  putTuple(out, e.reply);
  putCounters(out, e.replyCounters);
  if (status & conntrack_status::kAssured) out.put("[ASSURED] ");
  if (status & conntrack_status::kHwOffload) out.put("[HW_OFFLOAD] ");
  else if (status & conntrack_status::kOffload) out.put("[OFFLOAD] ");
  if (e.mark) out.put("mark=").putUint(*e.mark).put(' ');
  if (e.secmark) out.put("secmark=").putUint(*e.secmark).put(' ');
  if (e.zone) out.put("zone=").putUint(*e.zone).put(' ');
  if (e.startNs) {
    // With net.netfilter.nf_conntrack_timestamp=1: seconds since the entry was confirmed, up
    // to its end (DESTROY) or now, in whole seconds as libnetfilter_conntrack subtracts them.
    int64_t stop = e.stopNs && *e.stopNs ? static_cast<int64_t>(*e.stopNs / 1000000000) : static_cast<int64_t>(std::time(nullptr));
    out.put("delta-time=").putUint(static_cast<uint64_t>(stop - static_cast<int64_t>(*e.startNs / 1000000000))).put(' ');
  }
  if (c.ktimestamp && (c.verb == Verb::List || c.verb == Verb::Event)) {
    if (e.startNs) out.put("[start=").put(ctimeText(*e.startNs)).put("] ");
    if (e.stopNs) out.put("[stop=").put(ctimeText(*e.stopNs)).put("] ");
  }
  if (e.helper) out.put("helper=").put(*e.helper).put(' ');
  if (e.use) out.put("use=").putUint(*e.use).put(' ');
  if (c.showId && e.id) out.put("id=").putUint(*e.id).put(' ');
  // Labels by name, when a map was read (-o labels, -l, --label-*); conntrack -D prints none.
  if (e.labels && c.labelMap && c.labelMap->usable() && c.verb != Verb::Delete) {
    std::string text = "labels=";
    forEachLabel(*e.labels, [&](unsigned bit) {
      if (std::string_view name = c.labelMap->name(bit); !name.empty()) text.append(name).push_back(',');
    });
    text.pop_back();  // the last ',' (or, with no named bit, the '=': libnetfilter_conntrack's "labels")
    out.put(text).put(' ');
  }
}

void endLine(OutBuffer& out) {
  out.trimTrailingSpace();
  out.put('\n');
  out.endRecord();
}

void putJson(JsonOut& j, const ConntrackEntry& e, const Command& c) {
  auto tuple = [&](const char* name, const ConntrackTuple& t, const std::optional<ConntrackCounters>& counters) {
    j.key(name).beginObject();
    j.field("src", t.src).field("dst", t.dst);
    if (t.srcPort) j.field("sport", uint32_t{*t.srcPort});
    if (t.dstPort) j.field("dport", uint32_t{*t.dstPort});
    if (t.icmpType) j.field("type", uint32_t{*t.icmpType});
    if (t.icmpCode) j.field("code", uint32_t{*t.icmpCode});
    if (t.icmpId) j.field("id", uint32_t{*t.icmpId});
    if (counters) j.field("packets", counters->packets).field("bytes", counters->bytes);
    j.endObject();
  };
  j.field("family", e.family == IpAddress::Family::v4 ? "ipv4" : "ipv6");
  j.field("protocol", protoName(e.orig.protocol)).field("protonum", uint32_t{e.orig.protocol});
  if (e.timeout) j.field("timeout", *e.timeout);
  if (e.tcpState) j.field("state", tcpStateName(*e.tcpState));
  tuple("orig", e.orig, e.origCounters);
  tuple("reply", e.reply, e.replyCounters);
  if (e.status) {
    j.key("status").beginArray();
    for (const auto& s : kStatusNames)
      if (s.bit && (*e.status & s.bit)) j.value(s.name);
    // Not selectable with --status, but worth seeing: the NAT the kernel did.
    if (*e.status & conntrack_status::kSrcNatDone) j.value("SRC_NAT");
    if (*e.status & conntrack_status::kDstNatDone) j.value("DST_NAT");
    j.endArray();
  }
  if (e.mark) j.field("mark", *e.mark);
  if (e.zone) j.field("zone", uint32_t{*e.zone});
  if (e.startNs) j.field("start_ns", *e.startNs);
  if (e.stopNs) j.field("stop_ns", *e.stopNs);
  if (e.helper) j.field("helper", *e.helper);
  if (e.use) j.field("use", *e.use);
  if (e.id) j.field("id", *e.id);
  if (e.labels) {
    // Every set bit: its connlabel.conf name when one is known, else its number.
    j.key("labels").beginArray();
    forEachLabel(*e.labels, [&](unsigned bit) {
      std::string_view name = c.labelMap ? c.labelMap->name(bit) : std::string_view();
      if (name.empty()) j.value(uint32_t{bit});
      else j.value(name);
    });
    j.endArray();
  }
}

/// Prints entries as text or JSON; counts them for the summary line.
class Printer {
 public:
  Printer(Context& ctx, const Command& c) : command_(c) {
    if (ctx.options().json) json_.emplace(out_, ctx.options().pretty, c.verb == Verb::Event ? JsonOut::Layout::Lines : JsonOut::Layout::Array);
  }
  void print(const ConntrackEntry& e, std::string_view eventTag = {}, uint32_t portId = 0) {
    ++count_;
    if (json_) {
      json_->beginObject();
      if (!eventTag.empty()) json_->field("event", eventTag);
      putJson(*json_, e, command_);
      if (portId) json_->field("portid", portId);
      json_->endObject();
      json_->endElement();
      return;
    }
    if (!eventTag.empty() && command_.timestamp) {
      // conntrack's "[seconds.microseconds]\t", the wall clock when the event was read.
      timeval now{};
      gettimeofday(&now, nullptr);
      out_.put(fmt::format("[{}.{:06}]\t", now.tv_sec, now.tv_usec));
    }
    if (!eventTag.empty()) out_.put(fmt::format("{:>9} ", fmt::format("[{}]", eventTag)));
    putEntry(out_, e, command_);
    if (portId) {
      out_.put("[USERSPACE] portid=").putUint(portId).put(' ');
      const std::string& name = programName(portId);
      if (!name.empty()) out_.put("progname=").put(name).put(' ');
    }
    endLine(out_);
  }
  void restart() {
    count_ = 0;
    if (json_) json_->restartDump();
    else out_.restartDump();
  }
  void flush() { out_.flush(); }
  void finish() {
    if (json_) json_->finish();
    out_.flush();
  }
  std::size_t count() const { return count_; }

 private:
  /// The program behind a port id (the first socket of a process has its pid as port id), as
  /// conntrack finds it in /proc; remembered, so a flood of events from one program reads
  /// /proc once, not once per event.
  const std::string& programName(uint32_t portId) {
    auto [it, fresh] = programs_.try_emplace(portId);
    if (fresh) {
      std::ifstream comm("/proc/" + std::to_string(portId) + "/comm");
      std::getline(comm, it->second);
    }
    return it->second;
  }

  const Command& command_;
  OutBuffer out_{stdout};
  std::optional<JsonOut> json_;
  std::size_t count_ = 0;
  std::unordered_map<uint32_t, std::string> programs_;
};

void summary(std::string_view what) { std::fprintf(stderr, "fastlink conntrack: %.*s\n", int(what.size()), what.data()); }

volatile sig_atomic_t gStop = 0;

int runEvents(Context& ctx, const Command& c) {
  struct sigaction sa {};
  sa.sa_handler = [](int) { gStop = 1; };
  sigaction(SIGINT, &sa, nullptr);  // no SA_RESTART: the blocking receive returns
  sigaction(SIGTERM, &sa, nullptr);
  uint32_t mask = c.eventMask ? c.eventMask
                              : (1u << conntrack_group::kNew | 1u << conntrack_group::kUpdate | 1u << conntrack_group::kDestroy);
  SubscriptionOptions options;
  options.receiveBufferBytes = kEventBufferBytes;
  if (ctx.options().rcvbuf) options.receiveBufferBytes = ctx.options().rcvbuf;
  if (c.bufferSize) options.receiveBufferBytes = *c.bufferSize;
  Subscription sub = ctx.netlink().subscribeNetfilter({}, options);
  for (uint32_t g : {conntrack_group::kNew, conntrack_group::kUpdate, conntrack_group::kDestroy})
    if (mask & (1u << g)) sub.joinGeneric(g);
  Printer printer(ctx, c);
  Subscription::Handlers handlers;
  handlers.onNotification = [&](const Notification& n) {
    std::optional<ConntrackEvent> ev = decodeConntrackEvent(n);
    if (!ev || !c.filter.matches(ev->entry)) return;
    const char* tag = ev->type == ConntrackEventType::New ? "NEW" : ev->type == ConntrackEventType::Update ? "UPDATE" : "DESTROY";
    printer.print(ev->entry, tag, ev->senderPortId);
  };
  handlers.onOverflow = [&] {
    printer.flush();
    summary("WARNING: events were lost: the socket's receive buffer overflowed (ENOBUFS); raise it with -b BYTES");
  };
  while (!gStop) {
    sub.wait(handlers);
    printer.flush();
  }
  printer.finish();
  summary(fmt::format("{} flow events have been shown.", printer.count()));
  return sub.overflows() ? kConntrackFailed : kExitOk;
}

int runConntrackCommand(Context& ctx, Args& args) {
  if (!args.done() && (args.peek() == "help" || args.peek() == "-h" || args.peek() == "--help")) {
    printLine(kUsage);
    return kExitOk;
  }
  Command c = parse(args);
  ConntrackApi& ct = ctx.netlink().conntrack();
  try {
    switch (c.verb) {
      case Verb::List:
      case Verb::Get: {
        Printer p(ctx, c);
        if (c.verb == Verb::Get) p.print(ct.get(c.entry));
        else ct.forEach(c.filter, [&](const ConntrackEntry& e) { p.print(e); }, [&] { p.restart(); });
        p.finish();
        summary(fmt::format("{} flow entries have been shown.", p.count()));
        return kExitOk;
      }
      case Verb::Delete: {
        Printer p(ctx, c);
        std::size_t n = ct.deleteMatching(c.filter, [&](const ConntrackEntry& e) { p.print(e); });
        p.finish();
        summary(fmt::format("{} flow entries have been deleted.", n));
        return n ? kExitOk : kConntrackFailed;
      }
      case Verb::Create:
        ct.create(c.entry);
        summary("1 flow entries have been created.");
        return kExitOk;
      case Verb::Update: {
        // One filtered dump, then the changes pipelined; the updated entries are read back.
        std::vector<ConntrackEntry> found = ct.list(c.filter);
        std::size_t next = 0;
        BatchOptions options;
        options.onError = OnError::Continue;
        std::vector<std::size_t> applied;
        ct.run(
            [&]() -> std::optional<Request> {
              if (next == found.size()) return std::nullopt;
              ConntrackEntry change;
              const ConntrackEntry& e = found[next++];
              change.family = e.family;
              change.orig = e.orig;
              change.zone = e.zone;
              change.id = e.id;
              change.mark = c.newMark;
              change.timeout = c.entry.timeout;
              change.status = c.entry.status;
              if (!c.labelAdd.empty() || c.labelDel) {
                // The update replaces the whole bitmap (CTA_LABELS_MASK all ones): the entry's
                // labels with the named ones added, or taken away (--label-del alone: all).
                std::vector<uint8_t> bits = e.labels.value_or(std::vector<uint8_t>());
                bits.resize(kKernelLabelBits / 8, 0);
                for (std::size_t i = 0; i < bits.size(); ++i) {
                  if (!c.labelAdd.empty()) bits[i] |= i < c.labelAdd.size() ? c.labelAdd[i] : 0;
                  else if (c.labelDel->empty()) bits[i] = 0;
                  else bits[i] &= static_cast<uint8_t>(~(i < c.labelDel->size() ? (*c.labelDel)[i] : 0));
                }
                change.labels = std::move(bits);
              }
              return ConntrackRequests::update(change);
            },
            options, [&](std::size_t i, const RequestResult& r) {
              if (r.status == RequestStatus::Applied) applied.push_back(i);
            });
        Printer p(ctx, c);
        for (std::size_t i : applied) {
          ConntrackEntry key = found[i];
          key.id.reset();
          p.print(ct.get(key));
        }
        p.finish();
        summary(fmt::format("{} flow entries have been updated.", applied.size()));
        return applied.empty() ? kConntrackFailed : kExitOk;
      }
      case Verb::Flush:
        ct.flush(c.filter.family);
        summary("connection tracking table has been emptied.");
        return kExitOk;
      case Verb::Event: return runEvents(ctx, c);
      case Verb::None: break;
    }
  } catch (const Error& e) {
    if (e.code() == std::errc::no_such_file_or_directory && (c.verb == Verb::Get))
      printError(fmt::format("such conntrack doesn't exist ({})", e.operation()));
    else if (e.code() == std::errc::file_exists)
      printError(fmt::format("such conntrack exists already ({})", e.operation()));
    else reportFailure(e);
    return kConntrackFailed;
  }
  return kConntrackUsage;
}

int runConntrack(Context& ctx, Args& args) {
  return runWithUsageStatus(kConntrackUsage, [&] { return runConntrackCommand(ctx, args); });
}

const Registrar kConntrack{ObjectCommand{.name = "conntrack", .aliases = {"ct"}, .usage = kUsage, .run = runConntrack, .prepare = {}}};

}  // namespace
}  // namespace fastlink::cli
