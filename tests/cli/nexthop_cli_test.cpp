// `fastlink nexthop ...`: changes checked with `ip -j nexthop`, JSON output parsed with nlohmann::json.
#include "cli_fixture.hpp"

namespace fastlink::test {
namespace {

using nlohmann::json;

using NexthopCliTest = RoutedCliTest;

TEST_F(NexthopCliTest, SingleGroupRouteAndDel) {
  ok("nexthop add id 1 via 10.0.0.2 dev v0");
  ok("nexthop add id 2 via 10.0.1.2 dev v1");
  ok("nexthop add id 3 blackhole");
  ok("nexthop add id 10 group 1/2,3");
  ok("route add 10.5.0.0/16 nhid 10");
  json ip = ns.ipJson("nexthop show");
  json mine = ok("-j nexthop show");
  ASSERT_EQ(mine.size(), ip.size());
  for (std::size_t i = 0; i < ip.size(); ++i) {
    for (const char* field : {"id", "gateway", "dev", "group"}) EXPECT_EQ(mine[i].value(field, json()), ip[i].value(field, json())) << field;
    EXPECT_EQ(mine[i].contains("blackhole"), ip[i].contains("blackhole"));
  }
  json one = ok("-j nexthop show id 10");
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0]["group"][1]["weight"], 3);
  EXPECT_EQ(ok("-j nexthop show dev v1").size(), 1u);
  EXPECT_EQ(ok("-j nexthop show groups").size(), 1u);
  EXPECT_EQ(ns.ipJson("route show 10.5.0.0/16")[0]["nhid"], 10);
  EXPECT_EQ(ok("-j route show")[2].value("nhid", 0), 10);
  ok("nexthop del id 10");
  EXPECT_EQ(ns.ipJson("nexthop show").size(), 3u);
  auto missing = cli("nexthop add id 11 group 1/99");
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("Invalid nexthop id"), std::string::npos) << missing.err;
  auto weight = cli("nexthop add id 11 group 1,300");
  EXPECT_EQ(weight.status, 255);
  EXPECT_NE(weight.err.find("out of range"), std::string::npos) << weight.err;
}

}  // namespace
}  // namespace fastlink::test
