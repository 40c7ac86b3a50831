// The stored form of a mirrored object: its kernel message with a normalised header and without
// the attributes that change with no notification (counters, cache info), and its key.
#pragma once

#include <linux/netlink.h>

#include <cstddef>
#include <cstdint>
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
/// Whether `c`'s stored form equals `stored` (the header's book-keeping fields aside: see
/// events/object_store.hpp).
bool sameStoredForm(const Canonical& c, std::string_view stored);
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
