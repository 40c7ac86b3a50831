// Typed events: kernel notifications decoded into the objects the rest of fastlink speaks
// (LinkInfo, AddrInfo, RouteInfo, ...), read from the caller's own event loop.
//
//   fastlink::Netlink nl;
//   fastlink::EventStream events(nl, {fastlink::ObjectKind::Link, fastlink::ObjectKind::Route});
//   pollfd p{events.fd(), POLLIN, 0};
//   while (poll(&p, 1, -1) > 0)
//     events.process([](const fastlink::Event& e) { ... e.route() ... });
//
// New vs changed: the kernel announces a created object and a changed one with the same message
// (RTM_NEWLINK, RTM_NEWROUTE, ...). An EventStream reports what the kernel says: Action::New,
// with `created` / `replaced` set when the kernel marked the message so (routes, rules and
// nexthops carry those flags; links, addresses and neighbours do not). Only something that
// remembers the previous state can tell "new" from "changed": StateMirror (fastlink/mirror.hpp)
// does, and reports Action::Changed.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <variant>
#include <vector>

#include "fastlink/addr.hpp"
#include "fastlink/fdb.hpp"
#include "fastlink/link.hpp"
#include "fastlink/neigh.hpp"
#include "fastlink/nexthop.hpp"
#include "fastlink/route.hpp"
#include "fastlink/rule.hpp"
#include "fastlink/subscription.hpp"
#include "fastlink/tc.hpp"
#include "fastlink/tc_filter.hpp"

namespace fastlink {

class Netlink;

/// The objects events are about. Qdisc, Class, Filter and Chain are tc's (the RTNLGRP_TC group,
/// `tc monitor`; a chain's event holds a TcFilterInfo without pref or handle: see
/// TcFilterRequests::addChain); standalone tc actions (RTM_NEWACTION) are not decoded.
enum class ObjectKind : uint8_t { Link, Address, Route, Neighbour, Rule, Nexthop, Fdb, Qdisc, Class, Filter, Chain };

/// "link", "address", "route", "neigh", "rule", "nexthop", "fdb" (the `ip monitor` words),
/// "qdisc", "class", "filter", "chain" (`tc monitor`'s).
std::string_view objectKindName(ObjectKind kind);

/// What happened to the object.
enum class EventAction : uint8_t {
  New,      ///< the kernel announced the object (created or changed: see the header comment)
  Changed,  ///< only from StateMirror: the object existed and differs now
  Deleted,  ///< the object is gone
};

/// "new", "changed", "deleted".
std::string_view eventActionName(EventAction action);

/// One decoded event.
struct Event {
  /// std::monostate only in a default-constructed Event (a cheap empty start: LinkInfo is big).
  using Object = std::variant<std::monostate, LinkInfo, AddrInfo, RouteInfo, NeighInfo, RuleInfo, NexthopInfo, FdbInfo,
                              QdiscInfo, ClassInfo, TcFilterInfo>;

  EventAction action = EventAction::New;
  ObjectKind kind = ObjectKind::Link;
  /// The kernel marked the message as creating the object (NLM_F_CREATE), or as replacing an
  /// existing one (NLM_F_REPLACE). Only set where the kernel sets those flags.
  bool created = false;
  bool replaced = false;
  /// NLM_F_EXCL: a tc filter's notification carries its request's flags (CREATE|EXCL for `tc
  /// filter add`, CREATE alone for replace), which `tc monitor` prints as "added"/"replaced".
  bool exclusive = false;
  /// The sender namespace's id (SubscriptionOptions::allNamespaces); unset for our own.
  std::optional<int32_t> nsid;
  Object object;

  const LinkInfo* link() const { return std::get_if<LinkInfo>(&object); }
  const AddrInfo* address() const { return std::get_if<AddrInfo>(&object); }
  const RouteInfo* route() const { return std::get_if<RouteInfo>(&object); }
  const NeighInfo* neighbour() const { return std::get_if<NeighInfo>(&object); }
  const RuleInfo* rule() const { return std::get_if<RuleInfo>(&object); }
  const NexthopInfo* nexthop() const { return std::get_if<NexthopInfo>(&object); }
  const FdbInfo* fdb() const { return std::get_if<FdbInfo>(&object); }
  const QdiscInfo* qdisc() const { return std::get_if<QdiscInfo>(&object); }
  const ClassInfo* tcClass() const { return std::get_if<ClassInfo>(&object); }
  /// A filter's, or a chain's (kind Chain).
  const TcFilterInfo* filter() const { return std::get_if<TcFilterInfo>(&object); }
};

/// Decodes one notification (a whole netlink message) into an Event. std::nullopt for messages
/// that are not about one of the ObjectKinds (netconf, tc actions, ...) or that only echo part of an
/// object (e.g. a bridge port's RTM_NEWLINK of family AF_BRIDGE, IPv6 per-device information).
/// Throws Error(Errc::malformed_reply) on a malformed message.
std::optional<Event> decodeEvent(const Notification& notification);
/// The same into `out`, reusing the object it holds when the notification is of the same kind
/// (a stream of route events decodes into one RouteInfo). False, and `out` unchanged, where the
/// other returns std::nullopt.
bool decodeEvent(const Notification& notification, Event& out);

/// The notification groups that carry `kind` (IPv4 and IPv6 where both exist).
std::vector<NotificationGroup> groupsOf(ObjectKind kind);

struct EventOptions {
  SubscriptionOptions subscription;
};

/// A subscription that delivers typed events. No thread: poll fd() and call process(), or call
/// wait(). Overflow (the kernel dropped notifications) calls `onOverflow` or, without one,
/// throws Error(Errc::receive_overflow); the stream stays usable either way.
class EventStream {
 public:
  using EventHandler = std::function<void(const Event&)>;

  /// Equivalent to: ip monitor OBJECT... (the objects of `kinds`)
  EventStream(Netlink& netlink, std::initializer_list<ObjectKind> kinds, const EventOptions& options = {});
  EventStream(Netlink& netlink, const std::vector<ObjectKind>& kinds, const EventOptions& options = {});

  int fd() const { return subscription_.fd(); }
  /// Delivers every event already queued, without blocking. Returns how many.
  std::size_t process(const EventHandler& onEvent, const std::function<void()>& onOverflow = {});
  /// Waits up to `timeout` for input, then delivers what is queued. Returns how many.
  std::size_t wait(const EventHandler& onEvent, std::chrono::milliseconds timeout,
                   const std::function<void()>& onOverflow = {});
  /// Waits without a time limit, then delivers what is queued (Subscription::wait: one system
  /// call per wake-up). Returns how many; 0 after a signal or when only an overflow came.
  std::size_t wait(const EventHandler& onEvent, const std::function<void()>& onOverflow = {});
  /// The underlying subscription (overflow count, raw access).
  Subscription& subscription() { return subscription_; }

 private:
  /// Reads the subscription with `read` (process, wait, or wait with a timeout), delivering
  /// the decoded events.
  using Read = std::function<std::size_t(Subscription&, const Subscription::Handlers&)>;
  std::size_t deliver(const EventHandler& onEvent, const std::function<void()>& onOverflow, const Read& read);

  Subscription subscription_;
  std::vector<ObjectKind> kinds_;
};

}  // namespace fastlink
