// What every view (LinkView, RouteView, AddrView, NeighView) reads through its object's
// FieldTable: the row of a member, found at compile time, read from the view's attribute index
// with fields::view, the reader the owning decoder's row uses. A field is declared once.
#pragma once

#include <linux/netlink.h>

#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include "fastlink/attr_index.hpp"
#include "fastlink/error.hpp"
#include "core/attr_fields.hpp"
#include "rtnl/codec_helpers.hpp"

namespace fastlink::rtnl {

/// The value of `kMember` (a std::optional member of the table's Info) in the message indexed
/// by `attrs`: std::nullopt without its attribute, else what fields::view reads (strings as
/// string_views into the message).
template <const auto& kTable, auto kMember, std::size_t kTypes>
auto viewField(const detail::AttrIndex<kTypes>& attrs, const FieldContext& context) {
  constexpr const auto& row = kTable.template rowOf<kMember>();
  static_assert(row.type < kTypes, "the view's index must cover the row's attribute");
  using Info = decltype(fields::ownerOf(kMember));
  using V = typename std::remove_reference_t<decltype(std::declval<Info&>().*kMember)>::value_type;
  using Out = decltype(fields::view<V, row.wire>(nullptr, context));
  constexpr uint16_t type = row.type;
  const auto* a = reinterpret_cast<const nlattr*>(attrs.find(type));
  if constexpr (std::is_same_v<Out, std::optional<MacAddress>>) {
    return a ? fields::view<V, row.wire>(a, context) : std::nullopt;
  } else {
    return a ? std::optional<Out>(fields::view<V, row.wire>(a, context)) : std::nullopt;
  }
}

/// A view's family header (ifinfomsg, rtmsg, ...) at the start of its message's payload.
template <class Header>
const Header& viewHeader(std::span<const uint8_t> message) {
  return *reinterpret_cast<const Header*>(message.data() + NLMSG_HDRLEN);
}

/// `message` if it holds the netlink header and a `Header`, else Error(malformed_reply) in the
/// decoder's words ("short NOUN message").
template <class Header>
std::span<const uint8_t> checkedView(std::span<const uint8_t> message, const char* operation, const char* noun) {
  if (message.size() < NLMSG_HDRLEN + sizeof(Header))
    throw Error(make_error_code(Errc::malformed_reply), operation, std::string("short ") + noun + " message");
  return message;
}

}  // namespace fastlink::rtnl
