// Attribute tables: the simple attributes of an object as data, one row each (attribute type,
// Info member, how its payload is written), used both to encode (rows in order, set members
// only) and to decode (each attribute by its row). The member's type says the wire format:
// bool, 1-, 2- and 4-byte integers and enums in host order, strings, hardware and IP addresses,
// ifindexes. Attributes with rules of their own (prefix lengths, structs, nests) stay in code.
#pragma once

#include <array>
#include <optional>
#include <cstring>
#include <span>
#include <string_view>
#include <type_traits>

#include "fastlink/prefix.hpp"
#include "rtnl/codec_helpers.hpp"

namespace fastlink::rtnl {

/// How a row's payload is written when the member's type alone does not say it.
enum class Wire {
  Native,    ///< by the member's type
  Be16,      ///< a 16-bit number in network byte order (ports)
  Flag,      ///< a bool member sent as an empty attribute when true
  Reported,  ///< decoded only: the kernel reports it, a request never carries it
  Sent,      ///< encoded only: decoding needs more than the attribute (a header's prefix length)
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
  void (*put)(core::MessageWriter& writer, const AttrField& row, const Info& info) = nullptr;
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
void put(core::MessageWriter& w, uint16_t type, const V& v, const char* what, bool nonzero) {
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
  else if constexpr (kWire == Wire::Be16) return core::readBe16(a);
  else if constexpr (std::is_same_v<V, std::string>) {
    auto bytes = core::readBytes(a);
    const char* p = reinterpret_cast<const char*>(bytes.data());
    return std::string_view(p, strnlen(p, bytes.size()));
  } else if constexpr (std::is_same_v<V, IpAddress>) {
    return readAddress(a, context.addressWidth, context.what);
  } else if constexpr (std::is_same_v<V, Ifref>) {
    return core::readU32(a);
  } else if constexpr (std::is_same_v<V, MacAddress>) {
    auto bytes = core::readBytes(a);
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
  auto put = [](core::MessageWriter& w, const Row& row, const Info& info) {
    const auto& member = info.*kMember;
    if constexpr (kWire == Wire::Flag) {
      if (member) w.putFlag(kType);
    } else if (member) {
      if constexpr (kWire == Wire::Be16) w.putBe16(kType, *member);
      else fields::put(w, kType, *member, row.what, row.nonzero);
    }
  };
  auto get = [](const nlattr* a, Info& info, const FieldContext& context) {
    if constexpr (kWire == Wire::Sent) return false;
    else if constexpr (kWire == Wire::Flag) return info.*kMember = true;
    else if constexpr (kWire == Wire::Be16) return (info.*kMember = core::readBe16(a), true);
    else return fields::get(a, info.*kMember, context);
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
  void encode(core::MessageWriter& w, const Info& info) const {
    for (const auto& row : rows_)
      if (row.put) row.put(w, row, info);
  }

  /// Reads `attr` by its row; false when no row has its type (or the row left it unread).
  bool decode(const nlattr* attr, Info& info, const FieldContext& context) const {
    uint16_t type = core::attrType(attr);
    if (type >= kIndexed || !byType_[type]) return false;
    const AttrField<Info>& row = rows_[byType_[type] - 1];
    return row.get && row.get(attr, info, context);
  }

  /// Decodes every attribute of `payload`: by its row, else by `other` (true: handled), else
  /// kept raw in info.unknown.
  template <class Other>
  void decodeAll(std::span<const uint8_t> payload, Info& info, const FieldContext& context, Other&& other) const {
    forEachAttr(payload, [&](const nlattr* a) {
      if (!decode(a, info, context) && !other(a)) info.unknown.append(core::attrType(a), core::readBytes(a));
    });
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

}  // namespace fastlink::rtnl
