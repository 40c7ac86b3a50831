// `fastlink mrule ...` (ip's multicast routing rules, RTNL_FAMILY_IPMR/IP6MR) checked with
// `ip mrule` / `ip -j mrule` and with `ip rule`, which must not see them.
#include "each_line.hpp"

namespace fastlink::test {
namespace {

using nlohmann::json;

class MruleCliTest : public CliTest {};

TEST_F(MruleCliTest, AddShowFlushMatchIproute2) {
  ASSERT_EQ(run("ip -n " + ns.name() + " link add d0 type veth peer name d1").status, 0);
  std::string unicastBefore = ns.ip("rule show") + ns.ip("-6 rule show");
  ASSERT_TRUE(eachSucceeds([this](const char* line) { return cli(line); }, {
      "mrule add pref 100 iif d0 oif d1 fwmark 0x10/0xff lookup 200",
      "mrule add pref 50 blackhole",
      "mrule add pref 60 goto 100",
      // ipproto by number: the VM image has no /etc/protocols, where ip 6.1 cannot read "tcp".
      "mrule add pref 49 uidrange 1-2 ipproto 6 sport 80 dport 1000-2000 lookup 5",
      "mrule add pref 47 l3mdev",
      "mrule add pref 46 not iif lo protocol static lookup 100000",
      "mrule add from all iif lo lookup 7",
  }));
  ASSERT_EQ(cli("-6 mrule add pref 10 iif lo lookup 9").status, 0);
  // Every rule landed in the multicast families, none in the unicast ones.
  EXPECT_EQ(ns.ipJson("mrule show").size(), 8u);
  EXPECT_EQ(ns.ipJson("-6 mrule show").size(), 2u);
  EXPECT_EQ(ns.ip("rule show") + ns.ip("-6 rule show"), unicastBefore);

  // Text and JSON exactly like ip mrule, both families, with -d.
  EXPECT_EQ(cli("mrule show").out, ns.ip("mrule show"));
  EXPECT_EQ(cli("mrule").out, ns.ip("mrule"));
  EXPECT_EQ(cli("-d mrule show").out, ns.ip("-d mrule show"));
  EXPECT_EQ(cli("-6 mrule show").out, ns.ip("-6 mrule show"));
  auto j = cli("-j mrule show");
  ASSERT_EQ(j.status, 0) << j.err;
  EXPECT_EQ(json::parse(j.out), ns.ipJson("mrule show"));
  // fastlink rule shows none of them, and mrule none of the unicast ones.
  EXPECT_EQ(cli("rule show").out, ns.ip("rule show"));
  EXPECT_EQ(cli("mrule show").out.find("lookup local"), std::string::npos);

  // Selectors, as ip's: the same lines, and not none.
  for (const char* filter : {"pref 100", "lookup 200", "iif d0", "oif d1", "fwmark 0x10/0xff", "not", "l3mdev",
                             "uidrange 1-2", "ipproto 6", "sport 80", "from all"}) {
    std::string mine = cli(std::string("mrule show ") + filter).out;
    EXPECT_EQ(mine, ns.ip(std::string("mrule show ") + filter)) << filter;
    EXPECT_NE(mine, "") << filter;
  }

  // del by selector, then flush by selector: the same rules gone as ip's would be.
  ASSERT_EQ(cli("mrule del pref 50").status, 0);
  EXPECT_EQ(ns.ip("mrule show pref 50"), "");
  ASSERT_EQ(cli("mrule flush lookup 200").status, 0);
  EXPECT_EQ(ns.ip("mrule show lookup 200"), "");
  EXPECT_NE(ns.ip("mrule show pref 60"), "") << "flush lookup 200 took another rule";
  // A bare flush leaves only the rules without a priority (pref 0), as ip's flush_rule.
  ASSERT_EQ(cli("mrule flush").status, 0);
  for (const auto& r : ns.ipJson("mrule show")) EXPECT_EQ(r["priority"], 0) << r.dump();
  EXPECT_EQ(ns.ipJson("-6 mrule show").size(), 2u) << "an IPv4 flush touched the IPv6 rules";
  ASSERT_EQ(cli("-6 mrule flush").status, 0);
  EXPECT_EQ(ns.ipJson("-6 mrule show").size(), 0u);
  EXPECT_EQ(ns.ip("rule show") + ns.ip("-6 rule show"), unicastBefore);
}

TEST_F(MruleCliTest, BadInputExitsWithAClearErrorAndChangesNothing) {
  std::string before = ns.ip("mrule show") + ns.ip("-6 mrule show");
  const std::tuple<const char*, int, const char*> cases[] = {
      {"mrule add from 10.0.0.0/8 lookup 5", 1, "from takes only \"all\""},
      {"mrule add to 239.0.0.0/8 lookup 5", 1, "to takes only \"all\""},
      {"mrule show from 10.0.0.1", 1, "matches no addresses"},
      {"mrule add tos 0x10 lookup 5", 255, "a multicast rule matches no tos"},
      {"mrule add lookup no-such-table", 255, "unknown routing table \"no-such-table\""},
      {"mrule add pref 10 goto 5", 255, "must jump forward"},
      {"mrule add pref", 255, "pref"},
      {"mrule frob", 255, "unknown keyword \"frob\""},
      {"mrule help", 255, "fastlink [ -6 ] mrule"},
      {"-0 mrule show", 255, "only supported for IPv4/IPv6"},
      {"mrule del pref 12345", 2, "No such file or directory"},
  };
  for (const auto& [line, status, message] : cases) {
    auto r = cli(line);
    EXPECT_EQ(r.status, status) << line << ": " << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << line << ": " << r.err;
  }
  EXPECT_EQ(ns.ip("mrule show") + ns.ip("-6 mrule show"), before);
}

TEST_F(MruleCliTest, BatchFile) {
  std::string lines;
  for (int i = 0; i < 10; ++i)
    lines += "mrule add pref " + std::to_string(1000 + i) + " fwmark " + std::to_string(i + 1) + " lookup " +
             std::to_string(100 + i) + "\n";
  lines += "mrule add -6 pref 10 iif lo lookup 9\n";  // a batch line has no options: -6 after the verb, as rule
  lines += "mrule del pref 1000\n";
  auto r = batch(lines);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(ns.ipJson("mrule show").size(), 10u);  // 9 added + ipmr's default rule
  EXPECT_EQ(ns.ip("mrule show pref 1001"), "1001:\tfrom all fwmark 0x2 lookup 101\n");
  EXPECT_EQ(ns.ipJson("-6 mrule show").size(), 2u);
  auto shown = batch("mrule show\n");
  EXPECT_EQ(shown.status, 255);
  EXPECT_NE(shown.err.find("mrule show cannot be used in a batch"), std::string::npos) << shown.err;
}

// A flush line runs at its turn, as ip -batch runs it: the rule added before it goes, the one
// after it stays; a flush line with a bad selector stops the batch before anything is sent.
TEST_F(MruleCliTest, FlushInABatchRunsAtItsTurn) {
  auto r = batch("mrule add pref 2000 fwmark 99 lookup 300\nmrule flush lookup 300\n"
                 "mrule add pref 2001 fwmark 98 lookup 300\nrule add pref 3000 fwmark 7 lookup 301\n"
                 "rule flush lookup 301\n");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(ns.ip("mrule show lookup 300"), "2001:\tfrom all fwmark 0x62 lookup 300\n");
  EXPECT_EQ(ns.ip("rule show lookup 301"), "");
  std::string before = ns.ip("mrule show");
  auto bad = batch("mrule add pref 2002 fwmark 97 lookup 302\nmrule flush frob\n");
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.err.find("frob"), std::string::npos) << bad.err;
  EXPECT_EQ(ns.ip("mrule show"), before) << "a bad flush line let the batch send";
}

}  // namespace
}  // namespace fastlink::test
