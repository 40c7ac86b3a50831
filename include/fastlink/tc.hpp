// Traffic control (`tc qdisc`, `tc class`): typed QdiscInfo / ClassInfo with per-kind options
// (fastlink/tc_options.hpp) and statistics, request builders for batches, and TcApi.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fastlink/raw_attributes.hpp"
#include "fastlink/request.hpp"
#include "fastlink/tc_options.hpp"
#include "fastlink/types.hpp"

namespace fastlink {

/// A tc handle or class id "MAJ:MIN" (32 bits: major in the high 16). Also the special
/// parents root, ingress and clsact (which share ffff:fff1).
struct TcHandle {
  uint32_t value = 0;
  static constexpr uint32_t kRoot = 0xFFFFFFFFu;
  static constexpr uint32_t kIngress = 0xFFFFFFF1u;  ///< ingress and clsact qdiscs sit here
  static constexpr uint32_t kUnspec = 0;

  constexpr TcHandle() = default;
  constexpr explicit TcHandle(uint32_t v) : value(v) {}
  constexpr TcHandle(uint16_t major, uint16_t minor) : value(uint32_t{major} << 16 | minor) {}
  constexpr uint16_t major() const { return static_cast<uint16_t>(value >> 16); }
  constexpr uint16_t minor() const { return static_cast<uint16_t>(value & 0xFFFF); }
  /// "1:", "1:10", "ffff:", "root", "ingress", "none" (hex numbers, like tc). Throws Error(EINVAL).
  static TcHandle parse(std::string_view text);
  /// As tc prints it: "1:", "1:10", "root", "ingress" (= "ffff:fff1").
  std::string toString() const;
  friend bool operator==(const TcHandle&, const TcHandle&) = default;
};

/// A kind's extended statistics (TCA_STATS_APP), decoded for the kinds fastlink knows.
struct FqCodelStats {
  bool isClass = false;
  // qdisc
  uint32_t maxPacket = 0, dropOverlimit = 0, ecnMark = 0, newFlowCount = 0, newFlowsLen = 0, oldFlowsLen = 0,
           ceMark = 0, memoryUsage = 0, dropOvermemory = 0;
  // class
  int32_t deficit = 0;
  uint32_t ldelay = 0, count = 0, lastcount = 0, dropping = 0;
  int32_t dropNext = 0;
  friend bool operator==(const FqCodelStats&, const FqCodelStats&) = default;
};
struct HtbStats {
  uint32_t lends = 0, borrows = 0, giants = 0;
  int32_t tokens = 0, ctokens = 0;
  friend bool operator==(const HtbStats&, const HtbStats&) = default;
};
struct FqStats {
  uint64_t gcFlows = 0, highprioPackets = 0, throttled = 0, flowsPlimit = 0, pktsTooLong = 0, allocationErrors = 0;
  int64_t timeNextDelayedFlow = 0;
  uint32_t flows = 0, inactiveFlows = 0, throttledFlows = 0;
  uint64_t unthrottleLatencyNs = 0, ceMark = 0, horizonDrops = 0, horizonCaps = 0;
  uint64_t tcpRetrans = 0;  ///< TCP retransmits fq paced (tc's "retrans")
  friend bool operator==(const FqStats&, const FqStats&) = default;
};

/// TCA_STATS2 of a qdisc or class (`tc -s`).
struct TcStats {
  uint64_t bytes = 0;
  uint64_t packets = 0;
  uint32_t drops = 0;
  uint32_t overlimits = 0;
  uint32_t requeues = 0;
  uint32_t backlog = 0;  ///< bytes queued
  uint32_t qlen = 0;     ///< packets queued
  std::optional<uint64_t> rateBps;  ///< rate estimator (bytes/s), when one is attached
  std::optional<uint64_t> ratePps;
  std::optional<FqCodelStats> fqCodel;
  std::optional<HtbStats> htb;
  std::optional<FqStats> fq;
  std::vector<uint8_t> app;  ///< TCA_STATS_APP as sent (also when decoded above)
  friend bool operator==(const TcStats&, const TcStats&) = default;
};

/// One queueing discipline.
///   QdiscInfo().setDev("eth0").setRoot().setHandle(TcHandle(1, 0)).setOptions(HtbOptions{...})
struct QdiscInfo {
  std::optional<Ifref> dev;
  std::optional<TcHandle> handle;  ///< "1:" (minor 0); unset on add: the kernel picks one
  std::optional<TcHandle> parent;  ///< TcHandle::kRoot, kIngress or a class "1:10"
  std::string kind;                ///< "htb", "pfifo", ...; empty only on delete
  TcOptions options;               ///< must match `kind` (see tcOptionsKind)

  // Reported only.
  std::optional<uint32_t> refcnt;
  std::optional<TcStats> stats;
  std::optional<uint32_t> ingressBlock, egressBlock;
  bool offloaded = false;
  RawAttributes unknown;

  QdiscInfo& setDev(Ifref v) { dev = std::move(v); return *this; }
  QdiscInfo& setHandle(TcHandle v) { handle = v; return *this; }
  QdiscInfo& setParent(TcHandle v) { parent = v; return *this; }
  QdiscInfo& setRoot() { parent = TcHandle(TcHandle::kRoot); return *this; }
  QdiscInfo& setIngress() { kind = "ingress"; parent = TcHandle(TcHandle::kIngress); handle = TcHandle(0xFFFF, 0); return *this; }
  QdiscInfo& setClsact() { kind = "clsact"; parent = TcHandle(TcHandle::kIngress); handle = TcHandle(0xFFFF, 0); return *this; }
  QdiscInfo& setKind(std::string v) { kind = std::move(v); return *this; }
  QdiscInfo& setOptions(TcOptions v) { options = std::move(v); return *this; }
};

/// One class of a classful qdisc (htb, mq, ...).
struct ClassInfo {
  std::optional<Ifref> dev;
  std::optional<TcHandle> classid;  ///< "1:10" (required on add)
  std::optional<TcHandle> parent;   ///< "1:" (the qdisc) or a class "1:1"; kRoot for a top class
  std::string kind;
  TcOptions options;

  // Reported only.
  std::optional<TcHandle> leaf;  ///< the handle of the qdisc attached to the class
  std::optional<TcStats> stats;
  RawAttributes unknown;

  ClassInfo& setDev(Ifref v) { dev = std::move(v); return *this; }
  ClassInfo& setClassid(TcHandle v) { classid = v; return *this; }
  ClassInfo& setParent(TcHandle v) { parent = v; return *this; }
  ClassInfo& setKind(std::string v) { kind = std::move(v); return *this; }
  ClassInfo& setOptions(TcOptions v) { options = std::move(v); return *this; }
};

/// Which qdiscs `list` returns. `dev` is filtered in the kernel (tcmsg ifindex); the rest here.
struct QdiscFilter {
  std::optional<Ifref> dev;
  std::optional<TcHandle> parent;  ///< kRoot: root qdiscs only; kIngress: ingress/clsact
  std::optional<TcHandle> handle;
  bool invisible = false;  ///< also the default qdiscs tc hides (`tc qdisc show invisible`)
  QdiscFilter& setDev(Ifref v) { dev = std::move(v); return *this; }
  QdiscFilter& setParent(TcHandle v) { parent = v; return *this; }
  QdiscFilter& setRoot() { parent = TcHandle(TcHandle::kRoot); return *this; }
  QdiscFilter& setHandle(TcHandle v) { handle = v; return *this; }
};

/// Which classes `list` returns: every class of `dev` (required; the kernel dumps one device).
struct ClassFilter {
  std::optional<Ifref> dev;
  std::optional<TcHandle> parent;
  std::optional<TcHandle> classid;
  ClassFilter& setDev(Ifref v) { dev = std::move(v); return *this; }
  ClassFilter& setParent(TcHandle v) { parent = v; return *this; }
  ClassFilter& setClassid(TcHandle v) { classid = v; return *this; }
};

/// The kind a TcOptions value belongs to ("" for monostate, "raw" for RawTcOptions, "fifo" for
/// FifoOptions which serves pfifo and bfifo, "prio", "htb", "htb class", "fq_codel", ...).
std::string tcOptionsKind(const TcOptions& options);

/// Builds tc requests without sending them (devices must be ifindexes), for batches. Throws
/// fastlink::Error (EINVAL) on bad input: options that do not fit the kind, a rate of 0, a
/// netem probability above 100%, ...
struct TcRequests {
  /// Equivalent to: tc qdisc add dev D (root | ingress | clsact | parent H:M) [handle H:] KIND OPTS
  static Request addQdisc(const QdiscInfo& q);
  /// Equivalent to: tc qdisc replace dev D ... KIND OPTS
  static Request replaceQdisc(const QdiscInfo& q);
  /// Equivalent to: tc qdisc change dev D ... KIND OPTS
  static Request changeQdisc(const QdiscInfo& q);
  /// Equivalent to: tc qdisc del dev D (root | ingress | clsact | parent H:M | handle H:)
  static Request delQdisc(const QdiscInfo& q);
  /// Equivalent to: tc class add dev D parent H:M classid H:M KIND OPTS
  static Request addClass(const ClassInfo& c);
  /// Equivalent to: tc class replace dev D parent H:M classid H:M KIND OPTS
  static Request replaceClass(const ClassInfo& c);
  /// Equivalent to: tc class change dev D classid H:M KIND OPTS
  static Request changeClass(const ClassInfo& c);
  /// Equivalent to: tc class del dev D classid H:M
  static Request delClass(const ClassInfo& c);
};

/// The tc operations, as an interface so that users can mock them.
class ITcApi {
 public:
  virtual ~ITcApi() = default;
  /// Equivalent to: tc qdisc add dev D root|parent P [handle H] KIND OPTS (EEXIST if one is there)
  virtual void addQdisc(const QdiscInfo& q) = 0;
  /// Equivalent to: tc qdisc replace dev D root|parent P [handle H] KIND OPTS
  virtual void replaceQdisc(const QdiscInfo& q) = 0;
  /// Equivalent to: tc qdisc change dev D root|parent P [handle H] KIND OPTS
  virtual void changeQdisc(const QdiscInfo& q) = 0;
  /// Equivalent to: tc qdisc del dev D root|ingress|parent P|handle H
  virtual void delQdisc(const QdiscInfo& q) = 0;
  /// Equivalent to: tc -s qdisc show [dev D] [root|ingress|parent P|handle H]
  virtual std::vector<QdiscInfo> qdiscs(const QdiscFilter& filter = {}) = 0;
  virtual void forEachQdisc(const QdiscFilter& filter, const std::function<void(const QdiscInfo&)>& each,
                            const std::function<void()>& restart = {}) = 0;
  /// Equivalent to: tc class add dev D parent P classid C KIND OPTS
  virtual void addClass(const ClassInfo& c) = 0;
  /// Equivalent to: tc class replace dev D parent P classid C KIND OPTS
  virtual void replaceClass(const ClassInfo& c) = 0;
  /// Equivalent to: tc class change dev D [parent P] classid C KIND OPTS
  virtual void changeClass(const ClassInfo& c) = 0;
  /// Equivalent to: tc class del dev D classid C
  virtual void delClass(const ClassInfo& c) = 0;
  /// Equivalent to: tc -s class show dev D [parent P] [classid C]
  virtual std::vector<ClassInfo> classes(const ClassFilter& filter) = 0;
  virtual void forEachClass(const ClassFilter& filter, const std::function<void(const ClassInfo&)>& each,
                            const std::function<void()>& restart = {}) = 0;
};

/// The kernel-backed ITcApi. Obtain it from Netlink::tc().
class TcApi final : public ITcApi {
 public:
  void addQdisc(const QdiscInfo& q) override;
  void replaceQdisc(const QdiscInfo& q) override;
  void changeQdisc(const QdiscInfo& q) override;
  void delQdisc(const QdiscInfo& q) override;
  std::vector<QdiscInfo> qdiscs(const QdiscFilter& filter = {}) override;
  void forEachQdisc(const QdiscFilter& filter, const std::function<void(const QdiscInfo&)>& each,
                    const std::function<void()>& restart = {}) override;
  void addClass(const ClassInfo& c) override;
  void replaceClass(const ClassInfo& c) override;
  void changeClass(const ClassInfo& c) override;
  void delClass(const ClassInfo& c) override;
  std::vector<ClassInfo> classes(const ClassFilter& filter) override;
  void forEachClass(const ClassFilter& filter, const std::function<void(const ClassInfo&)>& each,
                    const std::function<void()>& restart = {}) override;

 private:
  friend class Netlink;  // built by its accessor on Netlink, the one way in
  explicit TcApi(core::Engine& engine) : engine_(engine) {}
  core::Engine& engine_;
};

}  // namespace fastlink
