// Golden bytes for rule requests (RuleRequests) and the reply decoder.
// fib_rule_hdr by hand: family dst_len src_len tos table res1 res2 action (u8 each), flags:u32.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <linux/fib_rules.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "fastlink/rule.hpp"
#include "rtnl/rule_codec.hpp"
#include "unit/golden.hpp"

namespace fastlink {
namespace {

using test::AlignedMessage;
using test::Attrs;
using test::Bytes;
using test::sameBytes;

Bytes frh(uint8_t family, uint8_t dstLen, uint8_t srcLen, uint8_t tos, uint8_t table, uint8_t action, uint32_t flags = 0) {
  Bytes b = {family, dstLen, srcLen, tos, table, 0, 0, action};
  test::appendLe32(b, flags);
  return b;
}

constexpr uint16_t kAdd = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL;

TEST(RuleGolden, AddFromToLookup) {
  // ip rule add pref 100 from 10.0.0.0/8 to 192.168.0.0/16 lookup 100
  Request r = RuleRequests::add(
      RuleInfo().setPriority(100).setSrc(Prefix::parse("10.0.0.0/8")).setDst(Prefix::parse("192.168.0.0/16")).setTable(100));
  Bytes expected = test::netlinkMessage(RTM_NEWRULE, kAdd, frh(AF_INET, 16, 8, 0, 100, FR_ACT_TO_TBL),
                               Attrs().u32(FRA_PRIORITY, 100).raw(FRA_SRC, {10, 0, 0, 0}).raw(FRA_DST, {192, 168, 0, 0}));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
  EXPECT_EQ(r.operation(), "rule add pref 100 from 10.0.0.0/8 to 192.168.0.0/16 lookup 100");
}

TEST(RuleGolden, DefaultsToMainTableLikeIproute2) {
  // ip rule add fwmark 0x10/0xff iif lo
  Request r = RuleRequests::add(RuleInfo().setFwmark(0x10, 0xff).setIif("lo"));
  Bytes expected = test::netlinkMessage(RTM_NEWRULE, kAdd, frh(AF_INET, 0, 0, 0, RT_TABLE_MAIN, FR_ACT_TO_TBL),
                               Attrs().u32(FRA_FWMARK, 0x10).u32(FRA_FWMASK, 0xff).str(FRA_IIFNAME, "lo"));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
}

TEST(RuleGolden, LargeTableGoesInFraTable) {
  // ip -6 rule add pref 5 from 2001:db8::/32 oif v0 lookup 100000 tos 0x10
  Request r = RuleRequests::add(
      RuleInfo().setPriority(5).setSrc(Prefix::parse("2001:db8::/32")).setOif("v0").setTable(100000).setTos(0x10));
  Bytes expected = test::netlinkMessage(RTM_NEWRULE, kAdd, frh(AF_INET6, 0, 32, 0x10, RT_TABLE_UNSPEC, FR_ACT_TO_TBL),
                               Attrs()
                                   .u32(FRA_PRIORITY, 5)
                                   .raw(FRA_SRC, {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
                                   .str(FRA_OIFNAME, "v0")
                                   .u32(FRA_TABLE, 100000));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
}

TEST(RuleGolden, ActionsGotoAndSelectors) {
  Request goto_ = RuleRequests::add(RuleInfo().setPriority(105).setGoto(200));
  EXPECT_TRUE(sameBytes(goto_.bytes(), test::netlinkMessage(RTM_NEWRULE, kAdd, frh(AF_INET, 0, 0, 0, 0, FR_ACT_GOTO),
                                                   Attrs().u32(FRA_PRIORITY, 105).u32(FRA_GOTO, 200))));
  Request bh = RuleRequests::add(RuleInfo().setPriority(1).setAction(RuleAction::Blackhole).setInvert(true));
  EXPECT_TRUE(sameBytes(bh.bytes(), test::netlinkMessage(RTM_NEWRULE, kAdd, frh(AF_INET, 0, 0, 0, 0, FR_ACT_BLACKHOLE, FIB_RULE_INVERT),
                                                Attrs().u32(FRA_PRIORITY, 1))));
  // ip rule add pref 7 uidrange 100-200 ipproto 6 sport 1000-2000 dport 80 lookup 7
  //   suppress_prefixlength 0 suppress_ifgroup 3 protocol 4
  Request sel = RuleRequests::add(RuleInfo()
                                      .setPriority(7)
                                      .setUidRange(100, 200)
                                      .setIpProto(6)
                                      .setSport(1000, 2000)
                                      .setDport(80, 80)
                                      .setTable(7)
                                      .setSuppressPrefixLength(0)
                                      .setSuppressIfgroup(3)
                                      .setProtocol(4));
  Bytes uid, sport, dport;
  test::appendLe32(uid, 100), test::appendLe32(uid, 200);
  test::appendLe16(sport, 1000), test::appendLe16(sport, 2000);
  test::appendLe16(dport, 80), test::appendLe16(dport, 80);
  EXPECT_TRUE(sameBytes(sel.bytes(), test::netlinkMessage(RTM_NEWRULE, kAdd, frh(AF_INET, 0, 0, 0, 7, FR_ACT_TO_TBL),
                                                 Attrs()
                                                     .u32(FRA_PRIORITY, 7)
                                                     .u32(FRA_SUPPRESS_PREFIXLEN, 0)
                                                     .u32(FRA_SUPPRESS_IFGROUP, 3)
                                                     .raw(FRA_UID_RANGE, uid)
                                                     .u8(FRA_IP_PROTO, 6)
                                                     .raw(FRA_SPORT_RANGE, sport)
                                                     .raw(FRA_DPORT_RANGE, dport)
                                                     .u8(FRA_PROTOCOL, 4))));
  Request l3 = RuleRequests::add(RuleInfo().setPriority(1000).setL3mdev(true));
  EXPECT_TRUE(sameBytes(l3.bytes(), test::netlinkMessage(RTM_NEWRULE, kAdd, frh(AF_INET, 0, 0, 0, 0, FR_ACT_TO_TBL),
                                                Attrs().u32(FRA_PRIORITY, 1000).u8(FRA_L3MDEV, 1))));
}

TEST(RuleGolden, DelSendsOnlyWhatIsSet) {
  // ip rule del pref 100: header all zero but the family, so the kernel matches any action/table.
  Request r = RuleRequests::del(RuleInfo().setPriority(100));
  EXPECT_TRUE(sameBytes(r.bytes(), test::netlinkMessage(RTM_DELRULE, NLM_F_REQUEST, frh(AF_INET, 0, 0, 0, 0, 0), Attrs().u32(FRA_PRIORITY, 100))));
}

TEST(RuleGolden, DumpCarriesOnlyTheFamily) {
  core::MessageWriter w(RTM_GETRULE, 0);
  rtnl::encodeRuleDump(w, IpAddress::Family::v6);
  EXPECT_TRUE(sameBytes(w.bytes(), test::netlinkMessage(RTM_GETRULE, NLM_F_REQUEST, frh(AF_INET6, 0, 0, 0, 0, 0), Attrs())));
}

TEST(RuleGolden, DecodeKernelReplyThenEmit) {
  // The kernel's report of `ip rule add pref 100 from 10.0.0.0/8 fwmark 0x10/0xff iif lo lookup 1000`.
  Bytes reply = test::netlinkMessage(RTM_NEWRULE, 0, frh(AF_INET, 0, 8, 0, RT_TABLE_COMPAT, FR_ACT_TO_TBL),
                            Attrs()
                                .u32(FRA_TABLE, 1000)
                                .u32(FRA_PRIORITY, 100)
                                .raw(FRA_SRC, {10, 0, 0, 0})
                                .str(FRA_IIFNAME, "lo")
                                .u32(FRA_FWMARK, 0x10)
                                .u32(FRA_FWMASK, 0xff)
                                .u8(FRA_PROTOCOL, 0)
                                .u32(FRA_FLOW, 5));  // realms: kept raw
  AlignedMessage m(reply);
  RuleInfo r = rtnl::decodeRule(m.as<nlmsghdr>());
  EXPECT_EQ(r.family, IpAddress::Family::v4);
  EXPECT_EQ(r.priority, 100u);
  EXPECT_EQ(r.src, Prefix::parse("10.0.0.0/8"));
  EXPECT_EQ(r.iif, "lo");
  EXPECT_EQ(r.fwmark, 0x10u);
  EXPECT_EQ(r.fwmask, 0xffu);
  EXPECT_EQ(r.table, 1000u);
  EXPECT_EQ(r.action, RuleAction::ToTable);
  EXPECT_EQ(r.protocol, 0);
  ASSERT_EQ(r.unknown.count(), 1u);
  EXPECT_EQ(r.unknown.list()[0].type, FRA_FLOW);

  RuleInfo again = r;
  again.protocol.reset();
  again.invert.reset();
  Request out = RuleRequests::add(again);
  EXPECT_TRUE(sameBytes(out.bytes(), test::netlinkMessage(RTM_NEWRULE, kAdd, frh(AF_INET, 0, 8, 0, RT_TABLE_UNSPEC, FR_ACT_TO_TBL),
                                                 Attrs()
                                                     .u32(FRA_PRIORITY, 100)
                                                     .raw(FRA_SRC, {10, 0, 0, 0})
                                                     .u32(FRA_FWMARK, 0x10)
                                                     .u32(FRA_FWMASK, 0xff)
                                                     .str(FRA_IIFNAME, "lo")
                                                     .u32(FRA_TABLE, 1000))));
}

TEST(RuleGolden, DecodePriorityZeroAndUnsetSuppress) {
  // The kernel omits FRA_PRIORITY for 0 (the local rule) and reports table 255 in the header.
  Bytes reply = test::netlinkMessage(RTM_NEWRULE, 0, frh(AF_INET, 0, 0, 0, RT_TABLE_LOCAL, FR_ACT_TO_TBL),
                            Attrs().u32(FRA_TABLE, RT_TABLE_LOCAL).u32(FRA_SUPPRESS_PREFIXLEN, 0xffffffff));
  AlignedMessage m(reply);
  RuleInfo r = rtnl::decodeRule(m.as<nlmsghdr>());
  EXPECT_EQ(r.priority, 0u);
  EXPECT_EQ(r.table, 255u);
  EXPECT_FALSE(r.suppressPrefixLength);
}

TEST(RuleGolden, BadInputIsRefusedBeforeEncoding) {
  auto expectInvalid = [](const RuleInfo& r, const std::string& words) {
    try {
      RuleRequests::add(r);
      ADD_FAILURE() << "accepted: " << words;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), std::errc::invalid_argument);
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  expectInvalid(RuleInfo().setSrc(Prefix::parse("10.0.0.0/8")).setDst(Prefix::parse("::/0")), "prefix");
  expectInvalid(RuleInfo().setIif("a:b"), "iif");
  expectInvalid(RuleInfo().setOif(std::string(16, 'x')), "oif");
  expectInvalid(RuleInfo().setAction(RuleAction::Goto), "goto needs a target");
  expectInvalid(RuleInfo().setPriority(10).setGoto(10), "forward");
  expectInvalid(RuleInfo().setAction(RuleAction::Prohibit).setTable(3), "table");
  expectInvalid(RuleInfo().setTable(0u), "table 0");
  expectInvalid(RuleInfo().setSport(10, 5), "sport");
  expectInvalid(RuleInfo().setIpProto(1).setDport(80, 80), "ports");
  expectInvalid(RuleInfo().setFamily(IpAddress::Family::v6).setSuppressPrefixLength(129), "suppress_prefixlength");
  RuleInfo maskOnly;
  maskOnly.fwmask = 0xff;
  expectInvalid(maskOnly, "fwmark");
  EXPECT_THROW(RuleInfo().setTable("no-such-table"), Error);
  EXPECT_EQ(RuleInfo().setTable("main").table, 254u);
  EXPECT_EQ(RuleInfo().setTable("1234").table, 1234u);
}

// ---- multicast rules (ip mrule): the same header and attributes, family RTNL_FAMILY_IPMR/IP6MR ----

TEST(RuleGolden, MulticastAddAsIpMrule) {
  // ip mrule add pref 100 iif d0 oif d1 fwmark 0x10/0xff lookup 200 (strace of ip 6.1: family
  // 0x80, table 200 in the header, FR_ACT_TO_TBL; the attributes in fastlink's order).
  Request r = RuleRequests::add(RuleInfo().setMulticast(true).setPriority(100).setIif("d0").setOif("d1").setFwmark(0x10, 0xff).setTable(200));
  Bytes expected = test::netlinkMessage(
      RTM_NEWRULE, kAdd, frh(RTNL_FAMILY_IPMR, 0, 0, 0, 200, FR_ACT_TO_TBL),
      Attrs().u32(FRA_PRIORITY, 100).u32(FRA_FWMARK, 0x10).u32(FRA_FWMASK, 0xff).str(FRA_IIFNAME, "d0").str(FRA_OIFNAME, "d1"));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
  EXPECT_EQ(r.operation(), "mrule add pref 100 fwmark 16 iif d0 oif d1 lookup 200");
}

TEST(RuleGolden, MulticastIpv6DelAndDump) {
  // ip -6 mrule del pref 100: family 0x81, only the priority.
  Request r = RuleRequests::del(RuleInfo().setMulticast(true).setFamily(IpAddress::Family::v6).setPriority(100));
  EXPECT_TRUE(sameBytes(r.bytes(), test::netlinkMessage(RTM_DELRULE, NLM_F_REQUEST, frh(RTNL_FAMILY_IP6MR, 0, 0, 0, 0, 0),
                                                        Attrs().u32(FRA_PRIORITY, 100))));
  EXPECT_EQ(r.operation(), "-6 mrule del pref 100");
  core::MessageWriter w(RTM_GETRULE, 0);
  rtnl::encodeRuleDump(w, IpAddress::Family::v6, true);
  EXPECT_TRUE(sameBytes(w.bytes(), test::netlinkMessage(RTM_GETRULE, NLM_F_REQUEST, frh(RTNL_FAMILY_IP6MR, 0, 0, 0, 0, 0), Attrs())));
  core::MessageWriter v4(RTM_GETRULE, 0);
  rtnl::encodeRuleDump(v4, IpAddress::Family::v4, true);
  EXPECT_TRUE(sameBytes(v4.bytes(), test::netlinkMessage(RTM_GETRULE, NLM_F_REQUEST, frh(RTNL_FAMILY_IPMR, 0, 0, 0, 0, 0), Attrs())));
}

TEST(RuleGolden, MulticastDecodeKernelReply) {
  // The kernel's report of ipmr's default rule (recvmsg of `ip mrule show`, Linux 6.18).
  Bytes reply = test::netlinkMessage(RTM_NEWRULE, NLM_F_MULTI, frh(RTNL_FAMILY_IPMR, 0, 0, 0, RT_TABLE_DEFAULT, FR_ACT_TO_TBL),
                                     Attrs()
                                         .u32(FRA_TABLE, RT_TABLE_DEFAULT)
                                         .u32(FRA_SUPPRESS_PREFIXLEN, 0xffffffff)
                                         .u8(FRA_PROTOCOL, RTPROT_KERNEL)
                                         .u32(FRA_PRIORITY, 32767));
  AlignedMessage m(reply);
  RuleInfo r = rtnl::decodeRule(m.as<nlmsghdr>());
  EXPECT_TRUE(r.multicast);
  EXPECT_EQ(r.family, IpAddress::Family::v4);
  EXPECT_EQ(r.priority, 32767u);
  EXPECT_EQ(r.table, unsigned{RT_TABLE_DEFAULT});
  EXPECT_EQ(r.protocol, RTPROT_KERNEL);
  EXPECT_FALSE(r.suppressPrefixLength);

  Bytes v6 = test::netlinkMessage(RTM_NEWRULE, NLM_F_MULTI, frh(RTNL_FAMILY_IP6MR, 0, 0, 0, RT_TABLE_MAIN, FR_ACT_TO_TBL),
                                  Attrs().u32(FRA_PRIORITY, 32767));
  AlignedMessage m6(v6);
  RuleInfo r6 = rtnl::decodeRule(m6.as<nlmsghdr>());
  EXPECT_TRUE(r6.multicast);
  EXPECT_EQ(r6.family, IpAddress::Family::v6);

  // A family fib_rules does not have (DECnet's 12, removed) is malformed, named.
  Bytes other = test::netlinkMessage(RTM_NEWRULE, NLM_F_MULTI, frh(12, 0, 0, 0, 0, FR_ACT_TO_TBL), Attrs());
  AlignedMessage mo(other);
  try {
    rtnl::decodeRule(mo.as<nlmsghdr>());
    ADD_FAILURE() << "family 12 decoded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("rule of family 12"), std::string::npos) << e.what();
  }
}

TEST(RuleGolden, MulticastRefusesAddressesAndTos) {
  // ipmr/ip6mr rules keep no addresses and no tos: the kernel would accept and drop them.
  for (const RuleInfo& r : {RuleInfo().setMulticast(true).setSrc(Prefix::parse("10.0.0.0/8")),
                            RuleInfo().setMulticast(true).setDst(Prefix::parse("239.0.0.0/8")),
                            RuleInfo().setMulticast(true).setTos(0x10)}) {
    try {
      RuleRequests::add(r);
      ADD_FAILURE() << "a multicast rule with an address or tos was encoded";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), std::errc::invalid_argument);
      EXPECT_NE(std::string(e.what()).find("multicast rule matches no"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace fastlink
