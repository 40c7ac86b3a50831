// The one ifindex -> device name cache of the CLI: what a listing prints for "dev N" (route, neigh,
// tc, fdb, nexthop), the master and lower devices `link show` names (with their flags, for
// M-DOWN), and what the monitor knows about each device (kept up to date by link events, as
// iproute2's ll_map cache).
//
// Stored by ifindex, which the kernel hands out densely from 1: a chunk of 256 devices per 256
// indexes, allocated when one of them is first seen, so a lookup is two loads and an insert
// allocates nothing (names fit std::string's inline room: IFNAMSIZ is 16). A node-based map
// made one node per device, ~300 instructions each to insert and free (10,004 devices: ~5.6 M
// of `-j link show`'s 58.5 M, callgrind). Indexes past kDenseIndexes (a user can pick any
// index) go to a map. Entries never move: a name's reference stays valid as devices are added.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fastlink/link.hpp"

namespace fastlink::cli {

class DeviceNames {
 public:
  /// Finds a device the cache does not know (std::nullopt: there is none).
  using Lookup = std::function<std::optional<LinkInfo>(uint32_t)>;
  explicit DeviceNames(Lookup lookup = {}) : lookup_(std::move(lookup)) {}

  /// Reads every device of the namespace by one link dump, streamed (a restarted dump starts
  /// over). Call it before a dump of your own: a lookup inside a dump's callback would start a
  /// second dump on the same socket.
  void load(LinkApi& links);
  /// Takes in a device as a link event (or a dump) shows it.
  void remember(const LinkInfo& link);
  void remember(uint32_t index, std::string_view name, uint32_t flags);
  /// Forgets every device (a restarted dump).
  void clear() {
    chunks_.clear();
    sparse_.clear();
  }

  /// Whether the device has been seen.
  bool knows(uint32_t index) const { return seen(index) != nullptr; }
  /// The device's name, nullptr when unknown. Never looks up.
  const std::string* find(uint32_t index) const;
  /// The device's name, else its index in decimal (what ip, tc and bridge print for a device
  /// they cannot name). Never looks up.
  std::string nameOrIndex(uint32_t index) const;
  /// The device's name, looked up once when unknown; "if<N>" when it does not exist (ip's word
  /// for a device in another namespace).
  const std::string& name(uint32_t index);
  /// IFF_* flags as last seen (0 when unknown).
  uint32_t flags(uint32_t index) const;

 private:
  struct Device {
    std::string name;
    uint32_t flags = 0;
    bool known = false;
  };
  static constexpr uint32_t kChunkBits = 8;
  static constexpr uint32_t kDenseIndexes = 1u << 20;  ///< at most 4,096 chunk pointers
  using Chunk = std::array<Device, std::size_t{1} << kChunkBits>;

  /// The device's entry if it has been seen, else nullptr.
  const Device* seen(uint32_t index) const {
    if (index < kDenseIndexes) {
      uint32_t chunk = index >> kChunkBits;
      if (chunk >= chunks_.size() || !chunks_[chunk]) return nullptr;
      const Device& d = (*chunks_[chunk])[index & ((1u << kChunkBits) - 1)];
      return d.known ? &d : nullptr;
    }
    auto it = sparse_.find(index);
    return it != sparse_.end() && it->second.known ? &it->second : nullptr;
  }
  /// The device's entry, made (unknown) if missing.
  Device& slot(uint32_t index);

  Lookup lookup_;
  std::vector<std::unique_ptr<Chunk>> chunks_;
  std::unordered_map<uint32_t, Device> sparse_;
};

}  // namespace fastlink::cli
