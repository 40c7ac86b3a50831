// `fastlink ethtool` against the `ethtool` program (6.1) on a 4-queue veth pair: the text of
// -l and -k must be ethtool's byte for byte; changes are checked with ethtool and /sys.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/cli_fixture.hpp"

namespace fastlink::test {
namespace {

class EthtoolCliTest : public CliTest {
 protected:
  void SetUp() override {
    if (ns.exec("command -v ethtool").status != 0) GTEST_SKIP() << "ethtool is not installed (scripts/setup)";
    ns.ip("link add e0 numtxqueues 4 numrxqueues 4 type veth peer name e1 numtxqueues 4 numrxqueues 4");
  }
  std::string ethtool(const std::string& args) const { return ns.exec("ethtool " + args).out; }
};

TEST_F(EthtoolCliTest, ShowTextIsEthtools) {
  auto l = cli("ethtool -l e0");
  EXPECT_EQ(l.status, 0) << l.err;
  EXPECT_EQ(l.out, ethtool("-l e0"));
  auto k = cli("ethtool -k e0");
  EXPECT_EQ(k.status, 0) << k.err;
  EXPECT_EQ(k.out, ethtool("-k e0"));
  // Other feature sets: the loopback (groups whose members are all fixed) and a bridge.
  ns.ip("link add br0 type bridge");
  for (const char* dev : {"lo", "br0", "e1"}) EXPECT_EQ(cli(std::string("ethtool -k ") + dev).out, ethtool(std::string("-k ") + dev)) << dev;
  // Long option names as ethtool spells them.
  EXPECT_EQ(cli("ethtool --show-channels e0").out, l.out);
}

TEST_F(EthtoolCliTest, JsonChannelsAndFeatures) {
  auto r = cli("ethtool --json -l e0");
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["ifname"], "e0");
  EXPECT_EQ(j[0]["rx_max"], 4);
  EXPECT_EQ(j[0]["tx"], 4);
  EXPECT_FALSE(j[0].contains("combined"));  // n/a in ethtool's text
  auto k = cli("-j ethtool -k e0");
  ASSERT_EQ(k.status, 0) << k.err;
  auto f = nlohmann::json::parse(k.out)[0]["features"];
  EXPECT_EQ(f["tx-checksum-ipv4"]["fixed"], true);
  EXPECT_EQ(f["tx-checksum-ipv4"]["active"], false);
}

TEST_F(EthtoolCliTest, SetChannelsAndFeatures) {
  auto r = cli("ethtool -L e0 rx 2 tx 1");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(ethtool("-l e0").find("Current hardware settings:\nRX:\t\t2\nTX:\t\t1\n"), std::string::npos);
  EXPECT_EQ(ns.exec("ls /sys/class/net/e0/queues | grep -c '^rx-'").out, "2\n");
  r = cli("ethtool -K e0 rx-gro-list on");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(ethtool("-k e0").find("rx-gro-list: on\n"), std::string::npos);
  // A legacy group name, as ethtool takes it: sg = every changeable tx-scatter-gather*.
  r = cli("ethtool -K e0 sg off");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(ethtool("-k e0").find("\ttx-scatter-gather: off\n"), std::string::npos);
}

TEST_F(EthtoolCliTest, BadInputIsAClearErrorAndChangesNothing) {
  std::string channels = ethtool("-l e0"), features = ethtool("-k e0");
  auto r = cli("ethtool -L e0 rx 9");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "Error: requested channel count exceeds maximum\n");
  r = cli("ethtool -K e0 rx-gro-list on no-such-feature off");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "Error: bit name not found: \"no-such-feature\" is not a feature of e0 (see ethtool -k e0)\n");
  r = cli("ethtool -l nosuchdev");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("Error: "), std::string::npos);
  r = cli("ethtool -G e0 rx 128");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "Error: Operation not supported\n");
  // Usage errors are caught before anything is sent.
  EXPECT_EQ(cli("ethtool -L e0 rx many").status, 2);
  EXPECT_EQ(cli("ethtool -L e0").status, 2);
  EXPECT_EQ(cli("ethtool -K e0 rx-gro-list maybe").status, 2);
  EXPECT_EQ(cli("ethtool -X e0").status, 2);
  EXPECT_EQ(cli("ethtool").status, 2);
  EXPECT_EQ(cli("ethtool -l").status, 2);
  EXPECT_EQ(ethtool("-l e0"), channels);
  EXPECT_EQ(ethtool("-k e0"), features);
}

TEST_F(EthtoolCliTest, FixedFeatureIsReportedLikeEthtool) {
  auto r = cli("ethtool -K e0 tx-checksum-ipv4 on");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "Could not change any device features\nActual changes:\ntx-checksum-ipv4: off [requested on]\n");
}

}  // namespace
}  // namespace fastlink::test
