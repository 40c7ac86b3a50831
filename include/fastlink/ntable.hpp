// Neighbour tables (ARP's arp_cache, IPv6's ndisc_cache): their garbage-collection thresholds,
// per-device parameters (reachable time, retransmit time, probes, queue lengths) and statistics,
// as `ip ntable` shows and changes them over RTM_GETNEIGHTBL / RTM_SETNEIGHTBL.
//
//   fastlink::INeighTableApi& tables = nl.neighbourTables();
//   for (const fastlink::NeighTableInfo& t : tables.list()) ...   // t.name, t.parms->ifindex, ...
//   tables.change({.family = AF_INET, .name = "arp_cache",
//                  .parms = {.ifindex = 4, .queueLen = 50}});
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fastlink/request.hpp"

namespace fastlink {

/// A table's configuration (NDTA_CONFIG, struct ndt_config): read-only.
struct NeighTableConfig {
  uint16_t keyLength = 0;
  uint16_t entrySize = 0;
  uint32_t entries = 0;
  uint32_t lastFlushMs = 0;  ///< milliseconds since the last flush
  uint32_t lastRandMs = 0;   ///< milliseconds since reachable times were last drawn
  uint32_t hashRnd = 0;
  uint32_t hashMask = 0;
  uint32_t hashChainGc = 0;
  uint32_t proxyQlen = 0;

  friend bool operator==(const NeighTableConfig&, const NeighTableConfig&) = default;
};

/// A table's counters (NDTA_STATS, struct ndt_stats).
struct NeighTableStats {
  uint64_t allocs = 0, destroys = 0, hashGrows = 0, resFailed = 0, lookups = 0, hits = 0;
  uint64_t rcvProbesMcast = 0, rcvProbesUcast = 0, periodicGcRuns = 0, forcedGcRuns = 0, tableFulls = 0;

  friend bool operator==(const NeighTableStats&, const NeighTableStats&) = default;
};

/// Parameters of a table (the defaults, without ifindex) or of one device (NDTA_PARMS). Times
/// are milliseconds. Reading: what the kernel reported. Changing: what to set (`ifindex`
/// selects the device; `refcnt` and `reachable` are read-only).
struct NeighTableParms {
  std::optional<uint32_t> ifindex{};
  std::optional<uint32_t> refcnt{};
  std::optional<uint64_t> reachable{};  ///< drawn by the kernel around baseReachable
  std::optional<uint64_t> baseReachable{}, retrans{}, gcStale{}, delayProbe{};
  std::optional<uint32_t> queueLen{}, appProbes{}, ucastProbes{}, mcastProbes{};
  std::optional<uint64_t> anycastDelay{}, proxyDelay{};
  std::optional<uint32_t> proxyQlen{};
  std::optional<uint64_t> locktime{};

  friend bool operator==(const NeighTableParms&, const NeighTableParms&) = default;
};

/// One message of the dump: a table (thresholds, config, default parameters, stats) or one
/// device's parameters of a table (name and parms only).
struct NeighTableInfo {
  uint8_t family = 0;  ///< AF_INET (arp_cache), AF_INET6 (ndisc_cache), ...
  std::string name;
  std::optional<uint32_t> thresh1{}, thresh2{}, thresh3{};
  std::optional<uint64_t> gcInterval{};  ///< ms
  std::optional<NeighTableConfig> config{};
  std::optional<NeighTableParms> parms{};
  std::optional<NeighTableStats> stats{};

  friend bool operator==(const NeighTableInfo&, const NeighTableInfo&) = default;
};

/// A change: the table by family (0: any) and name, the thresholds and GC interval (the kernel
/// takes these only in the initial namespace: ENOENT elsewhere), and parameters (of the device
/// `parms.ifindex`, else the table's defaults).
struct NeighTableChange {
  uint8_t family = 0;
  std::string name{};
  std::optional<uint32_t> thresh1{}, thresh2{}, thresh3{};
  std::optional<uint64_t> gcInterval{};
  NeighTableParms parms{};
};

/// Builds neighbour table requests without sending them (golden tests, batches).
struct NeighTableRequests {
  /// RTM_SETNEIGHTBL (NLM_F_REPLACE) with the fields set, in ip's order. Throws Error(EINVAL)
  /// without a name or without anything to change.
  /// Equivalent to: ip ntable change name NAME [ dev DEV ] [ thresh1 N ] ... [ PARMS ]
  static Request change(const NeighTableChange& change);
  /// RTM_GETNEIGHTBL of `family` (0: every one; send it as a dump).
  /// Equivalent to: ip ntable show
  static Request list(uint8_t family = 0);
};

/// Decodes one RTM_NEWNEIGHTBL message; throws Error(Errc::malformed_reply) when it is shorter
/// than ndtmsg, has no name, or a field is shorter than its type.
NeighTableInfo decodeNeighTable(const nlmsghdr* message);

/// The operations, mockable.
class INeighTableApi {
 public:
  virtual ~INeighTableApi() = default;
  /// Every table and every device's parameters, in the kernel's order.
  /// Equivalent to: ip -s ntable show
  virtual std::vector<NeighTableInfo> list(uint8_t family = 0) = 0;
  /// Equivalent to: ip ntable change name NAME ...
  virtual void change(const NeighTableChange& change) = 0;
};

/// The neighbour tables of the Netlink's namespace, over its rtnetlink socket.
class NeighTableApi final : public INeighTableApi {
 public:
  std::vector<NeighTableInfo> list(uint8_t family = 0) override;
  void change(const NeighTableChange& change) override;

 private:
  friend class Netlink;  // built by its accessor on Netlink, the one way in
  explicit NeighTableApi(core::Engine& engine) : engine_(engine) {}
  core::Engine& engine_;
};

}  // namespace fastlink
