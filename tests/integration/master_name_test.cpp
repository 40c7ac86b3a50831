// LinkInfo::master is the kernel's index (IFLA_MASTER); masterName is its name, filled by
// LinkApi::get/find/list. Checked against `ip -j link show`, which names the master itself.
#include "integration/link_fixture.hpp"

namespace fastlink::test {
namespace {

TEST_F(LinkTest, MasterIsReportedByIndexAndByName) {
  links.add(LinkInfo("br0", "bridge"));
  addVeth("v0", "v1");
  links.set("v0", LinkInfo().setMaster("br0"));
  ASSERT_EQ(ipLink("v0")["master"], "br0");
  uint32_t bridgeIndex = ipLink("br0")["ifindex"].get<uint32_t>();

  LinkInfo v0 = links.get("v0");
  EXPECT_EQ(v0.masterIndex(), bridgeIndex);
  EXPECT_EQ(v0.masterName.value_or("(unset)"), "br0");
  EXPECT_EQ(links.get("v1").masterName, std::nullopt);  // no master, no name
  EXPECT_EQ(links.find("v0")->masterName.value_or("(unset)"), "br0");

  // A dump names the master from the dump itself, or asks when the filter left it out.
  for (const LinkFilter& filter : {LinkFilter(), LinkFilter().setKind("veth")}) {
    bool seen = false;
    for (const LinkInfo& l : links.list(filter)) {
      if (l.name != "v0") continue;
      seen = true;
      EXPECT_EQ(l.masterIndex(), bridgeIndex);
      EXPECT_EQ(l.masterName.value_or("(unset)"), "br0");
    }
    EXPECT_TRUE(seen);
  }

  // The name is the kernel's now, not remembered: rename the bridge behind fastlink's back.
  ASSERT_EQ(run("ip -n " + ns.name() + " link set dev br0 name sw0").status, 0);
  EXPECT_EQ(links.get("v0").masterName.value_or("(unset)"), "sw0");
  EXPECT_EQ(ipLink("v0")["master"], "sw0");
}

}  // namespace
}  // namespace fastlink::test
