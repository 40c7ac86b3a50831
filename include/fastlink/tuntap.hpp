// TUN/TAP devices: create and delete persistent devices, list them with their flags and queue
// counts, and open the queues of one for a program that serves it.
//
// Devices are created with ioctls on /dev/net/tun (the kernel refuses rtnetlink creation of
// tun/tap) opened inside the Netlink's namespace; they are read through rtnetlink's `tun` link
// info (LinkInfo::kindOptions<TunTapInfo>()), and deleted with RTM_DELLINK.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fastlink/netns.hpp"

namespace fastlink {

class Netlink;
class ILinkApi;

enum class TunTapMode : uint8_t {
  Tun,  ///< layer 3: IP packets
  Tap,  ///< layer 2: Ethernet frames
};

/// "tun" or "tap".
std::string_view tunTapModeName(TunTapMode mode);

/// A TUN/TAP device. On add, unset fields mean the kernel's default (no packet-information header,
/// no vnet header, one queue, no owner or group). On read, every field the kernel reported is set.
/// This is also the `tun` link kind's options type: LinkInfo::kindOptions<TunTapInfo>() (there,
/// name and index are left to LinkInfo).
struct TunTapInfo {
  /// Empty on add: the kernel picks "tunN" / "tapN" (a name with "%d" is a pattern too).
  std::string name;
  std::optional<uint32_t> index;
  std::optional<TunTapMode> mode;
  std::optional<bool> pi;          ///< packet-information header before each packet (`pi`)
  std::optional<bool> vnetHdr;     ///< virtio-net header before each packet (`vnet_hdr`)
  std::optional<bool> multiQueue;  ///< several queues (fds) may attach (`multi_queue`)
  std::optional<bool> oneQueue;    ///< legacy flag, ignored by the kernel since 3.8 (`one_queue`)
  std::optional<bool> napi;        ///< IFF_NAPI: receive through NAPI (not settable by `ip`)
  std::optional<bool> napiFrags;   ///< IFF_NAPI_FRAGS
  std::optional<bool> persist;     ///< outlives its last fd (tuntap add always sets it)
  /// IFF_BACKPRESSURE (`backpressure`): when the reader falls behind, stop the device's queue
  /// before tun's ring fills, so the qdisc holds the backlog and chooses what to drop, instead of
  /// tail-dropping at the ring. Opt-in per device; only kernels that advertise it in
  /// TUNGETFEATURES have it (add refuses otherwise, see TunTapApi::add).
  std::optional<bool> backpressure;
  std::optional<uint32_t> owner;   ///< uid allowed to attach without CAP_NET_ADMIN
  std::optional<uint32_t> group;   ///< gid allowed to attach without CAP_NET_ADMIN
  // Reported only.
  std::optional<uint32_t> numQueues;          ///< queues (fds) attached now
  std::optional<uint32_t> numDisabledQueues;  ///< queues detached with TUNSETQUEUE
  /// Flag bits fastlink does not name (as /sys/class/net/NAME/tun_flags shows them).
  std::optional<uint32_t> otherFlags;
  /// One of the flags above came from /sys/class/net/NAME (rtnetlink's `tun` link info does not
  /// carry one_queue and napi, and kernels before 4.15 give no link info at all).
  bool fromSysfs = false;

  TunTapInfo() = default;
  TunTapInfo(std::string name, TunTapMode mode) : name(std::move(name)), mode(mode) {}

  TunTapInfo& setName(std::string v) { name = std::move(v); return *this; }
  TunTapInfo& setMode(TunTapMode v) { mode = v; return *this; }
  TunTapInfo& setPi(bool v) { pi = v; return *this; }
  TunTapInfo& setVnetHdr(bool v) { vnetHdr = v; return *this; }
  TunTapInfo& setMultiQueue(bool v) { multiQueue = v; return *this; }
  TunTapInfo& setOneQueue(bool v) { oneQueue = v; return *this; }
  TunTapInfo& setNapi(bool v) { napi = v; return *this; }
  TunTapInfo& setNapiFrags(bool v) { napiFrags = v; return *this; }
  TunTapInfo& setBackpressure(bool v) { backpressure = v; return *this; }
  TunTapInfo& setOwner(uint32_t uid) { owner = uid; return *this; }
  TunTapInfo& setGroup(uint32_t gid) { group = gid; return *this; }
  /// A user by name or number ("nobody", "1000"). Throws Error(EINVAL) naming it when no such
  /// user exists; a number is taken as is (the kernel accepts any uid).
  TunTapInfo& setOwner(std::string_view nameOrId);
  /// A group by name or number; throws Error(EINVAL) when no such group exists.
  TunTapInfo& setGroup(std::string_view nameOrId);
};

/// One queue (an open /dev/net/tun file attached to a device): read packets the kernel sends
/// through the device, write packets it receives. Closing it detaches the queue. Movable, not
/// copyable.
class TunTapQueue {
 public:
  TunTapQueue() = default;
  TunTapQueue(int fd, std::string device) : fd_(fd), device_(std::move(device)) {}
  ~TunTapQueue();
  TunTapQueue(TunTapQueue&& other) noexcept;
  TunTapQueue& operator=(TunTapQueue&& other) noexcept;
  TunTapQueue(const TunTapQueue&) = delete;
  TunTapQueue& operator=(const TunTapQueue&) = delete;

  int fd() const { return fd_; }
  const std::string& device() const { return device_; }
  bool isOpen() const { return fd_ >= 0; }
  /// Attached queues receive packets; a detached one stays open but gets none (multi_queue only).
  bool attached() const { return attached_; }
  /// TUNSETQUEUE IFF_DETACH_QUEUE. Throws Error (EINVAL on a single-queue device).
  void detach();
  /// TUNSETQUEUE IFF_ATTACH_QUEUE.
  void attach();
  /// Gives up ownership of the fd (the caller closes it).
  int release();
  void close();

 private:
  int fd_ = -1;
  std::string device_;
  bool attached_ = true;
};

struct TunTapQueueOptions {
  bool nonBlocking = true;  ///< O_NONBLOCK on the fd
  /// Attach with IFF_BACKPRESSURE on (or off). Unset: as the device's /sys/class/net/NAME/tun_flags
  /// says, which only a process whose /sys shows the device's namespace can read; elsewhere an
  /// unset value attaches without it, and the first queue's flags replace the device's.
  std::optional<bool> backpressure = std::nullopt;
};

/// TUN/TAP operations, as an interface so callers can mock them (TunTapApi is the real one).
class ITunTapApi {
 public:
  virtual ~ITunTapApi() = default;
  virtual std::string add(const TunTapInfo& device) = 0;
  virtual void del(const std::string& name, std::optional<TunTapMode> mode = std::nullopt) = 0;
  virtual std::vector<TunTapInfo> list() = 0;
  virtual std::optional<TunTapInfo> find(const std::string& name) = 0;
  virtual TunTapInfo get(const std::string& name) = 0;
  virtual TunTapQueue openQueue(const std::string& name, const TunTapQueueOptions& options = {}) = 0;
  virtual std::vector<TunTapQueue> openQueues(const std::string& name, unsigned count,
                                              const TunTapQueueOptions& options = {}) = 0;
};

/// TUN/TAP devices in a Netlink's namespace: `nl.tuntap()`. Its link API reads and deletes;
/// the ioctls open /dev/net/tun in the Netlink's namespace.
class TunTapApi final : public ITunTapApi {
 public:
  /// Creates a persistent device and returns its name (the kernel's pick when none was given).
  /// Needs a mode. Fails with EBUSY ("device NAME already exists") when the name is taken, and
  /// then changes nothing; if setting the owner, group or persistence fails, the half-made
  /// device disappears with its fd. With backpressure, the kernel must list IFF_BACKPRESSURE in
  /// TUNGETFEATURES (tun silently ignores flags it does not know): otherwise EOPNOTSUPP naming
  /// the running kernel, before anything is created.
  /// Equivalent to: ip tuntap add dev NAME mode tun|tap [user U] [group G] [one_queue] [pi]
  ///                [vnet_hdr] [multi_queue] (backpressure: no ip equivalent)
  std::string add(const TunTapInfo& device) override;
  /// Deletes a tun/tap device (RTM_DELLINK), also one a program has attached. Refuses devices of
  /// another kind (EINVAL), and of the other mode when `mode` is given. ENODEV when missing.
  /// Equivalent to: ip tuntap del dev NAME mode tun|tap
  void del(const std::string& name, std::optional<TunTapMode> mode = std::nullopt) override;
  /// Every tun/tap device (one kind-filtered link dump).
  /// Equivalent to: ip tuntap show
  std::vector<TunTapInfo> list() override;
  /// The device, or nullopt when there is none of that name (or it is not tun/tap).
  /// Equivalent to: ip tuntap show dev NAME (fastlink's filter; ip 6.1 ignores `dev`)
  std::optional<TunTapInfo> find(const std::string& name) override;
  /// The device; throws Error(ENODEV) when missing, Error(EINVAL) when not a tun/tap device.
  /// Equivalent to: ip -d link show dev NAME (its `tun` link info)
  TunTapInfo get(const std::string& name) override;

  /// Opens one more queue of an existing device with the device's own flags (mode, pi,
  /// vnet_hdr, multi_queue), so attaching never changes how the device frames packets. A
  /// single-queue device takes one queue (EBUSY for a second).
  /// Equivalent to: what qemu/openvpn do with TUNSETIFF on /dev/net/tun (no ip command)
  TunTapQueue openQueue(const std::string& name, const TunTapQueueOptions& options = {}) override;
  /// Opens `count` queues of a multi_queue device (all or none: on failure the opened ones close).
  std::vector<TunTapQueue> openQueues(const std::string& name, unsigned count,
                                      const TunTapQueueOptions& options = {}) override;

 private:
  friend class Netlink;  // built by its accessor on Netlink, the one way in
  /// What Netlink::tuntap() builds it on: its links and the namespace it works in (unset: this
  /// process's).
  TunTapApi(ILinkApi& links, std::optional<Netns> netns) : links_(links), netns_(std::move(netns)) {}
  ILinkApi& links_;
  std::optional<Netns> netns_;
};

}  // namespace fastlink
