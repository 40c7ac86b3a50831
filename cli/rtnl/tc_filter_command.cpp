// `fastlink tc filter { add | replace | change | del | show }` and `fastlink tc actions { add |
// del | show }` in tc 6.1's grammar: classifiers u32, matchall, flower, fw, basic, bpf (an object
// file loaded with libbpf, as `link set xdp` does); actions gact,
// mirred, police, skbedit, vlan, tunnel_key, csum, mpls, pedit. Output as tc prints it
// (tc_filter_print.cpp).
#include <charconv>
#include <fmt/format.h>
#include <linux/pkt_cls.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <span>

#include "fastlink/link.hpp"
#include "fastlink/netlink.hpp"
#include "fastlink/tc_filter.hpp"
#include "fastlink/xdp.hpp"
#include "kit/arg_errors.hpp"
#include "kit/device_names.hpp"
#include "kit/output.hpp"
#include "rtnl/ip_object.hpp"
#include "rtnl/tc_filter.hpp"
#include "rtnl/tc_filter_print.hpp"
#include "xdp/xdp_show.hpp"

namespace fastlink::cli {

const char* const kTcFilterUsage = R"(Usage: fastlink tc filter { add | replace | change | del } { dev NAME | block N }
                       [ root | ingress | egress | parent MAJ:MIN ] [ handle H ] [ pref N ] [ protocol P ]
                       [ chain N ] [ KIND [ OPTIONS ] ]
       fastlink tc [ -s ] [ -j ] filter show { dev NAME | block N } [ root | ingress | egress | parent MAJ:MIN ]
                       [ pref N ] [ protocol P ] [ chain N ] [ handle H KIND ]
       fastlink tc chain { add | del | get } { dev NAME | block N } [ root | ingress | egress | parent MAJ:MIN ]
                       [ protocol P ] [ chain N ] [ KIND [ OPTIONS ] ]
       fastlink tc [ -j ] chain show { dev NAME | block N } [ root | ingress | egress | parent MAJ:MIN ]
                       [ chain N ]
       fastlink tc actions { add | del } ACTION...
       fastlink tc actions flush action ACTION_KIND
       fastlink tc [ -s ] [ -j ] actions show action ACTION_KIND
       fastlink tc [ -s ] [ -j ] actions get action ACTION_KIND index N [ action ACTION_KIND index N ]...
KIND := u32 [ match SELECTOR ]... [ classid|flowid C ] [ divisor N ] [ ht H ] [ link H ] [ order N ]
            [ indev D ] [ skip_hw | skip_sw ] [ ACTION... ]
      | matchall [ classid C ] [ skip_hw | skip_sw ] [ ACTION... ]
      | flower [ classid C ] [ indev D ] [ skip_hw | skip_sw ] [ dst_mac M ] [ src_mac M ] [ vlan_id N ]
               [ vlan_prio N ] [ ip_proto tcp|udp|sctp|icmp|icmpv6|N ] [ dst_ip P ] [ src_ip P ]
               [ dst_port N ] [ src_port N ] [ MPLS_KEYS ] [ ACTION... ]
      | fw [ classid C ] [ indev D ] [ ACTION... ]          (handle MARK[/MASK])
      | basic [ classid C ] [ ACTION... ]
      | bpf { obj | object-file } FILE [ sec | section NAME ] [ da | direct-action ] [ classid C ]
            [ skip_hw | skip_sw ] [ ACTION... ]
MPLS_KEYS := [ mpls_label L ] [ mpls_tc T ] [ mpls_bos B ] [ mpls_ttl T ]
           | mpls lse depth D [ label L ] [ tc T ] [ bos B ] [ ttl T ] [ lse ... ]   (protocol mpls_uc|mpls_mc)
SELECTOR := ip { src | dst } PREFIX | ip { sport | dport } N MASK | ip { protocol | tos } N MASK
          | { u32 | u16 | u8 } VALUE MASK at [ nexthdr+ ] OFFSET
ACTION := action { gact CONTROL | CONTROL | goto chain N
                 | mirred { egress | ingress } { redirect | mirror } dev D [ CONTROL ]
                 | police rate R burst B [ mtu B ] [ peakrate R ] [ conform-exceed A[/A] ]
                 | skbedit [ queue_mapping Q ] [ priority C ] [ mark M[/MASK] ] [ ptype T ] [ CONTROL ]
                 | vlan { pop | push id N [ protocol P ] [ priority N ] | modify id N ... | pop_eth
                        | push_eth dst_mac M src_mac M } [ CONTROL ]
                 | tunnel_key { unset | set src_ip A dst_ip A [ id N ] [ dst_port N ] [ tos N ] [ ttl N ]
                                [ csum | nocsum ] } [ CONTROL ]
                 | csum { ip4h | icmp | igmp | tcp | udp | udplite | sctp }... [ CONTROL ]
                 | mpls { pop protocol P | push [ protocol P ] label L [ tc T ] [ ttl T ] [ bos B ]
                        | mac_push ... | modify [ label L ] [ tc T ] [ ttl T ] [ bos B ] | dec_ttl } [ CONTROL ]
                 | pedit [ ex ] munge MUNGE [ munge MUNGE ]... [ CONTROL ] } [ index N ]
MUNGE := { offset OFF { u8 | u16 | u32 } [ at AT OFFMASK SHIFT ] | ip FIELD | ip6 FIELD | tcp FIELD
         | udp FIELD | eth FIELD } { clear | invert | preserve | set V | add V | decrement } [ retain R ]
         (ip6, tcp, udp, eth, add and decrement need ex)
ACTION_KIND := gact | mirred | police | skbedit | vlan | tunnel_key | csum | mpls | pedit
CONTROL := pass | ok | drop | shot | continue | pipe | reclassify | stolen | trap)";

namespace {

enum class FilterVerb { Add, Replace, Change, Del };

struct ParsedFilter {
  FilterVerb verb = FilterVerb::Add;
  /// `tc chain add|del`: the placement (and a template's kind and options) of a chain.
  bool chain = false;
  TcFilterInfo info;
  std::optional<std::string> dev;
  std::vector<std::string> mirredDevs;
  /// bpf's program, loaded while parsing (a bad object fails before anything is sent) and kept
  /// open until the request has gone out.
  std::shared_ptr<XdpProgram> program;
  /// An earlier line's action list, emptied, its room kept for this line's (reusedFilter).
  std::vector<TcAction> spareActions;
};

[[noreturn]] void usage(const std::string& why) { throw UsageError(why); }

/// The current word, compared inline with each keyword of a long else-if chain: Args::accept was
/// an out-of-line call and a string compare per keyword, and a flower line of a 100,000-line
/// -batch tried ~15 of them per option word (callgrind: a fifth of the parse, issue 33).
class Word {
 public:
  explicit Word(Args& args) : args_(args), word_(args.peekView()) {}
  /// Consumes the word if it is `keyword`. Inlined: a call per keyword is what this saves.
  [[gnu::always_inline]] bool is(std::string_view keyword) {
    // The keyword is a literal: its size is known here, so the comparison is inlined whole.
    if (word_.size() != keyword.size() || __builtin_memcmp(word_.data(), keyword.data(), keyword.size()) != 0) return false;
    args_.nextView();
    return true;
  }
  std::string_view view() const { return word_; }

 private:
  Args& args_;
  std::string_view word_;
};

uint32_t number(Args& args, std::string_view keyword, uint32_t max = UINT32_MAX) {
  return parseU32(args.valueView(keyword), keyword, 0, max);
}

TcHandle handleWord(std::string_view word, std::string_view keyword) {
  return orUsage(keyword, [&] { return TcHandle::parse(word); });
}

/// tc's get_u32_handle: "HTID:HASH:NODE" in hex ("800:", "800::5", "1:2:3"), or "0x..." whole.
uint32_t u32HandleWord(const std::string& word, std::string_view keyword) {
  auto bad = [&]() -> uint32_t { usage(fmt::format("{}: \"{}\" is not a u32 handle (HT:BUCKET:NODE in hex)", keyword, word)); };
  auto colon = word.find(':');
  if (colon == std::string::npos) {
    if (word.starts_with("0x")) return static_cast<uint32_t>(parseInteger(word, keyword, 0, UINT32_MAX));
    return bad();
  }
  uint32_t parts[3] = {0, 0, 0};
  const uint32_t limits[3] = {0x1000, 0x100, 0x1000};
  std::size_t start = 0;
  for (int n = 0; n < 3; n++) {
    std::size_t end = word.find(':', start);
    std::string piece = word.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!piece.empty()) {
      char* stop = nullptr;
      unsigned long v = std::strtoul(piece.c_str(), &stop, 16);
      if (*stop || v >= limits[n]) return bad();
      parts[n] = static_cast<uint32_t>(v);
    }
    if (end == std::string::npos) break;
    if (n == 2) return bad();
    start = end + 1;
  }
  return parts[0] << 20 | parts[1] << 12 | parts[2];
}

int32_t controlWord(Args& args) {
  std::string_view w = args.nextView();
  if (w == "goto") {
    if (!args.accept("chain")) usage("goto: expected \"goto chain N\"");
    return tcact::gotoChain(number(args, "goto chain", 0x0FFFFFFF));
  }
  auto c = tcact::parse(w);
  if (!c) usage(fmt::format("\"{}\" is not an action control (pass, drop, pipe, continue, reclassify, stolen, trap)", w));
  return *c;
}

bool isControl(std::string_view w) { return tcact::parse(w).has_value() || w == "goto"; }

/// An optional trailing CONTROL word.
std::optional<int32_t> optionalControl(Args& args) {
  if (!args.done() && isControl(args.peekView())) return controlWord(args);
  return std::nullopt;
}

uint64_t rateWord(Args& args, std::string_view k) {
  return orUsage(k, [&] { return tcunits::parseRate(args.value(k), k); });
}
uint32_t sizeWord(Args& args, std::string_view k) {
  return orUsage(k, [&] { return tcunits::parseSize(args.value(k), k); });
}

MirredAction parseMirred(Args& args, std::vector<std::string>& devs) {
  MirredAction m;
  bool egress;
  if (Word d(args); d.is("egress")) egress = true;
  else if (d.is("ingress")) egress = false;
  else usage("mirred: expected egress or ingress");
  bool redirect;
  if (Word r(args); r.is("redirect")) redirect = true;
  else if (r.is("mirror")) redirect = false;
  else usage("mirred: expected redirect or mirror");
  m.mode = egress ? (redirect ? MirredAction::EgressRedirect : MirredAction::EgressMirror)
                  : (redirect ? MirredAction::IngressRedirect : MirredAction::IngressMirror);
  if (!Word(args).is("dev")) {
    // At the end of the line tc says "Command line is not complete" (255), as for a missing value.
    if (args.done()) throw MissingValueError("mirred: \"dev NAME\" is required");
    usage("mirred: \"dev NAME\" is required");
  }
  // The name waits in `devs` (resolveMirred sets m.dev from it, in the order read).
  devs.push_back(parseIfname(args.valueView("dev"), "mirred dev"));
  m.control = optionalControl(args);
  return m;
}

PoliceAction parsePolice(Args& args) {
  PoliceAction p;
  while (!args.done() && args.peek() != "action" && args.peek() != "index") {
    if (args.accept("rate")) p.rate = rateWord(args, "rate");
    else if (args.acceptAny({"burst", "buffer", "maxburst"})) p.burst = sizeWord(args, "burst");
    else if (args.acceptAny({"mtu", "minburst"})) p.mtu = sizeWord(args, "mtu");
    else if (args.accept("peakrate")) p.peakrate = rateWord(args, "peakrate");
    else if (args.acceptAny({"conform-exceed", "action"})) {
      std::string v = args.value("conform-exceed");
      auto control = [&](std::string_view part) {
        auto c = tcact::parse(part);
        if (!c) usage(fmt::format("conform-exceed: \"{}\" is not an action control", v));
        return *c;
      };
      auto slash = v.find('/');
      p.exceed = control(v.substr(0, slash));
      if (slash != std::string::npos) p.conform = control(v.substr(slash + 1));
    } else if (isControl(args.peek())) p.exceed = controlWord(args);
    else args.unknown("police takes rate, burst, mtu, peakrate, conform-exceed");
  }
  return p;
}

SkbeditAction parseSkbedit(Args& args) {
  SkbeditAction s;
  while (!args.done() && args.peek() != "action" && args.peek() != "index" && !isControl(args.peek())) {
    if (args.accept("queue_mapping")) s.queueMapping = static_cast<uint16_t>(number(args, "queue_mapping", 0xFFFF));
    else if (args.accept("priority")) s.priority = handleWord(args.value("priority"), "priority").value;
    else if (args.accept("mark")) {
      std::string v = args.value("mark");
      auto slash = v.find('/');
      s.mark = static_cast<uint32_t>(parseInteger(v.substr(0, slash), "mark", 0, UINT32_MAX));
      if (slash != std::string::npos) s.mask = static_cast<uint32_t>(parseInteger(v.substr(slash + 1), "mark mask", 0, UINT32_MAX));
    } else if (args.accept("ptype")) {
      std::string v = args.value("ptype");
      if (v == "host") s.ptype = 0;
      else if (v == "broadcast") s.ptype = 1;
      else if (v == "multicast") s.ptype = 2;
      else if (v == "otherhost") s.ptype = 3;
      else usage(fmt::format("ptype: \"{}\" is not host, broadcast, multicast or otherhost", v));
    } else args.unknown("skbedit takes queue_mapping, priority, mark, ptype");
  }
  if (auto c = optionalControl(args)) s.control = *c;
  return s;
}

VlanAction parseVlan(Args& args) {
  VlanAction v;
  if (args.accept("pop")) v.op = VlanAction::Pop;
  else if (args.accept("push")) v.op = VlanAction::Push;
  else if (args.accept("modify")) v.op = VlanAction::Modify;
  else if (args.accept("pop_eth")) v.op = VlanAction::PopEth;
  else if (args.accept("push_eth")) v.op = VlanAction::PushEth;
  else usage("vlan: expected pop, push, modify, pop_eth or push_eth");
  // push_eth takes the Ethernet header's addresses, as tc's m_vlan.c (both required).
  while (v.op == VlanAction::PushEth && !args.done() && args.peek() != "action" && args.peek() != "index" &&
         !isControl(args.peek())) {
    if (args.accept("dst_mac")) v.dstMac = parseMac(args.value("dst_mac"), "dst_mac");
    else if (args.accept("src_mac")) v.srcMac = parseMac(args.value("src_mac"), "src_mac");
    else args.unknown("vlan push_eth takes dst_mac, src_mac");
  }
  if (v.op == VlanAction::PushEth && !v.dstMac) usage("vlan push_eth: \"dst_mac LLADDR\" is required");
  if (v.op == VlanAction::PushEth && !v.srcMac) usage("vlan push_eth: \"src_mac LLADDR\" is required");
  while ((v.op == VlanAction::Push || v.op == VlanAction::Modify) && !args.done() && args.peek() != "action" && args.peek() != "index" && !isControl(args.peek())) {
    if (args.accept("id")) v.id = static_cast<uint16_t>(number(args, "id", 4094));
    else if (args.accept("protocol")) {
      std::string w = args.value("protocol");
      auto p = parseProtocol(w);
      if (!p || (*p != 0x8100 && *p != 0x88A8)) usage(fmt::format("vlan protocol: \"{}\" is not 802.1Q or 802.1ad", w));
      v.protocol = *p;
    } else if (args.accept("priority")) v.priority = static_cast<uint8_t>(number(args, "priority", 7));
    else args.unknown("vlan push/modify take id, protocol, priority");
  }
  if ((v.op == VlanAction::Push || v.op == VlanAction::Modify) && v.id == 0) usage("vlan push/modify: \"id N\" is required");
  if (auto c = optionalControl(args)) v.control = *c;
  return v;
}

TunnelKeyAction parseTunnelKey(Args& args) {
  TunnelKeyAction t;
  if (args.accept("unset")) t.unset = true;
  else if (!args.accept("set")) usage("tunnel_key: expected set or unset");
  while (!t.unset && !args.done() && args.peek() != "action" && args.peek() != "index" && !isControl(args.peek())) {
    if (args.accept("src_ip")) t.src = parseIp(args.value("src_ip"), "src_ip");
    else if (args.accept("dst_ip")) t.dst = parseIp(args.value("dst_ip"), "dst_ip");
    else if (args.accept("id")) t.keyId = number(args, "id");
    else if (args.accept("dst_port")) t.dstPort = static_cast<uint16_t>(number(args, "dst_port", 0xFFFF));
    else if (args.accept("tos")) t.tos = static_cast<uint8_t>(number(args, "tos", 0xFF));
    else if (args.accept("ttl")) t.ttl = static_cast<uint8_t>(number(args, "ttl", 0xFF));
    else if (args.accept("csum")) t.noCsum = false;
    else if (args.accept("nocsum")) t.noCsum = true;
    else args.unknown("tunnel_key set takes src_ip, dst_ip, id, dst_port, tos, ttl, csum, nocsum");
  }
  if (!t.unset && (!t.src || !t.dst)) usage("tunnel_key set: src_ip and dst_ip are required");
  if (auto c = optionalControl(args)) t.control = *c;
  return t;
}

CsumAction parseCsum(Args& args) {
  CsumAction c;
  static const std::pair<const char*, uint32_t> kHeaders[] = {{"iph", 1},  {"ip4h", 1},  {"ipv4h", 1},   {"icmp", 2},
                                                              {"igmp", 4}, {"tcp", 8},   {"udp", 16},    {"udplite", 32},
                                                              {"sctp", 64}};
  while (!args.done() && args.peek() != "action" && args.peek() != "index" && !isControl(args.peek())) {
    if (args.accept("and")) continue;
    bool found = false;
    for (const auto& [name, bit] : kHeaders)
      if (args.accept(name)) c.updateFlags |= bit, found = true;
    if (!found) args.unknown("csum takes ip4h, icmp, igmp, tcp, udp, udplite, sctp");
  }
  if (c.updateFlags == 0) usage("csum: name at least one header (ip4h, tcp, udp, ...)");
  if (auto ctl = optionalControl(args)) c.control = *ctl;
  return c;
}

/// tc's get_u32/get_integer with base 0: decimal, 0x hex or 0 octal (strtoul), whole word.
int64_t baseZero(const std::string& text, std::string_view keyword, int64_t min, int64_t max) {
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 0);
  if (text.empty() || *end || errno || v < min || v > max)
    usage(fmt::format("{}: \"{}\" is not a number in {}-{} (decimal, 0x hex or 0 octal)", keyword, text, min, max));
  return v;
}

/// The field `word` (label, tc, bos, ttl) of an MPLS label stack entry, read by
/// `read(word, min, max)`: flower's `lse` and the mpls action take the same words and ranges
/// (the action's ttl from 1).
template <class Entry, class Read>
bool lseField(std::string_view word, Entry& e, uint32_t ttlMin, Read read) {
  if (word == "label") e.label = read("label", 0, 0xFFFFF);
  else if (word == "tc") e.tc = static_cast<uint8_t>(read("tc", 0, 7));
  else if (word == "bos") e.bos = static_cast<uint8_t>(read("bos", 0, 1));
  else if (word == "ttl") e.ttl = static_cast<uint8_t>(read("ttl", ttlMin, 255));
  else return false;
  return true;
}

/// `mpls pop protocol P | push|mac_push [protocol P] label L [tc T] [ttl T] [bos B] | modify ... |
/// dec_ttl [CONTROL]`, in m_mpls.c's order: the op, then its fields in any order.
MplsAction parseMpls(Args& args) {
  // m_mpls.c's invarg/missarg exit 255 (MissingValueError); its other refusals exit 1.
  auto invarg = [](const std::string& why) -> uint32_t { throw MissingValueError(why); };
  MplsAction m;
  std::optional<MplsAction::Op> op;
  static const std::pair<const char*, MplsAction::Op> kOps[] = {
      {"pop", MplsAction::Pop}, {"push", MplsAction::Push}, {"modify", MplsAction::Modify},
      {"mac_push", MplsAction::MacPush}, {"dec_ttl", MplsAction::DecTtl}};
  // A label stack entry's field (lseField): only for push, mac_push and modify; base 0.
  auto field = [&](const char* keyword, uint32_t min, uint32_t max) {
    if (!op || (*op != MplsAction::Push && *op != MplsAction::MacPush && *op != MplsAction::Modify))
      invarg(fmt::format("mpls {}: only valid for push, mac_push and modify", keyword));
    args.nextView();
    const std::string& text = args.value(fmt::format("mpls {}", keyword));
    errno = 0;
    char* end = nullptr;
    unsigned long long v = std::strtoull(text.c_str(), &end, 0);
    if (text.empty() || text[0] == '-' || *end || errno || v < min || v > max)
      return invarg(fmt::format("mpls {}: \"{}\" is not a number in {}-{}", keyword, text, min, max));
    return static_cast<uint32_t>(v);
  };
  while (!args.done()) {
    const std::string& w = args.peek();
    auto named = std::find_if(std::begin(kOps), std::end(kOps), [&](const auto& o) { return w == o.first; });
    if (named != std::end(kOps)) {
      if (op) {
        auto was = std::find_if(std::begin(kOps), std::end(kOps), [&](const auto& o) { return o.second == *op; });
        usage(fmt::format("mpls: got \"{}\" but the action is already \"{}\"", w, was->first));
      }
      op = named->second;
      args.nextView();
    } else if (w == "protocol") {
      if (!op || *op == MplsAction::Modify || *op == MplsAction::DecTtl) invarg("mpls protocol: only valid for push, mac_push and pop");
      args.nextView();
      const std::string& text = args.value("mpls protocol");
      auto p = parseProtocol(text);
      if (!p) invarg(fmt::format("mpls protocol: \"{}\" is not a protocol name or number", text));
      m.protocol = *p;
    } else if (!lseField(w, m, 1, field)) {
      break;
    }
  }
  if (!op) throw MissingValueError("mpls: expected pop, push, mac_push, modify or dec_ttl");
  m.op = *op;
  if (auto c = optionalControl(args)) m.control = *c;
  if (m.op == MplsAction::Push && !m.label) invarg("mpls push: \"label LABEL\" is required");
  if ((m.op == MplsAction::Push || m.op == MplsAction::MacPush) && m.protocol && *m.protocol != 0x8847 && *m.protocol != 0x8848)
    usage(fmt::format("mpls {}push: protocol 0x{:04x} is not mpls_uc or mpls_mc", m.op == MplsAction::MacPush ? "mac_" : "", *m.protocol));
  if (m.op == MplsAction::Pop && !m.protocol) invarg("mpls pop: \"protocol PROTO\" (the next header) is required");
  return m;
}

// ---- pedit ------------------------------------------------------------------------------------

/// One `munge` field of pedit's layered grammar (tc's p_ip.c, p_ip6.c, p_tcp.c, p_udp.c,
/// p_eth.c): where it lies, its width in bytes and the bits of its byte/word it owns.
struct PeditField {
  const char* name;
  bool prefix;  ///< matched by prefix, as tc's matches() (ip dsfield, precedence); else exactly
  int32_t off;
  int len;  ///< 1, 2, 4; 6 a MAC address, 16 an IPv6 address
  uint32_t retain;
  enum Type { Number, Ipv4, Ipv6, Mac } type = Number;
  bool decrement = false;  ///< `decrement` allowed (ttl, hoplimit)
  bool exOnly = false;     ///< refused with `ex` (ip's fields outside the IP header)
};

constexpr uint32_t kRu8 = 0xFF, kRu16 = 0xFFFF, kRu32 = 0xFFFFFFFF;
constexpr PeditField kIpFields[] = {
    {"src", false, 12, 4, kRu32, PeditField::Ipv4},     {"dst", false, 16, 4, kRu32, PeditField::Ipv4},
    {"tos", false, 1, 1, kRu8},                         {"dsfield", true, 1, 1, kRu8},
    {"ihl", false, 0, 1, 0x0F},                         {"ttl", false, 8, 1, kRu8, PeditField::Number, true},
    {"protocol", false, 9, 1, kRu8},                    {"precedence", true, 1, 1, kRu8},
    {"nofrag", false, 6, 1, 0x3F},                      {"firstfrag", false, 6, 1, 0x1F},
    {"ce", false, 6, 1, 0x80},                          {"df", false, 6, 1, 0x40},
    {"mf", false, 6, 1, 0x20},
    // Outside the IP header (the next header's ports and ICMP type/code): not in extended pedit.
    {"dport", false, 22, 2, kRu16, PeditField::Number, false, true},
    {"sport", false, 20, 2, kRu16, PeditField::Number, false, true},
    {"icmp_type", false, 20, 1, kRu8, PeditField::Number, false, true},
    {"icmp_code", false, 20, 1, kRu8, PeditField::Number, false, true},  // at 20 as tc (not 21)
};
constexpr PeditField kIp6Fields[] = {
    {"src", false, 8, 16, kRu32, PeditField::Ipv6},   {"dst", false, 24, 16, kRu32, PeditField::Ipv6},
    {"flow_lbl", false, 0, 4, 0x0007FFFF},            {"payload_len", false, 4, 2, kRu16},
    {"nexthdr", false, 6, 1, kRu8},                   {"hoplimit", false, 7, 1, kRu8, PeditField::Number, true},
    {"traffic_class", false, 1, 1, kRu8},
};
constexpr PeditField kTcpFields[] = {{"sport", false, 0, 2, kRu16}, {"dport", false, 2, 2, kRu16}, {"flags", false, 13, 1, kRu8}};
constexpr PeditField kUdpFields[] = {{"sport", false, 0, 2, kRu16}, {"dport", false, 2, 2, kRu16}};
constexpr PeditField kEthFields[] = {
    {"type", false, 12, 2, kRu16}, {"dst", false, 0, 6, kRu32, PeditField::Mac}, {"src", false, 6, 6, kRu32, PeditField::Mac}};

/// tc's pack_key: one more key (offset on a 32-bit boundary; non-extended pedit only sets).
void peditPack(PeditAction& p, PeditKey k) {
  if (p.keys.size() >= 128) usage("pedit: at most 128 keys");
  if (k.off % 4) usage("pedit: offsets must be on 32-bit boundaries");
  if (!p.extended && (k.header != PeditKey::Network || k.command != PeditKey::Set))
    usage("pedit: these munge parameters need extended pedit (\"pedit ex munge ...\")");
  p.keys.push_back(k);
}

/// tc's pack_key32/16/8: value and mask placed in the 32-bit word holding the field, the bits
/// outside `retain` kept. Host order here (tc's htonl is the encoder's).
void peditPackSized(PeditAction& p, PeditKey k, int len, uint32_t retain) {
  if (len == 4) {
    if (k.off % 4) usage("pedit: 32-bit fields must begin on 32-bit boundaries");
    k.value &= retain;
    k.mask |= ~retain;
    return peditPack(p, k);
  }
  if (len == 2) {
    if (k.value > 0xFFFF || k.mask > 0xFFFF) usage(fmt::format("pedit: value 0x{:x} does not fit 16 bits", k.value));
    static constexpr uint32_t kWord[] = {0x0000FFFF, 0xFF0000FF, 0xFFFF0000};
    int ind = k.off & 3;
    if (ind == 3) usage("pedit: a 16-bit field cannot begin at the last byte of a 32-bit word");
    int stride = 8 * (2 - ind);
    k.value = (k.value & retain) << stride;
    k.mask = ((k.mask | ~retain) << stride) | kWord[ind];
    k.off &= ~3;
    return peditPack(p, k);
  }
  if (k.value > 0xFF || k.mask > 0xFF) usage(fmt::format("pedit: value 0x{:x} does not fit 8 bits", k.value));
  static constexpr uint32_t kByte[] = {0x00FFFFFF, 0xFF00FFFF, 0xFFFF00FF, 0xFFFFFF00};
  int ind = k.off & 3;
  int stride = 8 * (3 - ind);
  k.value = (k.value & retain) << stride;
  k.mask = ((k.mask | ~retain) << stride) | kByte[ind];
  k.off &= ~3;
  peditPack(p, k);
}

/// tc's parse_cmd: `clear | invert | set V | add V | decrement | preserve [retain R]` for a field
/// of `len` bytes at k.off, then the keys it makes.
void peditCommand(Args& args, PeditAction& p, PeditKey k, const PeditField& f) {
  if (args.done()) throw MissingValueError("pedit munge: expected clear, invert, set, add, decrement or preserve");
  uint32_t retain = f.retain;
  // The field's value as bytes (addresses) or as a number, as tc's val[4] holds them.
  std::array<uint8_t, 16> bytes{};
  uint32_t value = 0, mask = 0;
  const uint32_t ones = f.len == 2 ? 0xFFFF : f.len == 4 ? 0xFFFFFFFF : 0xFF;
  std::string w(args.nextView());
  if (matches(w, "invert")) {
    value = mask = ones;
    // tc writes 0xff in its first value word for the wide fields: on x86 the address's first byte.
    if (f.type == PeditField::Ipv6 || f.type == PeditField::Mac) bytes[0] = 0xFF;
  } else if (matches(w, "set") || matches(w, "add")) {
    if (matches(w, "add")) {
      k.command = PeditKey::Add;
      if (!p.extended) usage("pedit: without \"ex\" only the set command is supported");
    }
    const std::string& text = args.value(fmt::format("pedit {}", w));
    switch (f.type) {
      case PeditField::Number: value = static_cast<uint32_t>(baseZero(text, "pedit value", 0, UINT32_MAX)); break;
      case PeditField::Ipv4:
      case PeditField::Ipv6: {
        IpAddress a = orUsage("pedit value", [&] { return IpAddress::parse(text.substr(0, text.find('/'))); });
        if (a.isV4() != (f.type == PeditField::Ipv4))
          usage(fmt::format("pedit value: \"{}\" is not an {} address", text, f.type == PeditField::Ipv4 ? "IPv4" : "IPv6"));
        auto b = a.bytes();
        std::copy(b.begin(), b.end(), bytes.begin());
        value = uint32_t{bytes[0]} << 24 | uint32_t{bytes[1]} << 16 | uint32_t{bytes[2]} << 8 | bytes[3];
        break;
      }
      case PeditField::Mac: {
        auto mac = parseMac(text, "pedit value");
        if (mac.size() != 6) usage(fmt::format("pedit value: \"{}\" is not a 6-byte MAC address", text));
        auto b = mac.bytes();
        std::copy(b.begin(), b.end(), bytes.begin());
        break;
      }
    }
  } else if (matches(w, "decrement")) {
    if (!f.decrement) usage("pedit: decrement is not supported for this field");
    if (!p.extended) usage("pedit: without \"ex\" only the set command is supported");
    k.command = PeditKey::Add;
    value = retain;  // adding all ones decrements
  } else if (matches(w, "preserve")) {
    retain = 0;
  } else if (!matches(w, "clear")) {
    usage(fmt::format("pedit munge: \"{}\" is not clear, invert, set, add, decrement or preserve", w));
  }
  if (!args.done() && matches(args.peek(), "retain")) {
    args.nextView();
    retain = static_cast<uint32_t>(baseZero(args.value("pedit retain"), "pedit retain", 0, UINT32_MAX));
  }
  if (f.len > 4 && retain != kRu32) usage("pedit: retain is not supported for fields longer than 32 bits");
  auto word = [&](std::size_t at) {
    return uint32_t{bytes[at]} << 24 | uint32_t{bytes[at + 1]} << 16 | uint32_t{bytes[at + 2]} << 8 | bytes[at + 3];
  };
  if (f.type == PeditField::Ipv6) {
    // tc's pack_ipv6: four whole words, each replaced (mask 0), whatever the command.
    if (k.off & 3) usage("pedit: IPv6 offsets must begin on 32-bit boundaries");
    for (std::size_t i = 0; i < 4; i++, k.off += 4) {
      k.value = word(4 * i);
      k.mask = 0;
      peditPackSized(p, k, 4, kRu32);
    }
    return;
  }
  if (f.type == PeditField::Mac) {
    // tc's pack_mac: a word and a half-word, in the order the offset's alignment gives.
    uint32_t head = word(0), tail16 = uint32_t{bytes[4]} << 8 | bytes[5];
    k.mask = 0;
    if ((k.off & 3) == 0) {
      k.value = head;
      peditPackSized(p, k, 4, kRu32);
      k.off += 4;
      k.value = tail16;
      peditPackSized(p, k, 2, kRu32);
    } else if ((k.off & 1) == 0) {
      k.value = uint32_t{bytes[0]} << 8 | bytes[1];
      PeditKey first = k;
      peditPackSized(p, first, 2, kRu32);
      k.off = (k.off & ~3) + 4;
      k.value = word(2);
      peditPackSized(p, k, 4, kRu32);
    } else {
      usage("pedit: MAC address offsets must begin on 32-bit or 16-bit boundaries");
    }
    return;
  }
  k.value = value;
  k.mask = mask;
  peditPackSized(p, k, f.len, retain);
}

/// `munge offset OFF u8|u16|u32 [at AT OFFMASK SHIFT] CMD` or `munge LAYER FIELD CMD`.
void peditMunge(Args& args, PeditAction& p) {
  if (args.done()) throw MissingValueError("pedit munge: expected offset, ip, ip6, tcp, udp or eth");
  PeditKey k;
  std::string layer(args.nextView());
  if (matches(layer, "offset")) {
    k.off = static_cast<int32_t>(baseZero(args.value("pedit offset"), "pedit offset", INT32_MIN, INT32_MAX));
    const std::string& size = args.value("pedit offset OFF");
    PeditField f{"offset", false, k.off, 0, 0};
    if (matches(size, "u32")) f.len = 4, f.retain = kRu32;
    else if (matches(size, "u16")) f.len = 2, f.retain = kRu16;
    else if (matches(size, "u8")) f.len = 1, f.retain = kRu8;
    else usage(fmt::format("pedit offset: \"{}\" is not u8, u16 or u32", size));
    if (!args.done() && matches(args.peek(), "at")) {
      args.nextView();
      k.at = static_cast<uint32_t>(baseZero(args.value("pedit at"), "pedit at", 0, UINT32_MAX));
      const std::string& offmask = args.value("pedit at AT OFFMASK");
      char* end = nullptr;
      errno = 0;
      unsigned long m = std::strtoul(offmask.c_str(), &end, 16);  // tc reads the offmask in hex
      if (offmask.empty() || *end || errno || m > UINT32_MAX) usage(fmt::format("pedit at: offmask \"{}\" is not a 32-bit hex number", offmask));
      k.offmask = static_cast<uint32_t>(m);
      k.shift = static_cast<uint32_t>(baseZero(args.value("pedit at AT OFFMASK SHIFT"), "pedit shift", 0, UINT32_MAX));
    }
    return peditCommand(args, p, k, f);
  }
  std::span<const PeditField> fields;
  PeditKey::HeaderType header = PeditKey::Network;
  if (layer == "ip") fields = kIpFields, header = p.extended ? PeditKey::Ip4 : PeditKey::Network;
  else if (layer == "ip6") fields = kIp6Fields, header = PeditKey::Ip6;
  else if (layer == "tcp") fields = kTcpFields, header = PeditKey::Tcp;
  else if (layer == "udp") fields = kUdpFields, header = PeditKey::Udp;
  else if (layer == "eth") fields = kEthFields, header = PeditKey::Eth;
  else usage(fmt::format("pedit munge: \"{}\" is not offset, ip, ip6, tcp, udp or eth", layer));
  if (layer != "ip" && !p.extended) usage(fmt::format("pedit munge {}: needs extended pedit (\"pedit ex munge {} ...\")", layer, layer));
  if (args.done()) throw MissingValueError(fmt::format("pedit munge {}: a field is required", layer));
  std::string name(args.nextView());
  auto f = std::find_if(fields.begin(), fields.end(), [&](const PeditField& x) { return x.prefix ? matches(name, x.name) : name == x.name; });
  if (f == fields.end() || (f->exOnly && p.extended)) {
    std::string names;
    for (const PeditField& x : fields)
      if (!(x.exOnly && p.extended)) names += std::string(names.empty() ? "" : ", ") + x.name;
    usage(fmt::format("pedit munge {}: \"{}\" is not a field fastlink knows here ({})", layer, name, names));
  }
  k.header = header;
  k.off = f->off;
  std::size_t before = p.keys.size();
  peditCommand(args, p, k, *f);
  if (layer == "ip6" && name == "traffic_class" && p.keys.size() > before) {
    // tc shifts traffic_class by 4 bits: it straddles the first two bytes.
    PeditKey& last = p.keys.back();
    last.mask = last.mask << 4 | 0xF;
    last.value <<= 4;
  }
}

/// `pedit [ex] munge MUNGE [munge MUNGE]... [CONTROL]` (tc's m_pedit.c).
PeditAction parsePedit(Args& args) {
  PeditAction p;
  if (!args.done() && args.peek() == "ex") p.extended = true, args.nextView();
  bool any = false;
  while (!args.done() && matches(args.peek(), "munge")) {
    args.nextView();
    peditMunge(args, p);
    any = true;
  }
  if (!any) usage("pedit: expected \"munge ...\" (pedit [ex] munge { offset OFF u8|u16|u32 | ip|ip6|tcp|udp|eth FIELD } CMD)");
  if (auto c = optionalControl(args)) p.control = *c;
  return p;
}

/// The words after one "action": KIND OPTIONS [index N].
/// One `action KIND ...`, built where it lies at the end of `out` (a TcAction is large: returned
/// and moved into the list, it cost a flower line of a -batch ~200 instructions, issue 33).
void parseAction(Args& args, std::vector<TcAction>& out, std::vector<std::string>& devs) {
  if (args.done()) usage("action: a kind is required (gact, mirred, police, skbedit, vlan, tunnel_key, csum, mpls, pedit)");
  TcAction& a = out.emplace_back();
  a.setOptions([&]() -> TcActionOptions {
    Word k(args);
    if (k.is("mirred")) return parseMirred(args, devs);
    // A kind is not a control word: the most common one (mirred) skips tcact::parse's search.
    if (isControl(k.view())) return GactAction{controlWord(args)};
    if (k.is("gact")) return GactAction{controlWord(args)};
    if (k.is("police")) return parsePolice(args);
    if (k.is("skbedit")) return parseSkbedit(args);
    if (k.is("vlan")) return parseVlan(args);
    if (k.is("tunnel_key")) return parseTunnelKey(args);
    if (k.is("csum")) return parseCsum(args);
    if (k.is("mpls")) return parseMpls(args);
    if (k.is("pedit")) return parsePedit(args);
    usage(fmt::format("action \"{}\" is not one fastlink knows (gact, mirred, police, skbedit, vlan, tunnel_key, csum, mpls, pedit)", args.nextView()));
  }());
  if (args.accept("index")) a.index = number(args, "index");
}

// ---- u32 selectors ----------------------------------------------------------------------------------

/// tc's pack_key: a key at the same offset is merged (conflicting bits refused).
void packKey(U32FilterOptions& o, uint32_t value, uint32_t mask, int32_t off, int32_t offmask) {
  value &= mask;
  for (U32Key& k : o.keys) {
    if (k.off == off && k.offmask == offmask) {
      if ((k.value ^ value) & k.mask & mask) usage("u32: this match conflicts with an earlier one at the same offset");
      k.value |= value;
      k.mask |= mask;
      return;
    }
  }
  if (o.keys.size() >= 128) usage("u32: at most 128 keys");
  o.keys.push_back({value, mask, off, offmask});
}

void packSized(U32FilterOptions& o, int bits, uint32_t value, uint32_t mask, int32_t off, int32_t offmask) {
  if (bits == 32) {
    if (off % 4) usage("u32 match u32: the offset must be a multiple of 4");
    return packKey(o, value, mask, off, offmask);
  }
  if (bits == 16) {
    if (value > 0xFFFF || mask > 0xFFFF) usage("u32 match u16: value and mask are 16 bits");
    if (off % 2) usage("u32 match u16: the offset must be even");
    int shift = (off & 3) == 0 ? 16 : 0;
    return packKey(o, value << shift, mask << shift, off & ~3, offmask);
  }
  if (value > 0xFF || mask > 0xFF) usage("u32 match u8: value and mask are 8 bits");
  int shift = 24 - 8 * (off & 3);
  packKey(o, value << shift, mask << shift, off & ~3, offmask);
}

uint32_t hexOrDecimal(Args& args, std::string_view keyword) {
  return static_cast<uint32_t>(parseInteger(args.valueView(keyword), keyword, 0, UINT32_MAX));
}

/// A selector's mask, which tc reads in base 16 with or without "0x" (f_u32.c: get_u32(&mask,
/// *argv, 16)): "match u32 0 10" masks 0x10, not 10.
uint32_t hexMask(Args& args, std::string_view keyword) {
  std::string_view text = args.valueView(keyword);
  std::string_view digits = text.starts_with("0x") || text.starts_with("0X") ? text.substr(2) : text;
  uint32_t mask = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), mask, 16);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size())
    usage(fmt::format("{}: \"{}\" is not a hexadecimal mask of 32 bits or fewer", keyword, text));
  return mask;
}

void parseSelector(Args& args, U32FilterOptions& o) {
  std::string_view what = args.valueView("match");
  if (what == "u32" || what == "u16" || what == "u8") {
    int bits = what == "u32" ? 32 : what == "u16" ? 16 : 8;
    uint32_t value = hexOrDecimal(args, what);
    uint32_t mask = hexMask(args, std::string(what) + " mask");
    // "at OFFSET" is optional, as in tc: without it the key is at offset 0.
    int32_t offmask = 0, off = 0;
    if (args.accept("at")) {
      std::string at = args.value("at");
      if (at.starts_with("nexthdr+")) offmask = 1, at = at.substr(8);
      off = static_cast<int32_t>(parseInteger(at, "at", 0, 0xFFFF));
    }
    // "nexthdr+" keys take their offset from the hash/offset machinery tc sets up: kept simple.
    return packSized(o, bits, value, mask, off, offmask ? -1 : 0);
  }
  if (what != "ip") usage(fmt::format("match: \"{}\" is not a selector fastlink knows (ip, u32, u16, u8)", what));
  std::string_view field = args.valueView("match ip");
  if (field == "src" || field == "dst") {
    std::string_view text = args.valueView(field == "src" ? "match ip src" : "match ip dst");
    Prefix p = orUsage(fmt::format("match ip {}", field), [&] { return Prefix::parse(text); });
    if (!p.isV4()) usage(fmt::format("match ip {}: \"{}\" is not an IPv4 prefix", field, text));
    auto b = p.address().bytes();
    uint32_t addr = uint32_t{b[0]} << 24 | uint32_t{b[1]} << 16 | uint32_t{b[2]} << 8 | b[3];
    uint32_t mask = p.length() ? ~uint32_t{0} << (32 - p.length()) : 0;
    return packKey(o, addr, mask, field == "src" ? 12 : 16, 0);
  }
  auto valueMask = [&](uint32_t max) {
    uint32_t v = hexOrDecimal(args, fmt::format("match ip {}", field));
    uint32_t m = hexMask(args, fmt::format("match ip {} mask", field));
    if (v > max || m > max) usage(fmt::format("match ip {}: value or mask too large", field));
    return std::pair{v, m};
  };
  if (field == "sport" || field == "dport") {
    auto [v, m] = valueMask(0xFFFF);
    return packSized(o, 16, v, m, field == "sport" ? 20 : 22, 0);
  }
  if (field == "protocol" || field == "tos" || field == "dsfield") {
    auto [v, m] = valueMask(0xFF);
    return packSized(o, 8, v, m, field == "protocol" ? 9 : 1, 0);
  }
  usage(fmt::format("match ip {}: fastlink knows src, dst, sport, dport, protocol, tos", field));
}

/// The words every classifier takes where its options hold them (tc's grammar gives a kind
/// exactly these): classid|flowid C, indev D, skip_hw|skip_sw, and its actions.
template <class Options>
bool classifierWord(Args& args, Options& o, ParsedFilter& pf) {
  Word w(args);
  if (w.view() == "action") {
    while (Word(args).is("action")) parseAction(args, o.actions, pf.mirredDevs);
    return true;
  }
  if (w.is("classid") || w.is("flowid")) return (o.classid = handleWord(args.value("classid"), "classid"), true);
  if constexpr (requires { o.indev; })
    if (w.is("indev")) return (o.indev = parseIfname(args.valueView("indev"), "indev"), true);
  if constexpr (requires { o.flags; }) {
    if (w.is("skip_hw")) return (o.flags |= TCA_CLS_FLAGS_SKIP_HW, true);
    if (w.is("skip_sw")) return (o.flags |= TCA_CLS_FLAGS_SKIP_SW, true);
  }
  return false;
}

void parseU32Options(Args& args, ParsedFilter& pf, U32FilterOptions& o) {
  std::optional<uint32_t> order;
  while (!args.done()) {
    if (args.accept("match")) parseSelector(args, o);
    else if (args.accept("divisor")) o.divisor = number(args, "divisor", 256);
    else if (args.accept("order")) order = number(args, "order", 0xFFF);
    else if (args.accept("link")) o.link = u32HandleWord(args.value("link"), "link");
    else if (args.accept("ht")) o.hashTable = u32HandleWord(args.value("ht"), "ht") & 0xFFFFF000u;
    else if (classifierWord(args, o, pf)) continue;
    else if (args.peekView() == "help") usage(kTcFilterUsage);
    else args.unknown("not an option of u32 (see \"fastlink tc filter help\")");
  }
  if (order) {
    uint32_t handle = pf.info.handle.value_or(0);
    if ((handle & 0xFFF) && (handle & 0xFFF) != *order) usage("u32: \"order\" contradicts \"handle\"");
    pf.info.handle = handle | *order;
  }
}

/// flower's MPLS keys as f_flower.c reads them (base 10): `mpls_label L`, `mpls_tc T`,
/// `mpls_bos B`, `mpls_ttl T` for the first entry, or `mpls lse depth D [label L] [tc T] [bos B]
/// [ttl T] [lse ...]`; both need protocol mpls_uc or mpls_mc and exclude each other.
bool parseFlowerMpls(Args& args, ParsedFilter& pf, FlowerOptions& o) {
  const std::string& w = args.peek();
  const bool first = w == "mpls_label" || w == "mpls_tc" || w == "mpls_bos" || w == "mpls_ttl";
  if (!first && w != "mpls") return false;
  uint16_t protocol = pf.info.protocol.value_or(0);
  if (protocol != 0x8847 && protocol != 0x8848) usage(fmt::format("flower {}: the filter's protocol must be mpls_uc or mpls_mc", w));
  auto decimal = [&](const std::string& keyword, uint32_t max) {
    const std::string& text = args.value(keyword);
    uint32_t v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, 10);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v > max)
      usage(fmt::format("flower {}: \"{}\" is not a decimal number in 0-{}", keyword, text, max));
    return v;
  };
  if (first) {
    if (!o.mpls.empty()) usage(fmt::format("flower {}: not with \"mpls lse ...\"", w));
    std::string keyword(args.nextView());
    if (keyword == "mpls_label") o.mplsLabel = decimal(keyword, 0xFFFFF);
    else if (keyword == "mpls_tc") o.mplsTc = static_cast<uint8_t>(decimal(keyword, 7));
    else if (keyword == "mpls_bos") o.mplsBos = static_cast<uint8_t>(decimal(keyword, 1));
    else o.mplsTtl = static_cast<uint8_t>(decimal(keyword, 255));
    return true;
  }
  if (o.mplsLabel || o.mplsTc || o.mplsBos || o.mplsTtl) usage("flower mpls: not with mpls_label, mpls_tc, mpls_bos or mpls_ttl");
  args.nextView();
  if (args.peek() != "lse") usage("flower mpls: expected \"lse depth D ...\"");
  while (args.accept("lse")) {
    FlowerMplsLse e;
    e.depth = 0;
    for (;;) {
      if (args.accept("depth")) {
        e.depth = static_cast<uint8_t>(decimal("mpls lse depth", 255));
        if (e.depth == 0) usage("flower mpls lse depth: must be 1-255");
      } else if (!lseField(args.peekView(), e, 0, [&](const char* keyword, uint32_t, uint32_t max) {
                   args.nextView();
                   return decimal(std::string("mpls lse ") + keyword, max);
                 })) {
        break;
      }
    }
    if (e.depth == 0) throw MissingValueError("flower mpls lse: \"depth D\" is required");
    o.mpls.push_back(e);
  }
  return true;
}

void parseFlower(Args& args, ParsedFilter& pf, FlowerOptions& o) {
  auto prefix = [&](std::string_view k) { return orUsage(k, [&] { return Prefix::parse(args.valueView(k)); }); };
  while (!args.done()) {
    Word w(args);
    // The word a -batch line has most (its address) is tried first.
    if (w.is("dst_ip")) o.dstIp = prefix("dst_ip");
    else if (w.is("src_ip")) o.srcIp = prefix("src_ip");
    else if (classifierWord(args, o, pf)) continue;
    else if (w.is("dst_mac")) o.dstMac = parseMac(args.value("dst_mac"), "dst_mac");
    else if (w.is("src_mac")) o.srcMac = parseMac(args.value("src_mac"), "src_mac");
    else if (w.is("vlan_id")) o.vlanId = static_cast<uint16_t>(number(args, "vlan_id", 4094));
    else if (w.is("vlan_prio")) o.vlanPrio = static_cast<uint8_t>(number(args, "vlan_prio", 7));
    else if (w.is("ip_proto")) {
      std::string_view v = args.valueView("ip_proto");
      if (v == "tcp") o.ipProto = 6;
      else if (v == "udp") o.ipProto = 17;
      else if (v == "sctp") o.ipProto = 132;
      else if (v == "icmp") o.ipProto = 1;
      else if (v == "icmpv6") o.ipProto = 58;
      else o.ipProto = static_cast<uint8_t>(parseInteger(v, "ip_proto", 0, 255));
    } else if (w.is("dst_port")) o.dstPort = static_cast<uint16_t>(number(args, "dst_port", 0xFFFF));
    else if (w.is("src_port")) o.srcPort = static_cast<uint16_t>(number(args, "src_port", 0xFFFF));
    else if (parseFlowerMpls(args, pf, o)) continue;
    else args.unknown("not an option of flower that fastlink knows (see \"fastlink tc filter help\")");
  }
}

void parseBpf(Args& args, ParsedFilter& pf, BpfFilterOptions& o) {
  std::optional<std::string> file, section;
  while (!args.done()) {
    if (args.acceptAny({"obj", "object-file"})) file = args.value("object-file");
    else if (args.acceptAny({"sec", "section"})) section = args.value("section");
    else if (args.acceptAny({"da", "direct-action"})) o.directAction = true;
    else if (classifierWord(args, o, pf)) continue;
    else args.unknown("not an option of bpf that fastlink knows (see \"fastlink tc filter help\")");
  }
  if (!file) usage("bpf: \"obj FILE\" is required (a BPF object file)");
  // tc's default section for a classifier.
  pf.program = std::make_shared<XdpProgram>(XdpProgram::loadClassifier(*file, section.value_or("classifier")));
  // As tc names it: the file's base name and the section.
  auto slash = file->rfind('/');
  o.name = fmt::format("{}:[{}]", slash == std::string::npos ? *file : file->substr(slash + 1), pf.program->section());
}

/// The kinds without words of their own: only the shared ones, each refused word named with
/// the kind (`what`).
template <class Options, const char* kWhat>
void parseSharedWords(Args& args, ParsedFilter& pf, Options& o) {
  while (!args.done())
    if (!classifierWord(args, o, pf)) args.unknown(kWhat);
}
constexpr char kMatchallWhat[] = "not an option of matchall (see \"fastlink tc filter help\")";
constexpr char kFwWhat[] = "not an option of fw (see \"fastlink tc filter help\")";
constexpr char kBasicWhat[] = "not an option of basic (see \"fastlink tc filter help\")";

FilterVerb parseVerb(Args& args, bool chain) {
  if (chain) {
    if (args.acceptAny({"add", "a"})) return FilterVerb::Add;
    if (args.acceptAny({"del", "delete", "d"})) return FilterVerb::Del;
    if (args.acceptAny({"show", "list", "ls", "get"})) usage("tc chain show and get cannot be used in a batch (a batch only sends changes)");
    args.unknown("tc chain verbs: add, del, get, show");
  }
  Word w(args);
  if (w.is("add") || w.is("a")) return FilterVerb::Add;
  if (w.is("replace") || w.is("r")) return FilterVerb::Replace;
  if (w.is("change") || w.is("c")) return FilterVerb::Change;
  if (w.is("del") || w.is("delete") || w.is("d")) return FilterVerb::Del;
  if (w.is("show") || w.is("list") || w.is("ls")) usage("tc filter show cannot be used in a batch (a batch only sends changes)");
  args.unknown("tc filter verbs: add, replace, change, del, show");
}

/// The placement words shared by changes and show: dev/block, parent, pref, protocol, chain,
/// handle (kept as typed: its meaning depends on the kind that follows).
struct Placement {
  std::optional<std::string> dev, handle;
  std::optional<uint32_t> block, chain;
  std::optional<TcHandle> parent;
  std::optional<uint16_t> prio, protocol;

  /// Into a filter or a listing's filter (TcFilterInfo, TcFilterFilter); the handle is the kind's.
  template <class Target>
  void placeInto(Target& t) const {
    if (dev) t.dev = Ifref(*dev);
    t.block = block;
    t.parent = parent;
    t.prio = prio;
    t.protocol = protocol;
    t.chain = chain;
  }
};

/// Reads placement words until one that is not; returns false at the end of the words.
bool placementWord(Args& args, Placement& p) {
  // Every placement keyword starts with one of these: the kind and its options (most words of a
  // -batch line) are told apart without a dozen comparisons each.
  std::string_view word = args.peekView();
  constexpr uint32_t kFirst = 1u << ('d' - 'a') | 1u << ('b' - 'a') | 1u << ('r' - 'a') | 1u << ('i' - 'a') | 1u << ('e' - 'a') |
                              1u << ('p' - 'a') | 1u << ('h' - 'a') | 1u << ('c' - 'a');  // a bit test: strchr was a call a word
  if (word.empty() || unsigned(word[0] - 'a') >= 26 || !(kFirst >> (word[0] - 'a') & 1)) return false;
  auto setParent = [&](uint32_t v, std::string_view word) {
    if (p.parent) usage(fmt::format("{}: a parent was already given", word));
    p.parent = TcHandle(v);
  };
  Word w(args);
  if (w.is("dev")) p.dev = parseIfname(args.valueView("dev"), "dev");
  else if (w.is("block")) p.block = number(args, "block");
  else if (w.is("root")) setParent(TcHandle::kRoot, "root");
  else if (w.is("ingress")) setParent(TcFilterInfo::kIngressParent, "ingress");
  else if (w.is("egress")) setParent(TcFilterInfo::kEgressParent, "egress");
  else if (w.is("parent")) {
    if (p.parent) usage("parent: a parent was already given");
    p.parent = handleWord(args.value("parent"), "parent");
  } else if (w.is("handle")) p.handle = args.value("handle");
  else if (w.is("pref") || w.is("prio") || w.is("priority")) p.prio = static_cast<uint16_t>(number(args, "pref", 0xFFFF));
  else if (w.is("protocol")) {
    std::string_view text = args.valueView("protocol");
    auto proto = parseProtocol(text);
    if (!proto) usage(fmt::format("protocol: \"{}\" is not a protocol (ip, ipv6, all, 802.1Q, arp, or a number)", text));
    p.protocol = *proto;
  } else if (w.is("chain")) p.chain = number(args, "chain", 0x0FFFFFFF);
  else return false;
  return true;
}

/// A filter handle by the kind's reading: u32's HT:BUCKET:NODE, fw's MARK[/MASK], else a number.
uint32_t filterHandle(std::string_view kind, const std::string& word, std::optional<uint32_t>* fwMask) {
  if (kind == "u32") return u32HandleWord(word, "handle");
  if (kind == "fw") {
    auto slash = word.find('/');
    if (slash != std::string::npos && fwMask) *fwMask = static_cast<uint32_t>(parseInteger(word.substr(slash + 1), "handle mask", 0, UINT32_MAX));
    return static_cast<uint32_t>(parseInteger(word.substr(0, slash), "handle", 0, UINT32_MAX));
  }
  return static_cast<uint32_t>(parseInteger(word, "handle", 0, UINT32_MAX));
}

/// A classifier fastlink parses: its options built where they lie in pf.info (a returned
/// FlowerOptions was moved into the variant: ~100 instructions a -batch line, issue 33), its
/// action list in the room an earlier line's left (ParsedFilter::spareActions).
struct FilterKind {
  std::string_view name;
  void (*parse)(Args&, ParsedFilter&);
};
template <class Options, void (*kParse)(Args&, ParsedFilter&, Options&)>
void parseInPlace(Args& args, ParsedFilter& pf) {
  Options& o = pf.info.options.emplace<Options>();
  o.actions = std::move(pf.spareActions);
  kParse(args, pf, o);
}
constexpr FilterKind kFilterKinds[] = {
    {"u32", parseInPlace<U32FilterOptions, parseU32Options>},
    {"matchall", parseInPlace<MatchallOptions, parseSharedWords<MatchallOptions, kMatchallWhat>>},
    {"flower", parseInPlace<FlowerOptions, parseFlower>},
    {"fw", parseInPlace<FwOptions, parseSharedWords<FwOptions, kFwWhat>>},
    {"basic", parseInPlace<BasicOptions, parseSharedWords<BasicOptions, kBasicWhat>>},
    {"bpf", parseInPlace<BpfFilterOptions, parseBpf>},
};

/// Parses into `pf` where it lies (the request's closure holds it: no move of the large filter).
void parseFilterLine(Args& args, bool chain, ParsedFilter& pf) {
  pf.chain = chain;
  pf.verb = parseVerb(args, chain);
  Placement p;
  std::string_view kind;  // a view into the line, as every word
  while (!args.done()) {
    if (args.peekView() == "help") usage(kTcFilterUsage);
    if (placementWord(args, p)) continue;
    kind = args.nextView();
    break;
  }
  if (p.dev && p.block) usage("tc filter: give dev or block, not both");
  if (chain && (p.handle || p.prio)) usage("tc chain: a chain has no handle or pref (its filters do)");
  TcFilterInfo& f = pf.info;
  p.placeInto(f);
  pf.dev = std::move(p.dev);
  std::optional<uint32_t> fwMask;
  if (p.handle) {
    if (kind.empty()) usage("tc filter: \"handle\" needs the classifier kind after it (handle H KIND)");
    f.handle = asKindOptionError([&] { return filterHandle(kind, *p.handle, &fwMask); });  // tc: 1
  }
  if (kind.empty()) return;
  f.kind = kind;
  if (pf.verb == FilterVerb::Del) {
    if (!args.done()) args.unknown("tc filter del takes no classifier options");
    return;
  }
  auto known = std::find_if(std::begin(kFilterKinds), std::end(kFilterKinds), [&](const FilterKind& k) { return k.name == kind; });
  if (known == std::end(kFilterKinds))
    usage(fmt::format("filter kind \"{}\" is not one fastlink knows (u32, matchall, flower, fw, basic, bpf)", kind));
  asKindOptionError([&] { known->parse(args, pf); });
  if (auto* fw = std::get_if<FwOptions>(&f.options)) fw->mask = fwMask;
}

Request filterRequest(FilterVerb verb, const TcFilterInfo& f, bool chain) {
  if (chain) return verb == FilterVerb::Del ? TcFilterRequests::delChain(f) : TcFilterRequests::addChain(f);
  switch (verb) {
    case FilterVerb::Add: return TcFilterRequests::add(f);
    case FilterVerb::Replace: return TcFilterRequests::replace(f);
    case FilterVerb::Change: return TcFilterRequests::change(f);
    case FilterVerb::Del: return TcFilterRequests::del(f);
  }
  return TcFilterRequests::del(f);
}

/// Every mirred action's device replaced by its ifindex.
/// The mirred actions' devices: the names read into `devs`, in the order of the actions.
void resolveMirred(std::vector<TcAction>& actions, const std::vector<std::string>& devs, Resolver& r) {
  std::size_t next = 0;
  for (TcAction& a : actions)
    if (auto* m = std::get_if<MirredAction>(&a.options)) m->dev = Ifref(r.index(devs.at(next++)));
}

/// A ParsedFilter for the next line: the last one when nothing holds it any more (its request
/// was encoded and dropped), emptied but keeping its lists' room: a -batch of 100,000 filters
/// made and freed the block, its action list and its device list once a line (issue 33).
std::shared_ptr<ParsedFilter> reusedFilter() {
  static std::shared_ptr<ParsedFilter> last;
  if (!last || last.use_count() > 1) return last = std::make_shared<ParsedFilter>();
  ParsedFilter& pf = *last;
  std::vector<TcAction> actions = std::move(pf.spareActions);
  std::visit([&](auto& o) { if constexpr (requires { o.actions; }) actions = std::move(o.actions); }, pf.info.options);
  std::vector<std::string> devs = std::move(pf.mirredDevs);
  actions.clear();
  devs.clear();
  std::destroy_at(&pf);  // a move-assignment of a new one cost twice as much
  std::construct_at(&pf);
  pf.spareActions = std::move(actions);
  pf.mirredDevs = std::move(devs);
  return last;
}

/// The line parsed into one shared block the encoder's closure holds (reusedFilter's, the filter
/// never moved; the closure itself is one allocation: libstdc++ keeps only trivially copyable
/// functors in std::function's own storage, and a shared_ptr is not one). The filter
/// is encoded where it lies: the names are resolved from `dev` and `mirredDevs` on every call,
/// so a second call (another resolver) gives the same request as a first.
PreparedRequest preparedFilter(Args& args, bool chain) {
  std::shared_ptr<ParsedFilter> shared = reusedFilter();
  ParsedFilter& pf = *shared;
  parseFilterLine(args, chain, pf);
  if (!pf.dev && !pf.info.block) usage(fmt::format("tc {}: \"dev NAME\" or \"block N\" is required", pf.chain ? "chain" : "filter"));
  PreparedRequest p;
  p.needs.reserve(1 + pf.mirredDevs.size());  // one allocation, not one per name
  if (pf.dev) p.needs.push_back(*pf.dev), p.device = *pf.dev;
  for (const auto& d : pf.mirredDevs) p.needs.push_back(d);
  p.namedAsTyped = true;
  p.encode = [shared = std::move(shared)](Resolver& r) {
    ParsedFilter& pf = *shared;
    TcFilterInfo& f = pf.info;
    if (pf.dev) f.dev = Ifref(r.index(*pf.dev));
    std::visit(
        [&](auto& o) {
          if constexpr (requires { o.actions; }) resolveMirred(o.actions, pf.mirredDevs, r);
          if constexpr (std::is_same_v<std::decay_t<decltype(o)>, BpfFilterOptions>) o.fd = pf.program->fd();
        },
        f.options);
    Request request = filterRequest(pf.verb, f, pf.chain);
    if (pf.program) request.keepAlive(pf.program);
    return request;
  };
  return p;
}

// ---- show -------------------------------------------------------------------------------------------

/// ifindex -> name of every link, read before a dump (a lookup inside the dump's callback would
/// start a second dump on the same socket).
std::function<std::string(uint32_t)> nameLookup(Context& ctx) {
  auto names = std::make_shared<DeviceNames>();
  names->load(ctx.netlink().links());
  return [names](uint32_t index) { return names->nameOrIndex(index); };
}

uint32_t userHz() {
  long hz = sysconf(_SC_CLK_TCK);
  return hz > 0 ? static_cast<uint32_t>(hz) : 100;
}

/// `tc filter show`, `tc chain show` (`chain`) and `tc chain get` (`get`: the one chain the
/// kernel answers, or its error).
int showFilters(Context& ctx, Args& args, bool chain = false, bool get = false) {
  Placement p;
  std::string kind;
  while (!args.done()) {
    if (args.peek() == "help") usage(kTcFilterUsage);
    if (placementWord(args, p)) continue;
    if (kind.empty() && p.handle) {
      kind = args.nextView();
      continue;
    }
    if (chain) args.unknown(fmt::format("tc chain {} takes dev, block, root, ingress, egress, parent, chain", get ? "get" : "show"));
    args.unknown("tc filter show takes dev, block, root, ingress, egress, parent, pref, protocol, chain, handle H KIND");
  }
  if (!p.dev && !p.block) usage(fmt::format("tc {} {}: \"dev NAME\" or \"block N\" is required", chain ? "chain" : "filter", get ? "get" : "show"));
  if (chain && (p.handle || p.prio)) usage("tc chain: a chain has no handle or pref (its filters do)");
  if (get && !p.parent && !p.block) usage("tc chain get: a parent is required (root, ingress, egress or parent MAJ:MIN)");
  TcFilterFilter filter;
  p.placeInto(filter);
  if (p.handle) {
    if (kind.empty()) usage("tc filter show: \"handle\" needs the classifier kind after it (handle H KIND)");
    filter.handle = filterHandle(kind, *p.handle, nullptr);
    filter.kind = kind;
  }
  FilterPrintOptions o;
  o.stats = ctx.options().stats > 0;
  o.devGiven = p.dev.has_value();
  o.blockGiven = p.block.has_value();
  if (p.parent) o.parentGiven = p.parent->value;
  o.prioGiven = p.prio.has_value();
  o.protocolGiven = p.protocol.has_value();
  // tc chain get names the device and parent it asked for, not the chain (tc_filter_get).
  o.chainGiven = p.chain.has_value() && !get;
  o.chainObject = chain;
  o.devName = nameLookup(ctx);
  o.program = lookUpXdpProgram;
  o.userHz = userHz();
  o.iec = ctx.options().iec;
  bool json = ctx.options().json;
  TcPrinter printer(json);
  bool first = true;
  std::string out = json ? "[" : "";
  auto print = [&](const TcFilterInfo& f) {
    printFilter(printer, f, o);
    if (json && !first) out += ",";
    first = false;
    out += printer.take();
    if (out.size() > 65536) std::fputs(out.c_str(), stdout), out.clear();
  };
  auto restart = [&] {
    out = json ? "[" : "";
    first = true;
  };
  auto& api = ctx.netlink().tcFilters();
  if (get) print(api.getChain(filter));
  else if (chain) api.forEachChain(filter, print, restart);
  else api.forEach(filter, print, restart);
  if (json) out += "]\n";
  std::fputs(out.c_str(), stdout);
  return kExitOk;
}

// ---- actions ----------------------------------------------------------------------------------------

struct ParsedActions {
  bool del = false;
  std::optional<std::string> flushKind;  ///< `flush action KIND`
  std::vector<TcAction> actions;
  std::vector<std::string> devs;
};

/// `KIND index N` after "action": an action named by its index (`tc actions del|get`).
TcAction actionKey(Args& args, std::string_view verb) {
  TcAction a;
  a.kind = args.value("action");
  if (!args.accept("index")) usage(fmt::format("tc actions {}: \"action KIND index N\"", verb));
  a.index = number(args, "index");
  return a;
}

ParsedActions parseActionsLine(Args& args) {
  ParsedActions pa;
  if (args.acceptAny({"add", "a"})) pa.del = false;
  else if (args.acceptAny({"del", "delete", "d"})) pa.del = true;
  else if (args.accept("flush")) {
    if (!args.accept("action")) usage("tc actions flush: \"action KIND\" is required");
    pa.flushKind = args.value("action");
    if (!args.done()) args.unknown("tc actions flush takes action KIND");
    return pa;
  } else if (args.acceptAny({"show", "list", "ls", "get"})) usage("tc actions show and get cannot be used in a batch");
  else args.unknown("tc actions verbs: add, del, flush, get, show");
  while (!args.done()) {
    if (!args.accept("action")) args.unknown("expected \"action KIND ...\"");
    if (pa.del) pa.actions.push_back(actionKey(args, "del"));
    else parseAction(args, pa.actions, pa.devs);
  }
  if (pa.actions.empty()) usage("tc actions: at least one \"action KIND ...\" is required");
  return pa;
}

FilterPrintOptions actionPrintOptions(Context& ctx) {
  FilterPrintOptions o;
  o.stats = ctx.options().stats > 0;
  o.devName = nameLookup(ctx);
  o.userHz = userHz();
  o.iec = ctx.options().iec;
  return o;
}

/// One reply as tc prints it: a "total acts N" record, then the reply's actions (none: the
/// record alone). In -j two objects, "{...},{...}".
std::string actionRecords(TcPrinter& p, const std::vector<TcAction>& actions, std::size_t total, const FilterPrintOptions& o,
                          bool json) {
  p.openObject();
  p.any("total acts", "total acts " + std::to_string(total), std::to_string(total));
  p.nl();
  p.closeObject();
  if (!actions.empty()) {
    p.openObject();
    printActions(p, actions, o, false);
    p.closeObject();
  }
  std::string piece = p.take();
  if (json) {
    auto split = piece.find("}{");
    if (split != std::string::npos) piece.insert(split + 1, ",");
  }
  return piece;
}

int showActions(Context& ctx, Args& args) {
  if (!args.accept("action")) usage("tc actions show: \"action KIND\" is required");
  std::string kind = args.value("action");
  if (!args.done()) args.unknown("tc actions show takes action KIND");
  FilterPrintOptions o = actionPrintOptions(ctx);
  auto actions = ctx.netlink().tcFilters().actions(kind);
  TcPrinter p(ctx.options().json);
  bool json = ctx.options().json;
  // tc prints one "total acts N" record per message; the kernel sends one message for a
  // table of up to 32 actions, so the count is this batch's.
  std::string out = json ? "[" : "";
  for (std::size_t start = 0; start < actions.size() || start == 0; start += 32) {
    std::size_t end = std::min(actions.size(), start + 32);
    std::vector<TcAction> part(actions.begin() + static_cast<long>(start), actions.begin() + static_cast<long>(end));
    if (json && start) out += ",";
    out += actionRecords(p, part, end - start, o, json);
    if (actions.empty()) break;
  }
  if (json) out += "]\n";
  std::fputs(out.c_str(), stdout);
  return kExitOk;
}

/// `tc actions get action KIND index N ...`: the kernel's one reply carries no count, so tc
/// prints "total acts 0" above the actions it names (numbered from 1).
int getActions(Context& ctx, Args& args) {
  std::vector<TcAction> keys;
  while (!args.done()) {
    if (!args.accept("action")) args.unknown("tc actions get takes action KIND index N ...");
    keys.push_back(actionKey(args, "get"));
  }
  if (keys.empty()) usage("tc actions get: at least one \"action KIND index N\" is required");
  FilterPrintOptions o = actionPrintOptions(ctx);
  auto actions = ctx.netlink().tcFilters().getActions(keys);
  TcPrinter p(ctx.options().json);
  bool json = ctx.options().json;
  std::string out = (json ? "[" : "") + actionRecords(p, actions, 0, o, json) + (json ? "]\n" : "");
  std::fputs(out.c_str(), stdout);
  return kExitOk;
}

PreparedRequest preparedActions(const ParsedActions& pa) {
  PreparedRequest p;
  p.needs = pa.devs;
  p.encode = [pa](Resolver& r) {
    if (pa.flushKind) return TcFilterRequests::flushActions(*pa.flushKind);
    std::vector<TcAction> actions = pa.actions;
    resolveMirred(actions, pa.devs, r);
    return pa.del ? TcFilterRequests::delActions(actions) : TcFilterRequests::addActions(actions);
  };
  return p;
}

}  // namespace

PreparedRequest prepareTcFilter(Args& args) { return preparedFilter(args, false); }
PreparedRequest prepareTcChain(Args& args) { return preparedFilter(args, true); }

int runTcChain(Context& ctx, Args& args) {
  if (args.done() || args.acceptAny({"show", "list", "ls"})) return showFilters(ctx, args, true);
  if (args.accept("get")) return showFilters(ctx, args, true, true);
  if (args.peek() == "help") {
    printLine(kTcFilterUsage);
    return kExitOk;
  }
  return runPrepared(ctx, prepareTcChain(args), args);
}

int runTcFilter(Context& ctx, Args& args) {
  if (args.done() || args.acceptAny({"show", "list", "ls"})) return showFilters(ctx, args);
  if (args.peek() == "help") {
    printLine(kTcFilterUsage);
    return kExitOk;
  }
  return runPrepared(ctx, prepareTcFilter(args), args);
}

PreparedRequest prepareTcActions(Args& args) { return preparedActions(parseActionsLine(args)); }

int runTcActions(Context& ctx, Args& args) {
  if (args.acceptAny({"show", "list", "ls"})) return showActions(ctx, args);
  if (args.accept("get")) return getActions(ctx, args);
  if (args.done() || args.peek() == "help") {
    printLine(kTcFilterUsage);
    return args.done() ? kExitUsage : kExitOk;
  }
  return runPrepared(ctx, prepareTcActions(args), args);
}

}  // namespace fastlink::cli
