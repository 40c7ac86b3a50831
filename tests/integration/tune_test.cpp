// TuneApi on a 4-queue veth (no interrupts): plan, apply, verify, restore. Oracles: `ethtool
// -l` and the queue files read through `ip netns exec` (its own sysfs of the namespace).
// The IRQ logic (names, affinity read back, offline CPUs) against a fake /sys + /proc tree;
// the VM runs the same on a real virtio-net NIC (nic_vm_test.cpp).
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fastlink/fastlink.hpp>
#include <fastlink/tune.hpp>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>
#include <cstdio>
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

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/fastlink-tune-XXXXXX";
    if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp");
    path_ = tmpl;
  }
  ~TempDir() { fs::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

class TuneTest : public ::testing::Test {
 protected:
  TestNetns ns;
  TempDir snapshots;
  std::unique_ptr<NamespaceSysfs> sysfs;
  std::unique_ptr<Netlink> nl;

  void SetUp() override {
    ns.ip("link add e0 numtxqueues 4 numrxqueues 4 type veth peer name e1 numtxqueues 4 numrxqueues 4");
    sysfs = std::make_unique<NamespaceSysfs>(ns.name());
    nl = std::make_unique<Netlink>(NetlinkOptions{.netns = Netns::named(ns.name())});
  }
  TuneApi api(std::vector<unsigned> cpus = {}) {
    return nl->tune(TuneOptions{.sysfsRoot = sysfs->root(), .snapshotDir = snapshots.path(), .netnsCookie = 42, .cpus = cpus});
  }
  /// Everything tune touches, as the oracles see it.
  std::string oracleState() const {
    auto l = ns.exec("ethtool -l e0");
    auto q = ns.exec("grep . /sys/class/net/e0/queues/*/rps_cpus /sys/class/net/e0/queues/*/rps_flow_cnt /sys/class/net/e0/queues/*/xps_cpus");
    return l.out + q.out;
  }
  std::string queueFile(const std::string& f) const { return ns.exec("cat /sys/class/net/e0/queues/" + f).out; }
  unsigned online() const { return static_cast<unsigned>(SteeringApi().onlineCpus().size()); }
};

TEST_F(TuneTest, PlanSpreadsQueuesOverTheCpusAndChangesNothing) {
  std::string before = oracleState();
  auto t = api();
  TunePlan p = t.plan("e0");
  unsigned n = std::min(online(), 4u);
  ASSERT_TRUE(p.after.channels.has_value());
  EXPECT_EQ(p.after.channels->rx, n);
  EXPECT_EQ(p.after.channels->tx, n);
  EXPECT_FALSE(p.irqNote.empty());  // veth: no interrupts, the IRQ step is skipped and says so
  EXPECT_TRUE(p.after.irqs.empty());
  ASSERT_EQ(p.after.rx.size(), n);
  ASSERT_EQ(p.after.tx.size(), n);
  for (unsigned q = 0; q < n; ++q) {
    EXPECT_EQ(p.after.rx[q].rpsCpus, std::vector<unsigned>{p.cpus[q]});
    EXPECT_EQ(p.after.tx[q].xpsCpus, std::vector<unsigned>{p.cpus[q]});
  }
  EXPECT_EQ(p.before.channels->rx, 4u);
  EXPECT_EQ(oracleState(), before);
}

// nl.tune() hands out a TuneApi that keeps the Netlink's ethtool API (which stays where it is),
// not the Netlink: moving the Netlink away leaves the TuneApi reading the same namespace.
TEST_F(TuneTest, TuneApiOutlivesAMoveOfItsNetlink) {
  auto t = api();
  Netlink moved = std::move(*nl);
  TunePlan p = t.plan("e0");
  ASSERT_TRUE(p.before.channels.has_value());
  EXPECT_EQ(p.before.channels->rx, 4u);
  EXPECT_EQ(p.before.rx.size(), 4u);
}

TEST_F(TuneTest, ApplyVerifiesAndRestorePutsEverythingBack) {
  // A non-default starting point, so "restored" cannot be "reset to defaults".
  ASSERT_EQ(ns.exec("echo 1 > /sys/class/net/e0/queues/rx-3/rps_cpus && echo 64 > /sys/class/net/e0/queues/rx-0/rps_flow_cnt").status, 0);
  std::string before = oracleState();
  auto t = api();
  TunePlan p = t.plan("e0");
  t.apply(p);
  unsigned n = std::min(online(), 4u);
  auto l = ns.exec("ethtool -l e0").out;
  EXPECT_NE(l.find("Current hardware settings:\nRX:\t\t" + std::to_string(n) + "\nTX:\t\t" + std::to_string(n)), std::string::npos) << l;
  EXPECT_EQ(ns.exec("ls -d /sys/class/net/e0/queues/rx-*| wc -l").out, std::to_string(n) + "\n");
  for (unsigned q = 0; q < n; ++q) {
    char hex[16];
    std::snprintf(hex, sizeof hex, "%x\n", 1u << p.cpus[q]);
    std::string mask = hex;
    EXPECT_EQ(queueFile("rx-" + std::to_string(q) + "/rps_cpus"), mask);
    EXPECT_EQ(queueFile("tx-" + std::to_string(q) + "/xps_cpus"), mask);
  }
  std::string snap = t.snapshotPath("e0");
  EXPECT_EQ(snap, snapshots.path() + "/42-" + ns.sysfs("e0", "ifindex") + ".json");
  ASSERT_TRUE(fs::exists(snap));
  auto saved = nlohmann::json::parse(slurp(snap));
  EXPECT_EQ(saved["channels"]["rx"], 4);

  // A second apply would overwrite the original state: refused.
  try {
    t.apply(t.plan("e0"));
    FAIL() << "second apply accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::file_exists);
  }

  t.restore("e0");
  EXPECT_EQ(oracleState(), before);
  EXPECT_FALSE(fs::exists(snap));
  EXPECT_EQ(queueFile("rx-0/rps_flow_cnt"), "64\n");
  try {
    t.restore("e0");
    FAIL() << "restore without a snapshot accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::no_such_file_or_directory);
  }
}

// plan() checks the CPUs, so this refusal comes before any snapshot or write: it shows that
// nothing is touched, not the rollback (FailedApplyPutsBackEveryWriteMadeBeforeIt does).
TEST_F(TuneTest, PlanRefusesAnOfflineCpuBeforeAnySnapshotOrWrite) {
  std::string before = oracleState();
  try {
    auto t = api({0, 4000});
    t.apply(t.plan("e0"));
    FAIL() << "CPU 4000 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::invalid_argument);
    EXPECT_NE(e.extack().find("CPU 4000 is not online"), std::string::npos) << e.extack();
  }
  EXPECT_EQ(oracleState(), before);
  EXPECT_TRUE(fs::is_empty(snapshots.path()));
}

// The rollback, run for real: the kernel refuses apply()'s last write (XPS on a CPU this machine
// cannot have, as a CPU gone offline after plan() checked it would be), after the channel count,
// every RPS mask and flow count and the first XPS masks have been written. Every file must read
// back its value from before apply, and ethtool -l the old channel counts.
TEST_F(TuneTest, FailedApplyPutsBackEveryWriteMadeBeforeIt) {
  // Values no reset produces, on queues the channel change removes and brings back.
  ASSERT_EQ(ns.exec("cd /sys/class/net/e0/queues && echo 1 > rx-3/rps_cpus && echo 64 > rx-0/rps_flow_cnt && "
                    "echo 32 > rx-3/rps_flow_cnt && echo 1 > tx-2/xps_cpus && echo 1 > tx-0/xps_cpus").status, 0);
  std::string before = oracleState();
  auto t = api();
  TunePlan p = t.plan("e0");
  ASSERT_GE(p.after.tx.size(), 1u);
  // The highest possible CPU is the last number of the list ("0-1", "0-3,8-11").
  std::string possible = slurp("/sys/devices/system/cpu/possible");
  unsigned impossible = static_cast<unsigned>(std::stoul(possible.substr(possible.find_last_of("-,") + 1))) + 1;
  p.after.tx.back().xpsCpus = {impossible};
  std::string lastWrite = "tx-" + std::to_string(p.after.tx.back().queue) + "/xps_cpus";
  try {
    t.apply(p);
    FAIL() << "XPS on CPU " << impossible << " accepted";
  } catch (const Error& e) {
    // The failed step is the last write; the rollback itself succeeded.
    EXPECT_NE(e.operation().find(lastWrite), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find("rollback failed"), std::string::npos) << e.what();
  }
  EXPECT_EQ(oracleState(), before);
  EXPECT_TRUE(fs::is_empty(snapshots.path()));  // a complete rollback removes the snapshot
}

TEST_F(TuneTest, StalePlanIsRefused) {
  auto t = api();
  TunePlan p = t.plan("e0");
  ASSERT_EQ(ns.exec("echo 1 > /sys/class/net/e0/queues/rx-2/rps_cpus").status, 0);
  EXPECT_THROW(t.apply(p), Error);
  EXPECT_EQ(queueFile("rx-2/rps_cpus"), "1\n");
}

TEST_F(TuneTest, DeviceWithoutInterruptsIsAClearError) {
  SteeringApi steer(sysfs->root());
  try {
    steer.deviceIrqs("e0");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::no_such_device);
    EXPECT_NE(e.extack().find("has no interrupts"), std::string::npos) << e.extack();
  }
  EXPECT_THROW(steer.planQueueIrqSpread("e0", {0}), Error);
}

/// A fake device with MSI-X vectors: /sys/class/net/eth9/device/msi_irqs/{40..43} and /proc/irq/N
/// with handler directories and regular smp_affinity_list files (which, unlike the kernel's,
/// keep whatever is written: the read-back check is exercised by a FIFO that takes the write
/// and reads back other CPUs, FileThatReadsBackOther).
class FakeIrqTree : public ::testing::Test {
 protected:
  TempDir root;
  std::string sys() const { return root.path() + "/sys"; }
  std::string proc() const { return root.path() + "/proc"; }
  void SetUp() override {
    fs::create_directories(sys() + "/devices/system/cpu");
    std::ofstream(sys() + "/devices/system/cpu/online") << "0-3\n";
    fs::create_directories(sys() + "/devices/pci0/virtio3");
    fs::create_directories(sys() + "/devices/pci0/msi_irqs");
    fs::create_directories(sys() + "/class/net/eth9");
    fs::create_directory_symlink(sys() + "/devices/pci0/virtio3", sys() + "/class/net/eth9/device");
    std::vector<std::pair<unsigned, std::string>> irqs{{40, "virtio3-config"}, {41, "virtio3-input.0"}, {42, "virtio3-output.0"},
                                                       {43, "virtio3-input.1"}, {44, "virtio3-output.1"}};
    for (auto& [irq, name] : irqs) {
      std::ofstream(sys() + "/devices/pci0/msi_irqs/" + std::to_string(irq)) << "msix\n";
      fs::create_directories(proc() + "/irq/" + std::to_string(irq) + "/" + name);
      std::ofstream(proc() + "/irq/" + std::to_string(irq) + "/smp_affinity_list") << "0-3\n";
    }
  }
  std::string affinity(unsigned irq) const { return slurp(proc() + "/irq/" + std::to_string(irq) + "/smp_affinity_list"); }
};

TEST_F(FakeIrqTree, FindsQueueInterruptsByHandlerNameThroughTheVirtioParent) {
  SteeringApi steer(sys(), proc());
  auto irqs = steer.deviceIrqs("eth9");
  ASSERT_EQ(irqs.size(), 5u);
  EXPECT_EQ(irqs[0], (DeviceIrq{41, "virtio3-input.0", true, {0, 1, 2, 3}}));
  EXPECT_EQ(irqs[3].name, "virtio3-output.1");
  EXPECT_EQ(irqs[4], (DeviceIrq{40, "virtio3-config", false, {0, 1, 2, 3}}));
}

TEST_F(FakeIrqTree, SpreadGivesEveryQueueInterruptItsOwnCpuAndReadsItBack) {
  SteeringApi steer(sys(), proc());
  auto plan = steer.planQueueIrqSpread("eth9", {0, 1, 2, 3});
  ASSERT_EQ(plan.size(), 4u);
  EXPECT_EQ(plan[0], (IrqAffinity{41, {0}}));
  EXPECT_EQ(plan[1], (IrqAffinity{42, {1}}));
  EXPECT_EQ(plan[3], (IrqAffinity{44, {3}}));
  steer.applyIrqAffinity(plan);
  EXPECT_EQ(affinity(41), "0");
  EXPECT_EQ(affinity(42), "1");
  EXPECT_EQ(affinity(43), "2");
  EXPECT_EQ(affinity(44), "3");
  EXPECT_EQ(affinity(40), "0-3");  // the config vector is not a queue's: untouched
}

TEST_F(FakeIrqTree, OfflineCpuIsRefusedBeforeAnythingIsWritten) {
  SteeringApi steer(sys(), proc());
  try {
    steer.applyIrqAffinity({{41, {0}}, {42, {7}}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::invalid_argument);
    EXPECT_NE(e.extack().find("CPU 7 is not online (online: 0-3)"), std::string::npos) << e.extack();
  }
  EXPECT_EQ(affinity(41), "0-3");  // the valid first entry was not written either
  EXPECT_THROW(steer.planQueueIrqSpread("eth9", {9}), Error);
}

/// A file that takes a write and then reads back other text, as /proc/irq/N/smp_affinity_list of
/// a managed IRQ does (the kernel keeps its own affinity). A FIFO served by a thread: the first
/// open is the writer's (the text written is kept in written()), the second the reader's, which
/// gets `readBack`. Whatever the code under test does, the thread ends when this goes away.
class FileThatReadsBackOther {
 public:
  FileThatReadsBackOther(std::string path, std::string readBack) : path_(std::move(path)) {
    fs::remove(path_);
    if (::mkfifo(path_.c_str(), 0600) != 0) throw std::runtime_error("mkfifo " + path_);
    server_ = std::thread([this, readBack = std::move(readBack)] {
      struct Done {
        std::atomic<bool>& flag;
        ~Done() { flag = true; }
      } done{done_};
      int in = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);  // waits for the writer
      if (in < 0) return;
      char buf[256];
      for (ssize_t n; (n = ::read(in, buf, sizeof buf)) > 0;) written_.append(buf, static_cast<std::size_t>(n));
      ::close(in);
      if (stopping_) return;
      int out = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);  // waits for the read-back
      if (out < 0) return;
      if (!stopping_) (void)!::write(out, readBack.data(), readBack.size());
      ::close(out);
    });
  }
  ~FileThatReadsBackOther() { stop(); }
  /// What the code under test wrote; call once the call under test has returned.
  std::string written() {
    stop();
    return written_;
  }

 private:
  void stop() {
    if (!server_.joinable()) return;
    stopping_ = true;
    // Unblock an open() still waiting for its other end (the code under test never came),
    // until the thread has seen stopping_.
    while (!done_) {
      for (int flags : {O_WRONLY | O_NONBLOCK, O_RDONLY | O_NONBLOCK}) {
        int fd = ::open(path_.c_str(), flags | O_CLOEXEC);
        if (fd >= 0) ::close(fd);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    server_.join();
  }
  std::string path_;
  std::string written_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> done_{false};
  std::thread server_;
};

TEST_F(FakeIrqTree, ReadBackMismatchIsAnError) {
  // A managed IRQ keeps its own affinity: the write is taken, the read back says 0-3.
  std::string path = proc() + "/irq/41/smp_affinity_list";
  SteeringApi steer(sys(), proc());
  try {
    FileThatReadsBackOther managed(path, "0-3\n");
    try {
      steer.setIrqAffinity(41, {1});
      FAIL() << "a read back of 0-3 after writing 1 was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), std::errc::io_error);
      EXPECT_EQ(e.operation(), "echo 1 > " + path);
      EXPECT_NE(e.extack().find("read back CPUs 0,1,2,3"), std::string::npos) << e.extack();
    }
    EXPECT_EQ(managed.written(), "1");  // the write did happen: the check that failed is the read back
  } catch (const std::runtime_error& e) {
    FAIL() << e.what();
  }
}

}  // namespace
}  // namespace fastlink::test
