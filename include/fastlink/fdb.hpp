// Bridge forwarding database (`bridge fdb`): typed FdbInfo, the mockable IFdbApi, and request
// builders for batches. Entries live on bridge ports (the bridge's table, `master`) or in a
// device's own table (`self`: vxlan remote destinations, a NIC's unicast/multicast filter).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "fastlink/raw_attributes.hpp"
#include "fastlink/request.hpp"
#include "fastlink/types.hpp"

namespace fastlink {

/// How an entry ages (`bridge fdb add ... permanent|static|dynamic`).
enum class FdbState {
  Permanent,  ///< `permanent` / `local`: the bridge's own address, never forwarded out
  Static,     ///< `static`: a fixed entry that does not age
  Dynamic,    ///< `dynamic` (reported: learned or added dynamic, still fresh)
  Stale,      ///< reported only: a dynamic entry that has not been refreshed
};

/// iproute2's word of a state as `bridge fdb show` prints it: "permanent", "static", "" (dynamic), "stale".
std::string fdbStateName(FdbState state);

/// One forwarding-database entry. Every field is optional: an unset field is never sent.
///   FdbInfo(MacAddress::parse("aa:bb:cc:dd:ee:ff"), "v0").setMaster(true).setState(FdbState::Static)
struct FdbInfo {
  FdbInfo() = default;
  FdbInfo(MacAddress mac, Ifref dev) : mac(mac), dev(std::move(dev)) {}

  std::optional<MacAddress> mac;
  std::optional<Ifref> dev;          ///< the port (or vxlan device); reported as an index
  std::optional<uint16_t> vlan;      ///< 1-4094
  /// Which table: the master bridge's (`master`, NTF_MASTER) and/or the device's own (`self`,
  /// NTF_SELF). Requests with neither go to `self`, like `bridge fdb add`. Reported: self is set
  /// for entries of a device's own table; the bridge's entries report masterDev instead.
  std::optional<bool> master;
  std::optional<bool> self;
  /// Adds without a state are permanent, like `bridge fdb add`.
  std::optional<FdbState> state;
  std::optional<bool> sticky;        ///< never roams to another port (needs static or dynamic)
  std::optional<bool> externLearn;   ///< learned by an external control plane (`extern_learn`)
  std::optional<bool> router;        ///< `router` (for vxlan)
  // vxlan remote destinations (`dst IP [port P] [vni N] [src_vni N] [via DEV]`).
  std::optional<IpAddress> dst;
  std::optional<uint16_t> port;      ///< destination UDP port, host byte order
  std::optional<uint32_t> vni;
  std::optional<uint32_t> srcVni;    ///< for collect-metadata (external) vxlan devices
  std::optional<Ifref> via;          ///< outgoing device for the remote

  // Reported only.
  std::optional<uint32_t> masterDev;  ///< ifindex of the bridge holding the entry (NDA_MASTER)
  std::optional<uint8_t> flags;       ///< the raw NTF_* bits
  std::optional<uint16_t> nudState;   ///< the raw NUD_* state
  std::optional<bool> offloaded;
  std::optional<uint32_t> usedAgo;     ///< centiseconds
  std::optional<uint32_t> updatedAgo;  ///< centiseconds
  RawAttributes unknown;

  FdbInfo& setMac(MacAddress v) { mac = v; return *this; }
  FdbInfo& setDev(Ifref v) { dev = std::move(v); return *this; }
  FdbInfo& setVlan(uint16_t v) { vlan = v; return *this; }
  FdbInfo& setMaster(bool v) { master = v; return *this; }
  FdbInfo& setSelf(bool v) { self = v; return *this; }
  FdbInfo& setState(FdbState v) { state = v; return *this; }
  FdbInfo& setSticky(bool v) { sticky = v; return *this; }
  FdbInfo& setExternLearn(bool v) { externLearn = v; return *this; }
  FdbInfo& setRouter(bool v) { router = v; return *this; }
  FdbInfo& setDst(IpAddress v) { dst = v; return *this; }
  FdbInfo& setPort(uint16_t v) { port = v; return *this; }
  FdbInfo& setVni(uint32_t v) { vni = v; return *this; }
  FdbInfo& setSrcVni(uint32_t v) { srcVni = v; return *this; }
  FdbInfo& setVia(Ifref v) { via = std::move(v); return *this; }

  /// The device's ifindex as reported (0 when unknown).
  uint32_t devIndex() const { return dev && dev->isIndex() ? dev->index() : 0; }
};

/// Which entries `list` returns; both filters are applied by the kernel (strict checking):
/// `bridge` (NDA_MASTER) selects the bridge and its ports, `dev` (the header's ifindex) one
/// port or device. Vlan and state are filtered in user space.
struct FdbFilter {
  std::optional<Ifref> bridge;
  std::optional<Ifref> dev;
  std::optional<uint16_t> vlan;

  FdbFilter& setBridge(Ifref v) { bridge = std::move(v); return *this; }
  FdbFilter& setDev(Ifref v) { dev = std::move(v); return *this; }
  FdbFilter& setVlan(uint16_t v) { vlan = v; return *this; }
};

/// Builds FDB requests without sending them, for batches. `dev` and `via` must be ifindexes
/// here (FdbApi resolves names). Throws fastlink::Error (EINVAL) on bad input; nothing is sent.
struct FdbRequests {
  /// Equivalent to: bridge fdb add MAC dev DEV [master|self] [static|dynamic|permanent] [vlan N]
  ///                [dst IP] [vni N] [port P] ... (EEXIST if it exists)
  static Request add(const FdbInfo& entry);
  /// Equivalent to: bridge fdb append MAC dev DEV dst IP ... (another remote for the same MAC)
  static Request append(const FdbInfo& entry);
  /// Equivalent to: bridge fdb replace MAC dev DEV ...
  static Request replace(const FdbInfo& entry);
  /// Equivalent to: bridge fdb del MAC dev DEV [master|self] [vlan N] [dst IP] ...
  static Request del(const FdbInfo& entry);
};

/// The FDB operations, as an interface so that users can mock them (GoogleMock).
class IFdbApi {
 public:
  virtual ~IFdbApi() = default;
  /// Equivalent to: bridge fdb add MAC dev DEV [master] [static] [vlan N] [dst IP] [vni N] [port P]
  virtual void add(const FdbInfo& entry) = 0;
  /// Equivalent to: bridge fdb append MAC dev DEV dst IP [vni N] [port P]
  virtual void append(const FdbInfo& entry) = 0;
  /// Equivalent to: bridge fdb replace MAC dev DEV ...
  virtual void replace(const FdbInfo& entry) = 0;
  /// Equivalent to: bridge fdb del MAC dev DEV [master|self] [vlan N] [dst IP]
  virtual void del(const FdbInfo& entry) = 0;
  /// Equivalent to: bridge fdb show [br BRIDGE] [dev DEV] [vlan N]
  virtual std::vector<FdbInfo> list(const FdbFilter& filter = {}) = 0;
  /// Streams the dump to `each`; `restart` is called before an interrupted dump is restarted.
  virtual void forEach(const FdbFilter& filter, const std::function<void(const FdbInfo&)>& each,
                       const std::function<void()>& restart = {}) = 0;
};

/// The kernel-backed IFdbApi. Obtain it from Netlink::fdb().
class FdbApi final : public IFdbApi {
 public:
  void add(const FdbInfo& entry) override;
  void append(const FdbInfo& entry) override;
  void replace(const FdbInfo& entry) override;
  void del(const FdbInfo& entry) override;
  std::vector<FdbInfo> list(const FdbFilter& filter = {}) override;
  void forEach(const FdbFilter& filter, const std::function<void(const FdbInfo&)>& each,
               const std::function<void()>& restart = {}) override;

 private:
  friend class Netlink;  // built by its accessor on Netlink, the one way in
  explicit FdbApi(core::Engine& engine) : engine_(engine) {}
  core::Engine& engine_;
};

}  // namespace fastlink
