// The attributes of one netlink message indexed by type, in one pass: what the views
// (LinkView, ...) read their fields through. Nothing is copied or allocated; the index points
// into the message, so it is valid only as long as the message's bytes are.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace fastlink::detail {

/// Records, for every attribute type below `count`, the offset of the last well-formed
/// attribute of that type in `attrs` from `base` (the message's first byte); 0 where there is
/// none. The last one, because the owning decoders let a repeated attribute overwrite the earlier.
void indexAttributes(const uint8_t* base, std::span<const uint8_t> attrs, uint32_t* at, std::size_t count);

/// The payload of the attribute at `attr` (its 4-byte header skipped).
std::span<const uint8_t> attributePayload(const uint8_t* attr);

template <std::size_t kTypes>
class AttrIndex {
 public:
  /// Indexes the attributes of `message` (netlink header included) after its family header of
  /// `headerSize` bytes. The caller has checked that the message holds that header.
  AttrIndex(std::span<const uint8_t> message, std::size_t headerSize) : message_(message) {
    std::size_t offset = 16 + ((headerSize + 3) & ~std::size_t{3});  // NLMSG_HDRLEN + NLMSG_ALIGN
    if (message.size() > offset) indexAttributes(message.data(), message.subspan(offset), at_.data(), kTypes);
  }

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
  std::span<const uint8_t> message_;
  std::array<uint32_t, kTypes> at_{};
};

}  // namespace fastlink::detail
