// ethtool family codec: request encoding helpers and reply decoders (pure, no I/O), shared by
// src/ethtool/ethtool.cpp, the unit tests and the fuzz harness.
#pragma once

#include <linux/ethtool_netlink.h>
#include <linux/netlink.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

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

/// One field of an ethtool message as data: its attribute and the optional member it fills.
/// Decoders read every field; `settable` ones are what a SET request writes (in table order).
template <class T>
struct EthtoolField {
  uint16_t type;
  std::variant<std::optional<uint32_t> T::*, std::optional<uint8_t> T::*, std::optional<bool> T::*> member;
  bool settable = true;
};

inline constexpr EthtoolField<ChannelsInfo> kChannelsFields[] = {
    {ETHTOOL_A_CHANNELS_RX_MAX, &ChannelsInfo::rxMax, false},
    {ETHTOOL_A_CHANNELS_TX_MAX, &ChannelsInfo::txMax, false},
    {ETHTOOL_A_CHANNELS_OTHER_MAX, &ChannelsInfo::otherMax, false},
    {ETHTOOL_A_CHANNELS_COMBINED_MAX, &ChannelsInfo::combinedMax, false},
    {ETHTOOL_A_CHANNELS_RX_COUNT, &ChannelsInfo::rx},
    {ETHTOOL_A_CHANNELS_TX_COUNT, &ChannelsInfo::tx},
    {ETHTOOL_A_CHANNELS_OTHER_COUNT, &ChannelsInfo::other},
    {ETHTOOL_A_CHANNELS_COMBINED_COUNT, &ChannelsInfo::combined},
};

inline constexpr EthtoolField<RingsInfo> kRingsFields[] = {
    {ETHTOOL_A_RINGS_RX_MAX, &RingsInfo::rxMax, false},
    {ETHTOOL_A_RINGS_RX_MINI_MAX, &RingsInfo::rxMiniMax, false},
    {ETHTOOL_A_RINGS_RX_JUMBO_MAX, &RingsInfo::rxJumboMax, false},
    {ETHTOOL_A_RINGS_TX_MAX, &RingsInfo::txMax, false},
    {ETHTOOL_A_RINGS_RX, &RingsInfo::rx},
    {ETHTOOL_A_RINGS_RX_MINI, &RingsInfo::rxMini},
    {ETHTOOL_A_RINGS_RX_JUMBO, &RingsInfo::rxJumbo},
    {ETHTOOL_A_RINGS_TX, &RingsInfo::tx},
    {ETHTOOL_A_RINGS_RX_BUF_LEN, &RingsInfo::rxBufLen},
    {ETHTOOL_A_RINGS_TCP_DATA_SPLIT, &RingsInfo::tcpDataSplit, false},
    {ETHTOOL_A_RINGS_CQE_SIZE, &RingsInfo::cqeSize},
    {ETHTOOL_A_RINGS_TX_PUSH, &RingsInfo::txPush},
};

inline constexpr EthtoolField<CoalesceInfo> kCoalesceFields[] = {
    {ETHTOOL_A_COALESCE_RX_USECS, &CoalesceInfo::rxUsecs},
    {ETHTOOL_A_COALESCE_RX_MAX_FRAMES, &CoalesceInfo::rxMaxFrames},
    {ETHTOOL_A_COALESCE_RX_USECS_IRQ, &CoalesceInfo::rxUsecsIrq},
    {ETHTOOL_A_COALESCE_RX_MAX_FRAMES_IRQ, &CoalesceInfo::rxMaxFramesIrq},
    {ETHTOOL_A_COALESCE_TX_USECS, &CoalesceInfo::txUsecs},
    {ETHTOOL_A_COALESCE_TX_MAX_FRAMES, &CoalesceInfo::txMaxFrames},
    {ETHTOOL_A_COALESCE_TX_USECS_IRQ, &CoalesceInfo::txUsecsIrq},
    {ETHTOOL_A_COALESCE_TX_MAX_FRAMES_IRQ, &CoalesceInfo::txMaxFramesIrq},
    {ETHTOOL_A_COALESCE_STATS_BLOCK_USECS, &CoalesceInfo::statsBlockUsecs},
    {ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX, &CoalesceInfo::adaptiveRx},
    {ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX, &CoalesceInfo::adaptiveTx},
    {ETHTOOL_A_COALESCE_PKT_RATE_LOW, &CoalesceInfo::pktRateLow},
    {ETHTOOL_A_COALESCE_RX_USECS_LOW, &CoalesceInfo::rxUsecsLow},
    {ETHTOOL_A_COALESCE_RX_MAX_FRAMES_LOW, &CoalesceInfo::rxMaxFramesLow},
    {ETHTOOL_A_COALESCE_TX_USECS_LOW, &CoalesceInfo::txUsecsLow},
    {ETHTOOL_A_COALESCE_TX_MAX_FRAMES_LOW, &CoalesceInfo::txMaxFramesLow},
    {ETHTOOL_A_COALESCE_PKT_RATE_HIGH, &CoalesceInfo::pktRateHigh},
    {ETHTOOL_A_COALESCE_RX_USECS_HIGH, &CoalesceInfo::rxUsecsHigh},
    {ETHTOOL_A_COALESCE_RX_MAX_FRAMES_HIGH, &CoalesceInfo::rxMaxFramesHigh},
    {ETHTOOL_A_COALESCE_TX_USECS_HIGH, &CoalesceInfo::txUsecsHigh},
    {ETHTOOL_A_COALESCE_TX_MAX_FRAMES_HIGH, &CoalesceInfo::txMaxFramesHigh},
    {ETHTOOL_A_COALESCE_RATE_SAMPLE_INTERVAL, &CoalesceInfo::rateSampleInterval},
    {ETHTOOL_A_COALESCE_USE_CQE_MODE_TX, &CoalesceInfo::cqeModeTx},
    {ETHTOOL_A_COALESCE_USE_CQE_MODE_RX, &CoalesceInfo::cqeModeRx},
};

template <class T, std::size_t N>
void readFields(const core::AttrTable& t, T& out, const EthtoolField<T> (&fields)[N]) {
  for (const auto& f : fields)
    std::visit([&](auto m) {
      const nlattr* a = t.get(f.type);
      if (!a) return;
      if constexpr (std::is_same_v<decltype(out.*m), std::optional<uint32_t>&>) out.*m = core::readU32(a);
      else if constexpr (std::is_same_v<decltype(out.*m), std::optional<bool>&>) out.*m = core::readU8(a) != 0;
      else out.*m = core::readU8(a);
    }, f.member);
}

template <class T, std::size_t N>
void putFields(core::MessageWriter& w, const T& in, const EthtoolField<T> (&fields)[N]) {
  for (const auto& f : fields)
    std::visit([&](auto m) {
      const auto& v = in.*m;
      if (!f.settable || !v) return;
      if constexpr (std::is_same_v<decltype(*v), const uint32_t&>) w.putU32(f.type, *v);
      else w.putU8(f.type, static_cast<uint8_t>(*v));
    }, f.member);
}

/// True when a SET request would change something.
template <class T, std::size_t N>
bool anySettable(const T& in, const EthtoolField<T> (&fields)[N]) {
  for (const auto& f : fields)
    if (f.settable && std::visit([&](auto m) { return (in.*m).has_value(); }, f.member)) return true;
  return false;
}

/// Decoders of one reply message each (genl header included); throw Error(malformed_reply)
/// on a short message.
ChannelsInfo decodeChannels(const nlmsghdr* message);
RingsInfo decodeRings(const nlmsghdr* message);
CoalesceInfo decodeCoalesce(const nlmsghdr* message);
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
