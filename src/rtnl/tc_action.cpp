// tc actions: TcAction <-> TCA_ACT_* nests (kind, options, index, statistics), one encoder and
// one decoder per kind (gact, mirred, police, skbedit, vlan, tunnel_key, csum, mpls, pedit);
// other kinds are kept raw. The same nests serve a filter's action list and the standalone action table.
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

#include <array>
#include <variant>

#include "rtnl/tc_filter_codec.hpp"

namespace fastlink {

std::string tcact::name(int32_t control) {
  if (TC_ACT_EXT_CMP(control, TC_ACT_GOTO_CHAIN))
    return "goto chain " + std::to_string(static_cast<uint32_t>(control) & TC_ACT_EXT_VAL_MASK);
  if (TC_ACT_EXT_CMP(control, TC_ACT_JUMP))
    return "jump " + std::to_string(static_cast<uint32_t>(control) & TC_ACT_EXT_VAL_MASK);
  switch (control) {
    case kContinue: return "continue";
    case kPass: return "pass";
    case kDrop: return "drop";
    case kReclassify: return "reclassify";
    case kPipe: return "pipe";
    case kStolen: return "stolen";
    case kTrap: return "trap";
  }
  return std::to_string(control);
}

std::optional<int32_t> tcact::parse(std::string_view w) {
  if (w == "continue") return kContinue;
  if (w == "pass" || w == "ok") return kPass;
  if (w == "drop" || w == "shot") return kDrop;
  if (w == "reclassify") return kReclassify;
  if (w == "pipe") return kPipe;
  if (w == "stolen") return kStolen;
  if (w == "trap") return kTrap;
  return std::nullopt;
}

namespace {

/// The kind a typed action's options name (nullptr: none, or raw bytes of any kind).
const char* kindOf(const TcActionOptions& v) {
  struct Kind {
    const char* operator()(std::monostate) const { return nullptr; }
    const char* operator()(const GactAction&) const { return "gact"; }
    const char* operator()(const MirredAction&) const { return "mirred"; }
    const char* operator()(const PoliceAction&) const { return "police"; }
    const char* operator()(const SkbeditAction&) const { return "skbedit"; }
    const char* operator()(const VlanAction&) const { return "vlan"; }
    const char* operator()(const TunnelKeyAction&) const { return "tunnel_key"; }
    const char* operator()(const CsumAction&) const { return "csum"; }
    const char* operator()(const MplsAction&) const { return "mpls"; }
    const char* operator()(const PeditAction&) const { return "pedit"; }
    const char* operator()(const RawActionOptions&) const { return nullptr; }
  };
  return std::visit(Kind{}, v);
}

}  // namespace

TcAction& TcAction::setOptions(TcActionOptions v) {
  if (const char* k = kindOf(v)) kind = k;
  options = std::move(v);
  return *this;
}

}  // namespace fastlink

namespace fastlink::rtnl {
namespace {

/// The tc_gen every action's parameter struct starts with.
template <class Parms>
Parms parms(const TcAction& a, int32_t control) {
  Parms p{};
  p.index = a.index.value_or(0);
  p.action = control;
  return p;
}

void checkControl(const Operation& operation, int32_t control) {
  bool ext = TC_ACT_EXT_CMP(control, TC_ACT_GOTO_CHAIN) || TC_ACT_EXT_CMP(control, TC_ACT_JUMP);
  if (!ext && (control < TC_ACT_UNSPEC || control > TC_ACT_TRAP))
    throw invalid(operation, "action control " + std::to_string(control) + " is not a tc verdict");
}

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

void encodePolice(core::MessageWriter& w, const TcAction& a, const PoliceAction& o, const Operation& operation) {
  if (o.rate == 0) throw invalid(operation, "police needs a rate above 0");
  if (o.burst == 0) throw invalid(operation, "police needs a burst (burst BYTES)");
  if (o.peakrate && o.mtu == 0) throw invalid(operation, "police peakrate needs an mtu");
  checkControl(operation, o.exceed);
  tc_police p{};
  p.index = a.index.value_or(0);
  p.action = o.exceed;
  p.rate.rate = o.rate > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(o.rate);
  auto rtab = rateTable(p.rate, o.rate, o.mtu);
  p.burst = xmitTicks(o.rate, o.burst);
  p.mtu = o.mtu;
  std::array<uint32_t, 256> ptab{};
  if (o.peakrate) {
    p.peakrate.rate = *o.peakrate > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(*o.peakrate);
    ptab = rateTable(p.peakrate, *o.peakrate, o.mtu);
  }
  putStruct(w, TCA_POLICE_TBF, p);
  putStruct(w, TCA_POLICE_RATE, rtab);
  if (o.rate > UINT32_MAX) w.putU64(TCA_POLICE_RATE64, o.rate);
  if (o.peakrate) {
    putStruct(w, TCA_POLICE_PEAKRATE, ptab);
    if (*o.peakrate > UINT32_MAX) w.putU64(TCA_POLICE_PEAKRATE64, *o.peakrate);
  }
  if (o.conform) w.putU32(TCA_POLICE_RESULT, static_cast<uint32_t>(*o.conform));
}

void encodeTunnelKey(core::MessageWriter& w, const TcAction& a, const TunnelKeyAction& o, const Operation& operation) {
  auto p = parms<tc_tunnel_key>(a, o.control);
  p.t_action = o.unset ? TCA_TUNNEL_KEY_ACT_RELEASE : TCA_TUNNEL_KEY_ACT_SET;
  putStruct(w, TCA_TUNNEL_KEY_PARMS, p);
  if (o.unset) return;
  if (!o.src || !o.dst) throw invalid(operation, "tunnel_key set needs src_ip and dst_ip");
  if (o.src->family() != o.dst->family()) throw invalid(operation, "tunnel_key src_ip and dst_ip are of different families");
  bool v4 = o.src->isV4();
  w.putBytes(v4 ? TCA_TUNNEL_KEY_ENC_IPV4_SRC : TCA_TUNNEL_KEY_ENC_IPV6_SRC, o.src->bytes());
  w.putBytes(v4 ? TCA_TUNNEL_KEY_ENC_IPV4_DST : TCA_TUNNEL_KEY_ENC_IPV6_DST, o.dst->bytes());
  if (o.keyId) {
    uint32_t id = htonl(*o.keyId);
    putStruct(w, TCA_TUNNEL_KEY_ENC_KEY_ID, id);
  }
  if (o.dstPort) w.putBe16(TCA_TUNNEL_KEY_ENC_DST_PORT, *o.dstPort);
  if (o.noCsum) w.putU8(TCA_TUNNEL_KEY_NO_CSUM, 1);
  if (o.tos) w.putU8(TCA_TUNNEL_KEY_ENC_TOS, *o.tos);
  if (o.ttl) w.putU8(TCA_TUNNEL_KEY_ENC_TTL, *o.ttl);
}

void encodeMpls(core::MessageWriter& w, const TcAction& a, const MplsAction& o, const Operation& operation) {
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
  auto p = parms<tc_mpls>(a, o.control);
  p.m_action = o.op;
  putStruct(w, TCA_MPLS_PARMS, p);
  // tc's order: label, protocol, tc, ttl, bos.
  if (o.label) w.putU32(TCA_MPLS_LABEL, *o.label);
  if (o.protocol) w.putBe16(TCA_MPLS_PROTO, *o.protocol);
  if (o.tc) w.putU8(TCA_MPLS_TC, *o.tc);
  if (o.ttl) w.putU8(TCA_MPLS_TTL, *o.ttl);
  if (o.bos) w.putU8(TCA_MPLS_BOS, *o.bos);
}

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

void encodePedit(core::MessageWriter& w, const TcAction& a, const PeditAction& o, const Operation& operation) {
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

/// TCA_ACT_OPTIONS of one action.
void encodeOptions(core::MessageWriter& w, const TcAction& a, const Operation& operation) {
  struct Encode {
    core::MessageWriter& w;
    const TcAction& a;
    const Operation& operation;
    void operator()(std::monostate) const { throw invalid(operation, "action " + a.kind + " has no options"); }
    void operator()(const GactAction& o) const {
      checkControl(operation, o.control);
      putStruct(w, TCA_GACT_PARMS, parms<tc_gact>(a, o.control));
    }
    void operator()(const MirredAction& o) const {
      if (o.mode < MirredAction::EgressRedirect || o.mode > MirredAction::IngressMirror)
        throw invalid(operation, "mirred mode " + std::to_string(o.mode) + " is not one of egress/ingress redirect/mirror");
      bool redirect = o.mode == MirredAction::EgressRedirect || o.mode == MirredAction::IngressRedirect;
      int32_t control = o.control.value_or(redirect ? TC_ACT_STOLEN : TC_ACT_PIPE);
      checkControl(operation, control);
      auto p = parms<tc_mirred>(a, control);
      p.eaction = o.mode;
      p.ifindex = requireIndex(o.dev, "mirred dev", true);
      putStruct(w, TCA_MIRRED_PARMS, p);
    }
    void operator()(const PoliceAction& o) const { encodePolice(w, a, o, operation); }
    void operator()(const SkbeditAction& o) const {
      checkControl(operation, o.control);
      if (o.mask && !o.mark) throw invalid(operation, "skbedit mask needs a mark");
      putStruct(w, TCA_SKBEDIT_PARMS, parms<tc_skbedit>(a, o.control));
      if (o.priority) w.putU32(TCA_SKBEDIT_PRIORITY, *o.priority);
      if (o.queueMapping) w.putU16(TCA_SKBEDIT_QUEUE_MAPPING, *o.queueMapping);
      if (o.mark) w.putU32(TCA_SKBEDIT_MARK, *o.mark);
      if (o.ptype) w.putU16(TCA_SKBEDIT_PTYPE, *o.ptype);
      if (o.mask) w.putU32(TCA_SKBEDIT_MASK, *o.mask);
    }
    void operator()(const VlanAction& o) const {
      checkControl(operation, o.control);
      if (o.op < VlanAction::Pop || o.op > VlanAction::PushEth)
        throw invalid(operation, "vlan op must be pop, push, modify, pop_eth or push_eth");
      const bool tagged = o.op == VlanAction::Push || o.op == VlanAction::Modify;
      if (tagged && (o.id == 0 || o.id >= 4095)) throw invalid(operation, "vlan id must be 1-4094");
      if (o.priority && *o.priority > 7) throw invalid(operation, "vlan priority must be 0-7");
      if (o.op == VlanAction::PushEth && (!o.dstMac || !o.srcMac || o.dstMac->size() != 6 || o.srcMac->size() != 6))
        throw invalid(operation, "vlan push_eth needs a 6-byte dst_mac and src_mac");
      auto p = parms<tc_vlan>(a, o.control);
      p.v_action = o.op;
      putStruct(w, TCA_VLAN_PARMS, p);
      if (o.op == VlanAction::PushEth) {
        w.putBytes(TCA_VLAN_PUSH_ETH_DST, o.dstMac->bytes());
        w.putBytes(TCA_VLAN_PUSH_ETH_SRC, o.srcMac->bytes());
      }
      if (!tagged) return;
      w.putU16(TCA_VLAN_PUSH_VLAN_ID, o.id);
      w.putBe16(TCA_VLAN_PUSH_VLAN_PROTOCOL, o.protocol);
      if (o.priority) w.putU8(TCA_VLAN_PUSH_VLAN_PRIORITY, *o.priority);
    }
    void operator()(const TunnelKeyAction& o) const {
      checkControl(operation, o.control);
      encodeTunnelKey(w, a, o, operation);
    }
    void operator()(const CsumAction& o) const {
      checkControl(operation, o.control);
      if (o.updateFlags == 0) throw invalid(operation, "csum needs at least one header (ip4h, tcp, udp, ...)");
      auto p = parms<tc_csum>(a, o.control);
      p.update_flags = o.updateFlags;
      putStruct(w, TCA_CSUM_PARMS, p);
    }
    void operator()(const MplsAction& o) const { encodeMpls(w, a, o, operation); }
    void operator()(const PeditAction& o) const { encodePedit(w, a, o, operation); }
    void operator()(const RawActionOptions& o) const { w.putEncodedAttributes(o.bytes); }
  };
  auto at = w.beginNest(TCA_ACT_OPTIONS);
  std::visit(Encode{w, a, operation}, a.options);
  w.endNest(at);
}

void checkKind(const TcAction& a, const Operation& operation) {
  if (a.kind.empty() || a.kind.size() >= 16) throw invalid(operation, "an action needs a kind (gact, mirred, ...) of at most 15 bytes");
  bool raw = std::holds_alternative<RawActionOptions>(a.options) || std::holds_alternative<std::monostate>(a.options);
  // The options' kind by name, not by a copy of the options (a filter's -batch line encodes
  // its actions once each: issue 33's 100,000 lines).
  if (!raw && a.kind != kindOf(a.options))
    throw invalid(operation, "action kind \"" + a.kind + "\" does not match its options");
}

}  // namespace

void encodeActions(core::MessageWriter& w, uint16_t type, const std::vector<TcAction>& actions, const Operation& operation,
                   bool forDelete) {
  if (actions.size() > TCA_ACT_MAX_PRIO) throw invalid(operation, "at most 32 actions in one list");
  auto tab = w.beginNest(type);
  uint16_t order = 1;
  for (const TcAction& a : actions) {
    checkKind(a, operation);
    auto one = w.beginNest(order++);
    w.putString(TCA_ACT_KIND, a.kind);
    if (forDelete) {
      if (!a.index) throw invalid(operation, "deleting action " + a.kind + " needs its index");
      w.putU32(TCA_ACT_INDEX, *a.index);
    } else if (std::holds_alternative<std::monostate>(a.options)) {
      // A bare "action KIND index N" binds to an existing action.
      if (!a.index) throw invalid(operation, "action " + a.kind + " needs options or an index to bind to");
      w.putU32(TCA_ACT_INDEX, *a.index);
    } else {
      encodeOptions(w, a, operation);
    }
    w.endNest(one);
  }
  w.endNest(tab);
}

namespace {

template <class Each>
void eachAttr(const nlattr* nest, Each&& each) {
  forEachAttr(core::readBytes(nest), each);
}

uint32_t u32Of(const nlattr* a) { return readStruct<uint32_t>(a); }
uint16_t u16Of(const nlattr* a) { return readStruct<uint16_t>(a); }
uint8_t u8Of(const nlattr* a) { return readStruct<uint8_t>(a); }

/// Reads the kind's tc_gen (index, control, refcnt, bindcnt) into the action.
template <class Parms>
Parms readParms(const nlattr* a, TcAction& out, int32_t& control) {
  auto p = readStruct<Parms>(a);
  out.index = p.index;
  control = p.action;
  out.refcnt = p.refcnt;
  out.bindcnt = p.bindcnt;
  return p;
}

void readTimes(const nlattr* a, TcAction& out) {
  auto t = readStruct<tcf_t>(a);
  out.installed = t.install, out.lastUsed = t.lastuse, out.firstUsed = t.firstuse, out.expires = t.expires;
  out.hasTimes = true;
}

/// pedit's selector (TCA_PEDIT_PARMS, or _PARMS_EX with one TCA_PEDIT_KEY_EX per key in
/// TCA_PEDIT_KEYS_EX). nkeys counts the keys; a selector shorter than its keys keeps those present.
TcActionOptions decodePedit(const nlattr* options, TcAction& out) {
  PeditAction p;
  const nlattr* keysEx = nullptr;
  std::span<const uint8_t> selector;
  eachAttr(options, [&](const nlattr* x) {
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
    eachAttr(keysEx, [&](const nlattr* x) {
      if (core::attrType(x) != TCA_PEDIT_KEY_EX || i >= p.keys.size()) return;
      PeditKey& k = p.keys[i++];
      eachAttr(x, [&](const nlattr* y) {
        if (core::attrType(y) == TCA_PEDIT_KEY_EX_HTYPE) k.header = static_cast<PeditKey::HeaderType>(u16Of(y));
        else if (core::attrType(y) == TCA_PEDIT_KEY_EX_CMD) k.command = static_cast<PeditKey::Command>(u16Of(y));
      });
    });
  }
  return p;
}

/// Decodes the kind's options; attributes it does not read go to out.unknownOptions. The
/// kind's parameter attribute is type 2 and its tcf_t type 1 for every kind here (police: 1/-).
TcActionOptions decodeKind(const std::string& kind, const nlattr* options, TcAction& out) {
  auto keep = [&](const nlattr* x) { out.unknownOptions.append(core::attrType(x), core::readBytes(x)); };
  if (kind == "gact") {
    GactAction g;
    eachAttr(options, [&](const nlattr* x) {
      switch (core::attrType(x)) {
        case TCA_GACT_PARMS: readParms<tc_gact>(x, out, g.control); break;
        case TCA_GACT_TM: readTimes(x, out); break;
        case TCA_GACT_PAD: break;
        default: keep(x);
      }
    });
    return g;
  }
  if (kind == "mirred") {
    MirredAction m;
    eachAttr(options, [&](const nlattr* x) {
      switch (core::attrType(x)) {
        case TCA_MIRRED_PARMS: {
          int32_t control = 0;
          auto p = readParms<tc_mirred>(x, out, control);
          m.control = control;
          m.mode = static_cast<MirredAction::Mode>(p.eaction);
          m.dev = Ifref(p.ifindex);
          break;
        }
        case TCA_MIRRED_TM: readTimes(x, out); break;
        case TCA_MIRRED_PAD: break;
        default: keep(x);
      }
    });
    return m;
  }
  if (kind == "police") {
    PoliceAction p;
    std::optional<uint64_t> rate64, peak64;
    tc_police tbf{};
    eachAttr(options, [&](const nlattr* x) {
      switch (core::attrType(x)) {
        case TCA_POLICE_TBF:
          tbf = readStruct<tc_police>(x);
          out.index = tbf.index, out.refcnt = tbf.refcnt, out.bindcnt = tbf.bindcnt;
          break;
        case TCA_POLICE_RATE64: rate64 = readStruct<uint64_t>(x); break;
        case TCA_POLICE_PEAKRATE64: peak64 = readStruct<uint64_t>(x); break;
        case TCA_POLICE_RESULT: p.conform = static_cast<int32_t>(u32Of(x)); break;
        case TCA_POLICE_TM: readTimes(x, out); break;
        case TCA_POLICE_RATE:
        case TCA_POLICE_PEAKRATE:
        case TCA_POLICE_PAD: break;
        default: keep(x);
      }
    });
    p.rate = rate64.value_or(tbf.rate.rate);
    p.burst = xmitSize(p.rate, tbf.burst);
    p.mtu = tbf.mtu;
    uint64_t peak = peak64.value_or(tbf.peakrate.rate);
    if (peak) p.peakrate = peak;
    p.exceed = tbf.action;
    return p;
  }
  if (kind == "skbedit") {
    SkbeditAction s;
    eachAttr(options, [&](const nlattr* x) {
      switch (core::attrType(x)) {
        case TCA_SKBEDIT_PARMS: readParms<tc_skbedit>(x, out, s.control); break;
        case TCA_SKBEDIT_TM: readTimes(x, out); break;
        case TCA_SKBEDIT_PRIORITY: s.priority = u32Of(x); break;
        case TCA_SKBEDIT_QUEUE_MAPPING: s.queueMapping = u16Of(x); break;
        case TCA_SKBEDIT_MARK: s.mark = u32Of(x); break;
        case TCA_SKBEDIT_PTYPE: s.ptype = u16Of(x); break;
        case TCA_SKBEDIT_MASK: s.mask = u32Of(x); break;
        case TCA_SKBEDIT_PAD: break;
        default: keep(x);
      }
    });
    return s;
  }
  if (kind == "vlan") {
    VlanAction v;
    eachAttr(options, [&](const nlattr* x) {
      switch (core::attrType(x)) {
        case TCA_VLAN_PARMS: {
          auto p = readParms<tc_vlan>(x, out, v.control);
          v.op = static_cast<VlanAction::Op>(p.v_action);
          break;
        }
        case TCA_VLAN_TM: readTimes(x, out); break;
        case TCA_VLAN_PUSH_VLAN_ID: v.id = u16Of(x); break;
        case TCA_VLAN_PUSH_VLAN_PROTOCOL: v.protocol = ntohs(u16Of(x)); break;
        case TCA_VLAN_PUSH_VLAN_PRIORITY: v.priority = u8Of(x); break;
        case TCA_VLAN_PUSH_ETH_DST:
          if (core::readBytes(x).size() == 6) v.dstMac = MacAddress(core::readBytes(x));
          break;
        case TCA_VLAN_PUSH_ETH_SRC:
          if (core::readBytes(x).size() == 6) v.srcMac = MacAddress(core::readBytes(x));
          break;
        case TCA_VLAN_PAD: break;
        default: keep(x);
      }
    });
    return v;
  }
  if (kind == "tunnel_key") {
    TunnelKeyAction t;
    auto address = [](const nlattr* x, std::size_t width) {
      auto b = core::readBytes(x);
      std::array<uint8_t, 16> bytes{};
      std::memcpy(bytes.data(), b.data(), std::min(b.size(), width));
      return IpAddress::fromBytes(std::span<const uint8_t>(bytes.data(), width));
    };
    eachAttr(options, [&](const nlattr* x) {
      switch (core::attrType(x)) {
        case TCA_TUNNEL_KEY_PARMS: {
          auto p = readParms<tc_tunnel_key>(x, out, t.control);
          t.unset = p.t_action == TCA_TUNNEL_KEY_ACT_RELEASE;
          break;
        }
        case TCA_TUNNEL_KEY_TM: readTimes(x, out); break;
        case TCA_TUNNEL_KEY_ENC_IPV4_SRC: t.src = address(x, 4); break;
        case TCA_TUNNEL_KEY_ENC_IPV4_DST: t.dst = address(x, 4); break;
        case TCA_TUNNEL_KEY_ENC_IPV6_SRC: t.src = address(x, 16); break;
        case TCA_TUNNEL_KEY_ENC_IPV6_DST: t.dst = address(x, 16); break;
        case TCA_TUNNEL_KEY_ENC_KEY_ID: t.keyId = ntohl(u32Of(x)); break;
        case TCA_TUNNEL_KEY_ENC_DST_PORT: t.dstPort = ntohs(u16Of(x)); break;
        case TCA_TUNNEL_KEY_NO_CSUM: t.noCsum = u8Of(x) != 0; break;
        case TCA_TUNNEL_KEY_ENC_TOS: t.tos = u8Of(x); break;
        case TCA_TUNNEL_KEY_ENC_TTL: t.ttl = u8Of(x); break;
        case TCA_TUNNEL_KEY_PAD: break;
        default: keep(x);
      }
    });
    return t;
  }
  if (kind == "csum") {
    CsumAction c;
    eachAttr(options, [&](const nlattr* x) {
      switch (core::attrType(x)) {
        case TCA_CSUM_PARMS: c.updateFlags = readParms<tc_csum>(x, out, c.control).update_flags; break;
        case TCA_CSUM_TM: readTimes(x, out); break;
        case TCA_CSUM_PAD: break;
        default: keep(x);
      }
    });
    return c;
  }
  if (kind == "mpls") {
    MplsAction m;
    eachAttr(options, [&](const nlattr* x) {
      switch (core::attrType(x)) {
        case TCA_MPLS_PARMS: m.op = static_cast<MplsAction::Op>(readParms<tc_mpls>(x, out, m.control).m_action); break;
        case TCA_MPLS_TM: readTimes(x, out); break;
        case TCA_MPLS_PROTO: m.protocol = ntohs(u16Of(x)); break;
        case TCA_MPLS_LABEL: m.label = u32Of(x); break;
        case TCA_MPLS_TC: m.tc = u8Of(x); break;
        case TCA_MPLS_TTL: m.ttl = u8Of(x); break;
        case TCA_MPLS_BOS: m.bos = u8Of(x); break;
        case TCA_MPLS_PAD: break;
        default: keep(x);
      }
    });
    return m;
  }
  if (kind == "pedit") return decodePedit(options, out);
  auto b = core::readBytes(options);
  return RawActionOptions{{b.begin(), b.end()}};
}

TcAction decodeAction(const nlattr* nest) {
  TcAction a;
  a.order = core::attrType(nest);
  const nlattr* options = nullptr;
  eachAttr(nest, [&](const nlattr* x) {
    switch (core::attrType(x)) {
      case TCA_ACT_KIND: a.kind = core::readString(x); break;
      case TCA_ACT_OPTIONS: options = x; break;
      case TCA_ACT_INDEX: a.index = u32Of(x); break;
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
      case TCA_ACT_IN_HW_COUNT: a.inHwCount = u32Of(x); break;
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
  eachAttr(nest, [&](const nlattr* x) { out.push_back(decodeAction(x)); });
  return out;
}

std::vector<TcAction> decodeActionMessage(const nlmsghdr* m) {
  std::vector<TcAction> out;
  (void)headerOf<tcamsg>(m, "action");
  forEachAttr(attrsOf(m, sizeof(tcamsg)), [&](const nlattr* a) {
    if (core::attrType(a) == TCA_ACT_TAB) {
      auto more = decodeActions(a);
      for (auto& x : more) out.push_back(std::move(x));
    }
  });
  return out;
}

}  // namespace fastlink::rtnl
