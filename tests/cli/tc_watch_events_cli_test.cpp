// `fastlink tc watch dev X` prints, between its counter lines, the filters and chains added to,
// replaced on, changed on and deleted from X as `tc monitor` prints them (the oracle, run beside
// it); events of another device are left out; with -j each event is one object.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "cli/tc_cli_fixture.hpp"
#include "support/monitor_wait.hpp"

namespace fastlink::test {
namespace {

/// The events of a text (tc monitor's, or tc watch's without its counter lines): an event is
/// its first line ("added filter dev ...", "deleted chain ...", "filter dev ..." for a change)
/// and the lines that continue it (u32's keys, the actions).
std::vector<std::string> events(const std::string& text, bool skipCounters) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (skipCounters && (line.starts_with("dev ") || line.starts_with("qdisc "))) continue;
    bool starts = false;
    for (const char* head : {"added ", "replaced ", "deleted ", "filter ", "chain "})
      if (line.starts_with(head)) starts = true;
    if (starts || out.empty()) out.push_back(line + "\n");
    else out.back() += line + "\n";
  }
  return out;
}

/// The events about device `dev` (their first line names it).
std::vector<std::string> onDevice(const std::vector<std::string>& all, const std::string& dev) {
  std::vector<std::string> out;
  for (const auto& e : all)
    if (e.substr(0, e.find('\n')).find(" dev " + dev + " ") != std::string::npos) out.push_back(e);
  return out;
}

class TcWatchEvents : public TcCliFixture {};

TEST_F(TcWatchEvents, FilterAndChainEventsOfTheDeviceAsTcMonitorPrintsThem) {
  ns.ip("link add va type veth peer name vb");
  ASSERT_EQ(tc("qdisc add dev va clsact").status, 0);
  ASSERT_EQ(tc("qdisc add dev vb clsact").status, 0);
  std::string a = "/tmp/fastlink-watch-ev-" + ns.name(), b = a + "-text", c = a + "-json", tcn = "tc -n " + ns.name() + " ";
  std::string cli = cliPath() + " -n " + ns.name();
  std::string filter = "dev va ingress protocol ip pref 1 handle 800::1 u32 match ip dst 10.0.0.1/32 ";
  std::string script = monitorWaitFunctions(ns.name()) + tcn + "monitor >" + a + " 2>&1 & A=$!; " + cli +
                       " tc watch dev va interval 0.2 count 150 >" + b + " 2>&1 & B=$!; " + cli +
                       " -j tc watch dev va interval 0.2 count 150 >" + c + " 2>&1 & C=$!; listening $A; listening $B; listening $C; " +
                       // Another device's filter first: tc monitor prints it, tc watch dev va must not.
                       tcn + "filter add dev vb ingress protocol ip pref 3 u32 match ip src 10.9.0.1/32; " + tcn + "filter add " +
                       filter + "action mirred egress redirect dev vb; " + tcn + "filter replace " + filter + "classid 1:2; " + tcn +
                       "filter change " + filter + "classid 1:3; " + tcn + "filter del dev va ingress pref 1; " + tcn +
                       "chain add dev va ingress chain 7; " + tcn + "chain del dev va ingress chain 7; " +
                       "holds " + a + " 'deleted chain dev va .*chain 7'; holds " + b + " 'deleted chain dev va .*chain 7'; holds " + c +
                       " '\"chain\":7'; sleep 0.3; kill $A $B $C; wait";
  run("sh -c " + shellQuote(script));
  std::string theirs = run("cat " + a).out, mine = run("cat " + b).out, jsonText = run("cat " + c).out;
  run("rm -f " + a + " " + b + " " + c);

  auto expected = onDevice(events(theirs, false), "va");
  ASSERT_GE(expected.size(), 6u) << "tc monitor saw too little:\n" << theirs;
  ASSERT_FALSE(onDevice(events(theirs, false), "vb").empty()) << "the other device's event is missing in tc monitor:\n" << theirs;
  ASSERT_NE(mine.find("dev va: tx "), std::string::npos) << "no counter lines:\n" << mine;
  EXPECT_EQ(events(mine, true), expected) << "tc monitor:\n" << theirs << "\nfastlink tc watch:\n" << mine;

  // -j: the counter lines and one object per event, on device va, in tc monitor's order.
  std::vector<std::string> kinds;
  std::istringstream in(jsonText);
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << "not JSON: " << line;
    if (!j.contains("event")) {
      EXPECT_EQ(j["dev"], "va") << line;
      continue;
    }
    std::string object = j["object"];
    EXPECT_EQ(j[object]["dev"], "va") << line;
    kinds.push_back(j["event"].get<std::string>() + " " + object);
  }
  std::vector<std::string> theirKinds;
  for (const auto& e : expected) {
    std::string object = e.find("chain dev") < e.find('\n') && e.find("filter dev") > e.find('\n') ? "chain" : "filter";
    theirKinds.push_back((e.starts_with("deleted ") ? "deleted " : "new ") + object);
  }
  EXPECT_EQ(kinds, theirKinds) << jsonText;
}

}  // namespace
}  // namespace fastlink::test
