// ethtool over generic netlink: request builders (pure encoding) and EthtoolApi (resolve the
// family once, send, decode). Codec of the replies: ethtool_codec.cpp.
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/engine.hpp"
#include "core/ioctl_device.hpp"
#include "fastlink/ethtool.hpp"
#include "fastlink/netlink.hpp"
#include "ethtool/ethtool_codec.hpp"
#include "genl/genl_message.hpp"

namespace fastlink {

EthtoolApi& Netlink::ethtool() { return lazy(ethtool_, families(), genericEngine()); }

const Feature* FeaturesInfo::find(std::string_view name) const {
  for (const auto& f : features)
    if (f.name == name) return &f;
  return nullptr;
}

namespace {

constexpr const char* kFamily = ETHTOOL_GENL_NAME;

// Every ethtool request carries a header nest (attribute 1 in most message types, 2 in
// STATS where 1 is padding): the device by name or index, and ETHTOOL_FLAG_* bits.
void putHeader(core::MessageWriter& w, const Ifref& device, uint32_t flags = 0, uint16_t type = 1) {
  std::size_t nest = w.beginNest(type);
  if (device.isName()) {
    validateIfname(device.name());
    w.putString(ETHTOOL_A_HEADER_DEV_NAME, device.name());
  } else {
    w.putU32(ETHTOOL_A_HEADER_DEV_INDEX, device.index());
  }
  if (flags) w.putU32(ETHTOOL_A_HEADER_FLAGS, flags);
  w.endNest(nest);
}

Request getRequest(const GenlFamily& family, uint8_t cmd, const Ifref& device, const std::string& what,
                   uint32_t flags = 0) {
  genl::GenlWriter w(family, cmd, ETHTOOL_GENL_VERSION);
  putHeader(w, device, flags);
  return w.toRequest(what + " " + device.toString());
}

// One message's GET and SET commands, ethtool's options for them (the operation an error
// names; `ethtool -s` sets the link settings of four messages, each word in the message that
// carries it) and the noun of an empty SET, beside the encoder of its set members.
template <class Info>
struct Message {
  uint8_t get, set;
  const char *show, *change, *noun;
  void (*encode)(core::MessageWriter&, const Info&);
};

const Message<ChannelsInfo> kChannels{ETHTOOL_MSG_CHANNELS_GET, ETHTOOL_MSG_CHANNELS_SET, "ethtool -l", "ethtool -L",
                                      "channel count", genl::encode};
const Message<RingsInfo> kRings{ETHTOOL_MSG_RINGS_GET, ETHTOOL_MSG_RINGS_SET, "ethtool -g", "ethtool -G",
                                "ring parameter", genl::encode};
const Message<CoalesceInfo> kCoalesce{ETHTOOL_MSG_COALESCE_GET, ETHTOOL_MSG_COALESCE_SET, "ethtool -c", "ethtool -C",
                                      "coalescing parameter", genl::encode};
const Message<LinkModesInfo> kLinkModes{ETHTOOL_MSG_LINKMODES_GET, ETHTOOL_MSG_LINKMODES_SET, "ethtool (link modes)",
                                        "ethtool -s", "link mode setting", genl::encode};
const Message<LinkInfoSettings> kLinkInfo{ETHTOOL_MSG_LINKINFO_GET, ETHTOOL_MSG_LINKINFO_SET, "ethtool (link info)",
                                          "ethtool -s", "port, mdix or phyad", genl::encode};
const Message<WolInfo> kWol{ETHTOOL_MSG_WOL_GET, ETHTOOL_MSG_WOL_SET, "ethtool (wake-on)", "ethtool -s",
                            "wake-on setting", genl::encode};
const Message<DebugInfo> kDebug{ETHTOOL_MSG_DEBUG_GET, ETHTOOL_MSG_DEBUG_SET, "ethtool (message level)", "ethtool -s",
                                "message level", genl::encode};
const Message<PauseInfo> kPause{ETHTOOL_MSG_PAUSE_GET, ETHTOOL_MSG_PAUSE_SET, "ethtool -a", "ethtool -A",
                                "pause parameter", genl::encode};
const Message<FecSettings> kFec{ETHTOOL_MSG_FEC_GET, ETHTOOL_MSG_FEC_SET, "ethtool --show-fec", "ethtool --set-fec",
                                "FEC encoding", genl::encode};

template <class Info>
Request getRequest(const Message<Info>& m, const GenlFamily& family, const Ifref& device, uint32_t flags = 0) {
  return getRequest(family, m.get, device, m.show, flags);
}

// A SET request: the header, then the set members (by the message's table); nothing to write
// is refused before anything is sent.
template <class Info>
Request setRequest(const Message<Info>& m, const GenlFamily& family, const Ifref& device, const Info& x) {
  std::string op = std::string(m.change) + " " + device.toString();
  genl::GenlWriter w(family, m.set, ETHTOOL_GENL_VERSION);
  putHeader(w, device);
  std::size_t header = w.size();
  m.encode(w, x);
  if (w.size() == header) throw Error::invalidArgument(op, std::string("no ") + m.noun + " given to change");
  return w.toRequest(op);
}

}  // namespace

Request EthtoolRequests::getChannels(const GenlFamily& f, const Ifref& d) { return getRequest(kChannels, f, d); }
Request EthtoolRequests::setChannels(const GenlFamily& f, const Ifref& d, const ChannelsInfo& c) { return setRequest(kChannels, f, d, c); }
Request EthtoolRequests::getRings(const GenlFamily& f, const Ifref& d) { return getRequest(kRings, f, d); }
Request EthtoolRequests::setRings(const GenlFamily& f, const Ifref& d, const RingsInfo& g) { return setRequest(kRings, f, d, g); }
Request EthtoolRequests::getCoalesce(const GenlFamily& f, const Ifref& d) { return getRequest(kCoalesce, f, d); }
Request EthtoolRequests::setCoalesce(const GenlFamily& f, const Ifref& d, const CoalesceInfo& c) { return setRequest(kCoalesce, f, d, c); }

Request EthtoolRequests::getFeatures(const GenlFamily& family, const Ifref& device) {
  // Compact: four bitsets of a few words each instead of a nest per feature; the names come
  // once per Netlink from the ETH_SS_FEATURES string set.
  return getRequest(family, ETHTOOL_MSG_FEATURES_GET, device, "ethtool -k", ETHTOOL_FLAG_COMPACT_BITSETS);
}

Request EthtoolRequests::setFeatures(const GenlFamily& family, const Ifref& device, const FeatureChanges& changes) {
  std::string op = "ethtool -K " + device.toString();
  for (const auto& [name, on] : changes.changes) op += " " + name + (on ? " on" : " off");
  if (changes.changes.empty()) throw Error::invalidArgument(op, "no feature given to change");
  genl::GenlWriter w(family, ETHTOOL_MSG_FEATURES_SET, ETHTOOL_GENL_VERSION);
  // No reply message: the API reads the features back itself, which also shows what an
  // ACKed request did not change.
  putHeader(w, device, ETHTOOL_FLAG_OMIT_REPLY);
  for (const auto& [name, on] : changes.changes)
    if (name.empty() || name.size() >= ETH_GSTRING_LEN)
      throw Error::invalidArgument(op, "feature name \"" + name + "\" is not a feature name");
  // By name: only the listed bits change (the kernel resolves names against its feature
  // strings and refuses an unknown one with extack).
  BitsetChange wanted;
  wanted.named = changes.changes;
  genl::putBitset(w, ETHTOOL_A_FEATURES_WANTED, wanted);
  return w.toRequest(op);
}

Request EthtoolRequests::stringSet(const GenlFamily& family, uint32_t setId) {
  genl::GenlWriter w(family, ETHTOOL_MSG_STRSET_GET, ETHTOOL_GENL_VERSION);
  // Global sets need no device: an empty header.
  std::size_t header = w.beginNest(ETHTOOL_A_STRSET_HEADER);
  w.endNest(header);
  std::size_t sets = w.beginNest(ETHTOOL_A_STRSET_STRINGSETS);
  std::size_t set = w.beginNest(ETHTOOL_A_STRINGSETS_STRINGSET);
  w.putU32(ETHTOOL_A_STRINGSET_ID, setId);
  w.endNest(set);
  w.endNest(sets);
  return w.toRequest("ethtool string set " + std::to_string(setId));
}

Request EthtoolRequests::featureNames(const GenlFamily& family) { return stringSet(family, ETH_SS_FEATURES); }

namespace {

// A STATS_GET for the first `groups` standard groups: a compact bitset without a mask (NOMASK),
// every bit set (bit 0 eth-phy, 1 eth-mac, 2 eth-ctrl, 3 rmon, then what newer kernels add).
Request statsRequest(const GenlFamily& family, const Ifref& device, uint32_t groups) {
  genl::GenlWriter w(family, ETHTOOL_MSG_STATS_GET, ETHTOOL_GENL_VERSION);
  putHeader(w, device, 0, ETHTOOL_A_STATS_HEADER);
  BitsetChange all;
  all.size = groups;
  all.value.assign((groups + 31) / 32, ~0u);
  if (groups % 32) all.value.back() = (1u << (groups % 32)) - 1;
  genl::putBitset(w, ETHTOOL_A_STATS_GROUPS, all);
  return w.toRequest("ethtool -S " + device.toString() + " --all-groups");
}

}  // namespace

Request EthtoolRequests::getStats(const GenlFamily& family, const Ifref& device) {
  return statsRequest(family, device, __ETHTOOL_STATS_CNT);
}

// ---- link settings (ethtool DEV, -s), pause (-a, -A), time stamping (-T) ----------------

// Without ETHTOOL_FLAG_COMPACT_BITSETS: the kernel names every bit of its bitsets in the reply,
// as ethtool itself asks, so no string set is needed to print them.
Request EthtoolRequests::getLinkModes(const GenlFamily& f, const Ifref& d) { return getRequest(kLinkModes, f, d); }
Request EthtoolRequests::getLinkInfo(const GenlFamily& f, const Ifref& d) { return getRequest(kLinkInfo, f, d); }
Request EthtoolRequests::getLinkState(const GenlFamily& family, const Ifref& device) {
  return getRequest(family, ETHTOOL_MSG_LINKSTATE_GET, device, "ethtool (link state)");
}
Request EthtoolRequests::getWol(const GenlFamily& f, const Ifref& d) { return getRequest(kWol, f, d); }
Request EthtoolRequests::getDebug(const GenlFamily& f, const Ifref& d) { return getRequest(kDebug, f, d); }
Request EthtoolRequests::setLinkModes(const GenlFamily& f, const Ifref& d, const LinkModesInfo& x) { return setRequest(kLinkModes, f, d, x); }
Request EthtoolRequests::setLinkInfo(const GenlFamily& f, const Ifref& d, const LinkInfoSettings& x) { return setRequest(kLinkInfo, f, d, x); }
Request EthtoolRequests::setWol(const GenlFamily& f, const Ifref& d, const WolInfo& x) { return setRequest(kWol, f, d, x); }
Request EthtoolRequests::setDebug(const GenlFamily& f, const Ifref& d, const DebugInfo& x) { return setRequest(kDebug, f, d, x); }
Request EthtoolRequests::getPause(const GenlFamily& family, const Ifref& device, bool statistics) {
  return getRequest(kPause, family, device, statistics ? ETHTOOL_FLAG_STATS : 0);
}
Request EthtoolRequests::setPause(const GenlFamily& f, const Ifref& d, const PauseInfo& x) { return setRequest(kPause, f, d, x); }
Request EthtoolRequests::getTsInfo(const GenlFamily& family, const Ifref& device) {
  return getRequest(family, ETHTOOL_MSG_TSINFO_GET, device, "ethtool -T");
}
// Without ETHTOOL_FLAG_COMPACT_BITSETS, as ethtool asks: the modes come back by name too.
Request EthtoolRequests::getFec(const GenlFamily& family, const Ifref& device, bool statistics) {
  return getRequest(kFec, family, device, statistics ? ETHTOOL_FLAG_STATS : 0);
}
Request EthtoolRequests::getTunnelInfo(const GenlFamily& family, const Ifref& device) {
  return getRequest(family, ETHTOOL_MSG_TUNNEL_INFO_GET, device, "ethtool --show-tunnels");
}
Request EthtoolRequests::setFec(const GenlFamily& f, const Ifref& d, const FecSettings& x) { return setRequest(kFec, f, d, x); }

// ---- EthtoolApi --------------------------------------------------------------------------

struct EthtoolApi::Cache {
  std::map<uint32_t, std::vector<std::string>> strings;  // global string sets by ETH_SS_* id
};

EthtoolApi::EthtoolApi(GenlApi& families, core::Engine& engine)
    : GenlFamilyApi(families, engine, kFamily), cache_(std::make_unique<Cache>()) {}
EthtoolApi::~EthtoolApi() = default;

const std::vector<std::string>& EthtoolApi::featureNames() { return strings(ETH_SS_FEATURES); }

const std::vector<std::string>& EthtoolApi::strings(uint32_t setId) {
  if (auto it = cache_->strings.find(setId); it != cache_->strings.end()) return it->second;
  Request r = EthtoolRequests::stringSet(family(), setId);
  std::vector<std::string> names;
  query(r, [&](const nlmsghdr* m) { names = genl::decodeStringSet(m); });
  return cache_->strings.emplace(setId, std::move(names)).first->second;
}

ChannelsInfo EthtoolApi::channels(const Ifref& d) { return queryOne<ChannelsInfo>(EthtoolRequests::getChannels(family(), d), genl::decodeChannels); }

void EthtoolApi::setChannels(const Ifref& d, const ChannelsInfo& x) { execute(EthtoolRequests::setChannels(family(), d, x)); }

RingsInfo EthtoolApi::rings(const Ifref& d) { return queryOne<RingsInfo>(EthtoolRequests::getRings(family(), d), genl::decodeRings); }

void EthtoolApi::setRings(const Ifref& d, const RingsInfo& x) { execute(EthtoolRequests::setRings(family(), d, x)); }

FeaturesInfo EthtoolApi::features(const Ifref& device) {
  const std::vector<std::string>& names = strings(ETH_SS_FEATURES);
  Request r = EthtoolRequests::getFeatures(family(), device);
  return queryOne<FeaturesInfo>(r, [&](const nlmsghdr* m) { return genl::decodeFeatures(m, names); });
}

FeaturesSetResult EthtoolApi::setFeatures(const Ifref& device, const FeatureChanges& changes) {
  Request r = EthtoolRequests::setFeatures(family(), device, changes);
  execute(r);
  FeaturesSetResult out{features(device), {}};
  for (const auto& [name, on] : changes.changes) {
    const Feature* f = out.after.find(name);
    if (!f || f->active != on) out.unmet.emplace_back(name, on);
  }
  return out;
}

CoalesceInfo EthtoolApi::coalesce(const Ifref& d) { return queryOne<CoalesceInfo>(EthtoolRequests::getCoalesce(family(), d), genl::decodeCoalesce); }

void EthtoolApi::setCoalesce(const Ifref& d, const CoalesceInfo& x) { execute(EthtoolRequests::setCoalesce(family(), d, x)); }

std::vector<StatsGroup> EthtoolApi::stats(const Ifref& device) {
  // Every group this kernel knows (its ETH_SS_STATS_STD string set: 4 on 6.1, "phydev" too on
  // newer ones), as ethtool's --all-groups asks; every group nest of the reply is returned, an
  // empty one included (the driver lacks its callback: ethtool's JSON prints it as {}).
  const std::vector<std::string>& groupNames = strings(ETH_SS_STATS_STD);
  Request r = statsRequest(family(), device, static_cast<uint32_t>(std::max<std::size_t>(groupNames.size(), 1)));
  std::vector<genl::RawStatsGroup> raw;
  query(r, [&](const nlmsghdr* m) { raw = genl::decodeStats(m); });
  std::vector<StatsGroup> out;
  for (const auto& g : raw) {
    StatsGroup group;
    group.id = g.id;
    group.name = g.id < groupNames.size() ? groupNames[g.id] : "group-" + std::to_string(g.id);
    if (!g.counters.empty()) {
      const std::vector<std::string>& names = strings(g.stringSet);
      for (const auto& [index, value] : g.counters)
        group.counters.emplace_back(index < names.size() ? names[index] : "stat-" + std::to_string(index), value);
    }
    out.push_back(std::move(group));
  }
  return out;
}

LinkSettings EthtoolApi::linkSettings(const Ifref& device) {
  // A part the driver does not offer (EOPNOTSUPP) is left unset, as ethtool leaves its lines out.
  auto part = [&](const Request& request, auto decode) {
    std::optional<decltype(decode(nullptr))> out;
    try {
      out = queryOne<decltype(decode(nullptr))>(request, decode);
    } catch (const Error& e) {
      if (e.code() != std::errc::operation_not_supported) throw;
    }
    return out;
  };
  LinkSettings out;
  out.modes = part(EthtoolRequests::getLinkModes(family(), device), genl::decodeLinkModes);
  out.info = part(EthtoolRequests::getLinkInfo(family(), device), genl::decodeLinkInfo);
  out.wol = part(EthtoolRequests::getWol(family(), device), genl::decodeWol);
  out.debug = part(EthtoolRequests::getDebug(family(), device), genl::decodeDebug);
  out.state = part(EthtoolRequests::getLinkState(family(), device), genl::decodeLinkState);
  return out;
}

void EthtoolApi::setLinkModes(const Ifref& device, const LinkModesInfo& modes) {
  execute(EthtoolRequests::setLinkModes(family(), device, modes));
}
void EthtoolApi::setLinkInfo(const Ifref& device, const LinkInfoSettings& info) {
  execute(EthtoolRequests::setLinkInfo(family(), device, info));
}
void EthtoolApi::setWol(const Ifref& device, const WolInfo& wol) { execute(EthtoolRequests::setWol(family(), device, wol)); }
void EthtoolApi::setDebug(const Ifref& device, const DebugInfo& debug) {
  execute(EthtoolRequests::setDebug(family(), device, debug));
}
PauseInfo EthtoolApi::pause(const Ifref& device, bool statistics) {
  return queryOne<PauseInfo>(EthtoolRequests::getPause(family(), device, statistics), genl::decodePause);
}
void EthtoolApi::setPause(const Ifref& device, const PauseInfo& pause) {
  execute(EthtoolRequests::setPause(family(), device, pause));
}
TsInfo EthtoolApi::tsInfo(const Ifref& device) {
  return queryOne<TsInfo>(EthtoolRequests::getTsInfo(family(), device), genl::decodeTsInfo);
}
FecSettings EthtoolApi::fec(const Ifref& device, bool statistics) {
  return queryOne<FecSettings>(EthtoolRequests::getFec(family(), device, statistics), genl::decodeFec);
}
void EthtoolApi::setFec(const Ifref& device, const FecSettings& fec) { execute(EthtoolRequests::setFec(family(), device, fec)); }
TunnelOffloadInfo EthtoolApi::tunnelInfo(const Ifref& device) {
  const std::vector<std::string>& types = strings(ETH_SS_UDP_TUNNEL_TYPES);
  return queryOne<TunnelOffloadInfo>(EthtoolRequests::getTunnelInfo(family(), device),
                                     [&](const nlmsghdr* m) { return genl::decodeTunnelInfo(m, types); });
}

namespace {

/// One SIOCETHTOOL call on `fd` (any socket: the kernel runs it in the socket's namespace).
void ethtoolIoctl(int fd, const std::string& device, void* command, const std::string& operation) {
  ifreq request{};
  device.copy(request.ifr_name, sizeof request.ifr_name - 1);
  request.ifr_data = static_cast<char*>(command);
  if (::ioctl(fd, SIOCETHTOOL, &request) != 0)
    throw Error(std::error_code(errno, std::generic_category()), operation);
}

/// The number of strings in set `set` of `device` (0 when the driver has none).
uint32_t stringCount(int fd, const std::string& device, uint32_t set, const std::string& operation) {
  // The reply puts one count per set asked for after the header: room for one.
  alignas(ethtool_sset_info) unsigned char buffer[sizeof(ethtool_sset_info) + sizeof(uint32_t)] = {};
  auto* query = reinterpret_cast<ethtool_sset_info*>(buffer);
  query->cmd = ETHTOOL_GSSET_INFO;
  query->sset_mask = 1ULL << set;
  ethtoolIoctl(fd, device, query, operation);
  return (query->sset_mask & (1ULL << set)) ? query->data[0] : 0;
}

/// The name of `device` (the ioctls take names), looked up by SIOCGIFNAME for an ifindex.
std::string deviceName(int fd, const Ifref& device, const std::string& option) {
  return core::ioctlDeviceName(fd, device, "ethtool " + option + " " + device.toString());
}

/// A fixed-size string of an ioctl reply (NUL-terminated unless it fills the array).
template <std::size_t N>
std::string fixedString(const char (&text)[N]) {
  return std::string(text, ::strnlen(text, N));
}

}  // namespace

DriverInfo EthtoolApi::driverInfo(const Ifref& device) {
  const int fd = engine().fd();
  const std::string name = deviceName(fd, device, "-i");
  ethtool_drvinfo info{};
  info.cmd = ETHTOOL_GDRVINFO;
  ethtoolIoctl(fd, name, &info, "ethtool -i " + name);
  return {fixedString(info.driver), fixedString(info.version), fixedString(info.fw_version),
          fixedString(info.erom_version), fixedString(info.bus_info), info.n_stats, info.testinfo_len,
          info.eedump_len, info.regdump_len, info.n_priv_flags};
}

std::vector<DriverStat> EthtoolApi::driverStats(const Ifref& device) {
  const int fd = engine().fd();
  const std::string name = deviceName(fd, device, "-S");
  const std::string operation = "ethtool -S " + name;
  // GSTRINGS and GSTATS write as many entries as the driver has at the time of the call, not
  // as many as asked for: the buffers get room for a count that grew in between (a channel
  // change), and the three calls are made again when the counts disagree.
  for (int attempt = 0;; ++attempt) {
    const uint32_t count = stringCount(fd, name, ETH_SS_STATS, operation);
    if (count == 0) throw Error(std::make_error_code(std::errc::operation_not_supported), operation, "no stats available");
    const std::size_t room = 2 * std::size_t{count} + 64;
    std::unique_ptr<ethtool_gstrings, void (*)(void*)> strings(
        static_cast<ethtool_gstrings*>(std::calloc(1, sizeof(ethtool_gstrings) + room * ETH_GSTRING_LEN)), std::free);
    std::unique_ptr<ethtool_stats, void (*)(void*)> values(
        static_cast<ethtool_stats*>(std::calloc(1, sizeof(ethtool_stats) + room * sizeof(uint64_t))), std::free);
    if (!strings || !values) throw std::bad_alloc();
    strings->cmd = ETHTOOL_GSTRINGS;
    strings->string_set = ETH_SS_STATS;
    strings->len = count;
    ethtoolIoctl(fd, name, strings.get(), operation);
    values->cmd = ETHTOOL_GSTATS;
    values->n_stats = count;
    ethtoolIoctl(fd, name, values.get(), operation);
    if ((strings->len != count || values->n_stats != count) && attempt < 3) continue;
    const uint32_t n = std::min({count, strings->len, values->n_stats});
    std::vector<DriverStat> out;
    out.reserve(n);
    for (uint32_t i = 0; i < n; ++i) {
      const char* text = reinterpret_cast<const char*>(strings->data) + std::size_t{i} * ETH_GSTRING_LEN;
      out.push_back({std::string(text, ::strnlen(text, ETH_GSTRING_LEN)), values->data[i]});
    }
    return out;
  }
}

BatchResult EthtoolApi::run(std::span<const Request> requests, const BatchOptions& options) {
  BatchResult result;
  result.results.reserve(requests.size());
  BatchResult totals = engine().runBatch(requests, options, [&](std::size_t, const RequestResult& r) { result.results.push_back(r); });
  result.applied = totals.applied;
  result.failed = totals.failed;
  result.notSent = totals.notSent;
  return result;
}

}  // namespace fastlink
