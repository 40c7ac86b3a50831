// Per-kind tc options (TCA_OPTIONS) and statistics (TCA_STATS2, TCA_STATS_APP): one encoder and
// one decoder per kind, chosen by the kind's name; kinds without a codec are kept raw.
#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <variant>

#include "rtnl/tc_codec.hpp"

namespace fastlink {

std::string tcOptionsKind(const TcOptions& o) {
  struct Name {
    std::string operator()(std::monostate) const { return ""; }
    std::string operator()(const FifoOptions&) const { return "fifo"; }
    std::string operator()(const PrioOptions&) const { return "prio"; }
    std::string operator()(const HtbOptions&) const { return "htb"; }
    std::string operator()(const HtbClassOptions&) const { return "htb class"; }
    std::string operator()(const FqCodelOptions&) const { return "fq_codel"; }
    std::string operator()(const FqOptions&) const { return "fq"; }
    std::string operator()(const NetemOptions&) const { return "netem"; }
    std::string operator()(const TbfOptions&) const { return "tbf"; }
    std::string operator()(const RawTcOptions&) const { return "raw"; }
  };
  return std::visit(Name{}, o);
}

}  // namespace fastlink

namespace fastlink::rtnl {
namespace {

constexpr double kUsPerSecond = 1e6;

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
/// no rate table), rates above 32 bits in the kind's *_RATE64 attribute.
tc_ratespec rateSpec(uint64_t rate) {
  tc_ratespec r{};
  r.linklayer = TC_LINKLAYER_ETHERNET;
  r.rate = clamp32(rate);
  return r;
}

/// TCA_OPTIONS without NLA_F_NESTED, like tc (netem's payload starts with a struct).
struct OptionsNest {
  core::MessageWriter& w;
  std::size_t at;
  explicit OptionsNest(core::MessageWriter& writer) : w(writer), at(writer.beginNest(TCA_OPTIONS)) {}
  void end() {
    w.endNest(at);
    auto* a = reinterpret_cast<nlattr*>(reinterpret_cast<uint8_t*>(w.header()) + at);
    a->nla_type = static_cast<uint16_t>(a->nla_type & ~NLA_F_NESTED);
  }
};

uint32_t probability(double fraction) { return static_cast<uint32_t>(std::rint(fraction * UINT32_MAX)); }
double fraction(uint32_t p) { return static_cast<double>(p) / UINT32_MAX; }

void checkFraction(const Operation& operation, const char* what, double v) {
  if (!(v >= 0 && v <= 1)) throw invalid(operation, std::string("netem ") + what + " must be between 0% and 100%");
}

void encodeHtbClass(core::MessageWriter& w, const HtbClassOptions& o, const Operation& operation) {
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
  OptionsNest nest(w);
  if (o.rate > UINT32_MAX) w.putU64(TCA_HTB_RATE64, o.rate);
  if (ceil > UINT32_MAX) w.putU64(TCA_HTB_CEIL64, ceil);
  putStruct(w, TCA_HTB_PARMS, opt);
  nest.end();
}

void encodeNetem(core::MessageWriter& w, const NetemOptions& o, const Operation& operation) {
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
  tc_netem_qopt q{};
  q.limit = o.limit;
  q.loss = probability(o.loss);
  q.duplicate = probability(o.duplicate);
  q.gap = o.gap ? o.gap : (o.reorder > 0 ? 1 : 0);
  q.latency = clampTicks32(static_cast<double>(o.delay) * ticksPerMicrosecond());
  q.jitter = clampTicks32(static_cast<double>(o.jitter) * ticksPerMicrosecond());
  OptionsNest nest(w);
  w.putEncodedAttributes({reinterpret_cast<const uint8_t*>(&q), sizeof q});
  if (o.delayCorrelation > 0 || o.lossCorrelation > 0 || o.duplicateCorrelation > 0)
    putStruct(w, TCA_NETEM_CORR,
              tc_netem_corr{probability(o.delayCorrelation), probability(o.lossCorrelation), probability(o.duplicateCorrelation)});
  if (o.reorder > 0) putStruct(w, TCA_NETEM_REORDER, tc_netem_reorder{probability(o.reorder), probability(o.reorderCorrelation)});
  if (o.ecn) w.putU32(TCA_NETEM_ECN, 1);
  if (o.corrupt > 0) putStruct(w, TCA_NETEM_CORRUPT, tc_netem_corrupt{probability(o.corrupt), probability(o.corruptCorrelation)});
  if (o.slot) {
    const auto& t = *o.slot;
    putStruct(w, TCA_NETEM_SLOT, tc_netem_slot{t.minDelay, t.maxDelay, t.maxPackets, t.maxBytes, t.distDelay, t.distJitter});
  }
  if (o.lossState || o.lossGemodel) {
    std::size_t loss = w.beginNest(TCA_NETEM_LOSS);
    if (const auto& g = o.lossState)
      putStruct(w, NETEM_LOSS_GI, tc_netem_gimodel{probability(g->p13), probability(g->p31), probability(g->p32),
                                                   probability(g->p14), probability(g->p23)});
    else  // tc's word is 1-h; the kernel keeps h
      putStruct(w, NETEM_LOSS_GE, tc_netem_gemodel{probability(o.lossGemodel->p), probability(o.lossGemodel->r),
                                                   UINT32_MAX - probability(o.lossGemodel->oneMinusH),
                                                   probability(o.lossGemodel->k1)});
    w.endNest(loss);
  }
  if (o.rate > 0) {
    putStruct(w, TCA_NETEM_RATE, tc_netem_rate{clamp32(o.rate), o.packetOverhead, o.cellSize, o.cellOverhead});
    if (o.rate > UINT32_MAX) w.putU64(TCA_NETEM_RATE64, o.rate);
  }
  auto putTable = [&](uint16_t type, const std::vector<int16_t>& table) {
    if (!table.empty()) w.putBytes(type, {reinterpret_cast<const uint8_t*>(table.data()), table.size() * sizeof(int16_t)});
  };
  putTable(TCA_NETEM_DELAY_DIST, o.delayDistribution);
  putTable(TCA_NETEM_SLOT_DIST, o.slotDistribution);
  nest.end();
}

void encodeTbf(core::MessageWriter& w, const TbfOptions& o, const Operation& operation) {
  if (o.rate == 0) throw invalid(operation, "tbf needs a rate above 0");
  if (o.burst == 0) throw invalid(operation, "tbf needs a burst (burst BYTES)");
  if (o.limit.has_value() == o.latency.has_value()) throw invalid(operation, "tbf needs either limit or latency (one of them)");
  if (o.peakrate && !o.mtu) throw invalid(operation, "tbf peakrate needs an mtu (minburst)");
  tc_tbf_qopt q{};
  q.rate = rateSpec(o.rate);
  q.buffer = xmitTicks(o.rate, o.burst);
  if (o.peakrate) {
    q.peakrate = rateSpec(*o.peakrate);
    q.mtu = xmitTicks(*o.peakrate, *o.mtu);
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
  OptionsNest nest(w);
  putStruct(w, TCA_TBF_PARMS, q);
  w.putU32(TCA_TBF_BURST, o.burst);
  if (o.rate > UINT32_MAX) w.putU64(TCA_TBF_RATE64, o.rate);
  if (o.peakrate) {
    w.putU32(TCA_TBF_PBURST, *o.mtu);
    if (*o.peakrate > UINT32_MAX) w.putU64(TCA_TBF_PRATE64, *o.peakrate);
  }
  nest.end();
}

void encodeFqCodel(core::MessageWriter& w, const FqCodelOptions& o) {
  OptionsNest nest(w);
  if (o.limit) w.putU32(TCA_FQ_CODEL_LIMIT, *o.limit);
  if (o.flows) w.putU32(TCA_FQ_CODEL_FLOWS, *o.flows);
  if (o.quantum) w.putU32(TCA_FQ_CODEL_QUANTUM, *o.quantum);
  if (o.target) w.putU32(TCA_FQ_CODEL_TARGET, *o.target);
  if (o.interval) w.putU32(TCA_FQ_CODEL_INTERVAL, *o.interval);
  if (o.ecn) w.putU32(TCA_FQ_CODEL_ECN, *o.ecn ? 1 : 0);
  if (o.ceThreshold) w.putU32(TCA_FQ_CODEL_CE_THRESHOLD, *o.ceThreshold);
  if (o.ceThresholdSelector) w.putU8(TCA_FQ_CODEL_CE_THRESHOLD_SELECTOR, *o.ceThresholdSelector);
  if (o.ceThresholdMask) w.putU8(TCA_FQ_CODEL_CE_THRESHOLD_MASK, *o.ceThresholdMask);
  if (o.memoryLimit) w.putU32(TCA_FQ_CODEL_MEMORY_LIMIT, *o.memoryLimit);
  if (o.dropBatch) w.putU32(TCA_FQ_CODEL_DROP_BATCH_SIZE, *o.dropBatch);
  nest.end();
}

void encodeFq(core::MessageWriter& w, const FqOptions& o) {
  OptionsNest nest(w);
  if (o.limit) w.putU32(TCA_FQ_PLIMIT, *o.limit);
  if (o.flowLimit) w.putU32(TCA_FQ_FLOW_PLIMIT, *o.flowLimit);
  if (o.quantum) w.putU32(TCA_FQ_QUANTUM, *o.quantum);
  if (o.initialQuantum) w.putU32(TCA_FQ_INITIAL_QUANTUM, *o.initialQuantum);
  if (o.pacing) w.putU32(TCA_FQ_RATE_ENABLE, *o.pacing ? 1 : 0);
  if (o.defaultRate) w.putU32(TCA_FQ_FLOW_DEFAULT_RATE, *o.defaultRate);
  if (o.maxRate) w.putU32(TCA_FQ_FLOW_MAX_RATE, *o.maxRate);
  if (o.lowRateThreshold) w.putU32(TCA_FQ_LOW_RATE_THRESHOLD, *o.lowRateThreshold);
  if (o.bucketsLog) w.putU32(TCA_FQ_BUCKETS_LOG, *o.bucketsLog);
  if (o.refillDelay) w.putU32(TCA_FQ_FLOW_REFILL_DELAY, *o.refillDelay);
  if (o.orphanMask) w.putU32(TCA_FQ_ORPHAN_MASK, *o.orphanMask);
  if (o.ceThreshold) w.putU32(TCA_FQ_CE_THRESHOLD, *o.ceThreshold);
  if (o.timerSlack) w.putU32(TCA_FQ_TIMER_SLACK, *o.timerSlack);
  if (o.horizon) w.putU32(TCA_FQ_HORIZON, *o.horizon);
  if (o.horizonDrop) w.putU8(TCA_FQ_HORIZON_DROP, *o.horizonDrop ? 1 : 0);
  nest.end();
}

bool isFifo(const std::string& kind) { return kind == "pfifo" || kind == "bfifo" || kind == "pfifo_head_drop"; }
bool takesNoOptions(const std::string& kind) {
  return kind == "mq" || kind == "noqueue" || kind == "ingress" || kind == "clsact" || kind == "pfifo_fast";
}
bool hasCodec(const std::string& kind) {
  return isFifo(kind) || takesNoOptions(kind) || kind == "htb" || kind == "fq_codel" || kind == "fq" || kind == "netem" ||
         kind == "tbf" || kind == "prio";
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
  double us = kUsPerSecond * static_cast<double>(bytes) / static_cast<double>(rate);
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
  auto mismatch = [&] {
    return invalid(operation, given + " options do not fit " + (isClass ? "a class of kind " : "kind ") +
                                  (kind.empty() ? std::string("(none)") : kind));
  };
  if (takesNoOptions(kind)) throw invalid(operation, kind + " takes no options");
  if (isFifo(kind) && given == "fifo") {
    auto& o = std::get<FifoOptions>(options);
    if (!o.limit) return;
    w.putBytes(TCA_OPTIONS, {reinterpret_cast<const uint8_t*>(&*o.limit), 4});
  } else if (kind == "htb" && !isClass && given == "htb") {
    auto& o = std::get<HtbOptions>(options);
    OptionsNest nest(w);
    tc_htb_glob g{};
    g.version = TC_HTB_PROTOVER;
    g.rate2quantum = o.r2q;
    g.defcls = o.defaultClass;
    putStruct(w, TCA_HTB_INIT, g);
    if (o.directQlen) w.putU32(TCA_HTB_DIRECT_QLEN, *o.directQlen);
    nest.end();
  } else if (kind == "htb" && isClass && given == "htb class") {
    encodeHtbClass(w, std::get<HtbClassOptions>(options), operation);
  } else if (kind == "fq_codel" && !isClass && given == "fq_codel") {
    encodeFqCodel(w, std::get<FqCodelOptions>(options));
  } else if (kind == "fq" && !isClass && given == "fq") {
    encodeFq(w, std::get<FqOptions>(options));
  } else if (kind == "netem" && !isClass && given == "netem") {
    encodeNetem(w, std::get<NetemOptions>(options), operation);
  } else if (kind == "tbf" && !isClass && given == "tbf") {
    encodeTbf(w, std::get<TbfOptions>(options), operation);
  } else if (kind == "prio" && !isClass && given == "prio") {
    auto& o = std::get<PrioOptions>(options);
    if (o.bands < TCQ_MIN_PRIO_BANDS || o.bands > TCQ_PRIO_BANDS) throw invalid(operation, "prio bands must be 2-16");
    tc_prio_qopt q{};
    q.bands = static_cast<int>(o.bands);
    std::memcpy(q.priomap, o.priomap.data(), sizeof q.priomap);
    putStruct(w, TCA_OPTIONS, q);
  } else {
    throw mismatch();
  }
}

namespace {

template <class Each>
void eachNested(const nlattr* nest, std::size_t skip, Each&& each) {
  auto payload = core::readBytes(nest);
  if (payload.size() < skip) return;
  forEachAttr(payload.subspan(MNL_ALIGN(skip) <= payload.size() ? MNL_ALIGN(skip) : payload.size()), each);
}

TcOptions decodeHtb(const nlattr* a, bool isClass) {
  if (!isClass) {
    HtbOptions o;
    eachNested(a, 0, [&](const nlattr* x) {
      if (core::attrType(x) == TCA_HTB_INIT) {
        auto g = readStruct<tc_htb_glob>(x);
        o.version = g.version;
        o.r2q = g.rate2quantum;
        o.defaultClass = g.defcls;
        o.directPackets = g.direct_pkts;
      } else if (core::attrType(x) == TCA_HTB_DIRECT_QLEN) {
        o.directQlen = core::readU32(x);
      }
    });
    return o;
  }
  HtbClassOptions o;
  tc_htb_opt p{};
  std::optional<uint64_t> rate64, ceil64;
  eachNested(a, 0, [&](const nlattr* x) {
    switch (core::attrType(x)) {
      case TCA_HTB_PARMS: p = readStruct<tc_htb_opt>(x); break;
      case TCA_HTB_RATE64: rate64 = core::readU64(x); break;
      case TCA_HTB_CEIL64: ceil64 = core::readU64(x); break;
    }
  });
  o.rate = rate64.value_or(p.rate.rate);
  o.ceil = ceil64.value_or(p.ceil.rate);
  o.burst = xmitSize(o.rate, p.buffer);
  o.cburst = xmitSize(*o.ceil, p.cbuffer);
  o.quantum = p.quantum;
  o.prio = p.prio;
  o.level = p.level;
  return o;
}

TcOptions decodeNetem(const nlattr* a) {
  NetemOptions o;
  auto payload = core::readBytes(a);
  if (payload.size() < sizeof(tc_netem_qopt)) return RawTcOptions{{payload.begin(), payload.end()}};
  tc_netem_qopt q;
  std::memcpy(&q, payload.data(), sizeof q);
  o.limit = q.limit;
  o.loss = fraction(q.loss);
  o.duplicate = fraction(q.duplicate);
  o.gap = q.gap;
  o.delay = roundToUnsigned(q.latency / ticksPerMicrosecond());
  o.jitter = roundToUnsigned(q.jitter / ticksPerMicrosecond());
  eachNested(a, sizeof q, [&](const nlattr* x) {
    switch (core::attrType(x)) {
      case TCA_NETEM_CORR: {
        auto c = readStruct<tc_netem_corr>(x);
        o.delayCorrelation = fraction(c.delay_corr);
        o.lossCorrelation = fraction(c.loss_corr);
        o.duplicateCorrelation = fraction(c.dup_corr);
        break;
      }
      case TCA_NETEM_REORDER: {
        auto r = readStruct<tc_netem_reorder>(x);
        o.reorder = fraction(r.probability);
        o.reorderCorrelation = fraction(r.correlation);
        break;
      }
      case TCA_NETEM_CORRUPT: {
        auto r = readStruct<tc_netem_corrupt>(x);
        o.corrupt = fraction(r.probability);
        o.corruptCorrelation = fraction(r.correlation);
        break;
      }
      case TCA_NETEM_RATE: {
        auto r = readStruct<tc_netem_rate>(x);
        if (!o.rate) o.rate = r.rate;
        o.packetOverhead = r.packet_overhead;
        o.cellSize = r.cell_size;
        o.cellOverhead = r.cell_overhead;
        break;
      }
      case TCA_NETEM_ECN: o.ecn = core::readU32(x) != 0; break;
      case TCA_NETEM_SLOT: {
        auto t = readStruct<tc_netem_slot>(x);
        o.slot = NetemOptions::Slot{t.min_delay, t.max_delay, t.dist_delay, t.dist_jitter, t.max_packets, t.max_bytes};
        break;
      }
      case TCA_NETEM_LOSS:
        eachNested(x, 0, [&](const nlattr* m) {
          if (core::attrType(m) == NETEM_LOSS_GI) {
            auto g = readStruct<tc_netem_gimodel>(m);
            o.lossState = NetemOptions::LossState{fraction(g.p13), fraction(g.p31), fraction(g.p32), fraction(g.p23), fraction(g.p14)};
          } else if (core::attrType(m) == NETEM_LOSS_GE) {
            auto g = readStruct<tc_netem_gemodel>(m);
            o.lossGemodel = NetemOptions::LossGemodel{fraction(g.p), fraction(g.r), fraction(UINT32_MAX - g.h), fraction(g.k1)};
          }
        });
        break;
      case TCA_NETEM_RATE64: o.rate = core::readU64(x); break;
      case TCA_NETEM_LATENCY64: o.delay = static_cast<uint64_t>(core::readU64(x) / 1000); break;
      case TCA_NETEM_JITTER64: o.jitter = static_cast<uint64_t>(core::readU64(x) / 1000); break;
    }
  });
  return o;
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

TcOptions decodeTbf(const nlattr* a) {
  TbfOptions o;
  tc_tbf_qopt q{};
  std::optional<uint64_t> rate64, prate64;
  std::optional<uint32_t> burst, pburst;
  eachNested(a, 0, [&](const nlattr* x) {
    switch (core::attrType(x)) {
      case TCA_TBF_PARMS: q = readStruct<tc_tbf_qopt>(x); break;
      case TCA_TBF_RATE64: rate64 = core::readU64(x); break;
      case TCA_TBF_PRATE64: prate64 = core::readU64(x); break;
      case TCA_TBF_BURST: burst = core::readU32(x); break;
      case TCA_TBF_PBURST: pburst = core::readU32(x); break;
    }
  });
  o.rate = rate64.value_or(q.rate.rate);
  o.burst = burst.value_or(xmitSize(o.rate, q.buffer));
  o.limit = q.limit;
  if (q.peakrate.rate || prate64) {
    o.peakrate = prate64.value_or(q.peakrate.rate);
    o.mtu = pburst.value_or(xmitSize(*o.peakrate, q.mtu));
  }
  o.reportedLatency = tbfLatency(q, o);
  return o;
}

TcOptions decodeFqCodel(const nlattr* a) {
  FqCodelOptions o;
  eachNested(a, 0, [&](const nlattr* x) {
    switch (core::attrType(x)) {
      case TCA_FQ_CODEL_LIMIT: o.limit = core::readU32(x); break;
      case TCA_FQ_CODEL_FLOWS: o.flows = core::readU32(x); break;
      case TCA_FQ_CODEL_QUANTUM: o.quantum = core::readU32(x); break;
      case TCA_FQ_CODEL_TARGET: o.target = core::readU32(x); break;
      case TCA_FQ_CODEL_INTERVAL: o.interval = core::readU32(x); break;
      case TCA_FQ_CODEL_ECN: o.ecn = core::readU32(x) != 0; break;
      case TCA_FQ_CODEL_CE_THRESHOLD: o.ceThreshold = core::readU32(x); break;
      case TCA_FQ_CODEL_MEMORY_LIMIT: o.memoryLimit = core::readU32(x); break;
      case TCA_FQ_CODEL_DROP_BATCH_SIZE: o.dropBatch = core::readU32(x); break;
      case TCA_FQ_CODEL_CE_THRESHOLD_SELECTOR: o.ceThresholdSelector = core::readU8(x); break;
      case TCA_FQ_CODEL_CE_THRESHOLD_MASK: o.ceThresholdMask = core::readU8(x); break;
    }
  });
  return o;
}

TcOptions decodeFq(const nlattr* a) {
  FqOptions o;
  eachNested(a, 0, [&](const nlattr* x) {
    switch (core::attrType(x)) {
      case TCA_FQ_PLIMIT: o.limit = core::readU32(x); break;
      case TCA_FQ_FLOW_PLIMIT: o.flowLimit = core::readU32(x); break;
      case TCA_FQ_QUANTUM: o.quantum = core::readU32(x); break;
      case TCA_FQ_INITIAL_QUANTUM: o.initialQuantum = core::readU32(x); break;
      case TCA_FQ_RATE_ENABLE: o.pacing = core::readU32(x) != 0; break;
      case TCA_FQ_FLOW_MAX_RATE: o.maxRate = core::readU32(x); break;
      case TCA_FQ_BUCKETS_LOG: o.bucketsLog = core::readU32(x); break;
      case TCA_FQ_FLOW_REFILL_DELAY: o.refillDelay = core::readU32(x); break;
      case TCA_FQ_ORPHAN_MASK: o.orphanMask = core::readU32(x); break;
      case TCA_FQ_CE_THRESHOLD: o.ceThreshold = core::readU32(x); break;
      case TCA_FQ_HORIZON: o.horizon = core::readU32(x); break;
      case TCA_FQ_FLOW_DEFAULT_RATE: o.defaultRate = core::readU32(x); break;
      case TCA_FQ_LOW_RATE_THRESHOLD: o.lowRateThreshold = core::readU32(x); break;
      case TCA_FQ_TIMER_SLACK: o.timerSlack = core::readU32(x); break;
      case TCA_FQ_HORIZON_DROP: o.horizonDrop = core::readU8(x) != 0; break;
    }
  });
  return o;
}

}  // namespace

TcOptions decodeTcOptions(const std::string& kind, const nlattr* a, bool isClass) {
  if (!a) return std::monostate{};
  auto payload = core::readBytes(a);
  if (isFifo(kind) && payload.size() >= 4) return FifoOptions{core::readU32(a)};
  if ((kind == "pfifo_fast" || kind == "prio") && payload.size() >= sizeof(tc_prio_qopt)) {
    auto q = readStruct<tc_prio_qopt>(a);
    PrioOptions o;
    o.bands = static_cast<uint32_t>(q.bands);
    std::memcpy(o.priomap.data(), q.priomap, o.priomap.size());
    // prio appends TCA_PRIO_MQ after the struct when multiqueue is on.
    eachNested(a, sizeof q, [&](const nlattr* x) {
      if (core::attrType(x) == 1 /* TCA_PRIO_MQ */) o.multiqueue = core::readU8(x) != 0;
    });
    return o;
  }
  if (kind == "htb") return decodeHtb(a, isClass);
  if (!isClass) {
    if (kind == "netem") return decodeNetem(a);
    if (kind == "tbf") return decodeTbf(a);
    if (kind == "fq_codel") return decodeFqCodel(a);
    if (kind == "fq") return decodeFq(a);
  }
  if (takesNoOptions(kind) && payload.empty()) return std::monostate{};
  return RawTcOptions{{payload.begin(), payload.end()}};
}

TcStats decodeTcStats(const std::string& kind, const nlattr* stats2, bool isClass) {
  TcStats s;
  std::optional<uint64_t> packets64;
  eachNested(stats2, 0, [&](const nlattr* x) {
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
      case TCA_STATS_RATE_EST:
        if (!s.rateBps) {
          auto r = readStruct<gnet_stats_rate_est>(x);
          s.rateBps = r.bps;
          s.ratePps = r.pps;
        }
        break;
      case TCA_STATS_RATE_EST64: {
        auto r = readStruct<gnet_stats_rate_est64>(x);
        s.rateBps = r.bps;
        s.ratePps = r.pps;
        break;
      }
      case TCA_STATS_APP: s.app = core::copyBytes(x); break;
    }
  });
  if (packets64) s.packets = *packets64;
  if (s.app.empty()) return s;
  const nlattr* app = nullptr;
  eachNested(stats2, 0, [&](const nlattr* x) { if (core::attrType(x) == TCA_STATS_APP) app = x; });
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
    o.horizonCaps = f.horizon_caps;
    s.fq = o;
  }
  return s;
}

}  // namespace fastlink::rtnl
