// `fastlink genl ...` on the command line, checked with iproute2's `genl ctrl` (text parsed).
#include <algorithm>

#include "cli_fixture.hpp"
#include "support/genl_oracle.hpp"

namespace fastlink::test {
namespace {

using nlohmann::json;

class GenlCliTest : public CliTest {
 protected:
  void SetUp() override {
    if (ns.exec("command -v genl").status != 0) GTEST_SKIP() << "iproute2's genl (the oracle) is not installed here";
  }
  std::string genl(const std::string& args) const {
    CommandResult r = ns.exec("genl " + args);
    EXPECT_EQ(r.status, 0) << r.err;
    return r.out;
  }
};

TEST_F(GenlCliTest, JsonMatchesGenlCtrlList) {
  auto r = cli("-j genl show");
  ASSERT_EQ(r.status, 0) << r.err;
  json mine = json::parse(r.out);
  std::vector<OracleFamily> theirs = parseGenlCtrl(genl("ctrl list"));
  ASSERT_GE(theirs.size(), 3u);
  ASSERT_EQ(mine.size(), theirs.size());
  for (const auto& t : theirs) {
    SCOPED_TRACE(t.name);
    auto it = std::find_if(mine.begin(), mine.end(), [&](const json& f) { return f["name"] == t.name; });
    ASSERT_NE(it, mine.end());
    const json& m = *it;
    EXPECT_EQ(m["id"], t.id);
    EXPECT_EQ(m["version"], t.version);
    EXPECT_EQ(m["header_size"], t.headerSize);
    EXPECT_EQ(m["max_attr"], t.maxAttr);
    ASSERT_EQ(m["commands"].size(), t.ops.size());
    for (std::size_t i = 0; i < t.ops.size(); ++i) {
      EXPECT_EQ(m["commands"][i]["id"], t.ops[i].id);
      if (t.ops[i].flags) {
        EXPECT_EQ(m["commands"][i]["flags"], *t.ops[i].flags);
      }
    }
    ASSERT_EQ(m["multicast_groups"].size(), t.groups.size());
    for (std::size_t i = 0; i < t.groups.size(); ++i) {
      EXPECT_EQ(m["multicast_groups"][i]["name"], t.groups[i].name);
      EXPECT_EQ(m["multicast_groups"][i]["id"], t.groups[i].id);
    }
  }
}

TEST_F(GenlCliTest, TextIsGenlsByteForByte) {
  std::string theirs = genl("ctrl list");
  EXPECT_EQ(cli("genl show").out, theirs);
  EXPECT_EQ(cli("genl").out, theirs);
  EXPECT_EQ(cli("genl ctrl list").out, theirs);
  EXPECT_EQ(cli("genl ctrl get name ethtool").out, genl("ctrl get name ethtool"));
  EXPECT_EQ(cli("genl show name nlctrl").out, genl("ctrl get name nlctrl"));
}

TEST_F(GenlCliTest, OneFamilyAsJson) {
  auto r = cli("-j genl show name nlctrl");
  ASSERT_EQ(r.status, 0) << r.err;
  json j = json::parse(r.out);
  ASSERT_EQ(j.size(), 1u);
  std::vector<OracleFamily> theirs = parseGenlCtrl(genl("ctrl get name nlctrl"));
  ASSERT_EQ(theirs.size(), 1u);
  EXPECT_EQ(j[0]["id"], theirs[0].id);
  EXPECT_EQ(j[0]["multicast_groups"][0]["name"], "notify");
  EXPECT_EQ(j[0]["commands"][0]["capabilities"], json({"do", "dump", "policy"}));
}

TEST_F(GenlCliTest, UnknownFamilyFailsWithTheLibrarysSentence) {
  EXPECT_NE(ns.exec("genl ctrl get name fastlink_nope").status, 0);
  auto r = cli("genl ctrl get name fastlink_nope");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("generic netlink family \"fastlink_nope\" not found: is the module loaded?"), std::string::npos) << r.err;
  auto u = cli("genl ctrl get");
  EXPECT_EQ(u.status, 255) << u.err;
  u = cli("genl frobnicate");
  EXPECT_EQ(u.status, 255) << u.err;
}

}  // namespace
}  // namespace fastlink::test
