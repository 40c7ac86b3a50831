// SteeringApi's interrupt side: a device's IRQs found through its MSI vectors in sysfs and the
// handler names in /proc/irq/N/, affinity set through smp_affinity_list and read back, and
// threaded NAPI through /sys/class/net/DEV/threaded.
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <string>

#include "fastlink/error.hpp"
#include "fastlink/steering.hpp"
#include "fastlink/types.hpp"
#include "core/whole_file.hpp"
#include "steer/sysfs_file.hpp"

namespace fastlink {

using namespace steer;  // the sysfs file helpers (steer/sysfs_file.hpp)

namespace {

bool allDigits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

// A queue interrupt's handler name carries the queue's role and number: "virtio0-input.0",
// "eth0-TxRx-3", "mlx5_comp2@pci:...", "ens1f0-rx-1". Config, control and misc vectors
// ("virtio0-config", "eth0", "ens1f0-misc") are not queues.
bool isQueueName(const std::string& name) {
  std::string lower;
  for (char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* role : {"input", "output", "txrx", "-rx", "-tx", "comp", "queue"})
    if (lower.find(role) != std::string::npos) return true;
  return false;
}

std::string onlineText(const std::string& sysfsRoot) {
  return readFile(sysfsRoot + "/devices/system/cpu/online");
}

void requireOnline(const std::vector<unsigned>& cpus, const std::vector<unsigned>& online, const std::string& operation,
                   const std::string& onlineList) {
  if (cpus.empty()) throw Error::invalidArgument(operation, "no CPU given");
  for (unsigned c : cpus)
    if (!std::binary_search(online.begin(), online.end(), c))
      throw fileError(EINVAL, operation, "CPU " + std::to_string(c) + " is not online (online: " + onlineList + ")");
}

}  // namespace

std::vector<unsigned> SteeringApi::onlineCpus() const {
  std::string path = sysfsRoot_ + "/devices/system/cpu/online";
  return steer::parseCpuList(readFile(path), path);
}

std::vector<DeviceIrq> SteeringApi::deviceIrqs(const std::string& device) const {
  validateIfname(device);
  std::string netdev = sysfsRoot_ + "/class/net/" + device;
  std::string op = "ls " + netdev + "/device/msi_irqs";
  if (!exists(netdev)) throw noDevice(op, device);
  if (!exists(netdev + "/device"))
    throw fileError(ENODEV, op, "device \"" + device + "\" has no interrupts (a virtual device: no bus device behind it)");
  // virtio-net's netdev hangs off a virtio device whose parent is the PCI function.
  std::vector<unsigned> irqs;
  for (const char* dir : {"/device/msi_irqs", "/device/../msi_irqs"}) {
    for (const auto& e : core::directoryEntries(netdev + dir))
      if (allDigits(e)) irqs.push_back(static_cast<unsigned>(std::stoul(e)));
    if (!irqs.empty()) break;
  }
  if (irqs.empty() && exists(netdev + "/device/irq")) {
    std::string text = readFile(netdev + "/device/irq");
    if (allDigits(text) && text != "0") irqs.push_back(static_cast<unsigned>(std::stoul(text)));
  }
  if (irqs.empty()) throw fileError(ENODEV, op, "device \"" + device + "\" has no interrupts (no MSI vectors, no legacy irq)");
  std::sort(irqs.begin(), irqs.end());
  std::vector<DeviceIrq> out;
  for (unsigned irq : irqs) {
    std::string dir = procRoot_ + "/irq/" + std::to_string(irq);
    DeviceIrq d;
    d.irq = irq;
    // A handler registers a directory named after itself; files are the IRQ's settings.
    for (const auto& e : core::directoryEntries(dir)) {
      struct stat st {};
      if (::stat((dir + "/" + e).c_str(), &st) == 0 && S_ISDIR(st.st_mode)) d.name += (d.name.empty() ? "" : ",") + e;
    }
    d.queue = isQueueName(d.name);
    std::string list = dir + "/smp_affinity_list";
    if (exists(list)) d.cpus = steer::parseCpuList(readFile(list), list);
    out.push_back(std::move(d));
  }
  // Queue interrupts first, each group by IRQ number (the order drivers request them in).
  std::stable_partition(out.begin(), out.end(), [](const DeviceIrq& d) { return d.queue; });
  return out;
}

void SteeringApi::setIrqAffinity(unsigned irq, const std::vector<unsigned>& cpus) const {
  std::vector<unsigned> want = cpus;
  std::sort(want.begin(), want.end());
  want.erase(std::unique(want.begin(), want.end()), want.end());
  std::string path = procRoot_ + "/irq/" + std::to_string(irq) + "/smp_affinity_list";
  std::string op = "echo " + cpuList(want) + " > " + path;
  std::string online = onlineText(sysfsRoot_);
  requireOnline(want, steer::parseCpuList(online, sysfsRoot_ + "/devices/system/cpu/online"), op, online);
  if (!exists(procRoot_ + "/irq/" + std::to_string(irq))) throw fileError(ENOENT, op, "no IRQ " + std::to_string(irq));
  writeFile(path, cpuList(want));
  std::vector<unsigned> back = steer::parseCpuList(readFile(path), path);
  if (back != want)
    throw fileError(EIO, op, "read back CPUs " + cpuList(back) + " (a managed IRQ: the kernel owns its affinity)");
}

std::vector<IrqAffinity> SteeringApi::planQueueIrqSpread(const std::string& device, const std::vector<unsigned>& cpus) const {
  std::string online = onlineText(sysfsRoot_);
  requireOnline(cpus, steer::parseCpuList(online, sysfsRoot_ + "/devices/system/cpu/online"),
                "spread the queue IRQs of " + device + " over CPUs " + cpuList(cpus), online);
  std::vector<IrqAffinity> plan;
  std::size_t next = 0;
  for (const auto& d : deviceIrqs(device)) {
    if (!d.queue) continue;
    plan.push_back({d.irq, {cpus[next % cpus.size()]}});
    ++next;
  }
  if (plan.empty()) throw fileError(ENODEV, "ls /proc/irq/*/ for " + device, "device \"" + device + "\" has interrupts but none serves a queue");
  return plan;
}

void SteeringApi::applyIrqAffinity(const std::vector<IrqAffinity>& plan) const {
  std::string online = onlineText(sysfsRoot_);
  auto onlineCpus = steer::parseCpuList(online, sysfsRoot_ + "/devices/system/cpu/online");
  for (const auto& a : plan)
    requireOnline(a.cpus, onlineCpus, "echo " + cpuList(a.cpus) + " > /proc/irq/" + std::to_string(a.irq) + "/smp_affinity_list", online);
  for (const auto& a : plan) setIrqAffinity(a.irq, a.cpus);
}

bool SteeringApi::threaded(const std::string& device) const {
  validateIfname(device);
  std::string path = sysfsRoot_ + "/class/net/" + device + "/threaded";
  if (!exists(sysfsRoot_ + "/class/net/" + device)) throw noDevice("cat " + path, device);
  return readFile(path) != "0";
}

void SteeringApi::setThreaded(const std::string& device, bool on) const {
  validateIfname(device);
  std::string path = sysfsRoot_ + "/class/net/" + device + "/threaded";
  if (!exists(sysfsRoot_ + "/class/net/" + device))
    throw fileError(ENODEV, "echo " + std::string(on ? "1" : "0") + " > " + path, "no device \"" + device + "\" in this sysfs");
  writeFile(path, on ? "1" : "0");
  if (threaded(device) != on)
    throw fileError(EIO, "echo " + std::string(on ? "1" : "0") + " > " + path, "read back " + readFile(path));
}

}  // namespace fastlink
