// The mptcp object against ip (iproute2 6.1) in one namespace: endpoints and limits set by ip
// print as ip prints them (text and JSON, dump and by id, abbreviated), and endpoints and limits
// set by fastlink read back by ip.
#include <gtest/gtest.h>

#include <string>

#include "cli/cli_fixture.hpp"

namespace fastlink::test {
namespace {

class MptcpCliTest : public CliTest {
 protected:
  void SetUp() override {
    if (ns.exec("ip mptcp limits show").status != 0) GTEST_SKIP() << "this kernel has no mptcp_pm family";
    ns.ip("link add v0 type veth peer name v1");
    ns.ip("addr add 10.0.0.4/24 dev v0");  // a signal endpoint with a port listens on its address
    ns.ip("link set v0 up");
  }
};

TEST_F(MptcpCliTest, ShowPrintsWhatIpPrints) {
  for (const char* endpoint : {"10.0.0.1 dev v0 subflow", "10.0.0.2 id 7 signal backup", "10.0.0.3 subflow fullmesh",
                               "10.0.0.4 port 1234 signal", "2001:db8::2 id 20 subflow backup fullmesh dev v1"})
    ns.ip(std::string("mptcp endpoint add ") + endpoint);
  ns.ip("mptcp limits set subflows 3 add_addr_accepted 4");
  auto all = ns.exec("ip mptcp endpoint show").out;
  // Every field ip prints is there (else the comparison below proves little).
  for (const char* expected : {"10.0.0.1 id 1 subflow dev v0 \n", "port 1234 ", " backup ", " fullmesh ", "2001:db8::2 "})
    EXPECT_NE(all.find(expected), std::string::npos) << expected << " in\n" << all;
  for (const char* line : {"mptcp endpoint show", "mptcp endpoint", "mptcp e s", "-j mptcp endpoint show",
                           "-j -p mptcp endpoint show", "mptcp endpoint show id 7", "-j mptcp endpoint show id 20",
                           "mptcp limits show", "mptcp limits", "mptcp l sh"}) {
    auto mine = cli(line);
    auto theirs = ns.exec(std::string("ip ") + line);
    ASSERT_EQ(theirs.status, 0) << line << ": " << theirs.err;
    EXPECT_EQ(mine.status, 0) << line << ": " << mine.err;
    EXPECT_EQ(mine.out, theirs.out) << line;
  }
  // Nothing at all: both print nothing (text) and the same (JSON).
  ns.ip("mptcp endpoint flush");
  for (const char* line : {"mptcp endpoint show", "-j mptcp endpoint show"})
    EXPECT_EQ(cli(line).out, ns.exec(std::string("ip ") + line).out) << line;
}

TEST_F(MptcpCliTest, AddDeleteFlushAndLimitsReadBackByIp) {
  for (const char* endpoint : {"10.0.0.1 dev v0 subflow", "10.0.0.2 id 7 signal backup", "10.0.0.4 port 1234 signal",
                               "2001:db8::2 id 20 subflow fullmesh"}) {
    auto r = cli(std::string("mptcp endpoint add ") + endpoint);
    EXPECT_EQ(r.status, 0) << endpoint << ": " << r.err;
  }
  EXPECT_EQ(ns.exec("ip mptcp endpoint show").out,
            "10.0.0.1 id 1 subflow dev v0 \n10.0.0.2 id 7 signal backup \n10.0.0.4 port 1234 id 8 signal \n"
            "2001:db8::2 id 20 subflow fullmesh \n");
  EXPECT_EQ(cli("mptcp endpoint delete id 7").status, 0);
  EXPECT_EQ(ns.exec("ip mptcp endpoint show id 7").status, 2);
  // A missing endpoint: ip's status and the kernel's reason.
  auto missing = cli("mptcp endpoint show id 7");
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("address not found"), std::string::npos) << missing.err;
  EXPECT_EQ(cli("mptcp endpoint flush").status, 0);
  EXPECT_EQ(ns.exec("ip mptcp endpoint show").out, "");
  EXPECT_EQ(cli("mptcp limits set subflows 3 add_addr_accepted 4").status, 0);
  EXPECT_EQ(ns.exec("ip mptcp limits show").out, "add_addr_accepted 4 subflows 3 \n");
  EXPECT_EQ(cli("mptcp limits set subflows 1").status, 0);
  EXPECT_EQ(ns.exec("ip mptcp limits show").out, "add_addr_accepted 4 subflows 1 \n");
  // Bad input changes nothing and is a usage error.
  EXPECT_EQ(cli("mptcp endpoint add 10.0.0.9 bogus").status, 255);
  EXPECT_EQ(cli("mptcp endpoint add 10.0.0.9 id 256").status, 255);
  EXPECT_EQ(ns.exec("ip mptcp endpoint show").out, "");
}

}  // namespace
}  // namespace fastlink::test
