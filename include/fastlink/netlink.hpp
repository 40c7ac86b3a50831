// fastlink::Netlink — the factory that owns the netlink socket and hands out the object APIs.
#pragma once

#include <memory>
#include <optional>

#include "fastlink/link.hpp"
#include "fastlink/netns.hpp"
#include "fastlink/request.hpp"

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

struct NetlinkOptions {
  /// Work in this network namespace (like `ip -n NAME`); default: the caller's.
  std::optional<Netns> netns;
  /// Socket receive buffer; bounds how many requests a batch keeps in flight.
  int receiveBufferBytes = 32 * 1024 * 1024;
  /// How often an interrupted dump is restarted before Errc::dump_interrupted is reported.
  unsigned dumpRetries = 5;
};

/// One rtnetlink socket (extended ACKs, capped ACKs and strict checking on) and the APIs over it.
/// Not thread-safe: use one Netlink per thread.
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

  /// Sends one request and waits for its ACK; throws fastlink::Error on failure.
  void execute(const Request& request);
  /// Sends the batch pipelined (many requests per sendmsg, ACKs matched by sequence number).
  BatchResult run(const Batch& batch, const BatchOptions& options = {});
  /// Streamed batch: requests are encoded as they are sent and results delivered as they come,
  /// so memory stays constant however many requests there are. Returns totals (results empty).
  BatchResult run(const RequestSource& source, const BatchOptions& options, const ResultSink& sink);

  const SocketCounters& counters() const;
  /// The socket's netlink port id.
  uint32_t portId() const;

 private:
  // A deleter pointer lets each API stay an incomplete type here; the accessor that creates
  // it (in the object's own source file) supplies the deleter.
  template <class Api>
  using ApiPtr = std::unique_ptr<Api, void (*)(Api*)>;
  template <class Api>
  Api& lazy(ApiPtr<Api>& slot) {
    if (!slot) slot = ApiPtr<Api>(new Api(*engine_), [](Api* p) { delete p; });
    return *slot;
  }

  std::unique_ptr<core::Engine> engine_;
  std::unique_ptr<LinkApi> links_;
  ApiPtr<AddrApi> addresses_{nullptr, nullptr};
  ApiPtr<RouteApi> routes_{nullptr, nullptr};
  ApiPtr<NexthopApi> nexthops_{nullptr, nullptr};
  ApiPtr<NeighApi> neighbours_{nullptr, nullptr};
  ApiPtr<FdbApi> fdb_{nullptr, nullptr};
  ApiPtr<BridgeVlanApi> bridgeVlans_{nullptr, nullptr};
  ApiPtr<RuleApi> rules_{nullptr, nullptr};
};

}  // namespace fastlink
