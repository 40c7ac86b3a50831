// IP prefixes (address + length) and address scopes, shared by addresses and routes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "fastlink/types.hpp"

namespace fastlink {

/// An IPv4 or IPv6 prefix: "10.0.0.0/24", "2001:db8::/32". A host address is a prefix of
/// length 32 (IPv4) or 128 (IPv6). The address is kept as given: host bits are not cleared,
/// so "10.0.0.1/24" (an interface address) stays what it is; use masked() for the network.
class Prefix {
 public:
  Prefix() = default;
  /// Throws fastlink::Error (EINVAL) when `length` exceeds the family's width.
  Prefix(IpAddress address, uint8_t length) : address_(address), length_(length) {
    if (length > maxLength()) tooLong(address, length);
  }
  /// A host prefix (/32 or /128).
  explicit Prefix(IpAddress address);

  /// Parses "ADDR/LEN" or "ADDR" (host prefix). Throws fastlink::Error (EINVAL) with a clear
  /// message for a bad address or a length beyond 32/128 ("10.0.0.1/33").
  static Prefix parse(std::string_view text);
  /// The default route's prefix of a family: 0.0.0.0/0 or ::/0.
  static Prefix any(IpAddress::Family family);

  const IpAddress& address() const { return address_; }
  uint8_t length() const { return length_; }
  IpAddress::Family family() const { return address_.family(); }
  bool isV4() const { return address_.isV4(); }
  /// 32 or 128.
  uint8_t maxLength() const { return isV4() ? 32 : 128; }
  bool isHost() const { return length_ == maxLength(); }
  bool isDefault() const { return length_ == 0; }

  /// True when bits beyond the prefix length are set (10.0.0.1/24).
  bool hasHostBits() const;
  /// The network: host bits cleared (10.0.0.1/24 -> 10.0.0.0/24).
  Prefix masked() const;
  /// The last address of the prefix (IPv4 broadcast: 10.0.0.1/24 -> 10.0.0.255).
  IpAddress lastAddress() const;
  /// True when `a` lies inside this prefix.
  bool contains(const IpAddress& a) const;

  /// "10.0.0.0/24"; a host prefix prints without its length, like iproute2 ("10.0.0.1").
  std::string toString() const;
  /// Always with the length ("10.0.0.1/32").
  std::string toStringWithLength() const;

  friend bool operator==(const Prefix& a, const Prefix& b) { return a.address_ == b.address_ && a.length_ == b.length_; }

 private:
  [[noreturn]] static void tooLong(const IpAddress& address, uint8_t length);

  IpAddress address_;
  uint8_t length_ = 32;
};

/// Scope of an address or route (how far it is valid). Values other than the named ones are
/// allowed (rt_scopes may name them).
enum class Scope : uint8_t { Universe = 0, Site = 200, Link = 253, Host = 254, Nowhere = 255 };

/// iproute2's name of a scope: "global", "site", "link", "host", "nowhere", else the number.
std::string scopeName(Scope scope);
/// Parses a scope name (as above, also names from /etc/iproute2/rt_scopes) or a number 0-255.
/// Throws fastlink::Error (EINVAL).
Scope parseScope(std::string_view text);

}  // namespace fastlink
