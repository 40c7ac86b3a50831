// Attributes kept as raw bytes: what the kernel sent that fastlink does not decode, and what a
// caller adds to a request that fastlink does not encode.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace fastlink {

/// Attributes the kernel sent that fastlink does not decode into typed fields. Kept as raw
/// type-length-value bytes so nothing is silently lost.
struct RawAttribute {
  uint16_t type;                     ///< attribute type with the nested/byte-order bits cleared
  std::span<const uint8_t> payload;  ///< valid as long as the RawAttributes lives
};

class RawAttributes {
 public:
  void append(uint16_t type, std::span<const uint8_t> payload);
  void reserve(std::size_t bytes) { bytes_.reserve(bytes); }
  std::vector<RawAttribute> list() const;
  std::optional<RawAttribute> find(uint16_t type) const;
  bool empty() const { return bytes_.empty(); }
  std::size_t count() const;
  /// The attributes as they go on the wire (type-length-value, each padded to 4 bytes).
  std::span<const uint8_t> bytes() const { return bytes_; }
  /// Equal when the same attributes are kept in the same order (so that the objects holding
  /// undecoded attributes can default their own operator==).
  friend bool operator==(const RawAttributes&, const RawAttributes&) = default;

 private:
  std::vector<uint8_t> bytes_;  // concatenated TLVs, 4-byte aligned
};

}  // namespace fastlink
