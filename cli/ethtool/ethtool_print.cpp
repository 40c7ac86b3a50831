// ethtool objects as text (ethtool 6.1's layout) and JSON; see ethtool_print.hpp.
#include "ethtool/ethtool_print.hpp"

#include <fmt/format.h>

#include <vector>

namespace fastlink::cli {
namespace {

constexpr LegacyGroup kLegacy[] = {
    {"rx", "rx-checksumming", "rx-checksum"},
    {"tx", "tx-checksumming", "tx-checksum-*"},
    {"sg", "scatter-gather", "tx-scatter-gather*"},
    {"tso", "tcp-segmentation-offload", "tx-tcp*-segmentation"},
    {"ufo", "udp-fragmentation-offload", "tx-udp-fragmentation"},
    {"gso", "generic-segmentation-offload", "tx-generic-segmentation"},
    {"gro", "generic-receive-offload", "rx-gro"},
    {"lro", "large-receive-offload", "rx-lro"},
    {"rxvlan", "rx-vlan-offload", "rx-vlan-hw-parse"},
    {"txvlan", "tx-vlan-offload", "tx-vlan-hw-insert"},
    {"ntuple", "ntuple-filters", "rx-ntuple-filter"},
    {"rxhash", "receive-hashing", "rx-hashing"},
};

std::string opt(const std::optional<uint32_t>& v) { return v ? std::to_string(*v) : "n/a"; }
std::string onOff(const std::optional<bool>& v) { return v ? (*v ? "on" : "off") : "n/a"; }

std::string featureLine(const std::string& prefix, const std::string& name, bool active, bool fixed, bool wanted) {
  std::string suffix;
  if (fixed) suffix = " [fixed]";
  else if (active != wanted) suffix = wanted ? " [requested on]" : " [requested off]";
  return fmt::format("{}{}: {}{}\n", prefix, name, active ? "on" : "off", suffix);
}

}  // namespace

std::span<const LegacyGroup> legacyFeatureGroups() { return kLegacy; }

bool matchesFeaturePattern(std::string_view name, std::string_view pattern) {
  auto star = pattern.find('*');
  if (star == std::string_view::npos) return name == pattern;
  std::string_view head = pattern.substr(0, star), tail = pattern.substr(star + 1);
  return name.size() >= head.size() + tail.size() && name.starts_with(head) && name.ends_with(tail);
}

// ---- text ----------------------------------------------------------------------------------

std::string channelsText(std::string_view dev, const ChannelsInfo& c) {
  return fmt::format("Channel parameters for {}:\nPre-set maximums:\nRX:\t\t{}\nTX:\t\t{}\nOther:\t\t{}\n"
                     "Combined:\t{}\nCurrent hardware settings:\nRX:\t\t{}\nTX:\t\t{}\nOther:\t\t{}\n"
                     "Combined:\t{}\n",
                     dev, opt(c.rxMax), opt(c.txMax), opt(c.otherMax), opt(c.combinedMax), opt(c.rx), opt(c.tx),
                     opt(c.other), opt(c.combined));
}

std::string ringsText(std::string_view dev, const RingsInfo& g) {
  std::string s = fmt::format(
      "Ring parameters for {}:\nPre-set maximums:\nRX:\t\t{}\nRX Mini:\t{}\nRX Jumbo:\t{}\nTX:\t\t{}\n"
      "Current hardware settings:\nRX:\t\t{}\nRX Mini:\t{}\nRX Jumbo:\t{}\nTX:\t\t{}\n"
      "RX Buf Len:\t\t{}\nCQE Size:\t\t{}\nTX Push:\t{}\n",
      dev, opt(g.rxMax), opt(g.rxMiniMax), opt(g.rxJumboMax), opt(g.txMax), opt(g.rx), opt(g.rxMini), opt(g.rxJumbo),
      opt(g.tx), opt(g.rxBufLen), opt(g.cqeSize), onOff(g.txPush));
  // ethtool 6.1 prints this line even when the kernel leaves the attribute out (6.1 sends it
  // only when the driver knows), as "n/a", like the value 0 (unknown).
  static const char* kSplit[] = {"n/a", "off", "on"};
  uint8_t split = g.tcpDataSplit.value_or(0);
  s += fmt::format("TCP data split:\t{}\n", split < 3 ? kSplit[split] : "unknown");
  return s;
}

std::string featuresText(std::string_view dev, const FeaturesInfo& info) {
  std::string s = fmt::format("Features for {}:\n", dev);
  std::vector<bool> shown(info.features.size(), false);
  for (const auto& g : kLegacy) {
    std::vector<std::size_t> hits;
    for (std::size_t i = 0; i < info.features.size(); ++i)
      if (matchesFeaturePattern(info.features[i].name, g.pattern)) hits.push_back(i);
    if (hits.empty()) continue;
    if (hits.size() == 1) {
      const Feature& f = info.features[hits[0]];
      s += featureLine("", g.longName, f.active, f.fixed(), f.wanted);
    } else {
      // ethtool prints a group's line with no [fixed]/[requested] suffix: on if any is on.
      bool any = false;
      for (auto i : hits) any = any || info.features[i].active;
      s += fmt::format("{}: {}\n", g.longName, any ? "on" : "off");
      for (auto i : hits) {
        const Feature& f = info.features[i];
        s += featureLine("\t", f.name, f.active, f.fixed(), f.wanted);
      }
    }
    for (auto i : hits) shown[i] = true;
  }
  for (std::size_t i = 0; i < info.features.size(); ++i) {
    const Feature& f = info.features[i];
    if (!shown[i]) s += featureLine("", f.name, f.active, f.fixed(), f.wanted);
  }
  return s;
}

std::string coalesceText(std::string_view dev, const CoalesceInfo& c) {
  std::string s = fmt::format("Coalesce parameters for {}:\nAdaptive RX: {}  TX: {}\n", dev, onOff(c.adaptiveRx),
                              onOff(c.adaptiveTx));
  s += fmt::format("stats-block-usecs: {}\nsample-interval: {}\npkt-rate-low: {}\npkt-rate-high: {}\n\n",
                   opt(c.statsBlockUsecs), opt(c.rateSampleInterval), opt(c.pktRateLow), opt(c.pktRateHigh));
  s += fmt::format("rx-usecs: {}\nrx-frames: {}\nrx-usecs-irq: {}\nrx-frames-irq: {}\n\n", opt(c.rxUsecs),
                   opt(c.rxMaxFrames), opt(c.rxUsecsIrq), opt(c.rxMaxFramesIrq));
  s += fmt::format("tx-usecs: {}\ntx-frames: {}\ntx-usecs-irq: {}\ntx-frames-irq: {}\n\n", opt(c.txUsecs),
                   opt(c.txMaxFrames), opt(c.txUsecsIrq), opt(c.txMaxFramesIrq));
  s += fmt::format("rx-usecs-low: {}\nrx-frame-low: {}\ntx-usecs-low: {}\ntx-frame-low: {}\n\n", opt(c.rxUsecsLow),
                   opt(c.rxMaxFramesLow), opt(c.txUsecsLow), opt(c.txMaxFramesLow));
  s += fmt::format("rx-usecs-high: {}\nrx-frame-high: {}\ntx-usecs-high: {}\ntx-frame-high: {}\n\n",
                   opt(c.rxUsecsHigh), opt(c.rxMaxFramesHigh), opt(c.txUsecsHigh), opt(c.txMaxFramesHigh));
  s += fmt::format("CQE mode RX: {}  TX: {}\n\n", onOff(c.cqeModeRx), onOff(c.cqeModeTx));
  return s;
}

// ---- JSON ----------------------------------------------------------------------------------

nlohmann::ordered_json featuresJson(std::string_view dev, const FeaturesInfo& info) {
  nlohmann::ordered_json features = nlohmann::ordered_json::object();
  for (const auto& f : info.features)
    features[f.name] = {{"active", f.active}, {"fixed", f.fixed()}, {"requested", f.wanted}};
  return {{"ifname", std::string(dev)}, {"features", features}};
}


}  // namespace fastlink::cli
