// `fastlink tc` output, written after iproute2 6.1's tc: the same words, order and spacing
// (including the trailing spaces tc leaves), and the same JSON keys.
#include "rtnl/tc_print.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <variant>

#include "kit/fields.hpp"

namespace fastlink::cli {
namespace {

using Json = nlohmann::ordered_json;
using namespace fastlink::tcunits;

std::string hexOrZero(uint32_t v) { return v ? fmt::format("{:#x}", v) : "0"; }

std::string percent(double fraction) { return fmt::format("{:g}%", fraction * 100); }

/// A number as tc's JSON writes a float (printf's %g: six significant digits), so that -j prints
/// 0.05 where the kernel's 32-bit probability is 0.0500000000116; whole numbers as integers ("0",
/// not "0.0").
Json g6(double v) {
  double rounded = std::strtod(fmt::format("{:g}", v).c_str(), nullptr);
  if (rounded == std::trunc(rounded) && std::abs(rounded) < 1e15) return static_cast<int64_t>(rounded);
  return rounded;
}

/// tc's sprint_time of microseconds: three significant digits in s or ms, else whole us.
std::string latencyText(uint32_t us) {
  double v = us;
  if (us >= 1000000) return fmt::format("{:.3g}s", v / 1e6);
  if (us >= 1000) return fmt::format("{:.3g}ms", v / 1e3);
  return fmt::format("{}us", us);
}

// Each kind's options: appended to the qdisc line in text, tc's JSON "options" keys.
struct OptionsPrinter {
  const std::string& kind;
  bool isClass;
  bool details;
  FieldOut& f;
  bool iec = false;
  std::string rateText(uint64_t bytesPerSecond) const { return tcunits::rateText(bytesPerSecond, iec); }

  void operator()(std::monostate) const {
    if (kind == "ingress") f.text("---------------- ");
  }
  void operator()(const FifoOptions& o) const {
    uint32_t limit = o.limit.value_or(0);
    if (kind == "bfifo") f.any("limit", limit, "limit {}", sizeText(limit));
    else f.any("limit", "limit {}p", limit);
  }
  void operator()(const PrioOptions& o) const {
    f.any("bands", "bands {} priomap", o.bands).json("priomap", o.priomap);
    for (uint8_t p : o.priomap) f.text(" {}", p);
    f.json("multiqueue", o.multiqueue);
    if (o.multiqueue) f.text(" multiqueue on");
  }
  void operator()(const HtbOptions& o) const {
    f.any("r2q", "r2q {}", o.r2q).any("default", " default {}", hexOrZero(o.defaultClass));
    f.any("direct_packets_stat", " direct_packets_stat {}", o.directPackets);
    if (details) f.text(" ver {}.{}", o.version >> 16, o.version & 0xFFFF);
    if (o.directQlen) f.any("direct_qlen", " direct_qlen {}", *o.directQlen);
  }
  void operator()(const HtbClassOptions& o) const {
    if (o.level == 0) {
      f.any("prio", "prio {} ", o.prio.value_or(0));
      if (details) f.any("quantum", "quantum {} ", o.quantum.value_or(0));
    }
    uint64_t ceil = o.ceil.value_or(o.rate);
    f.any("rate", o.rate, "rate {} ", rateText(o.rate)).any("ceil", ceil, "ceil {} ", rateText(ceil));
    if (details) f.text("linklayer ethernet ");
    const char* cell = details ? "/1 mpu 0b" : "";
    uint32_t burst = o.burst.value_or(0), cburst = o.cburst.value_or(0);
    f.any("burst", burst, "burst {} ", sizeText(burst) + cell).any("cburst", cburst, "cburst {} ", sizeText(cburst) + cell);
    if (details) f.any("level", "level {} ", o.level);
  }
  void operator()(const FqCodelOptions& o) const {
    if (o.limit) f.any("limit", "limit {}p ", *o.limit);
    if (o.flows) f.any("flows", "flows {} ", *o.flows);
    if (o.quantum) f.any("quantum", "quantum {} ", *o.quantum);
    if (o.target) f.any("target", *o.target, "target {} ", time64Text(uint64_t{*o.target} * 1000));
    if (o.ceThreshold) f.any("ce_threshold", *o.ceThreshold, "ce_threshold {} ", time64Text(uint64_t{*o.ceThreshold} * 1000));
    if (o.ceThresholdSelector.value_or(0) || o.ceThresholdMask.value_or(0)) {
      uint8_t selector = o.ceThresholdSelector.value_or(0), mask = o.ceThresholdMask.value_or(0);
      f.any("ce_threshold_selector", selector, "ce_threshold_selector {}", hexOrZero(selector));
      f.any("ce_threshold_mask", mask, "/{} ", hexOrZero(mask));
    }
    if (o.interval) f.any("interval", *o.interval, "interval {} ", time64Text(uint64_t{*o.interval} * 1000));
    if (o.memoryLimit) f.any("memory_limit", *o.memoryLimit, "memory_limit {} ", sizeText(*o.memoryLimit));
    if (o.ecn.value_or(false)) f.flag("ecn", "ecn ");
    if (o.dropBatch) f.any("drop_batch", "drop_batch {} ", *o.dropBatch);
  }
  void operator()(const FqOptions& o) const {
    if (o.limit) f.any("limit", "limit {}p ", *o.limit);
    if (o.flowLimit) f.any("flow_limit", "flow_limit {}p ", *o.flowLimit);
    if (o.bucketsLog) f.any("buckets", "buckets {} ", 1u << *o.bucketsLog);
    if (o.orphanMask) f.any("orphan_mask", "orphan_mask {} ", *o.orphanMask);
    if (o.pacing && !*o.pacing) f.json("pacing", false).text("nopacing ");
    if (o.quantum) f.any("quantum", *o.quantum, "quantum {} ", sizeText(*o.quantum));
    if (o.initialQuantum) f.any("initial_quantum", *o.initialQuantum, "initial_quantum {} ", sizeText(*o.initialQuantum));
    if (o.maxRate && *o.maxRate != UINT32_MAX) f.any("maxrate", *o.maxRate, "maxrate {} ", rateText(*o.maxRate));
    if (o.defaultRate.value_or(0)) f.any("defrate", *o.defaultRate, "defrate {} ", rateText(*o.defaultRate));
    if (o.lowRateThreshold.value_or(0))
      f.any("low_rate_threshold", *o.lowRateThreshold, "low_rate_threshold {} ", rateText(*o.lowRateThreshold));
    if (o.refillDelay) f.any("refill_delay", *o.refillDelay, "refill_delay {} ", timeText(*o.refillDelay));
    if (o.ceThreshold && *o.ceThreshold != UINT32_MAX)
      f.any("ce_threshold", *o.ceThreshold, "ce_threshold {} ", timeText(*o.ceThreshold));
    if (o.timerSlack) f.any("timer_slack", *o.timerSlack, "timer_slack {} ", time64Text(*o.timerSlack));
    if (o.horizon) f.any("horizon", *o.horizon, "horizon {} ", timeText(*o.horizon));
    if (o.horizonDrop) f.any(*o.horizonDrop ? "horizon_drop" : "horizon_cap", nullptr, "{}", *o.horizonDrop ? "horizon_drop " : "horizon_cap ");
  }
  /// A netem chance: " word P%" and, when `showCorrelation`, " C%" in text; in JSON an object
  /// `key: {word: p, "correlation": c}`, the correlation always there (tc's print_corr).
  void chance(const char* key, const char* word, double p, double correlation, bool showCorrelation) const {
    f.object(key, [&](FieldOut& c) {
      c.any(word, g6(p), " {}", fmt::format("{} {}", word, percent(p)));
      c.any("correlation", g6(correlation), "{}", showCorrelation ? " " + percent(correlation) : "");
    });
  }
  void operator()(const NetemOptions& o) const {
    f.any("limit", "limit {}", o.limit);
    if (o.delay) {
      f.object("delay", [&](FieldOut& d) {
        d.any("delay", g6(static_cast<double>(o.delay) / 1e6), " delay {}", timeText(o.delay));
        d.any("jitter", g6(static_cast<double>(o.jitter) / 1e6), "{}", o.jitter ? "  " + timeText(o.jitter) : "");
        d.any("correlation", g6(o.delayCorrelation), "{}", o.jitter && o.delayCorrelation > 0 ? " " + percent(o.delayCorrelation) : "");
      });
    }
    if (o.loss > 0) chance("loss-random", "loss", o.loss, o.lossCorrelation, o.lossCorrelation > 0);
    if (const auto& g = o.lossState) {
      f.object("loss-state", [&](FieldOut& m) {
        m.any("p13", g6(g->p13), " loss state p13 {}", percent(g->p13)).any("p31", g6(g->p31), " p31 {}", percent(g->p31));
        m.any("p32", g6(g->p32), " p32 {}", percent(g->p32)).any("p23", g6(g->p23), " p23 {}", percent(g->p23));
        m.any("p14", g6(g->p14), " p14 {}", percent(g->p14));
      });
    }
    if (const auto& g = o.lossGemodel) {
      f.object("loss-gemodel", [&](FieldOut& m) {
        m.any("p", g6(g->p), " loss gemodel p {}", percent(g->p)).any("r", g6(g->r), " r {}", percent(g->r));
        m.any("1-h", g6(g->oneMinusH), " 1-h {}", percent(g->oneMinusH)).any("1-k", g6(g->k1), " 1-k {}", percent(g->k1));
      });
    }
    if (o.duplicate > 0) chance("duplicate", "duplicate", o.duplicate, o.duplicateCorrelation, o.duplicateCorrelation > 0);
    if (o.reorder > 0) chance("reorder", "reorder", o.reorder, o.reorderCorrelation, o.reorderCorrelation > 0);
    if (o.corrupt > 0) chance("corrupt", "corrupt", o.corrupt, o.corruptCorrelation, o.corruptCorrelation > 0);
    if (o.rate) {
      f.object("rate", [&](FieldOut& r) {
        r.any("rate", o.rate, " rate {}", rateText(o.rate));
        r.any("packetoverhead", o.packetOverhead, "{}", o.packetOverhead ? fmt::format(" packetoverhead {}", o.packetOverhead) : "");
        r.any("cellsize", o.cellSize, "{}", o.cellSize ? fmt::format(" cellsize {}", o.cellSize) : "");
        r.any("celloverhead", o.cellOverhead, "{}", o.cellOverhead ? fmt::format(" celloverhead {}", o.cellOverhead) : "");
      });
    }
    if (const auto& t = o.slot) {
      f.object("slot", [&](FieldOut& m) {
        auto seconds = [](int64_t ns) { return g6(static_cast<double>(ns) / 1e9); };
        auto text = [](int64_t ns) { return time64Text(static_cast<uint64_t>(ns)); };
        if (t->distJitter > 0) {
          m.any("distribution", seconds(t->distDelay), " slot distribution {}", text(t->distDelay));
          m.any("jitter", seconds(t->distJitter), " {}", text(t->distJitter));
        } else {
          m.any("min-delay", seconds(t->minDelay), " slot {}", text(t->minDelay));
          m.any("max-delay", seconds(t->maxDelay), " {}", text(t->maxDelay));
        }
        m.any("packets", t->maxPackets, "{}", t->maxPackets ? fmt::format(" packets {}", t->maxPackets) : "");
        m.any("bytes", t->maxBytes, "{}", t->maxBytes ? fmt::format(" bytes {}", t->maxBytes) : "");
      });
    }
    f.any("ecn", o.ecn, "{}", o.ecn ? " ecn " : "");
    f.any("gap", o.gap, "{}", o.gap ? fmt::format(" gap {}", o.gap) : "");
  }
  void operator()(const TbfOptions& o) const {
    f.any("rate", o.rate, "rate {} ", rateText(o.rate));
    // With -d tc writes the bucket and the peak bucket as SIZE/CELL and their mpu (the kernel
    // dumps the rates with cell_log 0, and fastlink sets no mpu, overhead or linklayer: q_tbf.c's
    // "/1", "mpu 0b", "linklayer ethernet"); the peak bucket is then named mtu, not minburst.
    if (details) f.any("burst", sizeText(o.burst) + "/1", "burst {} ", sizeText(o.burst) + "/1").any("mpu", 0, "mpu {} ", "0b");
    else f.any("burst", o.burst, "burst {} ", sizeText(o.burst));
    if (o.peakrate) {
      uint32_t minburst = o.mtu.value_or(0);
      f.any("peakrate", *o.peakrate, "peakrate {} ", rateText(*o.peakrate));
      if (details) f.any("mtu", sizeText(minburst) + "/1", "mtu {} ", sizeText(minburst) + "/1").any("mpu", 0, "mpu {} ", "0b");
      else f.any("minburst", minburst, "minburst {} ", sizeText(minburst));
    }
    // Like tc: the latency the limit allows, or the limit itself when that latency is negative.
    if (o.reportedLatency) f.any("lat", *o.reportedLatency, "lat {} ", latencyText(*o.reportedLatency));
    else if (o.limit) f.any("limit", *o.limit, "limit {} ", sizeText(*o.limit));
    if (details) f.any("linklayer", "linklayer {} ", "ethernet");
  }
  void operator()(const RawTcOptions& o) const {
    std::string hex;
    for (uint8_t b : o.bytes) hex += fmt::format("{:02x}", b);
    f.json("raw", hex).text("[cannot parse {} parameters] raw {} ", isClass ? "class" : "qdisc", hex);
  }
};

/// The basic and queue statistics: two lines in text, as tc's print_tcstats2_attr.
void statsFields(FieldOut& f, const TcStats& s, bool iec) {
  f.any("bytes", " Sent {} bytes", s.bytes).any("packets", " {} pkt", s.packets).any("drops", " (dropped {},", s.drops);
  f.any("overlimits", " overlimits {}", s.overlimits).any("requeues", " requeues {}) \n", s.requeues);
  if (s.rateBps) f.any("rate", *s.rateBps, " rate {}", rateText(*s.rateBps, iec)).any("pps", " {}pps ", s.ratePps.value_or(0));
  f.any("backlog", s.backlog, " backlog {}", sizeText(s.backlog)).any("qlen", " {}p", s.qlen).text(" requeues {}", s.requeues);
}

/// Whether xstatsFields writes anything for `s`.
bool hasXstats(const TcStats& s) { return s.htb || (s.fqCodel && !s.fqCodel->isClass) || s.fq; }

/// A kind's extended statistics: text lines (an htb's ending in "\n"), JSON keys.
void xstatsFields(FieldOut& f, const TcStats& s) {
  if (s.htb) {
    const auto& h = *s.htb;
    f.any("lended", " lended: {}", h.lends).any("borrowed", " borrowed: {}", h.borrows).any("giants", " giants: {}\n", h.giants);
    f.any("tokens", " tokens: {}", h.tokens).any("ctokens", " ctokens: {}\n", h.ctokens);
  } else if (s.fqCodel && !s.fqCodel->isClass) {
    const auto& q = *s.fqCodel;
    f.any("maxpacket", "  maxpacket {}", q.maxPacket).any("drop_overlimit", " drop_overlimit {}", q.dropOverlimit);
    f.any("new_flow_count", " new_flow_count {}", q.newFlowCount).any("ecn_mark", " ecn_mark {}", q.ecnMark);
    f.json("new_flows_len", q.newFlowsLen).json("old_flows_len", q.oldFlowsLen);  // tc's JSON order
    if (q.ceMark) f.any("ce_mark", " ce_mark {}", q.ceMark);
    if (q.memoryUsage) f.any("memory_used", " memory_used {}", q.memoryUsage);
    if (q.dropOvermemory) f.any("drop_overmemory", " drop_overmemory {}", q.dropOvermemory);
    f.text("\n  new_flows_len {} old_flows_len {}", q.newFlowsLen, q.oldFlowsLen);
  } else if (s.fq) {
    const auto& q = *s.fq;
    // tc 6.1's fq_print_xstats. Its JSON has "throttled" twice (the throttled flows, then the
    // throttled packets); a JSON object here holds a key once, at its first place, with the
    // later value, which is what a JSON parser reads of tc's.
    f.any("flows", "  flows {}", q.flows).any("inactive", " (inactive {}", q.inactiveFlows);
    f.any("throttled", " throttled {})", q.throttledFlows);
    if (q.timeNextDelayedFlow > 0)
      f.any("next_packet_delay", q.timeNextDelayedFlow, " next_packet_delay {}", time64Text(static_cast<uint64_t>(q.timeNextDelayedFlow)));
    f.text("\n").any("gc", "  gc {}", q.gcFlows).any("highprio", " highprio {}", q.highprioPackets);
    if (q.tcpRetrans) f.any("retrans", " retrans {}", q.tcpRetrans);
    f.any("throttled", " throttled {}", q.throttled);
    if (q.unthrottleLatencyNs) f.any("latency", q.unthrottleLatencyNs, " latency {}", time64Text(q.unthrottleLatencyNs));
    if (q.ceMark) f.any("ce_mark", " ce_mark {}", q.ceMark);
    if (q.flowsPlimit) f.any("flows_plimit", " flows_plimit {}", q.flowsPlimit);
    if (q.pktsTooLong || q.allocationErrors || q.horizonDrops || q.horizonCaps) f.text("\n");
    if (q.pktsTooLong) f.any("pkts_too_long", " pkts_too_long {}", q.pktsTooLong);
    if (q.allocationErrors) f.any("alloc_errors", " alloc_errors {}", q.allocationErrors);
    if (q.horizonDrops) f.any("horizon_drops", " horizon_drops {}", q.horizonDrops);
    if (q.horizonCaps) f.any("horizon_caps", "  horizon_caps {}", q.horizonCaps);  // tc's two spaces
  }
}

/// Where a qdisc or class hangs, tc's words: " dev D root" / " parent X:Y".
void placeFields(FieldOut& f, const TcPrintOptions& o, uint32_t parent) {
  if (!o.devName.empty()) f.any("dev", "dev {} ", o.devName);
  if (parent == TcHandle::kRoot) f.flag("root", "root ");
  else if (parent) f.any("parent", "parent {} ", classidText(parent));
}

void qdiscFields(FieldOut& f, const QdiscInfo& q, const TcPrintOptions& o) {
  f.any("kind", "qdisc {} ", q.kind).any("handle", "{} ", fmt::format("{:x}:", q.handle.value_or(TcHandle()).major()));
  placeFields(f, o, q.parent.value_or(TcHandle()).value);
  if (q.refcnt && *q.refcnt != 1) f.any("refcnt", "refcnt {} ", *q.refcnt);
  if (q.offloaded) f.flag("offloaded", "offloaded ");
  if (q.ingressBlock) f.any("ingress_block", "ingress_block {} ", *q.ingressBlock);
  if (q.egressBlock) f.any("egress_block", "egress_block {} ", *q.egressBlock);
  f.object("options", [&](FieldOut& options) { std::visit(OptionsPrinter{q.kind, false, o.details, options, o.iec}, q.options); });
  f.text("\n");
  if (o.stats && q.stats) {
    statsFields(f, *q.stats, o.iec);
    f.text("\n");
    if (hasXstats(*q.stats)) {
      xstatsFields(f, *q.stats);
      f.text("\n");
    }
  }
}

/// A class's options stand beside its other keys in JSON (tc's), not in an "options" object.
void classFields(FieldOut& f, const ClassInfo& c, const TcPrintOptions& o) {
  f.any("class", "class {} ", c.kind).any("handle", "{} ", classidText(c.classid.value_or(TcHandle()).value));
  placeFields(f, o, c.parent.value_or(TcHandle()).value);
  if (c.leaf) f.any("leaf", "leaf {} ", fmt::format("{:x}:", c.leaf->major()));
  std::visit(OptionsPrinter{c.kind, true, o.details, f, o.iec}, c.options);
  if (o.stats && c.stats) {
    f.text("\n");
    statsFields(f, *c.stats, o.iec);
    if (hasXstats(*c.stats)) {
      f.text("\n");
      xstatsFields(f, *c.stats);
    }
  }
  f.text("\n");
}

}  // namespace

std::string classidText(uint32_t h) {
  if (h == TcHandle::kRoot) return "root";
  if (h == 0) return "none";
  TcHandle t(h);
  if (t.major() == 0) return fmt::format(":{:x}", t.minor());
  if (t.minor() == 0) return fmt::format("{:x}:", t.major());
  return fmt::format("{:x}:{:x}", t.major(), t.minor());
}

std::string qdiscText(const QdiscInfo& q, const TcPrintOptions& o) {
  return writeFields<std::string>([&](FieldOut& f) { qdiscFields(f, q, o); });
}

Json qdiscJson(const QdiscInfo& q, const TcPrintOptions& o) {
  return writeFields<Json>([&](FieldOut& f) { qdiscFields(f, q, o); });
}

std::string classText(const ClassInfo& c, const TcPrintOptions& o) {
  return writeFields<std::string>([&](FieldOut& f) { classFields(f, c, o); });
}

Json classJson(const ClassInfo& c, const TcPrintOptions& o) {
  return writeFields<Json>([&](FieldOut& f) { classFields(f, c, o); });
}

}  // namespace fastlink::cli
