// The conntrack codec: request builders (ConntrackRequests), the entry decoder, the filter's
// kernel part and its user-space twin, TCP state names.
#include "netfilter/conntrack_codec.hpp"

#include <arpa/inet.h>
#include <endian.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <netinet/in.h>
#include <strings.h>
#include <sys/socket.h>

#include <array>
#include <string>

#include "fastlink/error.hpp"
#include "fastlink/subscription.hpp"
#include "rtnl/codec_helpers.hpp"

namespace fastlink {
namespace netfilter {
namespace {

using core::AttrTable;
using core::MessageWriter;

uint8_t addressFamily(IpAddress::Family f) { return f == IpAddress::Family::v4 ? AF_INET : AF_INET6; }

bool isIcmp(uint8_t protocol) { return protocol == IPPROTO_ICMP || protocol == IPPROTO_ICMPV6; }

void putBe32(MessageWriter& w, uint16_t type, uint32_t v) { w.putU32(type, htonl(v)); }
uint32_t readBe32(const nlattr* a) { return ntohl(core::readU32(a)); }
uint64_t readBe64(const nlattr* a) { return be64toh(core::readU64(a)); }

/// Writes nfgenmsg: the family (AF_UNSPEC = every family), version 0, resource id 0.
void putNfgen(MessageWriter& w, std::optional<IpAddress::Family> family) {
  auto& h = w.putHeader<nfgenmsg>();
  h.nfgen_family = family ? addressFamily(*family) : AF_UNSPEC;
  h.version = NFNETLINK_V0;
  h.res_id = 0;
}

/// CTA_TUPLE_ORIG / CTA_TUPLE_REPLY: the addresses, the protocol and what of it is set. Unset
/// ports are not sent (a filter tuple names only what it compares).
void putTuple(MessageWriter& w, uint16_t type, const ConntrackTuple& t, bool withAddresses) {
  std::size_t tuple = w.beginNest(type);
  if (withAddresses) {
    std::size_t ip = w.beginNest(CTA_TUPLE_IP);
    bool v4 = t.src.isV4();
    w.putBytes(v4 ? CTA_IP_V4_SRC : CTA_IP_V6_SRC, t.src.bytes());
    w.putBytes(v4 ? CTA_IP_V4_DST : CTA_IP_V6_DST, t.dst.bytes());
    w.endNest(ip);
  }
  if (t.protocol) {
    std::size_t proto = w.beginNest(CTA_TUPLE_PROTO);
    w.putU8(CTA_PROTO_NUM, t.protocol);
    if (t.srcPort) w.putBe16(CTA_PROTO_SRC_PORT, *t.srcPort);
    if (t.dstPort) w.putBe16(CTA_PROTO_DST_PORT, *t.dstPort);
    bool v6 = t.protocol == IPPROTO_ICMPV6;
    if (t.icmpId) w.putBe16(v6 ? CTA_PROTO_ICMPV6_ID : CTA_PROTO_ICMP_ID, *t.icmpId);
    if (t.icmpType) w.putU8(v6 ? CTA_PROTO_ICMPV6_TYPE : CTA_PROTO_ICMP_TYPE, *t.icmpType);
    if (t.icmpCode) w.putU8(v6 ? CTA_PROTO_ICMPV6_CODE : CTA_PROTO_ICMP_CODE, *t.icmpCode);
    w.endNest(proto);
  }
  if (t.zone) w.putBe16(CTA_TUPLE_ZONE, *t.zone);
  w.endNest(tuple);
}

std::string protocolWord(uint8_t p) {
  switch (p) {
    case IPPROTO_TCP: return "tcp";
    case IPPROTO_UDP: return "udp";
    case IPPROTO_ICMP: return "icmp";
    case IPPROTO_ICMPV6: return "icmpv6";
    case IPPROTO_SCTP: return "sctp";
    case IPPROTO_DCCP: return "dccp";
    case IPPROTO_UDPLITE: return "udplite";
    case IPPROTO_GRE: return "gre";
    default: return std::to_string(p);
  }
}

/// The request in conntrack's words, for errors: "conntrack -D -p udp -s 10.0.0.1 ...".
std::string describe(const char* verb, const ConntrackEntry& e) {
  std::string s = std::string("conntrack ") + verb;
  const ConntrackTuple& t = e.orig;
  if (t.protocol) s += " -p " + protocolWord(t.protocol);
  s += " -s " + t.src.toString() + " -d " + t.dst.toString();
  if (t.srcPort) s += " --sport " + std::to_string(*t.srcPort);
  if (t.dstPort) s += " --dport " + std::to_string(*t.dstPort);
  if (t.icmpType) s += " --icmp-type " + std::to_string(*t.icmpType);
  if (t.icmpCode) s += " --icmp-code " + std::to_string(*t.icmpCode);
  if (t.icmpId) s += " --icmp-id " + std::to_string(*t.icmpId);
  if (e.zone) s += " --zone " + std::to_string(*e.zone);
  auto nat = [&](const char* option, const std::optional<ConntrackNat>& n) {
    if (!n) return;
    s += std::string(" ") + option + " " + n->address.toString();
    if (n->port) s += ":" + std::to_string(*n->port);
  };
  nat("--src-nat", e.srcNat);
  nat("--dst-nat", e.dstNat);
  return s;
}

void requireTuple(const ConntrackEntry& e, const std::string& operation) {
  if (!e.orig.protocol) throw rtnl::invalid(operation, "the original tuple needs a protocol (-p)");
  if (e.orig.src.family() != e.orig.dst.family() || e.orig.src.family() != e.family)
    throw rtnl::invalid(operation, "source and destination must be of the entry's family");
  bool ports = e.orig.srcPort || e.orig.dstPort;
  if (isIcmp(e.orig.protocol) && ports) throw rtnl::invalid(operation, "ICMP has no ports");
}

/// The attributes an entry's settable fields become (create and update).
void putSettable(MessageWriter& w, const ConntrackEntry& e) {
  if (e.timeout) putBe32(w, CTA_TIMEOUT, *e.timeout);
  // The kernel refuses (EBUSY) a status that would flip CONFIRMED, which every entry it holds
  // or creates from userspace has: send it set, as conntrack-tools does.
  if (e.status) putBe32(w, CTA_STATUS, *e.status | conntrack_status::kConfirmed);
  if (e.mark) putBe32(w, CTA_MARK, *e.mark);
  if (e.tcpState) {
    std::size_t info = w.beginNest(CTA_PROTOINFO);
    std::size_t tcp = w.beginNest(CTA_PROTOINFO_TCP);
    w.putU8(CTA_PROTOINFO_TCP_STATE, *e.tcpState);
    w.endNest(tcp);
    w.endNest(info);
  }
  if (e.labels) {
    w.putBytes(CTA_LABELS, *e.labels);
    // The mask says which bits to set: all of the given bitmap's.
    std::vector<uint8_t> mask(e.labels->size(), 0xff);
    w.putBytes(CTA_LABELS_MASK, mask);
  }
}

/// CTA_NAT_SRC / CTA_NAT_DST: one address (min = max) and, when given, one port.
void putNat(MessageWriter& w, uint16_t type, const ConntrackNat& nat) {
  std::size_t nest = w.beginNest(type);
  bool v4 = nat.address.isV4();
  w.putBytes(v4 ? CTA_NAT_V4_MINIP : CTA_NAT_V6_MINIP, nat.address.bytes());
  w.putBytes(v4 ? CTA_NAT_V4_MAXIP : CTA_NAT_V6_MAXIP, nat.address.bytes());
  if (nat.port) {
    std::size_t proto = w.beginNest(CTA_NAT_PROTO);
    w.putBe16(CTA_PROTONAT_PORT_MIN, *nat.port);
    w.putBe16(CTA_PROTONAT_PORT_MAX, *nat.port);
    w.endNest(proto);
  }
  w.endNest(nest);
}

Request entryRequest(uint8_t msg, uint16_t flags, const char* verb, const ConntrackEntry& e, bool settable, bool withId) {
  std::string operation = describe(verb, e);
  requireTuple(e, operation);
  MessageWriter w(conntrackMessageType(msg), flags);
  putNfgen(w, e.family);
  putTuple(w, CTA_TUPLE_ORIG, e.orig, true);
  if (msg == IPCTNL_MSG_CT_NEW && (flags & NLM_F_CREATE)) {
    ConntrackTuple reply = e.reply.protocol ? e.reply : e.orig.inverted();
    putTuple(w, CTA_TUPLE_REPLY, reply, true);
  }
  if (e.zone) w.putBe16(CTA_ZONE, *e.zone);
  if (withId && e.id) putBe32(w, CTA_ID, *e.id);
  if (settable) putSettable(w, e);
  if (msg == IPCTNL_MSG_CT_NEW && (flags & NLM_F_CREATE)) {
    for (const auto* nat : {&e.srcNat, &e.dstNat})
      if (*nat && (*nat)->address.family() != e.family) throw rtnl::invalid(operation, "the NAT address must be of the entry's family");
    if (e.srcNat) putNat(w, CTA_NAT_SRC, *e.srcNat);
    if (e.dstNat) putNat(w, CTA_NAT_DST, *e.dstNat);
  }
  return w.toRequest(std::move(operation));
}

// ---- decoding ----

void decodeTuple(const nlattr* nest, ConntrackTuple& t) {
  AttrTable tuple = AttrTable::ofNest(nest, CTA_TUPLE_MAX);
  if (const nlattr* ip = tuple.get(CTA_TUPLE_IP)) {
    AttrTable a = AttrTable::ofNest(ip, CTA_IP_MAX);
    if (const nlattr* s = a.get(CTA_IP_V4_SRC)) t.src = rtnl::readAddress(s, 4, "decode conntrack");
    if (const nlattr* d = a.get(CTA_IP_V4_DST)) t.dst = rtnl::readAddress(d, 4, "decode conntrack");
    if (const nlattr* s = a.get(CTA_IP_V6_SRC)) t.src = rtnl::readAddress(s, 16, "decode conntrack");
    if (const nlattr* d = a.get(CTA_IP_V6_DST)) t.dst = rtnl::readAddress(d, 16, "decode conntrack");
  }
  if (const nlattr* proto = tuple.get(CTA_TUPLE_PROTO)) {
    AttrTable p = AttrTable::ofNest(proto, CTA_PROTO_MAX);
    if (const nlattr* n = p.get(CTA_PROTO_NUM)) t.protocol = core::readU8(n);
    if (const nlattr* a = p.get(CTA_PROTO_SRC_PORT)) t.srcPort = core::readBe16(a);
    if (const nlattr* a = p.get(CTA_PROTO_DST_PORT)) t.dstPort = core::readBe16(a);
    if (const nlattr* a = p.get(CTA_PROTO_ICMP_ID)) t.icmpId = core::readBe16(a);
    if (const nlattr* a = p.get(CTA_PROTO_ICMP_TYPE)) t.icmpType = core::readU8(a);
    if (const nlattr* a = p.get(CTA_PROTO_ICMP_CODE)) t.icmpCode = core::readU8(a);
    if (const nlattr* a = p.get(CTA_PROTO_ICMPV6_ID)) t.icmpId = core::readBe16(a);
    if (const nlattr* a = p.get(CTA_PROTO_ICMPV6_TYPE)) t.icmpType = core::readU8(a);
    if (const nlattr* a = p.get(CTA_PROTO_ICMPV6_CODE)) t.icmpCode = core::readU8(a);
  }
  if (const nlattr* z = tuple.get(CTA_TUPLE_ZONE)) t.zone = core::readBe16(z);
}

ConntrackCounters decodeCounters(const nlattr* nest) {
  AttrTable c = AttrTable::ofNest(nest, CTA_COUNTERS_MAX);
  ConntrackCounters out;
  if (const nlattr* a = c.get(CTA_COUNTERS_PACKETS)) out.packets = readBe64(a);
  if (const nlattr* a = c.get(CTA_COUNTERS_BYTES)) out.bytes = readBe64(a);
  return out;
}

/// CTA_PROTOINFO: the TCP state is decoded; false (keep it raw) for other protocols' info.
bool decodeProtoinfo(const nlattr* nest, ConntrackEntry& e) {
  AttrTable info = AttrTable::ofNest(nest, CTA_PROTOINFO_MAX);
  const nlattr* tcp = info.get(CTA_PROTOINFO_TCP);
  if (!tcp) return false;
  AttrTable t = AttrTable::ofNest(tcp, CTA_PROTOINFO_TCP_MAX);
  if (const nlattr* s = t.get(CTA_PROTOINFO_TCP_STATE)) e.tcpState = core::readU8(s);
  return true;
}

constexpr std::array<std::string_view, 10> kTcpStates = {"NONE",      "SYN_SENT",   "SYN_RECV", "ESTABLISHED", "FIN_WAIT",
                                                         "CLOSE_WAIT", "LAST_ACK", "TIME_WAIT", "CLOSE",       "SYN_SENT2"};

}  // namespace

uint16_t conntrackMessageType(uint8_t msg) { return static_cast<uint16_t>(NFNL_SUBSYS_CTNETLINK << 8 | msg); }

std::optional<uint8_t> conntrackMessageKind(uint16_t type) {
  if ((type >> 8) != NFNL_SUBSYS_CTNETLINK) return std::nullopt;
  return static_cast<uint8_t>(type & 0xff);
}

ConntrackEntry decodeEntry(const nlmsghdr* message) {
  const nfgenmsg* h = core::messageHeader<nfgenmsg>(message);
  if (!h) throw rtnl::malformed("decode conntrack", "short conntrack message");
  ConntrackEntry e;
  e.family = h->nfgen_family == AF_INET6 ? IpAddress::Family::v6 : IpAddress::Family::v4;
  AttrTable attrs = AttrTable::ofMessage(message, sizeof(nfgenmsg), CTA_MAX);
  for (const nlattr* a : attrs.all()) {
    switch (core::attrType(a)) {
      case CTA_TUPLE_ORIG: decodeTuple(a, e.orig); continue;
      case CTA_TUPLE_REPLY: decodeTuple(a, e.reply); continue;
      case CTA_STATUS: e.status = readBe32(a); continue;
      case CTA_TIMEOUT: e.timeout = readBe32(a); continue;
      case CTA_MARK: e.mark = readBe32(a); continue;
      case CTA_USE: e.use = readBe32(a); continue;
      case CTA_ID: e.id = readBe32(a); continue;
      case CTA_SECMARK: e.secmark = readBe32(a); continue;
      case CTA_ZONE: e.zone = core::readBe16(a); continue;
      case CTA_COUNTERS_ORIG: e.origCounters = decodeCounters(a); continue;
      case CTA_COUNTERS_REPLY: e.replyCounters = decodeCounters(a); continue;
      case CTA_LABELS: e.labels = core::copyBytes(a); continue;
      case CTA_HELP: {
        AttrTable help = AttrTable::ofNest(a, CTA_HELP_MAX);
        if (const nlattr* n = help.get(CTA_HELP_NAME)) e.helper = core::readString(n);
        continue;
      }
      case CTA_TIMESTAMP: {
        AttrTable ts = AttrTable::ofNest(a, CTA_TIMESTAMP_MAX);
        if (const nlattr* s = ts.get(CTA_TIMESTAMP_START)) e.startNs = readBe64(s);
        if (const nlattr* s = ts.get(CTA_TIMESTAMP_STOP)) e.stopNs = readBe64(s);
        continue;
      }
      case CTA_PROTOINFO:
        if (decodeProtoinfo(a, e)) continue;
        break;
      default: break;
    }
    e.unknown.emplace_back(core::attrType(a), core::copyBytes(a));
  }
  return e;
}

}  // namespace netfilter

// ---- public pieces of the codec ----

ConntrackTuple ConntrackTuple::inverted() const {
  ConntrackTuple r = *this;
  std::swap(r.src, r.dst);
  std::swap(r.srcPort, r.dstPort);
  if (icmpType) {
    // Echo, timestamp, info and address-mask requests are answered by the next type (ICMP);
    // ICMPv6 echo request 128 by echo reply 129 (nf_conntrack_proto_icmp*.c's invmap).
    uint8_t t = *icmpType;
    if (protocol == IPPROTO_ICMP && (t == 8 || t == 13 || t == 15 || t == 17)) r.icmpType = t == 8 ? 0 : t + 1;
    if (protocol == IPPROTO_ICMPV6 && (t == 128 || t == 130)) r.icmpType = t + 1;
  }
  return r;
}

std::string_view tcpStateName(uint8_t state) {
  return state < netfilter::kTcpStates.size() ? netfilter::kTcpStates[state] : std::string_view();
}

std::optional<uint8_t> tcpStateByName(std::string_view name) {
  for (std::size_t i = 0; i < netfilter::kTcpStates.size(); ++i) {
    std::string_view s = netfilter::kTcpStates[i];
    if (s.size() == name.size() && strncasecmp(s.data(), name.data(), s.size()) == 0) return static_cast<uint8_t>(i);
  }
  if (strncasecmp(name.data(), "LISTEN", name.size()) == 0 && name.size() == 6) return 9;  // conntrack's old name
  return std::nullopt;
}

std::optional<IpAddress::Family> ConntrackFilter::effectiveFamily() const {
  if (family) return family;
  for (const auto* a : {&src, &dst, &replySrc, &replyDst})
    if (*a) return (*a)->family();
  return std::nullopt;
}

bool ConntrackEntry::isSrcNat() const {
  return (status.value_or(0) & conntrack_status::kSrcNatDone) && reply.dst != orig.src;
}

bool ConntrackEntry::isDstNat() const {
  return (status.value_or(0) & conntrack_status::kDstNatDone) && reply.src != orig.dst;
}

namespace {

/// conntrack-tools' NAT selectors (-n, -g, -j): the kind of NAT, and its address when given (the
/// reply's destination for source NAT, its source for destination NAT).
bool natMatches(const ConntrackFilter& f, const ConntrackEntry& e) {
  bool checkSrc = f.srcNat || f.anyNat, checkDst = f.dstNat || f.anyNat;
  if (!checkSrc && !checkDst) return true;
  auto hit = [](const std::optional<std::optional<IpAddress>>& want, bool is, const IpAddress& to) {
    return is && (!want || !*want || **want == to);
  };
  bool src = checkSrc && hit(f.srcNat, e.isSrcNat(), e.reply.dst);
  bool dst = checkDst && hit(f.dstNat, e.isDstNat(), e.reply.src);
  if (f.anyNat) return src || dst;
  if (f.srcNat && f.dstNat) return src && dst;
  return f.srcNat ? src : dst;
}

/// conntrack-tools' filter_label: every wanted bit set; an entry without labels has none.
bool labelsMatch(const std::vector<uint8_t>& wanted, const std::optional<std::vector<uint8_t>>& have) {
  for (std::size_t i = 0; i < wanted.size(); ++i) {
    if (!wanted[i]) continue;
    uint8_t present = have && i < have->size() ? (*have)[i] : 0;
    if ((present & wanted[i]) != wanted[i]) return false;
  }
  return true;
}

}  // namespace

bool ConntrackFilter::matches(const ConntrackEntry& e) const {
  if (auto f = effectiveFamily(); f && e.family != *f) return false;
  if (src && e.orig.src != *src) return false;
  if (dst && e.orig.dst != *dst) return false;
  if (replySrc && e.reply.src != *replySrc) return false;
  if (replyDst && e.reply.dst != *replyDst) return false;
  if (protocol && e.orig.protocol != *protocol) return false;
  if (srcPort && e.orig.srcPort != srcPort) return false;
  if (dstPort && e.orig.dstPort != dstPort) return false;
  if (mark && (e.mark.value_or(0) & markMask) != (*mark & markMask)) return false;
  if (status && (e.status.value_or(0) & *status) != *status) return false;
  if (zone && e.zone.value_or(0) != *zone) return false;
  if (!labelsMatch(labels, e.labels)) return false;
  return natMatches(*this, e);
}

Request ConntrackRequests::create(const ConntrackEntry& entry) {
  if (!entry.timeout) throw rtnl::invalid(netfilter::describe("-I", entry), "a new entry needs a timeout (-t)");
  return netfilter::entryRequest(IPCTNL_MSG_CT_NEW, NLM_F_CREATE | NLM_F_EXCL, "-I", entry, true, false);
}

Request ConntrackRequests::update(const ConntrackEntry& entry) {
  return netfilter::entryRequest(IPCTNL_MSG_CT_NEW, 0, "-U", entry, true, true);
}

Request ConntrackRequests::del(const ConntrackEntry& entry) {
  return netfilter::entryRequest(IPCTNL_MSG_CT_DELETE, 0, "-D", entry, false, true);
}

Request ConntrackRequests::get(const ConntrackEntry& entry) {
  return netfilter::entryRequest(IPCTNL_MSG_CT_GET, 0, "-G", entry, false, false);
}

Request ConntrackRequests::list(const ConntrackFilter& f) {
  using namespace netfilter;
  if ((f.srcPort || f.dstPort) && !f.protocol) throw rtnl::invalid("conntrack -L", "--sport and --dport need a protocol (-p)");
  std::optional<IpAddress::Family> family = f.effectiveFamily();
  for (const auto* a : {&f.src, &f.dst, &f.replySrc, &f.replyDst})
    if (*a && (*a)->family() != *family) throw rtnl::invalid("conntrack -L", "addresses of two families");
  MessageWriter w(conntrackMessageType(IPCTNL_MSG_CT_GET), 0);
  putNfgen(w, family);
  if (f.mark) {
    putBe32(w, CTA_MARK, *f.mark);
    putBe32(w, CTA_MARK_MASK, f.markMask);
  }
  // -n or -g alone (not -j, which takes either): the kernel keeps only entries with that NAT
  // done; the address comparison stays in user space.
  uint32_t status = f.status.value_or(0);
  if (!f.anyNat && f.srcNat) status |= conntrack_status::kSrcNatDone;
  if (!f.anyNat && f.dstNat) status |= conntrack_status::kDstNatDone;
  if (status) {
    putBe32(w, CTA_STATUS, status);
    putBe32(w, CTA_STATUS_MASK, status);
  }
  uint32_t origFlags = (f.src ? kFilterIpSrc : 0) | (f.dst ? kFilterIpDst : 0) | (f.protocol ? kFilterProtoNum : 0) |
                       (f.srcPort ? kFilterProtoSrcPort : 0) | (f.dstPort ? kFilterProtoDstPort : 0) |
                       (f.zone ? kFilterTupleZone : 0);
  uint32_t replyFlags = (f.replySrc ? kFilterIpSrc : 0) | (f.replyDst ? kFilterIpDst : 0) | (f.protocol ? kFilterProtoNum : 0);
  if (!f.replySrc && !f.replyDst) replyFlags = 0;
  if (origFlags || replyFlags) {
    // The filter tuple carries only the compared fields; an unset address is sent as zeros
    // (the kernel reads both when either is compared).
    auto tuple = [&](const std::optional<IpAddress>& s, const std::optional<IpAddress>& d, bool withZone) {
      ConntrackTuple t;
      IpAddress zero = *family == IpAddress::Family::v4 ? IpAddress::parse("0.0.0.0") : IpAddress::parse("::");
      t.src = s.value_or(zero);
      t.dst = d.value_or(zero);
      t.protocol = f.protocol.value_or(0);
      if (withZone) {
        t.srcPort = f.srcPort;
        t.dstPort = f.dstPort;
        t.zone = f.zone;
      }
      return t;
    };
    if (origFlags) putTuple(w, CTA_TUPLE_ORIG, tuple(f.src, f.dst, true), f.src || f.dst);
    if (replyFlags) putTuple(w, CTA_TUPLE_REPLY, tuple(f.replySrc, f.replyDst, false), true);
    std::size_t filter = w.beginNest(CTA_FILTER);
    w.putU32(CTA_FILTER_ORIG_FLAGS, origFlags);
    w.putU32(CTA_FILTER_REPLY_FLAGS, replyFlags);
    w.endNest(filter);
  }
  return w.toRequest("conntrack -L");
}

Request ConntrackRequests::flush(std::optional<IpAddress::Family> family) {
  core::MessageWriter w(netfilter::conntrackMessageType(IPCTNL_MSG_CT_DELETE), 0);
  netfilter::putNfgen(w, family);
  return w.toRequest("conntrack -F");
}

ConntrackEntry decodeConntrack(std::span<const uint8_t> message) {
  if (message.size() < NLMSG_HDRLEN) throw rtnl::malformed("decode conntrack", "short message");
  const auto* h = reinterpret_cast<const nlmsghdr*>(message.data());
  if (h->nlmsg_len > message.size() || h->nlmsg_len < NLMSG_HDRLEN)
    throw rtnl::malformed("decode conntrack", "message length beyond the buffer");
  return netfilter::decodeEntry(h);
}

std::optional<ConntrackEvent> decodeConntrackEvent(const Notification& n) {
  if (n.bytes.size() < NLMSG_HDRLEN) return std::nullopt;
  std::optional<uint8_t> kind = netfilter::conntrackMessageKind(n.type());
  if (!kind || (*kind != IPCTNL_MSG_CT_NEW && *kind != IPCTNL_MSG_CT_DELETE)) return std::nullopt;
  ConntrackEvent ev;
  if (*kind == IPCTNL_MSG_CT_DELETE) ev.type = ConntrackEventType::Destroy;
  else ev.type = (n.flags() & (NLM_F_CREATE | NLM_F_EXCL)) ? ConntrackEventType::New : ConntrackEventType::Update;
  ev.entry = decodeConntrack(n.bytes);
  ev.senderPortId = reinterpret_cast<const nlmsghdr*>(n.bytes.data())->nlmsg_pid;
  return ev;
}

}  // namespace fastlink
