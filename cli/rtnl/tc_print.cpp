// `fastlink tc` output, written after iproute2 6.1's tc: the same words, order and spacing
// (including the trailing spaces tc leaves), and the same JSON keys.
#include "rtnl/tc_print.hpp"

#include <fmt/format.h>

#include <variant>

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

// Each kind's options, as text (appended to the qdisc line) and as the JSON "options" object.
struct OptionsPrinter {
  const std::string& kind;
  bool isClass;
  bool details;
  std::string& text;
  Json& json;

  void operator()(std::monostate) const {
    if (kind == "ingress") text += "---------------- ";
  }
  void operator()(const FifoOptions& o) const {
    uint32_t limit = o.limit.value_or(0);
    json["limit"] = limit;
    text += kind == "bfifo" ? "limit " + sizeText(limit) : fmt::format("limit {}p", limit);
  }
  void operator()(const PrioOptions& o) const {
    json["bands"] = o.bands;
    json["priomap"] = o.priomap;
    json["multiqueue"] = o.multiqueue;
    text += fmt::format("bands {} priomap", o.bands);
    for (uint8_t p : o.priomap) text += fmt::format(" {}", p);
    if (o.multiqueue) text += " multiqueue on";
  }
  void operator()(const HtbOptions& o) const {
    json["r2q"] = o.r2q;
    json["default"] = hexOrZero(o.defaultClass);
    json["direct_packets_stat"] = o.directPackets;
    text += fmt::format("r2q {} default {} direct_packets_stat {}", o.r2q, hexOrZero(o.defaultClass), o.directPackets);
    if (details) text += fmt::format(" ver {}.{}", o.version >> 16, o.version & 0xFFFF);
    if (o.directQlen) {
      json["direct_qlen"] = *o.directQlen;
      text += fmt::format(" direct_qlen {}", *o.directQlen);
    }
  }
  void operator()(const HtbClassOptions& o) const {
    if (o.level == 0) {
      json["prio"] = o.prio.value_or(0);
      text += fmt::format("prio {} ", o.prio.value_or(0));
      if (details) {
        json["quantum"] = o.quantum.value_or(0);
        text += fmt::format("quantum {} ", o.quantum.value_or(0));
      }
    }
    json["rate"] = o.rate;
    json["ceil"] = o.ceil.value_or(o.rate);
    json["burst"] = o.burst.value_or(0);
    json["cburst"] = o.cburst.value_or(0);
    text += fmt::format("rate {} ceil {} ", rateText(o.rate), rateText(o.ceil.value_or(o.rate)));
    if (details) text += "linklayer ethernet ";
    text += fmt::format("burst {}{} cburst {}{} ", sizeText(o.burst.value_or(0)), details ? "/1 mpu 0b" : "",
                        sizeText(o.cburst.value_or(0)), details ? "/1 mpu 0b" : "");
    if (details) {
      json["level"] = o.level;
      text += fmt::format("level {} ", o.level);
    }
  }
  void operator()(const FqCodelOptions& o) const {
    if (o.limit) json["limit"] = *o.limit, text += fmt::format("limit {}p ", *o.limit);
    if (o.flows) json["flows"] = *o.flows, text += fmt::format("flows {} ", *o.flows);
    if (o.quantum) json["quantum"] = *o.quantum, text += fmt::format("quantum {} ", *o.quantum);
    if (o.target) json["target"] = *o.target, text += "target " + time64Text(uint64_t{*o.target} * 1000) + " ";
    if (o.ceThreshold) json["ce_threshold"] = *o.ceThreshold, text += "ce_threshold " + time64Text(uint64_t{*o.ceThreshold} * 1000) + " ";
    if (o.interval) json["interval"] = *o.interval, text += "interval " + time64Text(uint64_t{*o.interval} * 1000) + " ";
    if (o.memoryLimit) json["memory_limit"] = *o.memoryLimit, text += "memory_limit " + sizeText(*o.memoryLimit) + " ";
    if (o.ecn.value_or(false)) json["ecn"] = true, text += "ecn ";
    if (o.dropBatch) json["drop_batch"] = *o.dropBatch, text += fmt::format("drop_batch {} ", *o.dropBatch);
  }
  void operator()(const FqOptions& o) const {
    if (o.limit) json["limit"] = *o.limit, text += fmt::format("limit {}p ", *o.limit);
    if (o.flowLimit) json["flow_limit"] = *o.flowLimit, text += fmt::format("flow_limit {}p ", *o.flowLimit);
    if (o.bucketsLog) json["buckets"] = 1u << *o.bucketsLog, text += fmt::format("buckets {} ", 1u << *o.bucketsLog);
    if (o.orphanMask) json["orphan_mask"] = *o.orphanMask, text += fmt::format("orphan_mask {} ", *o.orphanMask);
    if (o.pacing && !*o.pacing) json["pacing"] = false, text += "nopacing ";
    if (o.quantum) json["quantum"] = *o.quantum, text += fmt::format("quantum {} ", sizeText(*o.quantum));
    if (o.initialQuantum)
      json["initial_quantum"] = *o.initialQuantum, text += fmt::format("initial_quantum {} ", sizeText(*o.initialQuantum));
    if (o.maxRate && *o.maxRate != UINT32_MAX) json["maxrate"] = *o.maxRate, text += "maxrate " + rateText(*o.maxRate) + " ";
    if (o.refillDelay) json["refill_delay"] = *o.refillDelay, text += "refill_delay " + timeText(*o.refillDelay) + " ";
    if (o.horizon) json["horizon"] = *o.horizon, text += "horizon " + timeText(*o.horizon) + " ";
    if (o.ceThreshold && *o.ceThreshold != UINT32_MAX)
      json["ce_threshold"] = *o.ceThreshold, text += "ce_threshold " + timeText(*o.ceThreshold) + " ";
  }
  void operator()(const NetemOptions& o) const {
    json["limit"] = o.limit;
    text += fmt::format("limit {}", o.limit);
    if (o.delay) {
      json["delay"] = static_cast<double>(o.delay) / 1e6;
      json["jitter"] = static_cast<double>(o.jitter) / 1e6;
      json["delay_corr"] = o.delayCorrelation * 100;
      text += " delay " + timeText(o.delay);
      if (o.jitter) text += "  " + timeText(o.jitter);
      if (o.delayCorrelation > 0) text += " " + percent(o.delayCorrelation);
    }
    if (o.loss > 0) {
      json["loss-random"] = Json{{"loss", o.loss}, {"correlation", o.lossCorrelation}};
      text += " loss " + percent(o.loss);
      if (o.lossCorrelation > 0) text += " " + percent(o.lossCorrelation);
    }
    if (o.duplicate > 0) {
      json["duplicate"] = Json{{"duplicate", o.duplicate}, {"correlation", o.duplicateCorrelation}};
      text += " duplicate " + percent(o.duplicate);
      if (o.duplicateCorrelation > 0) text += " " + percent(o.duplicateCorrelation);
    }
    if (o.reorder > 0) {
      json["reorder"] = Json{{"reorder", o.reorder}, {"correlation", o.reorderCorrelation}};
      text += " reorder " + percent(o.reorder);
      if (o.reorderCorrelation > 0) text += " " + percent(o.reorderCorrelation);
    }
    if (o.corrupt > 0) {
      json["corrupt"] = Json{{"corrupt", o.corrupt}, {"correlation", o.corruptCorrelation}};
      text += " corrupt " + percent(o.corrupt);
      if (o.corruptCorrelation > 0) text += " " + percent(o.corruptCorrelation);
    }
    if (o.rate) {
      json["rate"] = Json{{"rate", o.rate}};
      text += " rate " + rateText(o.rate);
    }
    if (o.gap) json["gap"] = o.gap, text += fmt::format(" gap {}", o.gap);
  }
  void operator()(const TbfOptions& o) const {
    json["rate"] = o.rate;
    json["burst"] = o.burst;
    text += "rate " + rateText(o.rate) + " burst " + sizeText(o.burst) + " ";
    if (o.peakrate) {
      json["peakrate"] = *o.peakrate;
      json["minburst"] = o.mtu.value_or(0);
      text += "peakrate " + rateText(*o.peakrate) + " minburst " + sizeText(o.mtu.value_or(0)) + " ";
    }
    // Like tc: the latency the limit allows, or the limit itself when that latency is negative.
    if (o.reportedLatency) {
      json["lat"] = *o.reportedLatency;
      text += "lat " + latencyText(*o.reportedLatency) + " ";
    } else if (o.limit) {
      json["limit"] = *o.limit;
      text += "limit " + sizeText(*o.limit) + " ";
    }
  }
  void operator()(const RawTcOptions& o) const {
    std::string hex;
    for (uint8_t b : o.bytes) hex += fmt::format("{:02x}", b);
    json["raw"] = hex;
    text += "[cannot parse " + std::string(isClass ? "class" : "qdisc") + " parameters] raw " + hex + " ";
  }
};

/// The basic and queue statistics: two lines, as tc's print_tcstats2_attr.
std::string statsText(const TcStats& s) {
  std::string t = fmt::format(" Sent {} bytes {} pkt (dropped {}, overlimits {} requeues {}) \n", s.bytes, s.packets, s.drops,
                              s.overlimits, s.requeues);
  if (s.rateBps) t += fmt::format(" rate {} {}pps ", rateText(*s.rateBps), s.ratePps.value_or(0));
  t += fmt::format(" backlog {} {}p requeues {}", sizeText(s.backlog), s.qlen, s.requeues);
  return t;
}

void statsJson(const TcStats& s, Json& j) {
  j["bytes"] = s.bytes;
  j["packets"] = s.packets;
  j["drops"] = s.drops;
  j["overlimits"] = s.overlimits;
  j["requeues"] = s.requeues;
  if (s.rateBps) {
    j["rate"] = *s.rateBps;
    j["pps"] = s.ratePps.value_or(0);
  }
  j["backlog"] = s.backlog;
  j["qlen"] = s.qlen;
}

/// A kind's extended statistics: text lines (each ending in "\n"), JSON keys.
std::string xstatsText(const TcStats& s, Json& j) {
  if (s.htb) {
    const auto& h = *s.htb;
    j["lended"] = h.lends, j["borrowed"] = h.borrows, j["giants"] = h.giants, j["tokens"] = h.tokens, j["ctokens"] = h.ctokens;
    return fmt::format(" lended: {} borrowed: {} giants: {}\n tokens: {} ctokens: {}\n", h.lends, h.borrows, h.giants, h.tokens,
                       h.ctokens);
  }
  if (s.fqCodel && !s.fqCodel->isClass) {
    const auto& f = *s.fqCodel;
    j["maxpacket"] = f.maxPacket, j["drop_overlimit"] = f.dropOverlimit, j["new_flow_count"] = f.newFlowCount,
    j["ecn_mark"] = f.ecnMark, j["new_flows_len"] = f.newFlowsLen, j["old_flows_len"] = f.oldFlowsLen;
    std::string t = fmt::format("  maxpacket {} drop_overlimit {} new_flow_count {} ecn_mark {}", f.maxPacket, f.dropOverlimit,
                                f.newFlowCount, f.ecnMark);
    if (f.ceMark) j["ce_mark"] = f.ceMark, t += fmt::format(" ce_mark {}", f.ceMark);
    if (f.memoryUsage) j["memory_used"] = f.memoryUsage, t += fmt::format(" memory_used {}", f.memoryUsage);
    if (f.dropOvermemory) j["drop_overmemory"] = f.dropOvermemory, t += fmt::format(" drop_overmemory {}", f.dropOvermemory);
    return t + fmt::format("\n  new_flows_len {} old_flows_len {}", f.newFlowsLen, f.oldFlowsLen);
  }
  if (s.fq) {
    const auto& f = *s.fq;
    j["flows"] = f.flows, j["inactive"] = f.inactiveFlows, j["throttled"] = f.throttledFlows, j["gc"] = f.gcFlows,
    j["highprio"] = f.highprioPackets, j["flows_plimit"] = f.flowsPlimit, j["pkts_too_long"] = f.pktsTooLong,
    j["alloc_errors"] = f.allocationErrors;
    return fmt::format("  flows {} (inactive {} throttled {})\n  gc {} highprio {} throttled {} flows_plimit {}", f.flows,
                       f.inactiveFlows, f.throttledFlows, f.gcFlows, f.highprioPackets, f.throttled, f.flowsPlimit) +
           (f.pktsTooLong ? fmt::format(" pkts_too_long {}", f.pktsTooLong) : "") +
           (f.allocationErrors ? fmt::format(" alloc_errors {}", f.allocationErrors) : "");
  }
  return {};
}

}  // namespace

std::string qdiscText(const QdiscInfo& q, const TcPrintOptions& o) {
  std::string t = fmt::format("qdisc {} {:x}: ", q.kind, q.handle.value_or(TcHandle()).major());
  if (!o.devName.empty()) t += "dev " + o.devName + " ";
  uint32_t parent = q.parent.value_or(TcHandle()).value;
  if (parent == TcHandle::kRoot) t += "root ";
  else if (parent) t += "parent " + classidText(parent) + " ";
  if (q.refcnt && *q.refcnt != 1) t += fmt::format("refcnt {} ", *q.refcnt);
  if (q.offloaded) t += "offloaded ";
  if (q.ingressBlock) t += fmt::format("ingress_block {} ", *q.ingressBlock);
  if (q.egressBlock) t += fmt::format("egress_block {} ", *q.egressBlock);
  Json ignored;
  std::visit(OptionsPrinter{q.kind, false, o.details, t, ignored}, q.options);
  t += "\n";
  if (o.stats && q.stats) {
    t += statsText(*q.stats) + "\n";
    std::string x = xstatsText(*q.stats, ignored);
    if (!x.empty()) t += x + "\n";
  }
  return t;
}

Json qdiscJson(const QdiscInfo& q, const TcPrintOptions& o) {
  Json j;
  j["kind"] = q.kind;
  j["handle"] = fmt::format("{:x}:", q.handle.value_or(TcHandle()).major());
  if (!o.devName.empty()) j["dev"] = o.devName;
  uint32_t parent = q.parent.value_or(TcHandle()).value;
  if (parent == TcHandle::kRoot) j["root"] = true;
  else if (parent) j["parent"] = classidText(parent);
  if (q.refcnt && *q.refcnt != 1) j["refcnt"] = *q.refcnt;
  if (q.offloaded) j["offloaded"] = true;
  if (q.ingressBlock) j["ingress_block"] = *q.ingressBlock;
  if (q.egressBlock) j["egress_block"] = *q.egressBlock;
  Json options = Json::object();
  std::string ignored;
  std::visit(OptionsPrinter{q.kind, false, o.details, ignored, options}, q.options);
  j["options"] = options;
  if (o.stats && q.stats) {
    statsJson(*q.stats, j);
    xstatsText(*q.stats, j);
  }
  return j;
}

std::string classText(const ClassInfo& c, const TcPrintOptions& o) {
  std::string t = fmt::format("class {} {} ", c.kind, classidText(c.classid.value_or(TcHandle()).value));
  if (!o.devName.empty()) t += "dev " + o.devName + " ";
  uint32_t parent = c.parent.value_or(TcHandle()).value;
  if (parent == TcHandle::kRoot) t += "root ";
  else if (parent) t += "parent " + classidText(parent) + " ";
  if (c.leaf) t += fmt::format("leaf {:x}: ", c.leaf->major());
  Json ignored;
  std::visit(OptionsPrinter{c.kind, true, o.details, t, ignored}, c.options);
  if (o.stats && c.stats) {
    t += "\n" + statsText(*c.stats);
    std::string x = xstatsText(*c.stats, ignored);
    if (!x.empty()) t += "\n" + x;
  }
  return t + "\n";
}

Json classJson(const ClassInfo& c, const TcPrintOptions& o) {
  Json j;
  j["class"] = c.kind;
  j["handle"] = classidText(c.classid.value_or(TcHandle()).value);
  if (!o.devName.empty()) j["dev"] = o.devName;
  uint32_t parent = c.parent.value_or(TcHandle()).value;
  if (parent == TcHandle::kRoot) j["root"] = true;
  else if (parent) j["parent"] = classidText(parent);
  if (c.leaf) j["leaf"] = fmt::format("{:x}:", c.leaf->major());
  Json options = Json::object();
  std::string ignored;
  std::visit(OptionsPrinter{c.kind, true, o.details, ignored, options}, c.options);
  for (auto& [k, v] : options.items()) j[k] = v;
  if (o.stats && c.stats) {
    statsJson(*c.stats, j);
    xstatsText(*c.stats, j);
  }
  return j;
}

}  // namespace fastlink::cli
