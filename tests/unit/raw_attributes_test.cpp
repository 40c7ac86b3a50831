// RawAttributes: what decoders keep of attributes they do not know, byte for byte.
#include <gtest/gtest.h>

#include <numeric>

#include "fastlink/error.hpp"
#include "fastlink/link.hpp"

namespace fastlink {
namespace {

using Bytes = std::vector<uint8_t>;

Bytes iota(std::size_t n, uint8_t first = 1) {
  Bytes b(n);
  std::iota(b.begin(), b.end(), first);
  return b;
}

Bytes payloadOf(const RawAttribute& a) { return Bytes(a.payload.begin(), a.payload.end()); }

TEST(RawAttributes, EmptyByDefault) {
  RawAttributes r;
  EXPECT_TRUE(r.empty());
  EXPECT_EQ(r.count(), 0u);
  EXPECT_TRUE(r.list().empty());
  EXPECT_FALSE(r.find(1).has_value());
}

TEST(RawAttributes, RoundTripsOddSizesInOrder) {
  RawAttributes r;
  const std::size_t sizes[] = {0, 1, 2, 3, 4, 5, 7, 8, 13};
  uint16_t type = 100;
  for (std::size_t n : sizes) r.append(type++, iota(n, static_cast<uint8_t>(n)));
  EXPECT_FALSE(r.empty());
  ASSERT_EQ(r.count(), std::size(sizes));
  auto list = r.list();
  ASSERT_EQ(list.size(), std::size(sizes));
  for (std::size_t i = 0; i < list.size(); ++i) {
    SCOPED_TRACE(sizes[i]);
    EXPECT_EQ(list[i].type, 100 + i);
    EXPECT_EQ(payloadOf(list[i]), iota(sizes[i], static_cast<uint8_t>(sizes[i])));
  }
}

TEST(RawAttributes, PayloadsAreFourByteAligned) {
  RawAttributes r;
  r.append(1, iota(1));
  r.append(2, iota(3));
  r.append(3, iota(6));
  auto list = r.list();
  ASSERT_EQ(list.size(), 3u);
  auto base = reinterpret_cast<uintptr_t>(list[0].payload.data());
  for (const auto& a : list) EXPECT_EQ((reinterpret_cast<uintptr_t>(a.payload.data()) - base) % 4, 0u);
}

TEST(RawAttributes, FindReturnsTheFirstOfAType) {
  RawAttributes r;
  r.append(7, Bytes{1});
  r.append(9, Bytes{2, 2});
  r.append(7, Bytes{3, 3, 3});
  auto a = r.find(7);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(payloadOf(*a), Bytes{1});
  auto b = r.find(9);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(payloadOf(*b), (Bytes{2, 2}));
  EXPECT_FALSE(r.find(8).has_value());
}

TEST(RawAttributes, LargestPayloadAnAttributeCanHold) {
  RawAttributes r;
  r.append(1, iota(65531));  // nla_len 65535
  r.append(2, Bytes{9});
  ASSERT_EQ(r.count(), 2u);
  EXPECT_EQ(r.list()[0].payload.size(), 65531u);
  EXPECT_EQ(payloadOf(r.list()[1]), Bytes{9});
}

TEST(RawAttributes, PayloadTooLargeForAnAttributeIsRefused) {
  // 65532 bytes + the 4-byte header do not fit nla_len (u16). Accepting it silently stores a
  // length of 0, and list() then never advances.
  RawAttributes r;
  EXPECT_THROW(r.append(1, Bytes(65532, 0)), Error);
}

TEST(RawAttributes, CopiesAreIndependent) {
  RawAttributes a;
  a.append(1, Bytes{1, 2});
  RawAttributes b = a;
  b.append(2, Bytes{3});
  EXPECT_EQ(a.count(), 1u);
  EXPECT_EQ(b.count(), 2u);
  EXPECT_EQ(payloadOf(b.list()[0]), (Bytes{1, 2}));
}

}  // namespace
}  // namespace fastlink
