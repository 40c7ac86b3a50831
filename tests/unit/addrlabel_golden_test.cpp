// Golden bytes for address labels: every request builder against a message laid out by hand,
// and the decoder against replies laid out as the kernel's ip6addrlbl_fill does. Numbers written
// out from the uapi (include/uapi/linux/rtnetlink.h, if_addrlabel.h), not taken from the headers:
//   RTM_NEWADDRLABEL 72, RTM_DELADDRLABEL 73, RTM_GETADDRLABEL 74
//   ifaddrlblmsg = family:u8 __res:u8 prefixlen:u8 flags:u8 index:u32 seq:u32 (12 bytes)
//   IFAL_ADDRESS 1 (in6_addr), IFAL_LABEL 2 (u32)
//   NLM_F_REQUEST 0x1, NLM_F_EXCL 0x200, NLM_F_CREATE 0x400, NLM_F_DUMP 0x300
#include <gtest/gtest.h>
#include <linux/netlink.h>

#include "fastlink/addrlabel.hpp"
#include "fastlink/error.hpp"
#include "unit/golden.hpp"

namespace fastlink {
namespace {

using test::AlignedMessage;
using test::Attrs;
using test::Bytes;
using test::sameBytes;

Bytes header(uint8_t family, uint8_t prefixlen, uint32_t index, uint32_t seq = 0) {
  Bytes b{family, 0, prefixlen, 0};
  test::appendLe32(b, index);
  test::appendLe32(b, seq);
  return b;
}

const Bytes kDb8{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};

TEST(AddrLabelGolden, AddIsCreateExclusiveWithLabelThenAddress) {
  AddrLabelInfo e{.prefix = Prefix::parse("2001:db8::/32"), .ifindex = 5, .label = 100};
  Request r = AddrLabelRequests::add(e);
  EXPECT_TRUE(sameBytes(r.bytes(), test::netlinkMessage(72, 0x1 | 0x400 | 0x200, header(10, 32, 5),
                                                        Attrs().u32(2, 100).raw(1, kDb8))));
  EXPECT_EQ(r.operation(), "addrlabel add prefix 2001:db8::/32 dev 5 label 100");
}

TEST(AddrLabelGolden, DeleteCarriesTheSameFieldsWithoutCreateFlags) {
  AddrLabelInfo e{.prefix = Prefix::parse("2001:db8::/32"), .label = 7};
  EXPECT_TRUE(sameBytes(AddrLabelRequests::del(e).bytes(),
                        test::netlinkMessage(73, 0x1, header(10, 32, 0), Attrs().u32(2, 7).raw(1, kDb8))));
  // An IPv4 prefix goes as typed (4 bytes), in the family the caller chose: the kernel decides.
  AddrLabelInfo v4{.prefix = Prefix::parse("10.0.0.0/8"), .label = 3, .family = AddrLabelFamily::Inet};
  EXPECT_TRUE(sameBytes(AddrLabelRequests::del(v4).bytes(),
                        test::netlinkMessage(73, 0x1, header(2, 8, 0), Attrs().u32(2, 3).raw(1, {10, 0, 0, 0}))));
}

TEST(AddrLabelGolden, ListIsADumpOfTheFamily) {
  EXPECT_TRUE(sameBytes(AddrLabelRequests::list().bytes(), test::netlinkMessage(74, 0x301, header(10, 0, 0), Attrs())));
  EXPECT_TRUE(sameBytes(AddrLabelRequests::list(AddrLabelFamily::Inet).bytes(),
                        test::netlinkMessage(74, 0x301, header(2, 0, 0), Attrs())));
}

TEST(AddrLabelDecode, EntriesAsTheKernelFillsThem) {
  // ip6addrlbl_fill: header (seq = the table's generation), IFAL_ADDRESS, IFAL_LABEL.
  AlignedMessage m(test::netlinkMessage(72, NLM_F_MULTI, header(10, 32, 4, 9), Attrs().raw(1, kDb8).u32(2, 100)));
  EXPECT_EQ(decodeAddrLabel(m.as<nlmsghdr>()),
            (AddrLabelInfo{.prefix = Prefix::parse("2001:db8::/32"), .ifindex = 4, .label = 100}));
  Bytes loopback(16, 0);
  loopback[15] = 1;
  AlignedMessage lo(test::netlinkMessage(72, NLM_F_MULTI, header(10, 128, 0), Attrs().raw(1, loopback).u32(2, 0)));
  EXPECT_EQ(decodeAddrLabel(lo.as<nlmsghdr>()), (AddrLabelInfo{.prefix = Prefix::parse("::1/128"), .label = 0}));
}

TEST(AddrLabelDecode, MalformedRepliesAreErrorsNotGuesses) {
  auto refused = [](const Bytes& bytes) { return test::refusedAsMalformed(decodeAddrLabel, bytes); };
  EXPECT_TRUE(refused(test::netlinkMessage(72, 0, Bytes{10, 0, 32, 0}, Attrs())));  // short header
  EXPECT_TRUE(refused(test::netlinkMessage(72, 0, header(10, 32, 0), Attrs().u32(2, 1))));  // no address
  EXPECT_TRUE(refused(test::netlinkMessage(72, 0, header(10, 32, 0), Attrs().raw(1, kDb8))));  // no label
  EXPECT_TRUE(refused(test::netlinkMessage(72, 0, header(10, 129, 0), Attrs().raw(1, kDb8).u32(2, 1))));
  EXPECT_TRUE(refused(test::netlinkMessage(72, 0, header(10, 32, 0), Attrs().raw(1, {0x20, 1}).u32(2, 1))));
  EXPECT_TRUE(refused(test::netlinkMessage(72, 0, header(10, 32, 0), Attrs().raw(1, kDb8).raw(2, {1, 0}))));
}

}  // namespace
}  // namespace fastlink
