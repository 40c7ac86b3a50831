// More rows for core::FieldTable (core/attr_fields.hpp), for what field() does not cover and the
// generic-netlink families need: plain members (not std::optional), values of a fixed number of
// bytes (WireGuard's keys), an IP endpoint as a sockaddr_in/in6, a struct timespec, a u32 of flag
// bits made of bool members, and arrays of nests (each entry read and written by a table of its
// own). src/wg/wireguard_codec.cpp and src/genl/ctrl_codec.cpp declare their attributes with them;
// each field is still one row, for encode and decode. ctnetlink (src/netfilter/conntrack_codec.cpp)
// adds numbers in network byte order and a nest around a plain struct member. A separate header so that the objects'
// and link kinds' many includers of attr_fields.hpp do not rebuild for it.
#pragma once

#include <arpa/inet.h>
#include <endian.h>
#include <linux/time_types.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <bitset>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>

#include "core/attr_fields.hpp"
#include "fastlink/error.hpp"

namespace fastlink::core {

/// A string literal as a template argument: the name a row's errors give its field ("private
/// key"), since a row's get is handed no row.
template <std::size_t N>
struct RowName {
  char text[N];
  constexpr RowName(const char (&s)[N]) {  // NOLINT: implicit, a literal is how it is written
    for (std::size_t i = 0; i < N; ++i) text[i] = s[i];
  }
};

/// The malformed-reply error of a row: the operation decoding (context.what) and what is wrong.
/// Never the payload: a key's bytes must not reach an error or a log.
[[noreturn]] inline void malformedField(const FieldContext& context, std::string why) {
  throw Error(make_error_code(Errc::malformed_reply), context.what ? context.what : "decode", std::move(why));
}

/// The attribute types a table read from a payload (FieldTable indexes types below 128).
using SeenTypes = std::bitset<128>;

/// Decodes every attribute of `payload` that `table` has a row for into `info`; the others are
/// ignored (a newer kernel's). Returns the types read, for a caller that requires some.
template <class Info, std::size_t N>
SeenTypes decodeKnown(const FieldTable<Info, N>& table, std::span<const uint8_t> payload, Info& info,
                      const FieldContext& context) {
  SeenTypes seen;
  forEachAttr(payload, [&](const nlattr* a) {
    if (table.decode(a, info, context)) seen.set(attrType(a));
  });
  return seen;
}

namespace fields {
template <class T>
struct Optional : std::false_type {
  using type = T;
};
template <class T>
struct Optional<std::optional<T>> : std::true_type {
  using type = T;
};
/// The member's type and, for a std::optional, the type it holds.
template <class Info, auto kMember>
using MemberType = std::remove_cvref_t<decltype(std::declval<Info&>().*kMember)>;

/// What the rows below send of a member: a std::optional's value when set; a plain member's
/// always, or with kSkipDefault only when it differs from its type's default (a number not 0).
template <bool kSkipDefault, class M, class Send>
void ifSet(const M& m, Send&& send) {
  if constexpr (Optional<M>::value) {
    if (m) send(*m);
  } else if (!kSkipDefault || !(m == M{})) {
    send(m);
  }
}
/// Where a row decodes into a member: a std::optional's fresh value, a plain member itself.
template <class M>
auto& decodedInto(M& m) {
  if constexpr (Optional<M>::value) return m.emplace();
  else return m;
}

/// A row: no put when decoded only, no get when sent only.
template <class Info, Wire kWire, class Put, class Get>
constexpr AttrField<Info> row(uint16_t type, std::string_view tag, Put put, Get get) {
  if constexpr (kWire == Wire::Reported) return AttrField<Info>{type, nullptr, get, nullptr, false, kWire, tag};
  else if constexpr (kWire == Wire::Sent) return AttrField<Info>{type, put, nullptr, nullptr, false, kWire, tag};
  else return AttrField<Info>{type, put, get, nullptr, false, kWire, tag};
}
}  // namespace fields

/// When a plain member's row is sent: always (a device's name), or when it differs from its type's
/// default value (a family id of 0 names no family).
enum class Send { Always, IfNotDefault };

/// The row of attribute `kType` for a plain member (a number or a std::string, not std::optional):
/// the wire format by the member's type, as field(). `Info` is the struct the table is over (give
/// it when the member is a base class's).
template <uint16_t kType, auto kMember, Wire kWire = Wire::Native, Send kSend = Send::IfNotDefault,
          class Info = decltype(fields::ownerOf(kMember))>
constexpr AttrField<Info> valueField() {
  using V = fields::MemberType<Info, kMember>;
  auto put = [](MessageWriter& w, const AttrField<Info>& row, const Info& info) {
    const V& v = info.*kMember;
    if (kSend == Send::Always || !(v == V{})) fields::put(w, kType, v, row.what, row.nonzero);
  };
  auto get = [](const nlattr* a, Info& info, const FieldContext& context) {
    info.*kMember = V(fields::view<V>(a, context));
    return true;
  };
  return fields::row<Info, kWire>(kType, fields::memberTag<kMember>(), put, get);
}

namespace fields {
/// A row for a member holding a V (plain: always sent) or a std::optional<V> (sent when set) whose
/// payload has rules of its own: `kPut(writer, type, value)` writes it, `kGet(payload, context)`
/// returns it or throws.
template <uint16_t kType, auto kMember, Wire kWire, class Info, auto kPut, auto kGet>
constexpr AttrField<Info> payloadRow() {
  auto put = [](MessageWriter& w, const AttrField<Info>&, const Info& info) {
    ifSet<false>(info.*kMember, [&](const auto& value) { kPut(w, kType, value); });
  };
  auto get = [](const nlattr* a, Info& info, const FieldContext& context) {
    info.*kMember = kGet(readBytes(a), context);
    return true;
  };
  return row<Info, kWire>(kType, memberTag<kMember>(), put, get);
}
/// The struct a FieldTable is over.
template <class Table>
struct TableOf;
template <class I, std::size_t N>
struct TableOf<FieldTable<I, N>> {
  using Info = I;
};

template <class Info, auto kMember>
using ValueOf = typename Optional<MemberType<Info, kMember>>::type;

template <class V>
void putFixed(MessageWriter& w, uint16_t type, const V& v) {
  w.putBytes(type, v.bytes());
}
template <class V, RowName kName>
V getFixed(std::span<const uint8_t> b, const FieldContext& context) {
  if (b.size() != V::kSize) malformedField(context, std::string(kName.text) + " is not " + std::to_string(V::kSize) + " bytes");
  return V(std::span<const uint8_t, V::kSize>(b.data(), V::kSize));
}

template <class V>
void putSockaddr(MessageWriter& w, uint16_t type, const V& e) {
  if (e.address.isV4()) {
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(e.port);
    std::memcpy(&sa.sin_addr, e.address.bytes().data(), 4);
    w.putBytes(type, {reinterpret_cast<const uint8_t*>(&sa), sizeof sa});
  } else {
    sockaddr_in6 sa{};
    sa.sin6_family = AF_INET6;
    sa.sin6_port = htons(e.port);
    std::memcpy(&sa.sin6_addr, e.address.bytes().data(), 16);
    w.putBytes(type, {reinterpret_cast<const uint8_t*>(&sa), sizeof sa});
  }
}
template <class V, RowName kName>
V getSockaddr(std::span<const uint8_t> b, const FieldContext& context) {
  sa_family_t family = 0;
  if (b.size() < sizeof family) malformedField(context, std::string(kName.text) + " too short");
  std::memcpy(&family, b.data(), sizeof family);
  V e;
  if (family == AF_INET && b.size() >= sizeof(sockaddr_in)) {
    sockaddr_in sa;
    std::memcpy(&sa, b.data(), sizeof sa);
    e.address = IpAddress::fromBytes({reinterpret_cast<const uint8_t*>(&sa.sin_addr), 4});
    e.port = ntohs(sa.sin_port);
  } else if (family == AF_INET6 && b.size() >= sizeof(sockaddr_in6)) {
    sockaddr_in6 sa;
    std::memcpy(&sa, b.data(), sizeof sa);
    e.address = IpAddress::fromBytes({reinterpret_cast<const uint8_t*>(&sa.sin6_addr), 16});
    e.port = ntohs(sa.sin6_port);
  } else {
    malformedField(context, std::string(kName.text) + " of unknown family or short");
  }
  return e;
}

template <class V>
void putTimespec(MessageWriter& w, uint16_t type, const V& t) {
  auto [seconds, nanoseconds] = t;
  __kernel_timespec ts{seconds, nanoseconds};
  w.putBytes(type, {reinterpret_cast<const uint8_t*>(&ts), sizeof ts});
}
template <class V, RowName kName>
V getTimespec(std::span<const uint8_t> b, const FieldContext& context) {
  if (b.size() != sizeof(__kernel_timespec)) malformedField(context, std::string(kName.text) + " is not a timespec");
  __kernel_timespec ts;
  std::memcpy(&ts, b.data(), sizeof ts);
  return V{ts.tv_sec, ts.tv_nsec};
}

template <std::size_t kWidth>
void putFamilyAddress(MessageWriter& w, uint16_t type, const IpAddress& ip) {
  if (ip.isV4() == (kWidth == 4)) w.putBytes(type, ip.bytes());
}
template <std::size_t kWidth>
IpAddress getAddress(std::span<const uint8_t> b, const FieldContext& context) {
  if (b.size() < kWidth) badAddressLength(b.size(), context.what);
  return IpAddress::fromBytes(b.first(kWidth));
}
}  // namespace fields

/// A value of exactly V::kSize bytes (a key: constructed from std::span<const uint8_t, kSize>,
/// read by bytes()), in a std::optional<V> member (sent when set) or a plain V (always sent). A
/// payload of another size is a malformed reply "<kName> is not N bytes".
template <uint16_t kType, auto kMember, RowName kName, Wire kWire = Wire::Native,
          class Info = decltype(fields::ownerOf(kMember))>
constexpr AttrField<Info> fixedBytesField() {
  using V = fields::ValueOf<Info, kMember>;
  return fields::payloadRow<kType, kMember, kWire, Info, fields::putFixed<V>, fields::getFixed<V, kName>>();
}

/// An IP endpoint as the kernel's struct sockaddr_in or sockaddr_in6 (port in network order), for
/// a member holding a V with `IpAddress address` and `uint16_t port`. A payload too short for its
/// family, or of another family, is a malformed reply naming `kName`.
template <uint16_t kType, auto kMember, RowName kName, Wire kWire = Wire::Native,
          class Info = decltype(fields::ownerOf(kMember))>
constexpr AttrField<Info> sockaddrField() {
  using V = fields::ValueOf<Info, kMember>;
  return fields::payloadRow<kType, kMember, kWire, Info, fields::putSockaddr<V>, fields::getSockaddr<V, kName>>();
}

/// A time as the kernel's struct __kernel_timespec (two 64-bit numbers), for a member holding a V
/// that is {seconds, nanoseconds}. A payload of another size is a malformed reply "<kName> is not
/// a timespec".
template <uint16_t kType, auto kMember, RowName kName, Wire kWire = Wire::Native,
          class Info = decltype(fields::ownerOf(kMember))>
constexpr AttrField<Info> timespecField() {
  using V = fields::ValueOf<Info, kMember>;
  return fields::payloadRow<kType, kMember, kWire, Info, fields::putTimespec<V>, fields::getTimespec<V, kName>>();
}

/// One family's IP address attribute (kWidth 4 or 16 bytes) for a member holding either family, a
/// plain IpAddress or a std::optional one: sent when the address is of that family (its sibling
/// row sends the other: mptcp's ADDR4 and ADDR6); read from at least kWidth bytes (a shorter
/// payload is a malformed reply).
template <uint16_t kType, auto kMember, std::size_t kWidth, Wire kWire = Wire::Native,
          class Info = decltype(fields::ownerOf(kMember))>
constexpr AttrField<Info> familyAddressField() {
  return fields::payloadRow<kType, kMember, kWire, Info, fields::putFamilyAddress<kWidth>, fields::getAddress<kWidth>>();
}

/// A nest holding one struct, read and written by `kTable`, for a std::optional member (sent when
/// set: mptcp's MPTCP_PM_ATTR_ADDR around an endpoint) or a plain one (sent when it differs from
/// its default value: ctnetlink's CTA_TUPLE_REPLY, empty unless given).
template <uint16_t kType, auto kMember, const auto& kTable, Wire kWire = Wire::Native,
          class Info = decltype(fields::ownerOf(kMember))>
constexpr AttrField<Info> nestField() {
  auto put = [](MessageWriter& w, const AttrField<Info>&, const Info& info) {
    fields::ifSet<true>(info.*kMember, [&](const auto& value) {
      std::size_t nest = w.beginNest(kType);
      kTable.encode(w, value);
      w.endNest(nest);
    });
  };
  auto get = [](const nlattr* a, Info& info, const FieldContext& context) {
    decodeKnown(kTable, nestPayload(a), fields::decodedInto(info.*kMember), context);
    return true;
  };
  return fields::row<Info, kWire>(kType, fields::memberTag<kMember>(), put, get);
}

namespace fields {
/// A number between host and network byte order (the operation is its own inverse).
template <class V>
V swapToBig(V v) {
  if constexpr (sizeof(V) == 2) return static_cast<V>(htobe16(v));
  else if constexpr (sizeof(V) == 4) return static_cast<V>(htobe32(v));
  else return static_cast<V>(htobe64(v));
}
}  // namespace fields

/// An unsigned 16-, 32- or 64-bit number in network byte order (ctnetlink's marks, timeouts,
/// counters), for a std::optional member (sent when set) or a plain one (sent when not 0). A
/// payload shorter than the number is a malformed reply.
template <uint16_t kType, auto kMember, Wire kWire = Wire::Native, class Info = decltype(fields::ownerOf(kMember))>
constexpr AttrField<Info> bigEndianField() {
  using V = fields::ValueOf<Info, kMember>;
  static_assert(std::is_unsigned_v<V> && sizeof(V) >= 2);
  auto put = [](MessageWriter& w, const AttrField<Info>&, const Info& info) {
    fields::ifSet<true>(info.*kMember, [&](V value) { putNumber(w, kType, fields::swapToBig(value)); });
  };
  auto get = [](const nlattr* a, Info& info, const FieldContext&) {
    info.*kMember = fields::swapToBig(readNumber<V>(a));
    return true;
  };
  return fields::row<Info, kWire>(kType, fields::memberTag<kMember>(), put, get);
}

/// A bit of a u32 flags attribute and the bool member saying it (FlagBit's plain-bool sibling).
template <class Info>
struct BoolBit {
  using Owner = Info;
  uint32_t bit;
  bool Info::*member;
};

/// A u32 attribute of flag bits, one per bool member of `kBits`: sent when some member is true;
/// decoded, it sets every member.
template <uint16_t kType, const auto& kBits, Wire kWire = Wire::Native>
constexpr auto bitsField() {
  using Info = typename std::remove_cvref_t<decltype(kBits[0])>::Owner;
  auto put = [](MessageWriter& w, const AttrField<Info>&, const Info& info) {
    uint32_t flags = 0;
    for (const auto& b : kBits)
      if (info.*b.member) flags |= b.bit;
    if (flags) w.putU32(kType, flags);
  };
  auto get = [](const nlattr* a, Info& info, const FieldContext&) {
    uint32_t flags = readU32(a);
    for (const auto& b : kBits) info.*b.member = (flags & b.bit) != 0;
    return true;
  };
  return fields::row<Info, kWire>(kType, {}, put, get);
}

/// A nest whose attributes are more members of the same struct, read and written by `kTable`
/// (tcp_metrics' TCP_METRICS_ATTR_VALS): sent when some member of it is set.
template <uint16_t kType, const auto& kTable, Wire kWire = Wire::Native>
constexpr auto innerNestField() {
  using Info = typename fields::TableOf<std::remove_cvref_t<decltype(kTable)>>::Info;
  auto put = [](MessageWriter& w, const AttrField<Info>&, const Info& info) {
    std::size_t nest = w.beginNest(kType);
    kTable.encode(w, info);
    if (w.size() == nest + NLA_HDRLEN) w.cancelNest(nest);
    else w.endNest(nest);
  };
  auto get = [](const nlattr* a, Info& info, const FieldContext& context) {
    decodeKnown(kTable, nestPayload(a), info, context);
    return true;
  };
  return fields::row<Info, kWire>(kType, {}, put, get);
}

/// An array of nests for a std::vector member, one entry per element, each read by `kDecode(entry's
/// payload, element, context)` whatever its type (the controller numbers its entries from 1, the
/// kernel's WireGuard sends 0). Decoded only: the one family that sends arrays, WireGuard, cuts
/// them at a byte budget and writes each entry with its own table (wireguard_codec.cpp).
template <uint16_t kType, auto kMember, auto kDecode, class Info = decltype(fields::ownerOf(kMember))>
constexpr AttrField<Info> nestArrayField() {
  auto get = [](const nlattr* a, Info& info, const FieldContext& context) {
    auto& elements = info.*kMember;
    forEachAttr(nestPayload(a), [&](const nlattr* entry) { kDecode(nestPayload(entry), elements.emplace_back(), context); });
    return true;
  };
  return fields::row<Info, Wire::Reported>(kType, fields::memberTag<kMember>(), nullptr, get);
}

/// An array entry read by a table alone (kDecode of nestArrayField).
template <const auto& kTable, class Info>
void decodeEntry(std::span<const uint8_t> payload, Info& out, const FieldContext& context) {
  decodeKnown(kTable, payload, out, context);
}

}  // namespace fastlink::core
