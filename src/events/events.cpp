// Typed events: the object decoders of src/rtnl applied to notifications.
#include "fastlink/events.hpp"

#include <linux/if_addr.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <algorithm>
#include <utility>

#include "fastlink/error.hpp"
#include "fastlink/netlink.hpp"
#include "rtnl/addr_codec.hpp"
#include "rtnl/fdb_codec.hpp"
#include "rtnl/link_codec.hpp"
#include "rtnl/neigh_codec.hpp"
#include "rtnl/nexthop_codec.hpp"
#include "rtnl/route_codec.hpp"
#include "rtnl/rule_codec.hpp"
#include "rtnl/tc_codec.hpp"
#include "rtnl/tc_filter_codec.hpp"

namespace fastlink {
namespace {

// The family byte that follows the netlink header in every rtnetlink message (ifi_family,
// ifa_family, rtm_family, ndm_family, ...); 0 when the message is too short to have one.
uint8_t familyOf(const nlmsghdr* m) {
  if (m->nlmsg_len < NLMSG_HDRLEN + 1) return 0;
  return *reinterpret_cast<const uint8_t*>(NLMSG_DATA(m));
}

bool isIp(uint8_t family) { return family == AF_INET || family == AF_INET6; }

void setHeader(Event& e, EventAction action, ObjectKind kind, const nlmsghdr* m, const Notification& n) {
  e.action = action;
  e.kind = kind;
  e.created = (m->nlmsg_flags & NLM_F_CREATE) != 0;
  e.replaced = (m->nlmsg_flags & NLM_F_REPLACE) != 0;
  e.exclusive = (m->nlmsg_flags & NLM_F_EXCL) != 0;
  e.nsid = n.nsid;
}

// The event's object as a T: the one it holds when it is already a T (a stream of route events
// reuses one RouteInfo: its decoder resets it), else a fresh one.
template <class T>
T& objectAs(Event& e) {
  if (auto* held = std::get_if<T>(&e.object)) return *held;
  return e.object.emplace<T>();
}

bool anyFamily(uint8_t) { return true; }
bool isUnspec(uint8_t family) { return family == AF_UNSPEC; }
bool isBridge(uint8_t family) { return family == AF_BRIDGE; }

// The notifications that are events: the RTM_NEW* type (its RTM_DEL* is the next one), the
// families that make it one kind of object, and its decoder into the event's object.
struct EventRow {
  uint16_t newType;
  ObjectKind kind;
  bool (*takes)(uint8_t family);
  void (*decode)(const nlmsghdr* m, Event& e);
};

constexpr EventRow kEventRows[] = {
    // Bridge ports (AF_BRIDGE) and IPv6 (AF_INET6) announce their own per-device parts with the
    // same types; only AF_UNSPEC describes the link itself.
    {RTM_NEWLINK, ObjectKind::Link, isUnspec, [](const nlmsghdr* m, Event& e) { e.object = rtnl::decodeLink(m, false); }},
    {RTM_NEWADDR, ObjectKind::Address, isIp, [](const nlmsghdr* m, Event& e) { e.object = rtnl::decodeAddr(m); }},
    // Other route families are multicast routing (RTNL_FAMILY_IPMR) and MPLS.
    {RTM_NEWROUTE, ObjectKind::Route, isIp, [](const nlmsghdr* m, Event& e) { rtnl::decodeRoute(m, objectAs<RouteInfo>(e)); }},
    {RTM_NEWNEIGH, ObjectKind::Fdb, isBridge, [](const nlmsghdr* m, Event& e) { e.object = rtnl::decodeFdb(m); }},
    {RTM_NEWNEIGH, ObjectKind::Neighbour, isIp, [](const nlmsghdr* m, Event& e) { e.object = rtnl::decodeNeigh(m); }},
    {RTM_NEWRULE, ObjectKind::Rule, isIp, [](const nlmsghdr* m, Event& e) { e.object = rtnl::decodeRule(m); }},
    {RTM_NEWNEXTHOP, ObjectKind::Nexthop, anyFamily, [](const nlmsghdr* m, Event& e) { e.object = rtnl::decodeNexthop(m); }},
    {RTM_NEWQDISC, ObjectKind::Qdisc, anyFamily, [](const nlmsghdr* m, Event& e) { rtnl::decodeQdisc(m, objectAs<QdiscInfo>(e)); }},
    {RTM_NEWTCLASS, ObjectKind::Class, anyFamily, [](const nlmsghdr* m, Event& e) { rtnl::decodeClass(m, objectAs<ClassInfo>(e)); }},
    {RTM_NEWTFILTER, ObjectKind::Filter, anyFamily,
     [](const nlmsghdr* m, Event& e) { rtnl::decodeFilter(m, objectAs<TcFilterInfo>(e)); }},
    {RTM_NEWCHAIN, ObjectKind::Chain, anyFamily, [](const nlmsghdr* m, Event& e) { rtnl::decodeFilter(m, objectAs<TcFilterInfo>(e)); }},
};

}  // namespace

std::string_view objectKindName(ObjectKind kind) {
  static constexpr std::pair<ObjectKind, std::string_view> kNames[] = {
      {ObjectKind::Link, "link"},   {ObjectKind::Address, "address"}, {ObjectKind::Route, "route"},
      {ObjectKind::Neighbour, "neigh"}, {ObjectKind::Rule, "rule"},   {ObjectKind::Nexthop, "nexthop"},
      {ObjectKind::Fdb, "fdb"},     {ObjectKind::Qdisc, "qdisc"},     {ObjectKind::Class, "class"},
      {ObjectKind::Filter, "filter"}, {ObjectKind::Chain, "chain"}};
  for (const auto& [k, name] : kNames)
    if (k == kind) return name;
  return "?";
}

std::string_view eventActionName(EventAction action) {
  switch (action) {
    case EventAction::New: return "new";
    case EventAction::Changed: return "changed";
    case EventAction::Deleted: return "deleted";
  }
  return "?";
}

bool decodeEvent(const Notification& notification, Event& out) {
  if (notification.bytes.size() < NLMSG_HDRLEN) return false;
  const auto* m = reinterpret_cast<const nlmsghdr*>(notification.bytes.data());
  const uint8_t family = familyOf(m);
  for (const EventRow& row : kEventRows) {
    // Every RTM_DEL* is its RTM_NEW* + 1.
    if ((m->nlmsg_type & ~1) != row.newType || !row.takes(family)) continue;
    setHeader(out, m->nlmsg_type == row.newType ? EventAction::New : EventAction::Deleted, row.kind, m, notification);
    row.decode(m, out);
    return true;
  }
  return false;
}

std::optional<Event> decodeEvent(const Notification& notification) {
  Event e;
  if (!decodeEvent(notification, e)) return std::nullopt;
  return e;
}

std::vector<NotificationGroup> groupsOf(ObjectKind kind) {
  switch (kind) {
    case ObjectKind::Link: return {NotificationGroup::Link};
    case ObjectKind::Address: return {NotificationGroup::Ipv4Addr, NotificationGroup::Ipv6Addr};
    case ObjectKind::Route: return {NotificationGroup::Ipv4Route, NotificationGroup::Ipv6Route};
    case ObjectKind::Neighbour:
    case ObjectKind::Fdb: return {NotificationGroup::Neigh};
    case ObjectKind::Rule: return {NotificationGroup::Ipv4Rule, NotificationGroup::Ipv6Rule};
    case ObjectKind::Nexthop: return {NotificationGroup::Nexthop};
    case ObjectKind::Qdisc:
    case ObjectKind::Class:
    case ObjectKind::Filter:
    case ObjectKind::Chain: return {NotificationGroup::Tc};
  }
  return {};
}

EventStream::EventStream(Netlink& netlink, std::initializer_list<ObjectKind> kinds, const EventOptions& options)
    : EventStream(netlink, std::vector<ObjectKind>(kinds), options) {}

EventStream::EventStream(Netlink& netlink, const std::vector<ObjectKind>& kinds, const EventOptions& options)
    : subscription_(netlink.subscribe({}, options.subscription)), kinds_(kinds) {
  std::vector<NotificationGroup> joined;
  for (ObjectKind k : kinds_)
    for (NotificationGroup g : groupsOf(k))
      if (std::find(joined.begin(), joined.end(), g) == joined.end()) {
        subscription_.join(g);
        joined.push_back(g);
      }
}

std::size_t EventStream::process(const EventHandler& onEvent, const std::function<void()>& onOverflow) {
  return deliver(onEvent, onOverflow, [](Subscription& s, const Subscription::Handlers& h) { return s.process(h); });
}

std::size_t EventStream::wait(const EventHandler& onEvent, const std::function<void()>& onOverflow) {
  return deliver(onEvent, onOverflow, [](Subscription& s, const Subscription::Handlers& h) { return s.wait(h); });
}

std::size_t EventStream::wait(const EventHandler& onEvent, std::chrono::milliseconds timeout,
                              const std::function<void()>& onOverflow) {
  return deliver(onEvent, onOverflow,
                 [timeout](Subscription& s, const Subscription::Handlers& h) { return s.wait(h, timeout); });
}

std::size_t EventStream::deliver(const EventHandler& onEvent, const std::function<void()>& onOverflow, const Read& read) {
  std::size_t delivered = 0;
  Subscription::Handlers handlers;
  Event event;  // one for the whole batch: decoding a route event into it allocates nothing
  handlers.onNotification = [&](const Notification& n) {
    // The neighbour group carries fdb entries too: deliver only the kinds asked for.
    if (!decodeEvent(n, event) || std::find(kinds_.begin(), kinds_.end(), event.kind) == kinds_.end()) return;
    ++delivered;
    onEvent(event);
  };
  handlers.onOverflow = onOverflow;
  read(subscription_, handlers);
  return delivered;
}

}  // namespace fastlink
