// Per-kind options of queueing disciplines and classes (`tc qdisc add ... KIND OPTIONS`), and
// tc's units: rates in bytes per second, sizes in bytes, times in microseconds (tc's "time
// units"), with the parsers and printers `tc` uses for them.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace fastlink {

/// tc's units. Parsers throw Error(EINVAL) naming `what` ("rate: \"10\" has no unit ...").
namespace tcunits {
/// "10mbit", "1gbit", "125kbps", "8bit", "1.5Mbit", "100kibit": bytes per second. A rate
/// without a unit is refused (tc would read bytes per second silently).
uint64_t parseRate(std::string_view text, std::string_view what = "rate");
/// "1600", "15k", "15kb", "1mb", "64kbit", "1g": bytes (a bare number is bytes, like tc).
uint32_t parseSize(std::string_view text, std::string_view what = "size");
/// "5ms", "100us", "1s", "1.5ms", "250" (microseconds): microseconds.
uint64_t parseTime(std::string_view text, std::string_view what = "time");
/// A percentage "10%" or "0.5%" as a fraction of 1 (0.1, 0.005); above 100% is refused.
double parsePercent(std::string_view text, std::string_view what = "percent");
/// tc's printing: rate (bytes/s) as "10Mbit", size as "15Kb"/"1600b", time (us) as "5ms", "2.5ms".
/// `iec`: tc -iec's powers of 1024 ("10Mibit", "1Kibit").
std::string rateText(uint64_t bytesPerSecond, bool iec = false);
std::string sizeText(uint32_t bytes);
std::string timeText(uint64_t microseconds);
/// Nanoseconds the way tc 6.1 prints 64-bit times ("5ms", "100ms", "1.5s", "800ns").
std::string time64Text(uint64_t nanoseconds);
}  // namespace tcunits

/// `pfifo limit PACKETS` / `bfifo limit BYTES` (the kind decides the unit).
struct FifoOptions {
  std::optional<uint32_t> limit;
  friend bool operator==(const FifoOptions&, const FifoOptions&) = default;
};

/// pfifo_fast's (and prio's) bands and priority map; pfifo_fast reports them, takes none.
struct PrioOptions {
  uint32_t bands = 3;
  std::array<uint8_t, 16> priomap{};
  bool multiqueue = false;
  friend bool operator==(const PrioOptions&, const PrioOptions&) = default;
};

/// `htb [default CLASSID] [r2q N] [direct_qlen P]`.
struct HtbOptions {
  uint32_t defaultClass = 0;  ///< minor number of the default class (`default 10` -> 0x10)
  uint32_t r2q = 10;
  std::optional<uint32_t> directQlen;
  // Reported only.
  uint32_t version = 3;
  uint32_t directPackets = 0;  ///< packets sent directly (no class matched, default absent)
  friend bool operator==(const HtbOptions&, const HtbOptions&) = default;
};

/// `htb rate R [ceil R] [burst B] [cburst B] [prio P] [quantum Q]` of an htb class.
struct HtbClassOptions {
  uint64_t rate = 0;             ///< bytes per second (required)
  std::optional<uint64_t> ceil;  ///< unset: the rate
  std::optional<uint32_t> burst;   ///< bytes; unset: rate / HZ + mtu, like tc
  std::optional<uint32_t> cburst;  ///< bytes; unset: ceil / HZ + mtu
  std::optional<uint32_t> prio;
  std::optional<uint32_t> quantum;
  uint32_t mtu = 1600;  ///< for the default bursts (tc's `mtu`)
  // Reported only.
  uint32_t level = 0;
  friend bool operator==(const HtbClassOptions&, const HtbClassOptions&) = default;
};

/// `fq_codel [limit P] [flows N] [target T] [interval T] [quantum B] [ecn|noecn]
/// [ce_threshold T] [memory_limit B] [drop_batch N]`. Times in microseconds.
struct FqCodelOptions {
  std::optional<uint32_t> limit;
  std::optional<uint32_t> flows;
  std::optional<uint32_t> target;
  std::optional<uint32_t> interval;
  std::optional<uint32_t> quantum;
  std::optional<bool> ecn;
  std::optional<uint32_t> ceThreshold;
  std::optional<uint32_t> memoryLimit;
  std::optional<uint32_t> dropBatch;
  /// `ce_threshold_selector VALUE/MASK`: only packets whose skb->tc_index & MASK == VALUE are marked.
  std::optional<uint8_t> ceThresholdSelector, ceThresholdMask;
  friend bool operator==(const FqCodelOptions&, const FqCodelOptions&) = default;
};

/// `fq [limit P] [flow_limit P] [quantum B] [initial_quantum B] [maxrate R] [buckets N]
/// [pacing|nopacing] [refill_delay T] [orphan_mask M] [ce_threshold T] [horizon T]`.
struct FqOptions {
  std::optional<uint32_t> limit;
  std::optional<uint32_t> flowLimit;
  std::optional<uint32_t> quantum;
  std::optional<uint32_t> initialQuantum;
  std::optional<uint32_t> maxRate;    ///< bytes per second (~0: unlimited)
  std::optional<uint32_t> bucketsLog;  ///< log2 of `buckets`
  std::optional<bool> pacing;
  std::optional<uint32_t> refillDelay;  ///< us
  std::optional<uint32_t> orphanMask;
  std::optional<uint32_t> ceThreshold;  ///< us
  std::optional<uint32_t> horizon;      ///< us
  std::optional<uint32_t> lowRateThreshold;  ///< bytes per second
  std::optional<uint32_t> defaultRate;       ///< bytes per second (`defrate`)
  std::optional<uint32_t> timerSlack;        ///< ns
  std::optional<bool> horizonDrop;           ///< `horizon_drop` (true) or `horizon_cap` (false)
  friend bool operator==(const FqOptions&, const FqOptions&) = default;
};

/// `netem [limit P] [delay T [JITTER [CORR]]] [loss P% [CORR]] [duplicate P%] [reorder P% [CORR]]
/// [corrupt P%] [rate R]`. Probabilities are fractions of 1 (0.01 = 1%); times in microseconds.
struct NetemOptions {
  uint32_t limit = 1000;
  uint64_t delay = 0;
  uint64_t jitter = 0;
  double delayCorrelation = 0;
  double loss = 0;
  double lossCorrelation = 0;
  double duplicate = 0;
  double duplicateCorrelation = 0;
  double reorder = 0;
  double reorderCorrelation = 0;
  uint32_t gap = 0;
  double corrupt = 0;
  double corruptCorrelation = 0;
  uint64_t rate = 0;  ///< bytes per second; 0: unlimited
  int32_t packetOverhead = 0;  ///< `rate R [PACKETOVERHEAD [CELLSIZE [CELLOVERHEAD]]]`
  uint32_t cellSize = 0;
  int32_t cellOverhead = 0;
  bool ecn = false;  ///< mark ECN-capable packets instead of dropping them (needs a loss model)
  /// `loss state P13 [P31 [P32 [P23 [P14]]]]`: the 4-state Markov loss model (fractions of 1).
  struct LossState {
    double p13 = 0, p31 = 1, p32 = 0, p23 = 1, p14 = 0;
    friend bool operator==(const LossState&, const LossState&) = default;
  };
  std::optional<LossState> lossState;
  /// `loss gemodel P [R [1-H [1-K]]]`: the Gilbert-Elliott model; `oneMinusH` as tc's word says
  /// (the kernel's h is its complement), `k1` as given.
  struct LossGemodel {
    double p = 0, r = 1, oneMinusH = 1, k1 = 0;
    friend bool operator==(const LossGemodel&, const LossGemodel&) = default;
  };
  std::optional<LossGemodel> lossGemodel;
  /// `slot MIN [MAX] [packets N] [bytes B]` or `slot distribution D DELAY JITTER ...`; times in ns.
  struct Slot {
    int64_t minDelay = 0, maxDelay = 0, distDelay = 0, distJitter = 0;
    int32_t maxPackets = 0, maxBytes = 0;
    friend bool operator==(const Slot&, const Slot&) = default;
  };
  std::optional<Slot> slot;
  /// `distribution NAME` / `slot distribution NAME`: the table tc reads from NAME.dist (sent, never
  /// reported back by the kernel).
  std::vector<int16_t> delayDistribution, slotDistribution;
  friend bool operator==(const NetemOptions&, const NetemOptions&) = default;
};

/// `tbf rate R burst B (latency T | limit B) [peakrate R mtu B]`.
struct TbfOptions {
  uint64_t rate = 0;
  uint32_t burst = 0;                 ///< bytes (required)
  std::optional<uint32_t> limit;      ///< bytes
  std::optional<uint64_t> latency;    ///< us; converted to a limit like tc
  std::optional<uint64_t> peakrate;
  std::optional<uint32_t> mtu;        ///< minburst with peakrate
  /// Reported only, never sent: how long a packet may wait in the queue (us), computed from the
  /// limit, the bucket and the rates as tc computes its "lat"; unset when that is negative (a
  /// limit smaller than the bucket).
  std::optional<uint32_t> reportedLatency;
  friend bool operator==(const TbfOptions&, const TbfOptions&) = default;
};

/// Options of a kind fastlink does not decode, kept as the kernel sent them (TCA_OPTIONS payload).
struct RawTcOptions {
  std::vector<uint8_t> bytes;
  friend bool operator==(const RawTcOptions&, const RawTcOptions&) = default;
};

/// The options of a qdisc or class; monostate: none (mq, noqueue, ingress, clsact, or not given).
using TcOptions = std::variant<std::monostate, FifoOptions, PrioOptions, HtbOptions, HtbClassOptions, FqCodelOptions,
                               FqOptions, NetemOptions, TbfOptions, RawTcOptions>;

}  // namespace fastlink
