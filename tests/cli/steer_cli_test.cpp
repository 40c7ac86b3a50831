// `fastlink -n NS steer` on a 4-queue veth: the writes are checked through `ip netns exec`
// (which mounts the namespace's own sysfs) and `ps` (threaded NAPI's kernel threads), never
// through fastlink.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/cli_fixture.hpp"

namespace fastlink::test {
namespace {

class SteerCliTest : public CliTest {
 protected:
  void SetUp() override {
    ns.ip("link add e0 numtxqueues 4 numrxqueues 4 type veth peer name e1 numtxqueues 4 numrxqueues 4");
  }
  std::string sys(const std::string& file) const { return ns.exec("cat /sys/class/net/e0/queues/" + file).out; }
};

TEST_F(SteerCliTest, SetsEveryQueueOrOne) {
  auto r = cli("steer set e0 rps 0-1 rps-flow-cnt 1000");
  ASSERT_EQ(r.status, 0) << r.err;
  for (int q = 0; q < 4; ++q) {
    EXPECT_EQ(sys("rx-" + std::to_string(q) + "/rps_cpus"), "3\n");
    EXPECT_EQ(sys("rx-" + std::to_string(q) + "/rps_flow_cnt"), "1024\n");
  }
  r = cli("steer set e0 queue 2 xps 1");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(sys("tx-2/xps_cpus"), "2\n");
  EXPECT_EQ(sys("tx-1/xps_cpus"), "0\n");
  // Reversible: none clears.
  ASSERT_EQ(cli("steer set e0 rps none rps-flow-cnt 0 xps none").status, 0);
  EXPECT_EQ(sys("rx-3/rps_cpus"), "0\n");
  EXPECT_EQ(sys("tx-2/xps_cpus"), "0\n");
}

TEST_F(SteerCliTest, ShowMatchesSysfs) {
  ASSERT_EQ(ns.exec("echo 1 > /sys/class/net/e0/queues/rx-1/rps_cpus").status, 0);
  auto r = cli("-j steer show e0");
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out)[0];
  ASSERT_EQ(j["rx"].size(), 4u);
  EXPECT_EQ(j["rx"][1]["rps_cpus"], nlohmann::json::array({0}));
  EXPECT_EQ(j["rx"][0]["rps_cpus"], nlohmann::json::array());
  auto t = cli("steer show e0");
  EXPECT_NE(t.out.find("e0 rx-1 rps_cpus 0 rps_flow_cnt 0\n"), std::string::npos) << t.out;
}

TEST_F(SteerCliTest, ThreadedSwitchesEveryNapiOfTheDevice) {
  // GRO on an up veth gives each of its 4 receive queues a NAPI instance; threaded NAPI gives
  // each instance a kernel thread "napi/DEV-ID". Oracles: /sys/class/net/DEV/threaded and ps
  // (kernel threads are seen from every namespace: the device has a name no other test uses).
  ns.ip("link add napi0 numtxqueues 4 numrxqueues 4 type veth peer name napi1 numtxqueues 4 numrxqueues 4");
  ns.ip("link set napi0 up");
  ns.ip("link set napi1 up");
  ASSERT_EQ(ns.exec("ethtool -K napi0 gro on").status, 0);
  auto threads = [] { return std::stoi(run("ps -e -o comm= | grep -c '^napi/napi0-'").out); };
  auto threaded = [&] { return ns.exec("cat /sys/class/net/napi0/threaded").out; };
  ASSERT_EQ(threads(), 0);
  auto r = cli("steer set napi0 threaded on");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(threaded(), "1\n");
  EXPECT_EQ(threads(), 4);
  EXPECT_NE(cli("steer show napi0").out.find("napi0 threaded on\n"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(cli("-j steer show napi0").out)[0]["threaded"], true);
  r = cli("steer set napi0 threaded off");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(threaded(), "0\n");
  EXPECT_NE(cli("steer show napi0").out.find("napi0 threaded off\n"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(cli("-j steer show napi0").out)[0]["threaded"], false);
}

TEST_F(SteerCliTest, BadInputIsAClearErrorAndChangesNothing) {
  auto r = cli("steer set e0 rps 200");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("Error: "), std::string::npos);
  EXPECT_EQ(sys("rx-0/rps_cpus"), "0\n");
  r = cli("steer set nosuchdev rps 0");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("Cannot find device \"nosuchdev\""), std::string::npos) << r.err;
  r = cli("steer set e0 queue 9 rps 0");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("no such queue"), std::string::npos) << r.err;
  EXPECT_EQ(cli("steer set e0 rps 3-1").status, 255);
  EXPECT_EQ(cli("steer set e0").status, 255);
  EXPECT_EQ(cli("steer").status, 255);
}

}  // namespace
}  // namespace fastlink::test
