// `fastlink fdb ...` on the command line, checked with `bridge -j fdb`.
#include <set>

#include "cli_fixture.hpp"

namespace fastlink::test {
namespace {

using nlohmann::json;

class FdbCliTest : public CliTest {
 protected:
  void SetUp() override {
    ns.ip("link add br0 type bridge");
    ns.ip("link add v0 type veth peer name v1");
    ns.ip("link set v1 master br0");
    ns.ip("link add vx0 type vxlan id 42 dstport 4789 local 10.0.0.1 nolearning");
  }
  json bridgeJson(const std::string& args) {
    auto r = run("bridge -n " + ns.name() + " -j " + args);
    EXPECT_EQ(r.status, 0) << r.err;
    return json::parse(r.out);
  }
  json cliJson(const std::string& args) {
    auto r = cli("-j " + args);
    EXPECT_EQ(r.status, 0) << r.err;
    return json::parse(r.out);
  }
  static std::set<json> asSet(const json& a) { return std::set<json>(a.begin(), a.end()); }
};

TEST_F(FdbCliTest, BridgePortEntriesJsonAndTextMatchBridge8) {
  ASSERT_EQ(cli("fdb add 02:00:00:00:00:11 dev v1 master static").status, 0);
  ASSERT_EQ(cli("fdb add 02:00:00:00:00:12 dev v1 master static sticky").status, 0);
  ASSERT_EQ(cli("fdb add 02:00:00:00:00:13 dev v1 master").status, 0);
  EXPECT_EQ(asSet(cliJson("fdb show dev v1")), asSet(bridgeJson("fdb show dev v1")));
  EXPECT_EQ(asSet(cliJson("fdb show br br0")), asSet(bridgeJson("fdb show br br0")));
  auto mine = cli("fdb show br br0");
  auto theirs = run("bridge -n " + ns.name() + " fdb show br br0");
  EXPECT_EQ(mine.out, theirs.out);
  ASSERT_EQ(cli("fdb del 02:00:00:00:00:11 dev v1 master").status, 0);
  for (const auto& e : bridgeJson("fdb show dev v1")) EXPECT_NE(e["mac"], "02:00:00:00:00:11");
  ASSERT_EQ(cli("fdb replace 02:00:00:00:00:13 dev v1 master static").status, 0);
  bool found = false;
  for (const auto& e : bridgeJson("fdb show dev v1"))
    if (e["mac"] == "02:00:00:00:00:13") found = e["state"] == "static";
  EXPECT_TRUE(found);
}

TEST_F(FdbCliTest, VxlanRemotes) {
  ASSERT_EQ(cli("fdb append 00:00:00:00:00:00 dev vx0 dst 10.0.0.2 vni 100 port 4790").status, 0);
  ASSERT_EQ(cli("fdb append 00:00:00:00:00:00 dev vx0 dst 10.0.0.3").status, 0);
  ASSERT_EQ(cli("fdb add 02:00:00:00:00:41 dev vx0 dst 10.0.0.5 static").status, 0);
  json mine = cliJson("fdb show dev vx0");
  EXPECT_EQ(asSet(mine), asSet(bridgeJson("fdb show dev vx0"))) << mine.dump();
  EXPECT_EQ(mine.size(), 3u);
  ASSERT_EQ(cli("fdb del 00:00:00:00:00:00 dev vx0 dst 10.0.0.3").status, 0);
  EXPECT_EQ(bridgeJson("fdb show dev vx0").size(), 2u);
}

TEST_F(FdbCliTest, BadInputExitsWithAClearErrorAndChangesNothing) {
  json before = bridgeJson("fdb show dev vx0");
  const std::pair<const char*, const char*> usage[] = {
      {"fdb add 02:00:00:00:00 dev vx0 dst 10.0.0.2", "is not a MAC address"},
      {"fdb add 02:00:00:00:00:51 dev v1 master vlan 4095", "vlan: 4095 is out of range (1-4094)"},
      {"fdb add 02:00:00:00:00:51 dev vx0 dst 10.0.0.256", "is not an IPv4 or IPv6 address"},
      {"fdb add 02:00:00:00:00:51 dev vx0 vni 16777216", "out of range"},
      {"fdb add 02:00:00:00:00:51 dev v1 master sticky", "sticky entry cannot be permanent"},
      {"fdb append 02:00:00:00:00:51 dev vx0", "needs dst"},
      {"fdb add 02:00:00:00:00:51", "\"dev DEV\" is required"},
  };
  for (const auto& [line, message] : usage) {
    auto r = cli(line);
    // As ip: a bad address is status 1, other bad input 255.
    EXPECT_EQ(r.status, std::string(line).find("10.0.0.256") != std::string::npos ? 1 : 255) << line;
    EXPECT_NE(r.err.find(message), std::string::npos) << line << ": " << r.err;
  }
  auto r = cli("fdb add 02:00:00:00:00:51 dev nosuch0 master static");
  EXPECT_EQ(r.status, 1);  // ip: Cannot find device, status 1
  EXPECT_NE(r.err.find("Cannot find device \"nosuch0\""), std::string::npos) << r.err;
  EXPECT_EQ(bridgeJson("fdb show dev vx0"), before);
}

TEST_F(FdbCliTest, BatchFile) {
  auto r = batch("fdb append 00:00:00:00:00:00 dev vx0 dst 10.0.0.2\n"
                 "fdb append 00:00:00:00:00:00 dev vx0 dst 10.0.0.3\n"
                 "fdb append 00:00:00:00:00:00 dev vx0 dst 10.0.0.4\n");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(bridgeJson("fdb show dev vx0").size(), 3u);
}

}  // namespace
}  // namespace fastlink::test
