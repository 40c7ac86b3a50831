// SteeringApi (RPS/RFS/XPS through sysfs) on a 4-queue veth in the test's namespace. The
// library is pointed at a sysfs mounted from inside that namespace (sysfs shows the namespace
// of whoever mounts it); the oracle reads the same files through `ip netns exec`, which
// remounts /sys on its own.
#include <fcntl.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sched.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <unistd.h>

#include <fastlink/steering.hpp>

#include <thread>

#include "fastlink/error.hpp"
#include "support/namespace_sysfs.hpp"
#include "support/test_netns.hpp"

namespace fastlink::test {
namespace {

class SteeringTest : public ::testing::Test {
 protected:
  TestNetns ns;
  std::unique_ptr<NamespaceSysfs> sysfs;
  std::unique_ptr<SteeringApi> steer;

  void SetUp() override {
    ns.ip("link add e0 numtxqueues 4 numrxqueues 4 type veth peer name e1 numtxqueues 4 numrxqueues 4");
    sysfs = std::make_unique<NamespaceSysfs>(ns.name());
    steer = std::make_unique<SteeringApi>(sysfs->root());
  }
  std::string oracle(const std::string& file) const {
    CommandResult r = ns.exec("cat /sys/class/net/e0/queues/" + file);
    EXPECT_EQ(r.status, 0) << r.err;
    return r.out;
  }
};

TEST_F(SteeringTest, ReadsWhatSysfsHolds) {
  ASSERT_EQ(ns.exec("echo 2 > /sys/class/net/e0/queues/rx-1/rps_cpus && echo 256 > /sys/class/net/e0/queues/rx-1/rps_flow_cnt")
                .status,
            0);
  auto rx = steer->rxQueues("e0");
  ASSERT_EQ(rx.size(), 4u);
  EXPECT_EQ(rx[1], (RxQueueSteering{1, {1}, 256}));
  EXPECT_EQ(rx[0], (RxQueueSteering{0, {}, 0}));
  EXPECT_EQ(steer->txQueues("e0").size(), 4u);
}

TEST_F(SteeringTest, WritesAreAppliedAndReversible) {
  steer->setRpsCpus("e0", 2, {0, 1});
  EXPECT_EQ(oracle("rx-2/rps_cpus"), "3\n");
  steer->setRpsFlowCount("e0", 2, 1000);
  EXPECT_EQ(oracle("rx-2/rps_flow_cnt"), "1024\n");  // the kernel rounds up to a power of two
  steer->setXpsCpus("e0", 3, {1});
  EXPECT_EQ(oracle("tx-3/xps_cpus"), "2\n");
  steer->setRpsAll("e0", {0}, 64);
  for (int q = 0; q < 4; ++q) EXPECT_EQ(oracle("rx-" + std::to_string(q) + "/rps_cpus"), "1\n");
  steer->setRpsAll("e0", {}, 0);
  steer->setXpsCpus("e0", 3, {});
  for (int q = 0; q < 4; ++q) EXPECT_EQ(oracle("rx-" + std::to_string(q) + "/rps_cpus"), "0\n");
  EXPECT_EQ(oracle("rx-2/rps_flow_cnt"), "0\n");
  EXPECT_EQ(oracle("tx-3/xps_cpus"), "0\n");
}

TEST_F(SteeringTest, BadInputIsAClearErrorAndChangesNothing) {
  steer->setRpsCpus("e0", 0, {1});
  // CPUs this machine does not have: refused (or dropped, which the read-back catches).
  EXPECT_THROW(steer->setRpsCpus("e0", 0, {200}), Error);
  EXPECT_EQ(oracle("rx-0/rps_cpus"), "2\n");
  try {
    steer->setRpsCpus("e0", 9, {0});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::no_such_file_or_directory);
  }
  try {
    steer->setRpsCpus("nosuchdev", 0, {0});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::no_such_device);
  }
  EXPECT_THROW(steer->rxQueues("nosuchdev"), Error);
}

TEST_F(SteeringTest, ProcessSysfsShowsOnlyItsOwnNamespace) {
  // The sysfs of this process was mounted outside the test's namespace: e0 is not there.
  SteeringApi own;
  EXPECT_THROW(own.rxQueues("e0"), Error);
}

TEST_F(SteeringTest, SockFlowEntriesExistOnlyInTheInitialNamespace) {
  // Read only: the value is global, and tests never change the host. Where this process's /proc
  // has the file (the initial namespace, as in the VM, or a kernel that shows it everywhere), the
  // library must read what the file says; where it has not (the sandbox on 6.18), the error
  // must say why.
  SteeringApi inNs(sysfs->root(), "/proc");
  std::ifstream file("/proc/sys/net/core/rps_sock_flow_entries");
  uint32_t expected = 0;
  if (file >> expected) {
    EXPECT_EQ(inNs.sockFlowEntries(), expected);
    return;
  }
  try {
    (void)inNs.sockFlowEntries();
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::no_such_file_or_directory);
    EXPECT_NE(e.extack().find("initial network namespace"), std::string::npos);
  }
  EXPECT_THROW(inNs.setSockFlowEntries(4096), Error);
}

}  // namespace
}  // namespace fastlink::test
