// ethtool family codec (pure, no I/O), shared by ethtool.cpp, the unit tests and the fuzz harness.
// Each attribute is a FieldTable row (core/attr_fields.hpp), declared once: the settings ethtool
// names by a word carry it here, for the CLI's parser and JSON (ethtoolSettings()); the link
// settings' rows are in ethtool_codec.cpp.
#pragma once

#include <linux/ethtool_netlink.h>
#include <linux/netlink.h>

#include <cstdint>
#include <array>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/attr_fields.hpp"
#include "core/message.hpp"

#include "fastlink/ethtool.hpp"

namespace fastlink::genl {

/// An ethtool bitset attribute, compact (SIZE + VALUE [+ MASK] words) or verbose (BITS of
/// index/name/value entries) — both forms decoded to the same shape.
struct EthtoolBitset {
  uint32_t size = 0;
  bool noMask = false;
  std::vector<bool> value;
  std::vector<bool> mask;                 ///< empty when noMask
  std::map<uint32_t, std::string> names;  ///< verbose form only
};

/// Decodes a bitset nest; throws Error(malformed_reply) on a bit index beyond `size` or words
/// shorter than the size needs.
EthtoolBitset decodeBitset(const nlattr* nest);

/// Writes `change` as a bitset nest of attribute `type`: by name (verbose, only the named bits
/// change) or by number (compact; without a mask the value is the whole set: NOMASK).
void putBitset(core::MessageWriter& w, uint16_t type, const BitsetChange& change);

/// The row of attribute `kType` for `kMember` and its names: `name` is ethtool's word for it on
/// the command line and its JSON key (`json` when that differs); a Wire::Reported row has no word.
template <uint16_t kType, auto kMember, core::Wire kWire = core::Wire::Native>
constexpr auto param(const char* name, const char* json = nullptr) {
  using Info = decltype(core::fields::ownerOf(kMember));
  return std::pair<core::AttrField<Info>, EthtoolSetting<Info>>{
      core::field<kType, kMember, kWire>(), {kWire == core::Wire::Reported ? nullptr : name, json ? json : name, kMember}};
}

/// A message's settings (names) and the FieldTable made of their rows.
template <class Info, std::size_t N>
struct EthtoolParams {
  std::array<EthtoolSetting<Info>, N> settings;
  core::FieldTable<Info, N> table;
};

template <class Info, std::size_t N>
constexpr EthtoolParams<Info, N> params(const std::pair<core::AttrField<Info>, EthtoolSetting<Info>> (&p)[N]) {
  core::AttrField<Info> rows[N];
  std::array<EthtoolSetting<Info>, N> settings{};
  for (std::size_t i = 0; i < N; ++i) {
    rows[i] = p[i].first;
    settings[i] = p[i].second;
  }
  return {settings, core::FieldTable<Info, N>(rows)};
}

using core::Wire;

// JSON keys: fastlink's own for -l/-g/-c (ethtool 6.1 has no --json for them); ethtool's for -a.
inline constexpr auto kChannels = params<ChannelsInfo>({
    param<ETHTOOL_A_CHANNELS_RX_MAX, &ChannelsInfo::rxMax, Wire::Reported>("rx_max"),
    param<ETHTOOL_A_CHANNELS_TX_MAX, &ChannelsInfo::txMax, Wire::Reported>("tx_max"),
    param<ETHTOOL_A_CHANNELS_OTHER_MAX, &ChannelsInfo::otherMax, Wire::Reported>("other_max"),
    param<ETHTOOL_A_CHANNELS_COMBINED_MAX, &ChannelsInfo::combinedMax, Wire::Reported>("combined_max"),
    param<ETHTOOL_A_CHANNELS_RX_COUNT, &ChannelsInfo::rx>("rx"),
    param<ETHTOOL_A_CHANNELS_TX_COUNT, &ChannelsInfo::tx>("tx"),
    param<ETHTOOL_A_CHANNELS_OTHER_COUNT, &ChannelsInfo::other>("other"),
    param<ETHTOOL_A_CHANNELS_COMBINED_COUNT, &ChannelsInfo::combined>("combined"),
});

inline constexpr auto kRings = params<RingsInfo>({
    param<ETHTOOL_A_RINGS_RX_MAX, &RingsInfo::rxMax, Wire::Reported>("rx_max"),
    param<ETHTOOL_A_RINGS_RX_MINI_MAX, &RingsInfo::rxMiniMax, Wire::Reported>("rx_mini_max"),
    param<ETHTOOL_A_RINGS_RX_JUMBO_MAX, &RingsInfo::rxJumboMax, Wire::Reported>("rx_jumbo_max"),
    param<ETHTOOL_A_RINGS_TX_MAX, &RingsInfo::txMax, Wire::Reported>("tx_max"),
    param<ETHTOOL_A_RINGS_RX, &RingsInfo::rx>("rx"),
    param<ETHTOOL_A_RINGS_RX_MINI, &RingsInfo::rxMini>("rx-mini", "rx_mini"),
    param<ETHTOOL_A_RINGS_RX_JUMBO, &RingsInfo::rxJumbo>("rx-jumbo", "rx_jumbo"),
    param<ETHTOOL_A_RINGS_TX, &RingsInfo::tx>("tx"),
    param<ETHTOOL_A_RINGS_RX_BUF_LEN, &RingsInfo::rxBufLen>("rx-buf-len", "rx_buf_len"),
    param<ETHTOOL_A_RINGS_CQE_SIZE, &RingsInfo::cqeSize>("cqe-size", "cqe_size"),
    param<ETHTOOL_A_RINGS_TX_PUSH, &RingsInfo::txPush>("tx-push", "tx_push"),
    param<ETHTOOL_A_RINGS_TCP_DATA_SPLIT, &RingsInfo::tcpDataSplit, Wire::Reported>("tcp_data_split"),
});

// In the kernel's attribute order (the order a SET carries them, and of the JSON keys).
inline constexpr auto kCoalesce = params<CoalesceInfo>({
    param<ETHTOOL_A_COALESCE_RX_USECS, &CoalesceInfo::rxUsecs>("rx-usecs"),
    param<ETHTOOL_A_COALESCE_RX_MAX_FRAMES, &CoalesceInfo::rxMaxFrames>("rx-frames"),
    param<ETHTOOL_A_COALESCE_RX_USECS_IRQ, &CoalesceInfo::rxUsecsIrq>("rx-usecs-irq"),
    param<ETHTOOL_A_COALESCE_RX_MAX_FRAMES_IRQ, &CoalesceInfo::rxMaxFramesIrq>("rx-frames-irq"),
    param<ETHTOOL_A_COALESCE_TX_USECS, &CoalesceInfo::txUsecs>("tx-usecs"),
    param<ETHTOOL_A_COALESCE_TX_MAX_FRAMES, &CoalesceInfo::txMaxFrames>("tx-frames"),
    param<ETHTOOL_A_COALESCE_TX_USECS_IRQ, &CoalesceInfo::txUsecsIrq>("tx-usecs-irq"),
    param<ETHTOOL_A_COALESCE_TX_MAX_FRAMES_IRQ, &CoalesceInfo::txMaxFramesIrq>("tx-frames-irq"),
    param<ETHTOOL_A_COALESCE_STATS_BLOCK_USECS, &CoalesceInfo::statsBlockUsecs>("stats-block-usecs"),
    param<ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX, &CoalesceInfo::adaptiveRx>("adaptive-rx"),
    param<ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX, &CoalesceInfo::adaptiveTx>("adaptive-tx"),
    param<ETHTOOL_A_COALESCE_PKT_RATE_LOW, &CoalesceInfo::pktRateLow>("pkt-rate-low"),
    param<ETHTOOL_A_COALESCE_RX_USECS_LOW, &CoalesceInfo::rxUsecsLow>("rx-usecs-low"),
    param<ETHTOOL_A_COALESCE_RX_MAX_FRAMES_LOW, &CoalesceInfo::rxMaxFramesLow>("rx-frames-low"),
    param<ETHTOOL_A_COALESCE_TX_USECS_LOW, &CoalesceInfo::txUsecsLow>("tx-usecs-low"),
    param<ETHTOOL_A_COALESCE_TX_MAX_FRAMES_LOW, &CoalesceInfo::txMaxFramesLow>("tx-frames-low"),
    param<ETHTOOL_A_COALESCE_PKT_RATE_HIGH, &CoalesceInfo::pktRateHigh>("pkt-rate-high"),
    param<ETHTOOL_A_COALESCE_RX_USECS_HIGH, &CoalesceInfo::rxUsecsHigh>("rx-usecs-high"),
    param<ETHTOOL_A_COALESCE_RX_MAX_FRAMES_HIGH, &CoalesceInfo::rxMaxFramesHigh>("rx-frames-high"),
    param<ETHTOOL_A_COALESCE_TX_USECS_HIGH, &CoalesceInfo::txUsecsHigh>("tx-usecs-high"),
    param<ETHTOOL_A_COALESCE_TX_MAX_FRAMES_HIGH, &CoalesceInfo::txMaxFramesHigh>("tx-frames-high"),
    param<ETHTOOL_A_COALESCE_RATE_SAMPLE_INTERVAL, &CoalesceInfo::rateSampleInterval>("sample-interval"),
    param<ETHTOOL_A_COALESCE_USE_CQE_MODE_TX, &CoalesceInfo::cqeModeTx>("cqe-mode-tx"),
    param<ETHTOOL_A_COALESCE_USE_CQE_MODE_RX, &CoalesceInfo::cqeModeRx>("cqe-mode-rx"),
});

// ethtool -A's words; the JSON keys are ethtool 6.1's (`ethtool --json -a`).
inline constexpr auto kPause = params<PauseInfo>({
    param<ETHTOOL_A_PAUSE_AUTONEG, &PauseInfo::autoneg>("autoneg", "autonegotiate"),
    param<ETHTOOL_A_PAUSE_RX, &PauseInfo::rx>("rx"),
    param<ETHTOOL_A_PAUSE_TX, &PauseInfo::tx>("tx"),
});

/// Decoders of one reply message each (genl header included); throw Error(malformed_reply)
/// on a short message.
ChannelsInfo decodeChannels(const nlmsghdr* message);
RingsInfo decodeRings(const nlmsghdr* message);
CoalesceInfo decodeCoalesce(const nlmsghdr* message);
LinkModesInfo decodeLinkModes(const nlmsghdr* message);
LinkInfoSettings decodeLinkInfo(const nlmsghdr* message);
LinkStateInfo decodeLinkState(const nlmsghdr* message);
WolInfo decodeWol(const nlmsghdr* message);
DebugInfo decodeDebug(const nlmsghdr* message);
PauseInfo decodePause(const nlmsghdr* message);
TsInfo decodeTsInfo(const nlmsghdr* message);
/// FEC_GET_REPLY: the FEC link mode bits as ETHTOOL_FEC_* bits; a counter of the statistics nest
/// whose payload is not whole u64s is Error(malformed_reply).
FecSettings decodeFec(const nlmsghdr* message);
/// TUNNEL_INFO_GET_REPLY; `typeNames` is the ETH_SS_UDP_TUNNEL_TYPES string set, which names an
/// entry's type (a number the set lacks: "type N"). An entry without its port or type, or a
/// table without its size, is Error(malformed_reply), as ethtool reports it.
TunnelOffloadInfo decodeTunnelInfo(const nlmsghdr* message, const std::vector<std::string>& typeNames);

/// The SET requests' encoders: the set members by the message's table (after the header).
void encode(core::MessageWriter& w, const ChannelsInfo& channels);
void encode(core::MessageWriter& w, const RingsInfo& rings);
void encode(core::MessageWriter& w, const CoalesceInfo& coalesce);
void encode(core::MessageWriter& w, const PauseInfo& pause);
void encode(core::MessageWriter& w, const LinkModesInfo& modes);
void encode(core::MessageWriter& w, const LinkInfoSettings& info);
void encode(core::MessageWriter& w, const WolInfo& wol);
void encode(core::MessageWriter& w, const DebugInfo& debug);
/// FEC_SET: the modes as a bitset of FEC link mode bits without a mask (the whole set), `auto`.
void encode(core::MessageWriter& w, const FecSettings& fec);
/// FEATURES_GET_REPLY; `names` is the ETH_SS_FEATURES string set (bit index -> name). Bits
/// without a name are named by verbose bitsets if present, else left out (unused bits).
FeaturesInfo decodeFeatures(const nlmsghdr* message, const std::vector<std::string>& names);
/// STRSET_GET_REPLY: the strings of the first string set in it, indexed by string index.
std::vector<std::string> decodeStringSet(const nlmsghdr* message);
/// STATS_GET_REPLY; `groupNames` and `counterNames(ssId)` name what the kernel numbers.
struct RawStatsGroup {
  uint32_t id = 0;
  uint32_t stringSet = 0;
  std::vector<std::pair<uint32_t, uint64_t>> counters;  ///< counter index, value
};
std::vector<RawStatsGroup> decodeStats(const nlmsghdr* message);

}  // namespace fastlink::genl
