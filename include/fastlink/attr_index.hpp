// The attributes of one netlink message indexed by type, in one pass: what the views
// (LinkView, ...) read their fields through. Nothing is copied or allocated; the index points
// into the message, so it is valid only as long as the message's bytes are.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <utility>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace fastlink::detail {

/// The payload of the attribute at `attr` (its 4-byte header skipped).
inline std::span<const uint8_t> attributePayload(const uint8_t* attr) {
  uint16_t length;
  std::memcpy(&length, attr, sizeof length);
  return {attr + 4, static_cast<std::size_t>(length - 4)};
}

/// The errors of the inline readers below, the owning decoders' own (out of line: cold).
[[noreturn]] void attributeTooShort(const char* what);                  ///< as core::readU32
[[noreturn]] void badAddressLength(std::size_t size, const char* what);  ///< as rtnl::readAddress

/// The u32 payload (host order) of the attribute at `attr`, as the decoders' core::readU32
/// reads it: at least 4 bytes, else their Error(malformed_reply).
inline uint32_t u32At(const uint8_t* attr) {
  uint16_t length;
  std::memcpy(&length, attr, sizeof length);
  if (length < 4 + sizeof(uint32_t)) attributeTooShort("u32");
  uint32_t v;
  std::memcpy(&v, attr + 4, sizeof v);
  return v;
}

template <std::size_t kTypes>
class AttrIndex {
 public:
  /// Indexes the attributes of `message` (netlink header included) after its family header of
  /// `headerSize` bytes: for every type below kTypes, the last well-formed attribute of that
  /// type (the owning decoders let a repeated attribute overwrite the earlier). The caller has
  /// checked that the message holds that header.
  AttrIndex(std::span<const uint8_t> message, std::size_t headerSize) : message_(message) {
    clear();
    std::size_t offset = 16 + ((headerSize + 3) & ~std::size_t{3});  // NLMSG_HDRLEN + NLMSG_ALIGN
    if (message.size() <= offset) return;
    // indexAttributes, inline (views are built once per dumped message): each attribute's
    // header and payload must lie inside what is left, as mnl_attr_ok checks. `room` is what is
    // left after the current attribute's header: one unsigned compare checks both its length's
    // bounds (a length below 4 wraps), and its sign ends the loop (15 instructions an attribute
    // where a loop on the offset and the end took 21: a link message has ~60).
    const uint8_t* base = message.data();
    std::size_t at = offset;
    auto room = static_cast<std::ptrdiff_t>(message.size() - offset) - 4;
    while (room >= 0) {
      uint32_t header;  // nla_len, then nla_type (little-endian hosts first: netlink is host order)
      std::memcpy(&header, base + at, 4);
      uint32_t length = header & 0xffff, type = (header >> 16) & 0x3fff;  // type & NLA_TYPE_MASK
      if constexpr (std::endian::native == std::endian::big) length = header >> 16, type = header & 0x3fff;
      if (std::size_t{length} - 4 > static_cast<std::size_t>(room)) break;
      if (type < kTypes) at_[type] = static_cast<uint32_t>(at);
      std::size_t step = (length + 3) & ~uint32_t{3};
      at += step;
      room -= static_cast<std::ptrdiff_t>(step);
    }
  }

  /// The index of `copy`, a byte copy of the message `of` indexes: the same offsets, no pass.
  AttrIndex(std::span<const uint8_t> copy, const AttrIndex& of) : message_(copy), at_(of.at_) {}

  std::span<const uint8_t> message() const { return message_; }
  /// The attribute of `type` (header included), or nullptr.
  const uint8_t* find(uint16_t type) const { return type < kTypes && at_[type] ? message_.data() + at_[type] : nullptr; }
  /// Its payload, or std::nullopt when the message has no attribute of `type`.
  std::optional<std::span<const uint8_t>> payload(uint16_t type) const {
    const uint8_t* a = find(type);
    if (!a) return std::nullopt;
    return attributePayload(a);
  }

 private:
  static_assert(kTypes % 4 == 0, "the index is cleared 16 bytes at a time");
  // Sixteen bytes a store, unrolled: GCC turns a fill, a memset or a loop of this size into
  // `rep stos`, which costs an instruction per 8 bytes and a slow start, once per dumped message.
  void clear() {
#if defined(__SSE2__)
    [this]<std::size_t... kAt>(std::index_sequence<kAt...>) {
      (_mm_storeu_si128(reinterpret_cast<__m128i*>(at_.data() + 4 * kAt), _mm_setzero_si128()), ...);
    }(std::make_index_sequence<kTypes / 4>());
#else
    at_.fill(0);
#endif
  }

  std::span<const uint8_t> message_;
  std::array<uint32_t, kTypes> at_;  // 0: none (no attribute starts at the message's first byte)
};

}  // namespace fastlink::detail
