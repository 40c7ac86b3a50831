// /dev/net/tun files: opened inside a namespace (a tun/tap device is created in, and attaches to,
// the namespace its file was opened in) and driven with TUNSETIFF and friends.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "fastlink/netns.hpp"
#include "fastlink/tuntap.hpp"

namespace fastlink::tuntap {

/// TUNSETIFF's opt-in flag for qdisc backpressure (uapi <linux/if_tun.h> from the 7.3 cycle;
/// Debian 12's headers predate it, so it is spelled out here).
inline constexpr uint32_t kIffBackpressure = 0x0080;

/// An open /dev/net/tun file; closing it detaches (and, unless persistent, destroys) its device.
class TunFile {
 public:
  /// Opens /dev/net/tun in `netns` (the caller's namespace when unset). Throws fastlink::Error.
  TunFile(const std::optional<Netns>& netns, bool nonBlocking, const std::string& operation);
  ~TunFile();
  TunFile(const TunFile&) = delete;
  TunFile& operator=(const TunFile&) = delete;

  int fd() const { return fd_; }
  int release();

  /// TUNSETIFF: attaches to (or creates) device `name` with IFF_* `flags`; returns the device's
  /// name (the kernel's pick for an empty name). Throws Error with errno and a sentence.
  std::string setIff(const std::string& name, uint32_t flags, const std::string& operation);
  /// TUNGETFEATURES: the IFF_* flags this kernel's TUNSETIFF understands.
  uint32_t features(const std::string& operation);
  /// An integer-argument ioctl (TUNSETOWNER, TUNSETGROUP, TUNSETPERSIST).
  void control(unsigned long request, unsigned long value, const char* what, const std::string& operation);

 private:
  int fd_ = -1;
};

/// The IFF_* flags TUNSETIFF takes for `device` (mode, pi, vnet_hdr, queues, napi).
uint32_t iffFlags(const TunTapInfo& device);

/// Throws Error(EOPNOTSUPP) naming `kernelRelease` when `device` asks for a flag that is not in
/// `features` (what TUNGETFEATURES returned): tun would ignore it and create a device without it.
void requireFeatures(const TunTapInfo& device, uint32_t features, const std::string& kernelRelease,
                     const std::string& operation);

/// uname's release ("6.18.0-1-amd64"), for messages about what the running kernel lacks.
std::string kernelRelease();

/// What /sys/class/net/NAME says about a tun/tap device.
struct SysfsTun {
  uint32_t flags = 0;  ///< tun_flags: IFF_* bits
  std::optional<uint32_t> owner, group;
};

/// Reads /sys/class/net/NAME/{tun_flags,owner,group} if that directory is the device `link`
/// describes: sysfs shows the devices of the namespace it was mounted in, which need not be the
/// Netlink's (a process moved by setns keeps its /sys), so the ifindex, the link type and the
/// address must match. nullopt otherwise.
std::optional<SysfsTun> readSysfsTun(const std::string& name, uint32_t index, uint16_t type,
                                     const std::string& address, const std::string& classNet = "/sys/class/net/");

/// Fills what the kernel's `tun` link info lacks (one_queue, napi, or everything on kernels
/// before 4.15) from sysfs flags.
void mergeSysfs(TunTapInfo& device, const SysfsTun& sysfs);

}  // namespace fastlink::tuntap
