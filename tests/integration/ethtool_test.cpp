// ethtool over generic netlink against the real kernel, in a fresh namespace with a 4-queue
// veth pair. Oracles: the `ethtool` program (its text: 6.1 has no --json for -l/-k) and /sys
// (queue directories), both run inside the namespace.
#include <gtest/gtest.h>

#include <fastlink/ethtool.hpp>
#include <fastlink/fastlink.hpp>
#include <nlohmann/json.hpp>
#include <linux/ethtool.h>

#include <map>
#include <sstream>

#include "support/ethtool_text.hpp"
#include "support/test_netns.hpp"

namespace fastlink {
// Readable failures: "peer_ifindex=2" instead of the struct's bytes (gtest finds it by ADL).
inline void PrintTo(const DriverStat& s, std::ostream* os) { *os << s.name << "=" << s.value; }
}  // namespace fastlink

namespace fastlink::test {
namespace {

/// `ethtool -k` text: feature name -> "on" / "off" (suffixes such as [fixed] dropped).
std::map<std::string, std::string> parseFeatures(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("Features for")) continue;
    auto colon = line.find(": ");
    if (colon == std::string::npos) continue;
    std::string name = line.substr(line.find_first_not_of('\t'), colon - line.find_first_not_of('\t'));
    std::string value = line.substr(colon + 2, 3);
    out[name] = value.starts_with("on") ? "on" : "off";
  }
  return out;
}

class EthtoolTest : public ::testing::Test {
 protected:
  TestNetns ns;
  Netlink nl{NetlinkOptions{.netns = Netns::named(ns.name())}};

  void SetUp() override {
    if (ns.exec("command -v ethtool").status != 0) GTEST_SKIP() << "ethtool is not installed (scripts/setup)";
    ns.ip("link add e0 numtxqueues 4 numrxqueues 4 type veth peer name e1 numtxqueues 4 numrxqueues 4");
  }

  std::string ethtool(const std::string& args) const {
    CommandResult r = ns.exec("ethtool " + args);
    EXPECT_EQ(r.status, 0) << "ethtool " << args << ": " << r.err;
    return r.out;
  }
  /// Number of queue directories of `kind` ("rx" or "tx") in /sys/class/net/DEV/queues.
  int sysQueues(const std::string& dev, const std::string& kind) const {
    CommandResult r = ns.exec("ls /sys/class/net/" + dev + "/queues | grep -c '^" + kind + "-'");
    return std::stoi(r.out);
  }
};

TEST_F(EthtoolTest, ChannelsMatchEthtool) {
  ChannelsInfo c = nl.ethtool().channels("e0");
  auto oracle = parseEthtoolSections(ethtool("-l e0"));
  EXPECT_EQ(std::to_string(*c.rxMax), oracle.at({"max", "RX"}));
  EXPECT_EQ(std::to_string(*c.txMax), oracle.at({"max", "TX"}));
  EXPECT_EQ(std::to_string(*c.rx), oracle.at({"cur", "RX"}));
  EXPECT_EQ(std::to_string(*c.tx), oracle.at({"cur", "TX"}));
  EXPECT_FALSE(c.combinedMax);  // veth has separate rx/tx channels: ethtool prints n/a
  EXPECT_EQ(oracle.at({"max", "Combined"}), "n/a");
  EXPECT_EQ(*c.rxMax, 4u);
  // By ifindex as well.
  uint32_t index = ns.ipJson("link show dev e0")[0]["ifindex"];
  EXPECT_EQ(nl.ethtool().channels(index), c);
}

TEST_F(EthtoolTest, SetChannelsChangesQueuesAndIsReversible) {
  nl.ethtool().setChannels("e0", ChannelsInfo().setRx(2).setTx(3));
  auto oracle = parseEthtoolSections(ethtool("-l e0"));
  EXPECT_EQ(oracle.at({"cur", "RX"}), "2");
  EXPECT_EQ(oracle.at({"cur", "TX"}), "3");
  EXPECT_EQ(sysQueues("e0", "rx"), 2);
  EXPECT_EQ(sysQueues("e0", "tx"), 3);
  // Only what is set is sent: tx stays.
  nl.ethtool().setChannels("e0", ChannelsInfo().setRx(4));
  EXPECT_EQ(sysQueues("e0", "rx"), 4);
  EXPECT_EQ(sysQueues("e0", "tx"), 3);
  nl.ethtool().setChannels("e0", ChannelsInfo().setTx(4));
  EXPECT_EQ(sysQueues("e0", "tx"), 4);
}

TEST_F(EthtoolTest, TooManyChannelsIsRefusedWithExtackAndChangesNothing) {
  std::string before = ethtool("-l e0");
  try {
    nl.ethtool().setChannels("e0", ChannelsInfo().setRx(2).setTx(9));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::invalid_argument);
    EXPECT_NE(e.extack().find("exceeds maximum"), std::string::npos) << e.what();
  }
  EXPECT_EQ(ethtool("-l e0"), before);
  EXPECT_EQ(sysQueues("e0", "rx"), 4);
  // A kind the device does not have.
  EXPECT_THROW(nl.ethtool().setChannels("e0", ChannelsInfo().setCombined(2)), Error);
  EXPECT_EQ(ethtool("-l e0"), before);
}

TEST_F(EthtoolTest, MissingDeviceIsAClearError) {
  try {
    nl.ethtool().channels("nosuchdev");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::no_such_device);
    EXPECT_FALSE(e.extack().empty());
  }
  EXPECT_THROW(nl.ethtool().setChannels("nosuchdev", ChannelsInfo().setRx(1)), Error);
  EXPECT_THROW(nl.ethtool().features("nosuchdev"), Error);
}

TEST_F(EthtoolTest, FeaturesMatchEthtool) {
  FeaturesInfo f = nl.ethtool().features("e0");
  auto oracle = parseFeatures(ethtool("-k e0"));
  std::size_t compared = 0;
  for (const auto& feature : f.features) {
    auto it = oracle.find(feature.name);
    if (it == oracle.end()) continue;  // shown under a legacy group name by ethtool
    EXPECT_EQ(it->second, feature.active ? "on" : "off") << feature.name;
    ++compared;
  }
  EXPECT_GT(compared, 40u);
  ASSERT_NE(f.find("rx-gro-list"), nullptr);
  EXPECT_FALSE(f.find("rx-gro-list")->fixed());
  ASSERT_NE(f.find("tx-checksum-ipv4"), nullptr);
  EXPECT_TRUE(f.find("tx-checksum-ipv4")->fixed());
}

TEST_F(EthtoolTest, SetFeaturesTogglesAndReportsWhatDidNotTake) {
  bool was = parseFeatures(ethtool("-k e0")).at("rx-gro-list") == "on";
  FeaturesSetResult r = nl.ethtool().setFeatures("e0", FeatureChanges().set("rx-gro-list", !was));
  EXPECT_TRUE(r.unmet.empty());
  EXPECT_EQ(parseFeatures(ethtool("-k e0")).at("rx-gro-list"), !was ? "on" : "off");
  EXPECT_EQ(r.after.find("rx-gro-list")->active, !was);
  nl.ethtool().setFeatures("e0", FeatureChanges().set("rx-gro-list", was));
  EXPECT_EQ(parseFeatures(ethtool("-k e0")).at("rx-gro-list"), was ? "on" : "off");
  // A fixed feature: the kernel accepts the request, but the feature stays off.
  FeaturesSetResult fixed = nl.ethtool().setFeatures("e0", FeatureChanges().set("tx-checksum-ipv4", true));
  ASSERT_EQ(fixed.unmet.size(), 1u);
  EXPECT_EQ(fixed.unmet[0].first, "tx-checksum-ipv4");
  EXPECT_EQ(parseFeatures(ethtool("-k e0")).at("tx-checksum-ipv4"), "off");
}

TEST_F(EthtoolTest, UnknownFeatureIsRefusedAndChangesNothing) {
  std::string before = ethtool("-k e0");
  try {
    // The known one must not be applied either: the kernel checks the whole request first.
    nl.ethtool().setFeatures("e0", FeatureChanges().set("rx-gro-list", true).set("no-such-feature", false));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(e.extack().find("bit name not found"), std::string::npos) << e.what();
  }
  EXPECT_EQ(ethtool("-k e0"), before);
}

TEST_F(EthtoolTest, RingsAndCoalesceRefusalReachesTheCaller) {
  // veth implements neither: the kernel's refusal (EOPNOTSUPP) must surface, like ethtool's.
  EXPECT_NE(ns.exec("ethtool -g e0").status, 0);
  try {
    nl.ethtool().rings("e0");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::operation_not_supported) << e.what();
  }
  try {
    nl.ethtool().setRings("e0", RingsInfo().setRx(128));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::operation_not_supported) << e.what();
    EXPECT_EQ(e.operation(), "ethtool -G e0");
  }
  EXPECT_THROW(nl.ethtool().coalesce("e0"), Error);
  EXPECT_THROW(nl.ethtool().setCoalesce("e0", CoalesceInfo().setRxUsecs(10)), Error);
}

TEST_F(EthtoolTest, StandardStatsOfAVethAreEmpty) {
  // veth has no IEEE 802.3 / RMON counters; the kernel still answers every group asked for,
  // empty, and they are the groups `ethtool --json -S --all-groups` lists, in its order.
  std::vector<StatsGroup> groups = nl.ethtool().stats("e0");
  CommandResult r = ns.exec("ethtool --json -S e0 --all-groups");
  ASSERT_EQ(r.status, 0) << r.err;
  auto theirs = nlohmann::ordered_json::parse(r.out)[0];
  std::vector<std::string> names, theirNames;
  for (const auto& g : groups) {
    names.push_back(g.name);
    EXPECT_TRUE(g.counters.empty()) << g.name;
  }
  for (const auto& [key, value] : theirs.items())
    if (key != "ifname") theirNames.push_back(key);
  EXPECT_EQ(names, theirNames);
  ASSERT_GE(names.size(), 4u);
  EXPECT_EQ(names[0], "eth-phy");
  EXPECT_EQ(names[3], "rmon");
  EXPECT_EQ(ns.exec("ethtool -S e0 --all-groups").out, "Standard stats for e0:\n");  // no counter lines
}

// The driver's own counters (ioctl, not netlink): the same names, order and values as
// `ethtool -S`, by name and by ifindex; veth's first is its peer's ifindex.
TEST_F(EthtoolTest, DriverStatsAreEthtoolSs) {
  CommandResult r = ns.exec("ethtool -S e0");
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<DriverStat> want;
  std::istringstream lines(r.out);
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "NIC statistics:");
  while (std::getline(lines, line)) {
    std::size_t colon = line.rfind(": ");
    ASSERT_NE(colon, std::string::npos) << line;
    std::size_t start = line.find_first_not_of(' ');
    want.push_back({line.substr(start, colon - start), std::stoull(line.substr(colon + 2))});
  }
  ASSERT_GT(want.size(), 1u);
  EXPECT_EQ(want[0], (DriverStat{"peer_ifindex", std::stoull(ns.sysfs("e1", "ifindex"))}));
  EXPECT_EQ(nl.ethtool().driverStats("e0"), want);
  EXPECT_EQ(nl.ethtool().driverStats(static_cast<uint32_t>(std::stoul(ns.sysfs("e0", "ifindex")))), want);
  // The loopback has no driver counters: ethtool says "no stats available".
  EXPECT_NE(ns.exec("ethtool -S lo").err.find("no stats available"), std::string::npos);
  try {
    nl.ethtool().driverStats("lo");
    FAIL() << "lo has driver stats";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::operation_not_supported) << e.what();
    EXPECT_EQ(e.extack(), "no stats available");
  }
  EXPECT_THROW(nl.ethtool().driverStats("nosuchdev"), Error);
}


// The link settings, driver information and time stamping of a veth and a tun, against ethtool's
// text: what a veth reports (speed 10000, full duplex, twisted pair, no message level) and what a
// tun adds (its message level, which setDebug changes as ethtool -s msglvl reads it back).
TEST_F(EthtoolTest, LinkSettingsDriverAndTimeStampingAgreeWithEthtool) {
  ns.ip("link set e0 up");
  ns.ip("link set e1 up");
  LinkSettings s = nl.ethtool().linkSettings("e0");
  std::string text = ethtool("e0");
  ASSERT_TRUE(s.modes && s.info && s.state);
  EXPECT_NE(text.find("\tSpeed: " + std::to_string(*s.modes->speed) + "Mb/s\n"), std::string::npos) << text;
  EXPECT_EQ(s.modes->duplex, DUPLEX_FULL);
  EXPECT_EQ(s.modes->autoneg, false);
  EXPECT_EQ(s.info->port, PORT_TP);
  EXPECT_EQ(s.state->link, text.find("Link detected: yes") != std::string::npos);
  EXPECT_FALSE(s.debug);  // veth has no message level: ethtool prints none
  EXPECT_EQ(text.find("message level"), std::string::npos);
  DriverInfo d = nl.ethtool().driverInfo("e0");
  EXPECT_NE(ethtool("-i e0").find("driver: " + d.driver + "\nversion: " + d.version + "\n"), std::string::npos);
  EXPECT_EQ(d.driver, "veth");
  TsInfo t = nl.ethtool().tsInfo("e0");
  for (const auto& name : t.timestamping) EXPECT_NE(ethtool("-T e0").find("\t" + name + "\n"), std::string::npos) << name;
  EXPECT_FALSE(t.timestamping.empty());

  ASSERT_EQ(ns.exec("ip tuntap add t0 mode tun").status, 0);
  DebugInfo level;
  level.change = BitsetChange{0, {}, {}, {{"drv", true}, {"link", true}}};
  nl.ethtool().setDebug("t0", level);
  EXPECT_NE(ethtool("t0").find("Current message level: 0x00000005 (5)\n"), std::string::npos) << ethtool("t0");
  LinkSettings tun = nl.ethtool().linkSettings("t0");
  ASSERT_TRUE(tun.debug);
  EXPECT_EQ(tun.debug->msgMask, 5u);
  EXPECT_EQ(tun.debug->classes, (std::vector<std::string>{"drv", "link"}));
  // What the driver lacks is the kernel's EOPNOTSUPP, and nothing changes.
  try {
    nl.ethtool().setPause("e0", PauseInfo().setRx(true));
    FAIL() << "veth took a pause setting";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::operation_not_supported) << e.what();
  }
  EXPECT_EQ(ethtool("e0"), text);
}

}  // namespace
}  // namespace fastlink::test
