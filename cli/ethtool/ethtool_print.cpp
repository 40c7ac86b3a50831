// ethtool objects as text (ethtool 6.1's layout) and JSON; see ethtool_print.hpp.
#include "ethtool/ethtool_print.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>

#include <algorithm>
#include <initializer_list>
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

nlohmann::ordered_json featureJson(const Feature& f) {
  return {{"active", f.active}, {"fixed", f.fixed()}, {"requested", f.wanted}};
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

namespace {

// ethtool 6.1's order of `-k` (netlink/features.c): each legacy group but "udp-fragmentation-
// offload" (no netlink kernel has UFO) with its kernel features, then every other feature.
// A group matching one feature is that feature under the group's name; a group matching none
// or several is a heading (`onGroup`, on when any member is) over its members (`onFeature`
// with prefix "\t"). Text and --json walk the same order.
template <class OnGroup, class OnFeature>
void walkFeatures(const FeaturesInfo& info, OnGroup onGroup, OnFeature onFeature) {
  std::vector<bool> shown(info.features.size(), false);
  for (const auto& g : kLegacy) {
    if (std::string_view(g.shortName) == "ufo") continue;
    std::vector<std::size_t> hits;
    for (std::size_t i = 0; i < info.features.size(); ++i)
      if (!shown[i] && matchesFeaturePattern(info.features[i].name, g.pattern)) hits.push_back(i);
    bool any = false;
    for (auto i : hits) any = any || info.features[i].active;
    if (hits.size() != 1) onGroup(g.longName, any);
    for (auto i : hits) {
      shown[i] = true;
      if (hits.size() == 1) onFeature("", g.longName, info.features[i]);
      else onFeature("\t", info.features[i].name, info.features[i]);
    }
  }
  for (std::size_t i = 0; i < info.features.size(); ++i)
    if (!shown[i]) onFeature("", info.features[i].name, info.features[i]);
}

}  // namespace

std::string featuresText(std::string_view dev, const FeaturesInfo& info) {
  std::string s = fmt::format("Features for {}:\n", dev);
  walkFeatures(
      info, [&](const char* group, bool on) { s += fmt::format("{}: {}\n", group, on ? "on" : "off"); },
      [&](const char* prefix, const std::string& name, const Feature& f) {
        s += featureLine(prefix, name, f.active, f.fixed(), f.wanted);
      });
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
  for (const auto& f : info.features) features[f.name] = featureJson(f);
  return {{"ifname", std::string(dev)}, {"features", features}};
}

nlohmann::ordered_json featuresEthtoolJson(std::string_view dev, const FeaturesInfo& info) {
  nlohmann::ordered_json j{{"ifname", std::string(dev)}};
  walkFeatures(
      info, [&](const char* group, bool on) { j[group] = {{"active", on}, {"fixed", nullptr}, {"requested", nullptr}}; },
      [&](const char*, const std::string& name, const Feature& f) { j[name] = featureJson(f); });
  return j;
}

nlohmann::ordered_json statsEthtoolJson(std::string_view dev, std::span<const StatsGroup> groups) {
  nlohmann::ordered_json j{{"ifname", std::string(dev)}};
  for (const auto& g : groups) {
    nlohmann::ordered_json counters = nlohmann::ordered_json::object();
    for (const auto& [name, value] : g.counters) counters[name] = value;
    j[g.name] = counters;
  }
  return j;
}

// ---- ethtool DEV (link settings), -i, -T, -P, -a -------------------------------------------

namespace {

// ethtool's classes of link mode bits: only speed/duplex modes are "link modes"; the others
// are ports, pause, FEC and autoneg, printed on lines of their own.
enum class ModeClass { Speed, Port, Autoneg, Pause, Fec };

ModeClass classOf(uint32_t bit) {
  switch (bit) {
    case ETHTOOL_LINK_MODE_TP_BIT:
    case ETHTOOL_LINK_MODE_AUI_BIT:
    case ETHTOOL_LINK_MODE_MII_BIT:
    case ETHTOOL_LINK_MODE_FIBRE_BIT:
    case ETHTOOL_LINK_MODE_BNC_BIT:
    case ETHTOOL_LINK_MODE_Backplane_BIT: return ModeClass::Port;
    case ETHTOOL_LINK_MODE_Autoneg_BIT: return ModeClass::Autoneg;
    case ETHTOOL_LINK_MODE_Pause_BIT:
    case ETHTOOL_LINK_MODE_Asym_Pause_BIT: return ModeClass::Pause;
    case ETHTOOL_LINK_MODE_FEC_NONE_BIT:
    case ETHTOOL_LINK_MODE_FEC_RS_BIT:
    case ETHTOOL_LINK_MODE_FEC_BASER_BIT:
    case ETHTOOL_LINK_MODE_FEC_LLRS_BIT: return ModeClass::Fec;
    default: return ModeClass::Speed;
  }
}

bool halfDuplex(uint32_t bit) {
  return bit == ETHTOOL_LINK_MODE_10baseT_Half_BIT || bit == ETHTOOL_LINK_MODE_100baseT_Half_BIT ||
         bit == ETHTOOL_LINK_MODE_1000baseT_Half_BIT || bit == ETHTOOL_LINK_MODE_100baseFX_Half_BIT;
}

bool hasMode(const std::vector<LinkMode>& modes, uint32_t bit, bool supported) {
  for (const auto& m : modes)
    if (m.bit == bit) return supported ? m.supported : m.advertised;
  return false;
}

// One list of modes of a class, as ethtool lays it out: the supported ones (its "mask") or the
// advertised ones; a mode follows its half-duplex twin on the same line, others on a line of
// their own aligned under the first, or after `between` when there is one.
void modeList(std::string& s, const std::vector<LinkMode>& modes, bool supported, ModeClass cls,
              std::string_view before, const char* between, std::string_view after, const char* ifNone) {
  s += '\t';
  s += before;
  bool first = true;
  uint32_t prev = 0;
  for (const auto& m : modes) {
    if (!(supported ? m.supported : m.advertised) || classOf(m.bit) != cls) continue;
    if (!first) {
      if (cls == ModeClass::Speed && m.bit == prev + 1 && halfDuplex(prev)) s += ' ';
      else if (between) s += fmt::format("\t{}", between);
      else s += fmt::format("\n\t{:{}}", "", before.size());
    }
    first = false;
    s += m.name;
    prev = m.bit;
  }
  if (first && ifNone) s += ifNone;
  s += after;
}

/// The pause line and the auto-negotiation line that follows it: "\tLABEL pause frame use: ...",
/// "\tAUTONEG auto-negotiation: Yes|No".
void pauseLines(std::string& s, const std::vector<LinkMode>& modes, bool supported, std::string_view label,
                std::string_view autoneg) {
  bool pause = hasMode(modes, ETHTOOL_LINK_MODE_Pause_BIT, supported);
  bool asym = hasMode(modes, ETHTOOL_LINK_MODE_Asym_Pause_BIT, supported);
  s += fmt::format("\t{} pause frame use: {}\n", label,
                   pause ? (asym ? "Symmetric Receive-only" : "Symmetric") : (asym ? "Transmit-only" : "No"));
  s += fmt::format("\t{} auto-negotiation: {}\n", autoneg, hasMode(modes, ETHTOOL_LINK_MODE_Autoneg_BIT, supported) ? "Yes" : "No");
}

// "\tLABEL: NAME", or ethtool's "Unknown! (N)" for a value it has no name for.
using Named = std::pair<unsigned, const char*>;

/// `value`'s name in `names`, or nullptr.
const char* nameOf(std::span<const Named> names, unsigned value) {
  for (const auto& [v, name] : names)
    if (v == value) return name;
  return nullptr;
}

std::string enumLine(std::string_view label, unsigned value, std::initializer_list<Named> names) {
  const char* name = nameOf(names, value);
  return name ? fmt::format("\t{}: {}\n", label, name) : fmt::format("\t{}: Unknown! ({})\n", label, value);
}

std::string wolLetters(uint32_t modes) {
  static constexpr std::pair<uint32_t, char> kLetters[] = {{WAKE_PHY, 'p'},   {WAKE_UCAST, 'u'}, {WAKE_MCAST, 'm'},
                                                           {WAKE_BCAST, 'b'}, {WAKE_ARP, 'a'},   {WAKE_MAGIC, 'g'},
                                                           {WAKE_MAGICSECURE, 's'}, {WAKE_FILTER, 'f'}};
  std::string out;
  for (const auto& [bit, letter] : kLetters)
    if (modes & bit) out += letter;
  return modes ? out : "d";
}

const char* linkExtState(uint8_t state) {
  static constexpr Named kStates[] = {
      {ETHTOOL_LINK_EXT_STATE_AUTONEG, "Autoneg"},
      {ETHTOOL_LINK_EXT_STATE_LINK_TRAINING_FAILURE, "Link training failure"},
      {ETHTOOL_LINK_EXT_STATE_LINK_LOGICAL_MISMATCH, "Logical mismatch"},
      {ETHTOOL_LINK_EXT_STATE_BAD_SIGNAL_INTEGRITY, "Bad signal integrity"},
      {ETHTOOL_LINK_EXT_STATE_NO_CABLE, "No cable"},
      {ETHTOOL_LINK_EXT_STATE_CABLE_ISSUE, "Cable issue"},
      {ETHTOOL_LINK_EXT_STATE_EEPROM_ISSUE, "EEPROM issue"},
      {ETHTOOL_LINK_EXT_STATE_CALIBRATION_FAILURE, "Calibration failure"},
      {ETHTOOL_LINK_EXT_STATE_POWER_BUDGET_EXCEEDED, "Power budget exceeded"},
      {ETHTOOL_LINK_EXT_STATE_OVERHEAT, "Overheat"},
      {ETHTOOL_LINK_EXT_STATE_MODULE, "Module"}};
  return nameOf(kStates, state);
}

const char* linkExtSubstate(uint8_t state, uint8_t sub) {
  using P = Named;
  static constexpr P kAutoneg[] = {{ETHTOOL_LINK_EXT_SUBSTATE_AN_NO_PARTNER_DETECTED, "No partner detected"},
                                   {ETHTOOL_LINK_EXT_SUBSTATE_AN_ACK_NOT_RECEIVED, "Ack not received"},
                                   {ETHTOOL_LINK_EXT_SUBSTATE_AN_NEXT_PAGE_EXCHANGE_FAILED, "Next page exchange failed"},
                                   {ETHTOOL_LINK_EXT_SUBSTATE_AN_NO_PARTNER_DETECTED_FORCE_MODE,
                                    "No partner detected during force mode"},
                                   {ETHTOOL_LINK_EXT_SUBSTATE_AN_FEC_MISMATCH_DURING_OVERRIDE,
                                    "FEC mismatch during override"},
                                   {ETHTOOL_LINK_EXT_SUBSTATE_AN_NO_HCD, "No HCD"}};
  static constexpr P kTraining[] = {
      {ETHTOOL_LINK_EXT_SUBSTATE_LT_KR_FRAME_LOCK_NOT_ACQUIRED, "KR frame lock not acquired"},
      {ETHTOOL_LINK_EXT_SUBSTATE_LT_KR_LINK_INHIBIT_TIMEOUT, "KR link inhibit timeout"},
      {ETHTOOL_LINK_EXT_SUBSTATE_LT_KR_LINK_PARTNER_DID_NOT_SET_RECEIVER_READY,
       "KR Link partner did not set receiver ready"},
      {ETHTOOL_LINK_EXT_SUBSTATE_LT_REMOTE_FAULT, "Remote side is not ready yet"}};
  static constexpr P kLogical[] = {
      {ETHTOOL_LINK_EXT_SUBSTATE_LLM_PCS_DID_NOT_ACQUIRE_BLOCK_LOCK, "PCS did not acquire block lock"},
      {ETHTOOL_LINK_EXT_SUBSTATE_LLM_PCS_DID_NOT_ACQUIRE_AM_LOCK, "PCS did not acquire AM lock"},
      {ETHTOOL_LINK_EXT_SUBSTATE_LLM_PCS_DID_NOT_GET_ALIGN_STATUS, "PCS did not get align_status"},
      {ETHTOOL_LINK_EXT_SUBSTATE_LLM_FC_FEC_IS_NOT_LOCKED, "FC FEC is not locked"},
      {ETHTOOL_LINK_EXT_SUBSTATE_LLM_RS_FEC_IS_NOT_LOCKED, "RS FEC is not locked"}};
  static constexpr P kSignal[] = {
      {ETHTOOL_LINK_EXT_SUBSTATE_BSI_LARGE_NUMBER_OF_PHYSICAL_ERRORS, "Large number of physical errors"},
      {ETHTOOL_LINK_EXT_SUBSTATE_BSI_UNSUPPORTED_RATE, "Unsupported rate"},
      {ETHTOOL_LINK_EXT_SUBSTATE_BSI_SERDES_REFERENCE_CLOCK_LOST, "Serdes reference clock lost"},
      {ETHTOOL_LINK_EXT_SUBSTATE_BSI_SERDES_ALOS, "Serdes ALOS"}};
  static constexpr P kCable[] = {{ETHTOOL_LINK_EXT_SUBSTATE_CI_UNSUPPORTED_CABLE, "Unsupported cable"},
                                 {ETHTOOL_LINK_EXT_SUBSTATE_CI_CABLE_TEST_FAILURE, "Cable test failure"}};
  static constexpr P kModule[] = {{ETHTOOL_LINK_EXT_SUBSTATE_MODULE_CMIS_NOT_READY,
                                   "CMIS module is not in ModuleReady state"}};
  std::span<const P> names;
  switch (state) {
    case ETHTOOL_LINK_EXT_STATE_AUTONEG: names = kAutoneg; break;
    case ETHTOOL_LINK_EXT_STATE_LINK_TRAINING_FAILURE: names = kTraining; break;
    case ETHTOOL_LINK_EXT_STATE_LINK_LOGICAL_MISMATCH: names = kLogical; break;
    case ETHTOOL_LINK_EXT_STATE_BAD_SIGNAL_INTEGRITY: names = kSignal; break;
    case ETHTOOL_LINK_EXT_STATE_CABLE_ISSUE: names = kCable; break;
    case ETHTOOL_LINK_EXT_STATE_MODULE: names = kModule; break;
    default: return nullptr;
  }
  return nameOf(names, sub);
}

}  // namespace

EthtoolOutput linkSettingsText(std::string_view dev, const LinkSettings& settings) {
  EthtoolOutput r;
  std::string& s = r.out;
  if (const auto& m = settings.modes) {
    bool failed = false;
    if (m->ours) {
      const auto& ours = *m->ours;
      modeList(s, ours, true, ModeClass::Port, "Supported ports: [ ", " ", " ]\n", nullptr);
      modeList(s, ours, true, ModeClass::Speed, "Supported link modes:   ", nullptr, "\n", "Not reported");
      pauseLines(s, ours, true, "Supported", "Supports");
      modeList(s, ours, true, ModeClass::Fec, "Supported FEC modes: ", " ", "\n", "Not reported");
      modeList(s, ours, false, ModeClass::Speed, "Advertised link modes:  ", nullptr, "\n", "Not reported");
      pauseLines(s, ours, false, "Advertised", "Advertised");
      // 6.1 reads the supported FEC modes here too (its "mask"), not the advertised ones.
      modeList(s, ours, true, ModeClass::Fec, "Advertised FEC modes: ", " ", "\n", "Not reported");
    }
    if (m->peer) {
      const auto& peer = *m->peer;
      modeList(s, peer, false, ModeClass::Speed, "Link partner advertised link modes:  ", nullptr, "\n", "Not reported");
      pauseLines(s, peer, false, "Link partner advertised", "Link partner advertised");
      // 6.1 asks for the "mask" of the partner's FEC modes, a bitset the kernel sends without
      // one: it reports a malformed message and drops the rest of the link modes' lines.
      r.err += "malformed netlink message (link_modes)\n";
      s += "No data available\n";
      r.status = 75;
      failed = true;
    }
    if (!failed) {
      if (m->speed) {
        uint32_t v = *m->speed;
        s += v == 0 || v == 0xffff || v == 0xffffffff ? std::string("\tSpeed: Unknown!\n") : fmt::format("\tSpeed: {}Mb/s\n", v);
      }
      if (m->lanes) s += fmt::format("\tLanes: {}\n", *m->lanes);
      if (m->duplex) s += enumLine("Duplex", *m->duplex, {{DUPLEX_HALF, "Half"}, {DUPLEX_FULL, "Full"}});
      if (m->autoneg) s += fmt::format("\tAuto-negotiation: {}\n", *m->autoneg ? "on" : "off");
      if (m->masterSlaveCfg)
        s += enumLine("master-slave cfg", *m->masterSlaveCfg,
                      {{MASTER_SLAVE_CFG_UNKNOWN, "unknown"}, {MASTER_SLAVE_CFG_MASTER_PREFERRED, "preferred master"},
                       {MASTER_SLAVE_CFG_SLAVE_PREFERRED, "preferred slave"},
                       {MASTER_SLAVE_CFG_MASTER_FORCE, "forced master"},
                       {MASTER_SLAVE_CFG_SLAVE_FORCE, "forced slave"}});
      if (m->masterSlaveState)
        s += enumLine("master-slave status", *m->masterSlaveState,
                      {{MASTER_SLAVE_STATE_UNKNOWN, "unknown"}, {MASTER_SLAVE_STATE_MASTER, "master"},
                       {MASTER_SLAVE_STATE_SLAVE, "slave"}, {MASTER_SLAVE_STATE_ERR, "resolution error"}});
    }
  }
  if (const auto& i = settings.info) {
    if (i->port)
      s += enumLine("Port", *i->port,
                    {{PORT_TP, "Twisted Pair"}, {PORT_AUI, "AUI"}, {PORT_BNC, "BNC"}, {PORT_MII, "MII"},
                     {PORT_FIBRE, "FIBRE"}, {PORT_DA, "Direct Attach Copper"}, {PORT_NONE, "None"},
                     {PORT_OTHER, "Other"}});
    if (i->phyAddress) s += fmt::format("\tPHYAD: {}\n", *i->phyAddress);
    if (i->transceiver)
      s += enumLine("Transceiver", *i->transceiver, {{XCVR_INTERNAL, "internal"}, {XCVR_EXTERNAL, "external"}});
    if (i->mdix && i->mdixCtrl && i->port == PORT_TP) {
      s += "\tMDI-X: ";
      if (*i->mdixCtrl == ETH_TP_MDI) s += "off (forced)\n";
      else if (*i->mdixCtrl == ETH_TP_MDI_X) s += "on (forced)\n";
      else
        s += fmt::format("{}{}\n", *i->mdix == ETH_TP_MDI ? "off" : *i->mdix == ETH_TP_MDI_X ? "on" : "Unknown",
                         *i->mdixCtrl == ETH_TP_MDI_AUTO ? " (auto)" : "");
    }
  }
  if (const auto& w = settings.wol) {
    uint32_t supported = w->supported.value_or(0);
    s += fmt::format("\tSupports Wake-on: {}\n\tWake-on: {}\n", wolLetters(supported), wolLetters(w->modes.value_or(0)));
    std::vector<uint8_t> pass(6, 0);
    if (w->sopass && w->sopass->size() != 6)
      r.err += fmt::format("invalid SecureOn password length {} (should be 6)\n", w->sopass->size());
    else if (w->sopass)
      pass = *w->sopass;
    if (supported & WAKE_MAGICSECURE)
      s += fmt::format("        SecureOn password: {:02x}\n", fmt::join(pass, ":"));
  }
  if (const auto& d = settings.debug; d && d->msgMask) {
    s += fmt::format("        Current message level: 0x{:08x} ({})\n{:30}", *d->msgMask, *d->msgMask, "");
    for (const auto& name : d->classes) s += " " + name;
    s += "\n";
  }
  if (const auto& l = settings.state) {
    if (l->link) {
      s += fmt::format("\tLink detected: {}", *l->link ? "yes" : "no");
      if (l->extState) {
        const char* state = linkExtState(*l->extState);
        s += state ? fmt::format(" ({}", state) : fmt::format(" ({}", *l->extState);
        if (l->extSubstate) {
          const char* sub = linkExtSubstate(*l->extState, *l->extSubstate);
          s += sub ? fmt::format(", {}", sub) : fmt::format(", {}", *l->extSubstate);
        }
        s += ")";
      }
      s += "\n";
    }
    if (l->sqi) {
      s += fmt::format("\tSQI: {}", *l->sqi);
      s += l->sqiMax ? fmt::format("/{}\n", *l->sqiMax) : "\n";
    }
  }
  // ethtool's banner heads whichever part it printed first; with none, "No data available".
  if (s.empty()) {
    s = "No data available\n";
    r.status = 75;
  } else {
    s.insert(0, fmt::format("Settings for {}:\n", dev));
  }
  return r;
}

BitsetChange speedModes(const std::vector<LinkMode>& ours) {
  BitsetChange change;
  for (const auto& m : ours) change.size = std::max(change.size, m.bit + 1);
  change.value.assign((change.size + 31) / 32, 0);
  for (const auto& m : ours)
    if (m.supported && classOf(m.bit) == ModeClass::Speed) change.value[m.bit / 32] |= 1u << (m.bit % 32);
  change.mask = change.value;
  return change;
}

std::string driverInfoText(const DriverInfo& d) {
  auto yes = [](uint32_t n) { return n ? "yes" : "no"; };
  return fmt::format("driver: {}\nversion: {}\nfirmware-version: {}\nexpansion-rom-version: {}\nbus-info: {}\n"
                     "supports-statistics: {}\nsupports-test: {}\nsupports-eeprom-access: {}\n"
                     "supports-register-dump: {}\nsupports-priv-flags: {}\n",
                     d.driver, d.version, d.firmwareVersion, d.expansionRomVersion, d.busInfo, yes(d.statsCount),
                     yes(d.testCount), yes(d.eepromLength), yes(d.registerDumpLength), yes(d.privateFlagsCount));
}

std::string tsInfoText(std::string_view dev, const TsInfo& t) {
  auto list = [](std::string_view label, const std::vector<std::string>& names, std::string_view ifEmpty) {
    if (names.empty()) return fmt::format("{}:{}\n", label, ifEmpty);
    std::string s = fmt::format("{}:\n", label);
    for (const auto& n : names) s += fmt::format("\t{}\n", n);
    return s;
  };
  std::string s = fmt::format("Time stamping parameters for {}:\n", dev);
  s += list("Capabilities", t.timestamping, "");
  s += t.phcIndex ? fmt::format("PTP Hardware Clock: {}\n", static_cast<int32_t>(*t.phcIndex)) : "PTP Hardware Clock: none\n";
  s += list("Hardware Transmit Timestamp Modes", t.txTypes, " none");
  s += list("Hardware Receive Filter Modes", t.rxFilters, " none");
  return s;
}

std::string permanentAddressText(std::optional<std::span<const uint8_t>> address) {
  if (!address) return "Permanent address: not set\n";
  std::string s = "Permanent address:";
  for (std::size_t i = 0; i < address->size(); ++i) s += fmt::format("{}{:02x}", i ? ':' : ' ', (*address)[i]);
  return s + "\n";
}

std::optional<std::pair<bool, bool>> negotiatedPause(const LinkModesInfo& modes) {
  if (!modes.ours || !modes.peer) return std::nullopt;
  auto bit = [](const std::vector<LinkMode>& m, uint32_t b) { return hasMode(m, b, false); };
  bool ourPause = bit(*modes.ours, ETHTOOL_LINK_MODE_Pause_BIT), peerPause = bit(*modes.peer, ETHTOOL_LINK_MODE_Pause_BIT);
  bool ourAsym = bit(*modes.ours, ETHTOOL_LINK_MODE_Asym_Pause_BIT);
  bool peerAsym = bit(*modes.peer, ETHTOOL_LINK_MODE_Asym_Pause_BIT);
  if (ourPause && peerPause) return std::pair{true, true};
  if (ourAsym && peerAsym) return std::pair{ourPause, !ourPause && peerPause};
  return std::pair{false, false};
}

std::string pauseText(std::string_view dev, const PauseInfo& p, std::optional<std::pair<bool, bool>> negotiated) {
  std::string s = fmt::format("Pause parameters for {}:\nAutonegotiate:\t{}\nRX:\t\t{}\nTX:\t\t{}\n", dev,
                              onOff(p.autoneg), onOff(p.rx), onOff(p.tx));
  if (negotiated)
    s += fmt::format("RX negotiated: {}\nTX negotiated: {}\n", negotiated->first ? "on" : "off",
                     negotiated->second ? "on" : "off");
  if (p.txFrames || p.rxFrames) s += "Statistics:\n";
  if (p.txFrames) s += fmt::format("  tx_pause_frames: {}\n", *p.txFrames);
  if (p.rxFrames) s += fmt::format("  rx_pause_frames: {}\n", *p.rxFrames);
  return s + "\n";
}

nlohmann::ordered_json pauseJson(std::string_view dev, const PauseInfo& p, std::optional<std::pair<bool, bool>> negotiated,
                                 bool statistics) {
  nlohmann::ordered_json j = settingsJson(dev, p);
  if (negotiated) j["negotiated"] = {{"rx", negotiated->first}, {"tx", negotiated->second}};
  // ethtool opens "statistics" whenever the kernel sent the nest, which it does for every
  // request with the statistics flag (-I); the counters inside are those the driver set.
  if (statistics || p.txFrames || p.rxFrames) {
    nlohmann::ordered_json stats = nlohmann::ordered_json::object();
    if (p.txFrames) stats["tx_pause_frames"] = *p.txFrames;
    if (p.rxFrames) stats["rx_pause_frames"] = *p.rxFrames;
    j["statistics"] = stats;
  }
  return j;
}

namespace {

// ethtool 6.1's names of the FEC encodings, in the kernel's link mode order (its --show-fec
// renames the kernel's "None" to "Off" and "BASER" to "BaseR", the ioctl's spelling).
constexpr std::pair<uint32_t, const char*> kFecNames[] = {
    {ETHTOOL_FEC_OFF, "Off"}, {ETHTOOL_FEC_RS, "RS"}, {ETHTOOL_FEC_BASER, "BaseR"}, {ETHTOOL_FEC_LLRS, "LLRS"}};

// The configured encodings as 6.1 lists them: Auto first, then each mode; "None" for none.
std::vector<std::string> fecConfigured(const FecSettings& fec) {
  std::vector<std::string> out;
  if (fec.automatic.value_or(false)) out.emplace_back("Auto");
  for (const auto& [bit, name] : kFecNames)
    if (fec.modes.value_or(0) & bit) out.emplace_back(name);
  if (out.empty()) out.emplace_back("None");
  return out;
}

std::string fecActive(const FecSettings& fec) {
  for (const auto& [bit, name] : kFecNames)
    if (fec.active && *fec.active == bit) return name;
  return "None";
}

// The statistics in 6.1's order: corrected blocks, uncorrectable blocks, corrected bits.
template <class Each>
void forEachFecCounter(const FecStats& stats, Each each) {
  const std::pair<const char*, const std::optional<FecCounter>*> counters[] = {
      {"corrected_blocks", &stats.correctedBlocks},
      {"uncorrectable_blocks", &stats.uncorrectableBlocks},
      {"corrected_bits", &stats.correctedBits}};
  for (const auto& [name, counter] : counters)
    if (*counter) each(name, **counter);
}

}  // namespace

std::string fecText(std::string_view dev, const FecSettings& fec) {
  std::string s = fmt::format("FEC parameters for {}:\nSupported/Configured FEC encodings:", dev);
  for (const auto& name : fecConfigured(fec)) s += " " + name;
  s += fmt::format("\nActive FEC encoding: {}\n", fecActive(fec));
  if (fec.stats) {
    bool header = false;
    forEachFecCounter(*fec.stats, [&](const char* name, const FecCounter& c) {
      if (!header) s += "Statistics:\n";
      header = true;
      s += fmt::format("  {}: {}\n", name, c.total);
      for (std::size_t lane = 0; lane < c.lanes.size(); ++lane) s += fmt::format("    Lane {}: {}\n", lane, c.lanes[lane]);
    });
  }
  return s;
}

nlohmann::ordered_json fecJson(std::string_view dev, const FecSettings& fec) {
  nlohmann::ordered_json j{{"ifname", std::string(dev)}};
  j["config"] = fecConfigured(fec);
  j["active"] = nlohmann::ordered_json::array({fecActive(fec)});
  if (fec.stats) {
    nlohmann::ordered_json stats = nlohmann::ordered_json::object();
    forEachFecCounter(*fec.stats, [&](const char* name, const FecCounter& c) {
      nlohmann::ordered_json counter{{"total", c.total}};
      if (!c.lanes.empty()) counter["lanes"] = c.lanes;
      stats[name] = counter;
    });
    j["statistics"] = stats;
  }
  return j;
}

// netlink/tunnels.c of 6.1: a table's heading ends with a blank, its types are joined by ", "
// (none: "none (static entries)"), its entries counted.
std::string tunnelInfoText(std::string_view dev, const TunnelOffloadInfo& info) {
  std::string s = fmt::format("Tunnel information for {}:\n", dev);
  for (std::size_t i = 0; i < info.udpTables.size(); ++i) {
    const UdpTunnelTable& t = info.udpTables[i];
    s += fmt::format("  UDP port table {}: \n    Size: {}\n", i, t.size);
    s += t.types.empty() ? std::string("    Types: none (static entries)\n") : fmt::format("    Types: {}\n", fmt::join(t.types, ", "));
    if (t.entries.empty()) {
      s += "    No entries\n";
      continue;
    }
    s += fmt::format("    Entries ({}):\n", t.entries.size());
    for (const auto& [port, type] : t.entries) s += fmt::format("        port {}, {}\n", port, type);
  }
  return s;
}

}  // namespace fastlink::cli
