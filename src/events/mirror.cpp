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
#include <map>
#include <string>
#include <unordered_map>

#include "core/engine.hpp"
#include "core/message.hpp"
#include "events/canonical.hpp"
#include "fastlink/error.hpp"
#include "fastlink/netlink.hpp"
#include "netlink_internals.hpp"
#include "rtnl/addr_codec.hpp"
#include "rtnl/link_codec.hpp"
#include "rtnl/neigh_codec.hpp"
#include "rtnl/route_codec.hpp"

namespace fastlink {

using events::Canonical;

namespace {

constexpr std::array<ObjectKind, 4> kMirrorable{ObjectKind::Link, ObjectKind::Address, ObjectKind::Route,
                                                ObjectKind::Neighbour};

std::size_t slot(ObjectKind kind) {
  switch (kind) {
    case ObjectKind::Link: return 0;
    case ObjectKind::Address: return 1;
    case ObjectKind::Route: return 2;
    case ObjectKind::Neighbour: return 3;
    default: return 4;
  }
}

struct Entry {
  std::string message;  // canonical: header normalised, volatile attributes removed
  uint32_t generation = 0;
};

const nlmsghdr* header(const std::string& message) { return reinterpret_cast<const nlmsghdr*>(message.data()); }

// Rough heap cost of a std::string of n bytes (SSO up to 15, else a malloc'd block).
// Byte order of canonical messages (std::lexicographical_compare over vector<uint8_t> trips a
// GCC 12 -Wstringop-overread false positive).
bool byteLess(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  std::size_t n = std::min(a.size(), b.size());
  int c = n ? std::memcmp(a.data(), b.data(), n) : 0;
  return c != 0 ? c < 0 : a.size() < b.size();
}

std::size_t stringBytes(const std::string& s) { return s.size() > 15 ? ((s.capacity() + 1 + 15) & ~std::size_t{15}) : 0; }

}  // namespace

struct StateMirror::State {
  Netlink* netlink;
  MirrorOptions options;
  Subscription subscription;
  // Ordered: routes that share a kernel identity (table, prefix, tos, metric) are adjacent, so
  // a replace finds the entries it overwrites with one range.
  std::array<std::map<std::string, Entry>, 4> tables;
  std::unordered_map<std::string, uint32_t> linkNames;  // name -> ifindex
  // IPv4 routes per output device: the kernel drops them without a notification when the
  // device goes down or away; the counter says when a scan is worth it.
  std::unordered_map<uint32_t, uint32_t> ipv4RoutesByDev;
  // Single-path routes per output device (both families): their linkdown flag follows the
  // device's carrier, also without a notification.
  std::unordered_map<uint32_t, uint32_t> routesByDev;
  uint32_t generation = 1;
  MirrorStats counters;

  State(Netlink& nl, const MirrorOptions& o) : netlink(&nl), options(o), subscription(nl.subscribe({}, o.subscription)) {}

  bool mirrors(ObjectKind k) const {
    switch (k) {
      case ObjectKind::Link: return options.links;
      case ObjectKind::Address: return options.addresses;
      case ObjectKind::Route: return options.routes;
      case ObjectKind::Neighbour: return options.neighbours;
      default: return false;
    }
  }

  void report(const EventHandler& onChange, EventAction action, ObjectKind kind, const std::string& message,
              std::size_t& reported) {
    ++reported;
    if (!onChange) return;
    Event e;
    e.action = action;
    e.kind = kind;
    Notification n{{reinterpret_cast<const uint8_t*>(message.data()), message.size()}, std::nullopt};
    std::optional<Event> decoded = decodeEvent(n);
    if (!decoded) return;
    e.object = std::move(decoded->object);
    onChange(e);
  }

  // Book-keeping done on every insert and erase.
  void added(ObjectKind kind, const Canonical& c) {
    if (kind == ObjectKind::Link && !c.name.empty()) linkNames[c.name] = c.ifindex;
    if (kind == ObjectKind::Route && c.ipv4Dev) ++ipv4RoutesByDev[c.ipv4Dev];
    if (kind == ObjectKind::Route && c.routeDev) ++routesByDev[c.routeDev];
  }
  void removed(ObjectKind kind, const std::string& message) {
    Canonical c = events::canonicalize(header(message));
    if (kind == ObjectKind::Link) {
      auto it = linkNames.find(c.name);
      if (it != linkNames.end() && it->second == c.ifindex) linkNames.erase(it);
    }
    if (kind == ObjectKind::Route && c.ipv4Dev) {
      auto it = ipv4RoutesByDev.find(c.ipv4Dev);
      if (it != ipv4RoutesByDev.end() && --it->second == 0) ipv4RoutesByDev.erase(it);
    }
    if (kind == ObjectKind::Route && c.routeDev) {
      auto it = routesByDev.find(c.routeDev);
      if (it != routesByDev.end() && --it->second == 0) routesByDev.erase(it);
    }
  }

  void erase(ObjectKind kind, std::map<std::string, Entry>::iterator it, const EventHandler& onChange,
             std::size_t& reported) {
    std::string message = std::move(it->second.message);
    tables[slot(kind)].erase(it);
    removed(kind, message);
    report(onChange, EventAction::Deleted, kind, message, reported);
  }

  // Inserts or updates; reports New / Changed, nothing when the stored form is the same.
  void upsert(Canonical&& c, const EventHandler& onChange, std::size_t& reported) {
    auto& table = tables[slot(c.kind)];
    auto [it, inserted] = table.try_emplace(c.key);
    it->second.generation = generation;
    if (inserted) {
      it->second.message = std::move(c.message);
      added(c.kind, c);
      report(onChange, EventAction::New, c.kind, it->second.message, reported);
      return;
    }
    if (it->second.message == c.message) return;
    if (c.kind == ObjectKind::Link) {
      onLinkChange(header(it->second.message), c, onChange, reported);
      it = table.find(c.key);  // the table of links is not touched by onLinkChange; be safe
    }
    removed(c.kind, it->second.message);
    it->second.message = std::move(c.message);
    added(c.kind, c);
    report(onChange, EventAction::Changed, c.kind, it->second.message, reported);
  }

  // A link that went administratively down loses its IPv4 routes silently (fib_sync_down_dev).
  void onLinkChange(const nlmsghdr* before, const Canonical& after, const EventHandler& onChange,
                    std::size_t& reported) {
    uint32_t was = events::linkFlags(before), is = after.linkFlags;
    if ((was & IFF_UP) && !(is & IFF_UP)) dropIpv4RoutesOf(after.ifindex, onChange, reported);
    if ((was ^ is) & (IFF_RUNNING | IFF_LOWER_UP)) followCarrier(after.ifindex, is, onChange, reported);
  }

  // The kernel marks routes through a device without carrier "linkdown" (IPv4: neither running
  // nor lower-up; IPv6: not operationally up) and clears it on carrier, without notifications.
  void followCarrier(uint32_t ifindex, uint32_t flags, const EventHandler& onChange, std::size_t& reported) {
    if (!options.routes || !routesByDev.count(ifindex)) return;
    for (auto& [key, entry] : tables[slot(ObjectKind::Route)]) {
      Canonical c = events::canonicalize(header(entry.message));
      if (c.routeDev != ifindex || c.routeType == RTN_LOCAL) continue;
      bool down = c.family == AF_INET ? !(flags & (IFF_RUNNING | IFF_LOWER_UP)) : !(flags & IFF_RUNNING);
      if (events::setLinkdown(entry.message, down))
        report(onChange, EventAction::Changed, ObjectKind::Route, entry.message, reported);
    }
  }

  void dropIpv4RoutesOf(uint32_t ifindex, const EventHandler& onChange, std::size_t& reported) {
    if (!options.routes || !ipv4RoutesByDev.count(ifindex)) return;
    auto& routes = tables[slot(ObjectKind::Route)];
    for (auto it = routes.begin(); it != routes.end();) {
      auto next = std::next(it);
      if (events::canonicalize(header(it->second.message)).ipv4Dev == ifindex)
        erase(ObjectKind::Route, it, onChange, reported);
      it = next;
    }
  }

  void applyNotification(const nlmsghdr* m, const EventHandler& onChange, std::size_t& reported) {
    Canonical c = events::canonicalize(m);
    if (!c.valid || !mirrors(c.kind)) return;
    ++counters.notifications;
    auto& table = tables[slot(c.kind)];
    if (c.deleted) {
      auto it = table.find(c.key);
      if (it != table.end()) erase(c.kind, it, onChange, reported);
      if (c.kind == ObjectKind::Link) dropIpv4RoutesOf(c.ifindex, onChange, reported);
      return;
    }
    if (c.replaces) {
      // NLM_F_REPLACE: the route took the place of whatever had its identity (a different
      // nexthop is a different key here).
      auto first = table.lower_bound(c.identity);
      while (first != table.end() && first->first.compare(0, c.identity.size(), c.identity) == 0) {
        auto next = std::next(first);
        if (first->first != c.key) erase(c.kind, first, onChange, reported);
        first = next;
      }
    }
    upsert(std::move(c), onChange, reported);
  }

  // One dump of `kind` marks what it sees with the current generation.
  void dumpKind(ObjectKind kind, const EventHandler& onChange, std::size_t& reported) {
    core::Engine& engine = NetlinkInternals::routeEngine(*netlink);
    std::vector<uint8_t> request = events::dumpRequest(kind);
    engine.dump(
        request, std::string(objectKindName(kind)) + " dump (mirror)",
        [&](const nlmsghdr* m) {
          Canonical c = events::canonicalize(m);
          if (c.valid && c.kind == kind && !c.deleted) upsert(std::move(c), onChange, reported);
        },
        [&] { ++generation; });
  }

  // Dumps one table and drops what the dump did not show. A restarted dump (NLM_F_DUMP_INTR)
  // raised the generation, so only what the last, complete pass saw stays; if the engine gave
  // up restarting, the pass starts again.
  void reloadKind(ObjectKind kind, const EventHandler& onChange, std::size_t& reported) {
    for (;;) {
      ++generation;
      try {
        dumpKind(kind, onChange, reported);
      } catch (const Error& e) {
        if (e.code() != Errc::dump_interrupted) throw;
        continue;
      }
      auto& table = tables[slot(kind)];
      for (auto it = table.begin(); it != table.end();) {
        auto next = std::next(it);
        if (it->second.generation != generation) erase(kind, it, onChange, reported);
        it = next;
      }
      return;
    }
  }

  std::size_t reload(const EventHandler& onChange) {
    std::size_t reported = 0;
    for (ObjectKind k : kMirrorable)
      if (mirrors(k)) reloadKind(k, onChange, reported);
    return reported;
  }
};

StateMirror::StateMirror(Netlink& netlink, const MirrorOptions& options)
    : state_(std::make_unique<State>(netlink, options)) {
  // Subscribe before dumping: whatever changes during the dump is queued on the socket.
  for (ObjectKind k : kMirrorable)
    if (state_->mirrors(k))
      for (NotificationGroup g : groupsOf(k)) state_->subscription.join(g);
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
    if (!lost) state_->applyNotification(reinterpret_cast<const nlmsghdr*>(n.bytes.data()), onChange, reported);
  };
  handlers.onOverflow = [&] {
    ++state_->counters.overflows;
    lost = true;
  };
  for (;;) {
    state_->subscription.process(handlers);
    if (!lost) return reported;
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
void forEachIn(const std::map<std::string, Entry>& table, Decode decode, const std::function<void(const Info&)>& each) {
  for (const auto& [key, entry] : table) each(decode(header(entry.message)));
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
  return rtnl::decodeLink(header(it->second.message), false);
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
  std::string prefix = events::linkKey(ifindex);
  for (auto it = table.lower_bound(prefix); it != table.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it)
    out.push_back(rtnl::decodeAddr(header(it->second.message)));
  return out;
}

std::optional<RouteInfo> StateMirror::route(uint32_t table, const Prefix& dst) const {
  const auto& routes = state_->tables[slot(ObjectKind::Route)];
  std::string prefix = events::routeLookupKey(table, dst);
  std::optional<RouteInfo> best;
  for (auto it = routes.lower_bound(prefix); it != routes.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
    RouteInfo r = decodeRouteMessage(header(it->second.message));
    if (!best || r.metric.value_or(0) < best->metric.value_or(0)) best = std::move(r);
  }
  return best;
}

std::optional<NeighInfo> StateMirror::neighbour(uint32_t ifindex, const IpAddress& dst) const {
  const auto& table = state_->tables[slot(ObjectKind::Neighbour)];
  auto it = table.find(events::neighKey(ifindex, dst));
  if (it == table.end()) return std::nullopt;
  return rtnl::decodeNeigh(header(it->second.message));
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
  for (const auto& [key, entry] : state_->tables[s]) out.emplace_back(entry.message.begin(), entry.message.end());
  std::sort(out.begin(), out.end(), byteLess);
  return out;
}

std::vector<std::vector<uint8_t>> StateMirror::canonicalDump(Netlink& netlink, ObjectKind kind) {
  std::vector<std::vector<uint8_t>> out;
  core::Engine& engine = NetlinkInternals::routeEngine(netlink);
  engine.dump(
      events::dumpRequest(kind), std::string(objectKindName(kind)) + " dump",
      [&](const nlmsghdr* m) {
        Canonical c = events::canonicalize(m);
        if (c.valid && c.kind == kind && !c.deleted) out.emplace_back(c.message.begin(), c.message.end());
      },
      [&] { out.clear(); });
  std::sort(out.begin(), out.end(), byteLess);
  return out;
}

MirrorStats StateMirror::stats() const {
  MirrorStats s = state_->counters;
  s.overflows = state_->subscription.overflows();
  // A std::map node: three pointers, a colour, the key and the value (two strings and a
  // generation), rounded to malloc's 16 bytes, plus the strings' heap blocks.
  constexpr std::size_t kNode = (4 * sizeof(void*) + 2 * sizeof(std::string) + sizeof(uint32_t) + 15) & ~std::size_t{15};
  for (const auto& table : state_->tables) {
    s.objects += table.size();
    for (const auto& [key, entry] : table) s.bytes += kNode + stringBytes(key) + stringBytes(entry.message);
  }
  for (const auto& [name, index] : state_->linkNames) s.bytes += 64 + stringBytes(name);
  s.bytes += state_->ipv4RoutesByDev.size() * 32;
  return s;
}

}  // namespace fastlink
