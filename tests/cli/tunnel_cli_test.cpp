// `fastlink tunnel` against `ip tunnel` as the oracle: a tunnel made by either is shown the same
// by both (text and JSON), fastlink's changes are what ip reads back, and failures have ip's
// exit statuses. The host kernel has no gre, ipip, sit or ip6 tunnels: these run in the VM, whose
// test namespaces have no fallback devices (gre0, ip6gre0: fb_tunnels_only_for_init_net=2) that
// `ip tunnel add` needs, so ip's own tunnels here are made with `ip link add type ...`.
#include <gtest/gtest.h>

#include <string>

#include "cli/cli_fixture.hpp"

namespace fastlink::test {
namespace {

using json = nlohmann::json;

class TunnelCliTest : public CliTest {
 protected:
  /// `tunnel show` (with `words`) prints the same text and JSON through fastlink and ip.
  void sameShow(const std::string& words) {
    auto mine = cli(words);
    auto theirs = run("ip -n " + ns.name() + " " + words);
    EXPECT_EQ(mine.status, theirs.status) << words << "\n" << mine.err;
    EXPECT_EQ(mine.out, theirs.out) << words;
    // ip prints a named tunnel (`show NAME`) as text even with -j (it opens no JSON there);
    // fastlink prints JSON: the listings are compared.
    if (words.find("show ") != std::string::npos && words.find("show mode") == std::string::npos) return;
    auto mineJ = cli("-j " + words);
    auto theirsJ = run("ip -n " + ns.name() + " -j " + words);
    ASSERT_EQ(mineJ.status, 0) << mineJ.err;
    EXPECT_EQ(mineJ.out, theirsJ.out) << "-j " << words;  // byte for byte: ip's newline after each
  }
  std::string ipShow(const std::string& words) { return ns.ip(words); }
};

TEST_F(TunnelCliTest, GreAddedByFastlinkIsWhatIpAddsAndShowsTheSame) {
  FASTLINK_REQUIRE_KIND("gre");
  // iproute2's testsuite, tests/ip/tunnel/add_tunnel.t, first half.
  auto add = cli("tunnel add name fl-gre1 mode gre local 1.1.1.1 remote 2.2.2.2");
  ASSERT_EQ(add.status, 0) << add.err;
  ns.ip("link add ip-gre1 type gre local 1.1.1.3 remote 2.2.2.3");
  EXPECT_EQ(ipShow("tunnel show fl-gre1"), "fl-gre1: gre/ip remote 2.2.2.2 local 1.1.1.1 ttl inherit\n");
  sameShow("tunnel show");
  sameShow("tunnel show fl-gre1");
  sameShow("tunnel");
  sameShow("tunnel show remote 2.2.2.3");
  auto del = cli("tunnel del fl-gre1");
  ASSERT_EQ(del.status, 0) << del.err;
  EXPECT_FALSE(ipHas("fl-gre1"));
}

TEST_F(TunnelCliTest, GreKeysChecksumsSequencesTosAndPmtudisc) {
  FASTLINK_REQUIRE_KIND("gre");
  ASSERT_EQ(cli("tunnel add fl-gre2 mode gre remote 10.0.0.2 local 10.0.0.1 key 5 icsum oseq tos 0x10 ttl 64").status, 0);
  ASSERT_EQ(cli("tunnel add fl-gre3 mode gre remote 10.0.0.3 local 10.0.0.1 ikey 1.2.3.4 okey 7 seq nopmtudisc tos inherit").status, 0);
  ns.ip("link add ip-gre2 type gre remote 10.0.0.4 local 10.0.0.1 key 5 icsum oseq tos 0x10 ttl 64");
  sameShow("tunnel show");
  json j = ns.ipJson("tunnel show fl-gre2");
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["key"], 5);
  EXPECT_EQ(j[0]["ttl"], 64);
  EXPECT_EQ(j[0]["flags"], json({"rx_csum", "tx_seq"}));
}

TEST_F(TunnelCliTest, IpipAndSit) {
  FASTLINK_REQUIRE_KIND("ipip");
  FASTLINK_REQUIRE_KIND("sit");
  ASSERT_EQ(cli("tunnel add fl-ipip1 mode ipip remote 192.0.2.2 local 192.0.2.1 ttl 32").status, 0);
  ASSERT_EQ(cli("tunnel add fl-sit1 mode sit remote 192.0.2.3 local any").status, 0);
  ASSERT_EQ(cli("tunnel add sitx remote 192.0.2.4").status, 0);  // the mode from the name, as ip
  EXPECT_EQ(ipLink("sitx")["linkinfo"]["info_kind"], "sit");
  sameShow("tunnel show");
  // What fastlink made is what ip's `link add ... proto ipip` makes (the kernel refuses a second
  // tunnel with the same endpoints: fastlink's is deleted first).
  json mine = ipLink("fl-ipip1")["linkinfo"];
  ASSERT_EQ(cli("tunnel del fl-ipip1").status, 0);
  ns.ip("link add fl-ipip1 type ipip mode ipip remote 192.0.2.2 local 192.0.2.1 ttl 32");
  EXPECT_EQ(mine, ipLink("fl-ipip1")["linkinfo"]);
  // Keys are GRE's.
  auto keyed = cli("tunnel add fl-ipip2 mode ipip remote 192.0.2.5 key 3");
  EXPECT_EQ(keyed.status, run("ip -n " + ns.name() + " tunnel add ip-ipip2 mode ipip remote 192.0.2.5 key 3").status);
  EXPECT_FALSE(ipHas("fl-ipip2"));
}

TEST_F(TunnelCliTest, ChangeKeepsWhatItDoesNotSay) {
  FASTLINK_REQUIRE_KIND("gre");
  ns.ip("link add fl-gre4 type gre remote 10.1.0.2 local 10.1.0.1 key 9");
  auto change = cli("tunnel change fl-gre4 ttl 10");
  ASSERT_EQ(change.status, 0) << change.err;
  EXPECT_EQ(ipShow("tunnel show fl-gre4"), "fl-gre4: gre/ip remote 10.1.0.2 local 10.1.0.1 ttl 10 key 9\n");
  auto missing = cli("tunnel change fl-none ttl 10");
  EXPECT_EQ(missing.status, run("ip -n " + ns.name() + " tunnel change fl-none ttl 10").status);
}

TEST_F(TunnelCliTest, Ip6greAndIp6tnl) {
  FASTLINK_REQUIRE_KIND("ip6gre");
  FASTLINK_REQUIRE_KIND("ip6tnl");
  // add_tunnel.t's second half.
  auto add = cli("tunnel add name fl-g6 mode ip6gre local dead:beef::1 remote dead:beef::2");
  ASSERT_EQ(add.status, 0) << add.err;
  ASSERT_EQ(cli("tunnel add fl-t6 mode ip6ip6 remote 2001:db8::2 local 2001:db8::1 encaplimit none tclass 0x10 "
                "flowlabel 0x12345 hoplimit 10").status, 0);
  ASSERT_EQ(cli("-6 tunnel add fl-t4in6 mode ipip6 remote 2001:db8::3 local 2001:db8::1 dscp inherit").status, 0);
  ns.ip("link add ip-t6 type ip6tnl mode ip6ip6 remote 2001:db8::4 local 2001:db8::1 tclass inherit flowlabel inherit");
  sameShow("-6 tunnel show");
  sameShow("-6 tunnel show fl-t6");
  sameShow("tunnel show mode ip6gre");
  auto del = cli("-6 tunnel del fl-g6");
  ASSERT_EQ(del.status, 0) << del.err;
  EXPECT_FALSE(ipHas("fl-g6"));
}

TEST_F(TunnelCliTest, DeleteNeverRemovesWhatIsNoTunnelAndFailuresAreIps) {
  ns.ip("link add fl-veth0 type veth peer name fl-veth1");
  auto del = cli("tunnel del fl-veth0");
  EXPECT_EQ(del.status, 1) << del.err;
  EXPECT_TRUE(ipHas("fl-veth0"));
  std::string n = "ip -n " + ns.name() + " ";
  for (const std::string words : {"tunnel del fl-nothing", "tunnel add fl-x mode bogus", "tunnel add fl-x mode gre mode ipip",
                                   "tunnel bogus", "tunnel add fl-x mode gre ttl 10 nopmtudisc",
                                   "tunnel add fl-x mode gre remote 239.1.1.1", "tunnel add fl-x mode gre dev fl-nothing"}) {
    auto mine = cli(words), theirs = run(n + words);
    EXPECT_EQ(mine.status, theirs.status) << words << "\nfastlink: " << mine.err << "ip: " << theirs.err;
    EXPECT_FALSE(ipHas("fl-x")) << words;
  }
  EXPECT_EQ(cli("tunnel prl prl-default 1.1.1.1 dev fl-veth0").status, 255);
  EXPECT_EQ(cli("tunnel add fl-x mode vti remote 1.1.1.1").status, 255);
}

}  // namespace
}  // namespace fastlink::test
