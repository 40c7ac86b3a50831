// `fastlink tune DEV`: spread a device's queues over the CPUs in one checked, reversible step.
//
//   fastlink::Netlink nl;
//   fastlink::TuneApi tune = nl.tune();
//   fastlink::TunePlan plan = tune.plan("eth0");   // what would change; nothing written yet
//   tune.apply(plan);                               // snapshot saved, applied, verified
//   tune.restore("eth0");                           // back to the snapshot
//
// The plan, for N online CPUs and a device whose channel maximum is M:
//   - channels: min(N, M) queues (combined channels when the driver has them, else rx and tx);
//   - queue q's interrupt pinned to one CPU, a different CPU per queue (skipped, with the reason
//     in the plan, for a device without interrupts such as veth);
//   - RPS of receive queue q and XPS of transmit queue q: the CPUs that queue serves (CPU c is
//     served by queue c mod Q), so receive processing and transmit stay on the CPU the queue's
//     interrupt lands on.
// apply() first saves a snapshot of everything it will touch, then changes channels, IRQs,
// RPS and XPS (each write read back), then re-reads the whole state and compares it with the
// plan. When a step fails, what was already changed is put back from the snapshot and the
// error names the failed step.
//
// The snapshot is a JSON file in `TuneOptions::snapshotDir` (default /run/fastlink/tune), named
// <netns cookie>-<ifindex>.json: /run is a tmpfs, cleared on reboot just like the settings it
// records; the namespace cookie and ifindex name the device uniquely across namespaces and
// renames (a name can be reused by another device, an ifindex cannot within a namespace). The
// cookie, not the inode: a freed namespace's inode number goes to the next namespace, whose
// first veth gets the same ifindex, and would inherit a snapshot left behind.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fastlink/ethtool.hpp"
#include "fastlink/steering.hpp"

namespace fastlink {

class Netlink;
class IEthtoolApi;

struct TuneOptions {
  std::string sysfsRoot = "/sys";   ///< a sysfs mounted from the device's namespace
  std::string procRoot = "/proc";
  std::string snapshotDir = "/run/fastlink/tune";
  /// Cookie of the device's network namespace (names the snapshot; see netnsCookie()); 0 = this thread's.
  uint64_t netnsCookie = 0;
  /// CPUs to spread over; empty = every online CPU.
  std::vector<unsigned> cpus;
};

/// What apply() will set (or what a snapshot holds).
struct TuneState {
  std::string device;
  uint32_t ifindex = 0;
  std::optional<ChannelsInfo> channels;      ///< unset: the driver has no channels to set
  std::vector<IrqAffinity> irqs;             ///< queue interrupts; empty for a device without
  std::vector<RxQueueSteering> rx;           ///< RPS per receive queue (flow counts kept)
  std::vector<TxQueueSteering> tx;           ///< XPS per transmit queue
  friend bool operator==(const TuneState&, const TuneState&) = default;
};

struct TunePlan {
  TuneState before;  ///< the state now (what a snapshot would save)
  TuneState after;   ///< the state apply() sets
  std::vector<unsigned> cpus;
  std::string channelsNote;  ///< why channels are left alone, when they are
  std::string irqNote;       ///< why the IRQ step is skipped, when it is
};

class TuneApi {
 public:
  /// Reads the device and computes the plan; changes nothing.
  /// Equivalent to: ethtool -l DEV; ls /proc/irq/*/; cat .../queues/*/{rps,xps}_cpus
  TunePlan plan(const std::string& device);
  /// Saves plan.before as the snapshot, applies plan.after and verifies it. Refuses
  /// (Error(EEXIST)) when a snapshot of this device already exists, so a second tune cannot
  /// overwrite the original state: restore first.
  /// Equivalent to: ethtool -L DEV ...; echo ... > /proc/irq/N/smp_affinity_list; echo ... > rps_cpus/xps_cpus
  void apply(const TunePlan& plan);
  /// Puts back the saved snapshot and removes it. Error(ENOENT) when there is none.
  /// Equivalent to: the same writes with the values the snapshot saved
  TuneState restore(const std::string& device);

  /// The state of `device` as tune sees it (channels, queue IRQs, RPS, XPS).
  TuneState read(const std::string& device);
  /// Where the snapshot of `device` is (or would be) saved.
  std::string snapshotPath(const std::string& device);

 private:
  friend class Netlink;  // nl.tune(options), the one way in
  /// Holds the Netlink's ethtool API (which lives as long as the Netlink, and stays where it is
  /// when the Netlink is moved), not the Netlink.
  TuneApi(IEthtoolApi& ethtool, TuneOptions options);
  void set(const TuneState& target, const TuneState& current);
  uint32_t ifindexOf(const std::string& device);
  IEthtoolApi& ethtool_;
  TuneOptions options_;
  SteeringApi steer_;
};

}  // namespace fastlink
