// The conntrack codec: request builders (ConntrackRequests), the entry decoder, the filter's
// kernel part and its user-space twin, TCP state names.
#include "netfilter/conntrack_codec.hpp"

#include <arpa/inet.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <netinet/in.h>
#include <strings.h>
#include <sys/socket.h>

#include <array>
#include <string>

#include "fastlink/error.hpp"
#include "fastlink/subscription.hpp"
#include "core/attr_rows.hpp"
#include "rtnl/codec_helpers.hpp"

namespace fastlink {
namespace netfilter {
namespace {

using core::AttrField;
using core::FieldContext;
using core::FieldTable;
using core::MessageWriter;
using core::Wire;

uint8_t addressFamily(IpAddress::Family f) { return f == IpAddress::Family::v4 ? AF_INET : AF_INET6; }

void putBe32(MessageWriter& w, uint16_t type, uint32_t v) { w.putU32(type, htonl(v)); }

/// Writes nfgenmsg: the family (AF_UNSPEC = every family), version 0, resource id 0.
void putNfgen(MessageWriter& w, std::optional<IpAddress::Family> family) {
  auto& h = w.putHeader<nfgenmsg>();
  h.nfgen_family = family ? addressFamily(*family) : AF_UNSPEC;
  h.version = NFNETLINK_V0;
  h.res_id = 0;
}

// ---- the attribute tables: each field once, for the builders and the decoder ----

using Tuple = ConntrackTuple;
using Entry = ConntrackEntry;

/// ICMP's and ICMPv6's id, type and code share the tuple's members under two sets of types: each
/// row is sent for its own protocol, read whichever arrives.
template <uint16_t kType, auto kMember, bool kV6, Wire kWire = Wire::Native>
constexpr AttrField<Tuple> icmpField() {
  AttrField<Tuple> row = core::field<kType, kMember, kWire>();
  row.put = [](MessageWriter& w, const AttrField<Tuple>& r, const Tuple& t) {
    if ((t.protocol == IPPROTO_ICMPV6) == kV6) core::field<kType, kMember, kWire>().put(w, r, t);
  };
  return row;
}

constexpr FieldTable kTupleIp({
    core::familyAddressField<CTA_IP_V4_SRC, &Tuple::src, 4>(),
    core::familyAddressField<CTA_IP_V4_DST, &Tuple::dst, 4>(),
    core::familyAddressField<CTA_IP_V6_SRC, &Tuple::src, 16>(),
    core::familyAddressField<CTA_IP_V6_DST, &Tuple::dst, 16>(),
});
/// Unset ports are not sent (a filter tuple names only what it compares).
constexpr FieldTable kTupleProto({
    core::valueField<CTA_PROTO_NUM, &Tuple::protocol>(),
    core::field<CTA_PROTO_SRC_PORT, &Tuple::srcPort, Wire::Be16>(),
    core::field<CTA_PROTO_DST_PORT, &Tuple::dstPort, Wire::Be16>(),
    icmpField<CTA_PROTO_ICMP_ID, &Tuple::icmpId, false, Wire::Be16>(),
    icmpField<CTA_PROTO_ICMP_TYPE, &Tuple::icmpType, false>(),
    icmpField<CTA_PROTO_ICMP_CODE, &Tuple::icmpCode, false>(),
    icmpField<CTA_PROTO_ICMPV6_ID, &Tuple::icmpId, true, Wire::Be16>(),
    icmpField<CTA_PROTO_ICMPV6_TYPE, &Tuple::icmpType, true>(),
    icmpField<CTA_PROTO_ICMPV6_CODE, &Tuple::icmpCode, true>(),
});
/// CTA_TUPLE_ORIG / CTA_TUPLE_REPLY: the addresses, the protocol and what of it is set.
constexpr FieldTable kTuple({
    core::innerNestField<CTA_TUPLE_IP, kTupleIp>(),
    core::innerNestField<CTA_TUPLE_PROTO, kTupleProto>(),
    core::field<CTA_TUPLE_ZONE, &Tuple::zone, Wire::Be16>(),
});
/// A dump filter's tuple that compares no address: kTuple without CTA_TUPLE_IP.
constexpr FieldTable kTupleWithoutAddresses({core::innerNestField<CTA_TUPLE_PROTO, kTupleProto>(),
                                              core::field<CTA_TUPLE_ZONE, &Tuple::zone, Wire::Be16>()});

constexpr FieldTable kCounters({
    core::bigEndianField<CTA_COUNTERS_PACKETS, &ConntrackCounters::packets, Wire::Reported>(),
    core::bigEndianField<CTA_COUNTERS_BYTES, &ConntrackCounters::bytes, Wire::Reported>(),
});
constexpr FieldTable kTcpInfo({core::field<CTA_PROTOINFO_TCP_STATE, &Entry::tcpState>()});
constexpr FieldTable kProtoinfo({core::innerNestField<CTA_PROTOINFO_TCP, kTcpInfo>()});
constexpr FieldTable kHelp({core::field<CTA_HELP_NAME, &Entry::helper>()});
constexpr FieldTable kTimestamp({core::bigEndianField<CTA_TIMESTAMP_START, &Entry::startNs>(),
                                  core::bigEndianField<CTA_TIMESTAMP_STOP, &Entry::stopNs>()});
/// CTA_NAT_SRC / CTA_NAT_DST: one address (min = max) and, when given, one port.
constexpr FieldTable kNatPorts({core::field<CTA_PROTONAT_PORT_MIN, &ConntrackNat::port, Wire::Be16>(),
                                 core::field<CTA_PROTONAT_PORT_MAX, &ConntrackNat::port, Wire::Be16>()});
constexpr FieldTable kNat({
    core::familyAddressField<CTA_NAT_V4_MINIP, &ConntrackNat::address, 4>(),
    core::familyAddressField<CTA_NAT_V4_MAXIP, &ConntrackNat::address, 4>(),
    core::familyAddressField<CTA_NAT_V6_MINIP, &ConntrackNat::address, 16>(),
    core::familyAddressField<CTA_NAT_V6_MAXIP, &ConntrackNat::address, 16>(),
    core::innerNestField<CTA_NAT_PROTO, kNatPorts>(),
});

/// The kernel refuses (EBUSY) a status that would flip CONFIRMED, which every entry it holds or
/// creates from userspace has: sent set, as conntrack-tools does.
constexpr AttrField<Entry> statusField() {
  AttrField<Entry> row = core::bigEndianField<CTA_STATUS, &Entry::status>();
  row.put = [](MessageWriter& w, const AttrField<Entry>&, const Entry& e) {
    if (e.status) putBe32(w, CTA_STATUS, *e.status | conntrack_status::kConfirmed);
  };
  return row;
}

/// CTA_PROTOINFO: the TCP state is read; other protocols' info is kept raw.
constexpr AttrField<Entry> protoinfoField() {
  AttrField<Entry> row = core::innerNestField<CTA_PROTOINFO, kProtoinfo>();
  row.get = [](const nlattr* a, Entry& e, const FieldContext& context) {
    return core::decodeKnown(kProtoinfo, core::nestPayload(a), e, context).test(CTA_PROTOINFO_TCP);
  };
  return row;
}

/// CTA_LABELS, with CTA_LABELS_MASK saying which bits to set: all of the given bitmap's.
void putLabels(MessageWriter& w, uint16_t type, const std::vector<uint8_t>& labels) {
  w.putBytes(type, labels);
  w.putBytes(CTA_LABELS_MASK, std::vector<uint8_t>(labels.size(), 0xff));
}
std::vector<uint8_t> getLabels(std::span<const uint8_t> b, const FieldContext&) { return {b.begin(), b.end()}; }

/// An entry's attributes in the order requests carry them (a request is this table over the
/// members its verb sends), then those the kernel only reports.
constexpr FieldTable kEntry({
    core::nestField<CTA_TUPLE_ORIG, &Entry::orig, kTuple>(),
    core::nestField<CTA_TUPLE_REPLY, &Entry::reply, kTuple>(),
    core::field<CTA_ZONE, &Entry::zone, Wire::Be16>(),
    core::bigEndianField<CTA_ID, &Entry::id>(),
    core::bigEndianField<CTA_TIMEOUT, &Entry::timeout>(),
    statusField(),
    core::bigEndianField<CTA_MARK, &Entry::mark>(),
    protoinfoField(),
    core::fields::payloadRow<CTA_LABELS, &Entry::labels, Wire::Native, Entry, putLabels, getLabels>(),
    core::nestField<CTA_NAT_SRC, &Entry::srcNat, kNat, Wire::Sent>(),
    core::nestField<CTA_NAT_DST, &Entry::dstNat, kNat, Wire::Sent>(),
    core::bigEndianField<CTA_USE, &Entry::use, Wire::Reported>(),
    core::bigEndianField<CTA_SECMARK, &Entry::secmark, Wire::Reported>(),
    core::nestField<CTA_COUNTERS_ORIG, &Entry::origCounters, kCounters, Wire::Reported>(),
    core::nestField<CTA_COUNTERS_REPLY, &Entry::replyCounters, kCounters, Wire::Reported>(),
    core::innerNestField<CTA_HELP, kHelp, Wire::Reported>(),
    core::innerNestField<CTA_TIMESTAMP, kTimestamp, Wire::Reported>(),
});

const FieldContext kDecoding{"decode conntrack"};

/// A dump filter's tuple: the addresses only when one is compared.
void putFilterTuple(MessageWriter& w, uint16_t type, const Tuple& t, bool withAddresses) {
  std::size_t nest = w.beginNest(type);
  if (withAddresses) kTuple.encode(w, t);
  else kTupleWithoutAddresses.encode(w, t);
  w.endNest(nest);
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
  bool icmp = e.orig.protocol == IPPROTO_ICMP || e.orig.protocol == IPPROTO_ICMPV6;
  if (icmp && (e.orig.srcPort || e.orig.dstPort)) throw rtnl::invalid(operation, "ICMP has no ports");
}

/// A request of `verb` carrying `wire`, the members of `e` that verb sends; `check`, when
/// given, refuses what only this verb cannot send (with the same operation text).
Request entryRequest(uint8_t msg, uint16_t flags, const char* verb, const Entry& e, const Entry& wire,
                     void (*check)(const Entry&, const std::string& operation) = nullptr) {
  std::string operation = describe(verb, e);
  if (check) check(e, operation);
  requireTuple(e, operation);
  MessageWriter w(conntrackMessageType(msg), flags);
  putNfgen(w, e.family);
  kEntry.encode(w, wire);
  return w.toRequest(std::move(operation));
}

/// What get() sends: the tuple and the zone, and for del() the id that pins the entry.
Entry keyOf(const Entry& e, bool withId) {
  Entry key;
  key.family = e.family;
  key.orig = e.orig;
  key.zone = e.zone;
  if (withId) key.id = e.id;
  return key;
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
  // Each attribute by its row, without building an index first (a dump decodes many entries).
  std::size_t offset = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(nfgenmsg));
  std::size_t size = message->nlmsg_len > offset ? message->nlmsg_len - offset : 0;
  core::forEachAttr({reinterpret_cast<const uint8_t*>(message) + offset, size}, [&](const nlattr* a) {
    if (!kEntry.decode(a, e, kDecoding)) e.unknown.emplace_back(core::attrType(a), core::copyBytes(a));
  });
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
  ConntrackEntry wire = entry;
  if (!wire.reply.protocol) wire.reply = entry.orig.inverted();
  wire.id.reset();
  return netfilter::entryRequest(IPCTNL_MSG_CT_NEW, NLM_F_CREATE | NLM_F_EXCL, "-I", entry, wire,
                                 [](const ConntrackEntry& e, const std::string& operation) {
                                   if (!e.timeout) throw rtnl::invalid(operation, "a new entry needs a timeout (-t)");
                                   for (const auto* nat : {&e.srcNat, &e.dstNat})
                                     if (*nat && (*nat)->address.family() != e.family)
                                       throw rtnl::invalid(operation, "the NAT address must be of the entry's family");
                                 });
}

Request ConntrackRequests::update(const ConntrackEntry& entry) {
  ConntrackEntry wire = entry;
  wire.reply = {};
  wire.srcNat.reset();
  wire.dstNat.reset();
  return netfilter::entryRequest(IPCTNL_MSG_CT_NEW, 0, "-U", entry, wire);
}

Request ConntrackRequests::del(const ConntrackEntry& entry) {
  return netfilter::entryRequest(IPCTNL_MSG_CT_DELETE, 0, "-D", entry, netfilter::keyOf(entry, true));
}

Request ConntrackRequests::get(const ConntrackEntry& entry) {
  return netfilter::entryRequest(IPCTNL_MSG_CT_GET, 0, "-G", entry, netfilter::keyOf(entry, false));
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
    if (origFlags) putFilterTuple(w, CTA_TUPLE_ORIG, tuple(f.src, f.dst, true), f.src || f.dst);
    if (replyFlags) putFilterTuple(w, CTA_TUPLE_REPLY, tuple(f.replySrc, f.replyDst, false), true);
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
