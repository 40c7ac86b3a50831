// Device name -> what a lookup found, for the batch reader's pass 1 (one entry per name the file
// uses, each looked up in the kernel once).
//
// Why not std::unordered_map: pass 1 alternates a lookup here with an ioctl whose name hash walk
// in the kernel evicts the cache, so every lookup here misses; a node-based map misses three
// times (bucket, node, next node's hash), this table once: open addressing over slots that hold
// an interface name (at most 15 bytes) inline. Longer names (altnames, up to 127 bytes) and
// names that are not interface names go to a node-based map: rare.
#pragma once

#include <net/if.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace fastlink::cli {

class NameTable {
 public:
  /// Room for `names` without growing.
  void reserve(std::size_t names) {
    std::size_t want = 16;
    while (want < 2 * names) want *= 2;
    if (want > slots_.size()) rehash(want);
  }

  /// The entry of `name`, created empty (std::nullopt, inserted = true) when new.
  std::pair<std::optional<uint32_t>*, bool> findOrInsert(std::string_view name) {
    if (name.empty() || name.size() >= IFNAMSIZ) {
      auto [it, inserted] = long_.try_emplace(std::string(name));
      return {&it->second, inserted};
    }
    if (2 * (used_ + 1) > slots_.size()) rehash(slots_.empty() ? 16 : 2 * slots_.size());
    Slot& slot = probe(slots_, name);
    if (slot.name[0] != '\0') return {&slot.value, false};
    std::memcpy(slot.name, name.data(), name.size());  // the rest of the slot is already zero
    ++used_;
    return {&slot.value, true};
  }

 private:
  struct Slot {
    char name[IFNAMSIZ] = {};  ///< NUL-padded; "" marks a free slot (no device is named "")
    std::optional<uint32_t> value;
  };

  static std::size_t hashOf(std::string_view name) { return std::hash<std::string_view>{}(name); }

  /// The slot holding `name`, or the free slot where it belongs (linear probing).
  static Slot& probe(std::vector<Slot>& slots, std::string_view name) {
    std::size_t mask = slots.size() - 1;
    for (std::size_t i = hashOf(name) & mask;; i = (i + 1) & mask) {
      Slot& s = slots[i];
      if (s.name[0] == '\0' || (s.name[name.size()] == '\0' && std::memcmp(s.name, name.data(), name.size()) == 0))
        return s;
    }
  }

  void rehash(std::size_t size) {
    std::vector<Slot> bigger(size);
    for (const Slot& s : slots_)
      if (s.name[0] != '\0') probe(bigger, std::string_view(s.name)) = s;
    slots_.swap(bigger);
  }

  std::vector<Slot> slots_;
  std::size_t used_ = 0;
  std::unordered_map<std::string, std::optional<uint32_t>> long_;
};

}  // namespace fastlink::cli
