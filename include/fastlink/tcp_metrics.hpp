// The kernel's TCP metrics cache over the `tcp_metrics` generic netlink family: what TCP keeps
// per destination (and source) address between connections — RTT, RTT variance, ssthresh, cwnd,
// reordering, TCP Fast Open data — as `ip tcp_metrics` shows, deletes and flushes it.
//
//   fastlink::ITcpMetricsApi& metrics = nl.tcpMetrics();
//   for (const fastlink::TcpMetricsEntry& e : metrics.list()) ...   // e.destination, e.rttUs, e.cwnd
//   metrics.remove(fastlink::IpAddress::parse("10.0.0.2"));
//   metrics.flushAll();
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "fastlink/genl.hpp"
#include "fastlink/request.hpp"
#include "fastlink/types.hpp"

namespace fastlink {

/// One cached entry: the kernel reports only what it has (every metric is optional).
struct TcpMetricsEntry {
  IpAddress destination;
  std::optional<IpAddress> source;    ///< Linux 4.0+ keys entries by source address too
  std::optional<uint64_t> ageMs;      ///< milliseconds since the entry was last updated
  std::optional<uint32_t> twTsval;    ///< TIME-WAIT timestamp value (tw_ts)
  std::optional<int32_t> twTsStamp;   ///< seconds since it was recorded
  // TCP_METRICS_ATTR_VALS, as the kernel sends them (RTT in ms and in us, as each kernel has).
  std::optional<uint32_t> rttMs, rttVarMs;  ///< TCP_METRIC_RTT, RTTVAR (ms, scaled << 3 / << 2)
  std::optional<uint32_t> rttUs, rttVarUs;  ///< TCP_METRIC_RTT_US, RTTVAR_US (us, scaled << 3 / << 2)
  std::optional<uint32_t> ssthresh, cwnd, reordering;
  std::optional<uint16_t> fastOpenMss;        ///< fo_mss
  std::optional<uint16_t> fastOpenSynDrops;   ///< fo_syn_drops
  std::optional<uint64_t> fastOpenSynDropTs;  ///< ms since the last SYN drop
  std::vector<uint8_t> fastOpenCookie;        ///< fo_cookie (empty: none)

  /// The smoothed RTT in microseconds as ip computes it: RTT_US >> 3, else RTT (ms) * 1000 >> 3;
  /// 0 when neither is there.
  uint64_t rttMicros() const;
  /// The RTT variance in microseconds: RTTVAR_US >> 2, else RTTVAR (ms) * 1000 >> 2; 0 for none.
  uint64_t rttVarMicros() const;

  friend bool operator==(const TcpMetricsEntry&, const TcpMetricsEntry&) = default;
};

/// Builds tcp_metrics requests for a resolved family without sending them (golden tests).
struct TcpMetricsRequests {
  /// TCP_METRICS_CMD_GET as a dump (NLM_F_DUMP set).
  /// Equivalent to: ip tcp_metrics show
  static Request list(const GenlFamily& family);
  /// TCP_METRICS_CMD_GET of one destination (and source): answered by one message.
  /// Equivalent to: ip tcp_metrics show ADDRESS [ source ADDRESS ]
  static Request get(const GenlFamily& family, const IpAddress& destination,
                     const std::optional<IpAddress>& source = std::nullopt);
  /// TCP_METRICS_CMD_DEL of one destination (and source).
  /// Equivalent to: ip tcp_metrics delete ADDRESS [ source ADDRESS ]
  static Request remove(const GenlFamily& family, const IpAddress& destination,
                        const std::optional<IpAddress>& source = std::nullopt);
  /// TCP_METRICS_CMD_DEL without an address: the kernel empties the whole cache.
  /// Equivalent to: ip tcp_metrics flush
  static Request flushAll(const GenlFamily& family);
};

/// Decodes a TCP_METRICS_CMD_GET reply; throws Error(Errc::malformed_reply) when it has no
/// destination address or an attribute is shorter than its type.
TcpMetricsEntry decodeTcpMetrics(const nlmsghdr* message);

/// The operations, mockable.
class ITcpMetricsApi {
 public:
  virtual ~ITcpMetricsApi() = default;
  /// Every entry, in the kernel's order. Equivalent to: ip tcp_metrics show
  virtual std::vector<TcpMetricsEntry> list() = 0;
  /// The entry of one destination (and source); Error(ESRCH) when there is none.
  /// Equivalent to: ip tcp_metrics show ADDRESS [ source ADDRESS ]
  virtual TcpMetricsEntry get(const IpAddress& destination, const std::optional<IpAddress>& source = std::nullopt) = 0;
  /// Equivalent to: ip tcp_metrics delete ADDRESS [ source ADDRESS ]
  virtual void remove(const IpAddress& destination, const std::optional<IpAddress>& source = std::nullopt) = 0;
  /// Equivalent to: ip tcp_metrics flush (every entry, one request)
  virtual void flushAll() = 0;
};

/// The cache of the Netlink's namespace. The family is resolved on first use (ENOENT "is the
/// module loaded?" where the kernel has none).
class TcpMetricsApi final : public ITcpMetricsApi, public GenlFamilyApi {
 public:
  std::vector<TcpMetricsEntry> list() override;
  TcpMetricsEntry get(const IpAddress& destination, const std::optional<IpAddress>& source = std::nullopt) override;
  void remove(const IpAddress& destination, const std::optional<IpAddress>& source = std::nullopt) override;
  void flushAll() override;

 private:
  friend class Netlink;  // built by its accessor on Netlink, the one way in
  TcpMetricsApi(GenlApi& families, core::Engine& engine);
};

}  // namespace fastlink
