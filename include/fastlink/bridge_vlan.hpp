// Bridge port VLANs (`bridge vlan`): typed BridgeVlanInfo, the mockable IBridgeVlanApi, and
// request builders for batches. They need a bridge with vlan filtering on
// (LinkInfo("br0", "bridge").setBridge(BridgeInfo().setVlanFiltering(true).setVlanDefaultPvid(0))).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "fastlink/request.hpp"
#include "fastlink/types.hpp"

namespace fastlink {

/// A VLAN, or a range of VLANs, on one bridge port (or on the bridge itself, `self`).
///   BridgeVlanInfo("v0", 10).setPvid(true).setUntagged(true)
///   BridgeVlanInfo("v0", 20).setVidEnd(30)          // bridge vlan add vid 20-30 dev v0
struct BridgeVlanInfo {
  BridgeVlanInfo() = default;
  BridgeVlanInfo(Ifref dev, uint16_t vid) : dev(std::move(dev)), vid(vid) {}

  std::optional<Ifref> dev;        ///< reported as an index
  std::optional<uint16_t> vid;     ///< 1-4094; the first of a range
  std::optional<uint16_t> vidEnd;  ///< the last of a range (unset: one VLAN)
  std::optional<bool> pvid;        ///< untagged ingress frames get this VLAN (`pvid`)
  std::optional<bool> untagged;    ///< egress frames leave untagged (`untagged`)
  /// Which device applies the change: the master bridge (`master`, the default for ports)
  /// and/or the device itself (`self`: the bridge's own VLANs). Unset: the kernel's default.
  std::optional<bool> master;
  std::optional<bool> self;

  // Reported only.
  std::optional<uint16_t> flags;     ///< raw BRIDGE_VLAN_INFO_* bits
  std::optional<bool> brentry;       ///< a VLAN of the bridge device itself
  std::optional<uint32_t> masterDev; ///< ifindex of the bridge
  std::optional<std::string> devName;

  BridgeVlanInfo& setDev(Ifref v) { dev = std::move(v); return *this; }
  BridgeVlanInfo& setVid(uint16_t v) { vid = v; return *this; }
  BridgeVlanInfo& setVidEnd(uint16_t v) { vidEnd = v; return *this; }
  BridgeVlanInfo& setRange(uint16_t first, uint16_t last) { vid = first; vidEnd = last; return *this; }
  BridgeVlanInfo& setPvid(bool v) { pvid = v; return *this; }
  BridgeVlanInfo& setUntagged(bool v) { untagged = v; return *this; }
  BridgeVlanInfo& setMaster(bool v) { master = v; return *this; }
  BridgeVlanInfo& setSelf(bool v) { self = v; return *this; }

  uint32_t devIndex() const { return dev && dev->isIndex() ? dev->index() : 0; }
  /// The last VLAN of the entry (vid when it is not a range).
  uint16_t lastVid() const { return vidEnd.value_or(vid.value_or(0)); }
};

/// Which VLANs `list` returns. The kernel's bridge VLAN dump (RTM_GETLINK, PF_BRIDGE) has no
/// device filter (strict checking refuses one), so `dev` is matched in user space.
struct BridgeVlanFilter {
  std::optional<Ifref> dev;
  /// Ask for ranges (RTEXT_FILTER_BRVLAN_COMPRESSED): consecutive VLANs with the same flags
  /// come as one entry. Off: one entry per VLAN (RTEXT_FILTER_BRVLAN), like `bridge vlan show`.
  bool compressed = true;

  BridgeVlanFilter& setDev(Ifref v) { dev = std::move(v); return *this; }
  BridgeVlanFilter& setCompressed(bool v) { compressed = v; return *this; }
};

/// Builds VLAN requests without sending them, for batches. `dev` must be an ifindex here.
/// Throws fastlink::Error (EINVAL) on bad input; nothing is sent.
struct BridgeVlanRequests {
  /// Equivalent to: bridge vlan add vid VID[-END] dev DEV [pvid] [untagged] [master|self]
  static Request add(const BridgeVlanInfo& vlan);
  /// Equivalent to: bridge vlan del vid VID[-END] dev DEV [master|self]
  static Request del(const BridgeVlanInfo& vlan);
};

/// The bridge VLAN operations, as an interface so that users can mock them (GoogleMock).
class IBridgeVlanApi {
 public:
  virtual ~IBridgeVlanApi() = default;
  /// Equivalent to: bridge vlan add vid VID[-END] dev DEV [pvid] [untagged] [master|self]
  virtual void add(const BridgeVlanInfo& vlan) = 0;
  /// Equivalent to: bridge vlan del vid VID[-END] dev DEV
  virtual void del(const BridgeVlanInfo& vlan) = 0;
  /// Equivalent to: bridge [-compressvlans] vlan show [dev DEV]
  virtual std::vector<BridgeVlanInfo> list(const BridgeVlanFilter& filter = {}) = 0;
  /// Streams the dump to `each`; `restart` is called before an interrupted dump is restarted.
  virtual void forEach(const BridgeVlanFilter& filter, const std::function<void(const BridgeVlanInfo&)>& each,
                       const std::function<void()>& restart = {}) = 0;
};

/// The kernel-backed IBridgeVlanApi. Obtain it from Netlink::bridgeVlans().
class BridgeVlanApi final : public IBridgeVlanApi {
 public:
  void add(const BridgeVlanInfo& vlan) override;
  void del(const BridgeVlanInfo& vlan) override;
  std::vector<BridgeVlanInfo> list(const BridgeVlanFilter& filter = {}) override;
  void forEach(const BridgeVlanFilter& filter, const std::function<void(const BridgeVlanInfo&)>& each,
               const std::function<void()>& restart = {}) override;

 private:
  friend class Netlink;  // built by its accessor on Netlink, the one way in
  explicit BridgeVlanApi(core::Engine& engine) : engine_(engine) {}
  core::Engine& engine_;
};

}  // namespace fastlink
