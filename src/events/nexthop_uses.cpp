#include "events/nexthop_uses.hpp"

#include <linux/rtnetlink.h>

#include <algorithm>

#include "rtnl/nexthop_codec.hpp"

namespace fastlink::events {

namespace {

void dropFrom(std::unordered_map<uint32_t, std::vector<uint32_t>>& index, uint32_t key, uint32_t value) {
  auto it = index.find(key);
  if (it == index.end()) return;
  std::erase(it->second, value);
  if (it->second.empty()) index.erase(it);
}

}  // namespace

void NexthopUses::clearNexthops() {
  nexthops_.clear();
  byDevice_.clear();
  groupsHolding_.clear();
}

void NexthopUses::apply(const nlmsghdr* message, std::set<RouteTable>& stale) {
  NexthopInfo info = rtnl::decodeNexthop(message);
  if (!info.id) return;
  uint32_t id = *info.id;
  // Before the change: the groups that held it are the ones whose routes it touches.
  markUsesOf(id, stale);
  if (nexthops_.count(id)) unindex(id);
  if (message->nlmsg_type == RTM_DELNEXTHOP) {
    nexthops_.erase(id);
    // The kernel takes a deleted nexthop out of every group.
    auto holding = groupsHolding_.find(id);
    if (holding != groupsHolding_.end()) {
      for (uint32_t group : holding->second)
        if (auto g = nexthops_.find(group); g != nexthops_.end()) std::erase(g->second.members, id);
      groupsHolding_.erase(holding);
    }
    return;
  }
  Nexthop& nh = nexthops_[id];
  nh.dev = info.devIndex();
  nh.members.clear();
  for (const auto& member : info.group) nh.members.push_back(member.id);
  index(id);
}

void NexthopUses::index(uint32_t id) {
  const Nexthop& nh = nexthops_[id];
  if (nh.dev) byDevice_[nh.dev].push_back(id);
  for (uint32_t member : nh.members) groupsHolding_[member].push_back(id);
}

void NexthopUses::unindex(uint32_t id) {
  const Nexthop& nh = nexthops_[id];
  if (nh.dev) dropFrom(byDevice_, nh.dev, id);
  for (uint32_t member : nh.members) dropFrom(groupsHolding_, member, id);
}

bool NexthopUses::deviceChanged(uint32_t ifindex, std::set<RouteTable>& stale) const {
  auto it = byDevice_.find(ifindex);
  if (it == byDevice_.end()) return false;
  for (uint32_t id : it->second) markUsesOf(id, stale);
  return true;
}

void NexthopUses::markUsesOf(uint32_t id, std::set<RouteTable>& stale) const {
  if (uses_.empty()) return;  // no route over any nexthop object: nothing can be stale
  uses_.mark(id, stale);
  auto holding = groupsHolding_.find(id);
  if (holding != groupsHolding_.end())
    for (uint32_t group : holding->second) uses_.mark(group, stale);
}

std::size_t NexthopUses::bytes() const {
  // Hash nodes of ~48 bytes, map nodes of ~48, ids 4 bytes each.
  std::size_t b = 0;
  for (const auto& [id, nh] : nexthops_) b += 48 + 4 * nh.members.capacity();
  for (const auto& [dev, ids] : byDevice_) b += 48 + 4 * ids.capacity();
  for (const auto& [member, groups] : groupsHolding_) b += 48 + 4 * groups.capacity();
  return b + uses_.bytes();
}

}  // namespace fastlink::events
