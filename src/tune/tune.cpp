// TuneApi: plan, apply (snapshot first, roll back on failure, verify) and restore.
#include "fastlink/tune.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <nlohmann/json.hpp>
#include <string>

#include "core/whole_file.hpp"
#include "fastlink/error.hpp"
#include "fastlink/netlink.hpp"
#include "fastlink/netns.hpp"
#include "steer/sysfs_file.hpp"

namespace fastlink {

namespace {

using nlohmann::json;

// ---- snapshot file (JSON) ----

// The channel counts tune sets and restores (not the maxima), by their keys in the snapshot.
constexpr std::pair<const char*, std::optional<uint32_t> ChannelsInfo::*> kCounts[] = {
    {"rx", &ChannelsInfo::rx}, {"tx", &ChannelsInfo::tx}, {"other", &ChannelsInfo::other}, {"combined", &ChannelsInfo::combined}};

json channelsJson(const ChannelsInfo& c) {
  json j = json::object();
  for (const auto& [key, count] : kCounts)
    if (c.*count) j[key] = *(c.*count);
  return j;
}

ChannelsInfo channelsOf(const json& j) {
  ChannelsInfo c;
  for (const auto& [key, count] : kCounts)
    if (j.contains(key)) c.*count = j[key].get<uint32_t>();
  return c;
}

json stateJson(const TuneState& s) {
  json j{{"device", s.device}, {"ifindex", s.ifindex}};
  if (s.channels) j["channels"] = channelsJson(*s.channels);
  j["irqs"] = json::array();
  for (const auto& i : s.irqs) j["irqs"].push_back({{"irq", i.irq}, {"cpus", i.cpus}});
  j["rx"] = json::array();
  for (const auto& q : s.rx) j["rx"].push_back({{"queue", q.queue}, {"rps_cpus", q.rpsCpus}, {"rps_flow_cnt", q.rpsFlowCount}});
  j["tx"] = json::array();
  for (const auto& q : s.tx) j["tx"].push_back({{"queue", q.queue}, {"xps_cpus", q.xpsCpus}});
  return j;
}

TuneState stateOf(const json& j) {
  TuneState s;
  s.device = j.at("device").get<std::string>();
  s.ifindex = j.at("ifindex").get<uint32_t>();
  if (j.contains("channels")) s.channels = channelsOf(j["channels"]);
  for (const auto& i : j.at("irqs")) s.irqs.push_back({i.at("irq").get<unsigned>(), i.at("cpus").get<std::vector<unsigned>>()});
  for (const auto& q : j.at("rx"))
    s.rx.push_back({q.at("queue").get<uint32_t>(), q.at("rps_cpus").get<std::vector<unsigned>>(), q.at("rps_flow_cnt").get<uint32_t>()});
  for (const auto& q : j.at("tx")) s.tx.push_back({q.at("queue").get<uint32_t>(), q.at("xps_cpus").get<std::vector<unsigned>>()});
  return s;
}

// Written whole (a crash never leaves half a snapshot), without fsync: the directory is a tmpfs
// (/run) whose contents die with the settings they record, at reboot.
void writeSnapshot(const std::string& path, const std::string& dir, const TuneState& s) {
  core::makeDirectories(dir, "save snapshot " + path);
  core::replaceWholeFile(path, stateJson(s).dump(2) + "\n", "save snapshot " + path, core::Durability::Volatile);
}


// CPU c is served by queue c mod Q: queue q's CPUs.
std::vector<unsigned> cpusOfQueue(const std::vector<unsigned>& cpus, uint32_t queue, uint32_t queues) {
  std::vector<unsigned> out;
  for (std::size_t i = 0; i < cpus.size(); ++i)
    if (i % queues == queue) out.push_back(cpus[i]);
  return out;
}

bool sameCounts(const ChannelsInfo& a, const ChannelsInfo& b) {
  for (const auto& [key, count] : kCounts)
    if ((a.*count).value_or(0) != (b.*count).value_or(0)) return false;
  return true;
}

// `c`'s counts, or only those that differ from `current`'s: a count the driver cannot set
// (veth's combined 0) stays out of a change unless it changes.
ChannelsInfo countsOf(const ChannelsInfo& c, const ChannelsInfo* current = nullptr) {
  ChannelsInfo out;
  for (const auto& [key, count] : kCounts)
    if (!current || c.*count != current->*count) out.*count = c.*count;
  return out;
}

}  // namespace

TuneApi Netlink::tune() { return tune(TuneOptions{}); }
TuneApi Netlink::tune(const TuneOptions& options) { return make<TuneApi>(ethtool(), options); }

TuneApi::TuneApi(IEthtoolApi& ethtool, TuneOptions options)
    : ethtool_(ethtool), options_(std::move(options)), steer_(options_.sysfsRoot, options_.procRoot) {
  if (options_.netnsCookie == 0) options_.netnsCookie = netnsCookie();
}

uint32_t TuneApi::ifindexOf(const std::string& device) {
  validateIfname(device);
  std::string path = options_.sysfsRoot + "/class/net/" + device + "/ifindex";
  if (!steer::exists(path)) throw steer::noDevice("cat " + path, device);
  return static_cast<uint32_t>(std::stoul(steer::readFile(path)));
}

std::string TuneApi::snapshotPath(const std::string& device) {
  return options_.snapshotDir + "/" + std::to_string(options_.netnsCookie) + "-" + std::to_string(ifindexOf(device)) + ".json";
}

TuneState TuneApi::read(const std::string& device) {
  TuneState s;
  s.device = device;
  s.ifindex = ifindexOf(device);
  try {
    s.channels = ethtool_.channels(device);
  } catch (const Error& e) {
    if (e.code() != std::errc::operation_not_supported) throw;
  }
  try {
    for (const auto& d : steer_.deviceIrqs(device))
      if (d.queue) s.irqs.push_back({d.irq, d.cpus});
  } catch (const Error& e) {
    if (e.code() != std::errc::no_such_device) throw;
  }
  s.rx = steer_.rxQueues(device);
  s.tx = steer_.txQueues(device);
  return s;
}

TunePlan TuneApi::plan(const std::string& device) {
  TunePlan p;
  p.before = read(device);
  p.cpus = options_.cpus.empty() ? steer_.onlineCpus() : options_.cpus;
  std::sort(p.cpus.begin(), p.cpus.end());
  p.cpus.erase(std::unique(p.cpus.begin(), p.cpus.end()), p.cpus.end());
  auto online = steer_.onlineCpus();
  for (unsigned c : p.cpus)
    if (!std::binary_search(online.begin(), online.end(), c))
      throw steer::fileError(EINVAL, "tune " + device, "CPU " + std::to_string(c) + " is not online (online: " + steer::cpuList(online) + ")");
  const uint32_t ncpu = static_cast<uint32_t>(p.cpus.size());
  p.after = p.before;

  // Channels: one queue per CPU, up to what the device has.
  uint32_t rxQueues = static_cast<uint32_t>(p.before.rx.size());
  uint32_t txQueues = static_cast<uint32_t>(p.before.tx.size());
  if (!p.before.channels) {
    p.channelsNote = "the driver has no channel settings (ethtool -l: not supported); queues left as they are";
  } else {
    const ChannelsInfo& max = *p.before.channels;  // read() kept the maxima
    ChannelsInfo want = countsOf(*p.before.channels);
    if (max.combinedMax.value_or(0) > 0) {
      want.combined = std::min(ncpu, *max.combinedMax);
      // Dedicated rx/tx channels on top of combined ones would add queues with no CPU of their own.
      if (want.rx) want.rx = 0;
      if (want.tx) want.tx = 0;
      rxQueues = txQueues = *want.combined;
    } else if (max.rxMax.value_or(0) > 0 || max.txMax.value_or(0) > 0) {
      if (max.rxMax.value_or(0) > 0) want.rx = rxQueues = std::min(ncpu, *max.rxMax);
      if (max.txMax.value_or(0) > 0) want.tx = txQueues = std::min(ncpu, *max.txMax);
    } else {
      p.channelsNote = "the driver reports no channel maxima; queues left as they are";
    }
    p.after.channels = want;
  }

  // IRQs: queue q's interrupt on the first CPU queue q serves.
  if (p.before.irqs.empty()) {
    p.irqNote = "device has no interrupts (a virtual device): IRQ step skipped";
  } else {
    p.after.irqs.clear();
    for (std::size_t i = 0; i < p.before.irqs.size(); ++i)
      p.after.irqs.push_back({p.before.irqs[i].irq, {p.cpus[i % ncpu]}});
  }

  // RPS and XPS for the queues the device will have.
  p.after.rx.clear();
  for (uint32_t q = 0; q < std::max(rxQueues, 1u); ++q) {
    uint32_t flows = q < p.before.rx.size() ? p.before.rx[q].rpsFlowCount : 0;
    p.after.rx.push_back({q, cpusOfQueue(p.cpus, q, std::max(rxQueues, 1u)), flows});
  }
  p.after.tx.clear();
  for (uint32_t q = 0; q < std::max(txQueues, 1u); ++q) p.after.tx.push_back({q, cpusOfQueue(p.cpus, q, std::max(txQueues, 1u))});
  return p;
}

void TuneApi::set(const TuneState& target, const TuneState& current) {
  if (target.channels && current.channels && !sameCounts(*target.channels, *current.channels))
    ethtool_.setChannels(target.device, countsOf(*target.channels, &*current.channels));
  steer_.applyIrqAffinity(target.irqs);
  // An RPS/XPS mask with no CPU that is online would be refused: empty means "off" and is written as 0.
  for (const auto& q : target.rx) {
    steer_.setRpsCpus(target.device, q.queue, q.rpsCpus);
    steer_.setRpsFlowCount(target.device, q.queue, q.rpsFlowCount);
  }
  for (const auto& q : target.tx) steer_.setXpsCpus(target.device, q.queue, q.xpsCpus);
}

void TuneApi::apply(const TunePlan& plan) {
  const std::string& dev = plan.after.device;
  std::string path = snapshotPath(dev);
  if (steer::exists(path))
    throw steer::fileError(EEXIST, "tune " + dev, "already tuned: a snapshot exists in " + path + " (restore first: fastlink tune " + dev + " --restore)");
  TuneState now = read(dev);
  if (!(now == plan.before)) throw steer::fileError(EAGAIN, "tune " + dev, "the device changed since the plan was made: plan again");
  writeSnapshot(path, options_.snapshotDir, plan.before);
  try {
    set(plan.after, plan.before);
    TuneState got = read(dev);
    // Verify: everything the plan set (queues the plan does not mention keep their values).
    TuneState want = plan.after;
    want.rx.resize(std::min(want.rx.size(), got.rx.size()));
    if (got.channels && want.channels && !sameCounts(*got.channels, *want.channels))
      throw steer::fileError(EIO, "ethtool -l " + dev, "channels read back differ from the plan");
    if (got.irqs != want.irqs) throw steer::fileError(EIO, "cat /proc/irq/*/smp_affinity_list", "IRQ affinity read back differs from the plan");
    if (got.rx.size() < plan.after.rx.size() || got.tx.size() < plan.after.tx.size())
      throw steer::fileError(EIO, "ls /sys/class/net/" + dev + "/queues", "the device has fewer queues than planned");
    for (std::size_t q = 0; q < plan.after.rx.size(); ++q)
      if (got.rx[q].rpsCpus != plan.after.rx[q].rpsCpus) throw steer::fileError(EIO, "cat rx-" + std::to_string(q) + "/rps_cpus", "differs from the plan");
    for (std::size_t q = 0; q < plan.after.tx.size(); ++q)
      if (got.tx[q].xpsCpus != plan.after.tx[q].xpsCpus) throw steer::fileError(EIO, "cat tx-" + std::to_string(q) + "/xps_cpus", "differs from the plan");
  } catch (const Error& e) {
    // Put back what was changed; the first error is the one the caller needs.
    try {
      set(plan.before, read(dev));
      ::unlink(path.c_str());
    } catch (const Error&) {
      throw Error(e.code(), e.operation(), e.extack() + " (rollback failed too: the snapshot stays in " + path + ")");
    }
    throw;
  }
}

TuneState TuneApi::restore(const std::string& device) {
  std::string path = snapshotPath(device);
  if (!steer::exists(path)) throw steer::fileError(ENOENT, "tune " + device + " --restore", "no snapshot in " + path + " (device not tuned)");
  TuneState saved;
  try {
    saved = stateOf(json::parse(steer::readFile(path)));
  } catch (const json::exception& e) {
    throw Error(make_error_code(Errc::malformed_reply), "tune " + device + " --restore", std::string("bad snapshot ") + path + ": " + e.what());
  }
  saved.device = device;  // the device may have been renamed since; the ifindex is what matched
  set(saved, read(device));
  ::unlink(path.c_str());
  return saved;
}

}  // namespace fastlink
