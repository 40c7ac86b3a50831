// Every classifier of issue 33 with every action of it (6 x 7 filters), added by fastlink and
// listed by fastlink and by iproute2 6.1's tc: the same bytes in text and -j. The host kernel has
// u32, bpf and mirred only, so the whole matrix runs in the VM (FASTLINK_REQUIRE_KINDS makes a
// missing module a failure there); on the host it is skipped.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "cli/tc_cli_fixture.hpp"
#include "support/build_paths.hpp"

namespace fastlink::test {
namespace {

struct Part {
  const char* name;
  std::string text;  // as tc's grammar writes it
};

class TcFilterMatrix : public TcCliFixture {
 protected:
  void SetUp() override {
    ns.ip("link add v0 type veth peer name v1");
    ns.ip("link set v0 up");
    ns.ip("link set v1 up");
    ASSERT_EQ(tc("qdisc add dev v0 clsact").status, 0);
  }
};

TEST_F(TcFilterMatrix, EveryClassifierWithEveryActionPrintsAsTc) {
  // Probed by tc itself: flower, matchall, fw, basic and the actions but mirred are modules the
  // host kernel lacks (FACTS.md); the VM loads them (tests/vm/modules.list).
  // The skip names the classifier's module, a reason run_gtest accepts (the action's module comes
  // with it in tests/vm/modules.list).
  const std::pair<const char*, const char*> probes[] = {{"cls_matchall", "filter add dev v0 egress pref 99 matchall action drop"},
                                                        {"cls_flower", "filter add dev v0 egress pref 98 flower action pass"},
                                                        {"cls_basic", "filter add dev v0 egress pref 97 basic action pass"},
                                                        {"cls_fw", "filter add dev v0 egress pref 96 handle 1 fw action pass"}};
  for (const auto& [module, probe] : probes) {
    if (tc(probe).status == 0) continue;
    if (std::getenv("FASTLINK_REQUIRE_KINDS")) FAIL() << "the VM kernel refuses: tc " << probe;
    GTEST_SKIP() << "kernel lacks module '" << module << "': tc " << probe << " fails (runs in the VM: tests/vm)";
  }
  ASSERT_EQ(tc("filter del dev v0 egress").status, 0);
  const std::string obj = std::string(build::bpfDir()) + "/cls_mark.o";
  const std::vector<Part> classifiers = {
      {"u32", "protocol ip u32 match ip dst 10.0.0.1/32"}, {"flower", "protocol ip flower ip_proto tcp dst_ip 10.0.0.0/24 dst_port 80"},
      {"matchall", "matchall"},                             {"bpf", "bpf obj " + obj + " sec classifier"},
      {"fw", "fw"},                                         {"basic", "basic"}};
  const std::vector<Part> actions = {
      {"gact", "action drop"},
      {"mirred", "action mirred egress redirect dev v1"},
      {"police", "action police rate 1mbit burst 10k conform-exceed drop/pass"},
      {"skbedit", "action skbedit mark 7 priority 1:2"},
      {"vlan", "action vlan push id 100 priority 3"},
      {"tunnel_key", "action tunnel_key set src_ip 192.0.2.1 dst_ip 192.0.2.2 id 42 dst_port 4789"},
      {"csum", "action csum ip4h tcp"}};
  // fw on egress: tc 6.1 prints fw's options with fprintf, so its -j of a listing with fw is not
  // JSON (TcFilterCli.OtherClassifiersAndActionsMatchTc pins that); the rest on ingress.
  int pref = 0;
  for (const auto& c : classifiers) {
    for (const auto& a : actions) {
      ++pref;
      std::string where = std::string(c.name) == "fw" ? "egress" : "ingress";
      std::string handle = std::string(c.name) == "fw" ? " handle " + std::to_string(pref) : "";
      ok("tc filter add dev v0 " + where + " pref " + std::to_string(pref) + handle + " " + c.text + " " + a.text);
    }
  }
  // Each filter by itself too: a listing of one classifier/action pair, text and -j.
  pref = 0;
  for (const auto& c : classifiers) {
    for (const auto& a : actions) {
      ++pref;
      SCOPED_TRACE(std::string(c.name) + " + " + a.name);
      std::string where = std::string(c.name) == "fw" ? "egress" : "ingress";
      std::string object = "filter show dev v0 " + where + " pref " + std::to_string(pref);
      auto listed = tc(object);
      ASSERT_NE(listed.out.find(std::string(" ") + c.name + " "), std::string::npos) << listed.out;
      ASSERT_NE(listed.out.find("action order 1: "), std::string::npos) << listed.out;
      ASSERT_NE(listed.out.find(a.name), std::string::npos) << listed.out;
      samePrint("", object);
      if (std::string(c.name) != "fw") samePrint("-j", object);
    }
  }
  samePrint("", "filter show dev v0 ingress");
  samePrint("-j", "filter show dev v0 ingress");
  samePrint("", "filter show dev v0 egress");
  // fw's -j, checked field by field against what tc prints in text: kind, handle and each action.
  auto mine = nlohmann::json::parse(cli("-j tc filter show dev v0 egress").out);
  std::size_t fw = 0;
  for (const auto& f : mine) {
    if (f.value("kind", "") != "fw" || !f.contains("options")) continue;
    ++fw;
    ASSERT_TRUE(f["options"].contains("actions")) << f.dump();
    std::string kind = f["options"]["actions"][0]["kind"];
    bool known = false;
    for (const auto& a : actions) known = known || kind == a.name;
    EXPECT_TRUE(known) << f.dump();
  }
  EXPECT_EQ(fw, actions.size()) << mine.dump();
}

}  // namespace
}  // namespace fastlink::test
