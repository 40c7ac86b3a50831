// The objects ip only reads, against ip (iproute2 6.1) in one namespace: `netconf` (settings the
// test changes by sysctl first) and `maddress` (groups joined by addresses, links coming up and
// `ip maddr add`): the same text and JSON, dump and single-device forms.
#include <gtest/gtest.h>

#include <string>

#include "cli/cli_fixture.hpp"

namespace fastlink::test {
namespace {

class NetconfCliTest : public CliTest {
 protected:
  void SetUp() override {
    ns.ip("link add v0 type veth peer name v1");
    // Values other than the defaults in every field ip prints (mc_forwarding is read-only).
    auto r = ns.exec(
        "sysctl -qw net.ipv4.conf.v0.forwarding=1 net.ipv4.conf.v0.rp_filter=2 net.ipv4.conf.v1.rp_filter=1 "
        "net.ipv4.conf.v1.proxy_arp=1 net.ipv4.conf.v0.ignore_routes_with_linkdown=1 "
        "net.ipv6.conf.v1.forwarding=1 net.ipv6.conf.all.proxy_ndp=1");
    ASSERT_EQ(r.status, 0) << r.err;
  }
};

TEST_F(NetconfCliTest, ShowPrintsWhatIpPrints) {
  auto full = ns.exec("ip netconf show").out;
  // The settings reached the kernel's records (else the comparison below proves little).
  EXPECT_NE(full.find("inet v0 forwarding on rp_filter loose "), std::string::npos) << full;
  EXPECT_NE(full.find("inet v1 forwarding off rp_filter strict mc_forwarding off proxy_neigh on "), std::string::npos) << full;
  EXPECT_NE(full.find("ignore_routes_with_linkdown on"), std::string::npos) << full;
  // With a family and a device ip asks for the one record (and prints text even with -j: not
  // compared); otherwise it dumps and keeps the device's.
  for (const char* line : {"netconf show", "netconf", "-j netconf show", "-4 netconf show", "-6 -j netconf show",
                           "netconf show dev v1", "-j netconf show dev v0", "-4 netconf show dev v0",
                           "-6 netconf show dev v1", "netconf s dev v0", "-0 netconf show"}) {
    auto mine = cli(line);
    auto theirs = ns.exec(std::string("ip ") + line);
    ASSERT_EQ(theirs.status, 0) << line << ": " << theirs.err;
    EXPECT_EQ(mine.status, 0) << line << ": " << mine.err;
    EXPECT_EQ(mine.out, theirs.out) << line;
  }
}

TEST_F(NetconfCliTest, AMissingDeviceIsStatusOneAndNamed) {
  auto mine = cli("netconf show dev nosuch");
  EXPECT_EQ(mine.status, ns.exec("ip netconf show dev nosuch").status);
  EXPECT_NE(mine.err.find("Cannot find device \"nosuch\""), std::string::npos) << mine.err;
  EXPECT_EQ(cli("netconf show dev v0 bogus").status, 255);  // ip ignores the word; fastlink refuses it
}

class MaddressCliTest : public CliTest {};

TEST_F(MaddressCliTest, ShowPrintsWhatIpPrints) {
  ns.ip("link add v0 type veth peer name v1");
  ns.ip("addr add 10.7.0.1/24 dev v0");
  ns.ip("link set v0 up");
  ns.ip("link set v1 up");
  ns.ip("maddr add 01:00:5e:00:00:fb dev v0");  // a link-layer address added by hand: "static"
  ns.ip("maddr add 33:33:00:00:00:01 dev v1");  // also joined by IPv6 (ff02::1): "users 2 static"
  auto full = ns.exec("ip maddr show").out;
  // Every kind of line is there (else the comparison below proves little).
  for (const char* expected : {"\tinet  224.0.0.1\n", "\tinet6 ff02::1", "\tlink  01:00:5e:00:00:fb static\n", " users "})
    EXPECT_NE(full.find(expected), std::string::npos) << expected << " in\n" << full;
  for (const char* line : {"maddress show", "maddr", "-j maddr show", "-4 maddr show", "-6 -j maddr show", "-0 maddr show",
                           "maddr show dev v0", "maddr show v1", "-j maddr show dev v0", "maddr s dev lo",
                           "maddr show dev nosuch", "-j maddr show dev nosuch"}) {
    auto mine = cli(line);
    auto theirs = ns.exec(std::string("ip ") + line);
    ASSERT_EQ(theirs.status, 0) << line << ": " << theirs.err;
    EXPECT_EQ(mine.status, 0) << line << ": " << mine.err;
    EXPECT_EQ(mine.out, theirs.out) << line;
  }
}

}  // namespace
}  // namespace fastlink::test
