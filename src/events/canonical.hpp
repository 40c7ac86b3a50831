// The stored form of a mirrored object: its kernel message with a normalised header and without
// the attributes that change with no notification (counters, cache info), and its key.
#pragma once

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fastlink/events.hpp"
#include "fastlink/prefix.hpp"
#include "fastlink/types.hpp"

namespace fastlink::events {

struct Canonical {
  bool valid = false;     ///< a link, address, route or neighbour message the mirror keeps
  bool deleted = false;   ///< RTM_DEL*
  bool replaces = false;  ///< NLM_F_REPLACE on a route: drop the others with its identity
  ObjectKind kind = ObjectKind::Link;
  /// Unique per object. Links: the ifindex; addresses and neighbours: the ifindex first (one
  /// device's objects are one range); routes: `identity` then the nexthop.
  std::string key;
  /// Routes: the length of the key's first part, what the kernel identifies a route by
  /// (family, table, destination and its length, tos, metric, source prefix), which starts with
  /// routeLookupKey(table, dst). (A prefix of the key, not a string of its own: one
  /// allocation less for each of a million routes a sync reads.)
  std::size_t identityLength = 0;
  std::string_view identity() const { return std::string_view(key).substr(0, identityLength); }
  std::string message;
  /// canonicalizeLazily: set when the stored form is the message itself with its header
  /// normalised (nothing dropped); `message` is then left empty: sameStoredForm compares with
  /// the source in place and takeMessage copies it (valid while the source is).
  const nlmsghdr* source = nullptr;
  uint32_t ifindex = 0;    ///< links: the device; addresses, neighbours: their device
  std::string name;        ///< links: IFLA_IFNAME
  uint32_t linkFlags = 0;  ///< links: IFF_*
  uint32_t routeDev = 0;   ///< single-path routes of both families: the output device
  /// IPv4 addresses: IFA_LOCAL; IPv4 routes not made by the kernel for an address (proto
  /// kernel): RTA_PREFSRC. Network order.
  uint32_t ipv4Address = 0;
  uint32_t nexthopId = 0; ///< routes over a nexthop object: RTA_NH_ID
  std::vector<uint32_t> pathDevices;  ///< multipath routes (RTA_MULTIPATH): each path's device
  uint32_t table = 0;      ///< routes: the table id
  uint8_t family = 0;      ///< addresses and routes
  uint8_t routeType = 0;   ///< RTN_*
};

/// Classifies and normalises one notification or dump message.
Canonical canonicalize(const nlmsghdr* m);

/// As canonicalize, but a route kept whole is not copied yet (Canonical::source): a resync that
/// finds a million routes as they were then copies none of them.
Canonical canonicalizeLazily(const nlmsghdr* m);
/// The same into `into`, which keeps its strings' memory from the last message: a sync reads
/// a million routes through one Canonical instead of allocating a key for each.
void canonicalizeLazily(const nlmsghdr* m, Canonical& into);
/// The key of a stored message (a canonical form, as the mirror keeps it) into `key`: the
/// Canonical::key canonicalize gives for it. The mirror's store keeps no keys: its index
/// derives them from the messages when it compares (events/object_store.hpp).
void storedKey(const nlmsghdr* stored, std::string& key);
/// A route message as its key and the mirror's book-keeping read it, in one walk of its
/// attributes: what canonicalize reads of a route, without a Canonical (a route dump's loop
/// reads a million of them: events/mirror.cpp's fast path).
struct RouteMessage {
  rtmsg header{};
  uint32_t table = 0, priority = 0, oif = 0, nhid = 0;
  std::span<const uint8_t> dst, src, gateway, multipath, prefsrc;
  /// No volatile attribute and well formed to its end: the stored form is the message itself
  /// (its header normalised).
  bool keptWhole = false;
  /// IPv4 routes not made by the kernel for an address (proto kernel): RTA_PREFSRC, network
  /// order (Canonical::ipv4Address); 0 otherwise.
  uint32_t followedSource() const {
    uint32_t source = 0;
    if (header.rtm_family == AF_INET && header.rtm_protocol != RTPROT_KERNEL && prefsrc.size() == 4)
      std::memcpy(&source, prefsrc.data(), 4);
    return source;
  }
  /// The output device of a single-path route (Canonical::routeDev); 0 otherwise.
  uint32_t device() const { return multipath.empty() && !nhid ? oif : 0; }
};
/// Attributes that change without a notification, dropped from a route's stored form.
inline bool volatileRouteAttribute(uint16_t t) { return t == RTA_CACHEINFO || t == RTA_EXPIRES; }
/// A u32 attribute's value (0 when shorter).
inline uint32_t routeU32(std::span<const uint8_t> v) {
  uint32_t x = 0;
  if (v.size() >= 4) std::memcpy(&x, v.data(), 4);
  return x;
}
/// `m` read into `r` if it is a route the mirror keeps (an IP route, not a cached clone).
/// (Into the caller's: as a std::optional returned, each of a start's million routes was
/// zeroed, then copied whole.)
inline bool readRouteMessage(const nlmsghdr* m, RouteMessage& r) {
  // Field by field, each on its own (everything the walk may leave unset): `r = RouteMessage{}`
  // was a `rep stos` of 112 bytes, whose start-up cost was an eighth of the quick way's time in
  // a profile; a chain `dst = src = ... = {}` copies each span from the one just stored, a
  // 16-byte load of two 8-byte stores that waits for them (store forwarding fails).
  r.priority = 0;
  r.oif = 0;
  r.nhid = 0;
  r.dst = {};
  r.src = {};
  r.gateway = {};
  r.multipath = {};
  r.prefsrc = {};
  // An IP route, not a cached clone (those are not in a plain dump); other families are
  // multicast routing.
  if (m->nlmsg_len < NLMSG_LENGTH(sizeof(rtmsg))) return false;
  std::memcpy(&r.header, NLMSG_DATA(m), sizeof r.header);
  if ((r.header.rtm_family != AF_INET && r.header.rtm_family != AF_INET6) || (r.header.rtm_flags & RTM_F_CLONED))
    return false;
  r.table = r.header.rtm_table;
  // One walk (forEachAttr's, written out and inline: a sync reads a million routes), which
  // also tells whether the stored form is the message itself (keptWhole's test).
  static_assert(NLMSG_ALIGN(sizeof(rtmsg)) == sizeof(rtmsg));
  const auto* base = reinterpret_cast<const uint8_t*>(m);
  const std::size_t end = m->nlmsg_len;
  std::size_t off = NLMSG_HDRLEN + sizeof(rtmsg);
  bool dropsNone = true;
  while (off + NLA_HDRLEN <= end) {
    nlattr a;
    std::memcpy(&a, base + off, sizeof a);
    if (a.nla_len < NLA_HDRLEN || off + a.nla_len > end) break;  // malformed: stop, keep what came before
    const std::span<const uint8_t> value(base + off + NLA_HDRLEN, a.nla_len - std::size_t{NLA_HDRLEN});
    switch (a.nla_type & NLA_TYPE_MASK) {
      case RTA_TABLE: r.table = routeU32(value); break;
      case RTA_PRIORITY: r.priority = routeU32(value); break;
      case RTA_OIF: r.oif = routeU32(value); break;
      case RTA_NH_ID: r.nhid = routeU32(value); break;
      case RTA_DST: r.dst = value; break;
      case RTA_SRC: r.src = value; break;
      case RTA_GATEWAY: r.gateway = value; break;
      case RTA_MULTIPATH: r.multipath = value; break;
      case RTA_PREFSRC: r.prefsrc = value; break;
      default: dropsNone = dropsNone && !volatileRouteAttribute(a.nla_type & NLA_TYPE_MASK); break;
    }
    off += NLA_ALIGN(a.nla_len);
  }
  // (An unpadded last attribute walks past the end: still the whole message.)
  r.keptWhole = dropsNone && off >= end;
  return true;
}

/// `r`'s key (Canonical::key) into `key`; returns the length of its identity.
std::size_t routeKey(const RouteMessage& r, std::string& key);
/// The size of `r`'s key, and the key written to `out` (that many bytes; returns the size).
std::size_t routeKeySize(const RouteMessage& r);
std::size_t writeRouteKey(const RouteMessage& r, uint8_t* out);
/// The longest key of a route without RTA_MULTIPATH (an IPv6 one's).
inline constexpr std::size_t kSinglePathRouteKeyMax = 12 + 2 * 16 + 8 + 16;

/// Whether `c`'s stored form equals `stored` (the header's book-keeping fields aside: see
/// events/object_store.hpp).
bool sameStoredForm(const Canonical& c, std::string_view stored);
/// The same for a message kept whole (Canonical::source).
bool sameStoredForm(const nlmsghdr* source, std::string_view stored);
/// The size of `c`'s stored form, and the form written to `out` (that many bytes): where the
/// mirror keeps it, without a string in between.
std::size_t storedSize(const Canonical& c);
void writeStoredForm(const Canonical& c, char* out);
/// `c`'s stored form (moved out, or written from its source by writeStoredForm).
std::string takeMessage(Canonical& c);

/// RTNH_F_LINKDOWN set or cleared in a stored single-path route message (in place).
/// Returns true when the message changed.
bool setLinkdown(std::span<char> routeMessage, bool linkdown);

/// IFF_* flags of a link message.
uint32_t linkFlags(const nlmsghdr* m);

std::string linkKey(uint32_t ifindex);
/// The prefix of every route key of `table` to exactly `dst`.
std::string routeLookupKey(uint32_t table, const Prefix& dst);
/// The prefix of every route key of one table of one family.
std::string routeTableKey(uint8_t family, uint32_t table);
std::string neighKey(uint32_t ifindex, const IpAddress& dst);

/// The dump request (without NLM_F_DUMP, which the engine adds) of a mirrored kind.
std::vector<uint8_t> dumpRequest(ObjectKind kind);

}  // namespace fastlink::events
