// fastlink::Netlink — the factory that owns the netlink socket and hands out the object APIs.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include "fastlink/link.hpp"
#include "fastlink/netlink_options.hpp"
#include "fastlink/netns.hpp"
#include "fastlink/raw.hpp"
#include "fastlink/request.hpp"
#include "fastlink/subscription.hpp"

namespace fastlink {

// Object APIs beyond links; each is declared in its own header (fastlink/addr.hpp, ...) and its
// accessor below is defined in that object's source file (src/rtnl/<object>.cpp).
class AddrApi;
class RouteApi;
class NexthopApi;
class NeighApi;
class FdbApi;
class BridgeVlanApi;
class RuleApi;
class GenlApi;
class EthtoolApi;
class TcApi;
class ConntrackApi;
class TcFilterApi;
class NetdevApi;
class XdpApi;
class TunTapApi;
class WireGuardApi;
class MptcpApi;
class AddrLabelApi;
class StatsApi;
class PrlApi;
class TokenApi;
class NeighTableApi;
class MrouteApi;
class TcpMetricsApi;
class NetnsApi;
class TuneApi;
struct TuneOptions;
namespace core {
struct ApiAccess;
}

/// The netlink sockets of one namespace (extended ACKs, capped ACKs and strict checking on) and
/// the APIs over them: one socket per protocol (rtnetlink, generic netlink), each opened when
/// first used. Not thread-safe: use one Netlink per thread.
class Netlink {
 public:
  explicit Netlink(const NetlinkOptions& options = {});
  ~Netlink();
  Netlink(Netlink&&) noexcept;
  Netlink& operator=(Netlink&&) noexcept;

  LinkApi& links();
  AddrApi& addresses();       ///< fastlink/addr.hpp
  RouteApi& routes();         ///< fastlink/route.hpp
  NexthopApi& nexthops();     ///< fastlink/nexthop.hpp
  NeighApi& neighbours();     ///< fastlink/neigh.hpp
  FdbApi& fdb();              ///< fastlink/fdb.hpp
  BridgeVlanApi& bridgeVlans();  ///< fastlink/bridge_vlan.hpp
  RuleApi& rules();           ///< fastlink/rule.hpp
  GenlApi& families();        ///< fastlink/genl.hpp: generic netlink families, cached
  EthtoolApi& ethtool();      ///< fastlink/ethtool.hpp: channels, rings, features, coalescing
  TcApi& tc();                ///< fastlink/tc.hpp: qdiscs and classes
  ConntrackApi& conntrack();  ///< fastlink/conntrack.hpp: the conntrack table (nfnetlink)
  TcFilterApi& tcFilters();   ///< fastlink/tc_filter.hpp: filters and standalone actions
  NetdevApi& netdev();        ///< fastlink/napi.hpp: the netdev family (NAPI instances)
  MptcpApi& mptcp();          ///< fastlink/mptcp.hpp: the MPTCP path manager's endpoints and limits
  XdpApi& xdp();              ///< fastlink/xdp.hpp: status and detach (attach: the xdp component)
  TunTapApi& tuntap();        ///< fastlink/tuntap.hpp: tun/tap devices and their queues
  AddrLabelApi& addressLabels();    ///< fastlink/addrlabel.hpp: IPv6 address labels (ip addrlabel)
  TokenApi& tokens();               ///< fastlink/token.hpp: IPv6 interface identifiers (ip token)
  NeighTableApi& neighbourTables(); ///< fastlink/ntable.hpp: neighbour table parameters (ip ntable)
  MrouteApi& multicastRoutes();     ///< fastlink/mroute.hpp: the multicast forwarding caches (ip mroute)
  TcpMetricsApi& tcpMetrics();      ///< fastlink/tcp_metrics.hpp: the TCP metrics cache (ip tcp_metrics)
  NetnsApi& netns();          ///< fastlink/netns_ids.hpp: namespace ids (nsids)
  StatsApi& stats();          ///< fastlink/stats.hpp: per-device statistics by group (ip stats)
  PrlApi& potentialRouters(); ///< fastlink/tunnel_prl.hpp: an ISATAP tunnel's router list (ip tunnel prl)
  /// fastlink/tune.hpp: a device's queues spread over the CPUs (ethtool channels with sysfs's
  /// IRQ, RPS and XPS files). A new TuneApi each call, since its options (sysfs root, CPUs,
  /// snapshot directory) belong to one use; it keeps this Netlink's ethtool API, not the Netlink.
  TuneApi tune();
  TuneApi tune(const TuneOptions& options);
  /// fastlink/wireguard.hpp (the wireguard component): kernel devices and userspace ones whose
  /// UAPI sockets are in NetlinkOptions::wireguardSocketDirectory (/var/run/wireguard).
  WireGuardApi& wireguard();

  /// Sends one request and waits for its ACK; throws fastlink::Error on failure.
  void execute(const Request& request);
  /// Builds and sends a request that names devices the kernel takes only as ifindexes, the way
  /// every object API does (LinkApi::set, RouteApi::add, ...): `build` runs first with every
  /// name at a placeholder ifindex (each name checked), so bad input is reported before any
  /// lookup and nothing is sent; then with the names looked up (each once), and the request it
  /// returns is sent. A missing device throws Error(ENODEV).
  void execute(const std::function<Request(const IndexOf& indexOf)>& build);
  /// Sends the batch pipelined (many requests per sendmsg, ACKs matched by sequence number).
  BatchResult run(const Batch& batch, const BatchOptions& options = {});
  /// Streamed batch: requests are encoded as they are sent and results delivered as they come,
  /// so memory stays constant however many requests there are. Returns totals (results empty).
  BatchResult run(const RequestSource& source, const BatchOptions& options, const ResultSink& sink);

  /// Raw requests on a protocol's socket (the escape hatch: messages fastlink does not model,
  /// with its error handling). Raw requests for batches: RawMessage::toRequest + run().
  RawApi raw(Protocol protocol = Protocol::Route);
  /// A new socket in this Netlink's namespace joined to `groups` (rtnetlink); its own socket,
  /// never the request socket. See fastlink/subscription.hpp.
  Subscription subscribe(std::initializer_list<NotificationGroup> groups, const SubscriptionOptions& options = {});
  /// A generic netlink subscription: joins the multicast group ids (resolved from a family).
  Subscription subscribeGeneric(std::initializer_list<uint32_t> groupIds, const SubscriptionOptions& options = {});
  /// A netfilter (nfnetlink) subscription: joins NFNLGRP_* groups, e.g. conntrack_group::kNew.
  Subscription subscribeNetfilter(std::initializer_list<uint32_t> groups, const SubscriptionOptions& options = {});

  /// Counters of the rtnetlink socket.
  const SocketCounters& counters() const;
  /// The rtnetlink socket's port id.
  uint32_t portId() const;

 private:
  // Every API is reached through its accessor above, a member defined in the API's own source
  // file: it hands the API the engine(s) it runs on, so nothing else reaches the engines.
  // A deleter pointer lets each API stay an incomplete type here; the accessor that creates
  // it (in the object's own source file) supplies the deleter.
  friend struct core::ApiAccess;  // src/core/api_access.hpp: the library's own code, unit tests
  /// Every API's constructor is private, with Netlink its friend.
  template <class Api, class... Args>
  static Api make(Args&&... args) {
    return Api(std::forward<Args>(args)...);
  }
  template <class Api>
  using ApiPtr = std::unique_ptr<Api, void (*)(Api*)>;
  template <class Api>
  Api& lazy(ApiPtr<Api>& slot) {
    return lazy(slot, routeEngine());
  }
  template <class Api, class... Args>
  Api& lazy(ApiPtr<Api>& slot, Args&&... args) {
    if (!slot) slot = ApiPtr<Api>(new Api(std::forward<Args>(args)...), [](Api* p) { delete p; });
    return *slot;
  }
  /// The engine (socket) of a protocol, opened on first use in the namespace of the options.
  core::Engine& engine(int protocol) const;
  core::Engine& routeEngine() const;    ///< NETLINK_ROUTE
  core::Engine& genericEngine() const;  ///< NETLINK_GENERIC
  core::Engine& netfilterEngine() const;  ///< NETLINK_NETFILTER

  NetlinkOptions options_;
  std::shared_ptr<NetnsHandle> namespace_;  // held open for the sockets opened later
  // Opening a socket on first use does not change what the Netlink is, so const users may.
  mutable std::unique_ptr<core::Engine> routeEngine_;
  mutable std::unique_ptr<core::Engine> genericEngine_;
  mutable std::unique_ptr<core::Engine> netfilterEngine_;
  std::unique_ptr<LinkApi> links_;
  ApiPtr<AddrApi> addresses_{nullptr, nullptr};
  ApiPtr<RouteApi> routes_{nullptr, nullptr};
  ApiPtr<NexthopApi> nexthops_{nullptr, nullptr};
  ApiPtr<NeighApi> neighbours_{nullptr, nullptr};
  ApiPtr<FdbApi> fdb_{nullptr, nullptr};
  ApiPtr<BridgeVlanApi> bridgeVlans_{nullptr, nullptr};
  ApiPtr<RuleApi> rules_{nullptr, nullptr};
  ApiPtr<GenlApi> families_{nullptr, nullptr};
  ApiPtr<EthtoolApi> ethtool_{nullptr, nullptr};
  ApiPtr<TcApi> tc_{nullptr, nullptr};
  ApiPtr<ConntrackApi> conntrack_{nullptr, nullptr};
  ApiPtr<TcFilterApi> tcFilters_{nullptr, nullptr};
  ApiPtr<NetdevApi> netdev_{nullptr, nullptr};
  ApiPtr<XdpApi> xdp_{nullptr, nullptr};
  ApiPtr<TunTapApi> tuntap_{nullptr, nullptr};
  ApiPtr<WireGuardApi> wireguard_{nullptr, nullptr};
  ApiPtr<MptcpApi> mptcp_{nullptr, nullptr};
  ApiPtr<AddrLabelApi> addressLabels_{nullptr, nullptr};
  ApiPtr<TokenApi> tokens_{nullptr, nullptr};
  ApiPtr<NeighTableApi> neighbourTables_{nullptr, nullptr};
  ApiPtr<MrouteApi> multicastRoutes_{nullptr, nullptr};
  ApiPtr<TcpMetricsApi> tcpMetrics_{nullptr, nullptr};
  ApiPtr<StatsApi> stats_{nullptr, nullptr};
  ApiPtr<NetnsApi> netns_{nullptr, nullptr};
  ApiPtr<PrlApi> potentialRouters_{nullptr, nullptr};
};

}  // namespace fastlink
