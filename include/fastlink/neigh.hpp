// Neighbours (ARP for IPv4, neighbour discovery for IPv6): typed NeighInfo, the mockable
// INeighApi, and request builders for batches.
#pragma once

#include <concepts>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fastlink/raw_attributes.hpp"
#include "fastlink/request.hpp"
#include "fastlink/types.hpp"
#include "fastlink/view_run.hpp"

namespace fastlink {

class NeighView;

/// Neighbour unreachability detection states (`nud STATE`). The kernel reports one state per
/// entry; a NeighFilter can select several (they are bits).
enum class NeighState : uint16_t {
  None = 0x00,
  Incomplete = 0x01,
  Reachable = 0x02,
  Stale = 0x04,
  Delay = 0x08,
  Probe = 0x10,
  Failed = 0x20,
  Noarp = 0x40,
  Permanent = 0x80,
};

/// The iproute2 word of a state ("PERMANENT", "STALE", ...); several bits are joined with ','.
std::string neighStateName(NeighState state);
/// Parses an iproute2 `nud` word (case-insensitive: permanent, noarp, reachable, stale, none,
/// incomplete, delay, probe, failed). Throws Error(EINVAL) for anything else.
NeighState parseNeighState(std::string_view word);

/// One neighbour entry. Every field is optional: an unset field is never sent, and a field the
/// kernel did not report stays unset.
///   NeighInfo(IpAddress::parse("10.0.0.2"), "v0").setLladdr(mac).setState(NeighState::Permanent)
struct NeighInfo {
  NeighInfo() = default;
  NeighInfo(IpAddress dst, Ifref dev) : dst(dst), dev(std::move(dev)) {}

  std::optional<IpAddress> dst;     ///< the neighbour's address (sets the family)
  std::optional<Ifref> dev;         ///< reported as an index
  std::optional<MacAddress> lladdr; ///< link-layer address
  /// Adds and replaces without a state send `permanent`, like `ip neigh add`.
  std::optional<NeighState> state;
  std::optional<bool> router;       ///< NTF_ROUTER (IPv6 `router`)
  std::optional<bool> proxy;        ///< a proxy entry (`ip neigh add proxy ADDR dev DEV`)
  std::optional<bool> externLearn;  ///< learned by an external control plane (`extern_learn`)
  std::optional<uint8_t> protocol;  ///< originator of the entry (`protocol N`)

  // Reported only.
  std::optional<uint8_t> flags;     ///< the raw NTF_* bits of the entry
  std::optional<uint32_t> probes;
  std::optional<uint32_t> confirmedAgo;  ///< centiseconds since last confirmed
  std::optional<uint32_t> usedAgo;       ///< centiseconds since last used
  std::optional<uint32_t> updatedAgo;    ///< centiseconds since last updated
  std::optional<uint32_t> refcnt;
  RawAttributes unknown;            ///< attributes not decoded above

  NeighInfo& setDst(IpAddress v) { dst = v; return *this; }
  NeighInfo& setDev(Ifref v) { dev = std::move(v); return *this; }
  NeighInfo& setLladdr(MacAddress v) { lladdr = v; return *this; }
  NeighInfo& setState(NeighState v) { state = v; return *this; }
  NeighInfo& setRouter(bool v) { router = v; return *this; }
  NeighInfo& setProxy(bool v) { proxy = v; return *this; }
  NeighInfo& setExternLearn(bool v) { externLearn = v; return *this; }
  NeighInfo& setProtocol(uint8_t v) { protocol = v; return *this; }

  bool isProxy() const { return proxy.value_or(false); }
  bool isRouter() const { return router.value_or(false); }
  /// The device's ifindex as reported (0 when unknown).
  uint32_t devIndex() const { return dev && dev->isIndex() ? dev->index() : 0; }
};

/// Selects entries in state NONE in NeighFilter::stateMask (NONE has no bit of its own; iproute2
/// uses the same 0x100).
inline constexpr uint16_t kNeighStateNoneBit = 0x100;

/// Which neighbours `list` returns. Device and master are filtered in the kernel (NDA_IFINDEX,
/// NDA_MASTER with strict checking), proxy entries are a separate kernel table; family in the
/// kernel for v4-only or v6-only; states in user space (the kernel has no state filter).
struct NeighFilter {
  std::optional<IpAddress::Family> family;
  std::optional<Ifref> dev;
  std::optional<Ifref> master;
  bool proxy = false;                ///< list the proxy table instead of the neighbour table
  /// OR of NeighState bits (and kNeighStateNoneBit for entries in state NONE); unset = every state.
  std::optional<uint16_t> stateMask;

  NeighFilter& setFamily(IpAddress::Family v) { family = v; return *this; }
  NeighFilter& setDev(Ifref v) { dev = std::move(v); return *this; }
  NeighFilter& setMaster(Ifref v) { master = std::move(v); return *this; }
  NeighFilter& setProxy(bool v) { proxy = v; return *this; }
  NeighFilter& setStateMask(uint16_t v) { stateMask = v; return *this; }
  NeighFilter& addState(NeighState v) {
    uint16_t bit = v == NeighState::None ? kNeighStateNoneBit : static_cast<uint16_t>(v);
    stateMask = static_cast<uint16_t>(stateMask.value_or(0) | bit);
    return *this;
  }
};

/// Builds neighbour requests without sending them, for batches. `dev` must be an ifindex here
/// (NeighApi resolves names). Throws fastlink::Error (EINVAL) on bad input; nothing is sent.
struct NeighRequests {
  /// Equivalent to: ip neigh add ADDR [lladdr MAC] dev DEV [nud STATE] [router] (EEXIST if it exists)
  ///            or: ip neigh add proxy ADDR dev DEV (when neigh.proxy)
  static Request add(const NeighInfo& neigh);
  /// Equivalent to: ip neigh replace ADDR [lladdr MAC] dev DEV [nud STATE] [router]
  static Request replace(const NeighInfo& neigh);
  /// Equivalent to: ip neigh change ADDR [lladdr MAC] dev DEV [nud STATE] (ENOENT if missing)
  static Request change(const NeighInfo& neigh);
  /// Equivalent to: ip neigh del [proxy] ADDR dev DEV
  static Request del(const NeighInfo& neigh);
};

/// The neighbour operations, as an interface so that users can mock them (GoogleMock).
class INeighApi {
 public:
  virtual ~INeighApi() = default;
  /// Equivalent to: ip neigh add ADDR lladdr MAC dev DEV nud STATE (EEXIST if it exists)
  virtual void add(const NeighInfo& neigh) = 0;
  /// Equivalent to: ip neigh replace ADDR lladdr MAC dev DEV nud STATE
  virtual void replace(const NeighInfo& neigh) = 0;
  /// Equivalent to: ip neigh change ADDR lladdr MAC dev DEV nud STATE
  virtual void change(const NeighInfo& neigh) = 0;
  /// Equivalent to: ip neigh del ADDR dev DEV (ip neigh del proxy ADDR dev DEV)
  virtual void del(const NeighInfo& neigh) = 0;
  /// Equivalent to: ip neigh get ADDR dev DEV (ip neigh get proxy ADDR dev DEV). Throws
  /// Error(ENOENT) when there is no such entry.
  virtual NeighInfo get(const IpAddress& dst, const Ifref& dev, bool proxy = false) = 0;
  /// Like get, but std::nullopt when there is no such entry.
  virtual std::optional<NeighInfo> find(const IpAddress& dst, const Ifref& dev, bool proxy = false) = 0;
  /// Equivalent to: ip neigh show [proxy] [dev DEV] [master M] [nud all]
  virtual std::vector<NeighInfo> list(const NeighFilter& filter = {}) = 0;
  /// Streams the dump to `each` (constant memory); `restart` is called before an interrupted
  /// dump is restarted.
  virtual void forEach(const NeighFilter& filter, const std::function<void(const NeighInfo&)>& each,
                       const std::function<void()>& restart = {}) = 0;
  /// Equivalent to: ip neigh flush [dev DEV] — deletes the entries the filter selects (without a
  /// state mask: every entry but permanent and noarp ones, like iproute2). Returns how many
  /// were deleted; entries that vanished meanwhile are not errors.
  virtual std::size_t flush(const NeighFilter& filter) = 0;
};

/// The kernel-backed INeighApi. Obtain it from Netlink::neighbours().
class NeighApi final : public INeighApi {
 public:
  void add(const NeighInfo& neigh) override;
  void replace(const NeighInfo& neigh) override;
  void change(const NeighInfo& neigh) override;
  void del(const NeighInfo& neigh) override;
  NeighInfo get(const IpAddress& dst, const Ifref& dev, bool proxy = false) override;
  std::optional<NeighInfo> find(const IpAddress& dst, const Ifref& dev, bool proxy = false) override;
  std::vector<NeighInfo> list(const NeighFilter& filter = {}) override;
  void forEach(const NeighFilter& filter, const std::function<void(const NeighInfo&)>& each,
               const std::function<void()>& restart = {}) override;
  /// The dump as views over the receive buffer (fastlink/neigh_view.hpp): nothing decoded or allocated
  /// until an accessor is called; each view is valid during its call only (toInfo() to keep one).
  void forEach(const NeighFilter& filter, const std::function<void(const NeighView&)>& each,
               const std::function<void()>& restart = {});
  /// The same for any callable taking a NeighView (a lambda): the loop over each datagram's
  /// messages is instantiated here with the callback inlined, no std::function per message.
  template <class F>
    requires std::invocable<F&, const NeighView&>
  void forEach(const NeighFilter& filter, F&& each, const std::function<void()>& restart = {}) {
    auto run = detail::viewRun<NeighView>(filter, each);
    forEachRun(filter, detail::RunSink(run), restart);
  }
  std::size_t flush(const NeighFilter& filter) override;

 private:
  friend class Netlink;  // built by its accessor on Netlink, the one way in
  explicit NeighApi(core::Engine& engine) : engine_(engine) {}
  void forEachRun(const NeighFilter& filter, detail::RunSink sink, const std::function<void()>& restart);
  core::Engine& engine_;
};

}  // namespace fastlink

// The view type of forEach above, complete wherever this header is included.
#include "fastlink/neigh_view.hpp"
