// NAPI instances of a device over the `netdev` generic netlink family: which interrupt and
// kernel thread each one has, and threaded polling per NAPI instance where the kernel offers
// it (NETDEV_CMD_NAPI_SET with the threaded attribute, Linux 6.17+). On older kernels
// SteeringApi::setThreaded (/sys/class/net/DEV/threaded) switches all of a device's NAPIs.
//
//   fastlink::INetdevApi& netdev = nl.netdev();
//   for (const auto& n : netdev.list(ifindex)) ...   // n.id, n.irq, n.pid, n.threaded
//   netdev.setThreaded(n.id, true);
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "fastlink/genl.hpp"

namespace fastlink {

class Netlink;

struct NapiInfo {
  uint32_t id = 0;
  uint32_t ifindex = 0;
  std::optional<uint32_t> irq;       ///< the interrupt that schedules it, if the driver says
  std::optional<uint32_t> pid;       ///< its kernel thread, when threaded
  std::optional<bool> threaded;      ///< unset on kernels without the attribute
  friend bool operator==(const NapiInfo&, const NapiInfo&) = default;
};

/// The netdev generic netlink family (Linux 6.3+): its NAPI instances. An interface, so that
/// code using it can be tested with a double; NetdevApi (Netlink::netdev()) is the kernel's.
class INetdevApi {
 public:
  virtual ~INetdevApi() = default;
  /// The NAPI instances of the device with `ifindex` (none for a device that polls none,
  /// e.g. a veth without GRO or XDP). Error(EOPNOTSUPP) when the kernel has no netdev family.
  /// Equivalent to: ynl --family netdev --dump napi-get --json '{"ifindex": N}'
  virtual std::vector<NapiInfo> list(uint32_t ifindex) = 0;
  /// Switches one NAPI instance to (or from) its own kernel thread, then reads it back.
  /// Error(EOPNOTSUPP) on kernels whose netdev family has no NAPI_SET or no threaded attribute.
  /// Equivalent to: ynl --family netdev --do napi-set --json '{"id": N, "threaded": "enabled"}'
  virtual void setThreaded(uint32_t napiId, bool on) = 0;
};

/// The netdev family over a Netlink's generic netlink socket: `nl.netdev()`.
class NetdevApi final : public INetdevApi, public GenlFamilyApi {
 public:
  std::vector<NapiInfo> list(uint32_t ifindex) override;
  void setThreaded(uint32_t napiId, bool on) override;

 private:
  friend class Netlink;  // built by its accessor on Netlink, the one way in
  /// What Netlink::netdev() builds it on: the family cache and the generic netlink socket.
  NetdevApi(GenlApi& families, core::Engine& engine);
};

}  // namespace fastlink
