// core::AttrTable and the typed readers on well-formed, truncated and overlong attributes.
// Payloads live in exactly-sized heap buffers so a sanitizer build (-DFASTLINK_SANITIZE=ON)
// catches any read past the end.
#include <gtest/gtest.h>
#include <linux/netlink.h>

#include <memory>

#include "core/message.hpp"
#include "fastlink/error.hpp"
#include "unit/golden.hpp"

namespace fastlink::core {
namespace {

using test::Attrs;
using test::Bytes;

/// An exactly-sized copy of some bytes (operator new aligns it for nlattr).
class Payload {
 public:
  explicit Payload(const Bytes& b) : size_(b.size()), data_(new uint8_t[b.size()]) {
    if (size_) std::memcpy(data_.get(), b.data(), size_);
  }
  std::span<const uint8_t> span() const { return {data_.get(), size_}; }

 private:
  std::size_t size_;
  std::unique_ptr<uint8_t[]> data_;
};

TEST(AttrTable, IndexesByTypeAndKeepsOrder) {
  Payload p(Attrs().u32(3, 30).u8(1, 10).str(2, "two").u16(9, 90).bytes());
  AttrTable t(p.span(), 3);
  ASSERT_EQ(t.all().size(), 4u);
  EXPECT_EQ(attrType(t.all()[0]), 3);
  EXPECT_EQ(attrType(t.all()[3]), 9);  // above maxType: only in all()
  EXPECT_EQ(readU8(t.get(1)), 10);
  EXPECT_EQ(readString(t.get(2)), "two");
  EXPECT_EQ(readU32(t.get(3)), 30u);
  EXPECT_EQ(t.get(0), nullptr);
  EXPECT_EQ(t.get(9), nullptr);
  EXPECT_EQ(t.get(500), nullptr);
  EXPECT_FALSE(t.has(0));
  EXPECT_TRUE(t.has(3));
}

TEST(AttrTable, LastDuplicateWinsLikeTheKernel) {
  Payload p(Attrs().u32(1, 1).u32(1, 2).bytes());
  AttrTable t(p.span(), 1);
  EXPECT_EQ(t.all().size(), 2u);
  EXPECT_EQ(readU32(t.get(1)), 2u);
}

TEST(AttrTable, NestedAndByteOrderBitsAreNotPartOfTheType) {
  Payload p(Attrs().nest(2, Attrs().u8(1, 5)).raw(0x4000 | 3, {0, 1}).bytes());
  AttrTable t(p.span(), 3);
  ASSERT_NE(t.get(2), nullptr);
  ASSERT_NE(t.get(3), nullptr);
  EXPECT_EQ(attrType(t.get(2)), 2);
  AttrTable inner = AttrTable::ofNest(t.get(2), 1);
  EXPECT_EQ(readU8(inner.get(1)), 5);
}

TEST(AttrTable, EmptyPayload) {
  AttrTable t({}, 5);
  EXPECT_TRUE(t.all().empty());
}

TEST(AttrTable, StopsAtAnAttributeLongerThanWhatIsLeft) {
  Bytes b = Attrs().u32(1, 7).bytes();
  Bytes overlong = {0xff, 0xff, 0x02, 0x00, 1, 2, 3, 4};  // claims 65535 bytes
  b.insert(b.end(), overlong.begin(), overlong.end());
  Bytes after = Attrs().u32(3, 9).bytes();
  b.insert(b.end(), after.begin(), after.end());
  Payload p(b);
  AttrTable t(p.span(), 3);
  ASSERT_EQ(t.all().size(), 1u);  // the parse stops: what follows cannot be trusted
  EXPECT_EQ(readU32(t.get(1)), 7u);
  EXPECT_FALSE(t.has(2));
  EXPECT_FALSE(t.has(3));
}

TEST(AttrTable, StopsAtALengthBelowTheHeader) {
  for (uint8_t len : {0, 1, 2, 3}) {
    SCOPED_TRACE(int(len));
    Bytes b = Attrs().u8(1, 1).bytes();
    Bytes bad = {len, 0, 2, 0, 0, 0, 0, 0};  // would loop forever if taken as a length
    b.insert(b.end(), bad.begin(), bad.end());
    Payload p(b);
    AttrTable t(p.span(), 2);
    EXPECT_EQ(t.all().size(), 1u);
  }
}

TEST(AttrTable, TruncatedHeaderAtTheEnd) {
  Bytes b = Attrs().u16(1, 1).bytes();
  b.push_back(8);
  b.push_back(0);  // half an attribute header
  Payload p(b);
  AttrTable t(p.span(), 2);
  EXPECT_EQ(t.all().size(), 1u);
}

TEST(AttrTable, UnpaddedLastAttributeIsAccepted) {
  // The last attribute's padding may be missing from the buffer (nlmsg_len without padding).
  Bytes b = Attrs().u32(1, 1).bytes();
  Bytes last = {5, 0, 2, 0, 0x42};
  b.insert(b.end(), last.begin(), last.end());
  Payload p(b);
  AttrTable t(p.span(), 2);
  ASSERT_EQ(t.all().size(), 2u);
  EXPECT_EQ(readU8(t.get(2)), 0x42);
}

TEST(AttrTable, OfMessageSkipsTheFamilyHeader) {
  Bytes m = test::linkMessage(16, 0, test::Ifinfo{.index = 4}, Attrs().u32(4, 1500));
  test::AlignedMessage a(m);
  AttrTable t = AttrTable::ofMessage(a.as<nlmsghdr>(), 16, 10);
  ASSERT_EQ(t.all().size(), 1u);
  EXPECT_EQ(readU32(t.get(4)), 1500u);
}

TEST(AttrTable, OfMessageShorterThanItsHeaderIsEmpty) {
  Bytes m = test::netlinkMessage(16, 0, Bytes(8, 0));  // 8 of the 16 ifinfomsg bytes
  test::AlignedMessage a(m);
  EXPECT_TRUE(AttrTable::ofMessage(a.as<nlmsghdr>(), 16, 10).all().empty());
}

// ---- typed readers ---------------------------------------------------------------------------

bool throwsMalformed(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code() == make_error_code(Errc::malformed_reply);
  }
  return false;
}

TEST(Readers, ReadValuesOfTheRightSize) {
  Payload p(Attrs()
                .u8(1, 0xfe)
                .u16(2, 0xbeef)
                .u32(3, 0xcafef00d)
                .u32(4, 0xfffffffe)
                .u64(5, 0x1122334455667788ull)
                .raw(6, {0x88, 0xa8})
                .raw(7, {1, 2, 3})
                .bytes());
  AttrTable t(p.span(), 7);
  EXPECT_EQ(readU8(t.get(1)), 0xfe);
  EXPECT_EQ(readU16(t.get(2)), 0xbeef);
  EXPECT_EQ(readU32(t.get(3)), 0xcafef00du);
  EXPECT_EQ(readS32(t.get(4)), -2);
  EXPECT_EQ(readU64(t.get(5)), 0x1122334455667788ull);  // only 4-byte aligned in the buffer
  EXPECT_EQ(readBe16(t.get(6)), 0x88a8);
  auto bytes = readBytes(t.get(7));
  EXPECT_EQ(Bytes(bytes.begin(), bytes.end()), (Bytes{1, 2, 3}));
}

TEST(Readers, TooShortPayloadsThrowMalformedReply) {
  Payload p(Attrs().flag(1).raw(2, {1}).raw(3, {1, 2}).raw(4, {1, 2, 3, 4}).bytes());
  AttrTable t(p.span(), 4);
  EXPECT_TRUE(throwsMalformed([&] { readU8(t.get(1)); }));
  EXPECT_TRUE(throwsMalformed([&] { readU16(t.get(2)); }));
  EXPECT_TRUE(throwsMalformed([&] { readBe16(t.get(2)); }));
  EXPECT_TRUE(throwsMalformed([&] { readU32(t.get(3)); }));
  EXPECT_TRUE(throwsMalformed([&] { readS32(t.get(3)); }));
  EXPECT_TRUE(throwsMalformed([&] { readU64(t.get(4)); }));
  EXPECT_EQ(readBytes(t.get(1)).size(), 0u);
  EXPECT_EQ(readString(t.get(1)), "");
}

TEST(Readers, LongerPayloadsReadTheirPrefix) {
  Payload p(Attrs().raw(1, {7, 0, 0, 0, 0, 0, 0, 0}).bytes());
  AttrTable t(p.span(), 1);
  EXPECT_EQ(readU8(t.get(1)), 7);
  EXPECT_EQ(readU32(t.get(1)), 7u);
}

TEST(Readers, StringWithoutNulStopsAtThePayloadEnd) {
  Payload p(Attrs().raw(1, {'e', 't', 'h', '0'}).raw(2, {'x', 0, 'y'}).bytes());
  AttrTable t(p.span(), 2);
  EXPECT_EQ(readString(t.get(1)), "eth0");
  EXPECT_EQ(readString(t.get(2)), "x");
}

TEST(Readers, MalformedErrorNamesTheType) {
  Payload p(Attrs().raw(1, {1}).bytes());
  AttrTable t(p.span(), 1);
  try {
    readU32(t.get(1));
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.extack(), "attribute too short for u32");
  }
}

}  // namespace
}  // namespace fastlink::core
