// ethtool family codec: every message by its FieldTable (ethtool_fields.hpp for the settings the
// CLI names, the link settings' tables here), features (bitsets), string sets, stats.
#include "ethtool/ethtool_codec.hpp"

#include <linux/ethtool_netlink.h>

#include <algorithm>
#include <optional>
#include <type_traits>
#include <cstring>
#include <map>
#include <string>
#include <string_view>

#include "core/attr_fields.hpp"
#include "fastlink/error.hpp"
#include "genl/genl_message.hpp"

namespace fastlink::genl {

using core::AttrTable;

namespace {

Error malformed(const std::string& why) {
  return Error(make_error_code(Errc::malformed_reply), "ethtool reply", why);
}

// Compact bitset words: u32 in host order, bit i in word i / 32.
std::vector<bool> words(const nlattr* a, uint32_t size) {
  std::span<const uint8_t> b = core::readBytes(a);
  if (b.size() < (size + 31) / 32 * 4) throw malformed("bitset words shorter than its size");
  std::vector<bool> out(size);
  for (uint32_t i = 0; i < size; ++i) {
    uint32_t w;
    std::memcpy(&w, b.data() + (i / 32) * 4, 4);
    out[i] = (w >> (i % 32)) & 1;
  }
  return out;
}

// The kernel never sends more bits than it has features (a few hundred); a bigger size is a
// corrupt message, and refusing it keeps a fuzzed size from allocating gigabytes.
constexpr uint32_t kMaxBits = 1u << 16;

}  // namespace

EthtoolBitset decodeBitset(const nlattr* nest) {
  AttrTable t = AttrTable::ofNest(nest, ETHTOOL_A_BITSET_MAX);
  EthtoolBitset out;
  out.noMask = t.has(ETHTOOL_A_BITSET_NOMASK);
  if (auto* a = t.get(ETHTOOL_A_BITSET_SIZE)) out.size = core::readU32(a);
  if (out.size > kMaxBits) throw malformed("bitset size " + std::to_string(out.size) + " is not plausible");
  if (auto* bits = t.get(ETHTOOL_A_BITSET_BITS)) {
    // Verbose: only the listed bits are in the mask; without NOMASK a listed bit without
    // VALUE is a 0 in the mask.
    out.value.assign(out.size, false);
    if (!out.noMask) out.mask.assign(out.size, false);
    AttrTable entries = AttrTable::ofNest(bits, 0);
    for (const nlattr* e : entries.all()) {
      if (core::attrType(e) != ETHTOOL_A_BITSET_BITS_BIT) continue;
      AttrTable b = AttrTable::ofNest(e, ETHTOOL_A_BITSET_BIT_MAX);
      auto* idx = b.get(ETHTOOL_A_BITSET_BIT_INDEX);
      if (!idx) throw malformed("verbose bitset bit without an index");
      uint32_t i = core::readU32(idx);
      if (i >= out.size) throw malformed("bitset bit " + std::to_string(i) + " beyond its size");
      if (auto* n = b.get(ETHTOOL_A_BITSET_BIT_NAME)) out.names[i] = core::readString(n);
      bool on = b.has(ETHTOOL_A_BITSET_BIT_VALUE);
      out.value[i] = out.noMask ? true : on;
      if (!out.noMask) out.mask[i] = true;
    }
    return out;
  }
  if (auto* a = t.get(ETHTOOL_A_BITSET_VALUE)) out.value = words(a, out.size);
  else out.value.assign(out.size, false);
  if (!out.noMask) {
    if (auto* a = t.get(ETHTOOL_A_BITSET_MASK)) out.mask = words(a, out.size);
  }
  return out;
}

namespace {

using core::AttrField;
using core::FieldContext;
using core::FieldTable;
using core::field;
using core::Wire;

// A message by its table (the request header has no row).
template <class Info, std::size_t N>
Info decodeBy(const nlmsghdr* m, const FieldTable<Info, N>& table) {
  Info out;
  GenlReply reply = decodeGenl(m, 0);
  for (const nlattr* a : reply.attrs.all()) table.decode(a, out, FieldContext{"ethtool reply"});
  return out;
}

// A bit's name: the verbose form's own; "bitN" for a compact bitset (ethtool's spelling).
std::string bitName(const EthtoolBitset& b, uint32_t i) {
  auto it = b.names.find(i);
  return it != b.names.end() ? it->second : "bit" + std::to_string(i);
}
std::vector<std::string> setBitNames(const EthtoolBitset& b) {
  std::vector<std::string> out;
  for (uint32_t i = 0; i < b.size; ++i)
    if (b.value[i]) out.push_back(bitName(b, i));
  return out;
}
// Bits 0-31, as the kernel's u32 fields (WAKE_*, NETIF_MSG_*) hold them.
uint32_t low32(const std::vector<bool>& bits) {
  uint32_t out = 0;
  for (uint32_t i = 0; i < std::min<std::size_t>(bits.size(), 32); ++i)
    if (bits[i]) out |= 1u << i;
  return out;
}

// The modes a bitset lists: with a mask, those in it (supported) or set (advertised); without
// one (a link partner's), the set ones.
std::vector<LinkMode> linkModes(const nlattr* a, bool peer) {
  EthtoolBitset b = decodeBitset(a);
  std::vector<LinkMode> out;
  for (uint32_t i = 0; i < b.size; ++i) {
    bool supported = !b.mask.empty() && b.mask[i];
    if (supported || b.value[i]) out.push_back({i, bitName(b, i), !peer && (supported || b.mask.empty()), b.value[i]});
  }
  return out;
}

// A bitset attribute: a SET carries the member's BitsetChange when set (advertise, wol, msglvl);
// `get` says what the reply's bitset means for the object.
template <uint16_t Attr, auto Change, class Info = decltype(core::fields::ownerOf(Change))>
constexpr AttrField<Info> bitsetField(std::type_identity_t<bool (*)(const nlattr*, Info&, const FieldContext&)> get) {
  return {Attr, [](core::MessageWriter& w, const AttrField<Info>&, const Info& x) {
            if (x.*Change) putBitset(w, Attr, *(x.*Change));
          }, get};
}

constexpr FieldTable kLinkModes({
    field<ETHTOOL_A_LINKMODES_AUTONEG, &LinkModesInfo::autoneg>(),
    bitsetField<ETHTOOL_A_LINKMODES_OURS, &LinkModesInfo::advertise>(
        [](const nlattr* a, LinkModesInfo& m, const FieldContext&) { return (m.ours = linkModes(a, false), true); }),
    AttrField<LinkModesInfo>{ETHTOOL_A_LINKMODES_PEER, nullptr,
                             [](const nlattr* a, LinkModesInfo& m, const FieldContext&) {
                               return (m.peer = linkModes(a, true), true);
                             }},
    field<ETHTOOL_A_LINKMODES_SPEED, &LinkModesInfo::speed>(),
    field<ETHTOOL_A_LINKMODES_DUPLEX, &LinkModesInfo::duplex>(),
    field<ETHTOOL_A_LINKMODES_MASTER_SLAVE_CFG, &LinkModesInfo::masterSlaveCfg>(),
    field<ETHTOOL_A_LINKMODES_MASTER_SLAVE_STATE, &LinkModesInfo::masterSlaveState, Wire::Reported>(),
    field<ETHTOOL_A_LINKMODES_LANES, &LinkModesInfo::lanes>(),
});

constexpr FieldTable kLinkInfo({
    field<ETHTOOL_A_LINKINFO_PORT, &LinkInfoSettings::port>(),
    field<ETHTOOL_A_LINKINFO_PHYADDR, &LinkInfoSettings::phyAddress>(),
    field<ETHTOOL_A_LINKINFO_TP_MDIX, &LinkInfoSettings::mdix, Wire::Reported>(),
    field<ETHTOOL_A_LINKINFO_TP_MDIX_CTRL, &LinkInfoSettings::mdixCtrl>(),
    field<ETHTOOL_A_LINKINFO_TRANSCEIVER, &LinkInfoSettings::transceiver, Wire::Reported>(),
});

constexpr FieldTable kLinkState({
    field<ETHTOOL_A_LINKSTATE_LINK, &LinkStateInfo::link, Wire::Reported>(),
    field<ETHTOOL_A_LINKSTATE_SQI, &LinkStateInfo::sqi, Wire::Reported>(),
    field<ETHTOOL_A_LINKSTATE_SQI_MAX, &LinkStateInfo::sqiMax, Wire::Reported>(),
    field<ETHTOOL_A_LINKSTATE_EXT_STATE, &LinkStateInfo::extState, Wire::Reported>(),
    field<ETHTOOL_A_LINKSTATE_EXT_SUBSTATE, &LinkStateInfo::extSubstate, Wire::Reported>(),
});

constexpr FieldTable kWol({
    bitsetField<ETHTOOL_A_WOL_MODES, &WolInfo::change>([](const nlattr* a, WolInfo& x, const FieldContext&) {
      // The mask is what the device supports, the value what is enabled.
      EthtoolBitset b = decodeBitset(a);
      x.supported = low32(b.mask.empty() ? b.value : b.mask);
      x.modes = low32(b.value);
      return true;
    }),
    AttrField<WolInfo>{ETHTOOL_A_WOL_SOPASS,
                       [](core::MessageWriter& w, const AttrField<WolInfo>&, const WolInfo& x) {
                         if (x.sopass) w.putBytes(ETHTOOL_A_WOL_SOPASS, *x.sopass);
                       },
                       [](const nlattr* a, WolInfo& x, const FieldContext&) {
                         auto bytes = core::readBytes(a);
                         x.sopass.emplace(bytes.begin(), bytes.end());
                         return true;
                       }},
});

constexpr FieldTable kDebug({
    bitsetField<ETHTOOL_A_DEBUG_MSGMASK, &DebugInfo::change>([](const nlattr* a, DebugInfo& x, const FieldContext&) {
      EthtoolBitset b = decodeBitset(a);
      x.msgMask = low32(b.value);
      x.classes = setBitNames(b);
      return true;
    }),
});

// The three lists of -T: the names of the bits set.
template <std::vector<std::string> TsInfo::*kList>
constexpr AttrField<TsInfo> tsList(uint16_t type) {
  return {type, nullptr, [](const nlattr* a, TsInfo& x, const FieldContext&) { return (x.*kList = setBitNames(decodeBitset(a)), true); }};
}

constexpr FieldTable kTsInfo({
    tsList<&TsInfo::timestamping>(ETHTOOL_A_TSINFO_TIMESTAMPING),
    tsList<&TsInfo::txTypes>(ETHTOOL_A_TSINFO_TX_TYPES),
    tsList<&TsInfo::rxFilters>(ETHTOOL_A_TSINFO_RX_FILTERS),
    field<ETHTOOL_A_TSINFO_PHC_INDEX, &TsInfo::phcIndex, Wire::Reported>(),
});

// FEC: the kernel carries ETHTOOL_FEC_* encodings as these link mode bits (its
// ethtool_fec_to_link_modes); AUTO travels in an attribute of its own.
constexpr std::pair<uint32_t, uint32_t> kFecModes[] = {
    {ETHTOOL_LINK_MODE_FEC_NONE_BIT, ETHTOOL_FEC_OFF},
    {ETHTOOL_LINK_MODE_FEC_RS_BIT, ETHTOOL_FEC_RS},
    {ETHTOOL_LINK_MODE_FEC_BASER_BIT, ETHTOOL_FEC_BASER},
    {ETHTOOL_LINK_MODE_FEC_LLRS_BIT, ETHTOOL_FEC_LLRS},
};
uint32_t fecOfLinkMode(uint32_t bit) {
  for (const auto& [mode, fec] : kFecModes)
    if (mode == bit) return fec;
  return 0;
}

// One counter of the statistics nest: the total, then one u64 per lane.
std::optional<FecCounter> fecCounter(const nlattr* a) {
  std::span<const uint8_t> b = core::readBytes(a);
  if (b.empty()) return std::nullopt;  // the driver does not keep it
  if (b.size() % 8) throw malformed("FEC statistic of " + std::to_string(b.size()) + " bytes is not whole u64s");
  std::vector<uint64_t> values(b.size() / 8);
  std::memcpy(values.data(), b.data(), b.size());
  return FecCounter{values.front(), std::vector<uint64_t>(values.begin() + 1, values.end())};
}

constexpr FieldTable kFec({
    AttrField<FecSettings>{ETHTOOL_A_FEC_MODES,
                           [](core::MessageWriter& w, const AttrField<FecSettings>&, const FecSettings& x) {
                             if (!x.modes) return;
                             BitsetChange change;  // no mask: the whole set
                             change.size = ETHTOOL_LINK_MODE_FEC_LLRS_BIT + 1;
                             change.value.assign((change.size + 31) / 32, 0);
                             for (const auto& [bit, fec] : kFecModes)
                               if (*x.modes & fec) change.value[bit / 32] |= 1u << (bit % 32);
                             putBitset(w, ETHTOOL_A_FEC_MODES, change);
                           },
                           [](const nlattr* a, FecSettings& x, const FieldContext&) {
                             EthtoolBitset b = decodeBitset(a);
                             uint32_t modes = 0;
                             for (uint32_t i = 0; i < b.size; ++i)
                               if (b.value[i]) modes |= fecOfLinkMode(i);
                             x.modes = modes;
                             return true;
                           }},
    field<ETHTOOL_A_FEC_AUTO, &FecSettings::automatic>(),
    AttrField<FecSettings>{ETHTOOL_A_FEC_ACTIVE, nullptr,
                           [](const nlattr* a, FecSettings& x, const FieldContext&) {
                             // A link mode bit; 0 (never a FEC bit) or one the table lacks: none.
                             if (uint32_t fec = fecOfLinkMode(core::readU32(a))) x.active = fec;
                             return true;
                           }},
    AttrField<FecSettings>{ETHTOOL_A_FEC_STATS, nullptr,
                           [](const nlattr* a, FecSettings& x, const FieldContext&) {
                             FecStats stats;
                             core::forEachAttr(core::nestPayload(a), [&](const nlattr* s) {
                               switch (core::attrType(s)) {
                                 case ETHTOOL_A_FEC_STAT_CORRECTED: stats.correctedBlocks = fecCounter(s); break;
                                 case ETHTOOL_A_FEC_STAT_UNCORR: stats.uncorrectableBlocks = fecCounter(s); break;
                                 case ETHTOOL_A_FEC_STAT_CORR_BITS: stats.correctedBits = fecCounter(s); break;
                                 default: break;  // padding
                               }
                             });
                             x.stats = stats;
                             return true;
                           }},
});

}  // namespace

void putBitset(core::MessageWriter& w, uint16_t type, const BitsetChange& change) {
  std::size_t nest = w.beginNest(type);
  if (!change.named.empty()) {
    // Verbose without NOMASK: only the named bits change (the kernel resolves the names).
    std::size_t bits = w.beginNest(ETHTOOL_A_BITSET_BITS);
    for (const auto& [name, on] : change.named) {
      std::size_t bit = w.beginNest(ETHTOOL_A_BITSET_BITS_BIT);
      w.putString(ETHTOOL_A_BITSET_BIT_NAME, name);
      if (on) w.putFlag(ETHTOOL_A_BITSET_BIT_VALUE);
      w.endNest(bit);
    }
    w.endNest(bits);
  } else {
    if (change.mask.empty()) w.putFlag(ETHTOOL_A_BITSET_NOMASK);
    w.putU32(ETHTOOL_A_BITSET_SIZE, change.size);
    auto words = [](const std::vector<uint32_t>& v) {
      return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(v.data()), v.size() * 4);
    };
    w.putBytes(ETHTOOL_A_BITSET_VALUE, words(change.value));
    if (!change.mask.empty()) w.putBytes(ETHTOOL_A_BITSET_MASK, words(change.mask));
  }
  w.endNest(nest);
}

ChannelsInfo decodeChannels(const nlmsghdr* message) { return decodeBy(message, kChannels.table); }
RingsInfo decodeRings(const nlmsghdr* message) { return decodeBy(message, kRings.table); }
CoalesceInfo decodeCoalesce(const nlmsghdr* message) { return decodeBy(message, kCoalesce.table); }
LinkModesInfo decodeLinkModes(const nlmsghdr* message) { return decodeBy(message, kLinkModes); }
LinkInfoSettings decodeLinkInfo(const nlmsghdr* message) { return decodeBy(message, kLinkInfo); }
LinkStateInfo decodeLinkState(const nlmsghdr* message) { return decodeBy(message, kLinkState); }
WolInfo decodeWol(const nlmsghdr* message) { return decodeBy(message, kWol); }
DebugInfo decodeDebug(const nlmsghdr* message) { return decodeBy(message, kDebug); }
TsInfo decodeTsInfo(const nlmsghdr* message) { return decodeBy(message, kTsInfo); }
FecSettings decodeFec(const nlmsghdr* message) { return decodeBy(message, kFec); }

TunnelOffloadInfo decodeTunnelInfo(const nlmsghdr* message, const std::vector<std::string>& typeNames) {
  GenlReply r = decodeGenl(message, ETHTOOL_A_TUNNEL_INFO_MAX);
  TunnelOffloadInfo out;
  const nlattr* ports = r.attrs.get(ETHTOOL_A_TUNNEL_INFO_UDP_PORTS);
  if (!ports) return out;
  core::forEachAttr(core::nestPayload(ports), [&](const nlattr* table) {
    if (core::attrType(table) != ETHTOOL_A_TUNNEL_UDP_TABLE) return;
    AttrTable t = AttrTable::ofNest(table, ETHTOOL_A_TUNNEL_UDP_TABLE_MAX);
    const nlattr* size = t.get(ETHTOOL_A_TUNNEL_UDP_TABLE_SIZE);
    if (!size) throw malformed("UDP tunnel table without its size");
    UdpTunnelTable parsed;
    parsed.size = core::readU32(size);
    if (const nlattr* types = t.get(ETHTOOL_A_TUNNEL_UDP_TABLE_TYPES)) parsed.types = setBitNames(decodeBitset(types));
    core::forEachAttr(core::nestPayload(table), [&](const nlattr* entry) {
      if (core::attrType(entry) != ETHTOOL_A_TUNNEL_UDP_TABLE_ENTRY) return;
      AttrTable e = AttrTable::ofNest(entry, ETHTOOL_A_TUNNEL_UDP_ENTRY_MAX);
      const nlattr* port = e.get(ETHTOOL_A_TUNNEL_UDP_ENTRY_PORT);
      const nlattr* type = e.get(ETHTOOL_A_TUNNEL_UDP_ENTRY_TYPE);
      if (!port || !type) throw malformed("UDP tunnel entry without its port or type");
      uint32_t index = core::readU32(type);
      parsed.entries.emplace_back(core::readBe16(port),  // network order on the wire
                                index < typeNames.size() ? typeNames[index] : "type " + std::to_string(index));
    });
    out.udpTables.push_back(std::move(parsed));
  });
  return out;
}

PauseInfo decodePause(const nlmsghdr* message) {
  PauseInfo out = decodeBy(message, kPause.table);
  // The statistics nest (ethtool -I -a): a counter per attribute.
  if (const nlattr* stats = decodeGenl(message, ETHTOOL_A_PAUSE_MAX).attrs.get(ETHTOOL_A_PAUSE_STATS))
    core::forEachAttr(core::nestPayload(stats), [&](const nlattr* s) {
      if (core::attrType(s) == ETHTOOL_A_PAUSE_STAT_TX_FRAMES) out.txFrames = core::readU64(s);
      if (core::attrType(s) == ETHTOOL_A_PAUSE_STAT_RX_FRAMES) out.rxFrames = core::readU64(s);
    });
  return out;
}

void encode(core::MessageWriter& w, const ChannelsInfo& channels) { kChannels.table.encode(w, channels); }
void encode(core::MessageWriter& w, const RingsInfo& rings) { kRings.table.encode(w, rings); }
void encode(core::MessageWriter& w, const CoalesceInfo& coalesce) { kCoalesce.table.encode(w, coalesce); }
void encode(core::MessageWriter& w, const PauseInfo& pause) { kPause.table.encode(w, pause); }
void encode(core::MessageWriter& w, const LinkModesInfo& modes) { kLinkModes.encode(w, modes); }
void encode(core::MessageWriter& w, const LinkInfoSettings& info) { kLinkInfo.encode(w, info); }
void encode(core::MessageWriter& w, const WolInfo& wol) { kWol.encode(w, wol); }
void encode(core::MessageWriter& w, const DebugInfo& debug) { kDebug.encode(w, debug); }
void encode(core::MessageWriter& w, const FecSettings& fec) { kFec.encode(w, fec); }

FeaturesInfo decodeFeatures(const nlmsghdr* message, const std::vector<std::string>& names) {
  GenlReply r = decodeGenl(message, ETHTOOL_A_FEATURES_MAX);
  EthtoolBitset hw, wanted, active, nochange;
  if (auto* a = r.attrs.get(ETHTOOL_A_FEATURES_HW)) hw = decodeBitset(a);
  if (auto* a = r.attrs.get(ETHTOOL_A_FEATURES_WANTED)) wanted = decodeBitset(a);
  if (auto* a = r.attrs.get(ETHTOOL_A_FEATURES_ACTIVE)) active = decodeBitset(a);
  if (auto* a = r.attrs.get(ETHTOOL_A_FEATURES_NOCHANGE)) nochange = decodeBitset(a);
  auto bit = [](const EthtoolBitset& b, uint32_t i) { return i < b.value.size() && b.value[i]; };
  uint32_t size = std::max({hw.size, wanted.size, active.size, nochange.size});
  // Only a named bit is a feature: the string set's name, else a verbose bitset's own (the last
  // of active, hw, wanted, nochange that names it). Only the named bits are visited, not every
  // bit up to the highest named one: a hostile reply naming bit 65,535 alone costs one entry,
  // not 65,536 bits of lookups in four maps.
  std::map<uint32_t, std::string_view> named;
  for (const EthtoolBitset* b : {&active, &hw, &wanted, &nochange})
    for (const auto& [i, name] : b->names)
      if (i < size && !name.empty()) named[i] = name;
  for (uint32_t i = 0; i < std::min<std::size_t>(size, names.size()); ++i)
    if (!names[i].empty()) named[i] = names[i];
  FeaturesInfo out;
  out.features.reserve(named.size());
  for (const auto& [i, name] : named) {
    Feature f;
    f.name = name;
    f.active = bit(active, i);
    f.wanted = bit(wanted, i);
    f.changeable = bit(hw, i);
    f.noChange = bit(nochange, i);
    out.features.push_back(std::move(f));
  }
  return out;
}

std::vector<std::string> decodeStringSet(const nlmsghdr* message) {
  GenlReply r = decodeGenl(message, ETHTOOL_A_STRSET_MAX);
  std::vector<std::string> out;
  auto* sets = r.attrs.get(ETHTOOL_A_STRSET_STRINGSETS);
  if (!sets) return out;
  AttrTable setList = AttrTable::ofNest(sets, 0);
  for (const nlattr* set : setList.all()) {
    if (core::attrType(set) != ETHTOOL_A_STRINGSETS_STRINGSET) continue;
    AttrTable s = AttrTable::ofNest(set, ETHTOOL_A_STRINGSET_MAX);
    uint32_t count = 0;
    if (auto* a = s.get(ETHTOOL_A_STRINGSET_COUNT)) count = core::readU32(a);
    if (count > kMaxBits) throw malformed("string set of " + std::to_string(count) + " strings is not plausible");
    out.assign(count, std::string());
    auto* strings = s.get(ETHTOOL_A_STRINGSET_STRINGS);
    if (!strings) return out;
    AttrTable list = AttrTable::ofNest(strings, 0);
    for (const nlattr* e : list.all()) {
      if (core::attrType(e) != ETHTOOL_A_STRINGS_STRING) continue;
      AttrTable st = AttrTable::ofNest(e, ETHTOOL_A_STRING_MAX);
      auto* idx = st.get(ETHTOOL_A_STRING_INDEX);
      auto* val = st.get(ETHTOOL_A_STRING_VALUE);
      if (!idx || !val) continue;
      uint32_t i = core::readU32(idx);
      if (i >= count) throw malformed("string index " + std::to_string(i) + " beyond the set's count");
      out[i] = core::readString(val);
    }
    return out;  // one set asked, one set read
  }
  return out;
}

std::vector<RawStatsGroup> decodeStats(const nlmsghdr* message) {
  GenlReply r = decodeGenl(message, ETHTOOL_A_STATS_MAX);
  std::vector<RawStatsGroup> out;
  for (const nlattr* g : r.attrs.all()) {
    if (core::attrType(g) != ETHTOOL_A_STATS_GRP) continue;
    AttrTable t = AttrTable::ofNest(g, ETHTOOL_A_STATS_GRP_MAX);
    RawStatsGroup group;
    if (auto* a = t.get(ETHTOOL_A_STATS_GRP_ID)) group.id = core::readU32(a);
    if (auto* a = t.get(ETHTOOL_A_STATS_GRP_SS_ID)) group.stringSet = core::readU32(a);
    for (const nlattr* s : t.all()) {
      if (core::attrType(s) != ETHTOOL_A_STATS_GRP_STAT) continue;
      // One counter per STAT nest: its attribute type is the counter's index in the set.
      AttrTable c = AttrTable::ofNest(s, 0);
      for (const nlattr* v : c.all())
        if (core::readBytes(v).size() == 8) group.counters.emplace_back(core::attrType(v), core::readU64(v));
    }
    out.push_back(std::move(group));
  }
  return out;
}

}  // namespace fastlink::genl

namespace fastlink {
std::span<const EthtoolSetting<ChannelsInfo>> ethtoolSettings(const ChannelsInfo&) { return genl::kChannels.settings; }
std::span<const EthtoolSetting<RingsInfo>> ethtoolSettings(const RingsInfo&) { return genl::kRings.settings; }
std::span<const EthtoolSetting<CoalesceInfo>> ethtoolSettings(const CoalesceInfo&) { return genl::kCoalesce.settings; }
std::span<const EthtoolSetting<PauseInfo>> ethtoolSettings(const PauseInfo&) { return genl::kPause.settings; }
}  // namespace fastlink
