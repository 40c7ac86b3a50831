// ethtool settings over generic netlink (the kernel's "ethtool" family): link settings (speed,
// duplex, link modes, wake-on, message level, link state), pause, FEC, tunnel offload, time stamping, channels
// (queues), rings, features (offloads), interrupt coalescing and the standard statistics groups;
// driver information and the driver's own counters by the SIOCETHTOOL ioctl (no netlink form).
//
//   fastlink::Netlink nl;
//   auto& et = nl.ethtool();
//   fastlink::ChannelsInfo ch = et.channels("eth0");          // ethtool -l eth0
//   et.setChannels("eth0", fastlink::ChannelsInfo().setCombined(4));   // ethtool -L eth0 combined 4
//   auto after = et.setFeatures("eth0", fastlink::FeatureChanges().set("rx-gro-list", true));
//   for (const auto& miss : after.unmet) ...                   // what the kernel did not apply
//
// Every set is one request the kernel checks as a whole: a refused request (more channels than
// the maximum, an unknown feature name, a driver without the operation) changes nothing and is
// thrown as fastlink::Error carrying the kernel's extack ("requested channel count exceeds
// maximum"). The family is resolved on first use through Netlink::families() and cached.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "fastlink/genl.hpp"
#include "fastlink/request.hpp"
#include "fastlink/types.hpp"

namespace fastlink {

/// Queue counts (`ethtool -l`). A kind of channel the driver does not have (its maximum is 0)
/// is left unset in a reply, which ethtool prints as "n/a". On set, unset counts are not sent.
///   ChannelsInfo().setRx(4).setTx(4)
struct ChannelsInfo {
  std::optional<uint32_t> rxMax, txMax, otherMax, combinedMax;  ///< reported only
  std::optional<uint32_t> rx, tx, other, combined;              ///< current counts

  ChannelsInfo& setRx(uint32_t n) { rx = n; return *this; }
  ChannelsInfo& setTx(uint32_t n) { tx = n; return *this; }
  ChannelsInfo& setOther(uint32_t n) { other = n; return *this; }
  ChannelsInfo& setCombined(uint32_t n) { combined = n; return *this; }
  friend bool operator==(const ChannelsInfo&, const ChannelsInfo&) = default;
};

/// Ring sizes (`ethtool -g`). Unset = the driver does not report it / not sent on set.
struct RingsInfo {
  std::optional<uint32_t> rxMax, rxMiniMax, rxJumboMax, txMax;  ///< reported only
  std::optional<uint32_t> rx, rxMini, rxJumbo, tx;
  std::optional<uint32_t> rxBufLen;      ///< `rx-buf-len N`
  std::optional<uint8_t> tcpDataSplit;   ///< 0 unknown, 1 disabled, 2 enabled (reported only)
  std::optional<uint32_t> cqeSize;       ///< `cqe-size N`
  std::optional<bool> txPush;            ///< `tx-push on|off`

  RingsInfo& setRx(uint32_t n) { rx = n; return *this; }
  RingsInfo& setRxMini(uint32_t n) { rxMini = n; return *this; }
  RingsInfo& setRxJumbo(uint32_t n) { rxJumbo = n; return *this; }
  RingsInfo& setTx(uint32_t n) { tx = n; return *this; }
  RingsInfo& setRxBufLen(uint32_t n) { rxBufLen = n; return *this; }
  RingsInfo& setCqeSize(uint32_t n) { cqeSize = n; return *this; }
  RingsInfo& setTxPush(bool on) { txPush = on; return *this; }
  friend bool operator==(const RingsInfo&, const RingsInfo&) = default;
};

/// Interrupt coalescing (`ethtool -c`), the fields ethtool -C sets by name.
struct CoalesceInfo {
  std::optional<uint32_t> rxUsecs, rxMaxFrames, rxUsecsIrq, rxMaxFramesIrq;
  std::optional<uint32_t> txUsecs, txMaxFrames, txUsecsIrq, txMaxFramesIrq;
  std::optional<uint32_t> statsBlockUsecs;
  std::optional<bool> adaptiveRx, adaptiveTx;
  std::optional<uint32_t> pktRateLow, rxUsecsLow, rxMaxFramesLow, txUsecsLow, txMaxFramesLow;
  std::optional<uint32_t> pktRateHigh, rxUsecsHigh, rxMaxFramesHigh, txUsecsHigh, txMaxFramesHigh;
  std::optional<uint32_t> rateSampleInterval;
  std::optional<bool> cqeModeTx, cqeModeRx;

  CoalesceInfo& setRxUsecs(uint32_t v) { rxUsecs = v; return *this; }
  CoalesceInfo& setRxMaxFrames(uint32_t v) { rxMaxFrames = v; return *this; }
  CoalesceInfo& setTxUsecs(uint32_t v) { txUsecs = v; return *this; }
  CoalesceInfo& setTxMaxFrames(uint32_t v) { txMaxFrames = v; return *this; }
  CoalesceInfo& setAdaptiveRx(bool on) { adaptiveRx = on; return *this; }
  CoalesceInfo& setAdaptiveTx(bool on) { adaptiveTx = on; return *this; }
  friend bool operator==(const CoalesceInfo&, const CoalesceInfo&) = default;
};

/// One device feature (offload) as `ethtool -k` shows it.
struct Feature {
  std::string name;      ///< the kernel's name, e.g. "rx-gro-list"
  bool active = false;   ///< on now
  bool wanted = false;   ///< what was last requested (differs from active: "[requested on]")
  bool changeable = false;  ///< in the device's hw_features: ethtool prints "[fixed]" when not
  bool noChange = false;    ///< the kernel never lets it change ("[fixed]" as well)

  bool fixed() const { return !changeable || noChange; }
  friend bool operator==(const Feature&, const Feature&) = default;
};

/// Every feature the kernel knows, in the kernel's order (the order `ethtool -k` uses).
struct FeaturesInfo {
  std::vector<Feature> features;
  /// The feature named `name`, or nullptr.
  const Feature* find(std::string_view name) const;
  friend bool operator==(const FeaturesInfo&, const FeaturesInfo&) = default;
};

/// Features to turn on or off (`ethtool -K DEV NAME on|off ...`), by kernel name.
struct FeatureChanges {
  std::vector<std::pair<std::string, bool>> changes;
  FeatureChanges& set(std::string name, bool on) {
    changes.emplace_back(std::move(name), on);
    return *this;
  }
};

/// What setFeatures left behind: the device's features after the change, and the requested
/// changes the kernel accepted but did not apply (a fixed feature, a dependency).
struct FeaturesSetResult {
  FeaturesInfo after;
  std::vector<std::pair<std::string, bool>> unmet;  ///< requested name and value not reached
};

/// One standard statistics group (`ethtool -S DEV --all-groups`): IEEE 802.3 PHY/MAC/control
/// counters or RMON, as the driver reports them.
struct StatsGroup {
  uint32_t id = 0;       ///< 0 eth-phy, 1 eth-mac, 2 eth-ctrl, 3 rmon
  std::string name;      ///< the kernel's group name ("eth-mac")
  std::vector<std::pair<std::string, uint64_t>> counters;  ///< kernel's counter names
  friend bool operator==(const StatsGroup&, const StatsGroup&) = default;
};

/// One of a driver's own counters, as `ethtool -S DEV` lists them ("peer_ifindex",
/// "rx_queue_0_drops", ...): names and order are the driver's.
struct DriverStat {
  std::string name;
  uint64_t value = 0;
  friend bool operator==(const DriverStat&, const DriverStat&) = default;
};

/// One setting of ChannelsInfo, RingsInfo, CoalesceInfo or PauseInfo as ethtool names it: its
/// word on ethtool's command line (`-L rx`, `-C rx-usecs`; nullptr for what the kernel only
/// reports), its key in fastlink's JSON, and the member holding it. The library's attribute
/// table declares each once (src/ethtool/ethtool_fields.hpp): it encodes, decodes and names it.
template <class Info>
struct EthtoolSetting {
  const char* keyword = nullptr;
  const char* json = nullptr;
  std::variant<std::optional<uint32_t> Info::*, std::optional<uint8_t> Info::*, std::optional<bool> Info::*> member{};
};
/// An object's settings in its table's order (the kernel's attribute order).
std::span<const EthtoolSetting<ChannelsInfo>> ethtoolSettings(const ChannelsInfo&);
std::span<const EthtoolSetting<RingsInfo>> ethtoolSettings(const RingsInfo&);
std::span<const EthtoolSetting<CoalesceInfo>> ethtoolSettings(const CoalesceInfo&);

/// Bits to change in one of the kernel's ethtool bitsets (advertised link modes, wake-on modes,
/// message classes): either by number — `value` for the bits selected by `mask`, bit i in word
/// i / 32, `size` bits — or by the kernel's names (`named`, each on or off; the others kept).
struct BitsetChange {
  uint32_t size = 0;
  std::vector<uint32_t> value, mask;
  std::vector<std::pair<std::string, bool>> named;
  friend bool operator==(const BitsetChange&, const BitsetChange&) = default;
};

/// One link mode bit as the kernel names it ("1000baseT/Full", "Autoneg", "TP", "Pause", ...).
struct LinkMode {
  uint32_t bit = 0;         ///< ETHTOOL_LINK_MODE_*_BIT
  std::string name;
  bool supported = false;   ///< in the device's supported modes (for the link partner: always false)
  bool advertised = false;  ///< advertised (for the link partner: what it advertises)
  friend bool operator==(const LinkMode&, const LinkMode&) = default;
};

/// Speed, duplex, autonegotiation and link modes (`ethtool DEV`'s first half; `ethtool -s DEV
/// speed N duplex half|full autoneg on|off advertise M lanes N`). Unset: not reported / not sent.
struct LinkModesInfo {
  std::optional<bool> autoneg;
  std::optional<uint32_t> speed;   ///< Mb/s; 0 or 0xffffffff: unknown
  std::optional<uint32_t> lanes;
  std::optional<uint8_t> duplex;   ///< DUPLEX_HALF 0, DUPLEX_FULL 1, DUPLEX_UNKNOWN 0xff
  std::optional<uint8_t> masterSlaveCfg;    ///< MASTER_SLAVE_CFG_*
  std::optional<uint8_t> masterSlaveState;  ///< MASTER_SLAVE_STATE_* (reported only)
  std::optional<std::vector<LinkMode>> ours;  ///< reported: supported and advertised modes
  std::optional<std::vector<LinkMode>> peer;  ///< reported: the link partner's modes
  std::optional<BitsetChange> advertise;      ///< sent: the modes to advertise
  friend bool operator==(const LinkModesInfo&, const LinkModesInfo&) = default;
};

/// Port, PHY address, MDI-X and transceiver (`ethtool DEV`; `ethtool -s DEV port P mdix M phyad N`).
struct LinkInfoSettings {
  std::optional<uint8_t> port;         ///< PORT_* (PORT_TP 0, ...)
  std::optional<uint8_t> phyAddress;
  std::optional<uint8_t> mdix;         ///< ETH_TP_MDI* (reported only)
  std::optional<uint8_t> mdixCtrl;     ///< ETH_TP_MDI_* as configured
  std::optional<uint8_t> transceiver;  ///< XCVR_* (reported only)
  friend bool operator==(const LinkInfoSettings&, const LinkInfoSettings&) = default;
};

/// Link state (`ethtool DEV`'s "Link detected"): the carrier, signal quality, why the link is down.
struct LinkStateInfo {
  std::optional<bool> link;
  std::optional<uint32_t> sqi, sqiMax;
  std::optional<uint8_t> extState, extSubstate;  ///< ETHTOOL_LINK_EXT_STATE_* and its substate
  friend bool operator==(const LinkStateInfo&, const LinkStateInfo&) = default;
};

/// Wake-on-LAN (`ethtool DEV`'s "Wake-on"; `ethtool -s DEV wol pumbagsd sopass XX:...`).
struct WolInfo {
  std::optional<uint32_t> supported;  ///< WAKE_* bits the device supports (reported only)
  std::optional<uint32_t> modes;      ///< WAKE_* bits enabled (reported only; set: `change`)
  std::optional<std::vector<uint8_t>> sopass;  ///< SecureOn password, 6 bytes
  std::optional<BitsetChange> change;          ///< sent: the wake-on modes to set
  friend bool operator==(const WolInfo&, const WolInfo&) = default;
};

/// The driver's message level (`ethtool DEV`'s "Current message level"; `ethtool -s DEV msglvl`).
struct DebugInfo {
  std::optional<uint32_t> msgMask;  ///< NETIF_MSG_* bits (reported only; set: `change`)
  std::vector<std::string> classes; ///< the kernel's names of the bits set ("drv", "probe", ...)
  std::optional<BitsetChange> change;
  friend bool operator==(const DebugInfo&, const DebugInfo&) = default;
};

/// Everything `ethtool DEV` prints: one part per request; a part the driver does not offer
/// (EOPNOTSUPP) is unset, as ethtool leaves its lines out.
struct LinkSettings {
  std::optional<LinkModesInfo> modes;
  std::optional<LinkInfoSettings> info;
  std::optional<WolInfo> wol;
  std::optional<DebugInfo> debug;
  std::optional<LinkStateInfo> state;
  friend bool operator==(const LinkSettings&, const LinkSettings&) = default;
};

/// Pause frames (`ethtool -a` / `-A DEV autoneg on|off rx on|off tx on|off`).
struct PauseInfo {
  std::optional<bool> autoneg, rx, tx;
  std::optional<uint64_t> txFrames, rxFrames;  ///< statistics, when asked for and reported
  PauseInfo& setAutoneg(bool on) { autoneg = on; return *this; }
  PauseInfo& setRx(bool on) { rx = on; return *this; }
  PauseInfo& setTx(bool on) { tx = on; return *this; }
  friend bool operator==(const PauseInfo&, const PauseInfo&) = default;
};
std::span<const EthtoolSetting<PauseInfo>> ethtoolSettings(const PauseInfo&);

/// One FEC counter (`ethtool -I --show-fec`): the device's total and, when the driver counts
/// per lane, each lane's.
struct FecCounter {
  uint64_t total = 0;
  std::vector<uint64_t> lanes;
  friend bool operator==(const FecCounter&, const FecCounter&) = default;
};

/// FEC statistics: a counter the driver does not keep is unset.
struct FecStats {
  std::optional<FecCounter> correctedBlocks, uncorrectableBlocks, correctedBits;
  friend bool operator==(const FecStats&, const FecStats&) = default;
};

/// Forward error correction (`ethtool --show-fec DEV`; `ethtool --set-fec DEV encoding
/// auto|off|rs|baser|llrs ...`). Encodings are linux/ethtool.h's ETHTOOL_FEC_* bits (OFF, RS,
/// BASER, LLRS); on the wire the kernel carries them as the FEC link mode bits, which the
/// library's table converts. Unset: not reported / not sent.
///   FecSettings().setModes(ETHTOOL_FEC_RS | ETHTOOL_FEC_BASER).setAutomatic(false)
struct FecSettings {
  /// The configured (or, for a driver that reports that, supported) encodings; on set the whole
  /// set, replacing the configured one (the kernel refuses an empty set with `automatic` off).
  std::optional<uint32_t> modes;
  std::optional<bool> automatic;  ///< `auto`: the driver picks the encoding by the link
  std::optional<uint32_t> active; ///< the encoding in use, one ETHTOOL_FEC_* bit (reported only; unset: none)
  std::optional<FecStats> stats;  ///< reported when asked for with statistics (the nest may be empty)

  FecSettings& setModes(uint32_t fecBits) { modes = fecBits; return *this; }
  FecSettings& setAutomatic(bool on) { automatic = on; return *this; }
  friend bool operator==(const FecSettings&, const FecSettings&) = default;
};

/// One table of a NIC's UDP tunnel port offload (`ethtool --show-tunnels`): the ports of VXLAN,
/// GENEVE, ... tunnels the device parses in hardware.
struct UdpTunnelTable {
  uint32_t size = 0;               ///< the number of entries it holds
  std::vector<std::string> types;  ///< the tunnel types it takes ("vxlan", "geneve", "vxlan-gpe"); none: static entries
  std::vector<std::pair<uint16_t, std::string>> entries;  ///< each port (host order) and its tunnel type
  friend bool operator==(const UdpTunnelTable&, const UdpTunnelTable&) = default;
};

/// A device's tunnel offload information (`ethtool --show-tunnels`).
struct TunnelOffloadInfo {
  std::vector<UdpTunnelTable> udpTables;
  friend bool operator==(const TunnelOffloadInfo&, const TunnelOffloadInfo&) = default;
};

/// Time stamping capabilities (`ethtool -T`): the kernel's names of the bits set.
struct TsInfo {
  std::vector<std::string> timestamping;  ///< SOF_TIMESTAMPING_* ("software-transmit", ...)
  std::vector<std::string> txTypes;       ///< HWTSTAMP_TX_* ("off", "on", ...)
  std::vector<std::string> rxFilters;     ///< HWTSTAMP_FILTER_* ("none", "all", ...)
  std::optional<uint32_t> phcIndex;       ///< the PTP hardware clock, when there is one
  friend bool operator==(const TsInfo&, const TsInfo&) = default;
};

/// Driver information (`ethtool -i`). The ethtool netlink family has no such request: this is
/// the SIOCETHTOOL ioctl ETHTOOL_GDRVINFO, as ethtool 6.1 sends it.
struct DriverInfo {
  std::string driver, version, firmwareVersion, expansionRomVersion, busInfo;
  uint32_t statsCount = 0, testCount = 0, eepromLength = 0, registerDumpLength = 0, privateFlagsCount = 0;
  friend bool operator==(const DriverInfo&, const DriverInfo&) = default;
};

/// Builds ethtool requests without sending them; `family` is the resolved "ethtool" family.
/// The device is a name (the kernel resolves it) or an ifindex.
struct EthtoolRequests {
  /// Equivalent to: ethtool -l DEV
  static Request getChannels(const GenlFamily& family, const Ifref& device);
  /// Equivalent to: ethtool -L DEV [rx N] [tx N] [other N] [combined N]
  static Request setChannels(const GenlFamily& family, const Ifref& device, const ChannelsInfo& channels);
  /// Equivalent to: ethtool -g DEV
  static Request getRings(const GenlFamily& family, const Ifref& device);
  /// Equivalent to: ethtool -G DEV [rx N] [rx-mini N] [rx-jumbo N] [tx N] ...
  static Request setRings(const GenlFamily& family, const Ifref& device, const RingsInfo& rings);
  /// Equivalent to: ethtool -k DEV (compact bitsets: names come from featureNames)
  static Request getFeatures(const GenlFamily& family, const Ifref& device);
  /// Equivalent to: ethtool -K DEV NAME on|off ... (verbose bitset by name; no reply asked)
  static Request setFeatures(const GenlFamily& family, const Ifref& device, const FeatureChanges& changes);
  /// The names of the feature bits (the kernel's "features" string set, id 4).
  static Request featureNames(const GenlFamily& family);
  /// Equivalent to: ethtool -c DEV
  static Request getCoalesce(const GenlFamily& family, const Ifref& device);
  /// Equivalent to: ethtool -C DEV [rx-usecs N] ...
  static Request setCoalesce(const GenlFamily& family, const Ifref& device, const CoalesceInfo& coalesce);
  /// Equivalent to: ethtool -S DEV --all-groups (all four standard groups, compact bitset)
  static Request getStats(const GenlFamily& family, const Ifref& device);
  /// Equivalent to: ethtool DEV (one request each; verbose bitsets: the reply names its bits)
  static Request getLinkModes(const GenlFamily& family, const Ifref& device);
  static Request getLinkInfo(const GenlFamily& family, const Ifref& device);
  static Request getLinkState(const GenlFamily& family, const Ifref& device);
  static Request getWol(const GenlFamily& family, const Ifref& device);
  static Request getDebug(const GenlFamily& family, const Ifref& device);
  /// Equivalent to: ethtool -s DEV speed N duplex D autoneg A advertise M lanes N master-slave C
  static Request setLinkModes(const GenlFamily& family, const Ifref& device, const LinkModesInfo& modes);
  /// Equivalent to: ethtool -s DEV port P mdix M phyad N
  static Request setLinkInfo(const GenlFamily& family, const Ifref& device, const LinkInfoSettings& info);
  /// Equivalent to: ethtool -s DEV wol MODES sopass XX:XX:XX:XX:XX:XX
  static Request setWol(const GenlFamily& family, const Ifref& device, const WolInfo& wol);
  /// Equivalent to: ethtool -s DEV msglvl N[/M] | msglvl NAME on|off ...
  static Request setDebug(const GenlFamily& family, const Ifref& device, const DebugInfo& debug);
  /// Equivalent to: ethtool -a DEV (with `statistics`: ethtool -I -a DEV)
  static Request getPause(const GenlFamily& family, const Ifref& device, bool statistics = false);
  /// Equivalent to: ethtool -A DEV [autoneg on|off] [rx on|off] [tx on|off]
  static Request setPause(const GenlFamily& family, const Ifref& device, const PauseInfo& pause);
  /// Equivalent to: ethtool -T DEV
  static Request getTsInfo(const GenlFamily& family, const Ifref& device);
  /// Equivalent to: ethtool --show-fec DEV (with `statistics`: ethtool -I --show-fec DEV)
  static Request getFec(const GenlFamily& family, const Ifref& device, bool statistics = false);
  /// Equivalent to: ethtool --set-fec DEV encoding auto|off|rs|baser|llrs ...
  static Request setFec(const GenlFamily& family, const Ifref& device, const FecSettings& fec);
  /// Equivalent to: ethtool --show-tunnels DEV
  static Request getTunnelInfo(const GenlFamily& family, const Ifref& device);
  /// A global string set by its kernel id (e.g. 4 feature names, 16 standard stats group names).
  static Request stringSet(const GenlFamily& family, uint32_t setId);
};

/// The ethtool operations, as an interface so that users can mock them (GoogleMock).
class IEthtoolApi {
 public:
  virtual ~IEthtoolApi() = default;
  /// Equivalent to: ethtool -l DEV
  virtual ChannelsInfo channels(const Ifref& device) = 0;
  /// Sends only the counts that are set. Equivalent to: ethtool -L DEV [rx N] [tx N] [other N] [combined N]
  virtual void setChannels(const Ifref& device, const ChannelsInfo& channels) = 0;
  /// Equivalent to: ethtool -g DEV
  virtual RingsInfo rings(const Ifref& device) = 0;
  /// Equivalent to: ethtool -G DEV [rx N] [tx N] ...
  virtual void setRings(const Ifref& device, const RingsInfo& rings) = 0;
  /// Equivalent to: ethtool -k DEV
  virtual FeaturesInfo features(const Ifref& device) = 0;
  /// Applies the changes in one request, then reads the features back to report what did not
  /// take. Equivalent to: ethtool -K DEV NAME on|off ...
  virtual FeaturesSetResult setFeatures(const Ifref& device, const FeatureChanges& changes) = 0;
  /// Equivalent to: ethtool -c DEV
  virtual CoalesceInfo coalesce(const Ifref& device) = 0;
  /// Equivalent to: ethtool -C DEV [rx-usecs N] ...
  virtual void setCoalesce(const Ifref& device, const CoalesceInfo& coalesce) = 0;
  /// Every standard statistics group the kernel knows, with the driver's counters (none: empty).
  /// Equivalent to: ethtool -S DEV --all-groups
  virtual std::vector<StatsGroup> stats(const Ifref& device) = 0;
  /// The driver's own counters (ETH_SS_STATS). The ethtool netlink family does not carry them,
  /// so this is the SIOCETHTOOL ioctl (ETHTOOL_GSSET_INFO, GSTRINGS, GSTATS), sent on the
  /// generic netlink socket, i.e. in its namespace. Error(EOPNOTSUPP) when the driver has none
  /// (ethtool: "no stats available"). Equivalent to: ethtool -S DEV
  virtual std::vector<DriverStat> driverStats(const Ifref& device) = 0;
  /// Link modes, link info, wake-on, message level and link state; a part the driver does not
  /// offer is left unset. Equivalent to: ethtool DEV
  virtual LinkSettings linkSettings(const Ifref& device) = 0;
  /// Sends the set members (speed, duplex, autoneg, advertise, lanes, master-slave).
  /// Equivalent to: ethtool -s DEV speed N duplex D autoneg A advertise M ...
  virtual void setLinkModes(const Ifref& device, const LinkModesInfo& modes) = 0;
  /// Equivalent to: ethtool -s DEV port P mdix M phyad N
  virtual void setLinkInfo(const Ifref& device, const LinkInfoSettings& info) = 0;
  /// Equivalent to: ethtool -s DEV wol MODES [sopass XX:XX:XX:XX:XX:XX]
  virtual void setWol(const Ifref& device, const WolInfo& wol) = 0;
  /// Equivalent to: ethtool -s DEV msglvl ...
  virtual void setDebug(const Ifref& device, const DebugInfo& debug) = 0;
  /// Equivalent to: ethtool -a DEV (`statistics`: ethtool -I -a DEV)
  virtual PauseInfo pause(const Ifref& device, bool statistics = false) = 0;
  /// Equivalent to: ethtool -A DEV [autoneg on|off] [rx on|off] [tx on|off]
  virtual void setPause(const Ifref& device, const PauseInfo& pause) = 0;
  /// Equivalent to: ethtool -T DEV
  virtual TsInfo tsInfo(const Ifref& device) = 0;
  /// Equivalent to: ethtool --show-fec DEV (`statistics`: ethtool -I --show-fec DEV)
  virtual FecSettings fec(const Ifref& device, bool statistics = false) = 0;
  /// Sends the set members (modes, automatic). Equivalent to: ethtool --set-fec DEV encoding ...
  virtual void setFec(const Ifref& device, const FecSettings& fec) = 0;
  /// The UDP tunnel port tables (entry types named by the kernel's ETH_SS_UDP_TUNNEL_TYPES string
  /// set). Error(EOPNOTSUPP) for a device without them. Equivalent to: ethtool --show-tunnels DEV
  virtual TunnelOffloadInfo tunnelInfo(const Ifref& device) = 0;
  /// The SIOCETHTOOL ioctl ETHTOOL_GDRVINFO (the netlink family has no equivalent), sent on
  /// the generic netlink socket so that its namespace applies. Equivalent to: ethtool -i DEV
  virtual DriverInfo driverInfo(const Ifref& device) = 0;
};

/// The kernel-backed IEthtoolApi; obtain it from Netlink::ethtool(). Caches the family and the
/// global string sets (feature and counter names) for the life of its Netlink.
class EthtoolApi final : public IEthtoolApi, public GenlFamilyApi {
 public:
  ~EthtoolApi() override;
  EthtoolApi(const EthtoolApi&) = delete;
  EthtoolApi& operator=(const EthtoolApi&) = delete;

  ChannelsInfo channels(const Ifref& device) override;
  void setChannels(const Ifref& device, const ChannelsInfo& channels) override;
  RingsInfo rings(const Ifref& device) override;
  void setRings(const Ifref& device, const RingsInfo& rings) override;
  FeaturesInfo features(const Ifref& device) override;
  FeaturesSetResult setFeatures(const Ifref& device, const FeatureChanges& changes) override;
  CoalesceInfo coalesce(const Ifref& device) override;
  void setCoalesce(const Ifref& device, const CoalesceInfo& coalesce) override;
  std::vector<StatsGroup> stats(const Ifref& device) override;
  std::vector<DriverStat> driverStats(const Ifref& device) override;
  LinkSettings linkSettings(const Ifref& device) override;
  void setLinkModes(const Ifref& device, const LinkModesInfo& modes) override;
  void setLinkInfo(const Ifref& device, const LinkInfoSettings& info) override;
  void setWol(const Ifref& device, const WolInfo& wol) override;
  void setDebug(const Ifref& device, const DebugInfo& debug) override;
  PauseInfo pause(const Ifref& device, bool statistics = false) override;
  void setPause(const Ifref& device, const PauseInfo& pause) override;
  TsInfo tsInfo(const Ifref& device) override;
  FecSettings fec(const Ifref& device, bool statistics = false) override;
  void setFec(const Ifref& device, const FecSettings& fec) override;
  TunnelOffloadInfo tunnelInfo(const Ifref& device) override;
  DriverInfo driverInfo(const Ifref& device) override;

  // family(): the resolved `ethtool` family, for building EthtoolRequests (GenlFamilyApi).
  /// The kernel's feature names by bit number (string set ETH_SS_FEATURES), cached: what names
  /// the bits of a features reply or notification (decodeEthtoolEvent).
  const std::vector<std::string>& featureNames();
  /// Sends ethtool requests (EthtoolRequests::set*) pipelined on the generic netlink socket,
  /// many per sendmsg, ACKs matched by sequence number: the bulk form for many devices.
  /// Per-request results as Netlink::run. Feature sets in a batch are not read back: compare
  /// with features() afterwards when that matters.
  /// Equivalent to: one `ethtool -L/-K` per request, without the processes
  BatchResult run(std::span<const Request> requests, const BatchOptions& options = {});

 private:
  friend class Netlink;  // built by its accessor on Netlink, the one way in
  EthtoolApi(GenlApi& families, core::Engine& engine);
  struct Cache;
  const std::vector<std::string>& strings(uint32_t setId);
  std::unique_ptr<Cache> cache_;
};

}  // namespace fastlink
