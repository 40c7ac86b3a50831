// StateMirror: an in-memory copy of a namespace's links, addresses, routes and neighbours that
// follows the kernel's notifications and repairs itself when notifications were lost.
//
//   fastlink::Netlink nl;
//   fastlink::StateMirror mirror(nl, {.routes = true, .neighbours = false});
//   pollfd p{mirror.fd(), POLLIN, 0};
//   while (poll(&p, 1, -1) > 0)
//     mirror.process([](const fastlink::Event& e) { ... });  // New / Changed / Deleted
//
// Start: the mirror subscribes first, then dumps the kernel's tables; notifications queued while
// it dumped are applied afterwards. Applying is idempotent (a notification carries the whole
// object, a delete removes it), so nothing that happened between the dump and the subscription
// is missed and nothing old wins: the last notification for an object decides.
//
// Events: process() reports changes of the mirror's view, not raw notifications: New for an
// object it did not have, Changed for one that differs from what it held, Deleted for one it
// dropped; a notification that changes nothing reports nothing.
//
// Overflow: when the socket overflowed (ENOBUFS) or a dump was interrupted (NLM_F_DUMP_INTR),
// the mirror re-dumps only the tables it mirrors and reports the exact differences with its
// previous view as events (then continues with the queued notifications), so a user that
// applies the events converges on the kernel's state.
//
// What the kernel changes without telling is followed too: IPv4 routes through a link that goes
// down or away (the mirror drops them itself, like the kernel), and routes over nexthop objects
// (`nhid`) when a nexthop goes, a group loses a member or a device's nexthops are removed (the
// mirror reads again the route tables that hold such routes). Attributes that change without any
// notification (counters, cache timestamps, lifetimes) are not kept: see docs/cli/monitor.md.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "fastlink/events.hpp"

namespace fastlink {

class Netlink;

/// Which tables a StateMirror holds, and its socket.
struct MirrorOptions {
  bool links = true;
  bool addresses = true;
  bool routes = true;        ///< every table, IPv4 and IPv6 (not cached/cloned routes)
  bool neighbours = true;    ///< IPv4 and IPv6 neighbours (not fdb entries)
  /// Small buffers overflow sooner; the mirror then resynchronises (tests use that).
  SubscriptionOptions subscription;
};

/// Counters of a mirror's work.
struct MirrorStats {
  uint64_t notifications = 0;  ///< notifications applied
  uint64_t overflows = 0;      ///< ENOBUFS seen on the subscription
  uint64_t resyncs = 0;        ///< re-dumps (overflows, interrupted dumps, resync())
  /// Route tables read again because routes over nexthop objects changed without a route
  /// notification (a nexthop deleted, a group that lost a member, a device down).
  uint64_t tableRereads = 0;
  uint64_t objects = 0;        ///< objects held now
  uint64_t bytes = 0;          ///< memory held for them (messages, keys, table nodes), estimated
};

class StateMirror {
 public:
  using EventHandler = std::function<void(const Event&)>;

  /// Subscribes, then dumps the chosen tables of `netlink`'s namespace. `netlink` must outlive
  /// the mirror (its request socket does the dumps).
  explicit StateMirror(Netlink& netlink, const MirrorOptions& options = {});
  ~StateMirror();
  StateMirror(StateMirror&&) noexcept;
  StateMirror& operator=(StateMirror&&) noexcept;

  /// The subscription's file descriptor (poll for POLLIN).
  int fd() const;
  /// Applies every queued notification without blocking and reports the view's changes; on an
  /// overflow, resynchronises first. Returns how many events were reported.
  std::size_t process(const EventHandler& onChange = {});
  /// Waits up to `timeout` for input, then process().
  std::size_t wait(const EventHandler& onChange, std::chrono::milliseconds timeout);
  /// Re-dumps the mirrored tables now and reports the differences (process() does this by
  /// itself after an overflow).
  std::size_t resync(const EventHandler& onChange = {});

  /// Lookups (decoded from the stored messages on each call).
  std::optional<LinkInfo> link(uint32_t ifindex) const;
  std::optional<LinkInfo> link(std::string_view name) const;
  /// The addresses of one device.
  std::vector<AddrInfo> addresses(uint32_t ifindex) const;
  /// The route of `table` to exactly `dst` (the one with the lowest metric if several).
  std::optional<RouteInfo> route(uint32_t table, const Prefix& dst) const;
  std::optional<NeighInfo> neighbour(uint32_t ifindex, const IpAddress& dst) const;

  /// Every object of a kind (kinds not mirrored have none), in no particular order.
  void forEachLink(const std::function<void(const LinkInfo&)>& each) const;
  void forEachAddress(const std::function<void(const AddrInfo&)>& each) const;
  void forEachRoute(const std::function<void(const RouteInfo&)>& each) const;
  void forEachNeighbour(const std::function<void(const NeighInfo&)>& each) const;
  /// How many objects of a kind are held.
  std::size_t count(ObjectKind kind) const;

  /// The stored form of every object of a kind: the kernel's message with what changes without
  /// notification removed (counters, cache info), sorted. Two mirrors, or a mirror and
  /// canonicalDump(), hold the same state exactly when these are equal.
  std::vector<std::vector<uint8_t>> canonical(ObjectKind kind) const;
  /// The same form straight from a fresh kernel dump (for checking a mirror).
  static std::vector<std::vector<uint8_t>> canonicalDump(Netlink& netlink, ObjectKind kind);

  MirrorStats stats() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace fastlink
