// Which XDP programs a device runs: the part of XDP that a link dump reports (LinkInfo::xdp)
// as well as XdpApi::status. Its own header so that link.hpp need not pull in the loader.
#pragma once

#include <cstdint>

namespace fastlink {

/// Where the program runs. `Auto` lets the kernel choose: the driver's hook when the driver
/// has one, else the generic (skb) hook.
enum class XdpMode {
  Auto,     ///< `ip link set dev X xdp ...`
  Generic,  ///< `xdpgeneric`: after the skb is built; works on every device
  Native,   ///< `xdpdrv`: in the driver, before the skb
  Offload,  ///< `xdpoffload`: on the NIC
};

/// Which program is attached to a device, per mode (0 = none).
struct XdpStatus {
  uint32_t genericProgId = 0;
  uint32_t nativeProgId = 0;
  uint32_t offloadProgId = 0;
  /// The one attached program, or 0 when none (or when several modes are in use: see the ids).
  uint32_t progId = 0;
  bool attached() const { return genericProgId || nativeProgId || offloadProgId; }
  /// Programs attached in more than one mode at once (iproute2's `xdpmulti`).
  bool multi() const { return (genericProgId != 0) + (nativeProgId != 0) + (offloadProgId != 0) > 1; }
  friend bool operator==(const XdpStatus&, const XdpStatus&) = default;
};

}  // namespace fastlink
