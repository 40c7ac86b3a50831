// The CLI's "filtered in the kernel" and "one request" claims, proven from the wire: the CLI runs
// with the wire observer preloaded (LD_PRELOAD, tests/support/wire_observer.cpp), which counts
// the netlink requests it sends and the reply messages it receives. Results are checked with
// iproute2 as everywhere.
#include <cstdio>
#include <fstream>
#include <set>

#include <linux/rtnetlink.h>

#include <algorithm>
#include <map>

#include "cli/cli_fixture.hpp"

namespace fastlink::test {
namespace {

using json = nlohmann::json;

class WireCliTest : public CliTest {
 protected:
  void SetUp() override {
    // 3 bridges, 40 veth pairs (4 of them ports of br1), addresses, neighbours and routes.
    std::vector<std::string> lines = {"link set lo up"};
    for (int i = 0; i < 3; ++i) lines.push_back("link add br" + std::to_string(i) + " type bridge");
    for (int i = 0; i < 40; ++i) {
      lines.push_back("link add a" + std::to_string(i) + " type veth peer name b" + std::to_string(i));
      lines.push_back("link set a" + std::to_string(i) + " up");
    }
    for (int i = 0; i < 4; ++i) lines.push_back("link set a" + std::to_string(i) + " master br1");
    lines.push_back("addr add 10.0.0.1/24 dev a10");
    lines.push_back("addr add 10.0.1.1/24 dev a11");
    for (int i = 0; i < 60; ++i) lines.push_back("addr add 10.9." + std::to_string(i) + ".1/32 dev a10");
    for (int i = 0; i < 60; ++i)
      lines.push_back("neigh add 10.0.0." + std::to_string(i + 2) + " lladdr 02:00:00:00:00:01 dev a10");
    lines.push_back("neigh add 10.0.1.2 lladdr 02:00:00:00:00:02 dev a11");
    lines.push_back("neigh add 2001:db8::2 lladdr 02:00:00:00:00:03 dev a11");
    for (int i = 0; i < 100; ++i)
      lines.push_back("route add 10.5." + std::to_string(i) + ".0/24 via 10.0.0.2 table 100");
    lines.push_back("route add 10.6.0.0/24 via 10.0.1.2 table 200");
    for (int i = 20; i < 32; ++i) lines.push_back("link set a" + std::to_string(i) + " group 5");
    ns.ipBatch(lines);
  }

  static std::set<std::string> field(const json& j, const char* key) {
    std::set<std::string> out;
    for (const auto& e : j)
      if (e.contains(key)) out.insert(e[key].get<std::string>());
    return out;
  }

  /// Runs a `-j` show under the observer and expects success; returns its output. `filtered`
  /// receives how many objects the kernel returned to the smallest dump of `type` (the filtered
  /// one: the CLI may also dump all links to print device names).
  json show(const std::string& args, uint16_t type, uint64_t& filtered, wire::Counts& w) {
    auto r = cliWire("-j " + args, w);
    EXPECT_EQ(r.status, 0) << args << "\n" << r.err;
    auto dumps = wire::dumpReplies(w, type);
    EXPECT_FALSE(dumps.empty()) << args << ": no dump of type " << type << " on the wire";
    filtered = dumps.empty() ? 0 : *std::min_element(dumps.begin(), dumps.end());
    std::printf("    %s: %zu dump(s), %llu data messages in all, %llu for the filtered dump\n", args.c_str(),
                static_cast<std::size_t>(w.dumpRequests), static_cast<unsigned long long>(w.dataMessages),
                static_cast<unsigned long long>(filtered));
    return r.out.empty() ? json::array() : json::parse(r.out);
  }
};

TEST_F(WireCliTest, LinkKindAndMasterAreFilteredInTheKernel) {
  const std::size_t total = ns.ipJson("link show").size();
  ASSERT_EQ(total, 84u);
  wire::Counts w;
  uint64_t n = 0;
  json j = show("link show type bridge", RTM_GETLINK, n, w);
  EXPECT_EQ(field(j, "ifname"), (std::set<std::string>{"br0", "br1", "br2"}));
  EXPECT_EQ(field(j, "ifname"), field(ns.ipJson("link show type bridge"), "ifname"));
  EXPECT_EQ(n, 3u) << "the kernel sent only the bridges, not all " << total << " devices";

  j = show("link show master br1", RTM_GETLINK, n, w);
  EXPECT_EQ(field(j, "ifname"), (std::set<std::string>{"a0", "a1", "a2", "a3"}));
  EXPECT_EQ(field(j, "ifname"), field(ns.ipJson("link show master br1"), "ifname"));
  EXPECT_EQ(n, 4u) << "the kernel sent only br1's 4 ports";

  // The unfiltered dump, for scale: every device crosses the socket.
  j = show("link show", RTM_GETLINK, n, w);
  EXPECT_EQ(j.size(), total);
  EXPECT_EQ(n, total);
}

TEST_F(WireCliTest, AddressesNeighboursAndRoutesAreFilteredInTheKernel) {
  wire::Counts w;
  uint64_t n = 0;
  json j = show("addr show dev a11", RTM_GETADDR, n, w);
  ASSERT_EQ(j.size(), 1u);
  json oracle = ns.ipJson("addr show dev a11");
  ASSERT_EQ(oracle.size(), 1u);
  std::set<std::string> mine, theirs;
  for (const auto& a : j[0]["addr_info"]) mine.insert(a["local"].get<std::string>());
  for (const auto& a : oracle[0]["addr_info"]) theirs.insert(a["local"].get<std::string>());
  EXPECT_EQ(mine, theirs);
  EXPECT_TRUE(mine.count("10.0.1.1"));
  EXPECT_EQ(n, mine.size()) << "the kernel filtered by device: 61 addresses are on a10";

  j = show("neigh show -4 dev a11", RTM_GETNEIGH, n, w);
  EXPECT_EQ(field(j, "dst"), (std::set<std::string>{"10.0.1.2"}));
  EXPECT_EQ(field(j, "dst"), field(ns.ipJson("-4 neigh show dev a11"), "dst"));
  EXPECT_EQ(n, 1u) << "the kernel filtered by family and device: 61 other entries";

  j = show("route show table 200", RTM_GETROUTE, n, w);
  EXPECT_EQ(field(j, "dst"), (std::set<std::string>{"10.6.0.0/24"}));
  EXPECT_EQ(field(j, "dst"), field(ns.ipJson("route show table 200"), "dst"));
  EXPECT_EQ(n, 1u) << "the kernel filtered by table: 100 routes are in table 100";

  j = show("route show table 100", RTM_GETROUTE, n, w);
  EXPECT_EQ(j.size(), 100u);
  EXPECT_EQ(n, 100u);
}

TEST_F(WireCliTest, GroupSetAndDeleteAreOneRequestEach) {
  wire::Counts w;
  auto r = cliWire("link set group 5 mtu 1400", w);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(w.requests, 1u) << "one request for the whole group, no dump, no per-device requests";
  EXPECT_EQ(w.dumpRequests, 0u);
  std::map<std::string, int> mtu;
  for (const auto& l : ns.ipJson("link show")) mtu[l["ifname"].get<std::string>()] = l["mtu"].get<int>();
  for (int i = 0; i < 40; ++i) EXPECT_EQ(mtu["a" + std::to_string(i)], i >= 20 && i < 32 ? 1400 : 1500) << i;

  r = cliWire("link del group 5", w);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(w.requests, 1u) << "one request for the whole group";
  EXPECT_EQ(w.dumpRequests, 0u);
  std::set<std::string> have = field(ns.ipJson("link show"), "ifname");
  for (int i = 0; i < 40; ++i) EXPECT_EQ(have.count("a" + std::to_string(i)), i >= 20 && i < 32 ? 0u : 1u) << i;
}

}  // namespace
}  // namespace fastlink::test
