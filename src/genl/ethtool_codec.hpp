// ethtool family codec: request encoding helpers and reply decoders (pure, no I/O), shared by
// src/genl/ethtool.cpp, the unit tests and the fuzz harness.
#pragma once

#include <linux/netlink.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

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
