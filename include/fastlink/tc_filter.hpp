// Traffic-control filters and actions (`tc filter`, `tc actions`): typed TcFilterInfo with
// per-classifier options (u32, matchall, flower, fw, basic, bpf) and typed actions (gact, mirred,
// police, skbedit, vlan, tunnel_key, csum, mpls, pedit), request builders for batches, and
// TcFilterApi.
//
//   TcFilterInfo f;
//   f.setDev("eth0").setParent(TcFilterInfo::kIngressParent).setPrio(10).setProtocol(0x0800);
//   U32FilterOptions u;
//   u.keys.push_back({0x0A000001, 0xFFFFFFFF, 16});          // match ip dst 10.0.0.1/32
//   u.actions.push_back(TcAction::mirred(MirredAction::EgressRedirect, Ifref("eth1")));
//   f.setOptions(u);
//   nl.filters().add(f);
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "fastlink/prefix.hpp"
#include "fastlink/raw_attributes.hpp"
#include "fastlink/request.hpp"
#include "fastlink/tc.hpp"
#include "fastlink/types.hpp"

namespace fastlink {

/// tc's control verdicts (TC_ACT_*): what happens after an action.
namespace tcact {
inline constexpr int32_t kContinue = -1;  ///< TC_ACT_UNSPEC, printed "continue"
inline constexpr int32_t kPass = 0;       ///< TC_ACT_OK
inline constexpr int32_t kReclassify = 1;
inline constexpr int32_t kDrop = 2;  ///< TC_ACT_SHOT
inline constexpr int32_t kPipe = 3;
inline constexpr int32_t kStolen = 4;
inline constexpr int32_t kTrap = 8;
/// "goto chain N" (TC_ACT_GOTO_CHAIN | N).
constexpr int32_t gotoChain(uint32_t chain) { return static_cast<int32_t>(0x20000000u | (chain & 0x0FFFFFFFu)); }
/// "pass", "drop", "pipe", "goto chain 3", ... as tc prints it.
std::string name(int32_t control);
/// Parses "pass"/"ok", "drop"/"shot", "continue", "pipe", "reclassify", "stolen", "trap";
/// std::nullopt for any other word ("goto chain N" is read by the CLI).
std::optional<int32_t> parse(std::string_view word);
}  // namespace tcact

/// `gact pass | drop | ...`
struct GactAction {
  int32_t control = tcact::kPass;
  friend bool operator==(const GactAction&, const GactAction&) = default;
};

/// `mirred egress|ingress redirect|mirror dev D [CONTROL]`.
struct MirredAction {
  enum Mode : int32_t { EgressRedirect = 1, EgressMirror = 2, IngressRedirect = 3, IngressMirror = 4 };
  Mode mode = EgressRedirect;
  Ifref dev = Ifref(0u);
  std::optional<int32_t> control;  ///< unset: stolen for redirects, pipe for mirrors (like tc)
  friend bool operator==(const MirredAction&, const MirredAction&) = default;
};

/// `police rate R burst B [mtu B] [peakrate R] [conform-exceed EXCEED[/CONFORM]]`.
struct PoliceAction {
  uint64_t rate = 0;   ///< bytes per second
  uint32_t burst = 0;  ///< bytes
  uint32_t mtu = 0;    ///< 0: 2 KiB as the kernel assumes
  std::optional<uint64_t> peakrate;
  int32_t exceed = tcact::kReclassify;  ///< tc's default conform-exceed reclassify
  std::optional<int32_t> conform;       ///< TCA_POLICE_RESULT; unset: pass
  friend bool operator==(const PoliceAction&, const PoliceAction&) = default;
};

/// `skbedit [priority C] [mark M[/MASK]] [queue_mapping Q] [ptype T] [CONTROL]`.
struct SkbeditAction {
  std::optional<uint32_t> priority;  ///< a class id (MAJ:MIN) as u32
  std::optional<uint32_t> mark, mask;
  std::optional<uint16_t> queueMapping;
  std::optional<uint16_t> ptype;
  int32_t control = tcact::kPipe;
  friend bool operator==(const SkbeditAction&, const SkbeditAction&) = default;
};

/// `vlan pop | push id N [protocol P] [priority P] | modify id N ... | pop_eth |
/// push_eth dst_mac M src_mac M`.
struct VlanAction {
  enum Op : int32_t { Pop = 1, Push = 2, Modify = 3, PopEth = 4, PushEth = 5 };
  Op op = Pop;
  uint16_t id = 0;
  uint16_t protocol = 0x8100;  ///< 802.1Q (0x88a8: 802.1ad)
  std::optional<uint8_t> priority;
  std::optional<MacAddress> dstMac, srcMac;  ///< the Ethernet header push_eth adds (both required)
  int32_t control = tcact::kPipe;
  friend bool operator==(const VlanAction&, const VlanAction&) = default;
};

/// `tunnel_key unset | set src_ip A dst_ip A id N [dst_port P] [tos T] [ttl T] [csum|nocsum]`.
struct TunnelKeyAction {
  bool unset = false;
  std::optional<IpAddress> src, dst;
  std::optional<uint32_t> keyId;
  std::optional<uint16_t> dstPort;
  std::optional<uint8_t> tos, ttl;
  bool noCsum = false;
  int32_t control = tcact::kPipe;
  friend bool operator==(const TunnelKeyAction&, const TunnelKeyAction&) = default;
};

/// `csum ip4h|icmp|igmp|tcp|udp|udplite|sctp ...` (TCA_CSUM_UPDATE_FLAG_* bits).
struct CsumAction {
  uint32_t updateFlags = 0;
  int32_t control = tcact::kPass;
  friend bool operator==(const CsumAction&, const CsumAction&) = default;
};

/// `mpls pop protocol P | push|mac_push [protocol P] label L [tc T] [ttl T] [bos B] |
/// modify [label L] [tc T] [ttl T] [bos B] | dec_ttl` (act_mpls, TCA_MPLS_*). An unset field is
/// not sent: the kernel keeps the packet's own (modify) or uses its default (push: protocol
/// mpls_uc, tc 0, bos from the stack, ttl the namespace's default).
struct MplsAction {
  enum Op : int32_t { Pop = 1, Push = 2, Modify = 3, DecTtl = 4, MacPush = 5 };
  Op op = Pop;
  std::optional<uint16_t> protocol;  ///< ethertype, host order: pop's next header (required), push's mpls_uc|mpls_mc
  std::optional<uint32_t> label;     ///< 20 bits; required by push and mac_push
  std::optional<uint8_t> tc;         ///< 3 bits
  std::optional<uint8_t> ttl;        ///< 1-255
  std::optional<uint8_t> bos;        ///< 0 or 1
  int32_t control = tcact::kPipe;
  friend bool operator==(const MplsAction&, const MplsAction&) = default;
};

/// One pedit key: the 32-bit word at `off` becomes (word & mask) ^ value (`add`: + value) —
/// value and mask in host order, as tc prints them ("key #0  at 12: val 0a000001 mask 00000000").
/// `at`/`offmask`/`shift` make the offset relative to a packet byte (tc's "at A offmask M shift S").
struct PeditKey {
  enum HeaderType : uint16_t { Network = 0, Eth = 1, Ip4 = 2, Ip6 = 3, Tcp = 4, Udp = 5 };
  enum Command : uint16_t { Set = 0, Add = 1 };
  uint32_t value = 0;
  uint32_t mask = 0;
  int32_t off = 0;  ///< bytes from the header's start, a multiple of 4 (negative: before it)
  uint32_t at = 0, offmask = 0, shift = 0;
  HeaderType header = Network;  ///< extended pedit only (`pedit ex`): the header `off` counts from
  Command command = Set;        ///< extended pedit only
  friend bool operator==(const PeditKey&, const PeditKey&) = default;
};

/// `pedit [ex] munge ...` (act_pedit): up to 128 keys. `extended` sends TCA_PEDIT_PARMS_EX with
/// each key's header type and command (TCA_PEDIT_KEYS_EX), as `pedit ex` does; without it every
/// key must be a Network-relative Set.
struct PeditAction {
  std::vector<PeditKey> keys;
  bool extended = false;
  int32_t control = tcact::kPass;
  friend bool operator==(const PeditAction&, const PeditAction&) = default;
};

/// The options of an action kind fastlink does not decode (TCA_ACT_OPTIONS payload).
struct RawActionOptions {
  std::vector<uint8_t> bytes;
  friend bool operator==(const RawActionOptions&, const RawActionOptions&) = default;
};

using TcActionOptions = std::variant<std::monostate, GactAction, MirredAction, PoliceAction, SkbeditAction, VlanAction,
                                     TunnelKeyAction, CsumAction, MplsAction, PeditAction, RawActionOptions>;

/// One action of a filter or of the standalone action table (`tc actions`).
struct TcAction {
  std::string kind;  ///< "gact", "mirred", ...; set by setOptions for known kinds
  TcActionOptions options;
  std::optional<uint32_t> index;  ///< on add: bind to (or create) this index; unset: a new one

  // Reported only.
  uint32_t order = 0;  ///< position in the filter's list (1-based; 0 in `tc actions`)
  int32_t refcnt = 0, bindcnt = 0;
  uint64_t installed = 0, lastUsed = 0, firstUsed = 0, expires = 0;  ///< jiffies (tcf_t)
  bool hasTimes = false;
  std::optional<TcStats> stats;  ///< TCA_ACT_STATS (asked for by `tc -s`)
  std::optional<uint32_t> inHwCount;
  std::optional<uint32_t> flagsValue, flagsSelector;  ///< TCA_ACT_FLAGS (no_percpu, skip_hw, skip_sw)
  std::optional<uint8_t> hwStats, usedHwStats;  ///< TCA_ACT_HW_STATS / USED_HW_STATS bitfields' values
  std::vector<uint8_t> cookie;
  RawAttributes unknown;  ///< TCA_ACT_* this decoder does not read
  RawAttributes unknownOptions;  ///< the kind's own attributes not read

  TcAction& setOptions(TcActionOptions v);
  TcAction& setIndex(uint32_t v) { index = v; return *this; }
  static TcAction gact(int32_t control) { return TcAction().setOptions(GactAction{control}); }
  static TcAction mirred(MirredAction::Mode mode, Ifref dev) { return TcAction().setOptions(MirredAction{mode, std::move(dev), {}}); }
  friend bool operator==(const TcAction&, const TcAction&) = default;
};

/// `u32 match ...`: one 32-bit key compared at an offset (value and mask in host order, as tc
/// prints them: "match 0a000001/ffffffff at 16").
struct U32Key {
  uint32_t value = 0;
  uint32_t mask = 0;
  int32_t off = 0;
  int32_t offmask = 0;  ///< non-zero: relative to the next header ("at nexthdr+OFF")
  friend bool operator==(const U32Key&, const U32Key&) = default;
};

/// `u32 [match ...] [classid|flowid C] [divisor N] [ht H] [link H] [order N] [indev D] [action ...]`.
struct U32FilterOptions {
  std::vector<U32Key> keys;
  std::optional<TcHandle> classid;
  std::optional<uint32_t> divisor;  ///< creates a hash table
  std::optional<uint32_t> hashTable;  ///< TCA_U32_HASH: the table (and bucket) to insert into
  std::optional<uint32_t> link;
  std::optional<std::string> indev;
  uint32_t flags = 0;  ///< TCA_CLS_FLAGS_* (skip_hw 1, skip_sw 2; reported: in_hw 4, not_in_hw 8)
  bool terminal = false;  ///< reported: the selector is terminal (set on add when there are actions or a classid)
  uint8_t selFlags = 0;   ///< reported: tc_u32_sel flags (TC_U32_TERMINAL, OFFSET, VAROFFSET, EAT)
  /// Reported by kernels built with CONFIG_CLS_U32_PERF (TCA_U32_PCNT; Debian's are, this host's
  /// 6.18 is not): how often the rule was looked at and matched, and each key's matches.
  struct Counters {
    uint64_t lookups = 0, hits = 0;
    std::vector<uint64_t> keyHits;
    friend bool operator==(const Counters&, const Counters&) = default;
  };
  std::optional<Counters> counters;
  std::vector<TcAction> actions;
  friend bool operator==(const U32FilterOptions&, const U32FilterOptions&) = default;
};

/// `matchall [classid C] [skip_hw|skip_sw] [action ...]`.
struct MatchallOptions {
  std::optional<TcHandle> classid;
  uint32_t flags = 0;
  std::vector<TcAction> actions;
  /// Reported: how often the rule matched (TCA_MATCHALL_PCNT; tc -s prints "(rule hit N)").
  std::optional<uint64_t> hits;
  friend bool operator==(const MatchallOptions&, const MatchallOptions&) = default;
};

/// One MPLS label stack entry flower matches (`mpls lse depth D [label L] [tc T] [bos B] [ttl T]`,
/// TCA_FLOWER_KEY_MPLS_OPTS_LSE); depth 1 is the outermost.
struct FlowerMplsLse {
  uint8_t depth = 1;  ///< 1-255
  std::optional<uint32_t> label;  ///< 20 bits
  std::optional<uint8_t> tc;      ///< 3 bits
  std::optional<uint8_t> bos;     ///< 0 or 1
  std::optional<uint8_t> ttl;
  friend bool operator==(const FlowerMplsLse&, const FlowerMplsLse&) = default;
};

/// `flower [KEYS] [classid C] [skip_hw|skip_sw] [action ...]`: the common keys; others are
/// kept raw when reported.
struct FlowerOptions {
  std::optional<uint16_t> ethType;  ///< reported (the filter's protocol on add)
  std::optional<MacAddress> dstMac, srcMac;
  std::optional<uint16_t> vlanId;
  std::optional<uint8_t> vlanPrio;
  std::optional<uint8_t> ipProto;  ///< 6 tcp, 17 udp, 1 icmp, 58 icmpv6, 132 sctp
  std::optional<Prefix> dstIp, srcIp;
  std::optional<uint16_t> dstPort, srcPort;  ///< need ipProto tcp, udp or sctp
  /// The first label stack entry (`mpls_label`, `mpls_tc`, `mpls_bos`, `mpls_ttl`); need protocol
  /// mpls_uc or mpls_mc, and exclude `mpls` below (the kernel reports a depth-1-only `mpls` so).
  std::optional<uint32_t> mplsLabel;
  std::optional<uint8_t> mplsTc, mplsBos, mplsTtl;
  std::vector<FlowerMplsLse> mpls;  ///< `mpls lse ...`: entries at any depth
  std::optional<std::string> indev;
  std::optional<TcHandle> classid;
  uint32_t flags = 0;
  std::optional<uint32_t> inHwCount;  ///< reported
  std::vector<TcAction> actions;
  RawAttributes unknown;
  friend bool operator==(const FlowerOptions&, const FlowerOptions&) = default;
};

/// `fw [classid C] [action ...]`: matches the packet mark equal to the filter's handle
/// (`handle MARK[/MASK]`).
struct FwOptions {
  std::optional<TcHandle> classid;
  std::optional<uint32_t> mask;
  std::optional<std::string> indev;
  std::vector<TcAction> actions;
  friend bool operator==(const FwOptions&, const FwOptions&) = default;
};

/// `basic [classid C] [action ...]` (every packet, without ematches).
struct BasicOptions {
  std::optional<TcHandle> classid;
  std::vector<TcAction> actions;
  friend bool operator==(const BasicOptions&, const BasicOptions&) = default;
};

/// `bpf (fd N | object-file ...) [name N] [direct-action] [classid C] [action ...]`. The program is
/// a loaded BPF_PROG_TYPE_SCHED_CLS program's file descriptor.
struct BpfFilterOptions {
  int fd = -1;  ///< on add
  std::string name;  ///< shown by tc ("bpf.o:[classifier]")
  bool directAction = false;
  std::optional<TcHandle> classid;
  uint32_t flags = 0;  ///< TCA_CLS_FLAGS_*
  std::vector<TcAction> actions;
  // Reported only.
  std::optional<uint32_t> id;
  std::vector<uint8_t> tag;
  friend bool operator==(const BpfFilterOptions&, const BpfFilterOptions&) = default;
};

/// The options of a classifier fastlink does not decode (TCA_OPTIONS payload).
struct RawFilterOptions {
  std::vector<uint8_t> bytes;
  friend bool operator==(const RawFilterOptions&, const RawFilterOptions&) = default;
};

using TcFilterOptions = std::variant<std::monostate, U32FilterOptions, MatchallOptions, FlowerOptions, FwOptions,
                                     BasicOptions, BpfFilterOptions, RawFilterOptions>;

/// The classifier kind of a TcFilterOptions value ("" for monostate, "raw" for RawFilterOptions).
std::string tcFilterKind(const TcFilterOptions& options);

/// One tc filter: where it hangs (a device's qdisc or class, clsact ingress/egress, or a shared
/// block), its priority, protocol, handle and chain, and the classifier's options.
struct TcFilterInfo {
  /// clsact's two hooks as filter parents (`tc filter add dev X ingress|egress`); the ingress
  /// qdisc's hook is `parent ffff:` (TcHandle(0xffff, 0)).
  static constexpr uint32_t kIngressParent = 0xFFFFFFF2u;
  static constexpr uint32_t kEgressParent = 0xFFFFFFF3u;

  std::optional<Ifref> dev;        ///< either a device ...
  std::optional<uint32_t> block;   ///< ... or a shared block (`block N`)
  std::optional<TcHandle> parent;  ///< unset: the root qdisc
  std::optional<uint32_t> handle;  ///< classifier-specific (u32 "800::1", fw's mark)
  std::optional<uint16_t> prio;    ///< `pref`/`prio`; unset on add: the kernel picks one
  std::optional<uint16_t> protocol;  ///< ethertype, host order (0x0003: all); unset on add: all
  std::optional<uint32_t> chain;
  std::string kind;  ///< set by setOptions for known kinds
  TcFilterOptions options;

  // Reported only.
  std::optional<TcStats> stats;
  RawAttributes unknown;

  TcFilterInfo& setDev(Ifref v) { dev = std::move(v); return *this; }
  TcFilterInfo& setBlock(uint32_t v) { block = v; return *this; }
  TcFilterInfo& setParent(TcHandle v) { parent = v; return *this; }
  TcFilterInfo& setParent(uint32_t v) { parent = TcHandle(v); return *this; }
  TcFilterInfo& setHandle(uint32_t v) { handle = v; return *this; }
  TcFilterInfo& setPrio(uint16_t v) { prio = v; return *this; }
  TcFilterInfo& setProtocol(uint16_t v) { protocol = v; return *this; }
  TcFilterInfo& setChain(uint32_t v) { chain = v; return *this; }
  TcFilterInfo& setOptions(TcFilterOptions v);
};

/// Which filters `list` returns. The kernel dumps one parent of one device (or block); prio,
/// protocol and chain are filtered by the kernel too; the handle here.
struct TcFilterFilter {
  std::optional<Ifref> dev;
  std::optional<uint32_t> block;
  std::optional<TcHandle> parent;  ///< unset: the root qdisc
  std::optional<uint16_t> prio;
  std::optional<uint16_t> protocol;
  std::optional<uint32_t> chain;
  std::optional<uint32_t> handle;
  std::optional<std::string> kind;
};

/// Builds filter and action requests without sending them (devices must be ifindexes). Throws
/// Error(EINVAL) on bad input.
struct TcFilterRequests {
  /// Equivalent to: tc filter add dev D PARENT [handle H] [pref P] [protocol P] [chain C] KIND OPTS
  static Request add(const TcFilterInfo& f);
  /// Equivalent to: tc filter replace dev D ... KIND OPTS
  static Request replace(const TcFilterInfo& f);
  /// Equivalent to: tc filter change dev D ... handle H KIND OPTS
  static Request change(const TcFilterInfo& f);
  /// Equivalent to: tc filter del dev D PARENT [pref P [protocol P] [handle H KIND]]
  static Request del(const TcFilterInfo& f);
  /// Equivalent to: tc chain add dev D PARENT [protocol P] [chain C] [KIND TEMPLATE]. A chain is
  /// a TcFilterInfo without pref or handle: its kind and options, if any, are the chain's
  /// template (the keys every filter of the chain must use; the kernel takes flower's only).
  static Request addChain(const TcFilterInfo& chain);
  /// Equivalent to: tc chain del dev D PARENT [chain C]
  static Request delChain(const TcFilterInfo& chain);
  /// Equivalent to: tc actions add action KIND OPTS [index N] ...
  static Request addActions(const std::vector<TcAction>& actions);
  /// Equivalent to: tc actions del action KIND index N ...
  static Request delActions(const std::vector<TcAction>& actions);
  /// Equivalent to: tc actions get action KIND index N ... (each action's kind and index only)
  static Request getActions(const std::vector<TcAction>& actions);
  /// Equivalent to: tc actions flush action KIND (every action of the kind's table; while a
  /// filter holds one of them the kernel refuses the flush with EPERM and deletes none).
  static Request flushActions(const std::string& kind);
};

class ITcFilterApi {
 public:
  virtual ~ITcFilterApi() = default;
  /// Equivalent to: tc filter add dev D PARENT ... KIND OPTS
  virtual void add(const TcFilterInfo& f) = 0;
  /// Equivalent to: tc filter replace dev D PARENT ... KIND OPTS
  virtual void replace(const TcFilterInfo& f) = 0;
  /// Equivalent to: tc filter change dev D PARENT pref P handle H KIND OPTS
  virtual void change(const TcFilterInfo& f) = 0;
  /// Equivalent to: tc filter del dev D PARENT [pref P] [protocol P] [handle H KIND]
  virtual void del(const TcFilterInfo& f) = 0;
  /// Equivalent to: tc -s filter show dev D PARENT [pref P] [protocol P] [chain C]
  virtual std::vector<TcFilterInfo> list(const TcFilterFilter& filter) = 0;
  virtual void forEach(const TcFilterFilter& filter, const std::function<void(const TcFilterInfo&)>& each,
                       const std::function<void()>& restart = {}) = 0;
  /// Equivalent to: tc chain add dev D PARENT [protocol P] [chain C] [KIND TEMPLATE]
  virtual void addChain(const TcFilterInfo& chain) = 0;
  /// Equivalent to: tc chain del dev D PARENT [chain C]
  virtual void delChain(const TcFilterInfo& chain) = 0;
  /// Equivalent to: tc chain get { dev D PARENT | block N } [chain C]. A missing chain is the
  /// kernel's Error(EINVAL) "Cannot find specified filter chain".
  virtual TcFilterInfo getChain(const TcFilterFilter& where) = 0;
  /// Equivalent to: tc chain show { dev D | block N } PARENT [chain C]: the chains the kernel
  /// holds, those created by `addChain` and those a filter created (prio, protocol, handle unset).
  virtual std::vector<TcFilterInfo> chains(const TcFilterFilter& filter) = 0;
  virtual void forEachChain(const TcFilterFilter& filter, const std::function<void(const TcFilterInfo&)>& each,
                            const std::function<void()>& restart = {}) = 0;
  /// Equivalent to: tc actions add action KIND OPTS ...
  virtual void addActions(const std::vector<TcAction>& actions) = 0;
  /// Equivalent to: tc actions del action KIND index N ...
  virtual void delActions(const std::vector<TcAction>& actions) = 0;
  /// Equivalent to: tc -s actions show action KIND
  virtual std::vector<TcAction> actions(const std::string& kind) = 0;
  /// Equivalent to: tc -s actions get action KIND index N ...: the actions named by kind and
  /// index, in the order asked (`order` numbers them from 1, as the kernel's reply does).
  virtual std::vector<TcAction> getActions(const std::vector<TcAction>& keys) = 0;
};

/// The kernel-backed ITcFilterApi over a Netlink's rtnetlink socket (valid while the Netlink
/// lives): `nl.tcFilters().add(f);`.
class TcFilterApi final : public ITcFilterApi {
 public:
  /// What Netlink::tcFilters() builds it on: the rtnetlink socket.
  void add(const TcFilterInfo& f) override;
  void replace(const TcFilterInfo& f) override;
  void change(const TcFilterInfo& f) override;
  void del(const TcFilterInfo& f) override;
  std::vector<TcFilterInfo> list(const TcFilterFilter& filter) override;
  void forEach(const TcFilterFilter& filter, const std::function<void(const TcFilterInfo&)>& each,
               const std::function<void()>& restart = {}) override;
  void addChain(const TcFilterInfo& chain) override;
  void delChain(const TcFilterInfo& chain) override;
  TcFilterInfo getChain(const TcFilterFilter& where) override;
  std::vector<TcFilterInfo> chains(const TcFilterFilter& filter) override;
  void forEachChain(const TcFilterFilter& filter, const std::function<void(const TcFilterInfo&)>& each,
                    const std::function<void()>& restart = {}) override;
  void addActions(const std::vector<TcAction>& actions) override;
  void delActions(const std::vector<TcAction>& actions) override;
  std::vector<TcAction> actions(const std::string& kind) override;
  std::vector<TcAction> getActions(const std::vector<TcAction>& keys) override;

 private:
  friend class Netlink;  // built by its accessor on Netlink, the one way in
  explicit TcFilterApi(core::Engine& engine) : engine_(engine) {}
  core::Engine& engine_;
};

}  // namespace fastlink
