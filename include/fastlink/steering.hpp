// Receive/transmit packet steering (RPS, RFS, XPS): the per-queue CPU masks and flow counts in
// sysfs and the global RFS socket flow table in procfs — the settings people write with shell
// loops after `ethtool -L`. Not netlink: the kernel offers these only as files.
//
//   fastlink::SteeringApi steer;                       // this process's /sys and /proc
//   steer.setRpsCpus("eth0", 0, {0, 1});               // echo 3 > .../queues/rx-0/rps_cpus
//   steer.setRpsFlowCount("eth0", 0, 4096);
//   steer.setXpsCpus("eth0", 1, {1});
//
// Every write is read back and compared: the kernel silently drops CPUs that are offline or
// excluded from RPS, so "written" is not "applied"; a difference is Error(EIO) naming both.
//
// Which namespace: sysfs shows the network namespace of the process that *mounted* it, not of
// the caller (`ip netns exec NS` remounts /sys for that reason). SteeringApi does not switch
// namespaces: it acts on the sysfs mounted at `sysfsRoot` (default /sys) and the procfs at
// `procRoot`. To steer the devices of another namespace, run in it (ip netns exec, or setns
// plus a private mount of sysfs) or pass the root of a sysfs mounted from inside it.
// /proc/sys/net/core/rps_sock_flow_entries exists only in the initial namespace.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fastlink {

/// The steering settings of one receive queue (/sys/class/net/DEV/queues/rx-N).
struct RxQueueSteering {
  uint32_t queue = 0;
  std::vector<unsigned> rpsCpus;  ///< CPUs that process this queue's packets (RPS); empty = off
  uint32_t rpsFlowCount = 0;      ///< RFS flow table entries of this queue (rps_flow_cnt)
  friend bool operator==(const RxQueueSteering&, const RxQueueSteering&) = default;
};

/// The steering setting of one transmit queue (/sys/class/net/DEV/queues/tx-N).
struct TxQueueSteering {
  uint32_t queue = 0;
  std::vector<unsigned> xpsCpus;  ///< CPUs that transmit on this queue (XPS); empty = off
  friend bool operator==(const TxQueueSteering&, const TxQueueSteering&) = default;
};

/// One interrupt of a device (found through its MSI/MSI-X vectors in sysfs and named by the
/// handlers registered on it in /proc/irq/N/), with its CPU affinity.
struct DeviceIrq {
  unsigned irq = 0;
  std::string name;              ///< the handler's name, e.g. "virtio0-input.0", "eth0-TxRx-3"
  bool queue = false;            ///< serves a queue (rx/tx/TxRx/input/output), not config/misc
  std::vector<unsigned> cpus;    ///< smp_affinity_list
  friend bool operator==(const DeviceIrq&, const DeviceIrq&) = default;
};

/// One IRQ to pin to one set of CPUs (see SteeringApi::spreadQueueIrqs).
struct IrqAffinity {
  unsigned irq = 0;
  std::vector<unsigned> cpus;
  friend bool operator==(const IrqAffinity&, const IrqAffinity&) = default;
};

/// The kernel's CPU mask text ("00000000,0000000f": 32-bit hex words, highest first) to CPU
/// numbers in increasing order, and back. Throws Error(EINVAL) on text that is not a mask.
std::vector<unsigned> parseCpuMask(const std::string& text);
std::string formatCpuMask(const std::vector<unsigned>& cpus);

class SteeringApi {
 public:
  explicit SteeringApi(std::string sysfsRoot = "/sys", std::string procRoot = "/proc");

  /// Every receive queue of `device`, in queue order.
  /// Equivalent to: grep . /sys/class/net/DEV/queues/rx-*/{rps_cpus,rps_flow_cnt}
  std::vector<RxQueueSteering> rxQueues(const std::string& device) const;
  /// Every transmit queue of `device`, in queue order.
  /// Equivalent to: grep . /sys/class/net/DEV/queues/tx-*/xps_cpus
  std::vector<TxQueueSteering> txQueues(const std::string& device) const;

  /// Equivalent to: echo MASK > /sys/class/net/DEV/queues/rx-N/rps_cpus (then read back)
  void setRpsCpus(const std::string& device, uint32_t queue, const std::vector<unsigned>& cpus) const;
  /// Equivalent to: echo N > /sys/class/net/DEV/queues/rx-N/rps_flow_cnt (then read back)
  void setRpsFlowCount(const std::string& device, uint32_t queue, uint32_t count) const;
  /// Equivalent to: echo MASK > /sys/class/net/DEV/queues/tx-N/xps_cpus (then read back)
  void setXpsCpus(const std::string& device, uint32_t queue, const std::vector<unsigned>& cpus) const;
  /// Sets every receive queue at once (the common "RPS on all queues" step); stops at the
  /// first failure, which names the queue.
  void setRpsAll(const std::string& device, const std::vector<unsigned>& cpus, uint32_t flowCountPerQueue) const;

  /// The CPUs that are online (/sys/devices/system/cpu/online), in increasing order.
  std::vector<unsigned> onlineCpus() const;

  /// The interrupts of `device`: its PCI function's MSI/MSI-X vectors
  /// (/sys/class/net/DEV/device/msi_irqs, or the parent's for virtio-net, whose netdev hangs
  /// off a virtio device under the PCI one), else its legacy `irq`, named by the handler
  /// directories in /proc/irq/N/. Queue interrupts first matched by their handler names, not
  /// by grepping /proc/interrupts for the device name.
  /// Throws Error(ENODEV) when the device has no interrupts (veth, bridge, netdevsim: no
  /// `device` in sysfs, or no vectors), naming the device.
  /// Equivalent to: for i in $(ls /sys/class/net/DEV/device/msi_irqs); do ls /proc/irq/$i; done
  std::vector<DeviceIrq> deviceIrqs(const std::string& device) const;

  /// Pins one IRQ to `cpus`, then reads smp_affinity_list back. Error(EINVAL) naming the CPU
  /// when one is offline (nothing written); Error(EIO) when the kernel kept other CPUs (a
  /// managed IRQ whose affinity the kernel owns).
  /// Equivalent to: echo CPUS > /proc/irq/N/smp_affinity_list (then read back)
  void setIrqAffinity(unsigned irq, const std::vector<unsigned>& cpus) const;

  /// The plan "one queue interrupt per CPU": the device's queue IRQs in order, each given the
  /// next CPU of `cpus` (round robin when there are more IRQs than CPUs). Distinct CPUs per
  /// IRQ by construction: the published shell recipe's bug (every CPU written into the same
  /// IRQ) cannot be expressed. Throws like deviceIrqs, and Error(EINVAL) for an offline CPU.
  std::vector<IrqAffinity> planQueueIrqSpread(const std::string& device, const std::vector<unsigned>& cpus) const;
  /// Applies a plan: checks every CPU is online first (nothing is written otherwise), then
  /// sets and reads back each IRQ; stops at the first failure, which names the IRQ.
  void applyIrqAffinity(const std::vector<IrqAffinity>& plan) const;

  /// Threaded NAPI of every NAPI instance of `device` (/sys/class/net/DEV/threaded): polling
  /// in a kernel thread per NAPI instead of softirq context. The netdev generic netlink family
  /// (Netlink::netdev()) sets it per NAPI instance on kernels that offer it.
  /// Equivalent to: cat /sys/class/net/DEV/threaded
  bool threaded(const std::string& device) const;
  /// Equivalent to: echo 0|1 > /sys/class/net/DEV/threaded (then read back)
  void setThreaded(const std::string& device, bool on) const;

  /// Equivalent to: cat /proc/sys/net/core/rps_sock_flow_entries (initial namespace only)
  uint32_t sockFlowEntries() const;
  /// Equivalent to: sysctl -w net.core.rps_sock_flow_entries=N (the kernel rounds up to a
  /// power of two; the read-back must be at least N).
  void setSockFlowEntries(uint32_t entries) const;

 private:
  std::string queueDir(const std::string& device, const char* kind, uint32_t queue) const;
  std::string sysfsRoot_;
  std::string procRoot_;
};

}  // namespace fastlink
