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
#include "support/netdevsim.hpp"
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
    if (!std::getenv("FASTLINK_VM_NIC")) GTEST_SKIP() << "VM only (tests/vm/run): needs the VM's multi-queue virtio-net NIC";
    // TearDown gives the NIC back; should that have failed, deleting the namespace does too,
    // later, from a kernel workqueue: wait for it rather than fail the next test.
    for (int i = 0; i < 100 && nic.empty(); ++i) {
      nic = findVirtioNic();
      if (nic.empty()) usleep(100000);
    }
    ASSERT_FALSE(nic.empty()) << "FASTLINK_VM_NIC is set but no virtio_net device exists";
    ASSERT_EQ(run("ip link set dev " + nic + " netns " + ns.name()).status, 0);
    ns.ip("link set dev " + nic + " up");
    sysfs = std::make_unique<NamespaceSysfs>(ns.name());
    nl = std::make_unique<Netlink>(NetlinkOptions{.netns = Netns::named(ns.name())});
  }
  void TearDown() override {
    // Back into this process's namespace now, synchronously (see SetUp).
    if (!nic.empty()) ns.exec("ip link set dev " + nic + " netns " + std::to_string(::getpid()));
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
  TuneApi tune = nl->tune(options);
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

/// netdevsim: a software NIC with ring and coalescing settings (veth has neither). Debian's
/// kernels are built without it; tests/vm/run builds it out of tree for the VM's kernel
/// (tests/vm/netdevsim/build). Its ring maxima are 4096 for rx, rx-mini, rx-jumbo and tx, and it
/// accepts every coalescing parameter (drivers/net/netdevsim/ethtool.c).
class VmNetdevsim : public ::testing::Test {
 protected:
  TestNetns ns;
  std::unique_ptr<NetdevsimDevice> device;
  std::string dev;
  std::unique_ptr<Netlink> nl;

  void SetUp() override {
    if (!std::getenv("FASTLINK_VM")) GTEST_SKIP() << "VM only (tests/vm/run): netdevsim is built there for the VM's kernel";
    // A kernel without it (and no out-of-tree build): the VM run knows the module is absent.
    if (!NetdevsimDevice::available()) GTEST_SKIP() << "kernel lacks module 'netdevsim'";
    device = std::make_unique<NetdevsimDevice>(ns, 100 + static_cast<unsigned>(::getpid() % 800));
    dev = device->name();
    ASSERT_FALSE(dev.empty()) << "the netdevsim device did not appear in the namespace";
    nl = std::make_unique<Netlink>(NetlinkOptions{.netns = Netns::named(ns.name())});
  }

  /// `ethtool -g` / `ethtool -c` in the test's namespace (ethtool 6.1 has no --json for them).
  std::string ethtoolShow(const std::string& option) const {
    auto r = ns.exec("ethtool " + option + " " + dev);
    EXPECT_EQ(r.status, 0) << r.err;
    return r.out;
  }
  /// The value of `key` (e.g. "RX:") in one section of `ethtool -g` ("Pre-set maximums:" or
  /// "Current hardware settings:"); empty if the section or the key is missing.
  std::string ringField(const std::string& section, const std::string& key) const {
    auto g = ethtoolShow("-g");
    auto at = g.find(section);
    if (at == std::string::npos) return {};
    return fieldAfter(g.substr(at), key);
  }
  std::string coalesceField(const std::string& key) const { return fieldAfter(ethtoolShow("-c"), key); }
  static std::string fieldAfter(const std::string& text, const std::string& key) {
    auto at = text.find("\n" + key);
    if (at == std::string::npos) return {};
    auto value = text.find_first_not_of(" \t", at + 1 + key.size());
    auto eol = text.find('\n', value);
    return text.substr(value, eol - value);
  }
};

TEST_F(VmNetdevsim, RingsReadAgainstEthtool) {
  auto rings = nl->ethtool().rings(dev);
  ASSERT_TRUE(rings.rxMax && rings.rxMiniMax && rings.rxJumboMax && rings.txMax);
  EXPECT_EQ(std::to_string(*rings.rxMax), ringField("Pre-set maximums:", "RX:"));
  EXPECT_EQ(std::to_string(*rings.rxMiniMax), ringField("Pre-set maximums:", "RX Mini:"));
  EXPECT_EQ(std::to_string(*rings.rxJumboMax), ringField("Pre-set maximums:", "RX Jumbo:"));
  EXPECT_EQ(std::to_string(*rings.txMax), ringField("Pre-set maximums:", "TX:"));
  EXPECT_EQ(*rings.rxMax, 4096u);
  // The other direction: ethtool sets, fastlink reads.
  ASSERT_EQ(ns.exec("ethtool -G " + dev + " rx 300 tx 200 rx-mini 40 rx-jumbo 500").status, 0);
  rings = nl->ethtool().rings(dev);
  EXPECT_EQ(rings.rx, 300u);
  EXPECT_EQ(rings.tx, 200u);
  EXPECT_EQ(rings.rxMini, 40u);
  EXPECT_EQ(rings.rxJumbo, 500u);
}

TEST_F(VmNetdevsim, RingsSetAgainstEthtool) {
  auto& et = nl->ethtool();
  et.setRings(dev, RingsInfo().setRx(256).setTx(128).setRxMini(32).setRxJumbo(1024));
  EXPECT_EQ(ringField("Current hardware settings:", "RX:"), "256");
  EXPECT_EQ(ringField("Current hardware settings:", "TX:"), "128");
  EXPECT_EQ(ringField("Current hardware settings:", "RX Mini:"), "32");
  EXPECT_EQ(ringField("Current hardware settings:", "RX Jumbo:"), "1024");
  // Only what is named changes.
  et.setRings(dev, RingsInfo().setTx(4096));
  EXPECT_EQ(ringField("Current hardware settings:", "TX:"), "4096");
  EXPECT_EQ(ringField("Current hardware settings:", "RX:"), "256");
}

TEST_F(VmNetdevsim, RingAboveMaximumIsRefusedAndChangesNothing) {
  auto& et = nl->ethtool();
  et.setRings(dev, RingsInfo().setRx(256).setTx(128));
  auto before = ethtoolShow("-g");
  auto max = *et.rings(dev).rxMax;
  try {
    // A valid tx in the same request must not be applied either.
    et.setRings(dev, RingsInfo().setRx(max + 1).setTx(512));
    FAIL() << "rx " << max + 1 << " above the maximum " << max << " was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::invalid_argument) << e.what();
    EXPECT_NE(e.extack().find("exceeds maximum"), std::string::npos) << e.extack();
  }
  EXPECT_EQ(ethtoolShow("-g"), before);
  EXPECT_THROW(et.setRings(dev, RingsInfo().setTx(*et.rings(dev).txMax + 1000)), Error);
  EXPECT_EQ(ethtoolShow("-g"), before);
}

TEST_F(VmNetdevsim, CoalescingSetAndGetAgainstEthtool) {
  auto& et = nl->ethtool();
  et.setCoalesce(dev, CoalesceInfo().setRxUsecs(77).setTxUsecs(33).setRxMaxFrames(11).setTxMaxFrames(22).setAdaptiveRx(true));
  auto c = ethtoolShow("-c");
  EXPECT_EQ(fieldAfter(c, "rx-usecs:"), "77") << c;
  EXPECT_EQ(fieldAfter(c, "tx-usecs:"), "33") << c;
  EXPECT_EQ(fieldAfter(c, "rx-frames:"), "11") << c;
  EXPECT_EQ(fieldAfter(c, "tx-frames:"), "22") << c;
  EXPECT_NE(c.find("Adaptive RX: on"), std::string::npos) << c;
  auto got = et.coalesce(dev);
  EXPECT_EQ(got.rxUsecs, 77u);
  EXPECT_EQ(got.txMaxFrames, 22u);
  EXPECT_EQ(got.adaptiveRx, true);
  // Only what is named changes; ethtool's change is read back by fastlink.
  ASSERT_EQ(ns.exec("ethtool -C " + dev + " rx-usecs 5 adaptive-rx off").status, 0);
  got = et.coalesce(dev);
  EXPECT_EQ(got.rxUsecs, 5u);
  EXPECT_EQ(got.txUsecs, 33u);
  EXPECT_EQ(got.adaptiveRx, false);
}

TEST_F(VmNetdevsim, CliShowsRingsAndCoalescingLikeEthtool) {
  const char* cli = std::getenv("FASTLINK_CLI");
  if (!cli) GTEST_SKIP() << "FASTLINK_CLI is not set";
  std::string fl = std::string(cli) + " ethtool ";
  ASSERT_EQ(ns.exec(fl + "-G " + dev + " rx 512 tx 256").status, 0);
  EXPECT_EQ(ringField("Current hardware settings:", "RX:"), "512");
  ASSERT_EQ(ns.exec(fl + "-C " + dev + " rx-usecs 9 tx-frames 3").status, 0);
  EXPECT_EQ(coalesceField("rx-usecs:"), "9");
  EXPECT_EQ(coalesceField("tx-frames:"), "3");
  EXPECT_EQ(ns.exec(fl + "-g " + dev).out, ethtoolShow("-g"));
  EXPECT_EQ(ns.exec(fl + "-c " + dev).out, ethtoolShow("-c"));
  // Bad input: a clear message with the kernel's reason, nothing changed.
  auto before = ethtoolShow("-g");
  auto r = ns.exec(fl + "-G " + dev + " rx 5000");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("exceeds maximum"), std::string::npos) << r.err;
  EXPECT_EQ(ethtoolShow("-g"), before);
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
