// `fastlink link add NAME type KIND ...` and `fastlink -d [-j] link show` for the kinds added as
// one CLI file each (cli/rtnl/link_kinds/): ipvlan, geneve, gre, gretap, ipip, sit, xfrm; and a port of an
// 802.3ad bond. The oracle is `ip -d -j link show`: every info_data key fastlink prints must have
// ip's value, and the keys listed per test must be printed by both. The host lacks these modules:
// they run in the VM.
#include <chrono>
#include <regex>
#include <sstream>
#include <thread>

#include "cli_fixture.hpp"

namespace fastlink::test {
namespace {

using json = nlohmann::json;

class LinkKindCliTest : public CliTest {
 protected:
  void add(const std::string& args) {
    auto r = cli("link add " + args);
    ASSERT_EQ(r.status, 0) << args << ": " << r.err;
  }
  /// fastlink's -d -j info_data agrees with ip's on every key it prints; `keys` are printed by both.
  void sameAsIp(const std::string& name, const std::string& kind, std::initializer_list<const char*> keys) {
    auto r = cli("-d -j link show dev " + name);
    ASSERT_EQ(r.status, 0) << r.err;
    json mine = json::parse(r.out).at(0).at("linkinfo");
    json theirs = ipLink(name).at("linkinfo");
    EXPECT_EQ(mine["info_kind"], kind);
    EXPECT_EQ(theirs["info_kind"], kind);
    for (const auto& [key, value] : mine["info_data"].items()) EXPECT_EQ(theirs["info_data"][key], value) << name << " key " << key;
    for (const char* key : keys) {
      EXPECT_TRUE(mine["info_data"].contains(key)) << name << " fastlink lacks " << key;
      EXPECT_TRUE(theirs["info_data"].contains(key)) << name << " ip lacks " << key;
    }
  }
  /// The kind line of `fastlink -d link show dev NAME` (third line).
  std::string detailLine(const std::string& name) {
    auto r = cli("-d link show dev " + name);
    EXPECT_EQ(r.status, 0) << r.err;
    std::istringstream lines(r.out);
    std::string line;
    for (int i = 0; i < 3; ++i) std::getline(lines, line);
    return line;
  }
};

TEST_F(LinkKindCliTest, Ipvlan) {
  FASTLINK_REQUIRE_KIND("ipvlan");
  add("u0 type veth peer name u1");
  add("link u0 name ipv0 type ipvlan mode l3 private");
  // Mode and isolation belong to the lower device (every ipvlan on u0 shares them): ipv1 sits on u1.
  add("link u1 ipv1 type ipvlan mode l2");
  auto d = ipLink("ipv0")["linkinfo"]["info_data"];
  EXPECT_EQ(d["mode"], "l3");
  EXPECT_EQ(d["private"], true);
  sameAsIp("ipv0", "ipvlan", {"mode", "private"});
  sameAsIp("ipv1", "ipvlan", {"mode", "bridge"});
  EXPECT_EQ(detailLine("ipv0").rfind("    ipvlan mode l3 private", 0), 0u) << detailLine("ipv0");
}

TEST_F(LinkKindCliTest, Geneve) {
  FASTLINK_REQUIRE_KIND("geneve");
  add("gn0 type geneve id 42 remote 10.0.0.2 ttl 64 tos 10 dstport 7000 noudpcsum");
  auto d = ipLink("gn0")["linkinfo"]["info_data"];
  EXPECT_EQ(d["id"], 42);
  EXPECT_EQ(d["remote"], "10.0.0.2");
  EXPECT_EQ(d["ttl"], 64);
  EXPECT_EQ(d["tos"], "0x10");
  EXPECT_EQ(d["port"], 7000);
  EXPECT_EQ(d["udp_csum"], false);
  sameAsIp("gn0", "geneve", {"id", "remote", "ttl", "tos", "port", "udp_csum"});
  EXPECT_EQ(detailLine("gn0").rfind("    geneve id 42 remote 10.0.0.2 ttl 64 tos 0x10", 0), 0u) << detailLine("gn0");

  add("gn1 type geneve vni 43 remote 2001:db8::2 flowlabel 0x1234");
  sameAsIp("gn1", "geneve", {"id", "remote6", "label", "port"});
}

TEST_F(LinkKindCliTest, XfrmAddSetDel) {
  FASTLINK_REQUIRE_KIND("xfrm");
  add("u0 type veth peer name u1");
  add("xf0 type xfrm dev u0 if_id 0x2a");
  EXPECT_EQ(ipLink("xf0")["linkinfo"]["info_data"]["if_id"], "0x2a");
  EXPECT_EQ(ipLink("xf0")["link"], "u0");
  sameAsIp("xf0", "xfrm", {"if_id"});
  EXPECT_EQ(detailLine("xf0").rfind("    xfrm if_id 0x2a", 0), 0u) << detailLine("xf0");
  auto set = cli("link set dev xf0 type xfrm dev u0 if_id 43");  // the same dev: the kernel refuses a change
  ASSERT_EQ(set.status, 0) << set.err;
  sameAsIp("xf0", "xfrm", {"if_id"});
  EXPECT_EQ(ipLink("xf0")["linkinfo"]["info_data"]["if_id"], "0x2b");
  auto del = cli("link del xf0");
  ASSERT_EQ(del.status, 0) << del.err;
  EXPECT_NE(ns.exec("ip link show dev xf0").status, 0) << "xf0 is gone";
}

TEST_F(LinkKindCliTest, GreAndGretap) {
  FASTLINK_REQUIRE_KIND("gre");
  FASTLINK_REQUIRE_KIND("gretap");
  add("u0 type veth peer name u1");
  add("gre1 type gre remote 192.0.2.2 local 192.0.2.1 ttl 64 key 42 dev u0");
  add("gretap1 type gretap remote 192.0.2.3 ikey 1.2.3.4 nopmtudisc tos inherit");
  auto d = ipLink("gre1")["linkinfo"]["info_data"];
  EXPECT_EQ(d["remote"], "192.0.2.2");
  EXPECT_EQ(d["ikey"], "0.0.0.42");
  EXPECT_EQ(d["okey"], "0.0.0.42");
  EXPECT_EQ(d["link"], "u0");
  sameAsIp("gre1", "gre", {"remote", "local", "link", "ttl", "pmtudisc", "ikey", "okey"});
  sameAsIp("gretap1", "gretap", {"remote", "local", "ttl", "tos", "pmtudisc", "ikey"});
  EXPECT_EQ(ipLink("gretap1")["linkinfo"]["info_data"]["pmtudisc"], false);
  EXPECT_EQ(detailLine("gre1").rfind("    gre remote 192.0.2.2 local 192.0.2.1 dev u0 ttl 64", 0), 0u) << detailLine("gre1");
}

TEST_F(LinkKindCliTest, IpipAndSit) {
  FASTLINK_REQUIRE_KIND("ipip");
  FASTLINK_REQUIRE_KIND("sit");
  add("ipip1 type ipip remote 203.0.113.2 local 203.0.113.1 ttl 33");
  add("sit1 type sit remote 203.0.113.3 nopmtudisc");
  EXPECT_EQ(ipLink("ipip1")["linkinfo"]["info_data"]["ttl"], 33);
  EXPECT_EQ(ipLink("sit1")["linkinfo"]["info_data"]["pmtudisc"], false);
  sameAsIp("ipip1", "ipip", {"remote", "local", "ttl", "pmtudisc"});
  sameAsIp("sit1", "sit", {"remote", "local", "ttl", "pmtudisc"});
  // ip sends `mode any` when given no mode, and so does fastlink: the kernel reports it (proto 0).
  EXPECT_EQ(ipLink("sit1")["linkinfo"]["info_data"]["proto"], "any");
  // ip sends ttl 0 (sit's kernel default would be 64), and so does fastlink; sit reports its 6rd
  // prefix (2002::/16 by default): the kind line is ip's, word for word (ip leaves a blank at the
  // end of it).
  auto ipDetail = [&](const std::string& name) {
    std::istringstream lines(ns.ip("-d link show dev " + name));
    std::string line;
    for (int i = 0; i < 3; ++i) std::getline(lines, line);
    return line.substr(0, line.find_last_not_of(' ') + 1);
  };
  std::string sit = detailLine("sit1");
  EXPECT_EQ(sit, ipDetail("sit1"));
  EXPECT_EQ(sit.rfind("    sit any remote 203.0.113.3 local any ttl ", 0), 0u) << sit;
  EXPECT_EQ(detailLine("ipip1"), ipDetail("ipip1"));
  EXPECT_EQ(detailLine("ipip1").rfind("    ipip any remote 203.0.113.2 local 203.0.113.1 ttl 33 pmtudisc", 0), 0u) << detailLine("ipip1");
}

// A port of an 802.3ad bond whose LACP partner is another bond (over a veth pair), so the
// aggregator and both LACP states are reported: `-d` text, -o, -j and -j -p as ip prints them
// (ad_aggregator_id, ad_actor_oper_port_state and its _str names, in text and as JSON arrays).
// The state machine ticks (every 100 ms) until the two sides agree, so the outputs are compared
// when ip reads the same before and after fastlink; the differential suite covers the rest.
TEST_F(LinkKindCliTest, LacpBondPortAsIp) {
  FASTLINK_REQUIRE_KIND("bond");
  ns.ipBatch({"link add bond1 type bond mode 802.3ad lacp_rate fast", "link add bond2 type bond mode 802.3ad lacp_rate fast",
              "link add u0 type veth peer name u1", "link set u0 master bond1", "link set u1 master bond2",
              "link set bond1 up", "link set bond2 up"});
  // Without the blanks ip leaves at the end of its text lines (fastlink prints none).
  auto outputs = [&](auto show) {
    static const std::regex trailing("[ \\t]+\n");
    return std::regex_replace(show("-d link show dev u0") + show("-d -o link show dev u0"), trailing, "\n") +
           show("-d -j link show dev u0") + show("-d -j -p link show dev u0");
  };
  auto ipShow = [&](const std::string& args) { return ns.ip(args); };
  auto fastlinkShow = [&](const std::string& args) {
    auto r = cli(args);
    EXPECT_EQ(r.status, 0) << args << ": " << r.err;
    return r.out;
  };
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string before = outputs(ipShow);
    std::string mine = outputs(fastlinkShow);
    std::string after = outputs(ipShow);
    // Wait for the partner: in_sync on our side needs its LACPDUs.
    bool negotiated = before.find("ad_partner_oper_port_state") != std::string::npos &&
                      before.find("in_sync") != std::string::npos;
    if (before == after && negotiated) {
      EXPECT_EQ(mine, before);
      EXPECT_NE(mine.find("ad_aggregator_id "), std::string::npos) << mine;
      EXPECT_NE(mine.find(" ad_actor_oper_port_state_str <active,"), std::string::npos) << mine;
      EXPECT_NE(mine.find("\"ad_actor_oper_port_state_str\": [ \""), std::string::npos) << mine;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  FAIL() << "the LACP state of u0 did not settle in 10 s:\n" << outputs(ipShow);
}

// Parse errors need no kernel module: they run everywhere.
TEST_F(LinkKindCliTest, TunnelSetInABatchReadsTheTunnelAndABadLineChangesNothing) {
  // `link set NAME type gre ...` in -batch: each line reads the tunnel first (the kernel resets
  // what a change does not carry), also the second of two lines about one tunnel, which must
  // see the first's change; a batch with a bad line (here the last) sends nothing and names it.
  FASTLINK_REQUIRE_KIND("gre");
  ns.ip("link add t1 type gre remote 10.0.0.2 local 10.0.0.1 ttl 10 key 5");
  auto good = batch("link set t1 type gre remote 10.0.0.3\nlink set dev t1 type gre ttl 20\n");
  ASSERT_EQ(good.status, 0) << good.err;
  auto d = ipLink("t1")["linkinfo"]["info_data"];
  EXPECT_EQ(d["remote"], "10.0.0.3");  // the first line's
  EXPECT_EQ(d["ttl"], 20);             // the second's, which kept the first's remote
  EXPECT_EQ(d["local"], "10.0.0.1");   // and what ip set at creation
  EXPECT_EQ(d["ikey"], "0.0.0.5");
  std::string before = snapshot();
  auto bad = batch("link set t1 type gre remote 10.0.0.9\nlink set t1 mtu 1300\nlink set t1 type gre ttl bogus\n");
  EXPECT_EQ(bad.status, 255);
  EXPECT_NE(bad.err.find("(line 3: link set t1 type gre ttl bogus)"), std::string::npos) << bad.err;
  EXPECT_EQ(snapshot(), before) << "a batch with a bad line changed the tunnel";
}

TEST_F(LinkKindCliTest, BadOptionsAreUsageErrors) {
  const std::pair<const char*, const char*> cases[] = {
      {"link add gn0 type geneve remote 10.0.0.2", "\"id VNI\" is required"},
      {"link add gn0 type geneve id 16777216", "geneve id: 16777216 is out of range"},
      {"link add gn0 type geneve id 1 remote 239.1.1.1", "unicast"},
      {"link add g0 type gre ttl 10 nopmtudisc", "incompatible"},
      {"link add g0 type gretap tos zz", "tos"},
      {"link add i0 type ipvlan mode l4", "unknown ipvlan mode \"l4\""},
      {"link add i0 type ipvlan private vepa", "only one of"},
      {"link add t0 type sit frobnicate", "unknown keyword \"frobnicate\""},
      {"link add x0 type xfrm dev lo", "\"if_id IF_ID\" is required"},
      {"link add x0 type xfrm if_id 0", "if_id"},
      {"link add x0 type xfrm if_id 5 external", "neither if_id nor dev"},
  };
  for (const auto& [args, message] : cases) {
    auto r = cli(args);
    EXPECT_EQ(r.status, 255) << args << ": " << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
  }
  // An address of the other family ends ip's get_addr with status 1; fastlink's too.
  auto v6 = cli("link add g0 type gre remote 2001:db8::1");
  EXPECT_EQ(v6.status, 1) << v6.err;
  EXPECT_NE(v6.err.find("IPv4"), std::string::npos) << v6.err;
  auto help = cli("link help");
  for (const char* kind : {"ipvlan:", "geneve:", "gre, gretap:", "ipip, sit:", "xfrm:", "ip6tnl:", "ip6gre, ip6gretap:", "vti:", "vti6:"}) EXPECT_NE(help.err.find(kind), std::string::npos) << kind;
}

}  // namespace
}  // namespace fastlink::test
