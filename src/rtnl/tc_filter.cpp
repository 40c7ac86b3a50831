// tc filters: the codec (TcFilterInfo <-> RTM_*TFILTER, tcmsg + TCA_*), the classifiers of
// kFilterKinds (u32, matchall, flower, fw, basic and bpf as attribute tables, tc_fields.hpp's
// TcTable; other kinds raw), the request builders, and the
// kernel-backed TcFilterApi over the kit (and the standalone action table).
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <linux/rtnetlink.h>

#include <algorithm>
#include <bit>
#include <variant>

#include "fastlink/netlink.hpp"
#include "rtnl/kit.hpp"
#include "rtnl/tc_fields.hpp"
#include "rtnl/tc_filter_codec.hpp"

namespace fastlink::rtnl {
namespace {

std::string parentWord(const std::optional<TcHandle>& parent) {
  if (!parent) return "";
  if (parent->value == TcFilterInfo::kIngressParent) return " ingress";
  if (parent->value == TcFilterInfo::kEgressParent) return " egress";
  if (parent->value == TcHandle::kRoot) return " root";
  return " parent " + parent->toString();
}

/// What a request's description reads of its filter (describeFilter): the placement.
struct FilterHead {
  decltype(TcFilterInfo::dev) dev;
  decltype(TcFilterInfo::block) block;
  decltype(TcFilterInfo::parent) parent;
  decltype(TcFilterInfo::prio) prio;
  decltype(TcFilterInfo::chain) chain;
  std::string kind;
};

/// The placement of an encoded filter packed into 16 trivially copyable bytes: a Describer
/// holding it lives in std::function's own storage, so a request's description costs no
/// allocation and no copy of a string (a FilterHead there cost one a line of a 100,000 filter
/// -batch, issue 33). The device is an ifindex by then (encodeFilter refuses a name);
/// `kind` is 1 + its row in kFilterKinds (0: none), a kind outside them keeps a FilterHead.
struct PackedHead {
  uint32_t where = 0;  ///< the ifindex, or the block with `isBlock`
  uint32_t parent = 0;
  uint32_t chainIndex = 0;
  uint16_t prio = 0;
  uint8_t verb : 3 = 0;
  uint8_t isChain : 1 = 0;
  uint8_t isBlock : 1 = 0;
  uint8_t hasParent : 1 = 0;
  uint8_t hasPrio : 1 = 0;
  uint8_t hasChainIndex : 1 = 0;
  uint8_t kind = 0;
};
static_assert(sizeof(PackedHead) == 16 && std::is_trivially_copyable_v<PackedHead>);
static_assert(static_cast<int>(Verb::Change) < 8, "PackedHead::verb has 3 bits");

/// Of a TcFilterInfo, or of the FilterHead a request keeps for its description.
template <class Filter>
std::string describeFilter(Verb verb, const Filter& f, bool chain) {
  std::string s = std::string(chain ? "chain " : "filter ") + (verb == Verb::Set ? "change" : verbWord(verb));
  if (f.dev) s += " dev " + devWord(*f.dev);
  if (f.block) s += " block " + std::to_string(*f.block);
  s += parentWord(f.parent);
  if (f.prio) s += " pref " + std::to_string(*f.prio);
  if (f.chain) s += " chain " + std::to_string(*f.chain);
  if (!f.kind.empty()) s += " " + f.kind;
  return s;
}

/// The tcmsg of a filter, a chain or a listing of them: on a shared block, or on a device's
/// parent; the pref and the protocol in tcm_info.
tcmsg& putPlacement(core::MessageWriter& w, std::optional<uint32_t> block, uint32_t ifindex, const std::optional<TcHandle>& parent,
                    std::optional<uint16_t> prio, uint16_t protocol) {
  auto& t = w.putHeader<tcmsg>();
  t.tcm_family = AF_UNSPEC;
  if (block) {
    t.tcm_ifindex = TCM_IFINDEX_MAGIC_BLOCK;
    t.tcm_block_index = *block;
  } else {
    t.tcm_ifindex = static_cast<int>(ifindex);
    t.tcm_parent = parent ? parent->value : 0;
  }
  t.tcm_info = TC_H_MAKE(uint32_t{prio.value_or(0)} << 16, htons(protocol));
  return t;
}

void checkFlags(const Operation& operation, uint32_t flags) {
  if ((flags & (TCA_CLS_FLAGS_SKIP_HW | TCA_CLS_FLAGS_SKIP_SW)) == (TCA_CLS_FLAGS_SKIP_HW | TCA_CLS_FLAGS_SKIP_SW))
    throw invalid(operation, "skip_hw and skip_sw together leave the filter nowhere to run");
}

uint32_t u32Of(const nlattr* a) { return readStruct<uint32_t>(a); }

// --- rows the classifiers share

/// A classid (TcHandle) as a u32.
template <uint16_t kType, auto kMember>
constexpr TcField<decltype(core::fields::ownerOf(kMember))> classidField() {
  using Info = decltype(core::fields::ownerOf(kMember));
  auto put = [](core::MessageWriter& w, const AttrField<Info>&, const Info& o) {
    if (const auto& classid = o.*kMember) w.putU32(kType, classid->value);
  };
  auto get = [](const nlattr* a, Info& o, const FieldContext&) { return (o.*kMember = TcHandle(u32Of(a)), true); };
  return {{kType, put, get}};
}

/// A u32 member that is sent only when nonzero (TCA_CLS_FLAGS_* words).
template <uint16_t kType, auto kMember>
constexpr TcField<decltype(core::fields::ownerOf(kMember))> flagsField() {
  using Info = decltype(core::fields::ownerOf(kMember));
  auto put = [](core::MessageWriter& w, const AttrField<Info>&, const Info& o) { if (o.*kMember) w.putU32(kType, o.*kMember); };
  auto get = [](const nlattr* a, Info& o, const FieldContext&) { return (o.*kMember = u32Of(a), true); };
  return {{kType, put, get}};
}

/// The action list: its errors name the request, so its put takes the Operation.
template <uint16_t kType, auto kMember>
constexpr TcField<decltype(core::fields::ownerOf(kMember))> actionsField() {
  using Info = decltype(core::fields::ownerOf(kMember));
  auto get = [](const nlattr* a, Info& o, const FieldContext&) { return (o.*kMember = decodeActions(a), true); };
  auto put = [](core::MessageWriter& w, const Info& o, const Operation& op) { if (!(o.*kMember).empty()) encodeActions(w, kType, o.*kMember, op); };
  return {{kType, nullptr, get}, put};
}

/// An attribute read and dropped (padding, counters fastlink does not report).
template <class Info>
constexpr TcField<Info> skipped(uint16_t type) {
  return {{type, nullptr, [](const nlattr*, Info&, const FieldContext&) { return true; }}};
}

// --- u32

void checkU32(const U32FilterOptions& o, const Operation& operation) {
  if (o.keys.size() > 128) throw invalid(operation, "u32 takes at most 128 match keys");
  if (o.divisor && (*o.divisor == 0 || *o.divisor > 256 || ((*o.divisor - 1) & *o.divisor)))
    throw invalid(operation, "u32 divisor must be a power of 2 up to 256");
  checkFlags(operation, o.flags);
}

/// tc_u32_sel and its keys: sent when there is something to match or to do.
void putU32Selector(core::MessageWriter& w, const U32FilterOptions& o, const Operation& operation) {
  if (o.keys.empty() && !o.classid && o.actions.empty()) return;
  std::vector<uint8_t> sel(sizeof(tc_u32_sel) + o.keys.size() * sizeof(tc_u32_key));
  tc_u32_sel head{};
  head.nkeys = static_cast<unsigned char>(o.keys.size());
  if (o.classid || !o.actions.empty() || o.terminal) head.flags |= TC_U32_TERMINAL;
  std::memcpy(sel.data(), &head, sizeof head);
  for (std::size_t i = 0; i < o.keys.size(); i++) {
    const U32Key& k = o.keys[i];
    if (k.value & ~k.mask) throw invalid(operation, "u32 match value has bits outside its mask");
    if (k.off % 4) throw invalid(operation, "u32 match offset " + std::to_string(k.off) + " is not a multiple of 4");
    tc_u32_key key{};
    key.mask = htonl(k.mask);
    key.val = htonl(k.value);
    key.off = k.off;
    key.offmask = k.offmask;
    std::memcpy(sel.data() + sizeof head + i * sizeof key, &key, sizeof key);
  }
  w.putBytes(TCA_U32_SEL, sel);
}

/// The selector's flags and as many keys as its payload holds.
bool getU32Selector(const nlattr* a, U32FilterOptions& o, const FieldContext&) {
  auto b = core::readBytes(a);
  if (b.size() < sizeof(tc_u32_sel)) return true;
  tc_u32_sel head;
  std::memcpy(&head, b.data(), sizeof head);
  o.selFlags = head.flags;
  o.terminal = head.flags & TC_U32_TERMINAL;
  std::size_t n = std::min<std::size_t>(head.nkeys, (b.size() - sizeof head) / sizeof(tc_u32_key));
  for (std::size_t i = 0; i < n; i++) {
    tc_u32_key k;
    std::memcpy(&k, b.data() + sizeof head + i * sizeof k, sizeof k);
    o.keys.push_back({ntohl(k.val), ntohl(k.mask), k.off, k.offmask});
  }
  return true;
}

/// tc_u32_pcnt: rcnt, rhit, then one count per key (a CONFIG_CLS_U32_PERF kernel's dump).
bool getU32Counters(const nlattr* a, U32FilterOptions& o, const FieldContext&) {
  auto b = core::readBytes(a);
  if (b.size() < 2 * sizeof(uint64_t)) return true;
  std::vector<uint64_t> counts(b.size() / sizeof(uint64_t));
  std::memcpy(counts.data(), b.data(), counts.size() * sizeof(uint64_t));
  o.counters = U32FilterOptions::Counters{counts[0], counts[1], {counts.begin() + 2, counts.end()}};
  return true;
}

constexpr TcField<U32FilterOptions> kU32Rows[] = {
    classidField<TCA_U32_CLASSID, &U32FilterOptions::classid>(),
    {looseField<TCA_U32_DIVISOR, &U32FilterOptions::divisor>()},
    {looseField<TCA_U32_LINK, &U32FilterOptions::link>()},
    {looseField<TCA_U32_HASH, &U32FilterOptions::hashTable>()},
    {{TCA_U32_SEL, nullptr, getU32Selector}, putU32Selector},
    {core::field<TCA_U32_INDEV, &U32FilterOptions::indev>()},
    actionsField<TCA_U32_ACT, &U32FilterOptions::actions>(),
    flagsField<TCA_U32_FLAGS, &U32FilterOptions::flags>(),
    {{TCA_U32_PCNT, nullptr, getU32Counters}},
    skipped<U32FilterOptions>(TCA_U32_PAD),
};

// --- matchall, fw, basic

void checkMatchall(const MatchallOptions& o, const Operation& operation) { checkFlags(operation, o.flags); }

constexpr TcField<MatchallOptions> kMatchallRows[] = {
    classidField<TCA_MATCHALL_CLASSID, &MatchallOptions::classid>(),
    actionsField<TCA_MATCHALL_ACT, &MatchallOptions::actions>(),
    flagsField<TCA_MATCHALL_FLAGS, &MatchallOptions::flags>(),
    {reportedOnly(looseField<TCA_MATCHALL_PCNT, &MatchallOptions::hits>())},  // tc_matchall_pcnt: rhit
    skipped<MatchallOptions>(TCA_MATCHALL_PAD),
};

constexpr TcField<FwOptions> kFwRows[] = {
    classidField<TCA_FW_CLASSID, &FwOptions::classid>(),
    {core::field<TCA_FW_INDEV, &FwOptions::indev>()},
    actionsField<TCA_FW_ACT, &FwOptions::actions>(),
    {looseField<TCA_FW_MASK, &FwOptions::mask>()},
};

constexpr TcField<BasicOptions> kBasicRows[] = {
    classidField<TCA_BASIC_CLASSID, &BasicOptions::classid>(),
    actionsField<TCA_BASIC_ACT, &BasicOptions::actions>(),
    skipped<BasicOptions>(TCA_BASIC_PCNT),
    skipped<BasicOptions>(TCA_BASIC_PAD),
};

// --- bpf: a loaded program by fd (reported back by id and tag, never by fd)

void checkBpf(const BpfFilterOptions& o, const Operation& operation) {
  checkFlags(operation, o.flags);
  if (o.fd < 0) throw invalid(operation, "bpf needs a loaded program (fd)");
}

using BpfRow = AttrField<BpfFilterOptions>;
constexpr TcField<BpfFilterOptions> kBpfRows[] = {
    {{TCA_BPF_FD, [](core::MessageWriter& w, const BpfRow&, const BpfFilterOptions& o) { w.putU32(TCA_BPF_FD, static_cast<uint32_t>(o.fd)); }}},
    {{TCA_BPF_NAME, [](core::MessageWriter& w, const BpfRow&, const BpfFilterOptions& o) { w.putString(TCA_BPF_NAME, o.name.empty() ? "fastlink" : o.name); },
      [](const nlattr* a, BpfFilterOptions& o, const FieldContext&) { return (o.name = core::readString(a), true); }}},
    classidField<TCA_BPF_CLASSID, &BpfFilterOptions::classid>(),
    {{TCA_BPF_FLAGS, [](core::MessageWriter& w, const BpfRow&, const BpfFilterOptions& o) { if (o.directAction) w.putU32(TCA_BPF_FLAGS, TCA_BPF_FLAG_ACT_DIRECT); },
      [](const nlattr* a, BpfFilterOptions& o, const FieldContext&) { return (o.directAction = u32Of(a) & TCA_BPF_FLAG_ACT_DIRECT, true); }}},
    flagsField<TCA_BPF_FLAGS_GEN, &BpfFilterOptions::flags>(),
    actionsField<TCA_BPF_ACT, &BpfFilterOptions::actions>(),
    {reportedOnly(looseField<TCA_BPF_ID, &BpfFilterOptions::id>())},
    {{TCA_BPF_TAG, nullptr, [](const nlattr* a, BpfFilterOptions& o, const FieldContext&) { return (o.tag = core::copyBytes(a), true); }}},
};

// --- the registry

/// A row of the classifiers fastlink types: `name` is the kind's and its options' (the variant
/// alternative `index`). decode keeps what it does not read in the filter's unknown attributes.
struct FilterKind {
  const char* name;
  std::size_t index;
  void (*encode)(core::MessageWriter&, const TcFilterInfo&, const Operation&);
  TcFilterOptions (*decode)(const nlattr*, RawAttributes&);
};

template <const auto& kRows>
constexpr auto kTableOf = TcTable(kRows);
template <class O>
void noCheck(const O&, const Operation&) {}

/// The row of a classifier whose options are the table `kRows`, `kCheck` refusing what the
/// kernel would take badly before anything is written.
template <class O, const auto& kRows, void (*kCheck)(const O&, const Operation&) = noCheck<O>>
constexpr FilterKind filterRow(const char* name) {
  auto encode = [](core::MessageWriter& w, const TcFilterInfo& f, const Operation& operation) {
    const O& o = *std::get_if<O>(&f.options);
    kCheck(o, operation);
    encodeRows<kRows>(w, o, operation);
  };
  auto decode = [](const nlattr* options, RawAttributes& unknown) -> TcFilterOptions {
    O o;
    // flower keeps the keys it does not type in its own unknown attributes, not the filter's.
    if constexpr (requires { o.unknown; }) kTableOf<kRows>.decode(options, o, o.unknown);
    else kTableOf<kRows>.decode(options, o, unknown);
    return o;
  };
  return {name, VariantIndex<O, TcFilterOptions>::value, encode, decode};
}

// --- flower: every key a row. Keys that depend on others (ports on ip_proto, the addresses'
// family on the protocol, masks beside their keys) are checked in one pass before anything is
// written, and decoded by rows that see the whole nest (TcField::getIn).

/// The flower attribute of a port for an IP protocol (tcp, udp, sctp), 0 for others.
constexpr uint16_t portAttr(uint8_t proto, bool dst) {
  switch (proto) {
    case IPPROTO_TCP: return dst ? TCA_FLOWER_KEY_TCP_DST : TCA_FLOWER_KEY_TCP_SRC;
    case IPPROTO_UDP: return dst ? TCA_FLOWER_KEY_UDP_DST : TCA_FLOWER_KEY_UDP_SRC;
    case IPPROTO_SCTP: return dst ? TCA_FLOWER_KEY_SCTP_DST : TCA_FLOWER_KEY_SCTP_SRC;
  }
  return 0;
}

/// flower's MPLS keys: only on an MPLS protocol, in one of the two forms (tc refuses mixing
/// them; the kernel would take the first entry from whichever it reads last), in field range.
void checkFlowerMpls(const FlowerOptions& o, uint16_t ethType, const Operation& operation) {
  const bool first = o.mplsLabel || o.mplsTc || o.mplsBos || o.mplsTtl;
  if (!first && o.mpls.empty()) return;
  if (ethType != ETH_P_MPLS_UC && ethType != ETH_P_MPLS_MC) throw invalid(operation, "flower mpls keys need protocol mpls_uc or mpls_mc");
  if (first && !o.mpls.empty()) throw invalid(operation, "flower takes mpls_label/mpls_tc/mpls_bos/mpls_ttl or mpls lse ..., not both");
  auto fields = [&](const std::optional<uint32_t>& label, const std::optional<uint8_t>& tc, const std::optional<uint8_t>& bos,
                    const std::string& what) {
    if (label && *label > 0xFFFFF) throw invalid(operation, "flower " + what + "label must be 0-1048575");
    if (tc && *tc > 7) throw invalid(operation, "flower " + what + "tc must be 0-7");
    if (bos && *bos > 1) throw invalid(operation, "flower " + what + "bos must be 0 or 1");
  };
  fields(o.mplsLabel, o.mplsTc, o.mplsBos, "mpls_");
  for (const FlowerMplsLse& e : o.mpls) {
    if (e.depth == 0) throw invalid(operation, "flower mpls lse depth must be 1-255");
    fields(e.label, e.tc, e.bos, "mpls lse ");
  }
}

/// The validation pass: every key against the protocol and the keys it depends on.
void checkFlower(const FlowerOptions& o, uint16_t ethType, const Operation& operation) {
  checkFlags(operation, o.flags);
  bool ip = ethType == ETH_P_IP || ethType == ETH_P_IPV6;
  if ((o.ipProto || o.dstIp || o.srcIp) && !ip) throw invalid(operation, "flower ip keys need protocol ip or ipv6");
  for (const auto* p : {&o.dstIp, &o.srcIp})
    if (*p && p->value().isV4() != (ethType == ETH_P_IP)) throw invalid(operation, "flower address family differs from the protocol");
  if ((o.dstPort || o.srcPort) && (!o.ipProto || !portAttr(*o.ipProto, true)))
    throw invalid(operation, "flower ports need ip_proto tcp, udp or sctp");
  if ((o.vlanId || o.vlanPrio) && ethType != ETH_P_8021Q && ethType != ETH_P_8021AD)
    throw invalid(operation, "flower vlan keys need protocol 802.1q or 802.1ad");
  if (o.vlanId && (*o.vlanId == 0 || *o.vlanId >= 4095)) throw invalid(operation, "flower vlan_id must be 1-4094");
  checkFlowerMpls(o, ethType, operation);
  for (const auto* m : {&o.dstMac, &o.srcMac})
    if (*m && (*m)->size() != 6) throw invalid(operation, "flower MAC addresses are 6 bytes");
}

/// The leading ones of each byte of a mask, summed (a contiguous mask's prefix length).
uint8_t prefixLength(std::span<const uint8_t> mask) {
  unsigned n = 0;
  for (uint8_t b : mask) n += std::countl_one(b);
  return static_cast<uint8_t>(n);
}

/// A MAC key and its mask: sent with a full mask; read typed only with a full (or no) mask, a
/// partial one left raw with its address.
template <uint16_t kType, uint16_t kMask, auto kMember>
constexpr TcField<FlowerOptions> macKey() {
  auto put = [](core::MessageWriter& w, const FlowerOptions& o, const Operation&) {
    if (!(o.*kMember)) return;
    w.putBytes(kType, (o.*kMember)->bytes());
    w.putBytes(kMask, std::array<uint8_t, 6>{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF});
  };
  auto get = [](const nlattr*, const core::AttrTable& t, FlowerOptions& o) {
    const nlattr* a = t.get(kType);
    const nlattr* m = t.get(kMask);
    if (!a || core::readBytes(a).size() != 6) return false;
    if (m && core::readBytes(m).size() == 6 && prefixLength(core::readBytes(m)) != 48) return false;
    o.*kMember = MacAddress(core::readBytes(a));
    return true;
  };
  return {{kType}, put, get, {kMask}};
}

/// An address key: IPv4 or IPv6 by the prefix's family, each with its mask (the prefix length
/// as leading ones); read from IPv4 when both are present.
template <uint16_t kV4, uint16_t kV4Mask, uint16_t kV6, uint16_t kV6Mask, auto kMember>
constexpr TcField<FlowerOptions> addressKey() {
  auto put = [](core::MessageWriter& w, const FlowerOptions& o, const Operation&) {
    const std::optional<Prefix>& p = o.*kMember;
    if (!p) return;
    std::array<uint8_t, 16> mask{}, net{};
    auto address = p->address().bytes();
    // A byte at a time (a bit at a time was 32 rounds per IPv4 key of a 100,000-line -batch),
    // the network with it (Prefix::masked, a Prefix built and checked, cost ~110 instructions).
    for (unsigned i = 0, left = p->length(); left && i < address.size(); ++i) {
      unsigned bits = std::min(left, 8u);
      mask[i] = static_cast<uint8_t>(0xFF00u >> bits);
      net[i] = address[i] & mask[i];
      left -= bits;
    }
    bool v4 = p->isV4();
    w.putBytes(v4 ? kV4 : kV6, std::span<const uint8_t>(net.data(), address.size()));
    w.putBytes(v4 ? kV4Mask : kV6Mask, std::span<const uint8_t>(mask.data(), address.size()));
  };
  auto get = [](const nlattr* attr, const core::AttrTable& t, FlowerOptions& o) {
    uint16_t type = core::attrType(attr);
    bool v4 = type == kV4;
    if (!v4 && (type != kV6 || t.has(kV4))) return true;  // a mask, or IPv6 beside IPv4: known, not read
    std::size_t width = v4 ? 4 : 16;
    std::array<uint8_t, 16> bytes{};
    auto b = core::readBytes(attr);
    std::memcpy(bytes.data(), b.data(), std::min(b.size(), width));
    uint8_t len = static_cast<uint8_t>(width * 8);
    if (const nlattr* m = t.get(v4 ? kV4Mask : kV6Mask)) {
      auto mb = core::readBytes(m);
      len = prefixLength(mb.first(std::min(mb.size(), width)));
    }
    o.*kMember = Prefix(IpAddress::fromBytes(std::span<const uint8_t>(bytes.data(), width)), len);
    return true;
  };
  return {{kV4}, put, get, {kV4Mask, kV6, kV6Mask}};
}

/// A port: the attribute of the filter's ip_proto (tcp, udp or sctp); another protocol's port
/// attributes stay raw.
template <bool kDst, auto kMember>
constexpr TcField<FlowerOptions> portKey() {
  auto put = [](core::MessageWriter& w, const FlowerOptions& o, const Operation&) {
    if (o.*kMember) w.putBe16(portAttr(*o.ipProto, kDst), *(o.*kMember));
  };
  auto get = [](const nlattr* attr, const core::AttrTable& t, FlowerOptions& o) {
    const nlattr* proto = t.get(TCA_FLOWER_KEY_IP_PROTO);
    if (!proto || portAttr(readStruct<uint8_t>(proto), kDst) != core::attrType(attr)) return false;
    o.*kMember = ntohs(readStruct<uint16_t>(attr));
    return true;
  };
  return {{portAttr(IPPROTO_TCP, kDst)}, put, get, {portAttr(IPPROTO_UDP, kDst), portAttr(IPPROTO_SCTP, kDst)}};
}

/// One label stack entry (`mpls lse depth D ...`): the depth always, the other fields when set.
using LseRow = AttrField<FlowerMplsLse>;
constexpr LseRow kLseRows[] = {
    {TCA_FLOWER_KEY_MPLS_OPT_LSE_DEPTH, [](core::MessageWriter& w, const LseRow&, const FlowerMplsLse& e) { w.putU8(TCA_FLOWER_KEY_MPLS_OPT_LSE_DEPTH, e.depth); },
     [](const nlattr* a, FlowerMplsLse& e, const FieldContext&) { return (e.depth = readStruct<uint8_t>(a), true); }},
    looseField<TCA_FLOWER_KEY_MPLS_OPT_LSE_LABEL, &FlowerMplsLse::label>(),
    looseField<TCA_FLOWER_KEY_MPLS_OPT_LSE_TC, &FlowerMplsLse::tc>(),
    looseField<TCA_FLOWER_KEY_MPLS_OPT_LSE_BOS, &FlowerMplsLse::bos>(),
    looseField<TCA_FLOWER_KEY_MPLS_OPT_LSE_TTL, &FlowerMplsLse::ttl>(),
};
constexpr FieldTable kLse(kLseRows);

/// The entries, one nest each in TCA_FLOWER_KEY_MPLS_OPTS.
using FlowerRow = AttrField<FlowerOptions>;
void putFlowerMpls(core::MessageWriter& w, const FlowerRow&, const FlowerOptions& o) {
  if (o.mpls.empty()) return;
  auto list = w.beginNest(TCA_FLOWER_KEY_MPLS_OPTS);
  for (const FlowerMplsLse& e : o.mpls) {
    auto lse = w.beginNest(TCA_FLOWER_KEY_MPLS_OPTS_LSE);
    kLse.encode(w, e);
    w.endNest(lse);
  }
  w.endNest(list);
}
/// An entry nest of another type than LSE is skipped, as tc skips it; one without a depth reads
/// as depth 0 (the kernel always sends one).
bool getFlowerMpls(const nlattr* list, FlowerOptions& o, const FieldContext& context) {
  o.mpls.clear();  // the last list of a repeated attribute, as for every other key
  forEachAttr(core::readBytes(list), [&](const nlattr* lse) {
    if (core::attrType(lse) != TCA_FLOWER_KEY_MPLS_OPTS_LSE) return;
    FlowerMplsLse& e = o.mpls.emplace_back();
    e.depth = 0;
    decodeFields(core::readBytes(lse), kLse, e, context);
  });
  return true;
}

/// tc's f_flower.c order: the keys, the raw ones fastlink does not type, the actions, then the
/// flags (always) and the protocol as the ethertype key (encodeFlower, from the filter).
constexpr TcField<FlowerOptions> kFlowerRows[] = {
    classidField<TCA_FLOWER_CLASSID, &FlowerOptions::classid>(),
    {core::field<TCA_FLOWER_INDEV, &FlowerOptions::indev>()},
    {looseField<TCA_FLOWER_KEY_VLAN_ID, &FlowerOptions::vlanId>()},
    {looseField<TCA_FLOWER_KEY_VLAN_PRIO, &FlowerOptions::vlanPrio>()},
    macKey<TCA_FLOWER_KEY_ETH_DST, TCA_FLOWER_KEY_ETH_DST_MASK, &FlowerOptions::dstMac>(),
    macKey<TCA_FLOWER_KEY_ETH_SRC, TCA_FLOWER_KEY_ETH_SRC_MASK, &FlowerOptions::srcMac>(),
    {looseField<TCA_FLOWER_KEY_IP_PROTO, &FlowerOptions::ipProto>()},
    addressKey<TCA_FLOWER_KEY_IPV4_DST, TCA_FLOWER_KEY_IPV4_DST_MASK, TCA_FLOWER_KEY_IPV6_DST, TCA_FLOWER_KEY_IPV6_DST_MASK,
               &FlowerOptions::dstIp>(),
    addressKey<TCA_FLOWER_KEY_IPV4_SRC, TCA_FLOWER_KEY_IPV4_SRC_MASK, TCA_FLOWER_KEY_IPV6_SRC, TCA_FLOWER_KEY_IPV6_SRC_MASK,
               &FlowerOptions::srcIp>(),
    portKey<true, &FlowerOptions::dstPort>(),
    portKey<false, &FlowerOptions::srcPort>(),
    // The first entry's keys as given (label, tc, bos, ttl), or the LSE list.
    {looseField<TCA_FLOWER_KEY_MPLS_LABEL, &FlowerOptions::mplsLabel>()},
    {looseField<TCA_FLOWER_KEY_MPLS_TC, &FlowerOptions::mplsTc>()},
    {looseField<TCA_FLOWER_KEY_MPLS_BOS, &FlowerOptions::mplsBos>()},
    {looseField<TCA_FLOWER_KEY_MPLS_TTL, &FlowerOptions::mplsTtl>()},
    {{TCA_FLOWER_KEY_MPLS_OPTS, putFlowerMpls, getFlowerMpls}},
    // Written where tc would have put them; an UNSPEC attribute is read and dropped.
    {{TCA_FLOWER_UNSPEC, [](core::MessageWriter& w, const FlowerRow&, const FlowerOptions& o) { if (!o.unknown.empty()) w.putEncodedAttributes(o.unknown.bytes()); },
      [](const nlattr*, FlowerOptions&, const FieldContext&) { return true; }}},
    actionsField<TCA_FLOWER_ACT, &FlowerOptions::actions>(),
    {{TCA_FLOWER_FLAGS, [](core::MessageWriter& w, const FlowerRow&, const FlowerOptions& o) { w.putU32(TCA_FLOWER_FLAGS, o.flags); },
      [](const nlattr* a, FlowerOptions& o, const FieldContext&) { return (o.flags = u32Of(a), true); }}},
    {reportedOnly(looseField<TCA_FLOWER_KEY_ETH_TYPE, &FlowerOptions::ethType, true>())},
    {reportedOnly(looseField<TCA_FLOWER_IN_HW_COUNT, &FlowerOptions::inHwCount>())},
};

void encodeFlower(core::MessageWriter& w, const TcFilterInfo& f, const Operation& operation) {
  const FlowerOptions& o = *std::get_if<FlowerOptions>(&f.options);
  uint16_t ethType = f.protocol.value_or(ETH_P_ALL);
  checkFlower(o, ethType, operation);
  encodeRows<kFlowerRows>(w, o, operation);
  if (ethType != ETH_P_ALL) w.putBe16(TCA_FLOWER_KEY_ETH_TYPE, ethType);
}

constexpr FilterKind kFilterKinds[] = {
    filterRow<U32FilterOptions, kU32Rows, checkU32>("u32"),
    filterRow<MatchallOptions, kMatchallRows, checkMatchall>("matchall"),
    // flower's check reads the filter's protocol, which it also sends last (encodeFlower).
    {"flower", VariantIndex<FlowerOptions, TcFilterOptions>::value, encodeFlower, filterRow<FlowerOptions, kFlowerRows>("flower").decode},
    filterRow<FwOptions, kFwRows>("fw"),
    filterRow<BasicOptions, kBasicRows>("basic"),
    filterRow<BpfFilterOptions, kBpfRows, checkBpf>("bpf"),
};

/// The row of typed options (nullptr: none, or raw bytes of any kind).
const FilterKind* filterKind(const TcFilterOptions& options) {
  for (const FilterKind& k : kFilterKinds)
    if (k.index == options.index()) return &k;
  return nullptr;
}

void encodeOptions(core::MessageWriter& w, const TcFilterInfo& f, const Operation& operation) {
  if (std::holds_alternative<std::monostate>(f.options)) return;
  auto at = w.beginNest(TCA_OPTIONS);
  if (const FilterKind* k = filterKind(f.options)) k->encode(w, f, operation);
  else w.putEncodedAttributes(std::get<RawFilterOptions>(f.options).bytes);
  w.endNest(at);
}

TcFilterOptions decodeOptions(const std::string& kind, const nlattr* options, RawAttributes& unknown) {
  for (const FilterKind& k : kFilterKinds)
    if (kind == k.name) return k.decode(options, unknown);
  auto b = core::readBytes(options);
  return RawFilterOptions{{b.begin(), b.end()}};
}

/// The description of a request encodeFilter built, from its PackedHead.
std::string describePacked(const PackedHead& h) {
  FilterHead f;
  if (h.isBlock) f.block = h.where;
  else f.dev = Ifref(h.where);
  if (h.hasParent) f.parent = TcHandle(h.parent);
  if (h.hasPrio) f.prio = h.prio;
  if (h.hasChainIndex) f.chain = h.chainIndex;
  if (h.kind) f.kind = kFilterKinds[h.kind - 1].name;
  return describeFilter(static_cast<Verb>(h.verb), f, h.isChain);
}

/// The request's description, formatted only if it is ever read (see PackedHead).
Request::Describer describer(const TcFilterInfo& f, Verb verb, bool chain) {
  const FilterKind* k = f.kind.empty() ? nullptr : filterKind(f.options);
  std::size_t kind = k ? static_cast<std::size_t>(k - kFilterKinds) + 1 : 0;  // encodeFilter checked: f.kind is k's name
  for (std::size_t i = 0; i < std::size(kFilterKinds) && !f.kind.empty() && !kind; ++i)
    if (f.kind == kFilterKinds[i].name) kind = i + 1;  // options not given (a delete), or raw
  if (!f.kind.empty() && !kind) {
    FilterHead head{f.dev, f.block, f.parent, f.prio, f.chain, f.kind};
    return lazily(verb, std::move(head), [chain](Verb v, const FilterHead& x) { return describeFilter(v, x, chain); });
  }
  PackedHead h;
  h.where = f.block ? *f.block : f.dev->index();  // encodeFilter refused a device by name
  h.parent = f.parent ? f.parent->value : 0;
  h.chainIndex = f.chain.value_or(0);
  h.prio = f.prio.value_or(0);
  h.verb = static_cast<uint8_t>(verb);
  h.isChain = chain;
  h.isBlock = f.block.has_value();
  h.hasParent = f.parent.has_value();
  h.hasPrio = f.prio.has_value();
  h.hasChainIndex = f.chain.has_value();
  h.kind = static_cast<uint8_t>(kind);
  return [h] { return describePacked(h); };
}

}  // namespace

Request encodeFilter(const TcFilterInfo& f, Verb verb, bool chain) {
  // One reference captured: the closure fits std::function's own storage (three cost an
  // allocation per request).
  struct About {
    const TcFilterInfo& f;
    Verb verb;
    bool chain;
  } about{f, verb, chain};
  Operation operation = [&about] { return describeFilter(about.verb, about.f, about.chain); };
  if (f.dev.has_value() == f.block.has_value())
    throw invalid(operation, std::string("a ") + (chain ? "chain" : "filter") + " needs either a device (dev NAME) or a block (block N)");
  bool creates = verb != Verb::Del;
  // A chain's kind and options are its optional template (the keys its filters must use).
  if (creates && !chain && f.kind.empty()) throw invalid(operation, "a classifier kind is required (u32, matchall, flower, ...)");
  if (chain && (f.handle || f.prio)) throw invalid(operation, "a chain has no handle or pref (its filters do)");
  if (!f.kind.empty()) {
    if (f.kind.size() >= 16) throw invalid(operation, "kind \"" + f.kind + "\" is too long (at most 15 bytes)");
    const FilterKind* k = filterKind(f.options);
    if (k && f.kind != k->name) throw invalid(operation, "kind \"" + f.kind + "\" does not match its " + k->name + " options");
  }
  if (verb == Verb::Set && !f.handle) throw invalid(operation, "filter change needs the filter's handle");
  if (verb == Verb::Del && f.handle && !f.prio) throw invalid(operation, "deleting by handle needs the pref as well");
  if (f.chain && *f.chain > TC_ACT_EXT_VAL_MASK) throw invalid(operation, "chain index above 2^28-1");
  core::MessageWriter w(messageType(verb, chain ? RTM_NEWCHAIN : RTM_NEWTFILTER), createFlags(verb));
  if (f.block == 0u) throw invalid(operation, "block index 0 is not a shared block");
  // As tc: a new filter matches every protocol unless told; a chain's template names its own.
  uint16_t protocol = f.protocol.value_or(creates && !chain ? ETH_P_ALL : 0);
  auto& t = putPlacement(w, f.block, f.block ? 0 : requireIndex(*f.dev, "dev", true), f.parent, f.prio, protocol);
  if (f.handle) t.tcm_handle = *f.handle;
  if (!f.kind.empty()) w.putString(TCA_KIND, f.kind);
  if (f.chain) w.putU32(TCA_CHAIN, *f.chain);
  if (creates && !f.kind.empty()) encodeOptions(w, f, operation);
  // The description reads only the placement: a copy of the whole filter (its actions) for a
  // text that is rarely asked for cost a -batch of 100,000 filters ~10% of its parse time, and
  // an empty TcFilterInfo to hold the placement (moved three times) another ~2% (issue 33).
  return w.toRequest(describer(f, verb, chain));
}

void encodeFilterDump(core::MessageWriter& w, const TcFilterFilter& filter, uint32_t ifindex) {
  putPlacement(w, filter.block, ifindex, filter.parent, filter.prio, filter.protocol.value_or(0));
  if (filter.chain) w.putU32(TCA_CHAIN, *filter.chain);
}

void decodeFilter(const nlmsghdr* m, TcFilterInfo& out) {
  out = TcFilterInfo();
  const auto& t = headerOf<tcmsg>(m, "filter");
  if (t.tcm_ifindex == static_cast<int>(TCM_IFINDEX_MAGIC_BLOCK)) out.block = t.tcm_block_index;
  else {
    out.dev = Ifref(static_cast<uint32_t>(t.tcm_ifindex));
    out.parent = TcHandle(t.tcm_parent);
  }
  if (t.tcm_handle) out.handle = t.tcm_handle;
  out.prio = static_cast<uint16_t>(t.tcm_info >> 16);
  out.protocol = ntohs(static_cast<uint16_t>(t.tcm_info & 0xFFFF));
  const nlattr* options = nullptr;
  forEachAttr(attrsOf(m, sizeof(tcmsg)), [&](const nlattr* a) {
    switch (core::attrType(a)) {
      case TCA_KIND: out.kind = core::readString(a); break;
      case TCA_CHAIN: out.chain = u32Of(a); break;
      case TCA_OPTIONS: options = a; break;
      case TCA_STATS2: out.stats = decodeTcStats(out.kind, a, false); break;
      case TCA_STATS:
      case TCA_XSTATS:
      case TCA_PAD: break;
      default: out.unknown.append(core::attrType(a), core::readBytes(a));
    }
  });
  if (options) out.options = decodeOptions(out.kind, options, out.unknown);
}

}  // namespace fastlink::rtnl

namespace fastlink {
namespace {

/// "filter show dev D ingress", "chain get block 22": a listing's (or a get's) description.
std::string showWords(const char* noun, const TcFilterFilter& f, const char* verb = "show") {
  std::string s = std::string(noun) + " " + verb;
  if (f.block) return s + " block " + std::to_string(*f.block);
  return f.dev ? s + " dev " + rtnl::devWord(*f.dev) + rtnl::parentWord(f.parent) : s;
}

/// A listing names one device or one block, never both or neither.
void requireDevOrBlock(const TcFilterFilter& f, const char* noun) {
  if (f.dev.has_value() == f.block.has_value())
    throw Error::invalidArgument(std::string(noun) + " show", "a device (dev NAME) or a block (block N) is required");
}

/// Filters, and chains, which dump as filters do (the same tcmsg, TCA_CHAIN, a template's
/// TCA_KIND and TCA_OPTIONS).
template <uint16_t kType>
struct FilterLikeTraits : rtnl::Object<TcFilterInfo, TcFilterFilter, kType> {
  static constexpr const char* kNoun = kType == RTM_NEWCHAIN ? "chain" : "filter";
  static void encodeDump(core::MessageWriter& w, const TcFilterFilter& f, const rtnl::Indexes& ix) { rtnl::encodeFilterDump(w, f, ix.dev); }
  static void decode(const nlmsghdr* m, TcFilterInfo& out, const TcFilterFilter&) { rtnl::decodeFilter(m, out); }
  // Device, parent, prio, protocol and chain are the kernel's (a chain dump keeps the chain it
  // names); a filter's handle and kind are matched here.
  static bool matches(const TcFilterInfo& f, const TcFilterFilter& x, const rtnl::Indexes&) {
    return kType == RTM_NEWCHAIN || ((!x.handle || f.handle == x.handle) && (!x.kind || f.kind == *x.kind));
  }
  static std::string show(const TcFilterFilter& f) { return showWords(kNoun, f); }
};
using FilterTraits = FilterLikeTraits<RTM_NEWTFILTER>;
using ChainTraits = FilterLikeTraits<RTM_NEWCHAIN>;

/// The tcamsg and the table naming one kind (TCA_ACT_TAB { 1 { TCA_ACT_KIND } }): what a dump
/// or a flush of the kind's standalone actions sends.
void putActionTableOf(core::MessageWriter& w, const std::string& kind) {
  auto& t = w.putHeader<tcamsg>();
  t.tca_family = AF_UNSPEC;
  auto tab = w.beginNest(TCA_ACT_TAB);
  auto one = w.beginNest(1);
  w.putString(TCA_ACT_KIND, kind);
  w.endNest(one);
  w.endNest(tab);
}

/// An action table request; `keysOnly`: each action's kind and index alone (del and get).
Request actionRequest(uint16_t type, uint16_t flags, const std::vector<TcAction>& actions, bool keysOnly) {
  std::string verb = !keysOnly ? "add" : type == RTM_GETACTION ? "get" : "del";
  bool forDelete = keysOnly;
  rtnl::Operation operation = [&] { return "actions " + verb; };
  if (actions.empty()) throw rtnl::invalid(operation, "no action given");
  core::MessageWriter w(type, flags);
  auto& t = w.putHeader<tcamsg>();
  t.tca_family = AF_UNSPEC;
  rtnl::encodeActions(w, TCA_ACT_TAB, actions, operation, forDelete);
  std::string kind = actions.front().kind;
  return w.toRequest("actions " + verb + " action " + kind);
}

}  // namespace

std::string tcFilterKind(const TcFilterOptions& o) {
  if (const auto* k = rtnl::filterKind(o)) return k->name;
  return std::holds_alternative<RawFilterOptions>(o) ? "raw" : "";
}

TcFilterInfo& TcFilterInfo::setOptions(TcFilterOptions v) {
  if (const auto* k = rtnl::filterKind(v)) kind = k->name;
  options = std::move(v);
  return *this;
}

TcFilterApi& Netlink::tcFilters() { return lazy(tcFilters_); }

Request TcFilterRequests::add(const TcFilterInfo& f) { return rtnl::encodeFilter(f, rtnl::Verb::Add); }
Request TcFilterRequests::replace(const TcFilterInfo& f) { return rtnl::encodeFilter(f, rtnl::Verb::Replace); }
Request TcFilterRequests::change(const TcFilterInfo& f) { return rtnl::encodeFilter(f, rtnl::Verb::Set); }
Request TcFilterRequests::del(const TcFilterInfo& f) { return rtnl::encodeFilter(f, rtnl::Verb::Del); }
Request TcFilterRequests::addChain(const TcFilterInfo& c) { return rtnl::encodeFilter(c, rtnl::Verb::Add, true); }
Request TcFilterRequests::delChain(const TcFilterInfo& c) { return rtnl::encodeFilter(c, rtnl::Verb::Del, true); }
Request TcFilterRequests::addActions(const std::vector<TcAction>& actions) {
  return actionRequest(RTM_NEWACTION, NLM_F_CREATE | NLM_F_EXCL, actions, false);
}
Request TcFilterRequests::delActions(const std::vector<TcAction>& actions) {
  return actionRequest(RTM_DELACTION, 0, actions, true);
}

Request TcFilterRequests::getActions(const std::vector<TcAction>& actions) { return actionRequest(RTM_GETACTION, 0, actions, true); }

Request TcFilterRequests::flushActions(const std::string& kind) {
  rtnl::Operation operation = [&] { return "actions flush action " + kind; };
  if (kind.empty() || kind.size() >= 16) throw rtnl::invalid(operation, "an action kind of at most 15 bytes is required (gact, mirred, ...)");
  // NLM_F_ROOT on a delete asks the kernel (tca_action_flush) for the whole table of the kind.
  core::MessageWriter w(RTM_DELACTION, NLM_F_ROOT);
  putActionTableOf(w, kind);
  return w.toRequest("actions flush action " + kind);
}

namespace {
/// Every Ifref of a filter to resolve (of a const one, to read): the device and each mirred
/// action's target.
struct FilterChangeTraits : FilterTraits {
  static void devices(auto& info, auto&& visit) {
    constexpr bool kConst = std::is_const_v<std::remove_reference_t<decltype(info)>>;
    visit(info.dev);
    std::visit(
        [&](auto& o) {
          if constexpr (requires { o.actions; })
            for (auto& a : o.actions)
              if (auto* m = std::get_if<MirredAction>(&a.options)) {
                std::optional<Ifref> d = m->dev;
                visit(d);
                if constexpr (!kConst) m->dev = *d;
              }
        },
        info.options);
  }
};
}  // namespace

void TcFilterApi::add(const TcFilterInfo& f) { rtnl::apply<FilterChangeTraits>(engine_, f, TcFilterRequests::add); }
void TcFilterApi::replace(const TcFilterInfo& f) { rtnl::apply<FilterChangeTraits>(engine_, f, TcFilterRequests::replace); }
void TcFilterApi::change(const TcFilterInfo& f) { rtnl::apply<FilterChangeTraits>(engine_, f, TcFilterRequests::change); }
void TcFilterApi::del(const TcFilterInfo& f) { rtnl::apply<FilterChangeTraits>(engine_, f, TcFilterRequests::del); }

std::vector<TcFilterInfo> TcFilterApi::list(const TcFilterFilter& filter) {
  requireDevOrBlock(filter, "filter");
  return rtnl::list<FilterTraits>(engine_, filter);
}
void TcFilterApi::forEach(const TcFilterFilter& filter, const std::function<void(const TcFilterInfo&)>& each,
                          const std::function<void()>& restart) {
  requireDevOrBlock(filter, "filter");
  rtnl::forEach<FilterTraits>(engine_, filter, each, restart);
}

void TcFilterApi::addChain(const TcFilterInfo& c) { rtnl::apply<FilterChangeTraits>(engine_, c, TcFilterRequests::addChain); }
void TcFilterApi::delChain(const TcFilterInfo& c) { rtnl::apply<FilterChangeTraits>(engine_, c, TcFilterRequests::delChain); }
TcFilterInfo TcFilterApi::getChain(const TcFilterFilter& where) {
  requireDevOrBlock(where, "chain");
  // The same tcmsg and TCA_CHAIN as a dump of the chains, without NLM_F_DUMP.
  core::MessageWriter w(RTM_GETCHAIN, 0);
  rtnl::encodeFilterDump(w, where, rtnl::Names(engine_).index(where.dev));
  std::string operation = showWords("chain", where, "get") + (where.chain ? " chain " + std::to_string(*where.chain) : "");
  std::optional<TcFilterInfo> out;
  engine_.query(w.bytes(), operation, [&](const nlmsghdr* m) {
    // The kernel answers a get with the request's own type (tc_chain_notify's event).
    if (m->nlmsg_type == RTM_NEWCHAIN || m->nlmsg_type == RTM_GETCHAIN) rtnl::decodeFilter(m, out.emplace());
  });
  if (!out) throw rtnl::malformed(operation, "no chain in the reply");
  return std::move(*out);
}
std::vector<TcFilterInfo> TcFilterApi::chains(const TcFilterFilter& filter) {
  requireDevOrBlock(filter, "chain");
  return rtnl::list<ChainTraits>(engine_, filter);
}
void TcFilterApi::forEachChain(const TcFilterFilter& filter, const std::function<void(const TcFilterInfo&)>& each,
                               const std::function<void()>& restart) {
  requireDevOrBlock(filter, "chain");
  rtnl::forEach<ChainTraits>(engine_, filter, each, restart);
}

void TcFilterApi::addActions(const std::vector<TcAction>& actions) {
  std::vector<TcAction> resolved = actions;
  rtnl::Names names(engine_);
  for (TcAction& a : resolved)
    if (auto* m = std::get_if<MirredAction>(&a.options)) m->dev = Ifref(names.index(m->dev));
  engine_.execute(TcFilterRequests::addActions(resolved));
}
void TcFilterApi::delActions(const std::vector<TcAction>& actions) { engine_.execute(TcFilterRequests::delActions(actions)); }

std::vector<TcAction> TcFilterApi::actions(const std::string& kind) {
  core::MessageWriter w(RTM_GETACTION, NLM_F_DUMP);
  putActionTableOf(w, kind);
  std::vector<TcAction> out;
  engine_.dump(
      w.bytes(), "actions show action " + kind,
      [&](const nlmsghdr* m) {
        if (m->nlmsg_type != RTM_NEWACTION && m->nlmsg_type != RTM_GETACTION) return;
        for (auto& a : rtnl::decodeActionMessage(m)) out.push_back(std::move(a));
      },
      [&] { out.clear(); });
  return out;
}

std::vector<TcAction> TcFilterApi::getActions(const std::vector<TcAction>& keys) {
  Request request = TcFilterRequests::getActions(keys);
  std::vector<TcAction> out;
  engine_.query(request.bytes(), request.operation(), [&](const nlmsghdr* m) {
    // The kernel answers a get with RTM_NEWACTION (tcf_get_notify's reply).
    if (m->nlmsg_type != RTM_NEWACTION && m->nlmsg_type != RTM_GETACTION) return;
    for (auto& a : rtnl::decodeActionMessage(m)) out.push_back(std::move(a));
  });
  return out;
}

}  // namespace fastlink
