// Attribute tables: the simple attributes of an object as data, one row each (attribute type,
// Info member, how its payload is written), used both to encode (rows in order, set members
// only) and to decode (each attribute by its row). The member's type says the wire format:
// bool, 1-, 2-, 4- and 8-byte integers and enums in host order, strings, hardware and IP
// addresses, ifindexes. Attributes with rules of their own (prefix lengths, structs) are rows
// with a put/get of their own (row()), so every field of an attribute space is still declared
// once, in its table. Not rtnetlink-specific: rtnetlink objects, link kinds' IFLA_INFO_DATA and
// generic-netlink families declare their attributes with it.
#pragma once

#include <array>
#include <optional>
#include <cstring>
#include <span>
#include <string_view>
#include <type_traits>

#include <libmnl/libmnl.h>

#include "core/message.hpp"
#include "fastlink/prefix.hpp"
#include "fastlink/raw_attributes.hpp"
#include "fastlink/types.hpp"

namespace fastlink::core {

/// Calls `each` for every well-formed attribute of `payload`, in order, allocating nothing (a
/// million-route dump decodes through this).
template <class Each>
void forEachAttr(std::span<const uint8_t> payload, Each&& each) {
  const auto* a = reinterpret_cast<const nlattr*>(payload.data());
  for (int left = static_cast<int>(payload.size()); mnl_attr_ok(a, left); left -= MNL_ALIGN(a->nla_len), a = mnl_attr_next(a))
    each(a);
}

/// The payload of a nest attribute (its attributes).
inline std::span<const uint8_t> nestPayload(const nlattr* nest) { return readBytes(nest); }

/// Writes a number by its type: bool as u8, 1-, 2-, 4- and 8-byte integers and enums in host order.
template <class V>
void putNumber(MessageWriter& writer, uint16_t type, V value) {
  if constexpr (std::is_same_v<V, bool>) writer.putU8(type, value ? 1 : 0);
  else if constexpr (sizeof(V) == 1) writer.putU8(type, static_cast<uint8_t>(value));
  else if constexpr (sizeof(V) == 2) writer.putU16(type, static_cast<uint16_t>(value));
  else if constexpr (sizeof(V) == 4) writer.putU32(type, static_cast<uint32_t>(value));
  else writer.putU64(type, static_cast<uint64_t>(value));
}
/// Reads a number by its type, the inverse of putNumber.
template <class V>
V readNumber(const nlattr* attr) {
  if constexpr (std::is_same_v<V, bool>) return readU8(attr) != 0;
  else if constexpr (sizeof(V) == 1) return static_cast<V>(readU8(attr));
  else if constexpr (sizeof(V) == 2) return static_cast<V>(readU16(attr));
  else if constexpr (sizeof(V) == 4) return static_cast<V>(readU32(attr));
  else return static_cast<V>(readU64(attr));
}

/// An IPv4/IPv6 address attribute: `width` 4 or 16 bytes (longer payloads are cut), or 0 for
/// "4 or 16, exactly". Throws Error(malformed_reply) naming `what` otherwise.
[[noreturn]] void badAddressLength(std::size_t size, const char* what);
inline IpAddress readAddress(const nlattr* attr, std::size_t width, const char* what) {
  auto b = readBytes(attr);
  if (width ? b.size() < width : b.size() != 4 && b.size() != 16) badAddressLength(b.size(), what);
  return IpAddress::fromBytes(width ? b.first(width) : b);
}

/// The ifindex of an Ifref that must already be resolved; throws Error(EINVAL) for a name
/// (and, with `nonzero`, for ifindex 0 or one beyond INT32_MAX).
uint32_t requireIndex(const Ifref& ref, std::string_view what, bool nonzero = false);

/// How a row's payload is written when the member's type alone does not say it.
enum class Wire {
  Native,    ///< by the member's type
  Be16,      ///< a 16-bit number in network byte order (ports)
  Flag,      ///< a bool member sent as an empty attribute when true
  Reported,  ///< decoded only: the kernel reports it, a request never carries it
  Sent,      ///< encoded only: decoding needs more than the attribute (a header's prefix length)
  Device,    ///< an ifindex where 0 means "no device": decoded only when nonzero
};

/// What a decode needs beyond the attribute: the error's operation and the width of IP
/// addresses (4 or 16 from the message's family; 0: either, exactly).
struct FieldContext {
  const char* what;
  std::size_t addressWidth = 0;
};

namespace fields {
/// The member as the compiler spells it ("... kMember = &fastlink::LinkInfo::mtu ..."): it names
/// the member in a row, so a view can find the row of `&LinkInfo::mtu` at compile time. Member
/// pointers of different types cannot be compared, and under ASan/UBSan GCC does not take the
/// comparison of two variables' addresses as a constant expression; strings compare everywhere.
template <auto kMember>
constexpr std::string_view memberTag() { return __PRETTY_FUNCTION__; }
}  // namespace fields

template <class Info>
struct AttrField {
  uint16_t type = 0;
  /// Writes the member if set; nullptr for Wire::Reported.
  void (*put)(MessageWriter& writer, const AttrField& row, const Info& info) = nullptr;
  /// Reads the member; false leaves the attribute to the unknown ones (kept raw).
  bool (*get)(const nlattr* attr, Info& info, const FieldContext& context) = nullptr;
  const char* what = nullptr;  ///< for ifindex rows: the name in "must be resolved" errors
  bool nonzero = false;        ///< for ifindex rows: ifindex 0 is refused
  Wire wire = Wire::Native;
  /// fields::memberTag<member>() for a row made by field() whose get is the generic one (a view
  /// reads such a row the same way); empty for rows with a get of their own.
  std::string_view member = {};
};

namespace fields {

template <class V>
void put(MessageWriter& w, uint16_t type, const V& v, const char* what, bool nonzero) {
  if constexpr (std::is_same_v<V, std::string>) w.putString(type, v);
  else if constexpr (std::is_same_v<V, MacAddress> || std::is_same_v<V, IpAddress>) w.putBytes(type, v.bytes());
  else if constexpr (std::is_same_v<V, Prefix>) w.putBytes(type, v.address().bytes());
  else if constexpr (std::is_same_v<V, Ifref>) w.putU32(type, requireIndex(v, what, nonzero));
  else putNumber(w, type, v);
}

/// What a member of type V reads from its attribute without owning anything: a string as a
/// view of the payload (up to its NUL), an ifindex as a number, a hardware address longer than
/// MacAddress holds as std::nullopt (kept raw by the decoder), numbers and IP addresses by value.
/// The one reader of a row's payload: the owning decoder (get below) and the views use it.
template <class V, Wire kWire = Wire::Native>
auto view(const nlattr* a, const FieldContext& context) {
  if constexpr (kWire == Wire::Flag) return true;
  else if constexpr (kWire == Wire::Be16) return readBe16(a);
  else if constexpr (std::is_same_v<V, std::string>) {
    auto bytes = readBytes(a);
    const char* p = reinterpret_cast<const char*>(bytes.data());
    return std::string_view(p, strnlen(p, bytes.size()));
  } else if constexpr (std::is_same_v<V, IpAddress>) {
    return readAddress(a, context.addressWidth, context.what);
  } else if constexpr (std::is_same_v<V, Ifref>) {
    return readU32(a);
  } else if constexpr (std::is_same_v<V, MacAddress>) {
    auto bytes = readBytes(a);
    return bytes.size() > MacAddress::kMaxLength ? std::nullopt : std::optional<MacAddress>(MacAddress(bytes));
  } else {
    return readNumber<V>(a);
  }
}

template <class V>
bool get(const nlattr* a, std::optional<V>& out, const FieldContext& context) {
  auto value = view<V>(a, context);
  if constexpr (std::is_same_v<V, MacAddress>) {
    // Hardware addresses longer than MacAddress holds are kept raw rather than refused; the
    // member is then unset (the last attribute of a type decides, as for a view).
    out = value;
    return value.has_value();
  } else if constexpr (std::is_same_v<V, Ifref>) {
    out = Ifref(value);
  } else {
    out = V(value);
  }
  return true;
}

template <class C, class M>
C ownerOf(M C::*);

}  // namespace fields

/// The row of attribute `kType` for `kMember` (a std::optional member, or a bool for Wire::Flag).
template <uint16_t kType, auto kMember, Wire kWire = Wire::Native>
constexpr auto field(const char* what = nullptr, bool nonzero = false) {
  using Info = decltype(fields::ownerOf(kMember));
  using Row = AttrField<Info>;
  auto put = [](MessageWriter& w, const Row& row, const Info& info) {
    const auto& member = info.*kMember;
    if constexpr (kWire == Wire::Flag) {
      if (member == true) w.putFlag(kType);  // a bool, or a std::optional<bool> holding true
    } else if (member) {
      if constexpr (kWire == Wire::Be16) w.putBe16(kType, static_cast<uint16_t>(*member));
      else fields::put(w, kType, *member, row.what, row.nonzero);
    }
  };
  auto get = [](const nlattr* a, Info& info, const FieldContext& context) {
    if constexpr (kWire == Wire::Sent) return false;
    else if constexpr (kWire == Wire::Flag) return (info.*kMember = true, true);
    else if constexpr (kWire == Wire::Be16) {
      using V = typename std::remove_reference_t<decltype(info.*kMember)>::value_type;
      return (info.*kMember = static_cast<V>(readBe16(a)), true);
    } else if constexpr (kWire == Wire::Device) {
      if (uint32_t index = readU32(a)) info.*kMember = Ifref(index);
      return true;
    } else {
      return fields::get(a, info.*kMember, context);
    }
  };
  constexpr std::string_view tag = fields::memberTag<kMember>();
  if constexpr (kWire == Wire::Reported) return Row{kType, nullptr, get, what, nonzero, kWire, tag};
  else if constexpr (kWire == Wire::Sent) return Row{kType, put, nullptr, what, nonzero, kWire, tag};
  else return Row{kType, put, get, what, nonzero, kWire, tag};
}

/// An object's rows, with an index by attribute type: decoding a million routes looks each
/// attribute up directly, as the switch it replaces did.
template <class Info, std::size_t N>
class FieldTable {
 public:
  constexpr FieldTable(const AttrField<Info> (&rows)[N]) {
    for (std::size_t i = 0; i < N; ++i) {
      // Tables are constexpr: a row beyond the index fails the build here.
      if (rows[i].type >= kIndexed) throw "attribute type beyond FieldTable's index";
      rows_[i] = rows[i];
      byType_[rows[i].type] = static_cast<uint8_t>(i + 1);
    }
  }

  /// The row reading `kMember` (a compile error when there is none): views find their
  /// attribute type and wire format here, so a field is declared once, in the table.
  template <auto kMember>
  constexpr const AttrField<Info>& rowOf() const {
    for (const auto& row : rows_)
      if (row.member == fields::memberTag<kMember>()) return row;
    throw "no FieldTable row for this member";
  }

  /// Writes the set members, in the rows' order.
  void encode(MessageWriter& w, const Info& info) const {
    for (const auto& row : rows_)
      if (row.put) row.put(w, row, info);
  }

  /// Reads `attr` by its row; false when no row has its type (or the row left it unread).
  bool decode(const nlattr* attr, Info& info, const FieldContext& context) const {
    uint16_t type = attrType(attr);
    if (type >= kIndexed || !byType_[type]) return false;
    const AttrField<Info>& row = rows_[byType_[type] - 1];
    return row.get && row.get(attr, info, context);
  }

  /// Decodes every attribute of `payload`: by its row, else by `other` (true: handled), else
  /// kept raw in `rest`.
  template <class Other>
  void decodeAll(std::span<const uint8_t> payload, Info& info, const FieldContext& context, Other&& other,
                 RawAttributes& rest) const {
    forEachAttr(payload, [&](const nlattr* a) {
      if (!decode(a, info, context) && !other(a)) rest.append(attrType(a), readBytes(a));
    });
  }
  /// Same, keeping the rest in info.unknown (objects: LinkInfo, RouteInfo, ...).
  template <class Other>
  void decodeAll(std::span<const uint8_t> payload, Info& info, const FieldContext& context, Other&& other) const {
    decodeAll(payload, info, context, other, info.unknown);
  }
  /// The attributes of a nest (a link kind's IFLA_INFO_DATA), the rest kept in `rest`.
  void decodeNest(const nlattr* nest, Info& info, const FieldContext& context, RawAttributes& rest) const {
    decodeAll(nestPayload(nest), info, context, [](const nlattr*) { return false; }, rest);
  }

 private:
  static constexpr uint16_t kIndexed = 128;  // every rtnetlink attribute type so far is below
  std::array<AttrField<Info>, N> rows_{};
  std::array<uint8_t, kIndexed> byType_{};  // row + 1; 0: no row
};

template <class Info, std::size_t N>
FieldTable(const AttrField<Info> (&)[N]) -> FieldTable<Info, N>;

/// A bit of a header's flags (NTF_ROUTER) and the std::optional<bool> member saying it.
template <class Info>
struct FlagBit {
  unsigned bit;
  std::optional<bool> Info::*member;
};

/// The bits of the members that are true.
template <class Info, std::size_t N>
unsigned encodeBits(const Info& info, const FlagBit<Info> (&bits)[N]) {
  unsigned out = 0;
  for (const auto& b : bits)
    if ((info.*b.member).value_or(false)) out |= b.bit;
  return out;
}

/// Sets every member of `bits` from `flags`.
template <class Info, std::size_t N>
void decodeBits(unsigned flags, Info& info, const FlagBit<Info> (&bits)[N]) {
  for (const auto& b : bits) info.*b.member = (flags & b.bit) != 0;
}

}  // namespace fastlink::core
