// Interface addresses: typed AddrInfo, the mockable IAddrApi, request builders for batches.
#pragma once

#include <concepts>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "fastlink/link.hpp"
#include "fastlink/prefix.hpp"
#include "fastlink/request.hpp"
#include "fastlink/types.hpp"
#include "fastlink/view_run.hpp"

namespace fastlink {

class AddrView;

/// Address flags (`ip addr add ... nodad noprefixroute`), the kernel's IFA_F_* bits.
enum class AddrFlag : uint32_t {
  Secondary = 0x01,  ///< also "temporary" for IPv6 privacy addresses
  Nodad = 0x02,
  Optimistic = 0x04,
  Dadfailed = 0x08,
  Home = 0x10,  ///< home address (Mobile IPv6)
  Deprecated = 0x20,
  Tentative = 0x40,
  Permanent = 0x80,
  Mngtmpaddr = 0x100,
  Noprefixroute = 0x200,
  Autojoin = 0x400,
  StablePrivacy = 0x800,
};

/// Lifetime value meaning "forever" (`valid_lft forever`).
inline constexpr uint32_t kLifetimeForever = 0xffffffffu;

/// An address of an interface. Every field is optional; an unset field is never sent.
///   AddrInfo(Prefix::parse("10.0.0.1/24"), "v0").setLabel("v0:web").setNodad()
struct AddrInfo {
  AddrInfo() = default;
  AddrInfo(Prefix address, Ifref dev) : address(address), dev(std::move(dev)) {}

  std::optional<Prefix> address;   ///< the local address and prefix length (10.0.0.1/24)
  std::optional<Ifref> dev;        ///< required to add/del; reported as an index
  std::optional<IpAddress> peer;   ///< point-to-point peer (`peer P`)
  std::optional<IpAddress> broadcast;  ///< IPv4 only (`broadcast B`; see broadcastFor)
  std::optional<std::string> label;    ///< IPv4 only; must start with the device name
  std::optional<Scope> scope;
  std::optional<uint32_t> flags;       ///< AddrFlag bits
  std::optional<uint32_t> validLifetime;      ///< seconds, kLifetimeForever = forever
  std::optional<uint32_t> preferredLifetime;  ///< seconds, kLifetimeForever = forever
  std::optional<uint32_t> metric;  ///< metric of the prefix route the kernel adds (`metric N`)

  // Reported only.
  std::optional<IpAddress> anycast;
  RawAttributes unknown;

  AddrInfo& setAddress(Prefix v) { address = v; return *this; }
  AddrInfo& setDev(Ifref v) { dev = std::move(v); return *this; }
  AddrInfo& setPeer(IpAddress v) { peer = v; return *this; }
  AddrInfo& setBroadcast(IpAddress v) { broadcast = v; return *this; }
  /// `broadcast +`: the last address of the prefix.
  AddrInfo& setBroadcastAuto() { broadcast = address ? std::optional(address->lastAddress()) : std::nullopt; return *this; }
  AddrInfo& setLabel(std::string v) { label = std::move(v); return *this; }
  AddrInfo& setScope(Scope v) { scope = v; return *this; }
  AddrInfo& setFlag(AddrFlag f) { flags = flags.value_or(0) | static_cast<uint32_t>(f); return *this; }
  AddrInfo& setNodad() { return setFlag(AddrFlag::Nodad); }
  AddrInfo& setNoprefixroute() { return setFlag(AddrFlag::Noprefixroute); }
  AddrInfo& setValidLifetime(uint32_t v) { validLifetime = v; return *this; }
  AddrInfo& setPreferredLifetime(uint32_t v) { preferredLifetime = v; return *this; }

  bool has(AddrFlag f) const { return flags && (*flags & static_cast<uint32_t>(f)) != 0; }
  uint32_t devIndex() const { return dev && dev->isIndex() ? dev->index() : 0; }
};

/// Which addresses `list` returns. Device and family are filtered by the kernel (strict
/// checking: ifa_index and ifa_family of the dump request); scope and label in user space.
struct AddrFilter {
  std::optional<Ifref> dev;
  std::optional<IpAddress::Family> family;
  std::optional<Scope> scope;
  std::optional<std::string> label;

  AddrFilter& setDev(Ifref v) { dev = std::move(v); return *this; }
  AddrFilter& setFamily(IpAddress::Family v) { family = v; return *this; }
  AddrFilter& setScope(Scope v) { scope = v; return *this; }
  AddrFilter& setLabel(std::string v) { label = std::move(v); return *this; }
};

/// Builds address requests without sending them. The device must be an ifindex here
/// (AddrApi resolves names). Throws fastlink::Error (EINVAL) on bad input.
struct AddrRequests {
  /// Equivalent to: ip addr add ADDR/LEN dev D [peer P] [broadcast B] [label L] [scope S] ...
  static Request add(const AddrInfo& addr);
  /// Equivalent to: ip addr replace ADDR/LEN dev D ... (create, or change lifetimes/flags)
  static Request replace(const AddrInfo& addr);
  /// Equivalent to: ip addr del ADDR/LEN dev D
  static Request del(const AddrInfo& addr);
};

/// The address operations, as an interface so that users can mock them.
class IAddrApi {
 public:
  virtual ~IAddrApi() = default;
  /// Equivalent to: ip addr add ADDR/LEN dev D ... (EEXIST if present)
  virtual void add(const AddrInfo& addr) = 0;
  /// Equivalent to: ip addr replace ADDR/LEN dev D ...
  virtual void replace(const AddrInfo& addr) = 0;
  /// Equivalent to: ip addr del ADDR/LEN dev D (EADDRNOTAVAIL if absent)
  virtual void del(const AddrInfo& addr) = 0;
  /// Equivalent to: ip addr show [dev D] [-4|-6] [scope S] [label L]
  virtual std::vector<AddrInfo> list(const AddrFilter& filter = {}) = 0;
  /// Streams the dump in constant memory; `restart` is called if the kernel interrupts it.
  virtual void forEach(const AddrFilter& filter, const std::function<void(const AddrInfo&)>& each,
                       const std::function<void()>& restart = {}) = 0;
  /// Equivalent to: ip addr flush dev D [-4|-6] [scope S] — one pipelined batch; returns how
  /// many addresses were deleted.
  virtual std::size_t flush(const AddrFilter& filter) = 0;
};

/// The kernel-backed IAddrApi. Obtain it from Netlink::addresses().
class AddrApi final : public IAddrApi {
 public:
  void add(const AddrInfo& addr) override;
  void replace(const AddrInfo& addr) override;
  void del(const AddrInfo& addr) override;
  std::vector<AddrInfo> list(const AddrFilter& filter = {}) override;
  void forEach(const AddrFilter& filter, const std::function<void(const AddrInfo&)>& each,
               const std::function<void()>& restart = {}) override;
  /// The dump as views over the receive buffer (fastlink/addr_view.hpp): nothing decoded or allocated
  /// until an accessor is called; each view is valid during its call only (toInfo() to keep one).
  void forEach(const AddrFilter& filter, const std::function<void(const AddrView&)>& each,
               const std::function<void()>& restart = {});
  /// The same for any callable taking a AddrView (a lambda): the loop over each datagram's
  /// messages is instantiated here with the callback inlined, no std::function per message.
  template <class F>
    requires std::invocable<F&, const AddrView&>
  void forEach(const AddrFilter& filter, F&& each, const std::function<void()>& restart = {}) {
    auto run = detail::viewRun<AddrView>(filter, each);
    forEachRun(filter, detail::RunSink(run), restart);
  }
  std::size_t flush(const AddrFilter& filter) override;

 private:
  friend class Netlink;  // built by its accessor on Netlink, the one way in
  explicit AddrApi(core::Engine& engine) : engine_(engine) {}
  void forEachRun(const AddrFilter& filter, detail::RunSink sink, const std::function<void()>& restart);
  const AddrInfo& checkLabel(const AddrInfo& addr);
  core::Engine& engine_;
};

}  // namespace fastlink

// The view type of forEach above, complete wherever this header is included.
#include "fastlink/addr_view.hpp"
