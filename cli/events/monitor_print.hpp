// Printing events as `ip monitor` prints them (text), or as one JSON object per line.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>

#include "fastlink/events.hpp"
#include "kit/writer.hpp"

namespace fastlink::cli {

/// What the printers need to know about devices: name and flags by ifindex, as of the last
/// link event or lookup (iproute2 keeps the same cache).
class DeviceNames {
 public:
  using Lookup = std::function<std::optional<LinkInfo>(uint32_t)>;
  explicit DeviceNames(Lookup lookup) : lookup_(std::move(lookup)) {}
  void remember(const LinkInfo& link);
  /// The device's name, looked up once when unknown; "if<N>" when it does not exist.
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

/// Appends the event's text (without the [LINK]-style banner and nsid prefix), one or more
/// lines, each ending in '\n'.
void appendEventText(std::string& out, const Event& e, DeviceNames& names);
/// Writes the event as one JSON object (the caller ends the element): "event", "object", the
/// fields of `fastlink -j OBJECT show`, and "nsid" when set.
void writeEventJson(JsonOut& json, const Event& e, DeviceNames& names);

}  // namespace fastlink::cli
