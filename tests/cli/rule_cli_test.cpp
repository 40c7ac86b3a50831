// `fastlink rule ...` on the command line, checked with `ip rule` / `ip -j rule`.
#include <set>

#include "each_line.hpp"

namespace fastlink::test {
namespace {

using nlohmann::json;

class RuleCliTest : public CliTest {};

TEST_F(RuleCliTest, AddShowDelMatchIproute2) {
  ASSERT_TRUE(eachSucceeds([this](const char* line) { return cli(line); }, {
      "rule add pref 100 from 10.0.0.0/8 to 192.168.0.0/16 table 100",
      "rule add pref 101 fwmark 0x10/0xff iif lo lookup main",
      "rule add pref 102 oif v0 blackhole",
      "rule add pref 103 prohibit",
      "rule add pref 104 unreachable",
      "rule add pref 105 goto 200",
      "rule add pref 106 table 5 suppress_prefixlength 0",
      "rule add pref 107 uidrange 100-200 ipproto tcp sport 1000-2000 dport 80 table 7",
      "rule add pref 108 l3mdev",
      "rule add pref 109 not from 10.1.0.0/16 lookup 9",
      "rule add pref 110 tos 0x10 lookup 100000",
  }));
  // Text exactly like ip rule.
  EXPECT_EQ(cli("rule show").out, ns.ip("rule show"));
  // JSON with ip's field names and values.
  auto r = cli("-j rule show");
  ASSERT_EQ(r.status, 0) << r.err;
  json mine = json::parse(r.out), theirs = ns.ipJson("rule show");
  ASSERT_EQ(mine.size(), theirs.size());
  for (std::size_t i = 0; i < mine.size(); ++i) {
    json t = theirs[i];
    t.erase("oif_detached");  // fastlink reports it too, but only when the flag is set
    t.erase("unresolved");
    json m = mine[i];
    m.erase("oif_detached");
    m.erase("unresolved");
    EXPECT_EQ(m, t) << i;
  }
  // Filters.
  // Filters: the same rules as ip's filter selects (two-sided), and not nothing.
  auto prefs = [](const json& j) {
    std::set<uint32_t> out;
    for (const auto& x : j) out.insert(x["priority"].get<uint32_t>());
    return out;
  };
  r = cli("-j rule show pref 107");
  EXPECT_EQ(prefs(json::parse(r.out)), (std::set<uint32_t>{107}));
  EXPECT_EQ(prefs(json::parse(r.out)), prefs(ns.ipJson("rule show pref 107")));
  r = cli("-j rule show lookup main");
  json main = json::parse(r.out);
  EXPECT_EQ(prefs(main), prefs(ns.ipJson("rule show lookup main")));
  EXPECT_GE(main.size(), 1u);
  for (const auto& x : main) EXPECT_EQ(x["table"], "main");

  ASSERT_EQ(cli("rule del pref 100").status, 0);
  EXPECT_EQ(ns.ip("rule show pref 100"), "");
  auto again = cli("rule del pref 100");
  EXPECT_EQ(again.status, 2);
  EXPECT_NE(again.err.find("No such file or directory"), std::string::npos) << again.err;
}

TEST_F(RuleCliTest, Ipv6) {
  ASSERT_EQ(cli("rule add -6 pref 100 from 2001:db8::/32 lookup 100").status, 0);
  ASSERT_EQ(cli("rule add -6 pref 101 fwmark 7 lookup 101").status, 0);
  EXPECT_EQ(cli("rule show -6").out, ns.ip("-6 rule show"));
  EXPECT_EQ(ns.ipJson("rule show pref 101").size(), 0u) << "the IPv6 rule stays out of IPv4";
}

TEST_F(RuleCliTest, BadInputExitsWithAClearErrorAndChangesNothing) {
  std::string before = ns.ip("rule show") + ns.ip("-6 rule show");
  const std::pair<const char*, const char*> usage[] = {
      {"rule add pref 10 lookup no-such-table", "unknown routing table \"no-such-table\""},
      {"rule add pref 10 from 10.0.0.0/8 to 2001:db8::/32", "prefix"},
      {"rule add pref 10 goto 5", "must jump forward"},
      {"rule add pref 10 blackhole lookup 5", "only looked up by a lookup rule"},
      {"rule add pref 10 uidrange 5-1", "uidrange: range 5-1 is empty"},
      {"rule add pref 10 iif a/b", "contains '/'"},
      {"rule add pref x", "pref: \"x\" is not a number"},
      {"rule add pref 10 frob", "unknown keyword \"frob\""},
  };
  for (const auto& [line, message] : usage) {
    auto r = cli(line);
    EXPECT_EQ(r.status, 255) << line;
    EXPECT_NE(r.err.find(message), std::string::npos) << line << ": " << r.err;
  }
  // A prefix that does not parse is a bad value, as ip's (1).
  auto prefix = cli("rule add pref 10 from 10.0.0.0/33 lookup 5");
  EXPECT_EQ(prefix.status, 1);
  EXPECT_NE(prefix.err.find("from: invalid prefix \"10.0.0.0/33\""), std::string::npos) << prefix.err;
  EXPECT_EQ(ns.ip("rule show") + ns.ip("-6 rule show"), before);
}

TEST_F(RuleCliTest, BatchFile) {
  std::string lines;
  for (int i = 0; i < 20; ++i) lines += "rule add pref " + std::to_string(1000 + i) + " fwmark " + std::to_string(i + 1) + " lookup " + std::to_string(100 + i) + "\n";
  auto r = batch(lines);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(ns.ipJson("rule show").size(), 23u);
}

}  // namespace
}  // namespace fastlink::test
