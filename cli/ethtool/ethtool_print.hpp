// The ethtool objects as the `ethtool` program prints them (6.1's -l, -g, -k, -c text) and as
// fastlink's JSON: shared by `fastlink ethtool` (the show commands) and `fastlink monitor
// ethtool` (whose notifications ethtool --monitor prints with the same text).
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "fastlink/ethtool.hpp"

namespace fastlink::cli {

/// ethtool's legacy feature groups: a long name printed over the kernel features it matches
/// (a '*' in the pattern matches any run of characters), and the short name -K accepts.
struct LegacyGroup {
  const char* shortName;
  const char* longName;
  const char* pattern;
};
std::span<const LegacyGroup> legacyFeatureGroups();
/// `name` matches a LegacyGroup pattern.
bool matchesFeaturePattern(std::string_view name, std::string_view pattern);

/// `ethtool -l DEV`, `-g`, `-k`, `-c` text (each ends with a newline).
std::string channelsText(std::string_view dev, const ChannelsInfo& c);
std::string ringsText(std::string_view dev, const RingsInfo& g);
std::string featuresText(std::string_view dev, const FeaturesInfo& info);
std::string coalesceText(std::string_view dev, const CoalesceInfo& c);

/// What `ethtool DEV` prints: `out` on stdout; `err` on stderr and `status` where ethtool 6.1
/// fails part-way (a link partner's FEC modes: its bitset has no mask, which 6.1 cannot print);
/// "No data available" with status 75 when the driver reports nothing.
struct EthtoolOutput {
  std::string out, err;
  int status = 0;
};
EthtoolOutput linkSettingsText(std::string_view dev, const LinkSettings& s);
/// The kernel link modes `ethtool -s DEV autoneg on` advertises when given no mode: every
/// supported one that is a speed/duplex (not a port, pause, FEC or autoneg bit), as ethtool does.
BitsetChange speedModes(const std::vector<LinkMode>& ours);
/// `ethtool -i DEV`, `-T DEV`, `-P DEV` text.
std::string driverInfoText(const DriverInfo& d);
std::string tsInfoText(std::string_view dev, const TsInfo& t);
std::string permanentAddressText(std::optional<std::span<const uint8_t>> address);
/// `ethtool -a DEV`: `negotiated` (rx, tx) when autonegotiation is on and both ends' modes are known.
std::string pauseText(std::string_view dev, const PauseInfo& p, std::optional<std::pair<bool, bool>> negotiated);
/// `statistics`: asked with -I (the kernel then always sends the statistics nest).
nlohmann::ordered_json pauseJson(std::string_view dev, const PauseInfo& p, std::optional<std::pair<bool, bool>> negotiated,
                                 bool statistics = false);
/// `ethtool --show-fec DEV` (with -I, the statistics the driver keeps), as 6.1 prints it.
std::string fecText(std::string_view dev, const FecSettings& fec);
/// `ethtool --json --show-fec DEV`: "config" and "active" arrays of 6.1's names, "statistics"
/// whenever the kernel sent the nest (-I).
nlohmann::ordered_json fecJson(std::string_view dev, const FecSettings& fec);
/// `ethtool --show-tunnels DEV` as 6.1 prints it (6.1 has no JSON for it).
std::string tunnelInfoText(std::string_view dev, const TunnelOffloadInfo& info);
/// The pause modes the two ends agree on (ethtool's rule over the Pause and Asym_Pause bits).
std::optional<std::pair<bool, bool>> negotiatedPause(const LinkModesInfo& modes);

/// {"ifname": DEV, KEY: value, ...}: the set members under their keys in the library's table
/// (ethtoolSettings): `ethtool --json -a` and `fastlink monitor ethtool`'s JSON.
template <class Info>
nlohmann::ordered_json settingsJson(std::string_view dev, const Info& info) {
  nlohmann::ordered_json j{{"ifname", std::string(dev)}};
  for (const auto& p : ethtoolSettings(info))
    std::visit([&](auto member) {
      if (const auto& v = info.*member) j[p.json] = *v;
    }, p.member);
  return j;
}
/// fastlink's JSON of a feature set ({"ifname", "features": {NAME: {active, fixed, requested}}}),
/// for `fastlink monitor ethtool`.
nlohmann::ordered_json featuresJson(std::string_view dev, const FeaturesInfo& info);
/// `ethtool --json -k DEV` as ethtool 6.1 prints it: the text's entries in its order, a legacy
/// group heading with "fixed" and "requested" null.
nlohmann::ordered_json featuresEthtoolJson(std::string_view dev, const FeaturesInfo& info);
/// `ethtool --json -S DEV --all-groups|--groups ...`: each group the kernel sent, {} when empty.
nlohmann::ordered_json statsEthtoolJson(std::string_view dev, std::span<const StatsGroup> groups);

}  // namespace fastlink::cli
