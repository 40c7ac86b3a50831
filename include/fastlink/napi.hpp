// NAPI instances of a device over the `netdev` generic netlink family: which interrupt and
// kernel thread each one has, and threaded polling per NAPI instance where the kernel offers
// it (NETDEV_CMD_NAPI_SET with the threaded attribute, Linux 6.17+). On older kernels
// SteeringApi::setThreaded (/sys/class/net/DEV/threaded) switches all of a device's NAPIs.
//
//   fastlink::NapiApi napi(nl);
//   for (const auto& n : napi.list(ifindex)) ...   // n.id, n.irq, n.pid, n.threaded
//   napi.setThreaded(n.id, true);
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

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

class NapiApi {
 public:
  explicit NapiApi(Netlink& netlink);
  /// The NAPI instances of the device with `ifindex` (none for a device that polls none,
  /// e.g. a veth without GRO or XDP). Error(ENOENT) when the kernel has no netdev family.
  /// Equivalent to: ynl --family netdev --dump napi-get --json '{"ifindex": N}'
  std::vector<NapiInfo> list(uint32_t ifindex);
  /// Switches one NAPI instance to (or from) its own kernel thread, then reads it back.
  /// Error(EOPNOTSUPP) on kernels whose netdev family has no NAPI_SET or no threaded attribute.
  /// Equivalent to: ynl --family netdev --do napi-set --json '{"id": N, "threaded": "enabled"}'
  void setThreaded(uint32_t napiId, bool on);

 private:
  Netlink& netlink_;
};

}  // namespace fastlink
