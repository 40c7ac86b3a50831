// tc actions: TcAction <-> TCA_ACT_* nests (kind, options, index, statistics). Every kind is a row
// of kActionKinds: gact, mirred, police, skbedit, vlan, tunnel_key, csum and mpls as a parameter
// struct (tc_gen first) plus an attribute table over the kind's options (tc_fields.hpp), pedit
// with its key list; other kinds are kept raw. The same nests serve a filter's action list and
// the standalone action table.
#include <arpa/inet.h>
#include <linux/pkt_cls.h>
#include <linux/rtnetlink.h>
#include <linux/tc_act/tc_csum.h>
#include <linux/tc_act/tc_gact.h>
#include <linux/tc_act/tc_mirred.h>
#include <linux/tc_act/tc_mpls.h>
#include <linux/tc_act/tc_pedit.h>
#include <linux/tc_act/tc_skbedit.h>
#include <linux/tc_act/tc_tunnel_key.h>
#include <linux/tc_act/tc_vlan.h>

#include <algorithm>
#include <array>
#include <iterator>
#include <cstring>
#include <variant>

#include "rtnl/tc_fields.hpp"
#include "rtnl/tc_filter_codec.hpp"

namespace fastlink {

namespace {
/// The verdicts by name, for reading and printing; a value's first name is the one printed
/// (tc reads "ok" and "shot" too).
constexpr std::pair<int32_t, std::string_view> kControls[] = {
    {tcact::kContinue, "continue"}, {tcact::kPass, "pass"},   {tcact::kDrop, "drop"},  {tcact::kReclassify, "reclassify"},
    {tcact::kPipe, "pipe"},         {tcact::kStolen, "stolen"}, {tcact::kTrap, "trap"}, {tcact::kPass, "ok"},
    {tcact::kDrop, "shot"},
};
}  // namespace

std::string tcact::name(int32_t control) {
  if (TC_ACT_EXT_CMP(control, TC_ACT_GOTO_CHAIN))
    return "goto chain " + std::to_string(static_cast<uint32_t>(control) & TC_ACT_EXT_VAL_MASK);
  if (TC_ACT_EXT_CMP(control, TC_ACT_JUMP))
    return "jump " + std::to_string(static_cast<uint32_t>(control) & TC_ACT_EXT_VAL_MASK);
  for (const auto& [value, word] : kControls)
    if (value == control) return std::string(word);
  return std::to_string(control);
}

std::optional<int32_t> tcact::parse(std::string_view w) {
  for (const auto& [value, word] : kControls)
    if (word == w) return value;
  return std::nullopt;
}

}  // namespace fastlink

namespace fastlink::rtnl {
namespace {

constexpr FieldContext kActionContext{"decode tc action"};

void checkControl(const Operation& operation, int32_t control) {
  bool ext = TC_ACT_EXT_CMP(control, TC_ACT_GOTO_CHAIN) || TC_ACT_EXT_CMP(control, TC_ACT_JUMP);
  if (!ext && (control < TC_ACT_UNSPEC || control > TC_ACT_TRAP))
    throw invalid(operation, "action control " + std::to_string(control) + " is not a tc verdict");
}
/// The check of a kind whose only rule is a valid control (gact).
template <class A>
int32_t controlChecked(const A& o, const Operation& operation) {
  checkControl(operation, o.control);
  return o.control;
}

void readTimes(const nlattr* a, TcAction& out) {
  auto t = readStruct<tcf_t>(a);
  out.installed = t.install, out.lastUsed = t.lastuse, out.firstUsed = t.firstuse, out.expires = t.expires;
  out.hasTimes = true;
}

/// The attribute types a kind's parameter struct, times (tcf_t) and pad have.
struct ActionAttrs {
  uint16_t parms, tm, pad;
};
/// The table of a kind whose options are all in its parameter struct.
constexpr std::nullptr_t kNoRows = nullptr;
template <class A>
bool always(const A&) { return true; }

/// What a parameter struct holds beyond tc_gen: nothing (gact), one member of the options
/// (ParmsMember), or a kind's own put/get pair.
struct NoParms {
  static void put(auto&, const auto&) {}
  static void get(const auto&, auto&) {}
};
template <auto kStruct, auto kOption>
struct ParmsMember {
  static void put(auto& p, const auto& o) { p.*kStruct = o.*kOption; }
  template <class A>
  static void get(const auto& p, A& o) { o.*kOption = static_cast<std::remove_cvref_t<decltype(o.*kOption)>>(p.*kStruct); }
};

/// One kind: `check` validates the options (throws naming the operation) and returns the control
/// to send; the parameter struct P is tc_gen (index, that control: kControl) and what `Parms`
/// puts in from the options and gets back; the kind's own attributes are rows of kTable, written
/// after the struct when `sends` says so. A decode keeps what no row reads in
/// TcAction::unknownOptions.
template <class A, class P, ActionAttrs kAttrs, const auto& kTable, int32_t (*check)(const A&, const Operation&),
          class Parms = NoParms, auto kControl = &A::control, bool (*sends)(const A&) = always<A>>
struct ActionCodec {
  static constexpr bool kRows = !std::is_same_v<std::remove_cvref_t<decltype(kTable)>, std::nullptr_t>;

  static void encode(core::MessageWriter& w, const TcAction& a, const Operation& operation) {
    const A& o = std::get<A>(a.options);
    P p{};
    p.action = check(o, operation);
    p.index = a.index.value_or(0);
    Parms::put(p, o);
    putStruct(w, kAttrs.parms, p);
    if constexpr (kRows)
      if (sends(o)) kTable.encode(w, o);
  }

  static TcActionOptions decode(const nlattr* options, TcAction& out) {
    A o;
    std::optional<P> p;
    core::forEachAttr(core::readBytes(options), [&](const nlattr* x) {
      if constexpr (kRows)
        if (kTable.decode(x, o, kActionContext)) return;
      uint16_t type = core::attrType(x);
      if (type == kAttrs.parms) p = readStruct<P>(x);
      else if (type == kAttrs.tm) readTimes(x, out);
      else if (type != kAttrs.pad) out.unknownOptions.append(type, core::readBytes(x));
    });
    if (p) {
      out.index = p->index, out.refcnt = p->refcnt, out.bindcnt = p->bindcnt;
      o.*kControl = p->action;
      Parms::get(*p, o);  // after the rows: police's 64-bit rates win over its struct's
    }
    return o;
  }
};

using Gact = ActionCodec<GactAction, tc_gact, ActionAttrs{TCA_GACT_PARMS, TCA_GACT_TM, TCA_GACT_PAD}, kNoRows, controlChecked<GactAction>>;

// --- mirred
int32_t mirredCheck(const MirredAction& o, const Operation& operation) {
  if (o.mode < MirredAction::EgressRedirect || o.mode > MirredAction::IngressMirror)
    throw invalid(operation, "mirred mode " + std::to_string(o.mode) + " is not one of egress/ingress redirect/mirror");
  bool redirect = o.mode == MirredAction::EgressRedirect || o.mode == MirredAction::IngressRedirect;
  int32_t control = o.control.value_or(redirect ? TC_ACT_STOLEN : TC_ACT_PIPE);
  checkControl(operation, control);
  return control;
}
struct MirredParms {
  static void put(tc_mirred& p, const MirredAction& o) {
    p.eaction = o.mode;
    p.ifindex = requireIndex(o.dev, "mirred dev", true);
  }
  static void get(const tc_mirred& p, MirredAction& o) {
    o.mode = static_cast<MirredAction::Mode>(p.eaction);
    o.dev = Ifref(p.ifindex);
  }
};
using Mirred = ActionCodec<MirredAction, tc_mirred, ActionAttrs{TCA_MIRRED_PARMS, TCA_MIRRED_TM, TCA_MIRRED_PAD}, kNoRows, mirredCheck,
                           MirredParms>;

// --- police: tc_police, then the rate tables the kernel still wants (tc's tc_calc_rtable),
// 64-bit rates and the conform verdict.
/// The 256-slot rate table a policer needs (tc's tc_calc_rtable for Ethernet): transmit ticks
/// of each packet size class.
std::array<uint32_t, 256> rateTable(tc_ratespec& r, uint64_t rate, uint32_t mtu) {
  if (mtu == 0) mtu = 2047;
  uint8_t cellLog = 0;
  while ((mtu >> cellLog) > 255) cellLog++;
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; i++) table[i] = xmitTicks(rate, (i + 1) << cellLog);
  r.cell_align = -1;
  r.cell_log = cellLog;
  r.linklayer = TC_LINKLAYER_ETHERNET;
  return table;
}

/// Row of a rate table (TCA_POLICE_RATE / _PEAKRATE): computed from the rate and mtu when sent,
/// passed over when read (the kernel's copy of what the rate says).
template <uint16_t kType, std::optional<uint64_t> (*kRateOf)(const PoliceAction&)>
constexpr AttrField<PoliceAction> rateTableRow() {
  auto put = [](core::MessageWriter& w, const AttrField<PoliceAction>&, const PoliceAction& o) {
    tc_ratespec spec{};
    if (auto rate = kRateOf(o)) putStruct(w, kType, rateTable(spec, *rate, o.mtu));
  };
  return {kType, put, [](const nlattr*, PoliceAction&, const FieldContext&) { return true; }};
}
/// Row of a rate beyond the tc_ratespec's 32 bits (TCA_POLICE_RATE64 / _PEAKRATE64).
template <uint16_t kType, std::optional<uint64_t> (*kRateOf)(const PoliceAction&), void (*kSet)(PoliceAction&, uint64_t)>
constexpr AttrField<PoliceAction> rate64Row() {
  auto put = [](core::MessageWriter& w, const AttrField<PoliceAction>&, const PoliceAction& o) {
    if (auto rate = kRateOf(o); rate && *rate > UINT32_MAX) w.putU64(kType, *rate);
  };
  return {kType, put, [](const nlattr* a, PoliceAction& o, const FieldContext&) { return (kSet(o, readStruct<uint64_t>(a)), true); }};
}
std::optional<uint64_t> policeRate(const PoliceAction& o) { return o.rate; }
std::optional<uint64_t> policePeak(const PoliceAction& o) { return o.peakrate; }
void setRate(PoliceAction& o, uint64_t v) { o.rate = v; }
void setPeak(PoliceAction& o, uint64_t v) { o.peakrate = v; }

constexpr FieldTable kPoliceFields({
    rateTableRow<TCA_POLICE_RATE, policeRate>(),
    rate64Row<TCA_POLICE_RATE64, policeRate, setRate>(),
    rateTableRow<TCA_POLICE_PEAKRATE, policePeak>(),
    rate64Row<TCA_POLICE_PEAKRATE64, policePeak, setPeak>(),
    looseField<TCA_POLICE_RESULT, &PoliceAction::conform>(),
});
int32_t policeCheck(const PoliceAction& o, const Operation& operation) {
  if (o.rate == 0) throw invalid(operation, "police needs a rate above 0");
  if (o.burst == 0) throw invalid(operation, "police needs a burst (burst BYTES)");
  if (o.peakrate && o.mtu == 0) throw invalid(operation, "police peakrate needs an mtu");
  checkControl(operation, o.exceed);
  return o.exceed;
}
uint32_t rate32(uint64_t rate) { return rate > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(rate); }
struct PoliceParms {
  static void put(tc_police& p, const PoliceAction& o) {
    p.rate.rate = rate32(o.rate);
    rateTable(p.rate, o.rate, o.mtu);
    p.burst = xmitTicks(o.rate, o.burst);
    p.mtu = o.mtu;
    if (o.peakrate) p.peakrate.rate = rate32(*o.peakrate), rateTable(p.peakrate, *o.peakrate, o.mtu);
  }
  static void get(const tc_police& p, PoliceAction& o) {
    if (!o.rate) o.rate = p.rate.rate;
    o.burst = xmitSize(o.rate, p.burst);
    o.mtu = p.mtu;
    if (!o.peakrate && p.peakrate.rate) o.peakrate = p.peakrate.rate;
    if (o.peakrate == 0u) o.peakrate.reset();
  }
};
using Police = ActionCodec<PoliceAction, tc_police, ActionAttrs{TCA_POLICE_TBF, TCA_POLICE_TM, TCA_POLICE_PAD}, kPoliceFields,
                           policeCheck, PoliceParms, &PoliceAction::exceed>;

// --- skbedit
constexpr FieldTable kSkbeditFields({
    looseField<TCA_SKBEDIT_PRIORITY, &SkbeditAction::priority>(),
    looseField<TCA_SKBEDIT_QUEUE_MAPPING, &SkbeditAction::queueMapping>(),
    looseField<TCA_SKBEDIT_MARK, &SkbeditAction::mark>(),
    looseField<TCA_SKBEDIT_PTYPE, &SkbeditAction::ptype>(),
    looseField<TCA_SKBEDIT_MASK, &SkbeditAction::mask>(),
});
int32_t skbeditCheck(const SkbeditAction& o, const Operation& operation) {
  checkControl(operation, o.control);
  if (o.mask && !o.mark) throw invalid(operation, "skbedit mask needs a mark");
  return o.control;
}
using Skbedit = ActionCodec<SkbeditAction, tc_skbedit, ActionAttrs{TCA_SKBEDIT_PARMS, TCA_SKBEDIT_TM, TCA_SKBEDIT_PAD},
                            kSkbeditFields, skbeditCheck>;

// --- vlan: the tag's attributes for push and modify, the Ethernet header's for push_eth.
bool tagged(const VlanAction& o) { return o.op == VlanAction::Push || o.op == VlanAction::Modify; }
/// A row sent when `kWhen` holds, read as tc reads: short payloads zero-padded (`kRead`).
template <uint16_t kType, bool (*kWhen)(const VlanAction&), void (*kPut)(core::MessageWriter&, const VlanAction&),
          void (*kRead)(const nlattr*, VlanAction&)>
constexpr AttrField<VlanAction> vlanRow() {
  auto put = [](core::MessageWriter& w, const AttrField<VlanAction>&, const VlanAction& o) {
    if (kWhen(o)) kPut(w, o);
  };
  return {kType, put, [](const nlattr* a, VlanAction& o, const FieldContext&) { return (kRead(a, o), true); }};
}
bool pushEth(const VlanAction& o) { return o.op == VlanAction::PushEth; }
bool taggedPriority(const VlanAction& o) { return tagged(o) && o.priority; }
/// push_eth's addresses: read only when 6 bytes long.
template <uint16_t kType, std::optional<MacAddress> VlanAction::*kMember>
void putMac(core::MessageWriter& w, const VlanAction& o) { w.putBytes(kType, (o.*kMember)->bytes()); }
template <std::optional<MacAddress> VlanAction::*kMember>
void readMac(const nlattr* a, VlanAction& o) {
  if (core::readBytes(a).size() == 6) o.*kMember = MacAddress(core::readBytes(a));
}
constexpr FieldTable kVlanFields({
    vlanRow<TCA_VLAN_PUSH_ETH_DST, pushEth, putMac<TCA_VLAN_PUSH_ETH_DST, &VlanAction::dstMac>, readMac<&VlanAction::dstMac>>(),
    vlanRow<TCA_VLAN_PUSH_ETH_SRC, pushEth, putMac<TCA_VLAN_PUSH_ETH_SRC, &VlanAction::srcMac>, readMac<&VlanAction::srcMac>>(),
    vlanRow<TCA_VLAN_PUSH_VLAN_ID, tagged, [](core::MessageWriter& w, const VlanAction& o) { w.putU16(TCA_VLAN_PUSH_VLAN_ID, o.id); },
            [](const nlattr* a, VlanAction& o) { o.id = readStruct<uint16_t>(a); }>(),
    vlanRow<TCA_VLAN_PUSH_VLAN_PROTOCOL, tagged,
            [](core::MessageWriter& w, const VlanAction& o) { w.putBe16(TCA_VLAN_PUSH_VLAN_PROTOCOL, o.protocol); },
            [](const nlattr* a, VlanAction& o) { o.protocol = ntohs(readStruct<uint16_t>(a)); }>(),
    vlanRow<TCA_VLAN_PUSH_VLAN_PRIORITY, taggedPriority,
            [](core::MessageWriter& w, const VlanAction& o) { w.putU8(TCA_VLAN_PUSH_VLAN_PRIORITY, *o.priority); },
            [](const nlattr* a, VlanAction& o) { o.priority = readStruct<uint8_t>(a); }>(),
});
int32_t vlanCheck(const VlanAction& o, const Operation& operation) {
  checkControl(operation, o.control);
  if (o.op < VlanAction::Pop || o.op > VlanAction::PushEth)
    throw invalid(operation, "vlan op must be pop, push, modify, pop_eth or push_eth");
  if (tagged(o) && (o.id == 0 || o.id >= 4095)) throw invalid(operation, "vlan id must be 1-4094");
  if (o.priority && *o.priority > 7) throw invalid(operation, "vlan priority must be 0-7");
  if (o.op == VlanAction::PushEth && (!o.dstMac || !o.srcMac || o.dstMac->size() != 6 || o.srcMac->size() != 6))
    throw invalid(operation, "vlan push_eth needs a 6-byte dst_mac and src_mac");
  return o.control;
}
using Vlan = ActionCodec<VlanAction, tc_vlan, ActionAttrs{TCA_VLAN_PARMS, TCA_VLAN_TM, TCA_VLAN_PAD}, kVlanFields, vlanCheck,
                         ParmsMember<&tc_vlan::v_action, &VlanAction::op>>;

// --- tunnel_key: the outer header's endpoints (by family), key, port, checksum, tos, ttl.
/// An endpoint's row: sent when the address is of the row's width; read zero-padded to it.
template <uint16_t kType, std::optional<IpAddress> TunnelKeyAction::*kMember, std::size_t kWidth>
constexpr AttrField<TunnelKeyAction> endpointRow() {
  auto put = [](core::MessageWriter& w, const AttrField<TunnelKeyAction>&, const TunnelKeyAction& o) {
    if (const auto& ip = o.*kMember; ip && ip->isV4() == (kWidth == 4)) w.putBytes(kType, ip->bytes());
  };
  auto get = [](const nlattr* a, TunnelKeyAction& o, const FieldContext&) {
    auto b = core::readBytes(a);
    std::array<uint8_t, 16> bytes{};
    std::memcpy(bytes.data(), b.data(), std::min(b.size(), kWidth));
    o.*kMember = IpAddress::fromBytes(std::span<const uint8_t>(bytes.data(), kWidth));
    return true;
  };
  return {kType, put, get};
}
constexpr FieldTable kTunnelKeyFields({
    endpointRow<TCA_TUNNEL_KEY_ENC_IPV4_SRC, &TunnelKeyAction::src, 4>(),
    endpointRow<TCA_TUNNEL_KEY_ENC_IPV4_DST, &TunnelKeyAction::dst, 4>(),
    endpointRow<TCA_TUNNEL_KEY_ENC_IPV6_SRC, &TunnelKeyAction::src, 16>(),
    endpointRow<TCA_TUNNEL_KEY_ENC_IPV6_DST, &TunnelKeyAction::dst, 16>(),
    looseField<TCA_TUNNEL_KEY_ENC_KEY_ID, &TunnelKeyAction::keyId, true>(),
    looseField<TCA_TUNNEL_KEY_ENC_DST_PORT, &TunnelKeyAction::dstPort, true>(),
    AttrField<TunnelKeyAction>{TCA_TUNNEL_KEY_NO_CSUM,
                               [](core::MessageWriter& w, const AttrField<TunnelKeyAction>&, const TunnelKeyAction& o) {
                                 if (o.noCsum) w.putU8(TCA_TUNNEL_KEY_NO_CSUM, 1);
                               },
                               [](const nlattr* a, TunnelKeyAction& o, const FieldContext&) { return (o.noCsum = readStruct<uint8_t>(a) != 0, true); }},
    looseField<TCA_TUNNEL_KEY_ENC_TOS, &TunnelKeyAction::tos>(),
    looseField<TCA_TUNNEL_KEY_ENC_TTL, &TunnelKeyAction::ttl>(),
});
int32_t tunnelKeyCheck(const TunnelKeyAction& o, const Operation& operation) {
  checkControl(operation, o.control);
  if (!o.unset && (!o.src || !o.dst)) throw invalid(operation, "tunnel_key set needs src_ip and dst_ip");
  if (!o.unset && o.src->family() != o.dst->family()) throw invalid(operation, "tunnel_key src_ip and dst_ip are of different families");
  return o.control;
}
struct TunnelKeyParms {
  static void put(tc_tunnel_key& p, const TunnelKeyAction& o) { p.t_action = o.unset ? TCA_TUNNEL_KEY_ACT_RELEASE : TCA_TUNNEL_KEY_ACT_SET; }
  static void get(const tc_tunnel_key& p, TunnelKeyAction& o) { o.unset = p.t_action == TCA_TUNNEL_KEY_ACT_RELEASE; }
};
// unset releases the metadata: nothing but the parameters.
bool tunnelKeySends(const TunnelKeyAction& o) { return !o.unset; }
using TunnelKey = ActionCodec<TunnelKeyAction, tc_tunnel_key, ActionAttrs{TCA_TUNNEL_KEY_PARMS, TCA_TUNNEL_KEY_TM, TCA_TUNNEL_KEY_PAD},
                              kTunnelKeyFields, tunnelKeyCheck, TunnelKeyParms, &TunnelKeyAction::control, tunnelKeySends>;

// --- csum
int32_t csumCheck(const CsumAction& o, const Operation& operation) {
  checkControl(operation, o.control);
  if (o.updateFlags == 0) throw invalid(operation, "csum needs at least one header (ip4h, tcp, udp, ...)");
  return o.control;
}
using Csum = ActionCodec<CsumAction, tc_csum, ActionAttrs{TCA_CSUM_PARMS, TCA_CSUM_TM, TCA_CSUM_PAD}, kNoRows, csumCheck,
                         ParmsMember<&tc_csum::update_flags, &CsumAction::updateFlags>>;

// --- mpls: tc's order, label, protocol, tc, ttl, bos.
constexpr FieldTable kMplsFields({
    looseField<TCA_MPLS_LABEL, &MplsAction::label>(),
    looseField<TCA_MPLS_PROTO, &MplsAction::protocol, true>(),
    looseField<TCA_MPLS_TC, &MplsAction::tc>(),
    looseField<TCA_MPLS_TTL, &MplsAction::ttl>(),
    looseField<TCA_MPLS_BOS, &MplsAction::bos>(),
});
int32_t mplsCheck(const MplsAction& o, const Operation& operation) {
  checkControl(operation, o.control);
  if (o.op < MplsAction::Pop || o.op > MplsAction::MacPush)
    throw invalid(operation, "mpls op must be pop, push, modify, dec_ttl or mac_push");
  const bool push = o.op == MplsAction::Push || o.op == MplsAction::MacPush;
  const bool fields = push || o.op == MplsAction::Modify;
  // act_mpls's own rules, checked here so that bad input names the field before anything is sent.
  if (o.op == MplsAction::Pop && !o.protocol) throw invalid(operation, "mpls pop needs the next header's protocol");
  if (o.protocol && !push && o.op != MplsAction::Pop) throw invalid(operation, "mpls protocol is only for pop, push and mac_push");
  if (push && o.protocol && *o.protocol != 0x8847 && *o.protocol != 0x8848)
    throw invalid(operation, "mpls push protocol must be mpls_uc or mpls_mc");
  if (push && !o.label) throw invalid(operation, "mpls push and mac_push need a label");
  if (!fields && (o.label || o.tc || o.ttl || o.bos)) throw invalid(operation, "mpls label, tc, ttl and bos are only for push, mac_push and modify");
  if (o.label && *o.label > 0xFFFFF) throw invalid(operation, "mpls label must be 0-1048575");
  if (o.tc && *o.tc > 7) throw invalid(operation, "mpls tc must be 0-7");
  if (o.ttl && *o.ttl == 0) throw invalid(operation, "mpls ttl must be 1-255");
  if (o.bos && *o.bos > 1) throw invalid(operation, "mpls bos must be 0 or 1");
  return o.control;
}
using Mpls = ActionCodec<MplsAction, tc_mpls, ActionAttrs{TCA_MPLS_PARMS, TCA_MPLS_TM, TCA_MPLS_PAD}, kMplsFields, mplsCheck,
                         ParmsMember<&tc_mpls::m_action, &MplsAction::op>>;

// --- pedit: its selector carries a list of keys (and pedit ex a nest of their header types).
/// tc_pedit_sel (tc_gen, nkeys, flags) followed by its keys, in the kernel's byte order.
std::vector<uint8_t> peditSelector(const TcAction& a, const PeditAction& o) {
  tc_pedit_sel sel{};
  sel.index = a.index.value_or(0);
  sel.action = o.control;
  sel.nkeys = static_cast<unsigned char>(o.keys.size());
  std::vector<uint8_t> out(sizeof(sel) + o.keys.size() * sizeof(tc_pedit_key));
  std::memcpy(out.data(), &sel, sizeof(sel));
  uint8_t* at = out.data() + sizeof(sel);
  for (const PeditKey& k : o.keys) {
    tc_pedit_key key{};
    key.mask = htonl(k.mask);
    key.val = htonl(k.value);
    key.off = static_cast<uint32_t>(k.off);
    key.at = k.at;
    key.offmask = k.offmask;
    key.shift = k.shift;
    std::memcpy(at, &key, sizeof(key));
    at += sizeof(key);
  }
  return out;
}

void encodePedit(core::MessageWriter& w, const TcAction& a, const Operation& operation) {
  const auto& o = std::get<PeditAction>(a.options);
  checkControl(operation, o.control);
  if (o.keys.empty()) throw invalid(operation, "pedit needs at least one key (munge ...)");
  if (o.keys.size() > 128) throw invalid(operation, "pedit takes at most 128 keys");
  for (const PeditKey& k : o.keys) {
    if (k.off % 4) throw invalid(operation, "pedit key offset " + std::to_string(k.off) + " is not a multiple of 4");
    if (k.header > PeditKey::Udp) throw invalid(operation, "pedit key header type " + std::to_string(k.header) + " is not one the kernel knows");
    if (k.command > PeditKey::Add) throw invalid(operation, "pedit key command " + std::to_string(k.command) + " is not set or add");
    if (!o.extended && (k.header != PeditKey::Network || k.command != PeditKey::Set))
      throw invalid(operation, "pedit keys with a header type or the add command need extended pedit (pedit ex)");
  }
  w.putBytes(o.extended ? TCA_PEDIT_PARMS_EX : TCA_PEDIT_PARMS, peditSelector(a, o));
  if (!o.extended) return;
  auto keys = w.beginNest(TCA_PEDIT_KEYS_EX);
  for (const PeditKey& k : o.keys) {
    auto key = w.beginNest(TCA_PEDIT_KEY_EX);
    w.putU16(TCA_PEDIT_KEY_EX_HTYPE, k.header);
    w.putU16(TCA_PEDIT_KEY_EX_CMD, k.command);
    w.endNest(key);
  }
  w.endNest(keys);
}

/// pedit's selector (TCA_PEDIT_PARMS, or _PARMS_EX with one TCA_PEDIT_KEY_EX per key in
/// TCA_PEDIT_KEYS_EX). nkeys counts the keys; a selector shorter than its keys keeps those present.
TcActionOptions decodePedit(const nlattr* options, TcAction& out) {
  PeditAction p;
  const nlattr* keysEx = nullptr;
  std::span<const uint8_t> selector;
  forEachAttr(core::nestPayload(options), [&](const nlattr* x) {
    switch (core::attrType(x)) {
      case TCA_PEDIT_PARMS: selector = core::readBytes(x); break;
      case TCA_PEDIT_PARMS_EX: selector = core::readBytes(x), p.extended = true; break;
      case TCA_PEDIT_KEYS_EX: keysEx = x; break;
      case TCA_PEDIT_TM: readTimes(x, out); break;
      case TCA_PEDIT_PAD: break;
      default: out.unknownOptions.append(core::attrType(x), core::readBytes(x));
    }
  });
  // Read leniently, as the other kinds' parameters: a short selector reads as zeros, and so does
  // none (memcpy from the null data of an empty span is undefined, even for 0 bytes).
  tc_pedit_sel sel{};
  if (!selector.empty()) std::memcpy(&sel, selector.data(), std::min(selector.size(), sizeof(sel)));
  if (selector.size() < sizeof(sel)) selector = {};
  out.index = sel.index, out.refcnt = sel.refcnt, out.bindcnt = sel.bindcnt;
  p.control = sel.action;
  std::size_t present = selector.empty() ? 0 : (selector.size() - sizeof(sel)) / sizeof(tc_pedit_key);
  for (std::size_t i = 0; i < std::min<std::size_t>(sel.nkeys, present); i++) {
    tc_pedit_key key{};
    std::memcpy(&key, selector.data() + sizeof(sel) + i * sizeof(key), sizeof(key));
    PeditKey k;
    k.mask = ntohl(key.mask);
    k.value = ntohl(key.val);
    k.off = static_cast<int32_t>(key.off);
    k.at = key.at, k.offmask = key.offmask, k.shift = key.shift;
    p.keys.push_back(k);
  }
  if (keysEx) {
    std::size_t i = 0;
    forEachAttr(core::nestPayload(keysEx), [&](const nlattr* x) {
      if (core::attrType(x) != TCA_PEDIT_KEY_EX || i >= p.keys.size()) return;
      PeditKey& k = p.keys[i++];
      forEachAttr(core::nestPayload(x), [&](const nlattr* y) {
        if (core::attrType(y) == TCA_PEDIT_KEY_EX_HTYPE) k.header = static_cast<PeditKey::HeaderType>(readStruct<uint16_t>(y));
        else if (core::attrType(y) == TCA_PEDIT_KEY_EX_CMD) k.command = static_cast<PeditKey::Command>(readStruct<uint16_t>(y));
      });
    });
  }
  return p;
}

/// A row of the action kinds fastlink decodes: `name` is the kind's and its options' (the
/// variant alternative `index`).
struct ActionKind {
  const char* name;
  std::size_t index;
  void (*encode)(core::MessageWriter&, const TcAction&, const Operation&);
  TcActionOptions (*decode)(const nlattr*, TcAction&);
};
template <class A, class Codec>
constexpr ActionKind actionRow(const char* name) {
  return {name, VariantIndex<A, TcActionOptions>::value, Codec::encode, Codec::decode};
}
constexpr ActionKind kActionKinds[] = {
    actionRow<GactAction, Gact>("gact"),
    actionRow<MirredAction, Mirred>("mirred"),
    actionRow<PoliceAction, Police>("police"),
    actionRow<SkbeditAction, Skbedit>("skbedit"),
    actionRow<VlanAction, Vlan>("vlan"),
    actionRow<TunnelKeyAction, TunnelKey>("tunnel_key"),
    actionRow<CsumAction, Csum>("csum"),
    actionRow<MplsAction, Mpls>("mpls"),
    {"pedit", VariantIndex<PeditAction, TcActionOptions>::value, encodePedit, decodePedit},
};

const ActionKind* actionKind(const TcActionOptions& v) {
  for (const ActionKind& k : kActionKinds)
    if (k.index == v.index()) return &k;
  return nullptr;  // none, or raw bytes of any kind
}

/// TCA_ACT_OPTIONS of one action.
void encodeOptions(core::MessageWriter& w, const TcAction& a, const Operation& operation) {
  if (std::holds_alternative<std::monostate>(a.options)) throw invalid(operation, "action " + a.kind + " has no options");
  auto at = w.beginNest(TCA_ACT_OPTIONS);
  if (const ActionKind* k = actionKind(a.options)) k->encode(w, a, operation);
  else w.putEncodedAttributes(std::get<RawActionOptions>(a.options).bytes);
  w.endNest(at);
}

void checkKind(const TcAction& a, const Operation& operation) {
  if (a.kind.empty() || a.kind.size() >= 16) throw invalid(operation, "an action needs a kind (gact, mirred, ...) of at most 15 bytes");
  bool raw = std::holds_alternative<RawActionOptions>(a.options) || std::holds_alternative<std::monostate>(a.options);
  // The options' kind by name, not by a copy of the options (a filter's -batch line encodes
  // its actions once each: issue 33's 100,000 lines).
  if (!raw && a.kind != actionKind(a.options)->name)
    throw invalid(operation, "action kind \"" + a.kind + "\" does not match its options");
}

}  // namespace

/// The kind a typed action's options name (nullptr: none, or raw bytes of any kind).
const char* actionKindOf(const TcActionOptions& options) {
  const ActionKind* k = actionKind(options);
  return k ? k->name : nullptr;
}

void encodeActions(core::MessageWriter& w, uint16_t type, const std::vector<TcAction>& actions, const Operation& operation,
                   bool forDelete) {
  if (actions.size() > TCA_ACT_MAX_PRIO) throw invalid(operation, "at most 32 actions in one list");
  auto tab = w.beginNest(type);
  uint16_t order = 1;
  for (const TcAction& a : actions) {
    checkKind(a, operation);
    auto one = w.beginNest(order++);
    w.putString(TCA_ACT_KIND, a.kind);
    if (forDelete || std::holds_alternative<std::monostate>(a.options)) {
      // A delete names the action by its index; so does a bare "action KIND index N", which binds to it.
      if (!a.index)
        throw invalid(operation, forDelete ? "deleting action " + a.kind + " needs its index" : "action " + a.kind + " needs options or an index to bind to");
      w.putU32(TCA_ACT_INDEX, *a.index);
    } else {
      encodeOptions(w, a, operation);
    }
    w.endNest(one);
  }
  w.endNest(tab);
}

namespace {

/// The kind's options; attributes it does not read go to out.unknownOptions.
TcActionOptions decodeKind(const std::string& kind, const nlattr* options, TcAction& out) {
  for (const ActionKind& k : kActionKinds)
    if (kind == k.name) return k.decode(options, out);
  auto b = core::readBytes(options);
  return RawActionOptions{{b.begin(), b.end()}};
}

TcAction decodeAction(const nlattr* nest) {
  TcAction a;
  a.order = core::attrType(nest);
  const nlattr* options = nullptr;
  forEachAttr(core::nestPayload(nest), [&](const nlattr* x) {
    switch (core::attrType(x)) {
      case TCA_ACT_KIND: a.kind = core::readString(x); break;
      case TCA_ACT_OPTIONS: options = x; break;
      case TCA_ACT_INDEX: a.index = readStruct<uint32_t>(x); break;
      case TCA_ACT_STATS: a.stats = decodeTcStats("", x, false); break;
      case TCA_ACT_COOKIE: a.cookie = core::copyBytes(x); break;
      case TCA_ACT_FLAGS: {
        auto f = readStruct<nla_bitfield32>(x);
        a.flagsValue = f.value;
        a.flagsSelector = f.selector;
        break;
      }
      case TCA_ACT_HW_STATS: a.hwStats = readStruct<nla_bitfield32>(x).value & 0xFF; break;
      case TCA_ACT_USED_HW_STATS: a.usedHwStats = readStruct<nla_bitfield32>(x).value & 0xFF; break;
      case TCA_ACT_IN_HW_COUNT: a.inHwCount = readStruct<uint32_t>(x); break;
      case TCA_ACT_PAD: break;
      default: a.unknown.append(core::attrType(x), core::readBytes(x));
    }
  });
  if (options) a.options = decodeKind(a.kind, options, a);
  return a;
}

}  // namespace

std::vector<TcAction> decodeActions(const nlattr* nest) {
  std::vector<TcAction> out;
  if (!nest) return out;
  forEachAttr(core::nestPayload(nest), [&](const nlattr* x) { out.push_back(decodeAction(x)); });
  return out;
}

std::vector<TcAction> decodeActionMessage(const nlmsghdr* m) {
  std::vector<TcAction> out;
  (void)headerOf<tcamsg>(m, "action");
  forEachAttr(attrsOf(m, sizeof(tcamsg)), [&](const nlattr* a) {
    if (core::attrType(a) == TCA_ACT_TAB) std::ranges::move(decodeActions(a), std::back_inserter(out));
  });
  return out;
}

}  // namespace fastlink::rtnl

namespace fastlink {

TcAction& TcAction::setOptions(TcActionOptions v) {
  if (const char* k = rtnl::actionKindOf(v)) kind = k;
  options = std::move(v);
  return *this;
}

}  // namespace fastlink
