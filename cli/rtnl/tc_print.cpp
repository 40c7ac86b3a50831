// `fastlink tc` output, written after iproute2 6.1's tc: the same words, order and spacing
// (including the trailing spaces tc leaves), and the same JSON keys.
#include "rtnl/tc_print.hpp"

#include <fmt/format.h>

#include <variant>

#include "kit/fields.hpp"

namespace fastlink::cli {
namespace {

using Json = nlohmann::ordered_json;
using namespace fastlink::tcunits;

std::string hexOrZero(uint32_t v) { return v ? fmt::format("{:#x}", v) : "0"; }

/// tc's print_tc_classid for a parent.
std::string classidText(uint32_t h) {
  if (h == TcHandle::kRoot) return "root";
  if (h == 0) return "none";
  TcHandle t(h);
  if (t.major() == 0) return fmt::format(":{:x}", t.minor());
  if (t.minor() == 0) return fmt::format("{:x}:", t.major());
  return fmt::format("{:x}:{:x}", t.major(), t.minor());
}

std::string percent(double fraction) { return fmt::format("{:g}%", fraction * 100); }

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
    if (o.refillDelay) f.any("refill_delay", *o.refillDelay, "refill_delay {} ", timeText(*o.refillDelay));
    if (o.horizon) f.any("horizon", *o.horizon, "horizon {} ", timeText(*o.horizon));
    if (o.ceThreshold && *o.ceThreshold != UINT32_MAX)
      f.any("ce_threshold", *o.ceThreshold, "ce_threshold {} ", timeText(*o.ceThreshold));
  }
  /// A netem chance and its correlation: `{"name": p, "correlation": c}` under `key`, " word P% C%".
  void chance(const char* key, const char* name, double p, double correlation) const {
    f.any(key, Json{{name, p}, {"correlation", correlation}}, " {}", fmt::format("{} {}", name, percent(p)));
    if (correlation > 0) f.text(" {}", percent(correlation));
  }
  void operator()(const NetemOptions& o) const {
    f.any("limit", "limit {}", o.limit);
    if (o.delay) {
      f.any("delay", static_cast<double>(o.delay) / 1e6, " delay {}", timeText(o.delay));
      f.json("jitter", static_cast<double>(o.jitter) / 1e6);
      if (o.jitter) f.text("  {}", timeText(o.jitter));
      f.json("delay_corr", o.delayCorrelation * 100);
      if (o.delayCorrelation > 0) f.text(" {}", percent(o.delayCorrelation));
    }
    if (o.loss > 0) chance("loss-random", "loss", o.loss, o.lossCorrelation);
    if (o.duplicate > 0) chance("duplicate", "duplicate", o.duplicate, o.duplicateCorrelation);
    if (o.reorder > 0) chance("reorder", "reorder", o.reorder, o.reorderCorrelation);
    if (o.corrupt > 0) chance("corrupt", "corrupt", o.corrupt, o.corruptCorrelation);
    if (o.rate) f.any("rate", Json{{"rate", o.rate}}, " rate {}", rateText(o.rate));
    if (o.gap) f.any("gap", " gap {}", o.gap);
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
    f.any("flows", "  flows {}", q.flows).any("inactive", " (inactive {}", q.inactiveFlows);
    f.any("throttled", " throttled {})\n", q.throttledFlows).any("gc", "  gc {}", q.gcFlows);
    f.any("highprio", " highprio {}", q.highprioPackets).text(" throttled {}", q.throttled);
    f.any("flows_plimit", " flows_plimit {}", q.flowsPlimit);
    f.json("pkts_too_long", q.pktsTooLong).json("alloc_errors", q.allocationErrors);
    if (q.pktsTooLong) f.text(" pkts_too_long {}", q.pktsTooLong);
    if (q.allocationErrors) f.text(" alloc_errors {}", q.allocationErrors);
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
