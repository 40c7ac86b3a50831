// `fastlink tunnel` against `ip tunnel` as the oracle: a tunnel made by either is shown the same
// by both (text and JSON), fastlink's changes are what ip reads back, and failures have ip's
// exit statuses. The host kernel has no gre, ipip, sit or ip6 tunnels: these run in the VM, whose
// test namespaces have no fallback devices (gre0, ip6gre0: fb_tunnels_only_for_init_net=2) that
// `ip tunnel add` needs, so ip's own tunnels here are made with `ip link add type ...`.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_fixture.hpp"
#include "fastlink/netlink.hpp"
#include "fastlink/tunnel_prl.hpp"

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
  // The PRL ioctl on a device that is not a sit: the driver's refusal, as ip reports it.
  auto prl = cli("tunnel prl prl-default 1.1.1.1 dev fl-veth0");
  auto ipPrl = run(n + "tunnel prl prl-default 1.1.1.1 dev fl-veth0");
  EXPECT_EQ(prl.status, ipPrl.status);
  EXPECT_EQ(prl.err, ipPrl.err);
  EXPECT_EQ(prl.err, "fl-veth0: ioctl 89f5 failed: Operation not supported\n");
}

// ---- `link add NAME type KIND ...` of the tunnel kinds, against ip -----------------------------

class TunnelKindCliTest : public TunnelCliTest {
 protected:
  /// `link add NAME type LINE` by fastlink, then (deleted) by ip: the kernel holds the same
  /// options (ip -d -j's linkinfo), and fastlink's `-d [-j] link show` prints the kind's words
  /// (the third line) and `linkinfo` as ip prints them. The lines before are link_show.cpp's,
  /// where tunnels still differ from ip (docs/CLI.md, "ip compatibility").
  void sameAsIp(const std::string& line) {
    SCOPED_TRACE(line);
    const std::string name = "fl-kind";
    auto add = cli("link add " + name + " type " + line);
    ASSERT_EQ(add.status, 0) << add.err;
    json mine = ipLink(name)["linkinfo"];
    ASSERT_EQ(cli("link del " + name).status, 0);
    ns.ip("link add " + name + " type " + line);
    EXPECT_EQ(mine, ipLink(name)["linkinfo"]);
    auto kindLine = [](const std::string& text) {
      std::istringstream lines(text);
      std::string line;
      for (int i = 0; i < 3; ++i) std::getline(lines, line);
      return line.substr(0, line.find_last_not_of(' ') + 1);  // ip leaves a blank at the end
    };
    auto shown = cli("-d link show dev " + name);
    ASSERT_EQ(shown.status, 0) << shown.err;
    EXPECT_EQ(kindLine(shown.out), kindLine(ns.ip("-d link show dev " + name)));
    auto shownJson = cli("-d -j link show dev " + name);
    ASSERT_EQ(shownJson.status, 0) << shownJson.err;
    // Compared as text: the keys' order is ip's too.
    EXPECT_EQ(json::parse(shownJson.out).at(0).at("linkinfo").dump(),
              json::parse(ns.ip("-d -j link show dev " + name)).at(0).at("linkinfo").dump());
    ns.ip("link del " + name);
  }
};

TEST_F(TunnelKindCliTest, Ip6tnlOptionsAsIp) {
  FASTLINK_REQUIRE_KIND("ip6tnl");
  sameAsIp("ip6tnl mode ip6ip6 remote 2001:db8::2 local 2001:db8::1 hoplimit 10 encaplimit none tclass 0x10 "
           "flowlabel 0x12345 dscp inherit allow-localremote fwmark 0x20");
  sameAsIp("ip6tnl remote 2001:db8::3 ttl inherit encaplimit 7 tclass inherit flowlabel inherit fwmark inherit");
  sameAsIp("ip6tnl mode ipip6 local 2001:db8::1 encap fou encap-dport 5555 encap-sport 1000 encap-csum "
           "noencap-udp6-csum encap-remcsum");
  sameAsIp("ip6tnl external");
}

TEST_F(TunnelKindCliTest, Ip6greAndIp6gretapOptionsAsIp) {
  FASTLINK_REQUIRE_KIND("ip6gre");
  sameAsIp("ip6gre remote 2001:db8::2 local 2001:db8::1 key 5 csum seq hoplimit 20 tclass 0x20 dscp inherit");
  sameAsIp("ip6gretap remote 2001:db8::4 ikey 1.2.3.4 okey 9 iseq ocsum encaplimit 7 flowlabel 0xabc fwmark 3 "
           "allow-localremote");
  sameAsIp("ip6gre local 2001:db8::1 key 3 nokey noseq encap gue encap-dport 6000");
  sameAsIp("ip6gretap external");
}

TEST_F(TunnelKindCliTest, VtiAndVti6OptionsAsIp) {
  FASTLINK_REQUIRE_KIND("vti");
  FASTLINK_REQUIRE_KIND("vti6");
  sameAsIp("vti remote 192.0.2.2 local 192.0.2.1 ikey 5 okey 0.0.0.6 fwmark 7");
  sameAsIp("vti6 remote 2001:db8::2 local 2001:db8::1 key 9");
  // Each takes its own family only; nothing is made.
  // An address of the other family ends ip's get_addr with status 1, and fastlink's parse.
  EXPECT_EQ(cli("link add fl-kind type vti remote 2001:db8::2").status, 1);
  EXPECT_EQ(cli("link add fl-kind type vti6 local 192.0.2.1").status, 1);
  EXPECT_FALSE(ipHas("fl-kind"));
}

TEST_F(TunnelKindCliTest, IpipSitGreModesIsatap6rdFwmarkEncap) {
  FASTLINK_REQUIRE_KIND("sit");
  FASTLINK_REQUIRE_KIND("gre");
  sameAsIp("sit mode ip6ip remote 192.0.2.2 local 192.0.2.1 6rd-prefix 2001:db8::/32 6rd-relay_prefix 192.0.2.0/24 ttl 5");
  sameAsIp("sit isatap local 192.0.2.7");
  // (ip 6.1 crashes on `link add ... type sit ... 6rd-reset`: not compared.)
  sameAsIp("ipip mode any remote 192.0.2.9 fwmark 3 encap gue encap-dport 6000 encap-sport auto");
  sameAsIp("ipip remote 192.0.2.9");
  sameAsIp("gre remote 192.0.2.10 fwmark 0x9 encap fou encap-dport 7000 encap-csum");
  sameAsIp("gretap external");
}

// `ip tunnel add mode vti|isatap`, `ip -6 tunnel add mode vti6` and `ip tunnel 6rd`: fastlink
// makes over rtnetlink what ip makes by ioctl, and `tunnel show` prints them as ip does.
TEST_F(TunnelKindCliTest, TunnelModesVtiVti6IsatapAnd6rd) {
  FASTLINK_REQUIRE_KIND("vti");
  FASTLINK_REQUIRE_KIND("vti6");
  FASTLINK_REQUIRE_KIND("sit");
  ASSERT_EQ(cli("tunnel add fl-vti mode vti remote 192.0.2.2 local 192.0.2.1 ikey 5 okey 6").status, 0);
  json vti = ipLink("fl-vti")["linkinfo"];
  EXPECT_EQ(vti["info_kind"], "vti");
  EXPECT_EQ(vti["info_data"]["ikey"], "0.0.0.5");
  ASSERT_EQ(cli("tunnel add isatap0 local 192.0.2.1").status, 0);  // the mode from the name, as ip
  EXPECT_EQ(ipLink("isatap0")["linkinfo"]["info_data"]["isatap"], true);
  ASSERT_EQ(cli("tunnel add fl-isatap mode isatap local 192.0.2.3").status, 0);
  EXPECT_EQ(ipLink("fl-isatap")["linkinfo"]["info_data"]["isatap"], true);
  sameShow("tunnel show");
  ASSERT_EQ(cli("-6 tunnel add fl-vti6 mode vti6 remote 2001:db8::2 local 2001:db8::1").status, 0);
  EXPECT_EQ(ipLink("fl-vti6")["linkinfo"]["info_kind"], "vti6");
  sameShow("-6 tunnel show");

  // 6rd: ip's ioctl on one sit, fastlink's rtnetlink on another: the same prefixes, and the rest
  // of the tunnel kept (ttl, endpoints).
  ns.ip("link add fl-6rd-ip type sit local 192.0.2.10 ttl 9");
  ns.ip("link add fl-6rd-fl type sit local 192.0.2.11 ttl 9");
  for (const std::string words : {"6rd-prefix 2001:db8::/32 6rd-relay_prefix 192.0.2.0/24", "6rd-prefix 2001:db9::/32",
                                   "6rd-reset"}) {
    SCOPED_TRACE(words);
    ns.ip("tunnel 6rd dev fl-6rd-ip " + words);
    auto mine = cli("tunnel 6rd dev fl-6rd-fl " + words);
    ASSERT_EQ(mine.status, 0) << mine.err;
    json theirs = ipLink("fl-6rd-ip")["linkinfo"]["info_data"], ours = ipLink("fl-6rd-fl")["linkinfo"]["info_data"];
    theirs.erase("local"), ours.erase("local");
    EXPECT_EQ(ours, theirs);
    EXPECT_EQ(ours["ttl"], 9);
  }
  for (const std::string words : {"tunnel 6rd 6rd-reset", "tunnel 6rd dev fl-6rd-fl bogus",
                                   "tunnel 6rd dev fl-vti 6rd-prefix 2001:db8::/32", "tunnel 6rd dev fl-none 6rd-reset",
                                   "tunnel 6rd dev fl-6rd-fl 6rd-prefix 192.0.2.0/24",
                                   // 48 + 32 relay bits > 64: the kernel refuses it (EINVAL), status 1
                                   "tunnel 6rd dev fl-6rd-fl 6rd-prefix 2001:db8:1::/48"}) {
    auto mine = cli(words), theirs = run("ip -n " + ns.name() + " " + words);
    EXPECT_EQ(mine.status, theirs.status) << words << "\nfastlink: " << mine.err << "ip: " << theirs.err;
  }
}

// The oracle for `tunnel prl`: `ip tunnel show NAME`, which reads an ISATAP tunnel's potential
// router list (SIOCGETPRL) and prints each entry as ` pdr ADDR` (default) or ` pr ADDR`: here
// "ADDR default" or "ADDR", in the kernel's order.
std::vector<std::string> routersShownByIp(const TestNetns& ns, const std::string& dev) {
  std::istringstream words(ns.ip("tunnel show " + dev));
  std::vector<std::string> out;
  for (std::string w, address; words >> w;)
    if ((w == "pdr" || w == "pr") && words >> address) out.push_back(address + (w == "pdr" ? " default" : ""));
  return out;
}

// `tunnel prl`, line by line against `ip tunnel prl`: ip on one ISATAP tunnel, fastlink on
// another made the same; each line's exit status and message are ip's (a usage error in
// fastlink's `Error: ` shape), and `ip tunnel show` prints the same list for both after each
// line. fastlink's `tunnel show` prints it as ip does; the library's PrlApi::list() is what ip shows.
TEST_F(TunnelKindCliTest, PotentialRouterListIsIps) {
  FASTLINK_REQUIRE_KIND("sit");
  // IPv6 in IPv4 (`mode ip6ip`): ip's show reads the list only for such a tunnel, and
  // `link add type sit` alone makes one of protocol `any`.
  ns.ip("link add ip-isa type sit mode ip6ip isatap local 192.0.2.1");
  ns.ip("link add fl-isa type sit mode ip6ip isatap local 192.0.2.2");
  ns.ip("link add fl-veth type veth peer name fl-peer");
  ASSERT_EQ(routersShownByIp(ns, "fl-isa"), std::vector<std::string>{});
  struct Line {
    std::string words;    // after `tunnel prl`; DEV is the tunnel (ip-isa for ip, fl-isa for fastlink)
    bool sameErr = true;  // false: ip's and fastlink's words for a missing value differ; status only
  };
  const Line lines[] = {
      {"prl-default 192.0.2.10 dev DEV"},
      {"prl-default 192.0.2.10 dev DEV"},  // listed already: EEXIST
      {"prl-nodefault 192.0.2.10 dev DEV"},
      {"prl-nodefault 192.0.2.11 dev DEV"},
      {"dev DEV prl-nodefault 192.0.2.12"},
      {"prl-delete 192.0.2.99 dev DEV"},  // not listed: ENXIO
      {"prl-delete 192.0.2.10 dev DEV"},
      {"prl-default 0.0.0.0 dev DEV"},  // EINVAL
      {"prl-default any dev DEV"},
      {"dev DEV"},  // no entry: ip's ioctl 0
      {"prl-default bogus dev DEV"},
      {"prl-default 2001:db8::1 dev DEV"},
      {"prl-default 192.0.2.13/24 dev DEV"},
      {"bogus 1 dev DEV"},
      {"prl-default 192.0.2.14 prl-delete 192.0.2.11 dev DEV"},
      {"prl-default 192.0.2.14"},
      {"prl-default 192.0.2.14 dev nosuch"},
      {"prl-default 192.0.2.14 dev fl-veth"},  // not a sit: EOPNOTSUPP
      {"prl-default", false},
      {"prl-default 192.0.2.14 dev", false},
      {"prl-delete all dev DEV"},  // 0.0.0.0: every router
      {"prl-delete any dev DEV"},  // none left: ENXIO
      {"prl-nodefault 192.0.2.15 dev DEV"},
  };
  auto on = [](std::string words, const std::string& dev) {
    for (std::size_t at; (at = words.find("DEV")) != std::string::npos;) words.replace(at, 3, dev);
    return words;
  };
  auto plain = [](std::string err) { return err.starts_with("Error: ") ? err.substr(7) : err; };
  Netlink nl(NetlinkOptions{.netns = Netns::named(ns.name())});
  for (const auto& line : lines) {
    SCOPED_TRACE(line.words);
    auto theirs = run("ip -n " + ns.name() + " tunnel prl " + on(line.words, "ip-isa"));
    auto mine = cli("tunnel prl " + on(line.words, "fl-isa"));
    EXPECT_EQ(mine.status, theirs.status) << "fastlink: " << mine.err << "ip: " << theirs.err;
    EXPECT_EQ(mine.out, theirs.out);
    // ip names its own tunnel in the message: fastlink's is fl-isa.
    std::string ipErr = plain(theirs.err);
    for (std::size_t at; (at = ipErr.find("ip-isa")) != std::string::npos;) ipErr.replace(at, 6, "fl-isa");
    if (line.sameErr) {
      EXPECT_EQ(plain(mine.err), ipErr);
    }
    std::vector<std::string> ours = routersShownByIp(ns, "fl-isa");
    EXPECT_EQ(ours, routersShownByIp(ns, "ip-isa"));
    auto shown = cli("tunnel show fl-isa");
    EXPECT_EQ(shown.out, ns.ip("tunnel show fl-isa"));
    std::vector<std::string> listed;
    for (const PotentialRouter& r : nl.potentialRouters().list("fl-isa"))
      listed.push_back(r.address.toString() + (r.isDefault ? " default" : ""));
    EXPECT_EQ(listed, ours);
  }
  EXPECT_EQ(routersShownByIp(ns, "fl-isa"), std::vector<std::string>{"192.0.2.15"});
  EXPECT_EQ(routersShownByIp(ns, "ip-isa"), std::vector<std::string>{"192.0.2.15"});
  // The library's errors: errno and the request in ip's words; SIOCCHGPRL, which ip has no word for.
  try {
    nl.potentialRouters().add("fl-isa", IpAddress::parse("192.0.2.15"), true);
    ADD_FAILURE() << "a listed router was added again";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::file_exists);
    EXPECT_NE(std::string(e.what()).find("ip tunnel prl prl-default 192.0.2.15 dev fl-isa"), std::string::npos) << e.what();
  }
  nl.potentialRouters().change("fl-isa", IpAddress::parse("192.0.2.15"), true);
  EXPECT_EQ(routersShownByIp(ns, "fl-isa"), std::vector<std::string>{"192.0.2.15 default"});
  EXPECT_THROW(nl.potentialRouters().change("fl-isa", IpAddress::parse("192.0.2.16"), true), Error);
  EXPECT_THROW(nl.potentialRouters().add("fl-isa", IpAddress::parse("2001:db8::1"), true), Error);
  EXPECT_EQ(routersShownByIp(ns, "fl-isa"), std::vector<std::string>{"192.0.2.15 default"});
}

}  // namespace
}  // namespace fastlink::test
