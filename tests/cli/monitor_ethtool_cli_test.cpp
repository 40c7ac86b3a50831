// `fastlink monitor ethtool` against `ethtool --monitor` on the same changes (channels and
// features of a 4-queue veth): both run at once and print the same text; with -j, one object
// per line carrying the values `ethtool -l/-k` shows afterwards (fastlink's own JSON: ethtool
// 6.1's --monitor has none).
#include <map>
#include <sstream>

#include "cli_fixture.hpp"
#include "support/monitor_wait.hpp"
#include "support/netdevsim.hpp"

namespace fastlink::test {
namespace {

using nlohmann::json;

class MonitorEthtoolCliTest : public CliTest {
 protected:
  void SetUp() override {
    if (ns.exec("command -v ethtool").status != 0) GTEST_SKIP() << "ethtool is not installed (scripts/setup)";
    ns.ip("link add va numtxqueues 4 numrxqueues 4 type veth peer name vb numtxqueues 4 numrxqueues 4");
  }

  /// The changes both monitors see: channels of both ends, then features of va.
  virtual std::string changes() const {
    std::string et = "ip netns exec " + ns.name() + " ethtool ";
    return et + "-L va rx 2 tx 3; " + et + "-L vb rx 1; " + et + "-K va rx-gro-list on; " + et + "-K vb tx off >/dev/null 2>&1";
  }

  /// Runs `ethtool --monitor` and `fastlink OPTIONS monitor ethtool WORDS` while changes() happen.
  std::pair<std::string, std::string> both(const std::string& options, const std::string& words) {
    std::string a = "/tmp/fastlink-ethmon-et-" + ns.name(), b = "/tmp/fastlink-ethmon-fl-" + ns.name();
    // ethtool writes through stdio: line-buffered, or a kill would lose what it printed.
    std::string script = monitorWaitFunctions(ns.name()) + "ip netns exec " + ns.name() + " stdbuf -oL ethtool --monitor >" + a +
                         " 2>/dev/null & A=$!; " + cliPath() + " -n " + ns.name() + " " + options + " monitor ethtool " + words +
                         " >" + b + " 2>&1 & B=$!; listening $A; listening $B; " + changes() + "; drained $A " + a + " $B " + b +
                         "; kill $A $B; wait";
    run("sh -c " + shellQuote(script));
    std::string etOut = run("cat " + a).out, flOut = run("cat " + b).out;
    run("rm -f " + a + " " + b);
    return {etOut, flOut};
  }
};

TEST_F(MonitorEthtoolCliTest, TextEqualsEthtoolMonitor) {
  auto [ethtool, mine] = both("", "");
  // "listening..." first (ethtool prints it on stdout once subscribed), then each notification.
  ASSERT_NE(ethtool.find("Channel parameters for va:"), std::string::npos) << "ethtool --monitor saw nothing:\n" << ethtool;
  ASSERT_NE(ethtool.find("Features for va:"), std::string::npos) << ethtool;
  EXPECT_EQ(mine, ethtool);
}

TEST_F(MonitorEthtoolCliTest, DevLimitsTheOutputToOneDevice) {
  auto [ethtool, mine] = both("", "dev vb");
  EXPECT_NE(mine.find("Channel parameters for vb:"), std::string::npos) << mine;
  EXPECT_NE(mine.find("Features for vb:"), std::string::npos) << mine;
  EXPECT_EQ(mine.find(" va:"), std::string::npos) << mine;
  // What ethtool printed about vb, block by block ("\n" starts each), is what we printed, after
  // the same first line.
  const std::string first = "listening...\n";
  ASSERT_TRUE(ethtool.starts_with(first)) << ethtool;
  std::string theirs = first;
  std::size_t at = first.size();  // each block starts with its empty line
  while ((at = ethtool.find('\n', at)) != std::string::npos && at + 1 < ethtool.size()) {
    std::size_t next = ethtool.find("\n\n", at + 1);
    std::string block = ethtool.substr(at, next == std::string::npos ? std::string::npos : next + 1 - at);
    if (block.find(" vb:\n") != std::string::npos) theirs += block;
    if (next == std::string::npos) break;
    at = next + 1;
  }
  EXPECT_EQ(mine, theirs);
}

TEST_F(MonitorEthtoolCliTest, JsonLinesCarryTheShowFields) {
  auto [ethtool, mine] = both("-j", "");
  std::istringstream in(mine);
  std::map<std::string, json> lastOf;  // "kind ifname" -> the last event's object
  std::size_t count = 0;
  for (std::string line; std::getline(in, line);) {
    json j = json::parse(line);
    EXPECT_EQ(j["event"], "changed");
    EXPECT_EQ(j["object"], "ethtool");
    lastOf[j["kind"].get<std::string>() + " " + j["ifname"].get<std::string>()] = j;
    ++count;
  }
  ASSERT_GE(count, 4u) << mine;
  json ch = lastOf.at("channels va");
  // The values `ethtool -l va` prints now (ethtool 6.1 has no JSON for -l, so neither has
  // `fastlink ethtool -l`: the event's keys are the library's table's).
  std::string l = ns.exec("ethtool -l va").out;
  EXPECT_NE(l.find("Pre-set maximums:\nRX:\t\t" + ch["rx_max"].dump() + "\nTX:\t\t" + ch["tx_max"].dump() + "\n"),
            std::string::npos) << l << ch.dump();
  EXPECT_NE(l.find("Current hardware settings:\nRX:\t\t2\nTX:\t\t3\n"), std::string::npos) << l;
  EXPECT_EQ(ch["rx"], 2);
  EXPECT_EQ(ch["tx"], 3);
  EXPECT_EQ(lastOf.at("channels vb")["rx"], 1);
  json features = lastOf.at("features va")["features"];
  EXPECT_EQ(features["rx-gro-list"]["active"], true);
  // The oracle: ethtool -k after the changes.
  std::string k = ns.exec("ethtool -k vb").out;
  EXPECT_NE(k.find("\ttx-checksum-ip-generic: off"), std::string::npos) << k;
  EXPECT_EQ(lastOf.at("features vb")["features"]["tx-checksum-ip-generic"]["active"], false);
}

TEST_F(MonitorEthtoolCliTest, EthtoolWithOtherObjectsIsAUsageError) {
  auto r = cli("monitor ethtool route");
  EXPECT_EQ(r.status, 255);
  EXPECT_NE(r.err.find("\"ethtool\" is a stream of its own"), std::string::npos) << r.err;
  EXPECT_EQ(cli("monitor link ethtool").status, 255);
  EXPECT_EQ(cli("monitor ethtool sync").status, 255);
}

/// FEC, which veth lacks: a netdevsim device (the VM builds the module), its encodings set by
/// ethtool while both monitors run.
class MonitorEthtoolFecCliTest : public MonitorEthtoolCliTest {
 protected:
  std::unique_ptr<NetdevsimDevice> device;
  void SetUp() override {
    if (ns.exec("command -v ethtool").status != 0) GTEST_SKIP() << "ethtool is not installed (scripts/setup)";
    if (!NetdevsimDevice::available()) GTEST_SKIP() << "kernel lacks module 'netdevsim': runs in the VM (tests/vm/run)";
    device = std::make_unique<NetdevsimDevice>(ns, 700 + static_cast<unsigned>(::getpid() % 90));
    ASSERT_FALSE(device->name().empty()) << "the netdevsim device did not appear in the namespace";
  }
  std::string changes() const override {
    std::string et = "ip netns exec " + ns.name() + " ethtool --set-fec " + device->name() + " encoding ";
    return et + "rs; " + et + "baser rs; " + et + "auto off";
  }
};

TEST_F(MonitorEthtoolFecCliTest, FecTextEqualsEthtoolMonitorAndJsonCarriesTheShowFields) {
  auto [ethtool, mine] = both("", "");
  ASSERT_NE(ethtool.find("FEC parameters for " + device->name() + ":"), std::string::npos)
      << "ethtool --monitor saw no FEC change:\n" << ethtool;
  EXPECT_EQ(mine, ethtool);
  auto [ignored, lines] = both("-j", "");
  // The last event's object is what `ethtool --json --show-fec` reads now, after "auto off".
  std::string last;
  std::istringstream in(lines);
  for (std::string line; std::getline(in, line);)
    if (json::parse(line)["kind"] == "fec") last = line;
  ASSERT_FALSE(last.empty()) << lines;
  json event = json::parse(last), shown = json::parse(ns.exec("ethtool --json --show-fec " + device->name()).out)[0];
  EXPECT_EQ(event["object"], "ethtool");
  EXPECT_EQ(event["ifname"], shown["ifname"]);
  EXPECT_EQ(event["config"], shown["config"]) << last;
  EXPECT_EQ(event["active"], shown["active"]) << last;
}

TEST_F(MonitorEthtoolCliTest, UnknownDeviceIsAnError) {
  auto r = cli("monitor ethtool dev nope0");
  EXPECT_EQ(r.status, 2);
  EXPECT_FALSE(r.err.empty());
}

}  // namespace
}  // namespace fastlink::test
