// `token` against ip (iproute2 6.1) in one namespace: the tokens as ip lists them (text, -j, -j -p,
// `get dev`, abbreviations), set and deleted as ip reads them back, and ip's exit statuses for
// every failure it has (the kernel's refusals: loopback, router advertisements off; a missing
// word, a bad token, a missing device).
#include <gtest/gtest.h>

#include <string>

#include "cli/cli_fixture.hpp"

namespace fastlink::test {
namespace {

class TokenCliTest : public CliTest {
 protected:
  void SetUp() override { ns.ip("link add v0 type veth peer name v1"); }
};

TEST_F(TokenCliTest, ListPrintsWhatIpPrints) {
  ns.ip("token set ::1a dev v0");
  auto full = ns.exec("ip token list").out;
  EXPECT_NE(full.find("token ::1a dev v0\n"), std::string::npos) << full;
  EXPECT_NE(full.find("token :: dev v1\n"), std::string::npos) << full;
  for (const char* line : {"token", "token list", "token show", "token lst", "token l", "token get dev v0", "token g dev v1",
                           "-j token", "-j -p token list", "-j token get dev v0", "token list bogus dev v0 more"}) {
    auto mine = cli(line);
    auto theirs = ns.exec(std::string("ip ") + line);
    ASSERT_EQ(theirs.status, 0) << line << ": " << theirs.err;
    EXPECT_EQ(mine.status, 0) << line << ": " << mine.err;
    EXPECT_EQ(mine.out, theirs.out) << line;
  }
}

TEST_F(TokenCliTest, SetAndDeleteAsIpReadsThemBack) {
  auto r = cli("token set ::1a dev v0");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(ns.exec("ip token get dev v0").out, "token ::1a dev v0\n");
  r = cli("token a ::1:2:3:4:5/64 dev v1");  // the kernel keeps the lower 64 bits
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(ns.exec("ip token get dev v1").out, "token ::2:3:4:5 dev v1\n");
  r = cli("token del dev v0");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(ns.exec("ip token get dev v0").out, "token :: dev v0\n");
  EXPECT_EQ(ns.exec("ip token get dev v1").out, "token ::2:3:4:5 dev v1\n");
}

TEST_F(TokenCliTest, FailuresExitAsIpsAndChangeNothing) {
  ns.exec("sysctl -qw net.ipv6.conf.v1.accept_ra=0");
  std::string before = ns.exec("ip token list").out;
  for (const char* line : {"token set ::1 dev lo", "token set ::1 dev v1", "token set ::1", "token set dev v0",
                           "token set 10.0.0.1 dev v0", "token set bogus dev v0", "token set ::1 dev nosuch",
                           "token list dev nosuch", "token list dev", "token frob", "token help", "token set help"}) {
    auto mine = cli(line);
    auto theirs = ns.exec(std::string("ip ") + line);
    EXPECT_EQ(mine.status, theirs.status) << line << "\nfastlink: " << mine.err << "\nip: " << theirs.err;
    EXPECT_EQ(mine.out, theirs.out) << line;
    EXPECT_NE(mine.status, 0) << line;
    EXPECT_EQ(ns.exec("ip token list").out, before) << line;
  }
  // The kernel's reason, and the command as typed.
  EXPECT_EQ(cli("token set ::1 dev v1").err, "Error: ipv6: Router advertisement is disabled on device (token set ::1 dev v1)\n");
}

TEST_F(TokenCliTest, BatchLinesSetAndDelete) {
  auto r = batch("token set ::1a dev v0\ntoken a ::1b dev v1\ntoken del dev v0\n");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(ns.exec("ip token get dev v0").out, "token :: dev v0\n");
  EXPECT_EQ(ns.exec("ip token get dev v1").out, "token ::1b dev v1\n");
  r = batch("token set ::1c dev v0\ntoken set ::1 dev lo\n");
  EXPECT_EQ(r.status, 1);  // the kernel refuses loopback (ip -batch: 1)
  EXPECT_NE(r.err.find("loopback"), std::string::npos) << r.err;
  EXPECT_EQ(ns.exec("ip token get dev v0").out, "token ::1c dev v0\n");
  EXPECT_EQ(batch("token list\n").status, 255);  // reads are not batch lines
}

}  // namespace
}  // namespace fastlink::test
