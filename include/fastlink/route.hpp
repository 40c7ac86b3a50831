// Routes: typed RouteInfo, named tables/protocols, the mockable IRouteApi, request builders.
#pragma once

#include <concepts>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fastlink/link.hpp"
#include "fastlink/prefix.hpp"
#include "fastlink/request.hpp"
#include "fastlink/types.hpp"
#include "fastlink/view_run.hpp"

namespace fastlink {

class RouteView;

/// Well-known routing tables.
inline constexpr uint32_t kTableUnspec = 0;
inline constexpr uint32_t kTableDefault = 253;
inline constexpr uint32_t kTableMain = 254;
inline constexpr uint32_t kTableLocal = 255;

/// What the kernel does with packets matching the route (`ip route add TYPE PREFIX`).
enum class RouteType : uint8_t {
  Unspec = 0,
  Unicast,
  Local,
  Broadcast,
  Anycast,
  Multicast,
  Blackhole,
  Unreachable,
  Prohibit,
  Throw,
  Nat,
  Xresolve,
};

/// Who installed the route (`proto P`). Any value 0-255 is allowed; rt_protos names them.
enum class RouteProtocol : uint8_t {
  Unspec = 0,
  Redirect = 1,
  Kernel = 2,
  Boot = 3,
  Static = 4,
  Dhcp = 16,
  Babel = 42,
  Bgp = 186,
  Isis = 187,
  Ospf = 188,
  Rip = 189,
};

/// iproute2's name of a route type ("unicast", "blackhole", ...); throws on parse errors.
std::string routeTypeName(RouteType type);
RouteType parseRouteType(std::string_view text);

/// Names of routing tables and protocols, read the way iproute2 reads them:
/// /usr/share/iproute2/{rt_tables,rt_protos} then /etc/iproute2/{rt_tables,rt_protos} (later
/// files override earlier ones), then rt_tables.d/*.conf and rt_protos.d/*.conf of both
/// directories. The built-in names (main, local, default, unspec; kernel, boot, static, ...)
/// are always known. The library reads these files itself; it never runs `ip`.
class RouteNames {
 public:
  /// Reads the files under the given configuration directories (in order, later wins).
  explicit RouteNames(const std::vector<std::string>& configDirs);
  /// The system's names (/usr/share/iproute2, /etc/iproute2), read once per process.
  static const RouteNames& system();

  /// A table name or number -> id. Throws fastlink::Error (EINVAL) for an unknown name:
  /// `unknown routing table "foo" (not in /etc/iproute2/rt_tables or rt_tables.d/*.conf)`.
  uint32_t tableId(std::string_view nameOrNumber) const;
  /// A table id -> its name, or the number as text.
  std::string tableName(uint32_t id) const;
  /// A protocol name or number -> value. Throws fastlink::Error (EINVAL) when unknown.
  RouteProtocol protocol(std::string_view nameOrNumber) const;
  std::string protocolName(RouteProtocol protocol) const;

 private:
  std::map<std::string, uint32_t, std::less<>> tablesByName_;
  std::map<uint32_t, std::string> tableNames_;
  std::map<std::string, uint32_t, std::less<>> protocolsByName_;
  std::map<uint32_t, std::string> protocolNames_;
};

/// Route metrics (`ip route add ... mtu 1400 advmss 1360`), the RTAX_* values.
struct RouteMetrics {
  std::optional<uint32_t> mtu;
  std::optional<uint32_t> advmss;
  std::optional<uint32_t> window;
  std::optional<uint32_t> hoplimit;
  std::optional<uint32_t> initcwnd;
  std::optional<uint32_t> initrwnd;
  std::optional<uint32_t> lock;  ///< bitmask of locked metrics (1 << RTAX_x), as the kernel reports it
  RawAttributes unknown;         ///< metrics not decoded above

  RouteMetrics& setMtu(uint32_t v) { mtu = v; return *this; }
  RouteMetrics& setAdvmss(uint32_t v) { advmss = v; return *this; }
  RouteMetrics& setWindow(uint32_t v) { window = v; return *this; }
  RouteMetrics& setHoplimit(uint32_t v) { hoplimit = v; return *this; }
  RouteMetrics& setInitcwnd(uint32_t v) { initcwnd = v; return *this; }
  RouteMetrics& setInitrwnd(uint32_t v) { initrwnd = v; return *this; }
  bool empty() const { return !mtu && !advmss && !window && !hoplimit && !initcwnd && !initrwnd && !lock; }
};

/// One path of a multipath (ECMP) route: `nexthop via GW dev D weight W [onlink]`.
struct RoutePath {
  std::optional<IpAddress> gateway;
  std::optional<Ifref> dev;
  uint16_t weight = 1;  ///< 1-256, as iproute2 counts it
  bool onlink = false;
  uint8_t flags = 0;  ///< reported RTNH_F_* bits (dead, linkdown, onlink...)

  RoutePath& setGateway(IpAddress v) { gateway = v; return *this; }
  RoutePath& setDev(Ifref v) { dev = std::move(v); return *this; }
  RoutePath& setWeight(uint16_t v) { weight = v; return *this; }
  RoutePath& setOnlink(bool v = true) { onlink = v; return *this; }
  bool isDead() const;
  bool isLinkdown() const;
};

/// A route. Every field is optional: an unset field is never sent, a field the kernel did not
/// report stays unset. `dst` is required to add or delete a route.
///   RouteInfo(Prefix::parse("10.1.0.0/16")).setGateway(IpAddress::parse("10.0.0.2")).setTable(100)
struct RouteInfo {
  RouteInfo() = default;
  explicit RouteInfo(Prefix dst) : dst(dst) {}

  std::optional<Prefix> dst;  ///< host bits must be clear for IPv4 (the kernel refuses them)
  std::optional<uint32_t> table;  ///< default for add/del: main (254)
  std::optional<RouteType> type;  ///< default for add: unicast
  std::optional<RouteProtocol> protocol;  ///< default for add: boot (like iproute2)
  std::optional<Scope> scope;  ///< default for add: link without a gateway, else global (iproute2's rule)
  std::optional<IpAddress> gateway;
  std::optional<Ifref> dev;
  std::optional<uint32_t> metric;  ///< RTA_PRIORITY (`metric N` / `priority N`)
  std::optional<IpAddress> prefsrc;
  std::optional<uint8_t> tos;
  std::optional<uint32_t> nhid;  ///< a nexthop object (`nhid N`)
  std::optional<RouteMetrics> metrics;
  std::vector<RoutePath> paths;  ///< multipath: set instead of gateway/dev
  bool onlink = false;

  // Reported only.
  std::optional<Prefix> src;   ///< source prefix (IPv6 `from`)
  std::optional<Ifref> iif;    ///< route get with iif
  std::optional<uint32_t> flags;  ///< rtm_flags (RTM_F_*, RTNH_F_*)
  /// IPv6 router preference (RFC 4191; `pref low|medium|high`): 3 low, 0 medium, 1 high. Sent
  /// when set (IPv4 routes ignore it), reported for IPv6 routes.
  std::optional<uint8_t> pref;
  std::optional<uint32_t> expires;  ///< seconds, for routes that expire
  std::optional<uint32_t> uid;      ///< `route get`: the user id the lookup was made for
  std::optional<uint32_t> mark;     ///< `route get ... mark M`: the firewall mark of the lookup
  RawAttributes unknown;  ///< attributes not decoded above

  RouteInfo& setDst(Prefix v) { dst = v; return *this; }
  RouteInfo& setTable(uint32_t v) { table = v; return *this; }
  RouteInfo& setType(RouteType v) { type = v; return *this; }
  RouteInfo& setProtocol(RouteProtocol v) { protocol = v; return *this; }
  RouteInfo& setScope(Scope v) { scope = v; return *this; }
  RouteInfo& setGateway(IpAddress v) { gateway = v; return *this; }
  RouteInfo& setDev(Ifref v) { dev = std::move(v); return *this; }
  RouteInfo& setMetric(uint32_t v) { metric = v; return *this; }
  RouteInfo& setPrefsrc(IpAddress v) { prefsrc = v; return *this; }
  RouteInfo& setTos(uint8_t v) { tos = v; return *this; }
  RouteInfo& setNhid(uint32_t v) { nhid = v; return *this; }
  RouteInfo& setMetrics(RouteMetrics v) { metrics = std::move(v); return *this; }
  RouteInfo& addPath(RoutePath v) { paths.push_back(std::move(v)); return *this; }
  RouteInfo& setOnlink(bool v = true) { onlink = v; return *this; }
  RouteInfo& setPref(uint8_t v) { pref = v; return *this; }

  /// The family of dst (or of the gateway when dst is unset).
  IpAddress::Family family() const;
  /// The table the route is in (table, else main).
  uint32_t tableOrMain() const { return table.value_or(kTableMain); }
  /// True for a lookup result or cache entry (RTM_F_CLONED) rather than a FIB entry.
  bool isCloned() const;
  /// Output device index as reported (0 when none or multipath).
  uint32_t devIndex() const { return dev && dev->isIndex() ? dev->index() : 0; }
};

/// Which routes `list`/`forEach`/`flush` return. Table, protocol, type and device are filtered
/// by the kernel (strict checking, RTM_GETROUTE header and RTA_TABLE/RTA_OIF); fastlink checks
/// them again in user space, so a kernel that ignores a filter still gives the right answer.
struct RouteFilter {
  std::optional<IpAddress::Family> family;  ///< unset: IPv4 and IPv6
  std::optional<uint32_t> table;            ///< unset: every table (`table all`)
  std::optional<RouteProtocol> protocol;
  std::optional<RouteType> type;
  std::optional<Ifref> dev;                 ///< routes whose output device (or a path's) is DEV
  /// Leave out the kernel's cache clones (IPv6 exceptions); on by default like `ip route show`.
  bool skipCloned = true;

  RouteFilter& setFamily(IpAddress::Family v) { family = v; return *this; }
  RouteFilter& setTable(uint32_t v) { table = v; return *this; }
  RouteFilter& setProtocol(RouteProtocol v) { protocol = v; return *this; }
  RouteFilter& setType(RouteType v) { type = v; return *this; }
  RouteFilter& setDev(Ifref v) { dev = std::move(v); return *this; }
};

/// A route lookup (`ip route get`): which route, device, gateway and source the kernel uses.
struct RouteQuery {
  IpAddress dst;
  std::optional<IpAddress> from;  ///< source address
  std::optional<Ifref> iif;       ///< as if received on this device
  std::optional<Ifref> oif;       ///< force the output device
  std::optional<Ifref> vrf;       ///< look up in this VRF (the VRF device becomes the oif)
  /// Look up in this table: resolved to the VRF device bound to it (the kernel looks up a
  /// given table only through its VRF). Error if no VRF uses the table.
  std::optional<uint32_t> table;
  std::optional<uint32_t> mark;
  /// Return the FIB entry that matched (`ip route get fibmatch`) instead of the resolved route.
  bool fibMatch = false;

  explicit RouteQuery(IpAddress dst) : dst(dst) {}
  RouteQuery& setFrom(IpAddress v) { from = v; return *this; }
  RouteQuery& setIif(Ifref v) { iif = std::move(v); return *this; }
  RouteQuery& setOif(Ifref v) { oif = std::move(v); return *this; }
  RouteQuery& setVrf(Ifref v) { vrf = std::move(v); return *this; }
  RouteQuery& setTable(uint32_t v) { table = v; return *this; }
  RouteQuery& setMark(uint32_t v) { mark = v; return *this; }
  RouteQuery& setFibMatch(bool v = true) { fibMatch = v; return *this; }
};

/// Builds route requests without sending them, for batches. Devices must be given as ifindex
/// here (RouteApi resolves names). Throws fastlink::Error (EINVAL) on bad input, before
/// anything is sent: prefix with host bits set, gateway of the wrong family, weights out of
/// range, multipath mixed with gateway/dev, missing dst.
struct RouteRequests {
  /// Equivalent to: ip route add [TYPE] PREFIX [via GW] [dev D] [table T] [metric M] ...
  static Request add(const RouteInfo& route);
  /// Equivalent to: ip route del [TYPE] PREFIX [via GW] [dev D] [table T] [metric M] ...
  static Request del(const RouteInfo& route);
  /// Equivalent to: ip route replace PREFIX ...
  static Request replace(const RouteInfo& route);
  /// Equivalent to: ip route append PREFIX ... (adds another route with the same key; IPv6
  /// adds a path to an existing multipath route)
  static Request append(const RouteInfo& route);
  /// Equivalent to: ip route change PREFIX ... (overwrites an existing route; ENOENT when none
  /// matches, unlike replace it never creates one)
  static Request change(const RouteInfo& route);
};

/// The route operations, as an interface so that users can mock them (GoogleMock) in tests.
class IRouteApi {
 public:
  virtual ~IRouteApi() = default;
  /// Equivalent to: ip route add PREFIX ... (EEXIST if it exists)
  virtual void add(const RouteInfo& route) = 0;
  /// Equivalent to: ip route del PREFIX ... (ESRCH if no route matches)
  virtual void del(const RouteInfo& route) = 0;
  /// Equivalent to: ip route replace PREFIX ...
  virtual void replace(const RouteInfo& route) = 0;
  /// Equivalent to: ip route append PREFIX ...
  virtual void append(const RouteInfo& route) = 0;
  /// Equivalent to: ip route change PREFIX ... (ENOENT if no route matches)
  virtual void change(const RouteInfo& route) = 0;
  /// Equivalent to: ip route get ADDR [from A] [iif D] [oif D] [vrf V] [mark M] [fibmatch]
  virtual RouteInfo get(const RouteQuery& query) = 0;
  /// Equivalent to: ip route show [table T|all] [proto P] [type T] [dev D]
  virtual std::vector<RouteInfo> list(const RouteFilter& filter = {}) = 0;
  /// Streams the dump to `each` in constant memory. If the kernel interrupts the dump it is
  /// restarted and `restart` is called first, so the caller can drop what it has seen.
  virtual void forEach(const RouteFilter& filter, const std::function<void(const RouteInfo&)>& each,
                       const std::function<void()>& restart = {}) = 0;
  /// Equivalent to: ip route flush [table T] [proto P] [dev D] [type T]: deletes the matching
  /// routes in one pipelined batch; returns how many were deleted. The kernel's own routes of
  /// the local table are only deleted when the filter names that table.
  virtual std::size_t flush(const RouteFilter& filter) = 0;
};

/// The kernel-backed IRouteApi. Obtain it from Netlink::routes().
class RouteApi final : public IRouteApi {
 public:
  void add(const RouteInfo& route) override;
  void del(const RouteInfo& route) override;
  void replace(const RouteInfo& route) override;
  void append(const RouteInfo& route) override;
  void change(const RouteInfo& route) override;
  RouteInfo get(const RouteQuery& query) override;
  std::vector<RouteInfo> list(const RouteFilter& filter = {}) override;
  void forEach(const RouteFilter& filter, const std::function<void(const RouteInfo&)>& each,
               const std::function<void()>& restart = {}) override;
  /// The dump as views over the receive buffer (fastlink/route_view.hpp): nothing decoded or allocated
  /// until an accessor is called; each view is valid during its call only (toInfo() to keep one).
  void forEach(const RouteFilter& filter, const std::function<void(const RouteView&)>& each,
               const std::function<void()>& restart = {});
  /// The same for any callable taking a RouteView (a lambda): the loop over each datagram's
  /// messages is instantiated here with the callback inlined, no std::function per message.
  template <class F>
    requires std::invocable<F&, const RouteView&>
  void forEach(const RouteFilter& filter, F&& each, const std::function<void()>& restart = {}) {
    auto run = detail::viewRun<RouteView>(filter, each);
    forEachRun(filter, detail::RunSink(run), restart);
  }
  std::size_t flush(const RouteFilter& filter) override;

  /// Replaces device names by ifindex in dev and the paths' devs (one lookup per name).
  RouteInfo resolveNames(const RouteInfo& route);

 private:
  friend class Netlink;  // built by its accessor on Netlink, the one way in
  explicit RouteApi(core::Engine& engine) : engine_(engine) {}
  void forEachRun(const RouteFilter& filter, detail::RunSink sink, const std::function<void()>& restart);
  core::Engine& engine_;
};

}  // namespace fastlink

// The view type of forEach above, complete wherever this header is included.
#include "fastlink/route_view.hpp"
