// Words of a device that both `link show` and the monitor print, as iproute2 spells them.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fastlink::cli {

inline constexpr uint32_t kIffUp = 1u << 0;
inline constexpr uint32_t kIffRunning = 1u << 6;  // never printed, like iproute2

/// Device flag bits (the interface flags ABI of <linux/if.h>), in the order `ip link` prints them;
/// names as string_views, their lengths constants (every device prints 3-5 of them).
inline constexpr std::pair<uint32_t, std::string_view> kLinkFlagNames[] = {
    {1u << 3, "LOOPBACK"}, {1u << 1, "BROADCAST"},  {1u << 4, "POINTOPOINT"}, {1u << 12, "MULTICAST"},
    {1u << 7, "NOARP"},    {1u << 9, "ALLMULTI"},   {1u << 8, "PROMISC"},     {1u << 10, "MASTER"},
    {1u << 11, "SLAVE"},   {1u << 2, "DEBUG"},      {1u << 15, "DYNAMIC"},    {1u << 14, "AUTOMEDIA"},
    {1u << 13, "PORTSEL"}, {1u << 5, "NOTRAILERS"}, {1u << 0, "UP"},          {1u << 16, "LOWER_UP"},
    {1u << 17, "DORMANT"}, {1u << 18, "ECHO"}};

/// The words ip prints for device flags, in its order, each handed to `word`: NO-CARRIER for
/// an up device without carrier, bits it has no name for as one hex word, M-DOWN when the lower
/// device is down.
template <class Word>
void forEachLinkFlagWord(uint32_t flags, bool lowerDown, Word&& word) {
  if ((flags & kIffUp) && !(flags & kIffRunning)) word("NO-CARRIER");
  flags &= ~kIffRunning;
  for (const auto& [bit, name] : kLinkFlagNames) {
    if (!flags) break;  // every bit set is named: the rest of the table names none
    if (flags & bit) word(name);
    flags &= ~bit;
  }
  if (flags) word(fmt::format("{:x}", flags));
  if (lowerDown) word("M-DOWN");
}

inline std::vector<std::string> linkFlagNames(uint32_t flags, bool lowerDown) {
  std::vector<std::string> out;
  forEachLinkFlagWord(flags, lowerDown, [&](std::string_view w) { out.emplace_back(w); });
  return out;
}

}  // namespace fastlink::cli
