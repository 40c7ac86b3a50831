// Golden bytes for IPv6 tokens: the set request and the AF_INET6 link dump against messages laid
// out by hand, and the decoder against the records inet6_fill_ifinfo sends. Numbers written out
// from the uapi (include/uapi/linux/rtnetlink.h, if_link.h), not taken from the headers:
//   RTM_GETLINK 18, RTM_SETLINK 19; AF_INET6 10
//   ifinfomsg = family:u8 pad:u8 type:u16 index:s32 flags:u32 change:u32 (16 bytes)
//   IFLA_IFNAME 3, IFLA_PROTINFO 12, IFLA_AF_SPEC 26; IFLA_INET6_FLAGS 1, IFLA_INET6_TOKEN 7
//   NLM_F_REQUEST 0x1, NLM_F_DUMP 0x300; NLA_F_NESTED 0x8000
#include <gtest/gtest.h>
#include <linux/netlink.h>

#include "fastlink/error.hpp"
#include "fastlink/token.hpp"
#include "unit/golden.hpp"

namespace fastlink {
namespace {

using test::AlignedMessage;
using test::Attrs;
using test::Bytes;
using test::sameBytes;

Bytes ifinfo(int32_t index, uint32_t flags = 0) {
  test::Ifinfo i;
  i.family = 10;
  i.index = index;
  i.flags = flags;
  return i.bytes();
}

const Bytes kToken{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x1a};

TEST(TokenGolden, SetNestsTheTokenInTheInet6AfSpec) {
  Request r = TokenRequests::set(4, IpAddress::parse("::1a"));
  EXPECT_TRUE(sameBytes(r.bytes(), test::netlinkMessage(19, 0x1, ifinfo(4), Attrs().nest(26, Attrs().nest(10, Attrs().raw(7, kToken))))));
  EXPECT_EQ(r.operation(), "token set ::1a dev 4");
  EXPECT_THROW(TokenRequests::set(4, IpAddress::parse("10.0.0.1")), Error);
}

TEST(TokenGolden, ListIsAnInet6LinkDump) {
  EXPECT_TRUE(sameBytes(TokenRequests::list().bytes(), test::netlinkMessage(18, 0x301, ifinfo(0), Attrs())));
}

TEST(TokenDecode, TheTokenOfTheProtinfoNest) {
  // inet6_fill_ifinfo: IFNAME, ..., PROTINFO { FLAGS, ..., TOKEN, ... } (a nest without the flag).
  AlignedMessage m(test::netlinkMessage(
      16, NLM_F_MULTI, ifinfo(4, 0x1003),
      Attrs().raw(3, {'v', '0', 0}).nestNoFlag(12, Attrs().u32(1, 0x80000000).raw(7, kToken).u8(8, 0))));
  EXPECT_EQ(decodeToken(m.as<nlmsghdr>()), (TokenInfo{.ifindex = 4, .flags = 0x1003, .token = IpAddress::parse("::1a")}));
  AlignedMessage none(test::netlinkMessage(16, NLM_F_MULTI, ifinfo(5), Attrs().raw(3, {'v', '1', 0})));
  EXPECT_EQ(decodeToken(none.as<nlmsghdr>()), (TokenInfo{.ifindex = 5}));
}

TEST(TokenDecode, MalformedRecordsAreErrors) {
  auto refused = [](const Bytes& bytes) { return test::refusedAsMalformed(decodeToken, bytes); };
  EXPECT_TRUE(refused(test::netlinkMessage(16, 0, Bytes{10, 0, 0, 0, 4, 0, 0, 0}, Attrs())));  // short ifinfomsg
  EXPECT_TRUE(refused(test::netlinkMessage(16, 0, ifinfo(4), Attrs().nestNoFlag(12, Attrs().raw(7, {0, 0, 0, 1})))));
}

}  // namespace
}  // namespace fastlink
