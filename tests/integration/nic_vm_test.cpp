// A NIC with real interrupts: the VM's multi-queue virtio-net (tests/vm/run gives the guest
// `-device virtio-net-pci,mq=on,vectors=6` on a 2-queue tap, with -smp 2) and netdevsim (rings
// and coalescing, which veth lacks). The NIC is moved into the test's namespace. Oracles:
// /proc/irq/N/smp_affinity_list and /proc/interrupts, the queue files in sysfs, `ethtool`.
// On the host these skip: FASTLINK_VM_NIC is set only by tests/vm/run, so a test can never
// touch the host's own NIC.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fastlink/fastlink.hpp>
#include <fastlink/tune.hpp>
#include <filesystem>
#include <fstream>

#include "support/namespace_sysfs.hpp"
#include "support/test_netns.hpp"

namespace fastlink::test {
namespace {

namespace fs = std::filesystem;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

std::string affinity(unsigned irq) { return slurp("/proc/irq/" + std::to_string(irq) + "/smp_affinity_list"); }

/// The guest's virtio-net device (its driver link names virtio_net), in the initial namespace.
std::string findVirtioNic() {
  for (const auto& e : fs::directory_iterator("/sys/class/net")) {
    std::error_code ec;
    auto driver = fs::read_symlink(e.path() / "device" / "driver", ec);
    if (!ec && driver.filename() == "virtio_net") return e.path().filename();
  }
  return {};
}

class VmNic : public ::testing::Test {
 protected:
  TestNetns ns;
  std::string nic;
  std::unique_ptr<NamespaceSysfs> sysfs;
  std::unique_ptr<Netlink> nl;

  void SetUp() override {
    if (!std::getenv("FASTLINK_VM_NIC")) GTEST_SKIP() << "needs the VM's multi-queue virtio-net NIC (tests/vm/run)";
    nic = findVirtioNic();
    ASSERT_FALSE(nic.empty()) << "FASTLINK_VM_NIC is set but no virtio_net device exists";
    // Deleting the namespace moves the NIC back to the initial one.
    ASSERT_EQ(run("ip link set dev " + nic + " netns " + ns.name()).status, 0);
    ns.ip("link set dev " + nic + " up");
    sysfs = std::make_unique<NamespaceSysfs>(ns.name());
    nl = std::make_unique<Netlink>(NetlinkOptions{.netns = Netns::named(ns.name())});
  }
  SteeringApi steer() const { return SteeringApi(sysfs->root()); }
};

TEST_F(VmNic, IrqsAreFoundByHandlerNames) {
  auto irqs = steer().deviceIrqs(nic);
  std::vector<DeviceIrq> queues;
  for (const auto& d : irqs)
    if (d.queue) queues.push_back(d);
  ASSERT_EQ(queues.size(), 4u);  // input.0, output.0, input.1, output.1
  auto interrupts = slurp("/proc/interrupts");
  for (const auto& q : queues) {
    EXPECT_TRUE(q.name.find("-input.") != std::string::npos || q.name.find("-output.") != std::string::npos) << q.name;
    // Oracle: /proc/interrupts lists the IRQ with that handler name.
    auto line = interrupts.find(" " + std::to_string(q.irq) + ":");
    ASSERT_NE(line, std::string::npos) << q.irq;
    auto end = interrupts.find('\n', line);
    EXPECT_NE(interrupts.substr(line, end - line).find(q.name), std::string::npos) << q.name;
  }
  bool config = false;
  for (const auto& d : irqs) config = config || (!d.queue && d.name.find("-config") != std::string::npos);
  EXPECT_TRUE(config);
}

TEST_F(VmNic, IrqSpreadPinsEachQueueToItsOwnCpuAndReadsBack) {
  auto s = steer();
  auto plan = s.planQueueIrqSpread(nic, {0, 1});
  ASSERT_EQ(plan.size(), 4u);
  s.applyIrqAffinity(plan);
  for (std::size_t i = 0; i < plan.size(); ++i) EXPECT_EQ(affinity(plan[i].irq), std::to_string(i % 2)) << plan[i].irq;
  // Not the recipe bug: consecutive queue IRQs on different CPUs.
  EXPECT_NE(affinity(plan[0].irq), affinity(plan[1].irq));
  s.setIrqAffinity(plan[0].irq, {0, 1});
  EXPECT_EQ(affinity(plan[0].irq), "0-1");
}

TEST_F(VmNic, OfflineCpuIsRefusedAndChangesNothing) {
  auto s = steer();
  unsigned irq = s.deviceIrqs(nic)[0].irq;
  std::string before = affinity(irq);
  try {
    s.setIrqAffinity(irq, {7});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::invalid_argument);
    EXPECT_NE(e.extack().find("CPU 7 is not online"), std::string::npos) << e.extack();
  }
  EXPECT_EQ(affinity(irq), before);
}

TEST_F(VmNic, ChannelsAndRpsOnARealNic) {
  auto& et = nl->ethtool();
  auto ch = et.channels(nic);
  ASSERT_EQ(ch.combinedMax, 2u);
  et.setChannels(nic, ChannelsInfo().setCombined(1));
  EXPECT_NE(ns.exec("ethtool -l " + nic).out.find("Current hardware settings:\nRX:\t\tn/a\nTX:\t\tn/a\nOther:\t\tn/a\nCombined:\t1"),
            std::string::npos);
  try {
    et.setChannels(nic, ChannelsInfo().setCombined(3));
    FAIL();
  } catch (const Error& e) {
    EXPECT_FALSE(e.extack().empty());
  }
  EXPECT_EQ(et.channels(nic).combined, 1u);
  et.setChannels(nic, ChannelsInfo().setCombined(2));
  auto s = steer();
  s.setRpsCpus(nic, 1, {1});
  EXPECT_EQ(ns.exec("cat /sys/class/net/" + nic + "/queues/rx-1/rps_cpus").out, "2\n");
  s.setRpsCpus(nic, 1, {});
}

TEST_F(VmNic, TuneAppliesIrqsChannelsAndSteeringAndRestores) {
  char tmpl[] = "/tmp/fastlink-tune-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  std::string dir = tmpl;
  nl->ethtool().setChannels(nic, ChannelsInfo().setCombined(1));
  auto s = steer();
  std::vector<unsigned> irqs;
  for (const auto& d : s.deviceIrqs(nic))
    if (d.queue) irqs.push_back(d.irq);
  for (unsigned irq : irqs) s.setIrqAffinity(irq, {1});
  TuneOptions options;
  options.sysfsRoot = sysfs->root();
  options.snapshotDir = dir;
  TuneApi tune(*nl, options);
  TunePlan plan = tune.plan(nic);
  EXPECT_TRUE(plan.irqNote.empty());
  ASSERT_EQ(plan.after.irqs.size(), 4u);
  EXPECT_EQ(plan.after.channels->combined, 2u);
  tune.apply(plan);
  EXPECT_NE(ns.exec("ethtool -l " + nic).out.find("Combined:\t2\n"), std::string::npos);
  for (std::size_t i = 0; i < plan.after.irqs.size(); ++i) EXPECT_EQ(affinity(plan.after.irqs[i].irq), std::to_string(i % 2));
  EXPECT_EQ(ns.exec("cat /sys/class/net/" + nic + "/queues/rx-1/rps_cpus /sys/class/net/" + nic + "/queues/tx-0/xps_cpus").out, "2\n1\n");
  tune.restore(nic);
  auto l = ns.exec("ethtool -l " + nic).out;
  EXPECT_NE(l.rfind("Combined:\t1"), std::string::npos) << l;
  for (unsigned irq : irqs) EXPECT_EQ(affinity(irq), "1") << irq;
  fs::remove_all(dir);
  nl->ethtool().setChannels(nic, ChannelsInfo().setCombined(2));
}

TEST_F(VmNic, RingsAndCoalescingReadAgainstEthtool) {
  auto& et = nl->ethtool();
  auto rings = et.rings(nic);
  auto g = ns.exec("ethtool -g " + nic).out;
  ASSERT_TRUE(rings.rxMax.has_value());
  EXPECT_NE(g.find("Pre-set maximums:\nRX:\t\t" + std::to_string(*rings.rxMax) + "\n"), std::string::npos) << g;
  EXPECT_NE(g.find("Current hardware settings:\nRX:\t\t" + std::to_string(*rings.rx) + "\n"), std::string::npos) << g;
  auto c = et.coalesce(nic);
  auto text = ns.exec("ethtool -c " + nic).out;
  ASSERT_TRUE(c.txMaxFrames.has_value()) << text;
  EXPECT_NE(text.find("tx-frames: " + std::to_string(*c.txMaxFrames) + "\n"), std::string::npos) << text;
}

/// netdevsim: a software NIC with ring and coalescing settings (veth has neither).
class VmNetdevsim : public ::testing::Test {
 protected:
  TestNetns ns;
  std::string dev;
  unsigned id = 0;
  std::unique_ptr<Netlink> nl;

  void SetUp() override {
    if (!std::getenv("FASTLINK_VM_NIC")) GTEST_SKIP() << "netdevsim runs in the VM (tests/vm/run): the host kernel lacks the module";
    // Debian's kernels are built without it; the VM run knows the module is absent.
    if (!fs::exists("/sys/bus/netdevsim")) GTEST_SKIP() << "the kernel has no module netdevsim";
    id = 100 + static_cast<unsigned>(::getpid() % 800);
    std::ofstream("/sys/bus/netdevsim/new_device") << id << " 1 4";
    std::string dir = "/sys/bus/netdevsim/devices/netdevsim" + std::to_string(id) + "/net";
    for (int i = 0; i < 50 && dev.empty(); ++i) {
      if (fs::exists(dir))
        for (const auto& e : fs::directory_iterator(dir)) dev = e.path().filename();
      if (dev.empty()) ::usleep(20000);
    }
    ASSERT_FALSE(dev.empty()) << "netdevsim device did not appear";
    ASSERT_EQ(run("ip link set dev " + dev + " netns " + ns.name()).status, 0);
    nl = std::make_unique<Netlink>(NetlinkOptions{.netns = Netns::named(ns.name())});
  }
  void TearDown() override {
    if (!dev.empty()) std::ofstream("/sys/bus/netdevsim/del_device") << id;
  }
};

TEST_F(VmNetdevsim, RingsAndCoalescingAgainstEthtool) {
  auto& et = nl->ethtool();
  auto rings = et.rings(dev);
  ASSERT_TRUE(rings.rxMax.has_value());
  et.setRings(dev, RingsInfo().setRx(256).setTx(128));
  auto g = ns.exec("ethtool -g " + dev).out;
  auto cur = g.substr(g.find("Current hardware settings:"));
  EXPECT_NE(cur.find("RX:\t\t256"), std::string::npos) << g;
  EXPECT_NE(cur.find("TX:\t\t128"), std::string::npos) << g;
  EXPECT_THROW(et.setRings(dev, RingsInfo().setRx(*rings.rxMax + 1)), Error);
  EXPECT_EQ(et.rings(dev).rx, 256u);

  et.setCoalesce(dev, CoalesceInfo().setRxUsecs(77));
  EXPECT_NE(ns.exec("ethtool -c " + dev).out.find("rx-usecs: 77"), std::string::npos);
  EXPECT_EQ(et.coalesce(dev).rxUsecs, 77u);
}

TEST_F(VmNetdevsim, ADeviceWithoutInterruptsIsAClearError) {
  NamespaceSysfs sysfs(ns.name());
  try {
    SteeringApi(sysfs.root()).deviceIrqs(dev);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::no_such_device);
    EXPECT_NE(e.extack().find("no interrupts"), std::string::npos) << e.extack();
  }
}

}  // namespace
}  // namespace fastlink::test
