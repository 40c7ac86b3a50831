#include "fastlink/types.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cstdio>

#include "fastlink/error.hpp"

namespace fastlink {
namespace {

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

MacAddress::MacAddress(std::span<const uint8_t> bytes) {
  if (bytes.size() > kMaxLength) throw Error::invalidArgument("link address", "hardware address longer than 32 bytes");
  std::copy(bytes.begin(), bytes.end(), bytes_.begin());
  length_ = bytes.size();
}

MacAddress MacAddress::parse(std::string_view text) {
  auto bad = [&] { return Error::invalidArgument("link address", "invalid MAC address \"" + std::string(text) + "\""); };
  std::array<uint8_t, kMaxLength> out{};
  std::size_t n = 0, i = 0;
  while (i < text.size()) {
    // Each octet is one or two hex digits, separated by ':' or '-'.
    int hi = hexValue(text[i]);
    if (hi < 0 || n == kMaxLength) throw bad();
    int value = hi;
    ++i;
    if (i < text.size() && hexValue(text[i]) >= 0) value = hi * 16 + hexValue(text[i++]);
    out[n++] = static_cast<uint8_t>(value);
    if (i == text.size()) break;
    if (text[i] != ':' && text[i] != '-') throw bad();
    if (++i == text.size()) throw bad();
  }
  if (n != 6) throw bad();  // Ethernet-style addresses are what users type
  return MacAddress(std::span<const uint8_t>(out.data(), n));
}

std::string MacAddress::toString() const {
  std::string s;
  s.reserve(length_ * 3);
  char buf[4];
  for (std::size_t i = 0; i < length_; ++i) {
    std::snprintf(buf, sizeof buf, i ? ":%02x" : "%02x", bytes_[i]);
    s += buf;
  }
  return s;
}

IpAddress IpAddress::parse(std::string_view text) {
  if (text.find('\0') != std::string_view::npos) throw Error::invalidArgument("address", "invalid IP address: contains a NUL byte");
  IpAddress a;
  std::string s(text);
  if (inet_pton(AF_INET, s.c_str(), a.bytes_.data()) == 1) {
    a.family_ = Family::v4;
    return a;
  }
  if (inet_pton(AF_INET6, s.c_str(), a.bytes_.data()) == 1) {
    a.family_ = Family::v6;
    return a;
  }
  throw Error::invalidArgument("address", "invalid IP address \"" + s + "\"");
}

void IpAddress::badLength() { throw Error::invalidArgument("address", "an IP address has 4 or 16 bytes"); }

bool IpAddress::isMulticast() const { return isV4() ? (bytes_[0] & 0xf0) == 0xe0 : bytes_[0] == 0xff; }

std::string IpAddress::toString() const {
  char buf[INET6_ADDRSTRLEN];
  inet_ntop(isV4() ? AF_INET : AF_INET6, bytes_.data(), buf, sizeof buf);
  return buf;
}

namespace {

// Names are shown in text and JSON output and typed back by users: bytes that are not UTF-8
// would make `-j` output invalid JSON, so they are refused although the kernel takes them.
bool isUtf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    auto c = static_cast<unsigned char>(text[i]);
    std::size_t extra = c < 0x80 ? 0 : (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : 4;
    if (extra == 4 || (extra == 1 && c < 0xC2) || text.size() - i <= extra) return false;
    for (std::size_t k = 1; k <= extra; ++k)
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return false;
    i += extra + 1;
  }
  return true;
}

}  // namespace

void validateIfname(std::string_view name) {
  auto bad = [&](const std::string& why) {
    return Error::invalidArgument("link", "invalid interface name \"" + std::string(name) + "\": " + why);
  };
  if (name.empty()) throw bad("empty");
  if (name.size() > 15) throw bad("longer than 15 bytes");
  if (name == "." || name == "..") throw bad("reserved");
  for (char c : name) {
    if (c == '/' || c == ':') throw bad(std::string("contains '") + c + "'");
    // The kernel's isspace() (lib/ctype.c) also counts Latin-1 NBSP (0xA0) as space.
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == '\0' ||
        static_cast<unsigned char>(c) == 0xA0)
      throw bad("contains whitespace");
  }
  if (!isUtf8(name)) throw bad("not valid UTF-8");
}

}  // namespace fastlink
