// core/attr_rows.hpp's rows both ways: a struct with a row of each kind is encoded, decoded back
// and compared, and each row's malformed payload is refused by name (the families' goldens pin
// their bytes; this pins the rows a family uses only one way today: a timespec sent, flag bits
// read, a nest of more members left out when none is set).
#include <gtest/gtest.h>
#include <linux/netlink.h>

#include <optional>
#include <string>
#include <vector>

#include "core/attr_rows.hpp"
#include "fastlink/error.hpp"
#include "unit/golden.hpp"

namespace fastlink::test {
namespace {

struct Key {
  static constexpr std::size_t kSize = 4;
  std::array<uint8_t, kSize> b{};
  Key() = default;
  explicit Key(std::span<const uint8_t, kSize> s) { std::copy(s.begin(), s.end(), b.begin()); }
  std::span<const uint8_t, kSize> bytes() const { return std::span<const uint8_t, kSize>(b); }
  friend bool operator==(const Key&, const Key&) = default;
};
struct Time {
  int64_t seconds = 0, nanoseconds = 0;
  friend bool operator==(const Time&, const Time&) = default;
};
struct Endpoint {
  IpAddress address;
  uint16_t port = 0;
  friend bool operator==(const Endpoint&, const Endpoint&) = default;
};
struct Item {
  uint32_t id = 0;
  friend bool operator==(const Item&, const Item&) = default;
};
constexpr core::FieldTable kItem({core::valueField<1, &Item::id>()});

struct All {
  std::string name;
  uint32_t count = 0;
  std::optional<Key> key;
  std::optional<Time> when;
  std::optional<Endpoint> peer;
  bool a = false, b = false;
  IpAddress address;
  std::optional<uint32_t> inner1, inner2;
  std::optional<Item> one;
  std::vector<Item> many;
  friend bool operator==(const All&, const All&) = default;
};
constexpr core::BoolBit<All> kBits[] = {{1, &All::a}, {4, &All::b}};
constexpr core::FieldTable kInner({core::field<1, &All::inner1>(), core::field<2, &All::inner2>()});
constexpr core::FieldTable kAll({
    core::valueField<1, &All::name, core::Wire::Native, core::Send::Always>(),
    core::valueField<2, &All::count>(),
    core::fixedBytesField<3, &All::key, "test key">(),
    core::timespecField<4, &All::when, "test time">(),
    core::sockaddrField<5, &All::peer, "test endpoint">(),
    core::bitsField<6, kBits>(),
    core::familyAddressField<7, &All::address, 4>(),
    core::familyAddressField<8, &All::address, 16>(),
    core::innerNestField<9, kInner>(),
    core::nestField<10, &All::one, kItem>(),
    core::nestArrayField<11, &All::many, core::decodeEntry<kItem, Item>>(),
});

All roundTrip(const All& in, Bytes* wire = nullptr) {
  core::MessageWriter w(0x10, 0);
  kAll.encode(w, in);
  Bytes bytes(w.bytes().begin(), w.bytes().end());
  if (wire) *wire = bytes;
  All out;
  core::decodeKnown(kAll, std::span<const uint8_t>(bytes).subspan(NLMSG_HDRLEN), out, core::FieldContext{"test"});
  return out;
}

TEST(AttrRows, EveryRowKindRoundTrips) {
  All v;
  v.name = "x", v.count = 7, v.key = Key(std::array<const uint8_t, 4>{1, 2, 3, 4});
  v.when = Time{1700000000, 5}, v.peer = Endpoint{IpAddress::parse("2001:db8::1"), 51820};
  v.b = true, v.address = IpAddress::parse("fd00::9"), v.inner2 = 3, v.one = Item{9};
  All back = roundTrip(v);
  EXPECT_EQ(back.many, std::vector<Item>{});  // decoded only: nothing sends an array whole
  EXPECT_EQ(back, v);
  // Defaults: the name always goes, an unset count, key, nest of members and flags do not.
  Bytes wire;
  All empty = roundTrip(All{}, &wire);
  EXPECT_EQ(empty, All{});
  EXPECT_EQ(wire.size(), NLMSG_HDRLEN + 8u /* name "" */ + 8u /* 0.0.0.0 */) << "an unset nest of members is left out";
}

TEST(AttrRows, ArraysAreReadWhateverTheEntryNumber) {
  Attrs a;
  a.str(1, "x").nestNoFlag(11, Attrs().nestNoFlag(1, Attrs().u32(1, 5)).nestNoFlag(2, Attrs().u32(1, 6)));
  All out;
  core::decodeKnown(kAll, a.bytes(), out, core::FieldContext{"test"});
  EXPECT_EQ(out.many, (std::vector<Item>{{5}, {6}}));
}

TEST(AttrRows, MalformedPayloadsNameTheField) {
  struct Case {
    Attrs attrs;
    const char* says;
  };
  for (const Case& c : {Case{Attrs().raw(3, {1, 2}), "test key is not 4 bytes"}, Case{Attrs().raw(4, {1}), "test time is not a timespec"},
                        Case{Attrs().raw(5, {2}), "test endpoint too short"},
                        Case{Attrs().raw(5, {9, 0, 1, 2}), "test endpoint of unknown family or short"},
                        Case{Attrs().raw(8, {1, 2, 3, 4}), "address attribute of 4 bytes"}}) {
    All out;
    try {
      core::decodeKnown(kAll, c.attrs.bytes(), out, core::FieldContext{"test"});
      ADD_FAILURE() << c.says << ": no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), make_error_code(Errc::malformed_reply));
      EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace fastlink::test
