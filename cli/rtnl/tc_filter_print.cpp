// `fastlink tc filter show` and `tc actions show`, written after iproute2 6.1's print_filter,
// the classifiers' print_fopt and the actions' print_aopt: the same words, order, spacing, tabs
// and JSON keys. Only what fastlink decodes is printed; unknown kinds print their kind alone.
#include "rtnl/tc_filter_print.hpp"
#include "rtnl/tc_print.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <linux/pkt_cls.h>

#include <variant>

namespace fastlink::cli {

// ---- TcPrinter ------------------------------------------------------------------------------------

std::string TcPrinter::quote(const std::string& s) {
  std::string q = "\"";
  for (char c : s) {
    switch (c) {
      case '\t': q += "\\t"; break;
      case '\n': q += "\\n"; break;
      case '\r': q += "\\r"; break;
      case '\f': q += "\\f"; break;
      case '\b': q += "\\b"; break;
      case '\\': q += "\\\\"; break;
      case '"': q += "\\\""; break;
      default: q += c;
    }
  }
  return q + "\"";
}

void TcPrinter::comma() {
  if (first_.empty()) return;
  if (!first_.back()) out_ += ',';
  first_.back() = false;
}
void TcPrinter::key(const char* k) {
  comma();
  if (k) out_ += quote(k) + ":";
}
void TcPrinter::text(const std::string& s) {
  if (!json_) out_ += s;
}
void TcPrinter::any(const char* k, const std::string& textForm, const std::string& jsonToken) {
  if (json_) key(k), out_ += jsonToken;
  else out_ += textForm;
}
void TcPrinter::anyString(const char* k, const std::string& textForm, const std::string& value) { any(k, textForm, quote(value)); }
void TcPrinter::jsonOnly(const char* k, const std::string& jsonToken) {
  if (json_) key(k), out_ += jsonToken;
}
void TcPrinter::nl() { text("\n"); }
void TcPrinter::open(const char* k, char bracket) {
  if (!json_) return;
  key(k);
  out_ += bracket;
  first_.push_back(true);
}
void TcPrinter::close(char bracket) {
  if (!json_) return;
  out_ += bracket;
  first_.pop_back();
}
std::string TcPrinter::take() {
  std::string s;
  s.swap(out_);
  return s;
}

// ---- names ----------------------------------------------------------------------------------------

namespace {

struct ProtocolName {
  uint16_t id;
  const char* name;
};
// tc's llproto_names, the ones a filter meets; others print as "[N]".
constexpr ProtocolName kProtocols[] = {
    {0x0060, "loop"},    {0x0800, "ip"},      {0x0806, "arp"},    {0x8035, "rarp"},   {0x86DD, "ipv6"},
    {0x0001, "802_3"},   {0x0003, "all"},     {0x0004, "802_2"},  {0x8100, "802.1Q"}, {0x88A8, "802.1ad"},
    {0x8847, "mpls_uc"}, {0x8848, "mpls_mc"}, {0x6558, "teb"},    {0x88CC, "LLDP"},
};

/// tc's sprint_u32_handle: "800:", "800::800", "1:2:3".
std::string u32Handle(uint32_t handle) {
  if (handle == 0) return "none";
  uint32_t htid = handle & 0xFFF00000u, hash = (handle >> 12) & 0xFF, node = handle & 0xFFF;
  std::string s;
  if (htid) s += fmt::format("{:x}:", htid >> 20);
  if (node | hash) {
    if (hash) s += fmt::format("{:x}", hash);
    if (node) s += fmt::format(":{:x}", node);
  }
  return s;
}

std::string u(uint64_t v) { return std::to_string(v); }
std::string i(int64_t v) { return std::to_string(v); }

void control(TcPrinter& p, const char* prefix, int32_t action, const char* suffix) {
  p.text(prefix);
  p.openObject("control_action");
  std::string name = tcact::name(action);
  if (TC_ACT_EXT_CMP(action, TC_ACT_GOTO_CHAIN)) {
    p.anyString("type", "goto", "goto");
    p.any("chain", " chain " + u(static_cast<uint32_t>(action) & TC_ACT_EXT_VAL_MASK), u(static_cast<uint32_t>(action) & TC_ACT_EXT_VAL_MASK));
  } else if (TC_ACT_EXT_CMP(action, TC_ACT_JUMP)) {
    p.anyString("type", "jump", "jump");
    p.any("jump", " " + u(static_cast<uint32_t>(action) & TC_ACT_EXT_VAL_MASK), u(static_cast<uint32_t>(action) & TC_ACT_EXT_VAL_MASK));
  } else {
    p.anyString("type", name, name);
  }
  p.closeObject();
  p.text(suffix);
}

/// With -s the action's times (print_tm).
void times(TcPrinter& p, const TcAction& a, const FilterPrintOptions& o) {
  if (o.stats && a.hasTimes) {
    uint64_t hz = o.userHz ? o.userHz : 100;
    if (a.installed) p.any("installed", " installed " + u(a.installed / hz) + " sec", u(a.installed / hz));
    if (a.lastUsed) p.any("last_used", " used " + u(a.lastUsed / hz) + " sec", u(a.lastUsed / hz));
    if (a.firstUsed) p.any("first_used", " firstused " + u(a.firstUsed / hz) + " sec", u(a.firstUsed / hz));
    if (a.expires) p.any("expires", " expires " + u(a.expires / hz) + " sec", u(a.expires / hz));
  }
}

/// index/ref/bind, then with -s the action's times (print_tm), then the newline.
void counts(TcPrinter& p, const TcAction& a, const FilterPrintOptions& o, const char* indexPrefix) {
  p.nl();
  p.any("index", indexPrefix + u(a.index.value_or(0)), u(a.index.value_or(0)));
  p.any("ref", " ref " + i(a.refcnt), i(a.refcnt));
  p.any("bind", " bind " + i(a.bindcnt), i(a.bindcnt));
  times(p, a, o);
  p.nl();
}

const char* mirredWords(MirredAction::Mode m) {
  switch (m) {
    case MirredAction::EgressRedirect: return "Egress Redirect";
    case MirredAction::EgressMirror: return "Egress Mirror";
    case MirredAction::IngressRedirect: return "Ingress Redirect";
    case MirredAction::IngressMirror: return "Ingress Mirror";
  }
  return "unknown";
}

struct ActionPrinter {
  TcPrinter& p;
  const TcAction& a;
  const FilterPrintOptions& o;

  void operator()(std::monostate) const { p.anyString("kind", a.kind + " ", a.kind); }
  void operator()(const RawActionOptions&) const { p.anyString("kind", a.kind + " ", a.kind); }
  void operator()(const GactAction& g) const {
    p.anyString("kind", "gact ", "gact");
    control(p, "action ", g.control, "");
    // tc is built with CONFIG_GACT_PROB: without TCA_GACT_PROB it prints an empty one.
    p.openObject("prob");
    p.nl();
    p.anyString("random_type", "\t random type none", "none");
    control(p, " ", tcact::kPass, " ");
    p.any("val", "val 0", "0");
    p.closeObject();
    counts(p, a, o, "\t index ");
  }
  void operator()(const MirredAction& m) const {
    p.anyString("kind", "mirred ", "mirred");
    p.text(std::string("(") + mirredWords(m.mode));
    bool redirect = m.mode == MirredAction::EgressRedirect || m.mode == MirredAction::IngressRedirect;
    bool egress = m.mode == MirredAction::EgressRedirect || m.mode == MirredAction::EgressMirror;
    p.jsonOnly("mirred_action", TcPrinter::quote(redirect ? "redirect" : "mirror"));
    p.jsonOnly("direction", TcPrinter::quote(egress ? "egress" : "ingress"));
    std::string dev = o.devName(m.dev.isIndex() ? m.dev.index() : 0);
    p.anyString("to_dev", " to device " + dev + ")", dev);
    control(p, " ", m.control.value_or(tcact::kPipe), "");
    counts(p, a, o, "\tindex ");
  }
  void operator()(const SkbeditAction& s) const {
    p.anyString("kind", "skbedit ", "skbedit");
    if (s.queueMapping) p.any("queue_mapping", "queue_mapping " + u(*s.queueMapping), u(*s.queueMapping));
    if (s.priority) p.anyString("priority", " priority " + classidText(*s.priority), classidText(*s.priority));
    if (s.mark) p.any("mark", " mark " + u(*s.mark), u(*s.mark));
    if (s.mask) p.anyString("mask", fmt::format("/{:#x}", *s.mask), fmt::format("{:x}", *s.mask));
    if (s.ptype) {
      static const char* kTypes[] = {"host", "broadcast", "multicast", "otherhost"};
      if (*s.ptype < 4) p.anyString("ptype", std::string(" ptype ") + kTypes[*s.ptype], kTypes[*s.ptype]);
      else p.any("ptype", " ptype " + u(*s.ptype), u(*s.ptype));
    }
    control(p, " ", s.control, "");
    counts(p, a, o, "\t index ");
  }
  void operator()(const VlanAction& v) const {
    p.anyString("kind", "vlan ", "vlan");
    static const char* kOps[] = {"", "pop", "push", "modify", "pop_eth", "push_eth"};
    const char* op = v.op >= 1 && v.op <= 5 ? kOps[v.op] : "";
    p.anyString("vlan_action", std::string(" ") + op, op);
    if (v.op == VlanAction::Push || v.op == VlanAction::Modify) {
      p.any("id", " id " + u(v.id), u(v.id));
      p.anyString("protocol", " protocol " + protocolName(v.protocol), protocolName(v.protocol));
      if (v.priority) p.any("priority", " priority " + u(*v.priority), u(*v.priority));
    }
    if (v.op == VlanAction::PushEth) {
      if (v.dstMac) p.anyString("dst_mac", " dst_mac " + v.dstMac->toString(), v.dstMac->toString());
      if (v.srcMac) p.anyString("src_mac", " src_mac " + v.srcMac->toString(), v.srcMac->toString());
    }
    control(p, " ", v.control, "");
    counts(p, a, o, "\t index ");
  }
  void operator()(const CsumAction& c) const {
    p.anyString("kind", "csum ", "csum");
    static const char* kNames[] = {"iph", "icmp", "igmp", "tcp", "udp", "udplite", "sctp"};
    std::string list;
    for (int bit = 0; bit < 7; bit++)
      if (c.updateFlags & (1u << bit)) list += std::string(list.empty() ? "" : ", ") + kNames[bit];
    if (list.empty()) list = "?empty";
    p.anyString("csum", "(" + list + ") ", list);
    control(p, "action ", c.control, "");
    counts(p, a, o, "\tindex ");
  }
  void operator()(const PoliceAction& x) const {
    p.jsonOnly("kind", TcPrinter::quote("police"));
    p.text(fmt::format(" police {:#x} ", a.index.value_or(0)));
    p.jsonOnly("index", u(a.index.value_or(0)));
    p.text("rate " + tcunits::rateText(x.rate, o.iec) + " burst " + tcunits::sizeText(x.burst) + " mtu " + tcunits::sizeText(x.mtu) + " ");
    if (x.peakrate) p.text("peakrate " + tcunits::rateText(*x.peakrate, o.iec) + " ");
    control(p, "action ", x.exceed, "");
    if (x.conform) control(p, "/", *x.conform, " ");
    else p.text(" ");
    p.any("overhead", "overhead 0b ", "0");  // tc's print_size: "0b" in text, the number in JSON
    p.nl();
    p.any("ref", "\tref " + i(a.refcnt) + " ", i(a.refcnt));
    p.any("bind", "bind " + i(a.bindcnt) + " ", i(a.bindcnt));
    p.nl();
  }
  void operator()(const MplsAction& m) const {
    // m_mpls.c's print_mpls: the op, then the fields its op has, the control, index/ref/bind.
    p.anyString("kind", "mpls ", "mpls");
    static const char* kOps[] = {"", "pop", "push", "modify", "dec_ttl", "mac_push"};
    const char* op = m.op >= 1 && m.op <= 5 ? kOps[m.op] : "";
    p.anyString("mpls_action", std::string(" ") + op, op);
    const bool push = m.op == MplsAction::Push || m.op == MplsAction::MacPush;
    if ((push || m.op == MplsAction::Pop) && m.protocol)
      p.anyString("protocol", " protocol " + protocolName(*m.protocol), protocolName(*m.protocol));
    if (push || m.op == MplsAction::Modify) {
      if (m.label) p.any("label", " label " + u(*m.label), u(*m.label));
      if (m.tc) p.any("tc", " tc " + u(*m.tc), u(*m.tc));
      if (m.bos) p.any("bos", " bos " + u(*m.bos), u(*m.bos));
      if (m.ttl) p.any("ttl", " ttl " + u(*m.ttl), u(*m.ttl));
    }
    control(p, " ", m.control, "");
    counts(p, a, o, "\t index ");
  }
  void operator()(const PeditAction& x) const {
    // m_pedit.c's print_pedit: the control and key count, index/ref/bind (and -s times), then one
    // line per key ("key #0  at 12: val 0a000001 mask 00000000"; an extended key's offset is
    // "ipv4+12", its add command "add" where tc writes "val" for set).
    p.anyString("kind", " pedit ", "pedit");
    control(p, "action ", x.control, " ");
    p.any("nkeys", "keys " + u(x.keys.size()) + "\n", u(x.keys.size()));
    p.any("index", " \t index " + u(a.index.value_or(0)), u(a.index.value_or(0)));
    p.any("ref", " ref " + i(a.refcnt), i(a.refcnt));
    p.any("bind", " bind " + i(a.bindcnt), i(a.bindcnt));
    times(p, a, o);
    p.openArray("keys");
    static const char* kHeaders[] = {"", "eth", "ipv4", "ipv6", "tcp", "udp"};
    std::size_t n = 0;
    for (const PeditKey& k : x.keys) {
      p.openObject();
      p.text("\n\t key #" + u(n++) + "  at ");
      if (k.header != PeditKey::Network) {
        std::string h = k.header <= PeditKey::Udp ? kHeaders[k.header] : "unknown(" + u(k.header) + ")";
        p.anyString("htype", h, h);
        p.any("offset", fmt::format("{:+d}", k.off), i(k.off));
      } else {
        p.jsonOnly("htype", TcPrinter::quote("network"));
        p.any("offset", i(k.off), i(k.off));
      }
      p.text(k.command ? ": add" : ": val");
      p.jsonOnly("cmd", TcPrinter::quote(k.command ? "add" : "set"));
      p.anyString("val", fmt::format(" {:08x}", k.value), fmt::format("{:x}", k.value));
      p.anyString("mask", fmt::format(" mask {:08x}", k.mask), fmt::format("{:x}", k.mask));
      p.closeObject();
    }
    if (x.keys.empty()) p.text(fmt::format("\npedit {:x} keys 0 is not LEGIT", a.index.value_or(0)));
    p.closeArray();
    p.nl();
  }
  void operator()(const TunnelKeyAction& t) const {
    p.anyString("kind", "tunnel_key ", "tunnel_key");
    if (t.unset) {
      p.anyString("mode", " unset", "unset");
    } else {
      p.anyString("mode", " set", "set");
      if (t.src) p.anyString("src_ip", "\n\tsrc_ip " + t.src->toString(), t.src->toString());
      if (t.dst) p.anyString("dst_ip", "\n\tdst_ip " + t.dst->toString(), t.dst->toString());
      if (t.keyId) p.any("key_id", "\n\tkey_id " + u(*t.keyId), u(*t.keyId));
      if (t.dstPort) p.any("dst_port", "\n\tdst_port " + u(*t.dstPort), u(*t.dstPort));
      // tc prints the checksum flag as {"flag": "csum"|"nocsum"} (m_tunnel_key.c's print_flag).
      p.anyString("flag", std::string("\n\t") + (t.noCsum ? "nocsum" : "csum"), t.noCsum ? "nocsum" : "csum");
      if (t.tos) p.anyString("tos", fmt::format("\n\ttos {:#x}", *t.tos), fmt::format("{:#x}", *t.tos));
      if (t.ttl) p.any("ttl", "\n\tttl " + u(*t.ttl), u(*t.ttl));
    }
    control(p, " ", t.control, "");
    counts(p, a, o, "\t index ");
  }
};

void actionStats(TcPrinter& p, const TcStats& s) {
  p.text("\tAction statistics:");
  p.nl();
  p.openObject("stats");
  p.text("\t");
  p.any("bytes", "Sent " + u(s.bytes) + " bytes", u(s.bytes));
  p.any("packets", " " + u(s.packets) + " pkt", u(s.packets));
  p.any("drops", " (dropped " + u(s.drops), u(s.drops));
  p.any("overlimits", ", overlimits " + u(s.overlimits), u(s.overlimits));
  p.any("requeues", " requeues " + u(s.requeues) + ") ", u(s.requeues));
  p.nl();
  p.text("\t");
  p.any("backlog", "backlog " + tcunits::sizeText(s.backlog), u(s.backlog));
  p.any("qlen", " " + u(s.qlen) + "p", u(s.qlen));
  p.text(" requeues " + u(s.requeues));
  p.closeObject();
  p.nl();
}

void oneAction(TcPrinter& p, const TcAction& a, const FilterPrintOptions& o, bool bind) {
  std::visit(ActionPrinter{p, a, o}, a.options);
  if (o.stats && a.stats) actionStats(p, *a.stats);
  if (!a.cookie.empty()) {
    std::string hex;
    for (uint8_t b : a.cookie) hex += fmt::format("{:02x}", b);
    p.anyString("cookie", "\tcookie " + hex, hex);
    p.nl();
  }
  bool newline = false;
  bool skipHw = false;
  if (a.flagsSelector) {
    if (*a.flagsSelector & TCA_ACT_FLAGS_NO_PERCPU_STATS) {
      newline = true;
      p.any("no_percpu", "\tno_percpu", (*a.flagsValue & TCA_ACT_FLAGS_NO_PERCPU_STATS) ? "true" : "false");
    }
    if (!bind && (*a.flagsSelector & TCA_ACT_FLAGS_SKIP_HW)) {
      newline = true;
      skipHw = *a.flagsValue & TCA_ACT_FLAGS_SKIP_HW;
      p.any("skip_hw", "\tskip_hw", skipHw ? "true" : "false");
    }
    if (!bind && (*a.flagsSelector & TCA_ACT_FLAGS_SKIP_SW)) {
      newline = true;
      p.any("skip_sw", "\tskip_sw", (*a.flagsValue & TCA_ACT_FLAGS_SKIP_SW) ? "true" : "false");
    }
  }
  if (a.inHwCount && !bind && !skipHw) {
    newline = true;
    if (*a.inHwCount) {
      p.any("in_hw", "\tin_hw", "true");
      p.any("in_hw_count", " in_hw_count " + u(*a.inHwCount), u(*a.inHwCount));
    } else {
      p.any("not_in_hw", "\tnot_in_hw", "true");
    }
  }
  if (newline) p.nl();
  auto hwStats = [&](const char* key, const char* label, uint8_t value) {
    // tc's print_hw_stats: "\tLABEL" then each set kind, or " disabled".
    p.text(std::string("\t") + label);
    p.openArray(key);
    if (value == 0) p.any(nullptr, " disabled", TcPrinter::quote("disabled"));
    if (value & TCA_ACT_HW_STATS_IMMEDIATE) p.any(nullptr, " immediate", TcPrinter::quote("immediate"));
    if (value & TCA_ACT_HW_STATS_DELAYED) p.any(nullptr, " delayed", TcPrinter::quote("delayed"));
    p.closeArray();
    p.nl();
  };
  if (a.hwStats) hwStats("hw_stats", "hw_stats", *a.hwStats);
  if (a.usedHwStats) hwStats("used_hw_stats", "used_hw_stats", *a.usedHwStats);
}

void flags(TcPrinter& p, uint32_t f, const char* before) {
  auto one = [&](const char* name) { p.any(name, std::string(before) + name + (before[0] == '\n' ? "" : " "), "true"); };
  if (f & TCA_CLS_FLAGS_SKIP_HW) one("skip_hw");
  if (f & TCA_CLS_FLAGS_SKIP_SW) one("skip_sw");
  if (f & TCA_CLS_FLAGS_IN_HW) one("in_hw");
  else if (f & TCA_CLS_FLAGS_NOT_IN_HW) one("not_in_hw");
}

struct OptionsPrinter {
  TcPrinter& p;
  const TcFilterInfo& f;
  const FilterPrintOptions& o;
  uint32_t handle() const { return f.handle.value_or(0); }

  void actions(const std::vector<TcAction>& list) const {
    if (!list.empty()) printActions(p, list, o, true);
  }
  void operator()(std::monostate) const {}
  void operator()(const RawFilterOptions&) const {}
  void operator()(const U32FilterOptions& x) const {
    if (handle()) p.anyString("fh", "fh " + u32Handle(handle()) + " ", u32Handle(handle()));
    if (handle() & 0xFFF) p.any("order", "order " + u(handle() & 0xFFF) + " ", u(handle() & 0xFFF));
    if (x.divisor) p.any("ht_divisor", "ht divisor " + u(*x.divisor) + " ", u(*x.divisor));
    else if (x.hashTable) {
      std::string ht = fmt::format("{:x}", (*x.hashTable >> 20) & 0xFFF), bkt = fmt::format("{:x}", (*x.hashTable >> 12) & 0xFF);
      p.anyString("key_ht", "key ht " + ht + " ", ht);
      p.anyString("bkt", "bkt " + bkt + " ", bkt);
    }
    bool terminal = x.selFlags & TC_U32_TERMINAL;
    if (x.classid) {
      if (terminal) p.text("*");
      p.anyString("flowid", "flowid " + classidText(x.classid->value) + " ", classidText(x.classid->value));
    } else if (terminal) {
      p.text("terminal flowid ");
    }
    if (x.link) p.anyString("link", "link " + u32Handle(*x.link) + " ", u32Handle(*x.link));
    if (x.flags) flags(p, x.flags, "");
    // tc prints the CONFIG_CLS_U32_PERF counters with -s: the rule's after its flags, each key's
    // after the key (outside its JSON object, under a second "success").
    const U32FilterOptions::Counters* counters = o.stats && x.counters ? &*x.counters : nullptr;
    if (counters) {
      p.any("rule_hit", "(rule hit " + u(counters->lookups) + " ", u(counters->lookups));
      p.any("success", "success " + u(counters->hits) + ")", u(counters->hits));
    }
    std::size_t keyIndex = 0;
    for (const U32Key& k : x.keys) {
      p.openObject("match");
      p.nl();
      std::string v = fmt::format("{:x}", k.value), m = fmt::format("{:x}", k.mask);
      p.anyString("value", fmt::format("  match {:08x}", k.value), v);
      p.anyString("mask", fmt::format("/{:08x} ", k.mask), m);
      p.anyString("offmask", std::string("at ") + (k.offmask ? "nexthdr+" : ""), k.offmask ? "nexthdr+" : "");
      p.any("off", i(k.off), i(k.off));
      p.closeObject();
      if (counters) {
        uint64_t hits = keyIndex < counters->keyHits.size() ? counters->keyHits[keyIndex] : 0;
        p.any("success", " (success " + u(hits) + " ) ", u(hits));
      }
      keyIndex++;
    }
    if (x.indev) {
      p.nl();
      p.anyString("input_dev", "  input dev " + *x.indev, *x.indev);
      p.nl();
    }
    actions(x.actions);
  }
  void operator()(const MatchallOptions& x) const {
    if (handle()) p.any("handle", fmt::format("handle {:#x} ", handle()), u(handle()));
    if (x.classid) p.anyString("flowid", "flowid " + classidText(x.classid->value) + " ", classidText(x.classid->value));
    if (x.flags) flags(p, x.flags, "\n  ");
    // f_matchall.c: the rule's hits with -s, after the flags.
    if (o.stats && x.hits) p.any("rule_hit", " (rule hit " + u(*x.hits) + ")", u(*x.hits));
    actions(x.actions);
  }
  void operator()(const FlowerOptions& x) const {
    if (handle()) p.any("handle", fmt::format("handle {:#x} ", handle()), u(handle()));
    if (x.classid) p.anyString("classid", "classid " + classidText(x.classid->value) + " ", classidText(x.classid->value));
    if (x.indev) {
      p.nl();
      p.anyString("indev", "  indev " + *x.indev, *x.indev);
    }
    p.openObject("keys");
    if (x.vlanId) p.nl(), p.any("vlan_id", "  vlan_id " + u(*x.vlanId), u(*x.vlanId));
    if (x.vlanPrio) p.nl(), p.any("vlan_prio", "  vlan_prio " + u(*x.vlanPrio), u(*x.vlanPrio));
    if (x.dstMac) p.nl(), p.anyString("dst_mac", "  dst_mac " + x.dstMac->toString(), x.dstMac->toString());
    if (x.srcMac) p.nl(), p.anyString("src_mac", "  src_mac " + x.srcMac->toString(), x.srcMac->toString());
    if (x.ethType) {
      // flower's own names, not tc's protocol table: "ipv4", or four hex digits.
      std::string t = *x.ethType == 0x0800 ? "ipv4" : *x.ethType == 0x86DD ? "ipv6" : *x.ethType == 0x0806 ? "arp"
                    : *x.ethType == 0x8035 ? "rarp" : fmt::format("{:04x}", *x.ethType);
      p.nl(), p.anyString("eth_type", "  eth_type " + t, t);
    }
    if (x.ipProto) {
      std::string proto;
      switch (*x.ipProto) {
        case 6: proto = "tcp"; break;
        case 17: proto = "udp"; break;
        case 132: proto = "sctp"; break;
        case 1: proto = "icmp"; break;
        case 58: proto = "icmpv6"; break;
        default: proto = fmt::format("{:02x}", *x.ipProto);
      }
      p.nl(), p.anyString("ip_proto", "  ip_proto " + proto, proto);
    }
    auto addr = [&](const char* key, const std::optional<Prefix>& a) {
      if (!a) return;
      std::string s = a->address().toString();
      if (!a->isHost()) s += "/" + std::to_string(a->length());
      p.nl(), p.anyString(key, std::string("  ") + key + " " + s, s);
    };
    // f_flower.c: the LSE list, then the first entry's keys; mpls_tc/bos/ttl print through
    // flower_print_masked_u8, so their JSON values are strings ("mpls_tc":"3"), the label a number.
    if (!x.mpls.empty()) {
      p.nl();
      p.text("  mpls");
      p.openArray("mpls");
      for (const FlowerMplsLse& e : x.mpls) {
        p.nl();
        p.text("    lse");
        p.openObject();
        p.any("depth", " depth " + u(e.depth), u(e.depth));
        if (e.label) p.any("label", " label " + u(*e.label), u(*e.label));
        if (e.tc) p.any("tc", " tc " + u(*e.tc), u(*e.tc));
        if (e.bos) p.any("bos", " bos " + u(*e.bos), u(*e.bos));
        if (e.ttl) p.any("ttl", " ttl " + u(*e.ttl), u(*e.ttl));
        p.closeObject();
      }
      p.closeArray();
    }
    if (x.mplsLabel) p.nl(), p.any("mpls_label", "  mpls_label " + u(*x.mplsLabel), u(*x.mplsLabel));
    auto masked = [&](const char* key, const std::optional<uint8_t>& v) {
      if (v) p.nl(), p.anyString(key, std::string("  ") + key + " " + u(*v), u(*v));
    };
    masked("mpls_tc", x.mplsTc);
    masked("mpls_bos", x.mplsBos);
    masked("mpls_ttl", x.mplsTtl);
    addr("dst_ip", x.dstIp);
    addr("src_ip", x.srcIp);
    if (x.dstPort) p.nl(), p.any("dst_port", "  dst_port " + u(*x.dstPort), u(*x.dstPort));
    if (x.srcPort) p.nl(), p.any("src_port", "  src_port " + u(*x.srcPort), u(*x.srcPort));
    p.closeObject();
    if (x.flags) flags(p, x.flags, "\n  ");
    if (x.inHwCount && (x.flags & TCA_CLS_FLAGS_IN_HW)) p.any("in_hw_count", " in_hw_count " + u(*x.inHwCount), u(*x.inHwCount));
    actions(x.actions);
  }
  void operator()(const FwOptions& x) const {
    // tc 6.1's f_fw.c prints with fprintf, so its -j output holds the text inside "options" (not
    // JSON); ours names the same fields as JSON (a pinned difference, tc_filter_cli_test.cpp).
    if (handle() || x.mask) {
      std::string h = x.mask && *x.mask != 0xFFFFFFFFu ? fmt::format("{:#x}/{:#x}", handle(), *x.mask) : fmt::format("{:#x}", handle());
      p.anyString("handle", "handle " + h + " ", h);
    }
    if (x.classid) p.anyString("classid", "classid " + classidText(x.classid->value) + " ", classidText(x.classid->value));
    if (x.indev) p.anyString("indev", "input dev " + *x.indev + " ", *x.indev);
    if (!x.actions.empty()) {
      p.text("\n");
      actions(x.actions);
    }
  }
  void operator()(const BasicOptions& x) const {
    if (handle()) p.anyString("handle", fmt::format("handle {:#x} ", handle()), fmt::format("{:x}", handle()));
    if (x.classid) p.anyString("flowid", "flowid " + classidText(x.classid->value) + " ", classidText(x.classid->value));
    actions(x.actions);
  }
  void operator()(const BpfFilterOptions& x) const {
    if (handle()) p.anyString("handle", fmt::format("handle {:#x} ", handle()), fmt::format("{:#x}", handle()));
    if (x.classid) p.anyString("flowid", "flowid " + classidText(x.classid->value) + " ", classidText(x.classid->value));
    if (!x.name.empty()) p.anyString("bpf_name", x.name + " ", x.name);
    if (x.directAction) p.any("direct-action", "direct-action ", "true");
    if (x.flags) flags(p, x.flags, "");
    // tc's bpf_dump_prog_info: what the kernel tells about the program by its id; the tag from
    // the filter only when that lookup fails.
    std::optional<BpfProgramInfo> prog;
    if (x.id) {
      p.openObject("prog");
      p.any("id", "id " + u(*x.id) + " ", u(*x.id));
      if (o.program) prog = o.program(*x.id);
      if (prog) {
        p.anyString("name", "name " + prog->name + " ", prog->name);
        p.anyString("tag", "tag " + prog->tag + " ", prog->tag);
        p.jsonOnly("jited", prog->jited ? "1" : "0");
        if (prog->jited) p.text("jited ");
      }
      p.closeObject();
    }
    if (!prog && !x.tag.empty()) {
      std::string hex;
      for (uint8_t b : x.tag) hex += fmt::format("{:02x}", b);
      p.anyString("tag", "tag " + hex + " ", hex);
    }
    actions(x.actions);
  }
};

}  // namespace

std::string protocolName(uint16_t ethertype) {
  for (const auto& p : kProtocols)
    if (p.id == ethertype) return p.name;
  return fmt::format("[{}]", ethertype);
}

std::optional<uint16_t> parseProtocol(std::string_view word) {
  for (const auto& p : kProtocols)
    if (word == p.name) return p.id;
  if (word == "ipv4") return 0x0800;
  if (word == "802.1q") return 0x8100;
  uint32_t v = 0;
  int base = 10;
  std::string_view digits = word;
  if (digits.starts_with("0x")) base = 16, digits.remove_prefix(2);
  if (digits.empty()) return std::nullopt;
  for (char c : digits) {
    int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
            : (base == 16 && std::isxdigit(static_cast<unsigned char>(c))) ? std::tolower(c) - 'a' + 10
                                                                           : -1;
    if (d < 0) return std::nullopt;
    v = v * static_cast<uint32_t>(base) + static_cast<uint32_t>(d);
    if (v > 0xFFFF) return std::nullopt;
  }
  return static_cast<uint16_t>(v);
}

void printActions(TcPrinter& p, const std::vector<TcAction>& actions, const FilterPrintOptions& o, bool bind) {
  p.openArray("actions");
  for (const TcAction& a : actions) {
    p.openObject();
    p.nl();
    p.any("order", "\taction order " + u(a.order) + ": ", u(a.order));
    oneAction(p, a, o, bind);
    p.closeObject();
  }
  p.closeArray();
}

void printFilter(TcPrinter& p, const TcFilterInfo& f, const FilterPrintOptions& o) {
  p.openObject();
  p.text(o.chainObject ? "chain " : "filter ");
  if (f.block) {
    if (!o.blockGiven) p.any("block", "block " + u(*f.block) + " ", u(*f.block));
  } else {
    uint32_t index = f.dev && f.dev->isIndex() ? f.dev->index() : 0;
    if (!o.devGiven) p.anyString("dev", "dev " + o.devName(index) + " ", o.devName(index));
    uint32_t parent = f.parent ? f.parent->value : 0;
    if (o.parentGiven != parent) {
      if (parent == TC_H_ROOT) p.any("root", "root ", "true");
      else if (parent == TcFilterInfo::kIngressParent) p.any("ingress", "ingress ", "true");
      else if (parent == TcFilterInfo::kEgressParent) p.any("egress", "egress ", "true");
      else p.anyString("parent", "parent " + classidText(parent) + " ", classidText(parent));
    }
  }
  uint16_t protocol = f.protocol.value_or(0), prio = f.prio.value_or(0);
  if ((protocol || prio) && !o.chainObject) {  // tc prints a chain's tcm_info never
    if (!o.protocolGiven && protocol) p.anyString("protocol", "protocol " + protocolName(protocol) + " ", protocolName(protocol));
    if (!o.prioGiven && prio) p.any("pref", "pref " + u(prio) + " ", u(prio));
  }
  if (!f.kind.empty()) p.anyString("kind", f.kind + " ", f.kind);  // a chain without a template has none
  if (f.chain && !o.chainGiven) p.any("chain", "chain " + u(*f.chain) + " ", u(*f.chain));
  if (!std::holds_alternative<std::monostate>(f.options)) {
    p.openObject("options");
    std::visit(OptionsPrinter{p, f, o}, f.options);
    p.closeObject();
  }
  p.nl();
  p.closeObject();
}

}  // namespace fastlink::cli
