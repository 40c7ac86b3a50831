// `fastlink neigh ...` on the command line, checked with `ip -j neigh`.
#include <set>

#include "cli_fixture.hpp"

namespace fastlink::test {
namespace {

using nlohmann::json;

class NeighCliTest : public CliTest {
 protected:
  void SetUp() override {
    ns.ip("link add v0 type veth peer name v1");
    ns.ip("link add v2 type veth peer name v3");
    for (const char* d : {"v0", "v1", "v2", "v3"}) ns.ip(std::string("link set ") + d + " up");
  }
  /// The IPv4 entries iproute2 shows (nud all), without the kernel's multicast ones.
  json ipNeigh(const std::string& args) {
    json out = json::array();
    for (const auto& e : ns.ipJson("-4 neigh show nud all " + args)) out.push_back(e);
    return out;
  }
  json cliJson(const std::string& args) {
    auto r = cli("-j " + args);
    EXPECT_EQ(r.status, 0) << r.err;
    return json::parse(r.out);
  }
};

TEST_F(NeighCliTest, AddReplaceDelAndJsonMatchesIproute2) {
  auto r = cli("neigh add 10.0.0.2 lladdr 02:00:00:00:00:02 dev v0 nud permanent");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  ASSERT_EQ(cli("neigh add 10.0.0.3 lladdr 02:00:00:00:00:03 dev v0 nud stale router").status, 0);
  ASSERT_EQ(cli("neigh replace 10.0.0.4 lladdr 02:00:00:00:00:04 dev v2 nud reachable").status, 0);

  // -j with iproute2's field names: same entries, same fields.
  json mine = cliJson("neigh show -4");
  json theirs = ns.ipJson("-4 neigh show");
  EXPECT_EQ(std::set<json>(mine.begin(), mine.end()), std::set<json>(theirs.begin(), theirs.end())) << mine.dump() << "\n" << theirs.dump();
  json onV0 = cliJson("neigh show dev v0");
  json ipOnV0 = ns.ipJson("neigh show dev v0");
  EXPECT_EQ(std::set<json>(onV0.begin(), onV0.end()), std::set<json>(ipOnV0.begin(), ipOnV0.end()));
  for (const auto& e : onV0) EXPECT_FALSE(e.contains("dev")) << "like ip: dev is implied by the filter";

  // Text like ip neigh.
  r = cli("neigh show dev v0");
  EXPECT_NE(r.out.find("10.0.0.3 lladdr 02:00:00:00:00:03 router STALE"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("10.0.0.2 lladdr 02:00:00:00:00:02 PERMANENT"), std::string::npos) << r.out;

  ASSERT_EQ(cli("neigh replace 10.0.0.2 lladdr 02:00:00:00:00:22 dev v0 nud noarp").status, 0);
  json e = ns.ipJson("neigh show nud all to 10.0.0.2 dev v0");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0]["lladdr"], "02:00:00:00:00:22");
  EXPECT_EQ(e[0]["state"], json::array({"NOARP"}));
  EXPECT_TRUE(cliJson("neigh show dev v0 to 10.0.0.2").empty()) << "noarp hidden without nud all, like ip";
  EXPECT_EQ(cliJson("neigh show dev v0 to 10.0.0.2 nud all").size(), 1u);

  ASSERT_EQ(cli("neigh del 10.0.0.2 dev v0").status, 0);
  EXPECT_TRUE(ns.ipJson("neigh show nud all to 10.0.0.2 dev v0").empty());
  r = cli("neigh del 10.0.0.2 dev v0");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("No such file or directory"), std::string::npos) << r.err;
}

TEST_F(NeighCliTest, ProxyEntries) {
  ASSERT_EQ(cli("neigh add proxy 10.0.0.9 dev v0").status, 0);
  ASSERT_EQ(cli("neigh add proxy 2001:db8::9 dev v2").status, 0);
  json mine = cliJson("neigh show proxy");
  json theirs = ns.ipJson("neigh show proxy");
  EXPECT_EQ(std::set<json>(mine.begin(), mine.end()), std::set<json>(theirs.begin(), theirs.end())) << mine.dump();
  EXPECT_EQ(cliJson("neigh show proxy dev v2").size(), 1u);
  ASSERT_EQ(cli("neigh del proxy 10.0.0.9 dev v0").status, 0);
  EXPECT_EQ(ns.ipJson("neigh show proxy").size(), 1u);
}

TEST_F(NeighCliTest, FlushDevice) {
  for (int i = 1; i <= 3; ++i) {
    ASSERT_EQ(cli("neigh add 10.0.0." + std::to_string(i) + " lladdr 02:00:00:00:00:0" + std::to_string(i) + " dev v0 nud stale").status, 0);
    ASSERT_EQ(cli("neigh add 10.0.1." + std::to_string(i) + " lladdr 02:00:00:00:01:0" + std::to_string(i) + " dev v2 nud stale").status, 0);
  }
  ASSERT_EQ(cli("neigh add 10.0.0.99 lladdr 02:00:00:00:00:99 dev v0").status, 0);
  auto r = cli("neigh flush dev v0");
  ASSERT_EQ(r.status, 0) << r.err;
  json left = ipNeigh("dev v0");
  ASSERT_EQ(left.size(), 1u) << left.dump();
  EXPECT_EQ(left[0]["dst"], "10.0.0.99");
  EXPECT_EQ(ipNeigh("dev v2").size(), 3u);
  EXPECT_EQ(cli("neigh flush").status, 255) << "flush without a selector is refused";
}

TEST_F(NeighCliTest, BadInputExitsWithAClearErrorAndChangesNothing) {
  ASSERT_EQ(cli("neigh add 10.0.0.2 lladdr 02:00:00:00:00:02 dev v0").status, 0);
  json before = ipNeigh("");
  const std::pair<const char*, const char*> usage[] = {
      {"neigh add 10.0.0.3 lladdr 02:00:00:00:00 dev v0", "is not a MAC address"},
      {"neigh add 10.0.0.300 lladdr 02:00:00:00:00:03 dev v0", "is not an IPv4 or IPv6 address"},
      {"neigh add 10.0.0.3 lladdr 02:00:00:00:00:03 dev v0 nud bogus", "unknown neighbour state"},
      {"neigh add 10.0.0.3 lladdr 02:00:00:00:00:03", "\"dev DEV\" is required"},
      {"neigh add proxy 10.0.0.3 lladdr 02:00:00:00:00:03 dev v0", "proxy entry has no link-layer address"},
      {"neigh add 10.0.0.3 dev v0 frob", "unknown keyword \"frob\""},
  };
  for (const auto& [line, message] : usage) {
    auto r = cli(line);
    // As ip: a bad address is status 1, other bad input 255.
    EXPECT_EQ(r.status, std::string(line).find("10.0.0.300") != std::string::npos ? 1 : 255) << line;
    EXPECT_NE(r.err.find(message), std::string::npos) << line << ": " << r.err;
  }
  auto r = cli("neigh add 10.0.0.3 lladdr 02:00:00:00:00:03 dev nosuch0");
  EXPECT_EQ(r.status, 1);  // ip: Cannot find device, status 1
  EXPECT_NE(r.err.find("Cannot find device \"nosuch0\""), std::string::npos) << r.err;
  EXPECT_EQ(ipNeigh(""), before);
}

TEST_F(NeighCliTest, BatchFile) {
  auto r = batch("neigh add 10.0.0.2 lladdr 02:00:00:00:00:02 dev v0\n"
                 "neigh add 10.0.0.3 lladdr 02:00:00:00:00:03 dev v0 nud stale\n"
                 "neigh add proxy 10.0.0.9 dev v2\n");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(ipNeigh("dev v0").size(), 2u);
  EXPECT_EQ(ns.ipJson("neigh show proxy").size(), 1u);
  r = batch("neigh add 10.0.0.4 lladdr 02:00:00:00:00:04 dev v0\nneigh add 10.0.0.5 lladdr zz dev v0\n");
  EXPECT_EQ(r.status, 255);
  EXPECT_EQ(ipNeigh("dev v0").size(), 2u) << "a bad line sends nothing";
}

}  // namespace
}  // namespace fastlink::test
