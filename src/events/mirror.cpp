// StateMirror: canonical kernel messages kept per object key, updated from notifications and
// reconciled with fresh dumps (mark and sweep by generation) after an overflow.
#include "fastlink/mirror.hpp"

#include <linux/if.h>
#include <linux/if_addr.h>
#include <linux/neighbour.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <unordered_map>

#include "core/api_access.hpp"
#include "core/engine.hpp"
#include "core/message.hpp"
#include "events/canonical.hpp"
#include "events/object_store.hpp"
#include "events/nexthop_uses.hpp"
#include "fastlink/error.hpp"
#include "fastlink/netlink.hpp"
#include "rtnl/addr_codec.hpp"
#include "rtnl/link_codec.hpp"
#include "rtnl/neigh_codec.hpp"
#include "rtnl/nexthop_codec.hpp"
#include "rtnl/route_codec.hpp"

namespace fastlink {

using events::Canonical;

namespace {

constexpr std::array<ObjectKind, 4> kMirrorable{ObjectKind::Link, ObjectKind::Address, ObjectKind::Route,
                                                ObjectKind::Neighbour};

// A kind's table: its place in kMirrorable, ObjectKind's first four (4 for a kind never
// mirrored). Arithmetic, not a search: a start asks it for each of a million routes (as a
// std::find it was a call of 11 instructions each, stop 37's regression of the start).
constexpr std::size_t slot(ObjectKind kind) {
  return std::min(static_cast<std::size_t>(kind), kMirrorable.size());
}
static_assert([] {
  for (std::size_t i = 0; i < kMirrorable.size(); ++i)
    if (slot(kMirrorable[i]) != i) return false;
  return slot(ObjectKind::Rule) == kMirrorable.size();
}());

// The mirror reads through the Netlink's raw API (its rtnetlink socket) and decodes messages
// in place: the reply bytes as the nlmsghdr the canonical decoder reads.
std::function<void(std::span<const uint8_t>)> asMessages(const core::MessageHandler& onMessage) {
  return [&onMessage](std::span<const uint8_t> m) { onMessage(reinterpret_cast<const nlmsghdr*>(m.data())); };
}

// Each object: its canonical message (header normalised, volatile attributes removed), ordered
// by its key's bytes, the key derived from the message (events/object_store.hpp); a route's
// identity (a prefix of its key) finds its range. The header's sequence number and port hold
// the object's book-keeping (events::generationOf, deviceSlotOf).
using Entry = nlmsghdr;
using Table = events::ObjectTable;

const nlmsghdr* header(const Entry& e) { return &e; }
std::span<const uint8_t> bytesOf(const Entry& e) { return {reinterpret_cast<const uint8_t*>(&e), events::storedBytes(&e)}; }
const rtmsg* routeHeader(const Entry& e) { return static_cast<const rtmsg*>(NLMSG_DATA(&e)); }
std::string_view messageOf(const Entry& e) { return {reinterpret_cast<const char*>(&e), events::storedBytes(&e)}; }

bool startsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// Byte order of canonical messages (std::lexicographical_compare over vector<uint8_t> trips a
// GCC 12 -Wstringop-overread false positive).
bool byteLess(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  std::size_t n = std::min(a.size(), b.size());
  int c = n ? std::memcmp(a.data(), b.data(), n) : 0;
  return c != 0 ? c < 0 : a.size() < b.size();
}

// Rough heap cost of a std::string (SSO up to 15 bytes, else a malloc'd block).
std::size_t stringBytes(const std::string& s) { return s.size() > 15 ? ((s.capacity() + 1 + 15) & ~std::size_t{15}) : 0; }

}  // namespace

struct StateMirror::State {
  Netlink* netlink;
  MirrorOptions options;
  Subscription subscription;
  // Ordered: routes that share a kernel identity (table, prefix, tos, metric) are adjacent, so
  // a replace finds the entries it overwrites with one range. The log holds every table's
  // objects (the dumps are received into it), so it is declared before them (and dies after).
  events::MessageLog log;
  std::array<Table, 4> tables{Table(events::storedKey), Table(events::storedKey), Table(events::storedKey),
                              Table(events::storedKey)};
  std::unordered_map<std::string, uint32_t> linkNames;  // name -> ifindex
  // Single-path routes by output device: the kernel drops the IPv4 ones without a notification
  // when the device goes down or away, or loses its last IPv4 address, and sets their linkdown
  // flag with the carrier. (A walk over every route, canonicalising each, took 0.5 s per device
  // among 1.1M routes.) Each route knows its place in its device's list (deviceSlotOf), so it
  // leaves it in O(1); routes without a device (blackholes, multipath, over nexthop objects)
  // cost nothing here.
  std::unordered_map<uint32_t, std::vector<Entry*>> routesOnDevice;
  // IPv4 routes by preferred source, which takes them along when it is deleted (6.18 announces
  // that; older kernels need not).
  events::RouteTableUses ipv4RoutesBySource;
  // Which devices have IPv4 addresses, when routes are mirrored and addresses are not (else the
  // table of addresses says): the last one's deletion turns IPv4 off on the device.
  std::set<std::string> ipv4AddressKeys;
  // Devices' IFF_* flags, kept whenever routes are mirrored (links or not): routes change
  // silently when a device goes down, loses its carrier or goes away.
  std::unordered_map<uint32_t, uint32_t> deviceFlags;
  // Nexthop objects and the tables of the routes over them. Changes that alter such routes
  // silently mark tables (and the nexthops) stale; process() reads them again once the queued
  // notifications are applied, so a burst costs one read per table.
  events::NexthopUses nexthopUses;
  // Multipath routes by the devices of their paths: a path's linkdown and dead flags follow its
  // device silently, IPv4 drops the route when the device goes away.
  events::RouteTableUses multipathByDevice;
  std::set<events::RouteTable> staleRouteTables;
  bool nexthopsStale = false;
  uint32_t generation = 1;
  // Entries stored or confirmed by the current pass of a dump (all of a table when it equals
  // the table's size: the pass then has nothing to sweep).
  std::size_t marked = 0;
  MirrorStats counters;
  Canonical forgotten;  // an object's canonical form read again as it leaves (memory reused)
  std::string scratchKey;  // keys derived for range walks (memory reused)

  State(Netlink& nl, const MirrorOptions& o) : netlink(&nl), options(o), subscription(nl.subscribe({}, o.subscription)) {}

  bool mirrors(ObjectKind k) const {
    const bool mirrored[] = {options.links, options.addresses, options.routes, options.neighbours, false};
    return mirrored[slot(k)];
  }

  void report(const EventHandler& onChange, EventAction action, ObjectKind kind, const Entry& entry,
              std::size_t& reported) {
    ++reported;
    // No Event is made without a handler: a start reports every stored object (1M routes), and
    // making and destroying an Event each cost the start 1.22x -> 1.49x the floor.
    if (onChange) announce(onChange, action, kind, entry);
  }
  static void announce(const EventHandler& onChange, EventAction action, ObjectKind kind, const Entry& entry) {
    Event e;  // the stored form's header is normalised: no flags, an RTM_NEW* type
    if (!decodeEvent(Notification{bytesOf(entry), std::nullopt}, e)) return;
    e.action = action;
    e.kind = kind;
    onChange(e);
  }

  // Book-keeping done on every insert and erase.
  void added(ObjectKind kind, const Canonical& c) {
    if (kind == ObjectKind::Link && !c.name.empty()) linkNames[c.name] = c.ifindex;
    if (kind == ObjectKind::Route) routeAdded({c.family, c.table}, c.ipv4Address, c.nexthopId, c.pathDevices);
  }
  // A route's: `source` its followed IPv4 preferred source, `paths` its paths' devices.
  void routeAdded(events::RouteTable t, uint32_t source, uint32_t nexthop, std::span<const uint32_t> paths) {
    if (source) ipv4RoutesBySource.add(source, t);
    if (nexthop) nexthopUses.routeAdded(nexthop, t);
    for (uint32_t dev : paths) multipathByDevice.add(dev, t);
  }
  void removed(ObjectKind kind, const Canonical& c) {
    if (kind == ObjectKind::Link) {
      auto it = linkNames.find(c.name);
      if (it != linkNames.end() && it->second == c.ifindex) linkNames.erase(it);
    }
    if (kind == ObjectKind::Route && c.ipv4Address) ipv4RoutesBySource.remove(c.ipv4Address, {c.family, c.table});
    if (kind == ObjectKind::Route && c.nexthopId) nexthopUses.routeRemoved(c.nexthopId, {c.family, c.table});
    if (kind == ObjectKind::Route)
      for (uint32_t dev : c.pathDevices) multipathByDevice.remove(dev, {c.family, c.table});
  }

  // `device`: a single-path route's (Canonical::routeDev), 0 for anything else.
  void linkToDevice(Entry& e, uint32_t device) {
    if (!device) return;
    auto& list = routesOnDevice[device];
    list.push_back(&e);
    events::deviceSlotOf(&e) = static_cast<uint32_t>(list.size());
  }
  // `device`: the one it was linked to (its stored message's, read again).
  void unlinkFromDevice(Entry& e, uint32_t device) {
    const uint32_t slot = std::exchange(events::deviceSlotOf(&e), 0);
    if (!slot) return;
    auto list = routesOnDevice.find(device);
    Entry* last = list->second.back();
    list->second[slot - 1] = last;
    events::deviceSlotOf(last) = slot;  // (itself when it was the last)
    events::deviceSlotOf(&e) = 0;
    list->second.pop_back();
    if (list->second.empty()) routesOnDevice.erase(list);
  }
  // The book-keeping of an object that leaves (erased, or replaced by a new version), read
  // again from its stored message.
  void forget(ObjectKind kind, Entry& e) {
    events::canonicalizeLazily(&e, forgotten);
    removed(kind, forgotten);
    unlinkFromDevice(e, forgotten.routeDev);
  }
  void mark(Entry& e) {
    if (events::generationOf(&e) != generation) ++marked;
    events::generationOf(&e) = generation;
  }

  // `c`'s stored form as a new object: where the dump received it when it is kept whole (the
  // message itself, its header normalised: no copy), else a copy in the log.
  Entry* place(const Canonical& c) {
    if (c.source && keepsInPlace(c.source)) return keepWhole(c.source);
    Entry* e = log.allocate(events::storedSize(c));
    events::writeStoredForm(c, reinterpret_cast<char*>(e));
    return e;
  }
  // Whether a route message kept whole can stay where the dump received it.
  bool keepsInPlace(const nlmsghdr* m) const { return log.inRoom(m) && NLMSG_ALIGN(m->nlmsg_len) == m->nlmsg_len; }
  Entry* keepWhole(const nlmsghdr* m) {
    Entry* e = log.keep(m);
    // As writeStoredForm's header: the length, the type, nothing else.
    e->nlmsg_type = RTM_NEWROUTE;  // (routes only are kept lazily)
    e->nlmsg_flags = 0;
    e->nlmsg_seq = e->nlmsg_pid = 0;
    return e;
  }

  // Where a dump's last message went and its key: the hint for the next one (upsert()'s
  // `after`, quickRoute()'s order check). A key quickRoute() wrote is in one of two buffers
  // (a million routes: no string resized or swapped for each), one upsert() had in `owned`.
  struct DumpHint {
    Table::iterator last;  // valid once `key` is set
    std::string_view key;  // empty: no message yet
    std::string owned;
    uint8_t buffers[2][events::kSinglePathRouteKeyMax];
    int current = 0;
    // quickRoute()'s read of each message (one for the dump: made for each, it was zeroed whole).
    events::RouteMessage route;
    // `it` went where upsert() put `c`, whose key (memory swapped with the old one's) it keeps.
    void took(Table::iterator it, Canonical& c) {
      last = it;
      owned.swap(c.key);
      key = owned;
    }
  };

  // A route of a dump taken the common way, without a Canonical (a start and a resync read a
  // million): kept whole (nothing volatile in it), single-path, and either the one stored right
  // after the last message's (a resync: marked, its bytes compared in place) or in key order
  // after the table's last object (a start: appended where it arrived). Anything else (the
  // first message, a change, a route out of order, multipath, another table than `only`) returns
  // false and takes upsert()'s way.
  bool quickRoute(const nlmsghdr* m, DumpHint& hint, const events::RouteTable* only, const EventHandler& onChange,
                  std::size_t& reported) {
    if (m->nlmsg_type != RTM_NEWROUTE || hint.key.empty() || !keepsInPlace(m)) return false;
    events::RouteMessage& r = hint.route;
    if (!events::readRouteMessage(m, r) || !r.keptWhole || !r.multipath.empty()) return false;
    if (only && (r.header.rtm_family != only->first || r.table != only->second)) return false;
    auto& table = tables[slot(ObjectKind::Route)];
    const Table::iterator next = table.successor(hint.last);
    uint8_t* key = hint.buffers[hint.current ^ 1];
    const std::string_view written(reinterpret_cast<const char*>(key), events::writeRouteKey(r, key));
    if (next != table.end()) {
      if (!events::sameStoredForm(m, messageOf(**next))) return false;
      mark(**next);  // (the same stored form: the same key)
      hint.last = next;
    } else {
      if (!events::keyLess(hint.key, written)) return false;
      Entry* e = keepWhole(m);
      hint.last = table.append(e);
      events::generationOf(e) = generation;
      ++marked;
      if (const uint32_t source = r.followedSource(); source || r.nhid)
        routeAdded({r.header.rtm_family, r.table}, source, r.nhid, {});
      if (const uint32_t device = r.device()) linkToDevice(*e, device);
      report(onChange, EventAction::New, ObjectKind::Route, *e, reported);
    }
    hint.key = written;
    hint.current ^= 1;
    return true;
  }

  // Returns the position of the entry that followed (the table's positions after `it` shift).
  Table::iterator erase(ObjectKind kind, Table::iterator it, const EventHandler& onChange,
                        std::size_t& reported) {
    auto& table = tables[slot(kind)];
    if (events::generationOf(*it) == generation) --marked;
    forget(kind, **it);
    Table::iterator next;
    Entry* gone = table.extract(it, &next);  // out of the table, still readable for the report
    report(onChange, EventAction::Deleted, kind, *gone, reported);
    log.release(gone);
    return next;
  }

  // Inserts or updates; reports New / Changed, nothing when the stored form is the same.
  // Returns the entry. `after`: the entry the previous message of the same dump went to, and
  // `afterKey` its key. A dump comes mostly in key order (each route table's trie in address
  // order), so the next key usually goes right after it: a start appends without comparing a
  // stored key, a resync finds the same object there and compares the messages in place.
  Table::iterator upsert(const Canonical& c, const EventHandler& onChange, std::size_t& reported,
                         const Table::iterator* after = nullptr, std::string_view afterKey = {}) {
    auto& table = tables[slot(c.kind)];
    if (after) {
      // Unchanged where the last one was: the same stored form is the same key (a resync of
      // a million routes derives none).
      Table::iterator next = table.successor(*after);
      if (next != table.end() && events::sameStoredForm(c, messageOf(**next))) {
        mark(**next);
        return next;
      }
    }
    auto [it, found] = table.locate(c.key, after, afterKey);
    if (!found) {
      Entry* e = place(c);
      it = table.insert(it, e);
      events::generationOf(e) = generation;
      ++marked;
      added(c.kind, c);
      linkToDevice(*e, c.routeDev);
      report(onChange, EventAction::New, c.kind, *e, reported);
      return it;
    }
    Entry* old = *it;
    mark(*old);
    if (events::sameStoredForm(c, messageOf(*old))) return it;
    forget(c.kind, *old);
    Entry* e;
    if (events::storedSize(c) == events::storedBytes(old)) {
      // The same size: written over the old version, wherever it lies.
      e = old;
      events::writeStoredForm(c, reinterpret_cast<char*>(e));
    } else {
      e = place(c);
      table.replace(it, e);
      log.release(old);
    }
    events::generationOf(e) = generation;
    added(c.kind, c);
    linkToDevice(*e, c.routeDev);
    report(onChange, EventAction::Changed, c.kind, *e, reported);
    return it;
  }

  // A compaction when the log holds as much dead as live (events::MessageLog::shouldCompact):
  // the objects of the emptied chunks move, the index and the devices' lists follow. Run
  // between passes and notifications, never while a dump's datagram is handed out.
  void maybeCompact() {
    if (!log.startCompaction()) return;
    for (auto& table : tables) table.relocate(log);
    for (auto& [device, list] : routesOnDevice)
      for (Entry*& e : list) e = log.forwarded(e);
    log.finishCompaction();
  }

  // What a device's change does to routes without a route notification: going down or away
  // drops its IPv4 routes (fib_sync_down_dev); its carrier sets their linkdown flag; down or
  // carrier lost removes the nexthop objects through it (and so changes the routes over them);
  // down, up or carrier marks, clears or removes the paths of multipath routes through it.
  void followDevice(const Canonical& link, const EventHandler& onChange, std::size_t& reported) {
    if (!options.routes) return;
    if (link.deleted) {
      deviceFlags.erase(link.ifindex);
      dropIpv4RoutesOf(link.ifindex, onChange, reported);
      pathsThrough(link.ifindex);
      return;
    }
    auto [it, inserted] = deviceFlags.try_emplace(link.ifindex, link.linkFlags);
    if (inserted) return;
    uint32_t was = std::exchange(it->second, link.linkFlags), is = link.linkFlags;
    bool wentDown = (was & IFF_UP) && !(is & IFF_UP);
    bool carrierChanged = ((was ^ is) & (IFF_RUNNING | IFF_LOWER_UP)) != 0;
    if (wentDown) dropIpv4RoutesOf(link.ifindex, onChange, reported);
    if (carrierChanged) followCarrier(link.ifindex, is, onChange, reported);
    // Up again revives dead paths (fib_sync_up): that too is silent.
    if (((was ^ is) & IFF_UP) || carrierChanged) pathsThrough(link.ifindex);
  }

  // Book-keeping of IPv4 addresses when they are not mirrored.
  void noteAddress(const Canonical& address) {
    if (!options.routes || options.addresses || address.family != AF_INET) return;
    if (address.deleted) ipv4AddressKeys.erase(address.key);
    else ipv4AddressKeys.insert(address.key);
  }

  bool hasIpv4Address(uint32_t ifindex) const {
    std::string prefix = events::linkKey(ifindex) + static_cast<char>(AF_INET);
    if (!options.addresses) {
      auto it = ipv4AddressKeys.lower_bound(prefix);
      return it != ipv4AddressKeys.end() && startsWith(*it, prefix);
    }
    const auto& addresses = tables[slot(ObjectKind::Address)];
    auto it = addresses.lowerBound(prefix);
    std::string key;
    return it != addresses.end() && addresses.keyStartsWith(*it, prefix, key);
  }

  // An IPv4 address deleted (and applied) takes the routes that prefer it as their source:
  // their tables are read again. The device's last one turns IPv4 off there (fib_disable_ip,
  // forced): every IPv4 route through it goes, `local` ones too, and its multipath paths die.
  void followIpv4AddressGone(uint32_t ifindex, uint32_t address, const EventHandler& onChange, std::size_t& reported) {
    if (!options.routes) return;
    ipv4RoutesBySource.mark(address, staleRouteTables);
    if (hasIpv4Address(ifindex)) return;
    dropIpv4RoutesOf(ifindex, onChange, reported, /*evenLocal=*/true);
    multipathByDevice.mark(ifindex, staleRouteTables);
  }

  // The device's nexthop objects and multipath routes changed: their tables are read again.
  void pathsThrough(uint32_t ifindex) {
    nexthopsStale |= nexthopUses.deviceChanged(ifindex, staleRouteTables);
    multipathByDevice.mark(ifindex, staleRouteTables);
  }

  // IPv6 keeps a multipath route as sibling routes and tells of them unlike a dump does: a
  // sibling appended is announced with every path in another order, one deleted (or gone with
  // its device) alone. Such a notification marks the table to be read again instead.
  bool isIpv6SiblingNews(const Canonical& c) const {
    if (c.family != AF_INET6 || c.nexthopId) return false;
    if (!c.pathDevices.empty()) return true;
    if (!c.deleted) return false;
    const auto& routes = tables[slot(ObjectKind::Route)];
    if (routes.find(c.key) != routes.end()) return false;
    std::string_view identity = c.identity();
    auto it = routes.lowerBound(identity);
    std::string key;
    return it != routes.end() && routes.keyStartsWith(*it, identity, key);
  }

  // The kernel marks routes through a device without carrier "linkdown" (IPv4: neither running
  // nor lower-up; IPv6: not operationally up) and clears it on carrier, without notifications.
  void followCarrier(uint32_t ifindex, uint32_t flags, const EventHandler& onChange, std::size_t& reported) {
    if (!options.routes) return;
    auto list = routesOnDevice.find(ifindex);
    if (list == routesOnDevice.end()) return;
    for (Entry* e : list->second) {
      const rtmsg* rtm = routeHeader(*e);
      if (rtm->rtm_type == RTN_LOCAL) continue;
      bool down = rtm->rtm_family == AF_INET ? !(flags & (IFF_RUNNING | IFF_LOWER_UP)) : !(flags & IFF_RUNNING);
      if (events::setLinkdown({reinterpret_cast<char*>(e), events::storedBytes(e)}, down))
        report(onChange, EventAction::Changed, ObjectKind::Route, *e, reported);
    }
  }

  // The single-path IPv4 routes through a device, `local` ones only if `evenLocal`: a device
  // going down keeps its local routes (the kernel gives their nexthop no scope to lose); only a
  // forced fib_disable_ip (the last IPv4 address gone) takes them too.
  void dropIpv4RoutesOf(uint32_t ifindex, const EventHandler& onChange, std::size_t& reported, bool evenLocal = false) {
    if (!options.routes) return;
    auto list = routesOnDevice.find(ifindex);
    if (list == routesOnDevice.end()) return;
    auto& routes = tables[slot(ObjectKind::Route)];
    std::vector<std::string> doomed;  // keys (each erase changes the list walked here)
    for (Entry* e : list->second) {
      const rtmsg* rtm = routeHeader(*e);
      if (rtm->rtm_family == AF_INET && (evenLocal || rtm->rtm_type != RTN_LOCAL)) doomed.push_back(routes.keyOf(e));
    }
    for (const auto& key : doomed)
      if (auto it = routes.find(key); it != routes.end()) erase(ObjectKind::Route, it, onChange, reported);
  }

  void applyNotification(const nlmsghdr* m, const EventHandler& onChange, std::size_t& reported) {
    if (m->nlmsg_type == RTM_NEWNEXTHOP || m->nlmsg_type == RTM_DELNEXTHOP) {
      if (options.routes) nexthopUses.apply(m, staleRouteTables);
      return;
    }
    Canonical c = events::canonicalize(m);
    if (!c.valid) return;
    if (c.kind == ObjectKind::Link) followDevice(c, onChange, reported);
    bool ipv4AddressGone = c.kind == ObjectKind::Address && c.deleted && c.family == AF_INET;
    uint32_t ifindex = c.ifindex, address = c.ipv4Address;
    if (c.kind == ObjectKind::Address) noteAddress(c);
    if (mirrors(c.kind)) applyToTable(std::move(c), onChange, reported);
    if (ipv4AddressGone) followIpv4AddressGone(ifindex, address, onChange, reported);
  }

  void applyToTable(Canonical&& c, const EventHandler& onChange, std::size_t& reported) {
    ++counters.notifications;
    if (c.kind == ObjectKind::Route && isIpv6SiblingNews(c)) {
      staleRouteTables.insert({c.family, c.table});
      return;
    }
    auto& table = tables[slot(c.kind)];
    if (c.deleted) {
      auto it = table.find(c.key);
      if (it != table.end()) erase(c.kind, it, onChange, reported);
      return;
    }
    if (c.replaces) {
      // NLM_F_REPLACE: the route took the place of whatever had its identity (a different
      // nexthop is a different key here).
      std::string_view identity = c.identity();
      auto first = table.lowerBound(identity);
      while (first != table.end() && table.keyStartsWith(*first, identity, scratchKey)) {
        if (scratchKey != c.key) first = erase(c.kind, first, onChange, reported);
        else ++first;
      }
    }
    upsert(c, onChange, reported);
  }

  // Sweeps what the last pass did not see, in the key range `prefix` of `kind`'s table.
  void sweep(ObjectKind kind, const std::string& prefix, const EventHandler& onChange, std::size_t& reported) {
    auto& table = tables[slot(kind)];
    if (prefix.empty() && marked == table.size()) return;  // the pass saw every entry
    for (auto it = table.lowerBound(prefix); it != table.end() && table.keyStartsWith(*it, prefix, scratchKey);) {
      if (events::generationOf(*it) != generation) it = erase(kind, it, onChange, reported);
      else ++it;
    }
  }

  // One complete pass of a dump: `onMessage` marks what it stores with the current generation,
  // then what the pass did not show in `prefix`'s range of `kind`'s table is dropped (no sweep
  // when `prefix` is unset: a dump for book-keeping only). A restarted dump (NLM_F_DUMP_INTR)
  // raised the generation, so only the last, complete pass counts; if the engine gave up
  // restarting, the pass starts again.
  // The dump is received into the log (the engine's ReceiveMemory): a route kept whole stays
  // where it arrived (place()). Its datagrams reach `onMessage` through one call each.
  template <class OnMessage>
  void markAndSweep(std::span<const uint8_t> request, const std::string& operation, ObjectKind kind,
                    const std::optional<std::string>& prefix, OnMessage&& onMessage,
                    const EventHandler& onChange, std::size_t& reported) {
    core::Engine& engine = core::ApiAccess::routeEngine(*netlink);
    auto newPass = [&] {
      ++generation;
      marked = 0;
    };
    auto onRun = [&](std::span<const nlmsghdr* const> run) {
      for (const nlmsghdr* m : run) onMessage(m);
    };
    for (;;) {
      newPass();
      try {
        engine.dumpRuns(request, operation, onRun, newPass, &log);
      } catch (const Error& e) {
        if (e.code() != Errc::dump_interrupted) throw;
        continue;
      }
      if (prefix) sweep(kind, *prefix, onChange, reported);
      maybeCompact();
      return;
    }
  }

  // One kind read again whole: stored if mirrored, else only its book-keeping (devices' flags,
  // IPv4 addresses) is fed.
  void reloadKind(ObjectKind kind, const EventHandler& onChange, std::size_t& reported) {
    // (Nothing but the dump's own inserts changes the table meanwhile: the position stays right;
    // locate() checks it anyway.)
    DumpHint hint;
    Canonical c;  // one for every message: its key's memory is reused
    const bool routes = kind == ObjectKind::Route && mirrors(kind);
    auto onMessage = [&](const nlmsghdr* m) {
      if (routes && quickRoute(m, hint, nullptr, onChange, reported)) return;
      events::canonicalizeLazily(m, c);  // stored or compared before m goes
      if (!c.valid || c.kind != kind || c.deleted) return;
      if (kind == ObjectKind::Link) followDevice(c, onChange, reported);
      if (kind == ObjectKind::Address) noteAddress(c);
      if (mirrors(kind)) {
        hint.took(upsert(c, onChange, reported, hint.key.empty() ? nullptr : &hint.last, hint.key), c);
      }
    };
    markAndSweep(events::dumpRequest(kind), std::string(objectKindName(kind)) + " dump (mirror)", kind,
                 mirrors(kind) ? std::optional<std::string>("") : std::nullopt, onMessage, onChange, reported);
  }

  // One table of one family read again (the kernel filters the dump: strict checking).
  void rereadRouteTable(events::RouteTable t, const EventHandler& onChange, std::size_t& reported) {
    core::MessageWriter request(RTM_GETROUTE, 0);
    RouteFilter filter;
    filter.setFamily(t.first == AF_INET ? IpAddress::Family::v4 : IpAddress::Family::v6).setTable(t.second);
    rtnl::encodeRouteDump(request, filter, 0);
    DumpHint hint;
    Canonical c;
    auto onMessage = [&](const nlmsghdr* m) {
      if (quickRoute(m, hint, &t, onChange, reported)) return;
      events::canonicalizeLazily(m, c);
      if (c.valid && c.kind == ObjectKind::Route && !c.deleted && c.family == t.first && c.table == t.second) {
        hint.took(upsert(c, onChange, reported, hint.key.empty() ? nullptr : &hint.last, hint.key), c);
      }
    };
    markAndSweep(request.bytes(), "route dump of table " + std::to_string(t.second) + " (mirror)", ObjectKind::Route,
                 events::routeTableKey(t.first, t.second), onMessage, onChange, reported);
  }

  // The kernel's nexthop objects, read afresh. A kernel without them (before 5.3) refuses the
  // dump: then no route can use one.
  void rereadNexthops() {
    core::MessageWriter request(RTM_GETNEXTHOP, 0);
    rtnl::encodeNexthopDump(request, {}, 0);
    std::set<events::RouteTable> ignored;  // a full read of the routes follows, or is under way
    nexthopUses.clearNexthops();
    try {
      netlink->raw(Protocol::Route)
          .dumpBytes(
              request.bytes(), asMessages([&](const nlmsghdr* m) { nexthopUses.apply(m, ignored); }),
              "nexthop dump (mirror)", [&] { nexthopUses.clearNexthops(); });
    } catch (const Error& e) {
      if (e.code() == Errc::dump_interrupted) return rereadNexthops();
      if (e.code() != std::errc::operation_not_supported) throw;
    }
  }

  // Reads again what notifications said had changed silently (process(), once the queue is dry).
  std::size_t settle(const EventHandler& onChange) {
    std::size_t reported = 0;
    if (std::exchange(nexthopsStale, false)) rereadNexthops();
    while (!staleRouteTables.empty()) {
      events::RouteTable t = *staleRouteTables.begin();
      staleRouteTables.erase(staleRouteTables.begin());
      ++counters.tableRereads;
      rereadRouteTable(t, onChange, reported);
    }
    return reported;
  }

  // Every mirrored table read again. With routes, the devices' flags and IPv4 addresses (links
  // and addresses mirrored or not) and the nexthops are read first: the routes' book-keeping
  // starts from them.
  std::size_t reload(const EventHandler& onChange) {
    std::size_t reported = 0;
    staleRouteTables.clear();
    nexthopsStale = false;
    deviceFlags.clear();
    ipv4AddressKeys.clear();
    for (ObjectKind k : kMirrorable) {
      if (k == ObjectKind::Route && options.routes) rereadNexthops();
      bool bookKeeping = options.routes && (k == ObjectKind::Link || k == ObjectKind::Address);
      if (mirrors(k) || bookKeeping) reloadKind(k, onChange, reported);
    }
    return reported;
  }
};

StateMirror::StateMirror(Netlink& netlink, const MirrorOptions& options)
    : state_(std::make_unique<State>(netlink, options)) {
  // Subscribe before dumping: whatever changes during the dump is queued on the socket.
  for (ObjectKind k : kMirrorable)
    if (state_->mirrors(k))
      for (NotificationGroup g : groupsOf(k)) state_->subscription.join(g);
  if (options.routes) {
    // Devices, IPv4 addresses and nexthops change routes without route notifications
    // (State::followDevice, followAddress).
    if (!options.links) state_->subscription.join(NotificationGroup::Link);
    if (!options.addresses) state_->subscription.join(NotificationGroup::Ipv4Addr);
    try {
      state_->subscription.join(NotificationGroup::Nexthop);
    } catch (const Error& e) {
      if (e.code() != std::errc::invalid_argument) throw;  // a kernel without nexthop objects (< 5.3)
    }
  }
  state_->reload({});
}

StateMirror::~StateMirror() = default;
StateMirror::StateMirror(StateMirror&&) noexcept = default;
StateMirror& StateMirror::operator=(StateMirror&&) noexcept = default;

int StateMirror::fd() const { return state_->subscription.fd(); }

std::size_t StateMirror::process(const EventHandler& onChange) {
  std::size_t reported = 0;
  // After ENOBUFS the socket still holds notifications from before the gap (the error is
  // reported first), then newer ones. Applied after a re-dump, the old ones would bring back
  // what the gap deleted; so everything queued is dropped, and the dump (taken after the queue
  // ran dry) stands for all of it. What arrives during the dump is applied after it, which is
  // idempotent like the start.
  bool lost = false;
  Subscription::Handlers handlers;
  handlers.onNotification = [&](const Notification& n) {
    if (lost) return;
    state_->applyNotification(reinterpret_cast<const nlmsghdr*>(n.bytes.data()), onChange, reported);
    state_->maybeCompact();  // (a comparison of two counters unless due)
  };
  handlers.onOverflow = [&] {
    ++state_->counters.overflows;
    lost = true;
  };
  for (;;) {
    state_->subscription.process(handlers);
    if (!lost) return reported + state_->settle(onChange);
    lost = false;
    ++state_->counters.resyncs;
    reported += state_->reload(onChange);
  }
}

std::size_t StateMirror::wait(const EventHandler& onChange, std::chrono::milliseconds timeout) {
  pollfd p{fd(), POLLIN, 0};
  int rc;
  do {
    rc = ::poll(&p, 1, static_cast<int>(timeout.count()));
  } while (rc < 0 && errno == EINTR);
  if (rc < 0) throw Error(std::error_code(errno, std::generic_category()), "poll mirror");
  return process(onChange);
}

std::size_t StateMirror::resync(const EventHandler& onChange) {
  ++state_->counters.resyncs;
  return state_->reload(onChange);
}

namespace {

template <class Info, class Decode>
void forEachIn(const Table& table, Decode decode, const std::function<void(const Info&)>& each) {
  for (const Entry* entry : table) each(decode(header(*entry)));
}

RouteInfo decodeRouteMessage(const nlmsghdr* m) {
  RouteInfo r;
  rtnl::decodeRoute(m, r);
  return r;
}

}  // namespace

std::optional<LinkInfo> StateMirror::link(uint32_t ifindex) const {
  const auto& table = state_->tables[slot(ObjectKind::Link)];
  auto it = table.find(events::linkKey(ifindex));
  if (it == table.end()) return std::nullopt;
  return rtnl::decodeLink(header(**it), false);
}

std::optional<LinkInfo> StateMirror::link(std::string_view name) const {
  auto it = state_->linkNames.find(std::string(name));
  if (it == state_->linkNames.end()) return std::nullopt;
  return link(it->second);
}

std::vector<AddrInfo> StateMirror::addresses(uint32_t ifindex) const {
  std::vector<AddrInfo> out;
  const auto& table = state_->tables[slot(ObjectKind::Address)];
  // Address keys start with the ifindex, so one device's addresses are one range.
  std::string prefix = events::linkKey(ifindex), key;
  for (auto it = table.lowerBound(prefix); it != table.end() && table.keyStartsWith(*it, prefix, key); ++it)
    out.push_back(rtnl::decodeAddr(header(**it)));
  return out;
}

std::optional<RouteInfo> StateMirror::route(uint32_t table, const Prefix& dst) const {
  const auto& routes = state_->tables[slot(ObjectKind::Route)];
  std::string prefix = events::routeLookupKey(table, dst), key;
  std::optional<RouteInfo> best;
  for (auto it = routes.lowerBound(prefix); it != routes.end() && routes.keyStartsWith(*it, prefix, key); ++it) {
    RouteInfo r = decodeRouteMessage(header(**it));
    if (!best || r.metric.value_or(0) < best->metric.value_or(0)) best = std::move(r);
  }
  return best;
}

std::optional<NeighInfo> StateMirror::neighbour(uint32_t ifindex, const IpAddress& dst) const {
  const auto& table = state_->tables[slot(ObjectKind::Neighbour)];
  auto it = table.find(events::neighKey(ifindex, dst));
  if (it == table.end()) return std::nullopt;
  return rtnl::decodeNeigh(header(**it));
}

void StateMirror::forEachLink(const std::function<void(const LinkInfo&)>& each) const {
  forEachIn<LinkInfo>(state_->tables[slot(ObjectKind::Link)], [](const nlmsghdr* m) { return rtnl::decodeLink(m, false); }, each);
}
void StateMirror::forEachAddress(const std::function<void(const AddrInfo&)>& each) const {
  forEachIn<AddrInfo>(state_->tables[slot(ObjectKind::Address)], rtnl::decodeAddr, each);
}
void StateMirror::forEachRoute(const std::function<void(const RouteInfo&)>& each) const {
  forEachIn<RouteInfo>(state_->tables[slot(ObjectKind::Route)], decodeRouteMessage, each);
}
void StateMirror::forEachNeighbour(const std::function<void(const NeighInfo&)>& each) const {
  forEachIn<NeighInfo>(state_->tables[slot(ObjectKind::Neighbour)], rtnl::decodeNeigh, each);
}

std::size_t StateMirror::count(ObjectKind kind) const {
  std::size_t s = slot(kind);
  return s < state_->tables.size() ? state_->tables[s].size() : 0;
}

std::vector<std::vector<uint8_t>> StateMirror::canonical(ObjectKind kind) const {
  std::vector<std::vector<uint8_t>> out;
  std::size_t s = slot(kind);
  if (s >= state_->tables.size()) return out;
  for (const Entry* entry : state_->tables[s]) {
    auto bytes = bytesOf(*entry);
    out.emplace_back(bytes.begin(), bytes.end());
    // The header as the canonical form has it: the book-keeping the store keeps in it zeroed.
    std::memset(out.back().data() + offsetof(nlmsghdr, nlmsg_seq), 0, sizeof(uint32_t) * 2);
  }
  std::sort(out.begin(), out.end(), byteLess);
  return out;
}

std::vector<std::vector<uint8_t>> StateMirror::canonicalDump(Netlink& netlink, ObjectKind kind) {
  std::vector<std::vector<uint8_t>> out;
  netlink.raw(Protocol::Route)
      .dumpBytes(
          events::dumpRequest(kind), asMessages([&](const nlmsghdr* m) {
            Canonical c = events::canonicalize(m);
            if (c.valid && c.kind == kind && !c.deleted) out.emplace_back(c.message.begin(), c.message.end());
          }),
          std::string(objectKindName(kind)) + " dump", [&] { out.clear(); });
  std::sort(out.begin(), out.end(), byteLess);
  return out;
}

MirrorStats StateMirror::stats() const {
  MirrorStats s = state_->counters;
  s.overflows = state_->subscription.overflows();
  // The log's chunks (the objects' messages, live and dead) and the index's blocks.
  for (const auto& table : state_->tables) {
    s.objects += table.size();
    s.bytes += table.indexBytes();
  }
  s.bytes += state_->log.bytes();
  for (const auto& [name, index] : state_->linkNames) s.bytes += 64 + stringBytes(name);
  for (const auto& [device, list] : state_->routesOnDevice) s.bytes += 48 + list.capacity() * sizeof(Entry*);
  s.bytes += state_->deviceFlags.size() * 32;
  s.bytes += state_->nexthopUses.bytes() + state_->multipathByDevice.bytes() + state_->ipv4RoutesBySource.bytes();
  return s;
}

}  // namespace fastlink
