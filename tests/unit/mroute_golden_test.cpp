// Golden bytes for multicast routes: the dump request against a message laid out by hand, and
// the decoder against entries laid out as the kernel's ipmr/ip6mr fill them (mr_fill_mroute).
// Numbers written out from the uapi (include/uapi/linux/rtnetlink.h), not taken from the header:
//   RTM_NEWROUTE 24, RTM_GETROUTE 26; RTNL_FAMILY_IPMR 128, RTNL_FAMILY_IP6MR 129
//   rtmsg = family dst_len src_len tos table protocol scope type (u8 each) flags:u32 (12 bytes)
//   RTA_DST 1, RTA_SRC 2, RTA_IIF 3, RTA_MULTIPATH 9, RTA_TABLE 15, RTA_MFC_STATS 17, RTA_EXPIRES 23
//   rtnexthop = len:u16 flags:u8 hops:u8 ifindex:s32; RTNH_F_UNRESOLVED 32; RTN_MULTICAST 5
#include <gtest/gtest.h>
#include <linux/netlink.h>

#include <ostream>
#include <string>

#include "fastlink/error.hpp"
#include "fastlink/mroute.hpp"
#include "unit/golden.hpp"

namespace fastlink {

// Readable failures: the entry's fields, not its bytes.
void PrintTo(const MrouteOif& o, std::ostream* os) { *os << "oif " << o.ifindex << " ttl " << unsigned{o.ttl}; }
void PrintTo(const MrouteInfo& e, std::ostream* os) {
  *os << "family " << unsigned{e.family} << " type " << unsigned{e.type} << " flags " << e.flags << " table " << e.table
      << " src " << (e.source ? e.source->toString() : "-") << " grp " << (e.group ? e.group->toString() : "-") << " iif "
      << (e.iif ? std::to_string(*e.iif) : "-") << " oifs [";
  for (const MrouteOif& o : e.oifs) {
    PrintTo(o, os);
    *os << ";";
  }
  *os << "]";
  if (e.stats) *os << " stats " << e.stats->packets << "/" << e.stats->bytes << "/" << e.stats->wrongIf;
  if (e.lastUse) *os << " lastUse " << *e.lastUse;
}

namespace {

using test::AlignedMessage;
using test::Attrs;
using test::Bytes;
using test::sameBytes;

Bytes rtm(uint8_t family, uint8_t table, uint8_t type = 0, uint32_t flags = 0, uint8_t len = 0) {
  Bytes b{family, len, len, 0, table, 0, 0, type};
  test::appendLe32(b, flags);
  return b;
}

Bytes nexthop(uint8_t hops, int32_t ifindex) {
  Bytes b;
  test::appendLe16(b, 8);
  b.push_back(0);
  b.push_back(hops);
  test::appendLe32(b, static_cast<uint32_t>(ifindex));
  return b;
}

TEST(MrouteGolden, ListIsARouteDumpOfTheMulticastFamily) {
  EXPECT_TRUE(sameBytes(MrouteRequests::list(MrouteFamily::Ipv4).bytes(), test::netlinkMessage(26, 0x301, rtm(128, 0), Attrs())));
  EXPECT_TRUE(sameBytes(MrouteRequests::list(MrouteFamily::Ipv6, 253).bytes(),
                        test::netlinkMessage(26, 0x301, rtm(129, 0), Attrs().u32(15, 253))));
}

TEST(MrouteDecode, AResolvedAndAnUnresolvedEntry) {
  Bytes oifs = nexthop(1, 4);
  Bytes second = nexthop(3, 6);
  oifs.insert(oifs.end(), second.begin(), second.end());
  Bytes stats;
  test::appendLe64(stats, 7);
  test::appendLe64(stats, 700);
  test::appendLe64(stats, 1);
  AlignedMessage m(test::netlinkMessage(24, NLM_F_MULTI, rtm(128, 253, 5, 0, 32),
                                        Attrs()
                                            .u32(15, 253)
                                            .raw(2, {10, 0, 0, 1})
                                            .raw(1, {239, 1, 1, 1})
                                            .u32(3, 2)
                                            .raw(9, oifs)
                                            .raw(17, stats)
                                            .u64(23, 118)));
  MrouteInfo e = decodeMroute(m.as<nlmsghdr>());
  MrouteInfo want;
  want.family = 128;
  want.type = 5;
  want.table = 253;
  want.source = IpAddress::parse("10.0.0.1");
  want.group = IpAddress::parse("239.1.1.1");
  want.iif = 2;
  want.oifs = {{.ifindex = 4, .ttl = 1}, {.ifindex = 6, .ttl = 3}};
  want.stats = MrouteStats{.packets = 7, .bytes = 700, .wrongIf = 1};
  want.lastUse = 118;
  EXPECT_EQ(e, want);
  AlignedMessage u(test::netlinkMessage(24, NLM_F_MULTI, rtm(129, 254, 5, 32, 128),
                                        Attrs().raw(2, Bytes(16, 0)).raw(1, {0xff, 0x0e, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1})));
  MrouteInfo v6 = decodeMroute(u.as<nlmsghdr>());
  EXPECT_EQ(v6.flags, 32u);
  EXPECT_EQ(v6.table, 254u);
  EXPECT_EQ(v6.group, IpAddress::parse("ff0e::1"));
  EXPECT_FALSE(v6.iif);
  EXPECT_TRUE(v6.oifs.empty());
}

TEST(MrouteDecode, ANexthopThatDoesNotFitEndsTheListAsIpReadsIt) {
  Bytes oifs = nexthop(1, 4);
  oifs.push_back(40);  // a second record whose length runs past the attribute
  oifs.insert(oifs.end(), {0, 0, 1, 5, 0, 0, 0});
  AlignedMessage m(test::netlinkMessage(24, 0, rtm(128, 253, 5), Attrs().raw(9, oifs)));
  EXPECT_EQ(decodeMroute(m.as<nlmsghdr>()).oifs, (std::vector<MrouteOif>{{.ifindex = 4, .ttl = 1}}));
}

TEST(MrouteDecode, MalformedMessagesAreErrors) {
  auto refused = [](const Bytes& bytes) { return test::refusedAsMalformed(decodeMroute, bytes); };
  EXPECT_TRUE(refused(test::netlinkMessage(24, 0, Bytes{128, 32, 32, 0}, Attrs())));                    // short rtmsg
  EXPECT_TRUE(refused(test::netlinkMessage(24, 0, rtm(128, 253, 5), Attrs().raw(2, {10, 0}))));          // short source
  EXPECT_TRUE(refused(test::netlinkMessage(24, 0, rtm(128, 253, 5), Attrs().raw(17, Bytes(16, 0)))));    // short stats
  EXPECT_TRUE(refused(test::netlinkMessage(24, 0, rtm(128, 253, 5), Attrs().raw(23, {1, 2}))));          // short expires
}

}  // namespace
}  // namespace fastlink
