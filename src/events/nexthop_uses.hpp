// What a StateMirror must know of nexthop objects to keep the routes that use them (`nhid`, as
// FRR installs routes) true. The kernel changes or removes such routes without a route
// notification when
//   - a nexthop is deleted: its IPv4 routes go (IPv6 ones are announced);
//   - a group loses a member (deleted, or removed with its device): the group's routes of both
//     families now have fewer paths; only the group is announced, and not always;
//   - a device goes down or loses its carrier: the kernel removes the nexthops through it with
//     no notification at all, and with them the routes and group members above.
// NexthopUses keeps each nexthop's device and members and which route tables hold routes over
// each id, so that such a change names the few tables the mirror must read again.
#pragma once

#include <linux/netlink.h>

#include <cstddef>
#include <cstdint>
#include <set>
#include <unordered_map>
#include <vector>

#include "events/route_table_uses.hpp"

namespace fastlink::events {

class NexthopUses {
 public:
  /// Forgets every nexthop (a fresh nexthop dump follows); what routes use is kept.
  void clearNexthops();
  /// A nexthop from a dump or an RTM_NEWNEXTHOP / RTM_DELNEXTHOP notification. Adds to `stale`
  /// the tables whose routes over it, or over a group holding it, may have changed.
  void apply(const nlmsghdr* message, std::set<RouteTable>& stale);
  /// The device went down, lost its carrier or went away. Adds to `stale` the tables of the
  /// routes over its nexthops and their groups; true when it had nexthops (the kernel may have
  /// removed them silently: the nexthops must be read again).
  bool deviceChanged(uint32_t ifindex, std::set<RouteTable>& stale) const;

  /// A mirrored route over nexthop `id` (RTA_NH_ID) was stored, or dropped.
  void routeAdded(uint32_t id, RouteTable table) { uses_.add(id, table); }
  void routeRemoved(uint32_t id, RouteTable table) { uses_.remove(id, table); }

  /// Memory held, estimated.
  std::size_t bytes() const;

 private:
  /// Adds the tables of routes over `id` and over every group that holds it.
  void markUsesOf(uint32_t id, std::set<RouteTable>& stale) const;
  /// Adds `id`'s device and members to the indexes below, or takes them out.
  void index(uint32_t id);
  void unindex(uint32_t id);

  struct Nexthop {
    uint32_t dev = 0;
    std::vector<uint32_t> members;  ///< a group's nexthop ids
  };
  std::unordered_map<uint32_t, Nexthop> nexthops_;
  // Indexes, so that a change costs what it touches, not a walk over every nexthop (FRR keeps
  // thousands of groups): device -> its nexthops, member -> the groups holding it.
  std::unordered_map<uint32_t, std::vector<uint32_t>> byDevice_;
  std::unordered_map<uint32_t, std::vector<uint32_t>> groupsHolding_;
  RouteTableUses uses_;  // by nexthop id
};

}  // namespace fastlink::events
