// core::MessageWriter: exact bytes of every putter, nests, cancelNest, string padding, and
// overflow (an error, never a truncated message).
#include <gtest/gtest.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <cstring>
#include <string>

#include "core/message.hpp"
#include "fastlink/error.hpp"
#include "unit/golden.hpp"

namespace fastlink::core {
namespace {

using test::Attrs;
using test::Bytes;
using test::sameBytes;

Bytes expectMessage(uint16_t type, uint16_t flags, const Attrs& attrs) {
  return test::netlinkMessage(type, flags, attrs.bytes());
}

TEST(MessageWriter, EmptyMessageIsJustTheHeader) {
  MessageWriter w(RTM_GETLINK, NLM_F_DUMP);
  // nlmsg_flags always carries NLM_F_REQUEST; seq and pid stay 0 until the engine stamps them.
  const uint8_t expected[] = {
      0x10, 0x00, 0x00, 0x00,  // nlmsg_len 16
      0x12, 0x00,              // RTM_GETLINK (18)
      0x01, 0x03,              // NLM_F_REQUEST | NLM_F_DUMP (0x301)
      0x00, 0x00, 0x00, 0x00,  // seq
      0x00, 0x00, 0x00, 0x00,  // pid
  };
  EXPECT_TRUE(sameBytes(w.bytes(), expected));
  EXPECT_EQ(w.size(), 16u);
}

TEST(MessageWriter, FamilyHeaderIsZeroFilled) {
  MessageWriter w(RTM_NEWLINK, 0);
  auto& ifi = w.putHeader<ifinfomsg>();
  EXPECT_EQ(ifi.ifi_index, 0);
  EXPECT_EQ(ifi.ifi_flags, 0u);
  EXPECT_EQ(w.size(), 32u);
  EXPECT_TRUE(sameBytes(w.bytes(), test::linkMessage(RTM_NEWLINK, NLM_F_REQUEST, {})));
}

TEST(MessageWriter, IntegerPuttersAreHostOrderExceptBe16) {
  MessageWriter w(RTM_NEWLINK, 0);
  w.putU8(1, 0xab);
  w.putU16(2, 0x1234);
  w.putU32(3, 0xdeadbeef);
  w.putS32(4, -2);
  w.putU64(5, 0x0102030405060708ull);
  w.putBe16(6, 0x1234);
  w.putFlag(7);
  Attrs a = Attrs()
                .raw(1, {0xab})
                .raw(2, {0x34, 0x12})
                .raw(3, {0xef, 0xbe, 0xad, 0xde})
                .raw(4, {0xfe, 0xff, 0xff, 0xff})
                .raw(5, {0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01})
                .raw(6, {0x12, 0x34})
                .flag(7);
  EXPECT_TRUE(sameBytes(w.bytes(), expectMessage(RTM_NEWLINK, NLM_F_REQUEST, a)));
}

TEST(MessageWriter, PutStringAddsNulAndZeroPadding) {
  MessageWriter w(RTM_NEWLINK, 0);
  w.putString(1, "");      // len 5: just the NUL, padded to 8
  w.putString(2, "abc");   // len 8: no padding needed
  w.putString(3, "abcd");  // len 9: padded to 12
  const uint8_t expected[] = {
      0x2c, 0x00, 0x00, 0x00, 0x10, 0x00, 0x01, 0x00, 0, 0, 0, 0, 0, 0, 0, 0,  // nlmsghdr, len 44
      0x05, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,                          // ""
      0x08, 0x00, 0x02, 0x00, 'a',  'b',  'c',  0x00,                          // "abc"
      0x09, 0x00, 0x03, 0x00, 'a',  'b',  'c',  'd',  0x00, 0x00, 0x00, 0x00,  // "abcd"
  };
  EXPECT_TRUE(sameBytes(w.bytes(), expected));
}

TEST(MessageWriter, PaddingIsZeroEvenWhenTheBufferWasDirty) {
  // A writer's buffer comes from the heap; fill the heap chunk with 0xff first (the allocator
  // hands the same chunk to the next writer of the same size) so unzeroed padding shows up.
  {
    MessageWriter dirty(RTM_NEWLINK, 0);
    std::vector<uint8_t> ff(MessageWriter::kMaxAttribute - 4, 0xff);
    dirty.putBytes(1, ff);
  }
  MessageWriter w(RTM_NEWLINK, 0);
  w.putU8(1, 1);
  w.putU16(2, 2);
  w.putBytes(3, std::vector<uint8_t>{1, 2, 3, 4, 5});
  w.putBe16(4, 0x8100);
  Attrs a = Attrs().u8(1, 1).u16(2, 2).raw(3, {1, 2, 3, 4, 5}).be16(4, 0x8100);
  EXPECT_TRUE(sameBytes(w.bytes(), expectMessage(RTM_NEWLINK, NLM_F_REQUEST, a)));
}

TEST(MessageWriter, EveryShortLengthOverDirtyBytesIsExactAndZeroPadded) {
  // The puts copy short payloads with overlapping word moves and zero the last word before
  // writing (no memcpy/memset call per attribute): every length from 0 to 20, put where a
  // cancelled nest left 0xff bytes inside the buffer, must give exact bytes and zero padding.
  MessageWriter w(RTM_NEWLINK, 0);
  Attrs a;
  for (uint16_t len = 0; len <= 20; ++len) {
    std::size_t nest = w.beginNest(99);
    w.putBytes(98, std::vector<uint8_t>(64, 0xff));
    w.cancelNest(nest);
    Bytes payload(len);
    for (uint16_t i = 0; i < len; ++i) payload[i] = static_cast<uint8_t>(0x10 + i);
    w.putBytes(len, payload);
    a.raw(len, payload);
    nest = w.beginNest(99);
    w.putBytes(98, std::vector<uint8_t>(64, 0xff));
    w.cancelNest(nest);
    std::string text(len, 'a');
    w.putString(100 + len, text);
    a.str(static_cast<uint16_t>(100 + len), text);
  }
  EXPECT_TRUE(sameBytes(w.bytes(), expectMessage(RTM_NEWLINK, NLM_F_REQUEST, a)));
}

TEST(MessageWriter, NestsSetLengthAndNestedFlag) {
  MessageWriter w(RTM_NEWLINK, 0);
  std::size_t outer = w.beginNest(18);
  w.putString(1, "vlan");
  std::size_t inner = w.beginNest(2);
  w.putU16(1, 100);
  w.endNest(inner);
  w.endNest(outer);
  w.putU32(4, 1500);
  Attrs a = Attrs().nest(18, Attrs().str(1, "vlan").nest(2, Attrs().u16(1, 100))).u32(4, 1500);
  EXPECT_TRUE(sameBytes(w.bytes(), expectMessage(RTM_NEWLINK, NLM_F_REQUEST, a)));
}

TEST(MessageWriter, EmptyNest) {
  MessageWriter w(RTM_NEWLINK, 0);
  w.endNest(w.beginNest(5));
  EXPECT_TRUE(sameBytes(w.bytes(), expectMessage(RTM_NEWLINK, NLM_F_REQUEST, Attrs().nest(5, Attrs()))));
}

TEST(MessageWriter, CancelNestDropsEverythingPutInIt) {
  MessageWriter w(RTM_NEWLINK, 0);
  w.putU32(1, 7);
  std::size_t outer = w.beginNest(2);
  w.putString(3, "dropped");
  std::size_t inner = w.beginNest(4);
  w.putU64(5, 1);
  w.endNest(inner);
  w.cancelNest(outer);
  w.putU32(6, 8);  // continues where the cancelled nest began
  EXPECT_TRUE(sameBytes(w.bytes(), expectMessage(RTM_NEWLINK, NLM_F_REQUEST, Attrs().u32(1, 7).u32(6, 8))));
}

TEST(MessageWriter, CancelInnerNestKeepsOuter) {
  MessageWriter w(RTM_NEWLINK, 0);
  std::size_t outer = w.beginNest(1);
  w.putU8(2, 9);
  std::size_t inner = w.beginNest(3);
  w.putU32(4, 1);
  w.cancelNest(inner);
  w.endNest(outer);
  EXPECT_TRUE(sameBytes(w.bytes(), expectMessage(RTM_NEWLINK, NLM_F_REQUEST, Attrs().nest(1, Attrs().u8(2, 9)))));
}

bool throwsMessageSize(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code() == std::errc::message_size;
  }
  return false;
}

TEST(MessageWriter, AttributeFillsItsSixteenBitLengthThenThrows) {
  MessageWriter w(RTM_NEWLINK, 0);
  // 4 (nlattr) + payload == 65535: the largest length nla_len can say.
  std::vector<uint8_t> big(MessageWriter::kMaxAttribute - 4, 0x5a);
  w.putBytes(1, big);
  EXPECT_EQ(w.size(), 16u + ((MessageWriter::kMaxAttribute + 3) & ~3u));
  std::vector<uint8_t> tooBig(MessageWriter::kMaxAttribute - 3, 0x5a);
  std::size_t before = w.size();
  EXPECT_TRUE(throwsMessageSize([&] { w.putBytes(2, tooBig); }));
  EXPECT_TRUE(throwsMessageSize([&] { w.putString(2, std::string(MessageWriter::kMaxAttribute - 4, 'x')); }));
  EXPECT_EQ(w.size(), before);
  EXPECT_TRUE(sameBytes(w.bytes(), expectMessage(RTM_NEWLINK, NLM_F_REQUEST, Attrs().raw(1, big))));
}

TEST(MessageWriter, MessageGrowsPastSixtyFourKiB) {
  // The old writer stopped at 32 KiB; a message may be larger than one attribute can be.
  MessageWriter w(RTM_NEWLINK, 0);
  Attrs expected;
  for (uint16_t i = 1; i <= 5; ++i) {
    std::vector<uint8_t> chunk(30000, static_cast<uint8_t>(i));
    w.putBytes(i, chunk);
    expected.raw(i, chunk);
  }
  EXPECT_EQ(w.size(), 16u + 5 * 30004u);
  EXPECT_TRUE(sameBytes(w.bytes(), expectMessage(RTM_NEWLINK, NLM_F_REQUEST, expected)));
}

TEST(MessageWriter, NestLargerThanSixtyFourKiBThrowsAtEnd) {
  MessageWriter w(RTM_NEWLINK, 0);
  std::size_t nest = w.beginNest(1);
  w.putBytes(1, std::vector<uint8_t>(40000, 1));
  w.putBytes(2, std::vector<uint8_t>(40000, 2));
  EXPECT_TRUE(throwsMessageSize([&] { w.endNest(nest); }));
  w.cancelNest(nest);
  EXPECT_EQ(w.size(), 16u);
}

TEST(MessageWriter, MessageLimitStillHolds) {
  MessageWriter w(RTM_NEWLINK, 0);
  std::vector<uint8_t> chunk(MessageWriter::kMaxAttribute - 4, 0);
  EXPECT_TRUE(throwsMessageSize([&] {
    for (uint16_t i = 0; i < 100; ++i) w.putBytes(1, chunk);
  }));
  EXPECT_LE(w.size(), MessageWriter::kMaxMessage);
}

TEST(MessageWriter, OversizedPayloadThrows) {
  MessageWriter w(RTM_NEWLINK, 0);
  w.putU32(1, 1);
  std::vector<uint8_t> huge(70000, 1);  // would overflow the 16-bit nla_len
  EXPECT_TRUE(throwsMessageSize([&] { w.putBytes(2, huge); }));
  EXPECT_TRUE(sameBytes(w.bytes(), expectMessage(RTM_NEWLINK, NLM_F_REQUEST, Attrs().u32(1, 1))));
}

TEST(MessageWriter, OverflowErrorSaysWhy) {
  MessageWriter w(RTM_NEWLINK, 0);
  try {
    w.putBytes(1, std::vector<uint8_t>(MessageWriter::kMaxAttribute, 0));
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::message_size);
    EXPECT_EQ(e.extack(), "attribute larger than 65535 bytes");
    EXPECT_EQ(e.operation(), "encode request");
  }
}

TEST(MessageWriter, ToRequestMovesTheBufferAndKeepsTheOperation) {
  MessageWriter w(RTM_DELLINK, 0);
  w.putHeader<ifinfomsg>().ifi_index = 3;
  std::vector<uint8_t> expected(w.bytes().begin(), w.bytes().end());
  const uint8_t* storage = w.bytes().data();
  Request r = w.toRequest("link del dev ifindex 3");
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
  EXPECT_EQ(r.bytes().data(), storage);  // moved, not copied
  EXPECT_EQ(r.operation(), "link del dev ifindex 3");
  EXPECT_EQ(r.messageCount(), 1u);
}

TEST(MessageWriter, LazyDescriptionIsFormattedOnceAndOnlyWhenRead) {
  MessageWriter w(RTM_DELLINK, 0);
  w.putHeader<ifinfomsg>().ifi_index = 3;
  int calls = 0;
  Request r = w.toRequest([&calls] {
    ++calls;
    return std::string("link del dev ifindex 3");
  });
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(r.operation(), "link del dev ifindex 3");
  EXPECT_EQ(r.operation(), "link del dev ifindex 3");
  EXPECT_EQ(calls, 1);
  r.setOperation("line 7");
  EXPECT_EQ(r.operation(), "line 7");
}

}  // namespace
}  // namespace fastlink::core
