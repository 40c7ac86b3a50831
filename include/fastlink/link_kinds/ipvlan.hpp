// Options of `ip link add link DEV NAME type ipvlan ...` (LinkInfo::kindOptions<IpvlanInfo>()).
// The lower device is LinkInfo::parent (`link DEV`). Mode and isolation belong to the lower device:
// setting them on one ipvlan changes them for every ipvlan on the same device (kernel semantics).
#pragma once

#include <cstdint>
#include <optional>

namespace fastlink {

enum class IpvlanMode : uint16_t { L2 = 0, L3 = 1, L3s = 2 };

/// How slaves of one lower device reach each other: bridge (default), private (not at all),
/// vepa (through the external switch).
enum class IpvlanIsolation : uint16_t { Bridge = 0, Private = 1, Vepa = 2 };

struct IpvlanInfo {
  std::optional<IpvlanMode> mode;
  std::optional<IpvlanIsolation> isolation;
  IpvlanInfo& setMode(IpvlanMode v) { mode = v; return *this; }
  IpvlanInfo& setIsolation(IpvlanIsolation v) { isolation = v; return *this; }
};

}  // namespace fastlink
