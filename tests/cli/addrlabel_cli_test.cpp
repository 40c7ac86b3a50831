// `addrlabel` against ip (iproute2 6.1) in one namespace: the table as ip prints it (text, -j,
// -j -p, abbreviations) after entries with and without a device; add, del and flush change the
// kernel's table as ip's own commands do (read back by ip); the exit statuses of ip for every
// failure it has (the kernel's refusals, a missing word, a bad value, an extra word).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_fixture.hpp"

namespace fastlink::test {
namespace {

class AddrlabelCliTest : public CliTest {
 protected:
  void SetUp() override { ns.ip("link add v0 type veth peer name v1"); }
  /// The table as ip reads it (keys sorted, as nlohmann::json keeps them).
  nlohmann::json table() const { return nlohmann::json::parse(ns.ip("-j addrlabel list")); }
};

TEST_F(AddrlabelCliTest, ListPrintsWhatIpPrints) {
  ns.ip("addrlabel add prefix 2001:db8::/32 dev v0 label 100");
  ns.ip("addrlabel add prefix 2001:db9:1::/48 label 4294967294");
  auto full = ns.exec("ip addrlabel list").out;
  // Both kinds of entry are there (else the comparison below proves little).
  EXPECT_NE(full.find("prefix 2001:db8::/32 dev v0 label 100 \n"), std::string::npos) << full;
  EXPECT_NE(full.find("prefix ::1/128 label 0 \n"), std::string::npos) << full;
  for (const char* line : {"addrlabel", "addrlabel list", "addrlabel show", "addrlabel lst", "addrl s", "addrlabel l",
                           "-j addrlabel", "-j -p addrlabel show", "-6 addrlabel list"}) {
    auto mine = cli(line);
    auto theirs = ns.exec(std::string("ip ") + line);
    ASSERT_EQ(theirs.status, 0) << line << ": " << theirs.err;
    EXPECT_EQ(mine.status, 0) << line << ": " << mine.err;
    EXPECT_EQ(mine.out, theirs.out) << line;
  }
}

TEST_F(AddrlabelCliTest, AddDeleteAndFlushChangeTheTableAsIpSeesIt) {
  auto before = table();
  auto r = cli("addrlabel add prefix 2001:db8::/32 dev v0 label 100");
  ASSERT_EQ(r.status, 0) << r.err;
  r = cli("addrl a prefix 2001:db9::1 label 7");  // a host prefix, abbreviated
  ASSERT_EQ(r.status, 0) << r.err;
  auto added = table();
  EXPECT_EQ(added.size(), before.size() + 2) << added.dump();
  EXPECT_NE(added.dump().find(R"({"address":"2001:db8::","ifname":"v0","label":100,"prefixlen":32})"), std::string::npos)
      << added.dump();
  EXPECT_NE(added.dump().find(R"({"address":"2001:db9::1","label":7,"prefixlen":128})"), std::string::npos) << added.dump();
  // The kernel matches prefix and device on delete: the label given is not compared (as ip).
  r = cli("addrlabel del prefix 2001:db8::/32 dev v0 label 5");
  ASSERT_EQ(r.status, 0) << r.err;
  r = cli("addrlabel d prefix 2001:db9::1 label 7");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(table(), before);
  r = cli("addrlabel flush");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(table(), nlohmann::json::array());  // the defaults too, as ip's flush
  EXPECT_EQ(cli("-j addrlabel").out, ns.exec("ip -j addrlabel").out);
}

TEST_F(AddrlabelCliTest, FailuresExitAsIpsAndChangeNothing) {
  ns.ip("addrlabel add prefix 2001:db8::/32 label 100");
  auto before = table();
  // ip's status for each: the kernel refusing (2), a missing word or a bad prefix (1), a bad
  // label or device (255), -4/-0 lists and flushes the kernel refuses (255 and 1).
  for (const char* line : {"addrlabel add prefix 2001:db8::/32 label 100", "addrlabel del prefix 2001:dbf::/32 label 1",
                           "addrlabel add prefix 10.0.0.0/8 label 1", "-4 addrlabel add prefix 10.0.0.0/8 label 1",
                           "-6 addrlabel add prefix 10.0.0.0/8 label 1", "addrlabel add prefix 2001:db8::/33",
                           "addrlabel add label 1", "addrlabel add prefix bogus label 1",
                           "addrlabel add prefix 2001:db8::/40 label 4294967295", "addrlabel add prefix 2001:db8::/40 label x",
                           "addrlabel add prefix 2001:db8::/40 dev nosuch label 1", "addrlabel add prefix 2001:db8::/40 label",
                           "addrlabel list v0", "addrlabel flush v0", "-4 addrlabel list", "-0 addrlabel list",
                           "-4 addrlabel flush", "addrlabel frobnicate", "addrlabel help"}) {
    auto mine = cli(line);
    auto theirs = ns.exec(std::string("ip ") + line);
    EXPECT_EQ(mine.status, theirs.status) << line << "\nfastlink: " << mine.err << "\nip: " << theirs.err;
    EXPECT_EQ(mine.out, theirs.out) << line;
    EXPECT_EQ(table(), before) << line;
    EXPECT_NE(mine.status, 0) << line;
  }
  // A refusal names what the kernel said and the command as typed.
  EXPECT_EQ(cli("addrlabel add prefix 2001:db8::/32 label 100").err,
            "Error: File exists (addrlabel add prefix 2001:db8::/32 label 100)\n");
  EXPECT_EQ(cli("addrlabel add prefix 2001:db8::/40 dev nosuch label 1").err, "Error: dev: Cannot find device \"nosuch\"\n");
  // A word ip ignores is refused before anything is sent.
  auto extra = cli("addrlabel add prefix 2001:db8::/40 label 1 bogus");
  EXPECT_EQ(extra.status, 255);
  EXPECT_NE(extra.err.find("\"bogus\""), std::string::npos) << extra.err;
  EXPECT_EQ(table(), before);
}

TEST_F(AddrlabelCliTest, BatchLinesRunInOrderAndAFailedLineIsNamed) {
  auto r = batch("addrlabel add prefix 2001:db8::/32 dev v0 label 100\naddrl a prefix 2001:db9::/32 label 101\n");
  ASSERT_EQ(r.status, 0) << r.err;
  auto added = table().dump();
  EXPECT_NE(added.find(R"({"address":"2001:db8::","ifname":"v0","label":100,"prefixlen":32})"), std::string::npos) << added;
  EXPECT_NE(added.find(R"({"address":"2001:db9::","label":101,"prefixlen":32})"), std::string::npos) << added;
  r = batch("addrlabel del prefix 2001:db9::/32 label 101\naddrlabel add prefix 2001:db8::/32 dev v0 label 100\n");
  EXPECT_EQ(r.status, 1);  // the second line fails: File exists (ip -batch: 1)
  EXPECT_NE(r.err.find("File exists"), std::string::npos) << r.err;
  EXPECT_EQ(table().dump().find("2001:db9::"), std::string::npos);  // the first line was applied
  // Reads are not batch lines; a missing device fails its line.
  EXPECT_EQ(batch("addrlabel list\n").status, 255);
  r = batch("addrlabel add prefix 2001:dba::/32 dev nosuch label 1\n");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("nosuch"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace fastlink::test
