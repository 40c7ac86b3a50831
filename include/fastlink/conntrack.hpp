// Connection tracking (`conntrack -L|-G|-I|-U|-D|-F|-E`): typed ConntrackEntry, request builders
// for batches, kernel-filtered dumps, and ConntrackApi over a NETLINK_NETFILTER socket
// (nfnetlink subsystem CTNETLINK).
//
// Conntrack entries belong to a network namespace, like links: a Netlink opened in namespace X
// sees X's table only.
//
//   fastlink::Netlink nl;
//   auto& ct = nl.conntrack();
//   // Entries of one source address, filtered by the kernel (CTA_FILTER), not in user space:
//   ct.forEach(ConntrackFilter().setSrc(IpAddress::parse("10.0.0.1")), [](const ConntrackEntry& e) { ... });
//   // Delete them: one filtered dump, then one pipelined batch of deletes.
//   std::size_t gone = ct.deleteMatching(ConntrackFilter().setSrc(IpAddress::parse("10.0.0.1")));
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fastlink/request.hpp"
#include "fastlink/types.hpp"

namespace fastlink {

struct Notification;

/// One direction of a connection: addresses, layer-4 protocol and its ports (TCP, UDP, SCTP,
/// DCCP, UDP-Lite) or ICMP type/code/id.
struct ConntrackTuple {
  IpAddress src;
  IpAddress dst;
  uint8_t protocol = 0;  ///< IPPROTO_* (6 tcp, 17 udp, 1 icmp, 58 icmpv6)
  std::optional<uint16_t> srcPort;
  std::optional<uint16_t> dstPort;
  std::optional<uint8_t> icmpType;
  std::optional<uint8_t> icmpCode;
  std::optional<uint16_t> icmpId;
  std::optional<uint16_t> zone;  ///< a per-direction zone (CTA_TUPLE_ZONE), rarely used

  /// The same connection seen from the other side: addresses and ports swapped, an ICMP echo
  /// request's type turned into its reply's (what `conntrack -I` assumes without --reply-*).
  ConntrackTuple inverted() const;
  friend bool operator==(const ConntrackTuple&, const ConntrackTuple&) = default;
};

/// A NAT a new entry gets (conntrack -I --src-nat/--dst-nat ADDR[:PORT]): the kernel maps the
/// entry's reply tuple to it (CTA_NAT_SRC/CTA_NAT_DST; needs NAT in the kernel, nf_nat).
struct ConntrackNat {
  IpAddress address;
  std::optional<uint16_t> port;
  friend bool operator==(const ConntrackNat&, const ConntrackNat&) = default;
};

/// Per-direction accounting (net.netfilter.nf_conntrack_acct=1).
struct ConntrackCounters {
  uint64_t packets = 0;
  uint64_t bytes = 0;
  friend bool operator==(const ConntrackCounters&, const ConntrackCounters&) = default;
};

/// Status bits (enum ip_conntrack_status), as `conntrack --status` names some of them.
namespace conntrack_status {
inline constexpr uint32_t kExpected = 1u << 0;
inline constexpr uint32_t kSeenReply = 1u << 1;
inline constexpr uint32_t kAssured = 1u << 2;
inline constexpr uint32_t kConfirmed = 1u << 3;
inline constexpr uint32_t kSrcNat = 1u << 4;
inline constexpr uint32_t kDstNat = 1u << 5;
inline constexpr uint32_t kSeqAdjust = 1u << 6;
inline constexpr uint32_t kSrcNatDone = 1u << 7;
inline constexpr uint32_t kDstNatDone = 1u << 8;
inline constexpr uint32_t kDying = 1u << 9;
inline constexpr uint32_t kFixedTimeout = 1u << 10;
inline constexpr uint32_t kTemplate = 1u << 11;
inline constexpr uint32_t kUntracked = 1u << 12;
inline constexpr uint32_t kHelper = 1u << 13;
inline constexpr uint32_t kOffload = 1u << 14;
inline constexpr uint32_t kHwOffload = 1u << 15;
}  // namespace conntrack_status

/// TCP conntrack states (enum tcp_conntrack) as conntrack prints them ("ESTABLISHED"); "" for
/// a number it has no name for.
std::string_view tcpStateName(uint8_t state);
/// The number of a state name (case-insensitive); std::nullopt when unknown.
std::optional<uint8_t> tcpStateByName(std::string_view name);

/// One conntrack entry. Every field is optional on the way in (an unset one is not sent); on the
/// way out the kernel's attributes fill what it reports.
struct ConntrackEntry {
  IpAddress::Family family = IpAddress::Family::v4;
  ConntrackTuple orig;
  ConntrackTuple reply;  ///< create: left empty (protocol 0), the inverse of `orig` is sent
  std::optional<uint32_t> status;   ///< conntrack_status bits
  std::optional<uint32_t> timeout;  ///< seconds left
  std::optional<uint32_t> mark;
  std::optional<uint16_t> zone;
  std::optional<uint32_t> use;  ///< reference count (read only)
  std::optional<uint32_t> id;   ///< the kernel's id of the entry (read only; pins a delete)
  std::optional<uint32_t> secmark;
  std::optional<uint8_t> tcpState;  ///< enum tcp_conntrack
  std::optional<ConntrackCounters> origCounters;
  std::optional<ConntrackCounters> replyCounters;
  std::optional<std::vector<uint8_t>> labels;  ///< the 128-bit label bitmap
  std::optional<std::string> helper;
  std::optional<uint64_t> startNs;  ///< timestamp (net.netfilter.nf_conntrack_timestamp=1)
  std::optional<uint64_t> stopNs;
  std::optional<ConntrackNat> srcNat;  ///< create only: source NAT to set up (conntrack -I --src-nat)
  std::optional<ConntrackNat> dstNat;  ///< create only: destination NAT (conntrack -I --dst-nat)
  /// Attributes this codec does not decode (NAT sequence adjustment, synproxy, ...), kept raw.
  std::vector<std::pair<uint16_t, std::vector<uint8_t>>> unknown;

  ConntrackEntry& setOrig(ConntrackTuple t) { family = t.src.family(); orig = std::move(t); return *this; }
  ConntrackEntry& setReply(ConntrackTuple t) { reply = std::move(t); return *this; }
  ConntrackEntry& setStatus(uint32_t v) { status = v; return *this; }
  ConntrackEntry& setTimeout(uint32_t v) { timeout = v; return *this; }
  ConntrackEntry& setMark(uint32_t v) { mark = v; return *this; }
  ConntrackEntry& setZone(uint16_t v) { zone = v; return *this; }
  ConntrackEntry& setTcpState(uint8_t v) { tcpState = v; return *this; }
  ConntrackEntry& setLabels(std::vector<uint8_t> v) { labels = std::move(v); return *this; }

  /// Source-NATed, as conntrack-tools decides it: the kernel did the source NAT
  /// (IPS_SRC_NAT_DONE) and the reply goes to another address than the original source.
  bool isSrcNat() const;
  /// Destination-NATed: IPS_DST_NAT_DONE and the reply comes from another address than the
  /// original destination.
  bool isDstNat() const;

  friend bool operator==(const ConntrackEntry&, const ConntrackEntry&) = default;
};

/// Which entries a dump returns. The kernel filters (Linux 6.18, nf_conntrack_netlink.c): the
/// family (nfgenmsg), mark/mask (CTA_MARK + CTA_MARK_MASK, since 4.x), status/mask
/// (CTA_STATUS + CTA_STATUS_MASK, since 5.19), and through CTA_FILTER (since 5.8) the original
/// and reply direction's addresses, layer-4 protocol and ports. The zone is sent in the filter
/// tuple (CTA_TUPLE_ZONE) but 6.18 does not apply it to dumps (docs/cli/conntrack.md). Every
/// field is also checked in user space (matches()), so a kernel that ignores a filter still
/// yields only matching entries, only slower. The NAT selectors are user space only (the
/// kernel narrows -n or -g alone by its status bit).
struct ConntrackFilter {
  std::optional<IpAddress::Family> family;
  std::optional<IpAddress> src;       ///< original direction (conntrack -s)
  std::optional<IpAddress> dst;       ///< original direction (conntrack -d)
  std::optional<IpAddress> replySrc;  ///< reply direction (conntrack -r)
  std::optional<IpAddress> replyDst;  ///< reply direction (conntrack -q)
  std::optional<uint8_t> protocol;
  std::optional<uint16_t> srcPort;  ///< original direction, needs `protocol`
  std::optional<uint16_t> dstPort;
  std::optional<uint32_t> mark;
  uint32_t markMask = 0xffffffff;
  std::optional<uint32_t> status;  ///< entries with all these bits set
  std::optional<uint16_t> zone;
  /// conntrack -n/--src-nat [ADDR]: source-NATed entries (isSrcNat), to ADDR when given (the
  /// reply's destination). conntrack -g/--dst-nat: the same for destination NAT (the reply's
  /// source). Both set: entries with both. `anyNat` (conntrack -j): entries with either.
  std::optional<std::optional<IpAddress>> srcNat;
  std::optional<std::optional<IpAddress>> dstNat;
  bool anyNat = false;
  /// conntrack -l/--label: entries with every bit of this bitmap set in their CTA_LABELS (bit N
  /// is byte N/8, bit N%8, as the kernel stores them). User space only: no kernel filters
  /// labels. Empty: no label selector.
  std::vector<uint8_t> labels;

  ConntrackFilter& setFamily(IpAddress::Family v) { family = v; return *this; }
  ConntrackFilter& setSrc(const IpAddress& v) { src = v; return *this; }
  ConntrackFilter& setDst(const IpAddress& v) { dst = v; return *this; }
  ConntrackFilter& setProtocol(uint8_t v) { protocol = v; return *this; }
  ConntrackFilter& setSrcPort(uint16_t v) { srcPort = v; return *this; }
  ConntrackFilter& setDstPort(uint16_t v) { dstPort = v; return *this; }
  ConntrackFilter& setMark(uint32_t v, uint32_t mask = 0xffffffff) { mark = v; markMask = mask; return *this; }
  ConntrackFilter& setStatus(uint32_t bits) { status = bits; return *this; }
  ConntrackFilter& setZone(uint16_t v) { zone = v; return *this; }
  ConntrackFilter& setSrcNat(std::optional<IpAddress> to = std::nullopt) { srcNat = to; return *this; }
  ConntrackFilter& setDstNat(std::optional<IpAddress> to = std::nullopt) { dstNat = to; return *this; }
  ConntrackFilter& setAnyNat() { anyNat = true; return *this; }
  ConntrackFilter& setLabels(std::vector<uint8_t> bits) { labels = std::move(bits); return *this; }

  /// The family the dump asks for: `family`, else the one of an address given, else any.
  std::optional<IpAddress::Family> effectiveFamily() const;
  bool matches(const ConntrackEntry& entry) const;
};

enum class ConntrackEventType { New, Update, Destroy };

/// One conntrack notification.
struct ConntrackEvent {
  ConntrackEventType type = ConntrackEventType::New;
  ConntrackEntry entry;
  uint32_t senderPortId = 0;  ///< nonzero: caused by that netlink socket (conntrack's [USERSPACE])
};

/// The multicast groups of conntrack events (NFNLGRP_CONNTRACK_*), for Netlink::subscribeNetfilter.
namespace conntrack_group {
inline constexpr uint32_t kNew = 1;
inline constexpr uint32_t kUpdate = 2;
inline constexpr uint32_t kDestroy = 3;
}  // namespace conntrack_group

/// Builds conntrack requests without sending them (batches: Netlink::run with Protocol::Netfilter
/// is not needed, use ConntrackApi::run). Throw Error(EINVAL) on incomplete input.
struct ConntrackRequests {
  /// Equivalent to: conntrack -I -p P -s A -d B --sport X --dport Y -t T [--mark M] [--zone Z] ...
  /// Needs orig addresses, protocol and a timeout; an empty `reply` is sent as orig.inverted().
  static Request create(const ConntrackEntry& entry);
  /// Equivalent to: conntrack -U ... (changes mark, timeout, status, labels of the entry `orig` names)
  static Request update(const ConntrackEntry& entry);
  /// Equivalent to: conntrack -D with the full tuple (and the id, when set: only that entry).
  static Request del(const ConntrackEntry& entry);
  /// Equivalent to: conntrack -G with the full tuple.
  static Request get(const ConntrackEntry& entry);
  /// A dump request carrying the kernel-side parts of `filter` (send with a dump).
  static Request list(const ConntrackFilter& filter);
  /// Equivalent to: conntrack -F [-f ipv4|ipv6]
  static Request flush(std::optional<IpAddress::Family> family = std::nullopt);
};

/// Decodes one IPCTNL_MSG_CT_NEW/DELETE message (a dump reply or a notification), header
/// first. Throws Error(Errc::malformed_reply) on a message it cannot read.
ConntrackEntry decodeConntrack(std::span<const uint8_t> message);
/// A notification as an event; std::nullopt for a message that is not a conntrack event.
std::optional<ConntrackEvent> decodeConntrackEvent(const Notification& notification);

class ConntrackApi {
 public:
  /// Streams the entries that match `filter` (filtered by the kernel where it can).
  /// `restart`: called when the kernel interrupted the dump and it starts over.
  /// Equivalent to: conntrack -L [selectors]
  void forEach(const ConntrackFilter& filter, const std::function<void(const ConntrackEntry&)>& each,
               const std::function<void()>& restart = {});
  std::vector<ConntrackEntry> list(const ConntrackFilter& filter = {});
  /// The entry with `key`'s original tuple (and zone). Throws Error(ENOENT) when there is none.
  /// Equivalent to: conntrack -G ...
  ConntrackEntry get(const ConntrackEntry& key);
  void create(const ConntrackEntry& entry);
  void update(const ConntrackEntry& entry);
  void del(const ConntrackEntry& entry);
  void flush(std::optional<IpAddress::Family> family = std::nullopt);
  /// Deletes every entry that matches: one kernel-filtered dump, then one pipelined batch of
  /// deletes (each pinned by the entry's id, so a new connection with the same tuple survives).
  /// Entries that vanished meanwhile (ENOENT) are not counted and not errors. `each` sees every
  /// deleted entry. Returns how many were deleted.
  /// Equivalent to: conntrack -D [selectors]
  std::size_t deleteMatching(const ConntrackFilter& filter, const std::function<void(const ConntrackEntry&)>& each = {});
  /// Runs conntrack requests (ConntrackRequests) pipelined on the netfilter socket.
  BatchResult run(const RequestSource& source, const BatchOptions& options, const ResultSink& sink);

 private:
  friend class Netlink;  // built by its accessor on Netlink, the one way in
  explicit ConntrackApi(core::Engine& engine) : engine_(engine) {}
  core::Engine& engine_;
};

}  // namespace fastlink
