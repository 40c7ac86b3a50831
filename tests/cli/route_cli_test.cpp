// `fastlink route ...`: changes checked with `ip -j route`, JSON output parsed with nlohmann::json.
#include <unistd.h>

#include "cli_fixture.hpp"

namespace fastlink::test {
namespace {

using nlohmann::json;

class RouteCliTest : public RoutedCliTest {
 protected:
  /// IPv4 routes and user-added IPv6 routes (kernel link-local ones change with DAD).
  std::string routesSnapshot() { return ns.ip("-4 -j route show table all") + ns.ip("-6 -j route show table all proto boot"); }
};

TEST_F(RouteCliTest, AddShowDelWithIproute2Fields) {
  ok("route add 10.1.0.0/16 via 10.0.0.2 dev v0 table 100 metric 10 proto static");
  auto ip = ns.ipJson("route show table 100");
  ASSERT_EQ(ip.size(), 1u);
  EXPECT_EQ(ip[0]["gateway"], "10.0.0.2");
  EXPECT_EQ(ip[0]["protocol"], "static");
  json mine = ok("-j route show table 100");
  ASSERT_EQ(mine.size(), 1u);
  for (const char* field : {"dst", "gateway", "dev", "metric", "protocol"}) EXPECT_EQ(mine[0][field], ip[0][field]) << field;
  ok("route del 10.1.0.0/16 table 100 metric 10");
  EXPECT_EQ(ns.ipJson("route show table 100").size(), 0u);
}

TEST_F(RouteCliTest, MultipathBlackholeMetricsAndShowFilters) {
  ok("route add 10.2.0.0/16 nexthop via 10.0.0.2 weight 1 nexthop via 10.0.1.2 dev v1 weight 2");
  ok("route add blackhole 10.3.0.0/16");
  ok("route add unreachable 10.6.0.0/16 proto bgp");
  ok("route add 10.4.0.0/16 via 10.0.0.2 mtu 1400 advmss 1360");
  json all = ok("-j route show");
  json ip = ns.ipJson("route show");
  ASSERT_EQ(all.size(), ip.size());
  for (std::size_t i = 0; i < ip.size(); ++i) {
    EXPECT_EQ(all[i]["dst"], ip[i]["dst"]);
    EXPECT_EQ(all[i].value("type", "unicast"), ip[i].value("type", "unicast"));
  }
  json mp = ok("-j route show proto boot type unicast dev v1");
  bool found = false;
  for (const auto& r : mp)
    if (r["dst"] == "10.2.0.0/16") {
      found = true;
      ASSERT_EQ(r["nexthops"].size(), 2u);
      EXPECT_EQ(r["nexthops"][1]["gateway"], "10.0.1.2");
      EXPECT_EQ(r["nexthops"][1]["dev"], "v1");
      EXPECT_EQ(r["nexthops"][1]["weight"], 2);
    }
  EXPECT_TRUE(found) << mp.dump();
  json bgp = ok("-j route show proto bgp");
  ASSERT_EQ(bgp.size(), 1u);
  EXPECT_EQ(bgp[0]["type"], "unreachable");
  json bh = ok("-j route show type blackhole");
  ASSERT_EQ(bh.size(), 1u);
  EXPECT_EQ(bh[0]["dst"], "10.3.0.0/16");
  for (const auto& r : all)
    if (r["dst"] == "10.4.0.0/16") {
      EXPECT_EQ(r["metrics"][0]["mtu"], 1400);
      EXPECT_EQ(r["metrics"][0]["advmss"], 1360);
    }
}

TEST_F(RouteCliTest, ReplaceAppendFlushAndGet) {
  ok("route add 10.6.0.0/16 via 10.0.0.2 table 100");
  ok("route replace 10.6.0.0/16 via 10.0.0.3 table 100");
  ok("route append 10.6.0.0/16 via 10.0.1.2 table 100");
  EXPECT_EQ(ns.ipJson("route show table 100").size(), 2u);
  json got = ok("-j route get 10.0.1.77");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0]["dev"], "v1");
  EXPECT_EQ(got[0]["prefsrc"], "10.0.1.1");
  EXPECT_FALSE(got[0].contains("table")) << "as ip: a lookup names its table only when it is not main";
  EXPECT_EQ(got[0]["uid"], getuid()) << "RTA_UID: the lookup was made for this process's user";
  EXPECT_EQ(got[0]["cache"], json::array()) << "an IPv4 lookup result without cache flags";
  ok("route flush table 100");
  EXPECT_EQ(ns.ipJson("route show table 100").size(), 0u);
}

TEST_F(RouteCliTest, BadInputIsAClearErrorAndChangesNothing) {
  std::string before = routesSnapshot();
  const std::pair<const char*, const char*> usage[] = {
      {"route add 10.0.0.1/33 dev v0", "length 33 is longer than 32"},
      {"route add 10.0.0.1/24 dev v0", "host bits are set"},
      {"route add 10.5.0.0/16 dev v0 table no-such-table", "unknown routing table \"no-such-table\""},
      {"route add 10.5.0.0/16 via 10.0.0.2 proto nosuchproto", "unknown route protocol"},
      {"route add 10.5.0.0/16 nexthop via 10.0.0.2 weight 0", "weight: 0 is out of range"},
      {"route add 10.5.0.0/16 frob 1", "unknown keyword \"frob\""},
  };
  for (const auto& [args, text] : usage) {
    auto r = cli(args);
    // As ip: a prefix that does not parse is status 1, other bad input 255.
    EXPECT_EQ(r.status, std::string(args).find("/33") != std::string::npos ? 1 : 255) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(text), std::string::npos) << args << "\n" << r.err;
  }
  auto gw = cli("route add 10.5.0.0/16 via 10.9.9.9 dev v0");
  EXPECT_EQ(gw.status, 2);
  EXPECT_NE(gw.err.find("Error: Nexthop has invalid gateway"), std::string::npos) << gw.err;
  auto dev = cli("route add 10.5.0.0/16 dev nosuchdev");
  EXPECT_EQ(dev.status, 1);  // ip: Cannot find device, status 1
  EXPECT_NE(dev.err.find("Cannot find device \"nosuchdev\""), std::string::npos) << dev.err;
  EXPECT_EQ(routesSnapshot(), before);
}

TEST_F(RouteCliTest, BatchOfRouteLinesWithFailures) {
  std::string content;
  for (int i = 0; i < 2000; ++i)
    content += "route add 20." + std::to_string(i / 256) + "." + std::to_string(i % 256) + ".0/24 via 10.0.0.2 table 300\n";
  auto r = batch(content, "-force");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(ns.ipJson("route show table 300").size(), 2000u);
  // Kernel errors in -force mode: every failed line is reported, the others applied.
  std::string mixed = "route add 30.0.0.0/24 via 10.0.0.2 table 301\n"
                      "route add 30.0.1.0/24 via 10.9.9.9 dev v0 table 301\n"
                      "route add 30.0.2.0/24 via 10.0.0.2 table 301\n";
  auto m = batch(mixed, "-force");
  EXPECT_EQ(m.status, 1);  // ip -batch: 1 when a line failed
  EXPECT_NE(m.err.find("Nexthop has invalid gateway"), std::string::npos) << m.err;
  EXPECT_NE(m.err.find("line 2"), std::string::npos) << m.err;
  EXPECT_EQ(ns.ipJson("route show table 301").size(), 2u);
}

// `route show` prints IPv4 from a table of the 256 octets (cli/kit/writer.hpp): every octet value
// in every position of a destination, and in a gateway's last two, printed byte for byte as ip does.
TEST_F(RouteCliTest, ShowPrintsEveryOctetValueAsIp) {
  auto n = [](int v) { return std::to_string(v); };
  std::string content;
  for (int i = 0; i < 256; ++i) {
    content += "route add blackhole " + n(i) + "." + n((i + 85) % 256) + "." + n((i + 170) % 256) + "." + n(255 - i) +
               "/32 table 302\n";
    // Gateways outside v0's subnet (onlink): none is local or its broadcast.
    content += "route add " + n(i * 37 % 200 + 1) + "." + n(i) + ".1.0/24 via 198.51." + n(i) + "." + n(255 - i) +
               " dev v0 onlink table 302\n";
  }
  auto r = batch(content);
  ASSERT_EQ(r.status, 0) << r.err;
  // ip ends a text line with a blank, fastlink does not (the differential suite's rule too).
  auto unpadded = [](std::string text) {
    for (std::size_t at; (at = text.find(" \n")) != std::string::npos;) text.erase(at, 1);
    return text;
  };
  auto text = cli("route show table 302");
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_EQ(text.out, unpadded(ns.ip("route show table 302")));
  auto json = cli("-j route show table 302");
  ASSERT_EQ(json.status, 0) << json.err;
  EXPECT_EQ(json.out, ns.ip("-j route show table 302"));
}

}  // namespace
}  // namespace fastlink::test
