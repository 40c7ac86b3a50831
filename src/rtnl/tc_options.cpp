// Per-kind tc options (TCA_OPTIONS) and statistics (TCA_STATS2, TCA_STATS_APP). Every kind is a
// row of kKinds: its options type, the kinds and scopes it serves, and its codec, an attribute
// table (tc_fields.hpp) over a wire struct that mirrors its TCA_OPTIONS one member per attribute
// (and the struct some kinds put first), with tc's arithmetic between the options and that
// struct written once per direction. Kinds without a row are kept raw.
#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <span>
#include <variant>

#include "rtnl/tc_codec.hpp"
#include "rtnl/tc_fields.hpp"

namespace fastlink::rtnl {
namespace {

constexpr double kUsPerSecond = 1e6;
constexpr FieldContext kTcContext{"decode tc options"};

uint32_t clamp32(uint64_t v) { return v > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(v); }
/// A computed time or size as a u32: negative or NaN as 0, beyond 2^32-1 as UINT32_MAX. Casting
/// an out-of-range double is undefined, and a kernel message (or a user) can ask for any value.
uint32_t clampDouble32(double v) {
  if (!(v > 0)) return 0;
  return v >= static_cast<double>(UINT32_MAX) ? UINT32_MAX : static_cast<uint32_t>(v);
}

/// Ticks rounded to the nearest, at most 32 bits (netem's latency and jitter fields).
uint32_t clampTicks32(double ticks) { return static_cast<uint32_t>(std::min<uint64_t>(roundToUnsigned(ticks), UINT32_MAX)); }

/// A tc_ratespec as tc sends it for a rate in bytes/s: link layer Ethernet (so the kernel needs
/// no rate table), rates above 32 bits in the kind's *_RATE64 attribute (rate64()).
tc_ratespec rateSpec(uint64_t rate) {
  tc_ratespec r{};
  r.linklayer = TC_LINKLAYER_ETHERNET;
  r.rate = clamp32(rate);
  return r;
}
/// The *_RATE64 attribute's value: sent only for a rate beyond the ratespec's 32 bits.
std::optional<uint64_t> rate64(uint64_t rate) { return rate > UINT32_MAX ? std::optional(rate) : std::nullopt; }

uint32_t probability(double fraction) { return static_cast<uint32_t>(std::rint(fraction * UINT32_MAX)); }
double fraction(uint32_t p) { return static_cast<double>(p) / UINT32_MAX; }

void checkFraction(const Operation& operation, const char* what, double v) {
  if (!(v >= 0 && v <= 1)) throw invalid(operation, std::string("netem ") + what + " must be between 0% and 100%");
}

/// A kind whose wire struct is its options: the table's members are the options' own.
template <class Options>
Options same(const Options& o, const Operation&) { return o; }
template <class Options>
TcOptions sameBack(const Options& o) { return o; }

// --- pfifo, bfifo, pfifo_head_drop: tc_fifo_qopt (a u32 limit) is the whole payload.

// --- prio (and pfifo_fast's report): tc_prio_qopt, then TCA_PRIO_MQ when multiqueue is on.
struct PrioWire {
  std::optional<tc_prio_qopt> head;
  std::optional<bool> multiqueue;
};
constexpr FieldTable kPrioFields({core::field<1 /* TCA_PRIO_MQ */, &PrioWire::multiqueue, core::Wire::Reported>()});

PrioWire prioWire(const PrioOptions& o, const Operation& operation) {
  if (o.bands < TCQ_MIN_PRIO_BANDS || o.bands > TCQ_PRIO_BANDS) throw invalid(operation, "prio bands must be 2-16");
  tc_prio_qopt q{};
  q.bands = static_cast<int>(o.bands);
  std::memcpy(q.priomap, o.priomap.data(), sizeof q.priomap);
  return {q, std::nullopt};
}
TcOptions prioOptions(const PrioWire& w) {
  PrioOptions o;
  o.bands = static_cast<uint32_t>(w.head->bands);
  std::memcpy(o.priomap.data(), w.head->priomap, o.priomap.size());
  o.multiqueue = w.multiqueue.value_or(false);
  return o;
}

// --- htb qdisc: tc_htb_glob in TCA_HTB_INIT, the direct queue's length.
struct HtbWire {
  std::optional<tc_htb_glob> init;
  std::optional<uint32_t> directQlen;
};
constexpr FieldTable kHtbFields({structField<TCA_HTB_INIT, &HtbWire::init>(),
                                 core::field<TCA_HTB_DIRECT_QLEN, &HtbWire::directQlen>()});

HtbWire htbWire(const HtbOptions& o, const Operation&) {
  tc_htb_glob g{};
  g.version = TC_HTB_PROTOVER;
  g.rate2quantum = o.r2q;
  g.defcls = o.defaultClass;
  return {g, o.directQlen};
}
TcOptions htbOptions(const HtbWire& w) {
  HtbOptions o;
  if (w.init) {
    o.version = w.init->version;
    o.r2q = w.init->rate2quantum;
    o.defaultClass = w.init->defcls;
    o.directPackets = w.init->direct_pkts;
  }
  o.directQlen = w.directQlen;
  return o;
}

// --- htb class: tc_htb_opt in TCA_HTB_PARMS, rates beyond 32 bits before it.
struct HtbClassWire {
  std::optional<uint64_t> rate64, ceil64;
  std::optional<tc_htb_opt> parms;
};
constexpr FieldTable kHtbClassFields({core::field<TCA_HTB_RATE64, &HtbClassWire::rate64>(),
                                      core::field<TCA_HTB_CEIL64, &HtbClassWire::ceil64>(),
                                      structField<TCA_HTB_PARMS, &HtbClassWire::parms>()});

HtbClassWire htbClassWire(const HtbClassOptions& o, const Operation& operation) {
  if (o.rate == 0) throw invalid(operation, "htb class needs a rate above 0");
  uint64_t ceil = o.ceil.value_or(o.rate);
  if (ceil == 0) throw invalid(operation, "htb ceil must be above 0");
  uint64_t hz = schedulerHz();
  uint32_t burst = o.burst.value_or(clamp32(o.rate / hz + o.mtu));
  uint32_t cburst = o.cburst.value_or(clamp32(ceil / hz + o.mtu));
  tc_htb_opt opt{};
  opt.rate = rateSpec(o.rate);
  opt.ceil = rateSpec(ceil);
  opt.buffer = xmitTicks(o.rate, burst);
  opt.cbuffer = xmitTicks(ceil, cburst);
  opt.quantum = o.quantum.value_or(0);
  opt.prio = o.prio.value_or(0);
  if (opt.prio >= TC_HTB_NUMPRIO) throw invalid(operation, "htb prio must be below 8");
  return {rate64(o.rate), rate64(ceil), opt};
}
TcOptions htbClassOptions(const HtbClassWire& w) {
  tc_htb_opt p = w.parms.value_or(tc_htb_opt{});
  HtbClassOptions o;
  o.rate = w.rate64.value_or(p.rate.rate);
  o.ceil = w.ceil64.value_or(p.ceil.rate);
  o.burst = xmitSize(o.rate, p.buffer);
  o.cburst = xmitSize(*o.ceil, p.cbuffer);
  o.quantum = p.quantum;
  o.prio = p.prio;
  o.level = p.level;
  return o;
}

// --- fq_codel and fq: one u32 attribute per option, the options struct is the wire struct.
constexpr FieldTable kFqCodelFields({
    core::field<TCA_FQ_CODEL_LIMIT, &FqCodelOptions::limit>(),
    core::field<TCA_FQ_CODEL_FLOWS, &FqCodelOptions::flows>(),
    core::field<TCA_FQ_CODEL_QUANTUM, &FqCodelOptions::quantum>(),
    core::field<TCA_FQ_CODEL_TARGET, &FqCodelOptions::target>(),
    core::field<TCA_FQ_CODEL_INTERVAL, &FqCodelOptions::interval>(),
    bool32Field<TCA_FQ_CODEL_ECN, &FqCodelOptions::ecn>(),
    core::field<TCA_FQ_CODEL_CE_THRESHOLD, &FqCodelOptions::ceThreshold>(),
    core::field<TCA_FQ_CODEL_CE_THRESHOLD_SELECTOR, &FqCodelOptions::ceThresholdSelector>(),
    core::field<TCA_FQ_CODEL_CE_THRESHOLD_MASK, &FqCodelOptions::ceThresholdMask>(),
    core::field<TCA_FQ_CODEL_MEMORY_LIMIT, &FqCodelOptions::memoryLimit>(),
    core::field<TCA_FQ_CODEL_DROP_BATCH_SIZE, &FqCodelOptions::dropBatch>(),
});

constexpr FieldTable kFqFields({
    core::field<TCA_FQ_PLIMIT, &FqOptions::limit>(),
    core::field<TCA_FQ_FLOW_PLIMIT, &FqOptions::flowLimit>(),
    core::field<TCA_FQ_QUANTUM, &FqOptions::quantum>(),
    core::field<TCA_FQ_INITIAL_QUANTUM, &FqOptions::initialQuantum>(),
    bool32Field<TCA_FQ_RATE_ENABLE, &FqOptions::pacing>(),
    core::field<TCA_FQ_FLOW_DEFAULT_RATE, &FqOptions::defaultRate>(),
    core::field<TCA_FQ_FLOW_MAX_RATE, &FqOptions::maxRate>(),
    core::field<TCA_FQ_LOW_RATE_THRESHOLD, &FqOptions::lowRateThreshold>(),
    core::field<TCA_FQ_BUCKETS_LOG, &FqOptions::bucketsLog>(),
    core::field<TCA_FQ_FLOW_REFILL_DELAY, &FqOptions::refillDelay>(),
    core::field<TCA_FQ_ORPHAN_MASK, &FqOptions::orphanMask>(),
    core::field<TCA_FQ_CE_THRESHOLD, &FqOptions::ceThreshold>(),
    core::field<TCA_FQ_TIMER_SLACK, &FqOptions::timerSlack>(),
    core::field<TCA_FQ_HORIZON, &FqOptions::horizon>(),
    core::field<TCA_FQ_HORIZON_DROP, &FqOptions::horizonDrop>(),
});

// --- netem: tc_netem_qopt first, then its attributes (64-bit times are reported only; the
// distribution tables are sent only: the kernel never reports them back).
struct NetemWire {
  std::optional<tc_netem_qopt> head;
  std::optional<tc_netem_corr> corr;
  std::optional<tc_netem_reorder> reorder;
  std::optional<bool> ecn;
  std::optional<tc_netem_corrupt> corrupt;
  std::optional<tc_netem_slot> slot;
  std::optional<tc_netem_gimodel> lossState;  ///< in TCA_NETEM_LOSS: NETEM_LOSS_GI
  std::optional<tc_netem_gemodel> lossGemodel;  ///< in TCA_NETEM_LOSS: NETEM_LOSS_GE
  std::optional<tc_netem_rate> rate;
  std::optional<uint64_t> rate64, latency64, jitter64;
  std::span<const int16_t> delayDistribution, slotDistribution;
};

/// TCA_NETEM_LOSS: a nest holding one loss model's struct (the Markov states or Gilbert-Elliott).
constexpr AttrField<NetemWire> netemLossField() {
  auto put = [](core::MessageWriter& w, const AttrField<NetemWire>&, const NetemWire& n) {
    if (!n.lossState && !n.lossGemodel) return;
    std::size_t loss = w.beginNest(TCA_NETEM_LOSS);
    if (n.lossState) putStruct(w, NETEM_LOSS_GI, *n.lossState);
    else putStruct(w, NETEM_LOSS_GE, *n.lossGemodel);
    w.endNest(loss);
  };
  auto get = [](const nlattr* a, NetemWire& n, const FieldContext&) {
    core::forEachAttr(core::nestPayload(a), [&](const nlattr* m) {
      if (core::attrType(m) == NETEM_LOSS_GI) n.lossState = readStruct<tc_netem_gimodel>(m);
      else if (core::attrType(m) == NETEM_LOSS_GE) n.lossGemodel = readStruct<tc_netem_gemodel>(m);
    });
    return true;
  };
  return {TCA_NETEM_LOSS, put, get};
}

/// A distribution table (`distribution NAME`), sent as tc sends it: the s16 values as they are.
template <uint16_t kType, std::span<const int16_t> NetemWire::*kMember>
constexpr AttrField<NetemWire> netemTableField() {
  auto put = [](core::MessageWriter& w, const AttrField<NetemWire>&, const NetemWire& n) {
    const auto& table = n.*kMember;
    if (!table.empty()) w.putBytes(kType, {reinterpret_cast<const uint8_t*>(table.data()), table.size_bytes()});
  };
  return {kType, put, nullptr, nullptr, false, core::Wire::Sent};
}

constexpr FieldTable kNetemFields({
    structField<TCA_NETEM_CORR, &NetemWire::corr>(),
    structField<TCA_NETEM_REORDER, &NetemWire::reorder>(),
    bool32Field<TCA_NETEM_ECN, &NetemWire::ecn>(),
    structField<TCA_NETEM_CORRUPT, &NetemWire::corrupt>(),
    structField<TCA_NETEM_SLOT, &NetemWire::slot>(),
    netemLossField(),
    structField<TCA_NETEM_RATE, &NetemWire::rate>(),
    core::field<TCA_NETEM_RATE64, &NetemWire::rate64>(),
    netemTableField<TCA_NETEM_DELAY_DIST, &NetemWire::delayDistribution>(),
    netemTableField<TCA_NETEM_SLOT_DIST, &NetemWire::slotDistribution>(),
    core::field<TCA_NETEM_LATENCY64, &NetemWire::latency64, core::Wire::Reported>(),
    core::field<TCA_NETEM_JITTER64, &NetemWire::jitter64, core::Wire::Reported>(),
});

NetemWire netemWire(const NetemOptions& o, const Operation& operation) {
  checkFraction(operation, "loss", o.loss);
  checkFraction(operation, "duplicate", o.duplicate);
  checkFraction(operation, "reorder", o.reorder);
  checkFraction(operation, "corrupt", o.corrupt);
  for (double c : {o.delayCorrelation, o.lossCorrelation, o.duplicateCorrelation, o.reorderCorrelation, o.corruptCorrelation})
    checkFraction(operation, "correlation", c);
  if (o.reorder > 0 && o.delay == 0) throw invalid(operation, "netem reorder needs a delay (packets are reordered by delaying the others)");
  if (o.ecn && o.loss <= 0 && !o.lossState && !o.lossGemodel) throw invalid(operation, "netem ecn needs a loss model");
  if (o.lossState)
    for (double p : {o.lossState->p13, o.lossState->p31, o.lossState->p32, o.lossState->p23, o.lossState->p14})
      checkFraction(operation, "loss state", p);
  if (o.lossGemodel)
    for (double p : {o.lossGemodel->p, o.lossGemodel->r, o.lossGemodel->oneMinusH, o.lossGemodel->k1})
      checkFraction(operation, "loss gemodel", p);
  NetemWire w;
  tc_netem_qopt q{};
  q.limit = o.limit;
  q.loss = probability(o.loss);
  q.duplicate = probability(o.duplicate);
  q.gap = o.gap ? o.gap : (o.reorder > 0 ? 1 : 0);
  q.latency = clampTicks32(static_cast<double>(o.delay) * ticksPerMicrosecond());
  q.jitter = clampTicks32(static_cast<double>(o.jitter) * ticksPerMicrosecond());
  w.head = q;
  if (o.delayCorrelation > 0 || o.lossCorrelation > 0 || o.duplicateCorrelation > 0)
    w.corr = tc_netem_corr{probability(o.delayCorrelation), probability(o.lossCorrelation), probability(o.duplicateCorrelation)};
  if (o.reorder > 0) w.reorder = tc_netem_reorder{probability(o.reorder), probability(o.reorderCorrelation)};
  if (o.ecn) w.ecn = true;
  if (o.corrupt > 0) w.corrupt = tc_netem_corrupt{probability(o.corrupt), probability(o.corruptCorrelation)};
  if (const auto& t = o.slot) w.slot = tc_netem_slot{t->minDelay, t->maxDelay, t->maxPackets, t->maxBytes, t->distDelay, t->distJitter};
  if (const auto& g = o.lossState)
    w.lossState = tc_netem_gimodel{probability(g->p13), probability(g->p31), probability(g->p32), probability(g->p14), probability(g->p23)};
  else if (const auto& e = o.lossGemodel)  // tc's word is 1-h; the kernel keeps h
    w.lossGemodel = tc_netem_gemodel{probability(e->p), probability(e->r), UINT32_MAX - probability(e->oneMinusH), probability(e->k1)};
  if (o.rate > 0) w.rate = tc_netem_rate{clamp32(o.rate), o.packetOverhead, o.cellSize, o.cellOverhead};
  w.rate64 = rate64(o.rate);
  w.delayDistribution = o.delayDistribution;
  w.slotDistribution = o.slotDistribution;
  return w;
}
TcOptions netemOptions(const NetemWire& w) {
  const tc_netem_qopt& q = *w.head;
  NetemOptions o;
  o.limit = q.limit;
  o.loss = fraction(q.loss);
  o.duplicate = fraction(q.duplicate);
  o.gap = q.gap;
  o.delay = w.latency64 ? *w.latency64 / 1000 : roundToUnsigned(q.latency / ticksPerMicrosecond());
  o.jitter = w.jitter64 ? *w.jitter64 / 1000 : roundToUnsigned(q.jitter / ticksPerMicrosecond());
  if (w.corr) {
    o.delayCorrelation = fraction(w.corr->delay_corr);
    o.lossCorrelation = fraction(w.corr->loss_corr);
    o.duplicateCorrelation = fraction(w.corr->dup_corr);
  }
  if (w.reorder) o.reorder = fraction(w.reorder->probability), o.reorderCorrelation = fraction(w.reorder->correlation);
  if (w.corrupt) o.corrupt = fraction(w.corrupt->probability), o.corruptCorrelation = fraction(w.corrupt->correlation);
  o.rate = w.rate64 ? *w.rate64 : (w.rate ? w.rate->rate : 0);
  if (w.rate) o.packetOverhead = w.rate->packet_overhead, o.cellSize = w.rate->cell_size, o.cellOverhead = w.rate->cell_overhead;
  o.ecn = w.ecn.value_or(false);
  if (const auto& t = w.slot)
    o.slot = NetemOptions::Slot{t->min_delay, t->max_delay, t->dist_delay, t->dist_jitter, t->max_packets, t->max_bytes};
  if (const auto& g = w.lossState)
    o.lossState = NetemOptions::LossState{fraction(g->p13), fraction(g->p31), fraction(g->p32), fraction(g->p23), fraction(g->p14)};
  if (const auto& e = w.lossGemodel)
    o.lossGemodel = NetemOptions::LossGemodel{fraction(e->p), fraction(e->r), fraction(UINT32_MAX - e->h), fraction(e->k1)};
  return o;
}

// --- tbf: tc_tbf_qopt in TCA_TBF_PARMS, the buckets in bytes, rates beyond 32 bits.
struct TbfWire {
  std::optional<tc_tbf_qopt> parms;
  std::optional<uint32_t> burst;
  std::optional<uint64_t> rate64;
  std::optional<uint32_t> pburst;
  std::optional<uint64_t> prate64;
};
constexpr FieldTable kTbfFields({structField<TCA_TBF_PARMS, &TbfWire::parms>(), core::field<TCA_TBF_BURST, &TbfWire::burst>(),
                                 core::field<TCA_TBF_RATE64, &TbfWire::rate64>(), core::field<TCA_TBF_PBURST, &TbfWire::pburst>(),
                                 core::field<TCA_TBF_PRATE64, &TbfWire::prate64>()});

TbfWire tbfWire(const TbfOptions& o, const Operation& operation) {
  if (o.rate == 0) throw invalid(operation, "tbf needs a rate above 0");
  if (o.burst == 0) throw invalid(operation, "tbf needs a burst (burst BYTES)");
  if (o.limit.has_value() == o.latency.has_value()) throw invalid(operation, "tbf needs either limit or latency (one of them)");
  if (o.peakrate && !o.mtu) throw invalid(operation, "tbf peakrate needs an mtu (minburst)");
  TbfWire w;
  tc_tbf_qopt q{};
  q.rate = rateSpec(o.rate);
  // tc 6.1 times the bucket at the 32-bit rate (tc_tbf_qopt's, ~0U above 34 Gbit: strace of
  // `tbf rate 40gbit burst 1mb`: 3812 ticks); the kernel reads TCA_TBF_BURST instead anyway.
  q.buffer = xmitTicks(q.rate.rate, o.burst);
  if (o.peakrate) {
    q.peakrate = rateSpec(*o.peakrate);
    q.mtu = xmitTicks(q.peakrate.rate, *o.mtu);
    w.pburst = *o.mtu;
    w.prate64 = rate64(*o.peakrate);
  }
  if (o.limit) {
    q.limit = *o.limit;
  } else {
    double limit = static_cast<double>(o.rate) * static_cast<double>(*o.latency) / kUsPerSecond + o.burst;
    if (o.peakrate) {
      double peak = static_cast<double>(*o.peakrate) * static_cast<double>(*o.latency) / kUsPerSecond + *o.mtu;
      if (peak < limit) limit = peak;
    }
    q.limit = clampDouble32(limit);
  }
  w.parms = q;
  w.burst = o.burst;
  w.rate64 = rate64(o.rate);
  return w;
}

// tc's "lat": the time to send the limit at the rate, less the bucket's time (and the same at
// the peak rate, if that is longer), in us; none when negative.
std::optional<uint32_t> tbfLatency(const tc_tbf_qopt& q, const TbfOptions& o) {
  if (o.rate == 0) return std::nullopt;
  double limit = static_cast<double>(q.limit);
  double latency = kUsPerSecond * limit / static_cast<double>(o.rate) - q.buffer / ticksPerMicrosecond();
  if (o.peakrate && *o.peakrate)
    latency = std::max(latency, kUsPerSecond * limit / static_cast<double>(*o.peakrate) - q.mtu / ticksPerMicrosecond());
  if (!(latency >= 0)) return std::nullopt;
  return clampDouble32(latency);
}

TcOptions tbfOptions(const TbfWire& w) {
  tc_tbf_qopt q = w.parms.value_or(tc_tbf_qopt{});
  TbfOptions o;
  o.rate = w.rate64.value_or(q.rate.rate);
  o.burst = w.burst.value_or(xmitSize(o.rate, q.buffer));
  o.limit = q.limit;
  if (q.peakrate.rate || w.prate64) {
    o.peakrate = w.prate64.value_or(q.peakrate.rate);
    o.mtu = w.pburst.value_or(xmitSize(*o.peakrate, q.mtu));
  }
  o.reportedLatency = tbfLatency(q, o);
  return o;
}

/// The table of a kind whose payload is its head struct alone (fifo).
constexpr std::nullptr_t kNoFields = nullptr;

/// One kind's TCA_OPTIONS codec: options <-> wire struct (toWire validates and computes what tc
/// computes; both identities where the options are their own wire struct), wire struct <->
/// bytes by the table. kHead: the wire struct's member holding the struct the payload starts
/// with (nullptr: the payload is attributes only); a payload shorter than it is kept raw.
template <class Options, const auto& kTable, auto kHead = nullptr, auto toWire = same<Options>, auto fromWire = sameBack<Options>>
struct Codec {
  using W = decltype(toWire(std::declval<const Options&>(), std::declval<const Operation&>()));
  static void encode(core::MessageWriter& w, const TcOptions& options, const Operation& operation) {
    W wire = toWire(std::get<Options>(options), operation);
    // TCA_OPTIONS without NLA_F_NESTED, like tc (netem's payload starts with a struct).
    std::size_t at = 0;
    if constexpr (kHead != nullptr) {
      const auto& head = wire.*kHead;
      if (!head) return;  // fifo without a limit: no TCA_OPTIONS at all
      at = w.beginNest(TCA_OPTIONS);
      w.putEncodedAttributes({reinterpret_cast<const uint8_t*>(&*head), sizeof *head});
    } else {
      at = w.beginNest(TCA_OPTIONS);
    }
    if constexpr (!std::is_same_v<std::remove_cvref_t<decltype(kTable)>, std::nullptr_t>) kTable.encode(w, wire);
    w.endNest(at);
    auto* a = reinterpret_cast<nlattr*>(reinterpret_cast<uint8_t*>(w.header()) + at);
    a->nla_type = static_cast<uint16_t>(a->nla_type & ~NLA_F_NESTED);
  }
  static TcOptions decode(const nlattr* a) {
    auto payload = core::readBytes(a);
    W wire{};
    if constexpr (kHead != nullptr) {
      using S = typename std::remove_reference_t<decltype(wire.*kHead)>::value_type;
      if (payload.size() < sizeof(S)) return RawTcOptions{{payload.begin(), payload.end()}};
      S head;
      std::memcpy(&head, payload.data(), sizeof head);
      wire.*kHead = head;
      payload = payload.subspan(std::min<std::size_t>(MNL_ALIGN(sizeof(S)), payload.size()));
    }
    if constexpr (!std::is_same_v<std::remove_cvref_t<decltype(kTable)>, std::nullptr_t>) decodeFields(payload, kTable, wire, kTcContext);
    return fromWire(wire);
  }
};
enum Scope : uint8_t { kNone = 0, kQdisc = 1, kClass = 2, kBoth = 3 };

/// A row of the kinds fastlink decodes: `name` is tcOptionsKind's for the options (the variant
/// alternative `index`), `kind` the qdisc kind it serves; encodes/decodes: as a qdisc's or a
/// class's options.
struct TcKind {
  const char* kind;
  const char* name;
  std::size_t index;
  Scope encodes, decodes;
  void (*encode)(core::MessageWriter&, const TcOptions&, const Operation&);
  TcOptions (*decode)(const nlattr*);
};

template <class Options, class C>
constexpr TcKind kindRow(const char* kind, const char* name, Scope encodes, Scope decodes) {
  return {kind, name, VariantIndex<Options, TcOptions>::value, encodes, decodes, C::encode, C::decode};
}

using Fifo = Codec<FifoOptions, kNoFields, &FifoOptions::limit>;
using Prio = Codec<PrioOptions, kPrioFields, &PrioWire::head, prioWire, prioOptions>;
using Htb = Codec<HtbOptions, kHtbFields, nullptr, htbWire, htbOptions>;
using HtbClass = Codec<HtbClassOptions, kHtbClassFields, nullptr, htbClassWire, htbClassOptions>;
using FqCodel = Codec<FqCodelOptions, kFqCodelFields>;
using Fq = Codec<FqOptions, kFqFields>;
using Netem = Codec<NetemOptions, kNetemFields, &NetemWire::head, netemWire, netemOptions>;
using Tbf = Codec<TbfOptions, kTbfFields, nullptr, tbfWire, tbfOptions>;

constexpr TcKind kKinds[] = {
    kindRow<FifoOptions, Fifo>("pfifo", "fifo", kBoth, kBoth),
    kindRow<FifoOptions, Fifo>("bfifo", "fifo", kBoth, kBoth),
    kindRow<FifoOptions, Fifo>("pfifo_head_drop", "fifo", kBoth, kBoth),
    kindRow<PrioOptions, Prio>("prio", "prio", kQdisc, kBoth),
    kindRow<PrioOptions, Prio>("pfifo_fast", "prio", kNone, kBoth),  // reports a priomap, takes none
    kindRow<HtbOptions, Htb>("htb", "htb", kQdisc, kQdisc),
    kindRow<HtbClassOptions, HtbClass>("htb", "htb class", kClass, kClass),
    kindRow<FqCodelOptions, FqCodel>("fq_codel", "fq_codel", kQdisc, kQdisc),
    kindRow<FqOptions, Fq>("fq", "fq", kQdisc, kQdisc),
    kindRow<NetemOptions, Netem>("netem", "netem", kQdisc, kQdisc),
    kindRow<TbfOptions, Tbf>("tbf", "tbf", kQdisc, kQdisc),
};

bool takesNoOptions(const std::string& kind) {
  return kind == "mq" || kind == "noqueue" || kind == "ingress" || kind == "clsact" || kind == "pfifo_fast";
}
bool hasCodec(const std::string& kind) {
  return takesNoOptions(kind) || std::any_of(std::begin(kKinds), std::end(kKinds), [&](const TcKind& k) { return kind == k.kind; });
}
/// The row serving `kind` in `scope` whose options are the variant alternative `index`
/// (SIZE_MAX: any); nullptr when none does.
const TcKind* findKind(const std::string& kind, Scope TcKind::*scope, Scope want, std::size_t index = SIZE_MAX) {
  for (const TcKind& k : kKinds)
    if (kind == k.kind && (k.*scope & want) && (index == SIZE_MAX || index == k.index)) return &k;
  return nullptr;
}

}  // namespace

double ticksPerMicrosecond() {
  static const double ticks = [] {
    double t = 15.625;  // 1000/64: the kernel's 64 ns ticks
    if (std::FILE* f = std::fopen("/proc/net/psched", "r")) {
      unsigned t2us = 0, us2t = 0, res = 0;
      if (std::fscanf(f, "%08x%08x%08x", &t2us, &us2t, &res) == 3 && us2t && res) {
        double factor = res == 1000000000 ? 1 : static_cast<double>(res) / kUsPerSecond;
        t = static_cast<double>(t2us) / us2t * factor;
      }
      std::fclose(f);
    }
    return t;
  }();
  return ticks;
}

uint64_t schedulerHz() {
  static const uint64_t hz = [] {
    uint64_t h = 1000000000;
    if (std::FILE* f = std::fopen("/proc/net/psched", "r")) {
      unsigned nom = 0, denom = 0;
      if (std::fscanf(f, "%*08x%*08x%08x%08x", &nom, &denom) == 2 && nom == 1000000 && denom) h = denom;
      std::fclose(f);
    }
    return h;
  }();
  return hz;
}

uint32_t xmitTicks(uint64_t rate, uint32_t bytes) {
  if (rate == 0) return 0;
  // tc's tc_calc_xmittime: the time in whole microseconds first (tc_core_time2tick takes an
  // unsigned int), then the ticks, truncated: 1600 bytes at 1gbit are 12.8 us read as 12, 187
  // ticks (tc prints burst 1375b), not 200 (1500b).
  double us = std::floor(kUsPerSecond * static_cast<double>(bytes) / static_cast<double>(rate));
  return clampDouble32(us * ticksPerMicrosecond());
}

uint32_t xmitSize(uint64_t rate, uint32_t ticks) {
  // tc's tc_calc_xmitsize: the ticks as whole microseconds first (tc_core_tick2time returns an
  // unsigned int), then the bytes, truncated. Above ~1 Gbit a burst of a few ticks loses a
  // fifth to the first truncation (10gbit, 20 ticks: 1.28 us read as 1 us, 1250b not 1600b):
  // the size tc prints, which is what a reader compares with.
  double us = std::floor(static_cast<double>(ticks) / ticksPerMicrosecond());
  return clampDouble32(static_cast<double>(rate) * us / kUsPerSecond);
}

void encodeTcOptions(core::MessageWriter& w, const std::string& kind, const TcOptions& options, bool isClass,
                     const Operation& operation) {
  std::string given = tcOptionsKind(options);
  if (given.empty()) {
    if (isClass && kind == "htb") throw invalid(operation, "an htb class needs options (at least a rate)");
    if (!isClass && kind == "tbf") throw invalid(operation, "tbf needs options (rate, burst, limit or latency)");
    // htb and netem refuse a qdisc without options; tc sends their defaults.
    if (!isClass && kind == "htb") return encodeTcOptions(w, kind, HtbOptions{}, false, operation);
    if (!isClass && kind == "netem") return encodeTcOptions(w, kind, NetemOptions{}, false, operation);
    return;
  }
  if (given == "raw") {
    if (hasCodec(kind)) throw invalid(operation, "raw options are only for kinds fastlink does not know; " + kind + " takes typed options");
    w.putBytes(TCA_OPTIONS, std::get<RawTcOptions>(options).bytes);
    return;
  }
  if (takesNoOptions(kind)) throw invalid(operation, kind + " takes no options");
  const TcKind* codec = findKind(kind, &TcKind::encodes, isClass ? kClass : kQdisc, options.index());
  if (!codec)
    throw invalid(operation, given + " options do not fit " + (isClass ? "a class of kind " : "kind ") +
                                 (kind.empty() ? std::string("(none)") : kind));
  codec->encode(w, options, operation);
}

TcOptions decodeTcOptions(const std::string& kind, const nlattr* a, bool isClass) {
  if (!a) return std::monostate{};
  if (const TcKind* codec = findKind(kind, &TcKind::decodes, isClass ? kClass : kQdisc)) {
    TcOptions o = codec->decode(a);
    // pfifo_fast's struct too short to read: an empty payload is "no options", as for mq.
    if (!std::holds_alternative<RawTcOptions>(o) || !takesNoOptions(kind)) return o;
  }
  auto payload = core::readBytes(a);
  if (takesNoOptions(kind) && payload.empty()) return std::monostate{};
  return RawTcOptions{{payload.begin(), payload.end()}};
}

TcStats decodeTcStats(const std::string& kind, const nlattr* stats2, bool isClass) {
  TcStats s;
  std::optional<uint64_t> packets64;
  const nlattr* app = nullptr;  // the last TCA_STATS_APP, read by the kind below
  auto rate = [&](const auto& r) { s.rateBps = r.bps, s.ratePps = r.pps; };
  core::forEachAttr(core::nestPayload(stats2), [&](const nlattr* x) {
    switch (core::attrType(x)) {
      case TCA_STATS_BASIC: {
        auto b = readStruct<gnet_stats_basic>(x);
        s.bytes = b.bytes;
        s.packets = b.packets;
        break;
      }
      case TCA_STATS_PKT64: packets64 = core::readU64(x); break;
      case TCA_STATS_QUEUE: {
        auto q = readStruct<gnet_stats_queue>(x);
        s.qlen = q.qlen;
        s.backlog = q.backlog;
        s.drops = q.drops;
        s.requeues = q.requeues;
        s.overlimits = q.overlimits;
        break;
      }
      // The 64-bit estimate wins over the 32-bit one, whichever comes first.
      case TCA_STATS_RATE_EST:
        if (!s.rateBps) rate(readStruct<gnet_stats_rate_est>(x));
        break;
      case TCA_STATS_RATE_EST64: rate(readStruct<gnet_stats_rate_est64>(x)); break;
      case TCA_STATS_APP: s.app = core::copyBytes(x), app = x; break;
    }
  });
  if (packets64) s.packets = *packets64;
  if (s.app.empty()) return s;
  if (kind == "htb" && isClass) {
    auto h = readStruct<tc_htb_xstats>(app);
    s.htb = HtbStats{h.lends, h.borrows, h.giants, h.tokens, h.ctokens};
  } else if (kind == "fq_codel" && s.app.size() >= 4) {
    auto f = readStruct<tc_fq_codel_xstats>(app);
    FqCodelStats o;
    o.isClass = f.type == TCA_FQ_CODEL_XSTATS_CLASS;
    if (o.isClass) {
      auto& c = f.class_stats;
      o.deficit = c.deficit, o.ldelay = c.ldelay, o.count = c.count, o.lastcount = c.lastcount, o.dropping = c.dropping,
      o.dropNext = c.drop_next;
    } else {
      auto& q = f.qdisc_stats;
      o.maxPacket = q.maxpacket, o.dropOverlimit = q.drop_overlimit, o.ecnMark = q.ecn_mark, o.newFlowCount = q.new_flow_count,
      o.newFlowsLen = q.new_flows_len, o.oldFlowsLen = q.old_flows_len, o.ceMark = q.ce_mark, o.memoryUsage = q.memory_usage,
      o.dropOvermemory = q.drop_overmemory;
    }
    s.fqCodel = o;
  } else if (kind == "fq" && !isClass) {
    auto f = readStruct<tc_fq_qd_stats>(app);
    FqStats o;
    o.gcFlows = f.gc_flows, o.highprioPackets = f.highprio_packets, o.throttled = f.throttled, o.flowsPlimit = f.flows_plimit,
    o.pktsTooLong = f.pkts_too_long, o.allocationErrors = f.allocation_errors, o.timeNextDelayedFlow = f.time_next_delayed_flow,
    o.flows = f.flows, o.inactiveFlows = f.inactive_flows, o.throttledFlows = f.throttled_flows,
    o.unthrottleLatencyNs = f.unthrottle_latency_ns, o.ceMark = f.ce_mark, o.horizonDrops = f.horizon_drops,
    o.horizonCaps = f.horizon_caps, o.tcpRetrans = f.tcp_retrans;
    s.fq = o;
  }
  return s;
}

}  // namespace fastlink::rtnl

namespace fastlink {

std::string tcOptionsKind(const TcOptions& o) {
  if (std::holds_alternative<std::monostate>(o)) return "";
  if (std::holds_alternative<RawTcOptions>(o)) return "raw";
  for (const rtnl::TcKind& k : rtnl::kKinds)
    if (k.index == o.index()) return k.name;
  return "";
}

}  // namespace fastlink
