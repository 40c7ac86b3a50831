// The one ifindex -> device name cache of the CLI: what a listing prints for "dev N" (route, neigh,
// tc, fdb, nexthop), the master and lower devices `link show` names (with their flags, for
// M-DOWN), and what the monitor knows about each device (kept up to date by link events, as
// iproute2's ll_map cache).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

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
  void clear() { devices_.clear(); }

  /// Whether the device has been seen.
  bool knows(uint32_t index) const { return devices_.count(index) != 0; }
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
  };
  Lookup lookup_;
  std::unordered_map<uint32_t, Device> devices_;
};

}  // namespace fastlink::cli
