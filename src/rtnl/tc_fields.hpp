// The attribute-table rows tc's attribute spaces need beyond core/attr_fields.hpp's: a kernel
// struct carried whole in one attribute (tc_htb_opt in TCA_HTB_PARMS, tc_netem_corr in
// TCA_NETEM_CORR), and a bool sent as a u32 (fq_codel's ecn, fq's pacing). A kind's options are
// then a FieldTable over a "wire" struct that mirrors its attributes one member each, declared
// once for encode and decode; tc's arithmetic (ticks, 64-bit rates, probabilities) is a pair
// of conversions between the options and that struct (tc_options.cpp).
#pragma once

#include <arpa/inet.h>

#include <algorithm>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>

#include "core/attr_fields.hpp"
#include "rtnl/codec_helpers.hpp"
#include "rtnl/tc_codec.hpp"

namespace fastlink::rtnl {

using core::AttrField;
using core::FieldContext;
using core::FieldTable;

/// The row of attribute `kType` for `kMember`, a std::optional of a kernel struct: written as
/// the struct's bytes when set; read leniently (a short payload reads as zeros, as tc reads it).
template <uint16_t kType, auto kMember>
constexpr auto structField() {
  using Info = decltype(core::fields::ownerOf(kMember));
  using S = typename std::remove_reference_t<decltype(std::declval<Info&>().*kMember)>::value_type;
  static_assert(std::is_trivially_copyable_v<S>);
  using Row = AttrField<Info>;
  auto put = [](core::MessageWriter& w, const Row&, const Info& info) {
    if (const auto& s = info.*kMember) putStruct(w, kType, *s);
  };
  auto get = [](const nlattr* a, Info& info, const FieldContext&) { return (info.*kMember = readStruct<S>(a), true); };
  return Row{kType, put, get};
}

/// The row of attribute `kType` for `kMember`, a std::optional<bool> sent as a u32 0 or 1; any
/// nonzero value reads as true.
template <uint16_t kType, auto kMember>
constexpr auto bool32Field() {
  using Info = decltype(core::fields::ownerOf(kMember));
  using Row = AttrField<Info>;
  auto put = [](core::MessageWriter& w, const Row&, const Info& info) {
    if (const auto& b = info.*kMember) w.putU32(kType, *b ? 1 : 0);
  };
  auto get = [](const nlattr* a, Info& info, const FieldContext&) { return (info.*kMember = core::readU32(a) != 0, true); };
  return Row{kType, put, get};
}

/// The row of attribute `kType` for `kMember`, a std::optional integer (a bool: a u8), read as
/// tc's actions read theirs: a payload shorter than the number reads as zeros beyond it, not as
/// an error. kBigEndian: in network byte order on the wire (ports, ethertypes, key ids).
template <uint16_t kType, auto kMember, bool kBigEndian = false>
constexpr auto looseField() {
  using Info = decltype(core::fields::ownerOf(kMember));
  using V = typename std::remove_reference_t<decltype(std::declval<Info&>().*kMember)>::value_type;
  using Raw = std::conditional_t<std::is_same_v<V, bool>, uint8_t, std::make_unsigned_t<V>>;
  auto order = [](Raw v) -> Raw {
    if constexpr (!kBigEndian || sizeof(Raw) == 1) return v;
    else if constexpr (sizeof(Raw) == 2) return htons(v);
    else return htonl(v);
  };
  using Row = AttrField<Info>;
  auto put = [](core::MessageWriter& w, const Row&, const Info& info) {
    if (const auto& v = info.*kMember) putStruct(w, kType, decltype(order)()(static_cast<Raw>(*v)));
  };
  auto get = [](const nlattr* a, Info& info, const FieldContext&) {
    Raw raw = decltype(order)()(readStruct<Raw>(a));
    if constexpr (std::is_same_v<V, bool>) info.*kMember = raw != 0;
    else info.*kMember = static_cast<V>(raw);
    return true;
  };
  return Row{kType, put, get};
}

/// Every attribute of `payload` read by its row of `table`; attributes without a row are passed over.
template <class W, std::size_t N>
void decodeFields(std::span<const uint8_t> payload, const FieldTable<W, N>& table, W& wire, const FieldContext& context) {
  core::forEachAttr(payload, [&](const nlattr* a) { table.decode(a, wire, context); });
}

/// A row of a table whose put may need the request's Operation besides the options (an
/// action list, a u32 selector: their errors name the request). `field` is an ordinary row
/// (type, get, and the put of a row that needs no Operation); `put`, when set, writes instead
/// of field.put. FieldTable's rows stay as they are; a TcTable holds both kinds in one order.
/// A key that depends on other attributes (flower's: a MAC or an address beside its mask, ports
/// by ip_proto) reads with `getIn`, which sees the whole nest, for its own type and `also`'s
/// (its mask, its other family's or protocol's attributes); false keeps the attribute raw.
template <class Info>
struct TcField {
  AttrField<Info> field;
  void (*put)(core::MessageWriter& w, const Info& info, const Operation& operation) = nullptr;
  bool (*getIn)(const nlattr* attr, const core::AttrTable& nest, Info& info) = nullptr;
  std::array<uint16_t, 3> also{};
};

/// `row` decoded only: a value the kernel reports (counters, ids) that a request never carries.
template <class Info>
constexpr AttrField<Info> reportedOnly(AttrField<Info> row) {
  row.put = nullptr;
  return row;
}

/// The rows of a classifier's options: decoded through a FieldTable of the same rows (by
/// attribute type), then by the getIn rows; encoded by encodeRows.
template <class Info, std::size_t N>
class TcTable {
 public:
  constexpr TcTable(const TcField<Info> (&rows)[N]) : fields_(fieldsOf(rows)) {
    for (std::size_t i = 0; i < N; ++i) rows_[i] = rows[i];
  }

  /// The attributes of `nest` by their rows; those without a row (or left unread) go to `rest`.
  void decode(const nlattr* nest, Info& info, RawAttributes& rest) const {
    std::optional<core::AttrTable> all;  // the nest by type, built for the first getIn row
    auto dependent = [&](const nlattr* a) {
      uint16_t type = core::attrType(a);
      for (const auto& row : rows_)
        if (row.getIn && (row.field.type == type || (type && std::ranges::count(row.also, type))))
          return row.getIn(a, all ? *all : all.emplace(core::AttrTable::ofNest(nest, 127)), info);
      return false;
    };
    fields_.decodeAll(core::nestPayload(nest), info, FieldContext{"filter"}, dependent, rest);
  }

 private:
  static constexpr FieldTable<Info, N> fieldsOf(const TcField<Info> (&rows)[N]) {
    AttrField<Info> fields[N];
    for (std::size_t i = 0; i < N; ++i) fields[i] = rows[i].field;
    return FieldTable<Info, N>(fields);
  }
  std::array<TcField<Info>, N> rows_{};
  FieldTable<Info, N> fields_;
};

template <class Info, std::size_t N>
TcTable(const TcField<Info> (&)[N]) -> TcTable<Info, N>;

/// The rows of `kRows` written in their order with the request's Operation, each row's put
/// called by name rather than through the table: the compiler inlines them, and a flower line
/// of a 100,000-line -batch pays no indirect call per key it does not set (~230 instructions).
template <const auto& kRows, std::size_t I, class Info>
void encodeRow(core::MessageWriter& w, const Info& info, const Operation& operation) {
  constexpr const auto& row = kRows[I];
  // Plain ifs on constant rows (folded all the same): GCC's sanitizer build refuses a function
  // pointer made from a lambda compared with nullptr in `if constexpr`.
  if (row.put != nullptr) row.put(w, info, operation);
  else if (row.field.put != nullptr) row.field.put(w, row.field, info);
}
template <const auto& kRows, class Info>
void encodeRows(core::MessageWriter& w, const Info& info, const Operation& operation) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (encodeRow<kRows, I>(w, info, operation), ...);
  }(std::make_index_sequence<std::size(kRows)>());
}

/// The position of T among a std::variant's alternatives.
template <class T, class Variant>
struct VariantIndex;
template <class T, class... Ts>
struct VariantIndex<T, std::variant<Ts...>> {
  static constexpr std::size_t value = [] {
    std::size_t i = 0;
    (void)((std::is_same_v<T, Ts> ? true : (++i, false)) || ...);
    return i;
  }();
};

}  // namespace fastlink::rtnl
