// SteeringApi: RPS/RFS/XPS settings through sysfs and procfs, every write read back.
#include "fastlink/steering.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <string>
#include <system_error>

#include "fastlink/error.hpp"
#include "fastlink/types.hpp"
#include "core/whole_file.hpp"
#include "steer/sysfs_file.hpp"

namespace fastlink {

using namespace steer;  // the sysfs file helpers (steer/sysfs_file.hpp)

namespace {

uint32_t parseCount(const std::string& text, const std::string& path) {
  try {
    std::size_t used = 0;
    unsigned long v = std::stoul(text, &used, 10);
    if (used == text.size() && v <= UINT32_MAX) return static_cast<uint32_t>(v);
  } catch (const std::exception&) {
  }
  throw Error(make_error_code(Errc::malformed_reply), "cat " + path, "not a number: \"" + text + "\"");
}

// Queue numbers of DEV's queues of one kind ("rx-" / "tx-"), sorted.
std::vector<uint32_t> queues(const std::string& dir, const std::string& prefix, const std::string& device) {
  if (!exists(dir)) throw noDevice("ls " + dir, device);
  std::vector<uint32_t> out;
  for (const auto& name : core::directoryEntries(dir))
    if (name.rfind(prefix, 0) == 0) out.push_back(static_cast<uint32_t>(std::stoul(name.substr(prefix.size()))));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::vector<unsigned> parseCpuMask(const std::string& text) {
  std::vector<uint32_t> words;  // highest first, as written
  std::size_t start = 0;
  for (;;) {
    std::size_t comma = text.find(',', start);
    std::string word = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (word.empty() || word.size() > 8 || word.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
      throw Error::invalidArgument("cpu mask \"" + text + "\"", "not a CPU mask (hex words separated by commas)");
    words.push_back(static_cast<uint32_t>(std::stoul(word, nullptr, 16)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  std::vector<unsigned> cpus;
  for (std::size_t i = 0; i < words.size(); ++i) {
    uint32_t w = words[words.size() - 1 - i];
    for (unsigned b = 0; b < 32; ++b)
      if (w & (1u << b)) cpus.push_back(static_cast<unsigned>(i * 32 + b));
  }
  return cpus;
}

std::string formatCpuMask(const std::vector<unsigned>& cpus) {
  unsigned highest = cpus.empty() ? 0 : *std::max_element(cpus.begin(), cpus.end());
  std::vector<uint32_t> words(highest / 32 + 1, 0);
  for (unsigned c : cpus) words[c / 32] |= 1u << (c % 32);
  std::string s;
  char buf[16];
  for (std::size_t i = words.size(); i-- > 0;) {
    std::snprintf(buf, sizeof buf, i + 1 == words.size() ? "%x" : "%08x", words[i]);
    s += (s.empty() ? "" : ",") + std::string(buf);
  }
  return s;
}

SteeringApi::SteeringApi(std::string sysfsRoot, std::string procRoot)
    : sysfsRoot_(std::move(sysfsRoot)), procRoot_(std::move(procRoot)) {}

std::string SteeringApi::queueDir(const std::string& device, const char* kind, uint32_t queue) const {
  validateIfname(device);
  return sysfsRoot_ + "/class/net/" + device + "/queues/" + kind + "-" + std::to_string(queue);
}

std::vector<RxQueueSteering> SteeringApi::rxQueues(const std::string& device) const {
  validateIfname(device);
  std::vector<RxQueueSteering> out;
  for (uint32_t q : queues(sysfsRoot_ + "/class/net/" + device + "/queues", "rx-", device)) {
    std::string dir = queueDir(device, "rx", q);
    out.push_back({q, parseCpuMask(readFile(dir + "/rps_cpus")), parseCount(readFile(dir + "/rps_flow_cnt"), dir)});
  }
  return out;
}

std::vector<TxQueueSteering> SteeringApi::txQueues(const std::string& device) const {
  validateIfname(device);
  std::vector<TxQueueSteering> out;
  for (uint32_t q : queues(sysfsRoot_ + "/class/net/" + device + "/queues", "tx-", device))
    out.push_back({q, parseCpuMask(readFile(queueDir(device, "tx", q) + "/xps_cpus"))});
  return out;
}

namespace {
// `queueDir` when it exists; else an Error saying whether the device or the queue is missing.
std::string existingQueue(const std::string& sysfsRoot, const std::string& device, const std::string& queueDir) {
  if (exists(queueDir)) return queueDir;
  if (!exists(sysfsRoot + "/class/net/" + device)) throw noDevice(queueDir, device);
  throw fileError(ENOENT, queueDir, "device \"" + device + "\" has no such queue");
}

void setMask(const std::string& path, const std::vector<unsigned>& cpus) {
  writeFile(path, formatCpuMask(cpus));
  std::vector<unsigned> back = parseCpuMask(readFile(path));
  std::vector<unsigned> want = cpus;
  std::sort(want.begin(), want.end());
  want.erase(std::unique(want.begin(), want.end()), want.end());
  if (back != want)
    throw fileError(EIO, "echo " + formatCpuMask(cpus) + " > " + path,
                    "the kernel kept CPUs " + cpuList(back) + " of " + cpuList(want) + " (offline or isolated CPUs are dropped)");
}
}  // namespace

void SteeringApi::setRpsCpus(const std::string& device, uint32_t queue, const std::vector<unsigned>& cpus) const {
  setMask(existingQueue(sysfsRoot_, device, queueDir(device, "rx", queue)) + "/rps_cpus", cpus);
}

void SteeringApi::setXpsCpus(const std::string& device, uint32_t queue, const std::vector<unsigned>& cpus) const {
  setMask(existingQueue(sysfsRoot_, device, queueDir(device, "tx", queue)) + "/xps_cpus", cpus);
}

void SteeringApi::setRpsFlowCount(const std::string& device, uint32_t queue, uint32_t count) const {
  std::string path = existingQueue(sysfsRoot_, device, queueDir(device, "rx", queue)) + "/rps_flow_cnt";
  writeFile(path, std::to_string(count));
  // The kernel rounds the table up to a power of two (and 0 stays 0).
  uint32_t back = parseCount(readFile(path), path);
  if (back < count || (count == 0 && back != 0))
    throw fileError(EIO, "echo " + std::to_string(count) + " > " + path, "read back " + std::to_string(back));
}

void SteeringApi::setRpsAll(const std::string& device, const std::vector<unsigned>& cpus, uint32_t flowCountPerQueue) const {
  for (const auto& q : rxQueues(device)) {
    setRpsCpus(device, q.queue, cpus);
    setRpsFlowCount(device, q.queue, flowCountPerQueue);
  }
}

uint32_t SteeringApi::sockFlowEntries() const {
  std::string path = procRoot_ + "/sys/net/core/rps_sock_flow_entries";
  try {
    return parseCount(readFile(path), path);
  } catch (const Error& e) {
    if (e.code() == std::errc::no_such_file_or_directory)
      throw fileError(ENOENT, "cat " + path, "rps_sock_flow_entries exists only in the initial network namespace");
    throw;
  }
}

void SteeringApi::setSockFlowEntries(uint32_t entries) const {
  std::string path = procRoot_ + "/sys/net/core/rps_sock_flow_entries";
  if (!exists(path))
    throw fileError(ENOENT, "sysctl -w net.core.rps_sock_flow_entries=" + std::to_string(entries),
                    "rps_sock_flow_entries exists only in the initial network namespace");
  writeFile(path, std::to_string(entries));
  uint32_t back = sockFlowEntries();
  if (back < entries || (entries == 0 && back != 0))
    throw fileError(EIO, "sysctl -w net.core.rps_sock_flow_entries=" + std::to_string(entries), "read back " + std::to_string(back));
}

}  // namespace fastlink
