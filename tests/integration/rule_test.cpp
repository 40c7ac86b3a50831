// Policy routing rules against the real kernel, with `ip -j rule` as the oracle.
#include <gtest/gtest.h>

#include <fastlink/fastlink.hpp>
#include <fastlink/route.hpp>
#include <fastlink/rule.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>

#include "support/test_netns.hpp"

namespace fastlink::test {
namespace {

class RuleTest : public ::testing::Test {
 protected:
  TestNetns ns;
  Netlink nl{NetlinkOptions{.netns = Netns::named(ns.name())}};
  RuleApi& rules = nl.rules();

  /// `ip -j [-6] rule show` as a map priority -> JSON object, for the rules not built in.
  std::map<uint32_t, nlohmann::json> oracle(bool v6 = false) {
    std::map<uint32_t, nlohmann::json> out;
    for (const auto& r : ns.ipJson(std::string(v6 ? "-6 " : "") + "rule show")) {
      uint32_t pref = r["priority"];
      if (pref == 0 || pref == 32766 || pref == 32767) continue;
      out[pref] = r;
    }
    return out;
  }

  std::optional<RuleInfo> mineAt(uint32_t pref, IpAddress::Family family = IpAddress::Family::v4) {
    auto list = rules.list(RuleFilter().setFamily(family).setPriority(pref));
    if (list.size() != 1) return std::nullopt;
    return list[0];
  }
};

TEST_F(RuleTest, SelectorsAndActionsMatchIproute2) {
  rules.add(RuleInfo().setPriority(100).setSrc(Prefix::parse("10.0.0.0/8")).setDst(Prefix::parse("192.168.0.0/16")).setTable(100));
  rules.add(RuleInfo().setPriority(101).setFwmark(0x10, 0xff).setIif("lo").setTable("main"));
  rules.add(RuleInfo().setPriority(102).setOif("v0").setAction(RuleAction::Blackhole));
  rules.add(RuleInfo().setPriority(103).setAction(RuleAction::Prohibit));
  rules.add(RuleInfo().setPriority(104).setAction(RuleAction::Unreachable));
  rules.add(RuleInfo().setPriority(105).setGoto(200));
  rules.add(RuleInfo().setPriority(106).setTable(5).setSuppressPrefixLength(0));
  rules.add(RuleInfo().setPriority(107).setUidRange(100, 200).setIpProto(6).setSport(1000, 2000).setDport(80, 80).setTable(7));
  rules.add(RuleInfo().setPriority(108).setTable(100000));
  rules.add(RuleInfo().setPriority(109).setInvert(true).setSrc(Prefix::parse("10.1.0.0/16")).setTable(9));
  rules.add(RuleInfo().setPriority(200).setTos(0x10).setTable(8));

  auto o = oracle();
  ASSERT_EQ(o.size(), 11u) << ns.ip("rule show");
  EXPECT_EQ(o[100]["src"], "10.0.0.0");
  EXPECT_EQ(o[100]["srclen"], 8);
  EXPECT_EQ(o[100]["dst"], "192.168.0.0");
  EXPECT_EQ(o[100]["dstlen"], 16);
  EXPECT_EQ(o[100]["table"], "100");
  EXPECT_EQ(o[101]["fwmark"], "0x10");
  EXPECT_EQ(o[101]["fwmask"], "0xff");
  EXPECT_EQ(o[101]["iif"], "lo");
  EXPECT_EQ(o[101]["table"], "main");
  EXPECT_EQ(o[102]["oif"], "v0");
  EXPECT_EQ(o[102]["action"], "blackhole");
  EXPECT_EQ(o[103]["action"], "prohibit");
  EXPECT_EQ(o[104]["action"], "unreachable");
  EXPECT_EQ(o[105]["goto"], 200);
  EXPECT_EQ(o[106]["suppress_prefixlen"], 0);
  EXPECT_EQ(o[107]["uid_start"], 100);
  EXPECT_EQ(o[107]["uid_end"], 200);
  // iproute2 names protocols through /etc/protocols ("ipproto-6" where it is missing, as in the VM).
  EXPECT_TRUE(o[107]["ipproto"] == "tcp" || o[107]["ipproto"] == "ipproto-6") << o[107];
  EXPECT_EQ(o[107]["sport_start"], 1000);
  EXPECT_EQ(o[107]["sport_end"], 2000);
  EXPECT_EQ(o[107]["dport"], 80);
  EXPECT_EQ(o[108]["table"], "100000");
  EXPECT_EQ(o[109]["not"], nullptr);
  EXPECT_EQ(o[200]["tos"], "0x10");

  // And fastlink reads back what it wrote.
  auto r100 = mineAt(100);
  ASSERT_TRUE(r100);
  EXPECT_EQ(r100->src, Prefix::parse("10.0.0.0/8"));
  EXPECT_EQ(r100->dst, Prefix::parse("192.168.0.0/16"));
  EXPECT_EQ(r100->table, 100u);
  EXPECT_EQ(r100->action, RuleAction::ToTable);
  auto r101 = mineAt(101);
  EXPECT_EQ(r101->fwmark, 0x10u);
  EXPECT_EQ(r101->fwmask, 0xffu);
  EXPECT_EQ(r101->iif, "lo");
  EXPECT_EQ(r101->table, 254u);
  EXPECT_EQ(mineAt(102)->oif, "v0");
  EXPECT_EQ(mineAt(102)->action, RuleAction::Blackhole);
  EXPECT_EQ(mineAt(102)->table, std::nullopt);
  EXPECT_EQ(mineAt(105)->gotoTarget, 200u);
  EXPECT_EQ(mineAt(105)->action, RuleAction::Goto);
  EXPECT_EQ(mineAt(106)->suppressPrefixLength, 0u);
  EXPECT_EQ(mineAt(100)->suppressPrefixLength, std::nullopt);
  auto r107 = mineAt(107);
  EXPECT_EQ(r107->uidRange, (UidRange{100, 200}));
  EXPECT_EQ(r107->ipProto, 6);
  EXPECT_EQ(r107->sport, (PortRange{1000, 2000}));
  EXPECT_EQ(r107->dport, (PortRange{80, 80}));
  EXPECT_EQ(mineAt(108)->table, 100000u);
  EXPECT_TRUE(mineAt(109)->invert.value_or(false));
  EXPECT_EQ(mineAt(200)->tos, 0x10);

  // Every rule iproute2 shows, fastlink lists (and the default ones too).
  std::set<uint32_t> prefs;
  for (const auto& r : rules.list(RuleFilter().setFamily(IpAddress::Family::v4))) prefs.insert(*r.priority);
  std::set<uint32_t> ipPrefs;
  for (const auto& r : ns.ipJson("rule show")) ipPrefs.insert(r["priority"].get<uint32_t>());
  EXPECT_EQ(prefs, ipPrefs);
}

TEST_F(RuleTest, Ipv6RulesAndFamilyFilter) {
  rules.add(RuleInfo().setPriority(100).setSrc(Prefix::parse("2001:db8::/32")).setTable(100));
  rules.add(RuleInfo().setPriority(101).setFamily(IpAddress::Family::v6).setFwmark(7).setTable(101));
  auto o = oracle(true);
  ASSERT_EQ(o.size(), 2u);
  EXPECT_EQ(o[100]["src"], "2001:db8::");
  EXPECT_EQ(o[100]["srclen"], 32);
  EXPECT_EQ(o[101]["fwmark"], "0x7");
  EXPECT_TRUE(oracle(false).empty()) << "nothing leaked into IPv4";
  for (const auto& r : rules.list(RuleFilter().setFamily(IpAddress::Family::v6)))
    EXPECT_EQ(r.family, IpAddress::Family::v6);
  auto r = mineAt(100, IpAddress::Family::v6);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->src, Prefix::parse("2001:db8::/32"));
  bool sawV4 = false, sawV6 = false;
  for (const auto& x : rules.list()) (x.family == IpAddress::Family::v4 ? sawV4 : sawV6) = true;
  EXPECT_TRUE(sawV4 && sawV6);
}

TEST_F(RuleTest, TableByNameFromRtTables) {
  // rt_tables.d of the test's private mount namespace is not the host's: write a name there only
  // when the directory is writable and the name is free; "main"/"local" are always known.
  rules.add(RuleInfo().setPriority(300).setTable("local"));
  EXPECT_EQ(oracle()[300]["table"], "local");
  EXPECT_EQ(mineAt(300)->table, 255u);
  try {
    RuleInfo().setTable("no-such-table-name");
    FAIL() << "an unknown table name must be refused";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("no-such-table-name"), std::string::npos) << e.what();
  }
  // A name from a configuration file, through RouteNames (the same reader `setTable` uses).
  char dir[] = "/tmp/fastlink-rt-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::ofstream(std::string(dir) + "/rt_tables") << "# test\n1234\tcustomers\n";
  RouteNames names({dir});
  rules.add(RuleInfo().setPriority(301).setTable(names.tableId("customers")));
  EXPECT_EQ(oracle()[301]["table"], "1234");
  std::remove((std::string(dir) + "/rt_tables").c_str());
  rmdir(dir);
}

TEST_F(RuleTest, DeleteMatchesSetFieldsOnly) {
  rules.add(RuleInfo().setPriority(100).setSrc(Prefix::parse("10.0.0.0/8")).setTable(100));
  rules.add(RuleInfo().setPriority(100).setSrc(Prefix::parse("10.1.0.0/16")).setTable(101));
  try {
    rules.add(RuleInfo().setPriority(100).setSrc(Prefix::parse("10.0.0.0/8")).setTable(100));
    FAIL() << "an identical rule must be refused";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::file_exists) << e.what();
  }
  rules.del(RuleInfo().setPriority(100).setSrc(Prefix::parse("10.1.0.0/16")));
  auto left = rules.list(RuleFilter().setFamily(IpAddress::Family::v4).setPriority(100));
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].table, 100u);
  rules.del(RuleInfo().setPriority(100));
  EXPECT_TRUE(oracle().empty());
  try {
    rules.del(RuleInfo().setPriority(100));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::no_such_file_or_directory) << e.what();
  }
}

TEST_F(RuleTest, BadInputIsRefusedAndChangesNothing) {
  auto before = ns.ip("rule show");
  auto expectInvalid = [&](const RuleInfo& r, const std::string& words) {
    try {
      rules.add(r);
      ADD_FAILURE() << "accepted: " << words;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), std::errc::invalid_argument) << e.what();
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  expectInvalid(RuleInfo().setPriority(10).setSrc(Prefix::parse("10.0.0.0/8")).setDst(Prefix::parse("2001:db8::/32")), "prefix");
  expectInvalid(RuleInfo().setPriority(10).setFamily(IpAddress::Family::v6).setSrc(Prefix::parse("10.0.0.0/8")), "IPv6");
  expectInvalid(RuleInfo().setPriority(10).setIif("bad/name"), "iif");
  expectInvalid(RuleInfo().setPriority(10).setGoto(5), "forward");
  expectInvalid(RuleInfo().setPriority(10).setAction(RuleAction::Blackhole).setTable(5), "table");
  expectInvalid(RuleInfo().setPriority(10).setUidRange(5, 1), "uidrange");
  expectInvalid(RuleInfo().setPriority(10).setL3mdev(true).setTable(5), "l3mdev");
  expectInvalid(RuleInfo().setPriority(10).setSuppressPrefixLength(33), "suppress_prefixlength");
  EXPECT_THROW(Prefix::parse("10.0.0.0/33"), Error);
  EXPECT_THROW(IpAddress::parse("10.0.0"), Error);
  // The kernel's refusal (a goto to itself is caught above; a nop rule with fwmask only here).
  EXPECT_EQ(ns.ip("rule show"), before);
}

TEST_F(RuleTest, L3mdevRule) {
  rules.add(RuleInfo().setPriority(1000).setL3mdev(true));
  auto o = oracle();
  ASSERT_EQ(o.count(1000), 1u);
  EXPECT_TRUE(o[1000].contains("l3mdev"));
  EXPECT_TRUE(mineAt(1000)->l3mdev.value_or(false));
  EXPECT_EQ(mineAt(1000)->table, std::nullopt);
}

TEST_F(RuleTest, BatchOfRules) {
  Batch b;
  for (uint32_t i = 0; i < 50; ++i) b.add(RuleRequests::add(RuleInfo().setPriority(1000 + i).setFwmark(i + 1).setTable(100 + i)));
  auto r = nl.run(b, {.onError = OnError::Continue});
  EXPECT_TRUE(r.ok()) << (r.firstError() ? r.firstError()->what() : "");
  EXPECT_EQ(oracle().size(), 50u);
}

TEST_F(RuleTest, MulticastRulesAreTheirOwnKind) {
  // ip mrule's rules (RTNL_FAMILY_IPMR/IP6MR) share the dump with the unicast ones: an unfiltered
  // list keeps its own kind, in both directions, and each family lands where ip mrule sees it.
  rules.add(RuleInfo().setMulticast(true).setPriority(100).setIif("lo").setTable(100));
  rules.add(RuleInfo().setMulticast(true).setFamily(IpAddress::Family::v6).setPriority(10).setOif("lo").setTable(9));
  rules.add(RuleInfo().setPriority(200).setFwmark(5).setTable(200));

  std::map<uint32_t, nlohmann::json> ipmr, ip6mr;
  for (const auto& r : ns.ipJson("mrule show")) ipmr[r["priority"]] = r;
  for (const auto& r : ns.ipJson("-6 mrule show")) ip6mr[r["priority"]] = r;
  ASSERT_EQ(ipmr.count(100), 1u);
  EXPECT_EQ(ipmr[100]["iif"], "lo");
  EXPECT_EQ(ipmr[100]["table"], "100");
  ASSERT_EQ(ip6mr.count(10), 1u);
  EXPECT_EQ(ip6mr[10]["oif"], "lo");
  EXPECT_EQ(oracle().count(100), 0u) << "a multicast rule landed in ip rule";

  std::set<std::pair<uint32_t, bool>> multicast;  // (priority, IPv6) of every multicast rule listed
  for (const auto& r : rules.list(RuleFilter().setMulticast(true))) {
    EXPECT_TRUE(r.multicast);
    multicast.insert({r.priority.value_or(0), r.family == IpAddress::Family::v6});
  }
  std::set<std::pair<uint32_t, bool>> expected;
  for (const auto& [pref, r] : ipmr) expected.insert({pref, false});
  for (const auto& [pref, r] : ip6mr) expected.insert({pref, true});
  EXPECT_EQ(multicast, expected);
  for (const auto& r : rules.list()) {
    EXPECT_FALSE(r.multicast) << "unicast list returned multicast rule pref " << r.priority.value_or(0);
    EXPECT_NE(r.priority, 10u);
  }
  auto v6 = rules.list(RuleFilter().setMulticast(true).setFamily(IpAddress::Family::v6).setPriority(10));
  ASSERT_EQ(v6.size(), 1u);
  EXPECT_EQ(v6[0].oif, "lo");
  EXPECT_EQ(v6[0].table, 9u);

  rules.del(RuleInfo().setMulticast(true).setPriority(100));
  EXPECT_EQ(ns.ip("mrule show pref 100"), "");
  EXPECT_EQ(oracle().count(200), 1u) << "deleting the multicast rule took the unicast one";
}

}  // namespace
}  // namespace fastlink::test
