// Nexthop objects (`ip nexthop`): typed NexthopInfo, the mockable INexthopApi, request builders.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "fastlink/link.hpp"
#include "fastlink/prefix.hpp"
#include "fastlink/request.hpp"
#include "fastlink/route.hpp"
#include "fastlink/types.hpp"

namespace fastlink {

/// One member of a nexthop group: `group ID[,WEIGHT]/...`.
struct NexthopGroupMember {
  uint32_t id = 0;
  uint16_t weight = 1;  ///< 1-256, as iproute2 counts it
  friend bool operator==(const NexthopGroupMember&, const NexthopGroupMember&) = default;
};

/// A nexthop object: a single nexthop (gateway and/or device, or blackhole) or a group of
/// other nexthops. Routes refer to it by id (RouteInfo::nhid).
///   NexthopInfo(1).setGateway(IpAddress::parse("10.0.0.2")).setDev("v0")
///   NexthopInfo(10).setGroup({{1, 1}, {2, 2}})
struct NexthopInfo {
  NexthopInfo() = default;
  explicit NexthopInfo(uint32_t id) : id(id) {}

  std::optional<uint32_t> id;  ///< unset on add: the kernel picks one
  std::optional<IpAddress> gateway;
  std::optional<Ifref> dev;
  bool blackhole = false;
  bool onlink = false;
  bool fdb = false;  ///< for bridge/vxlan fdb entries
  std::vector<NexthopGroupMember> group;  ///< non-empty: a group nexthop
  std::optional<IpAddress::Family> family;  ///< needed only for a blackhole (default IPv4)
  std::optional<RouteProtocol> protocol;

  // Reported only.
  std::optional<Scope> scope;
  std::optional<uint32_t> flags;  ///< RTNH_F_* bits (dead, linkdown, onlink)
  RawAttributes unknown;

  NexthopInfo& setId(uint32_t v) { id = v; return *this; }
  NexthopInfo& setGateway(IpAddress v) { gateway = v; return *this; }
  NexthopInfo& setDev(Ifref v) { dev = std::move(v); return *this; }
  NexthopInfo& setBlackhole(bool v = true) { blackhole = v; return *this; }
  NexthopInfo& setOnlink(bool v = true) { onlink = v; return *this; }
  NexthopInfo& setFdb(bool v = true) { fdb = v; return *this; }
  NexthopInfo& setGroup(std::vector<NexthopGroupMember> v) { group = std::move(v); return *this; }
  NexthopInfo& setFamily(IpAddress::Family v) { family = v; return *this; }
  NexthopInfo& setProtocol(RouteProtocol v) { protocol = v; return *this; }

  bool isGroup() const { return !group.empty(); }
  uint32_t devIndex() const { return dev && dev->isIndex() ? dev->index() : 0; }
};

/// Which nexthops `list` returns; all filtered by the kernel (NHA_OIF, NHA_GROUPS, NHA_FDB).
struct NexthopFilter {
  std::optional<Ifref> dev;
  bool groupsOnly = false;
  bool fdbOnly = false;
  NexthopFilter& setDev(Ifref v) { dev = std::move(v); return *this; }
  NexthopFilter& setGroupsOnly(bool v = true) { groupsOnly = v; return *this; }
  NexthopFilter& setFdbOnly(bool v = true) { fdbOnly = v; return *this; }
};

/// Builds nexthop requests without sending them. Devices must be ifindexes here.
/// Throws fastlink::Error (EINVAL) on bad input.
struct NexthopRequests {
  /// Equivalent to: ip nexthop add id N { via GW dev D [onlink] | dev D | blackhole | group ID[,W]/... } [fdb]
  static Request add(const NexthopInfo& nexthop);
  /// Equivalent to: ip nexthop replace id N ...
  static Request replace(const NexthopInfo& nexthop);
  /// Equivalent to: ip nexthop del id N
  static Request del(uint32_t id);
};

/// The nexthop operations, as an interface so that users can mock them.
class INexthopApi {
 public:
  virtual ~INexthopApi() = default;
  /// Equivalent to: ip nexthop add id N ... (EEXIST if the id is taken)
  virtual void add(const NexthopInfo& nexthop) = 0;
  /// Equivalent to: ip nexthop replace id N ...
  virtual void replace(const NexthopInfo& nexthop) = 0;
  /// Equivalent to: ip nexthop del id N (ENOENT if absent)
  virtual void del(uint32_t id) = 0;
  /// Equivalent to: ip nexthop get id N (ENOENT if absent)
  virtual NexthopInfo get(uint32_t id) = 0;
  /// Equivalent to: ip nexthop show [dev D] [groups] [fdb]
  virtual std::vector<NexthopInfo> list(const NexthopFilter& filter = {}) = 0;
  virtual void forEach(const NexthopFilter& filter, const std::function<void(const NexthopInfo&)>& each,
                       const std::function<void()>& restart = {}) = 0;
};

/// The kernel-backed INexthopApi. Obtain it from Netlink::nexthops().
class NexthopApi final : public INexthopApi {
 public:
  void add(const NexthopInfo& nexthop) override;
  void replace(const NexthopInfo& nexthop) override;
  void del(uint32_t id) override;
  NexthopInfo get(uint32_t id) override;
  std::vector<NexthopInfo> list(const NexthopFilter& filter = {}) override;
  void forEach(const NexthopFilter& filter, const std::function<void(const NexthopInfo&)>& each,
               const std::function<void()>& restart = {}) override;

 private:
  friend class Netlink;  // built by its accessor on Netlink, the one way in
  explicit NexthopApi(core::Engine& engine) : engine_(engine) {}
  core::Engine& engine_;
};

}  // namespace fastlink
