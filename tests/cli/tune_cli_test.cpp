// `fastlink -n NS tune DEV` and `fastlink -n NS link set dev X xdp...` on veths. Oracles:
// `ethtool -l` and the queue files through `ip netns exec`, `ip -d -j link show` for the
// attached XDP program, ping for the data path.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <memory>
#include <vector>
#include <nlohmann/json.hpp>

#include "cli/cli_fixture.hpp"

namespace fastlink::test {
namespace {

namespace fs = std::filesystem;

class TuneCliTest : public CliTest {
 protected:
  std::string snapshots;
  void SetUp() override {
    addQueuedVeth(ns);
    char tmpl[] = "/tmp/fastlink-tune-cli-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    snapshots = tmpl;
  }
  void TearDown() override { fs::remove_all(snapshots); }
  CommandResult tune(const std::string& args) const { return tuneIn(ns, args); }
  CommandResult tuneIn(const TestNetns& where, const std::string& args) const {
    return run("FASTLINK_TUNE_SNAPSHOT_DIR=" + snapshots + " " + cliPath() + " -n " + where.name() + " " + args);
  }
  static void addQueuedVeth(const TestNetns& where) {
    where.ip("link add e0 numtxqueues 4 numrxqueues 4 type veth peer name e1 numtxqueues 4 numrxqueues 4");
  }
  static ino_t inodeOf(const TestNetns& where) {
    struct stat st {};
    return ::stat(("/run/netns/" + where.name()).c_str(), &st) == 0 ? st.st_ino : 0;
  }
  std::string state() const {
    return ns.exec("ethtool -l e0; grep . /sys/class/net/e0/queues/*/rps_cpus /sys/class/net/e0/queues/*/xps_cpus").out;
  }
  std::string onlineCount() const { return std::to_string(std::min(4, std::stoi(run("nproc").out))); }
};

TEST_F(TuneCliTest, DryRunPrintsThePlanAndChangesNothing) {
  std::string before = state();
  auto r = tune("tune e0 --dry-run");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("channels: rx 4 tx 4 -> rx " + onlineCount() + " tx " + onlineCount()), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("irqs: device has no interrupts"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rx-0 rps_cpus none -> 0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("dry run: nothing changed"), std::string::npos);
  EXPECT_EQ(state(), before);
  EXPECT_TRUE(fs::is_empty(snapshots));
  auto j = tune("-j tune e0 --dry-run");
  ASSERT_EQ(j.status, 0) << j.err;
  auto plan = nlohmann::json::parse(j.out)[0];
  EXPECT_EQ(plan["applied"], false);
  EXPECT_EQ(plan["before"]["channels"]["rx"], 4);
  EXPECT_EQ(plan["after"]["tx"][0]["xps_cpus"], nlohmann::json::array({0}));
}

TEST_F(TuneCliTest, ApplyThenRestore) {
  std::string before = state();
  auto r = tune("tune e0");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("applied and verified; snapshot " + snapshots + "/"), std::string::npos) << r.out;
  EXPECT_NE(ns.exec("ethtool -l e0").out.find("Current hardware settings:\nRX:\t\t" + onlineCount()), std::string::npos);
  EXPECT_EQ(ns.exec("cat /sys/class/net/e0/queues/tx-0/xps_cpus").out, "1\n");
  auto again = tune("tune e0");
  EXPECT_EQ(again.status, 2);
  EXPECT_NE(again.err.find("already tuned"), std::string::npos) << again.err;
  auto back = tune("tune e0 --restore");
  ASSERT_EQ(back.status, 0) << back.err;
  EXPECT_EQ(state(), before);
  EXPECT_TRUE(fs::is_empty(snapshots));
}

// A namespace deleted while tuned leaves its snapshot behind. The kernel (6.1 at least) gives the
// freed inode number to the next namespace, whose first veth gets the same ifindex: named by
// inode, that device read "already tuned" (bench/wg_dataplane met it in the VM). Whether the
// inode comes back is the kernel's choice, so the test makes the collision itself: it renames the
// orphan to the name the new device would have had under the inode scheme. Named by cookie, the
// new device has another name, and tunes.
TEST_F(TuneCliTest, SnapshotLeftByADeletedNamespaceIsNotANewNamespacesOne) {
  auto gone = std::make_unique<TestNetns>();
  addQueuedVeth(*gone);
  auto r = tuneIn(*gone, "tune e0");
  ASSERT_EQ(r.status, 0) << r.err;
  gone.reset();
  std::vector<fs::path> orphans(fs::directory_iterator(snapshots), fs::directory_iterator{});
  ASSERT_EQ(orphans.size(), 1u);
  TestNetns fresh;
  addQueuedVeth(fresh);
  std::string ifindex = fresh.exec("cat /sys/class/net/e0/ifindex").out;
  ifindex.erase(ifindex.find_last_not_of('\n') + 1);
  fs::rename(orphans[0], fs::path(snapshots) / (std::to_string(inodeOf(fresh)) + "-" + ifindex + ".json"));
  r = tuneIn(fresh, "tune e0");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(fresh.exec("cat /sys/class/net/e0/queues/tx-0/xps_cpus").out, "1\n");
  EXPECT_EQ(tuneIn(fresh, "tune e0 --restore").status, 0);
}

TEST_F(TuneCliTest, BadInputIsAClearErrorAndChangesNothing) {
  std::string before = state();
  auto r = tune("tune e0 cpus 4000");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("CPU 4000 is not online"), std::string::npos) << r.err;
  r = tune("tune nosuchdev");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("Cannot find device \"nosuchdev\""), std::string::npos) << r.err;
  r = tune("tune e0 --restore");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("no snapshot"), std::string::npos) << r.err;
  EXPECT_EQ(tune("tune e0 --bogus").status, 255);
  auto irq = cli("steer irq show e0");
  EXPECT_EQ(irq.status, 2);
  EXPECT_NE(irq.err.find("has no interrupts"), std::string::npos) << irq.err;
  EXPECT_EQ(state(), before);
  EXPECT_TRUE(fs::is_empty(snapshots));
}

class XdpCliTest : public CliTest {
 protected:
  TestNetns peer;
  const std::string count = std::string(build::bpfDir()) + "/xdp_count.o";
  const std::string drop = std::string(build::bpfDir()) + "/xdp_drop.o";
  void SetUp() override {
    peer.ip("link add va type veth peer name vb netns " + ns.name());
    peer.ip("addr add 10.9.0.1/24 dev va");
    ns.ip("addr add 10.9.0.2/24 dev vb");
    peer.ip("link set va up");
    ns.ip("link set vb up");
  }
  nlohmann::json xdp() const {
    auto j = ns.ipJson("-d link show dev vb")[0];
    return j.contains("xdp") ? j["xdp"] : nlohmann::json();
  }
  bool ping() const { return peer.exec("ping -c 2 -i 0.2 -W 1 10.9.0.2").status == 0; }
};

TEST_F(XdpCliTest, AttachReplaceDetachAsIproute2Spells) {
  auto r = cli("link set dev vb xdpgeneric obj " + count + " sec xdp");
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_FALSE(xdp().is_null());
  EXPECT_EQ(xdp()["mode"], 2);
  EXPECT_EQ(xdp()["prog"]["name"], "xdp_count");
  EXPECT_TRUE(ping());
  // A second attach replaces, guarded by the program seen attached.
  r = cli("link set dev vb xdpgeneric obj " + drop);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(xdp()["prog"]["name"], "xdp_drop");
  EXPECT_FALSE(ping());
  r = cli("link set vb xdp off");  // whatever mode it is in
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(xdp().is_null());
  EXPECT_TRUE(ping());
  r = cli("link set dev vb xdpdrv obj " + count);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(xdp()["mode"], 1);
  ASSERT_EQ(cli("link set dev vb xdpdrv off").status, 0);
  EXPECT_TRUE(xdp().is_null());
}

TEST_F(XdpCliTest, BadInputIsAClearErrorAndAttachesNothing) {
  auto r = cli("link set dev vb xdp obj /nonexistent.o");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("/nonexistent.o"), std::string::npos) << r.err;
  r = cli("link set dev vb xdp obj " + count + " sec nosuch");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("xdp_count (section xdp)"), std::string::npos) << r.err;
  r = cli("link set dev vb xdpoffload obj " + count);
  EXPECT_NE(r.status, 0);
  r = cli("link set dev vb xdp obj");
  EXPECT_EQ(r.status, 255);
  r = cli("link set dev vb xdp obj " + count + " mtu 1400");
  EXPECT_EQ(r.status, 255);
  EXPECT_TRUE(xdp().is_null());
}

}  // namespace
}  // namespace fastlink::test
