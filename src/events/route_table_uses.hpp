// Which route tables hold routes that depend on something the kernel can change under them
// without a route notification (a nexthop object, a device, a preferred source address),
// counted per (family, table), so that a change of that thing names the tables to read again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <unordered_map>
#include <utility>

namespace fastlink::events {

/// A table of routes: (address family, table id).
using RouteTable = std::pair<uint8_t, uint32_t>;

class RouteTableUses {
 public:
  /// A mirrored route of `table` that depends on `on` was stored, or dropped.
  void add(uint32_t on, RouteTable table) { ++uses_[on][table]; }
  void remove(uint32_t on, RouteTable table) {
    auto it = uses_.find(on);
    if (it == uses_.end()) return;
    auto t = it->second.find(table);
    if (t != it->second.end() && --t->second == 0) it->second.erase(t);
    if (it->second.empty()) uses_.erase(it);
  }
  /// Adds to `stale` the tables holding routes that depend on `on`.
  void mark(uint32_t on, std::set<RouteTable>& stale) const {
    auto it = uses_.find(on);
    if (it == uses_.end()) return;
    for (const auto& [table, routes] : it->second) stale.insert(table);
  }
  bool empty() const { return uses_.empty(); }
  /// True when some mirrored route depends on `on`.
  bool has(uint32_t on) const { return uses_.count(on) != 0; }
  /// Memory held, estimated: a hash node and a map node per (thing, table).
  std::size_t bytes() const {
    std::size_t b = 0;
    for (const auto& [on, tables] : uses_) b += 48 + 48 * tables.size();
    return b;
  }

 private:
  std::unordered_map<uint32_t, std::map<RouteTable, uint32_t>> uses_;
};

}  // namespace fastlink::events
