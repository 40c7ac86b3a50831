// Value types shared by every object API: hardware and IP addresses, device references.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <variant>

namespace fastlink {

/// A link-layer address (6 bytes for Ethernet; other link types use other lengths).
class MacAddress {
 public:
  static constexpr std::size_t kMaxLength = 32;

  MacAddress() = default;
  explicit MacAddress(std::span<const uint8_t> bytes);
  /// Parses "aa:bb:cc:dd:ee:ff" (also '-' separated); throws fastlink::Error (EINVAL).
  static MacAddress parse(std::string_view text);

  std::span<const uint8_t> bytes() const& { return {bytes_.data(), length_}; }
  /// A view into a temporary would dangle at the end of the statement: keep the address.
  std::span<const uint8_t> bytes() const&& = delete;
  std::size_t size() const { return length_; }
  std::string toString() const;

  friend bool operator==(const MacAddress& a, const MacAddress& b) {
    return a.length_ == b.length_ && std::equal(a.bytes_.begin(), a.bytes_.begin() + a.length_, b.bytes_.begin());
  }

 private:
  std::array<uint8_t, kMaxLength> bytes_{};
  std::size_t length_ = 0;
};

/// An IPv4 or IPv6 address.
class IpAddress {
 public:
  enum class Family : uint8_t { v4 = 4, v6 = 6 };

  IpAddress() = default;
  /// Parses dotted IPv4 or RFC 4291 IPv6 text; throws fastlink::Error (EINVAL).
  static IpAddress parse(std::string_view text);
  /// 4 or 16 bytes; throws fastlink::Error (EINVAL) otherwise. Inline: views build one per
  /// address they read.
  static IpAddress fromBytes(std::span<const uint8_t> bytes) {
    IpAddress a;
    if (bytes.size() == 4) {
      std::memcpy(a.bytes_.data(), bytes.data(), 4);  // fixed sizes: two moves, not a copy loop
    } else if (bytes.size() == 16) {
      a.family_ = Family::v6;
      std::memcpy(a.bytes_.data(), bytes.data(), 16);
    } else {
      badLength();
    }
    return a;
  }

  Family family() const { return family_; }
  bool isV4() const { return family_ == Family::v4; }
  std::span<const uint8_t> bytes() const& { return {bytes_.data(), isV4() ? 4u : 16u}; }
  /// A view into a temporary would dangle at the end of the statement: keep the address.
  std::span<const uint8_t> bytes() const&& = delete;
  bool isMulticast() const;
  std::string toString() const;

  friend bool operator==(const IpAddress& a, const IpAddress& b) {
    return a.family_ == b.family_ && a.bytes_ == b.bytes_;
  }

 private:
  [[noreturn]] static void badLength();

  Family family_ = Family::v4;
  std::array<uint8_t, 16> bytes_{};
};

/// Names a network device either by name or by ifindex.
class Ifref {
 public:
  Ifref(std::string name) : ref_(std::move(name)) {}  // NOLINT: implicit on purpose
  Ifref(const char* name) : ref_(std::string(name)) {}  // NOLINT
  Ifref(uint32_t index) : ref_(index) {}  // NOLINT
  Ifref(int index) : ref_(static_cast<uint32_t>(index)) {}  // NOLINT

  bool isName() const { return std::holds_alternative<std::string>(ref_); }
  bool isIndex() const { return !isName(); }
  const std::string& name() const { return std::get<std::string>(ref_); }
  uint32_t index() const { return std::get<uint32_t>(ref_); }
  std::string toString() const { return isName() ? name() : "ifindex " + std::to_string(index()); }

  friend bool operator==(const Ifref&, const Ifref&) = default;

 private:
  std::variant<std::string, uint32_t> ref_;
};

/// Checks an interface name the way the kernel will (1-15 bytes, no '/', ':' or whitespace);
/// throws fastlink::Error (EINVAL) naming the problem.
void validateIfname(std::string_view name);

}  // namespace fastlink
