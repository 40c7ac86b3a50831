// WgKey (libsodium does the base64, hex, randomness, Curve25519 and constant-time parts) and
// the small value types of WireGuard peers: endpoints and allowed IPs.
#include <sodium.h>

#include <array>
#include <charconv>
#include <cstring>
#include <string>

#include "fastlink/error.hpp"
#include "fastlink/wireguard.hpp"

namespace fastlink {
namespace {

void ensureSodium() {
  // sodium_init is idempotent and thread-safe; it picks the fastest implementations and seeds
  // randombytes. It only fails when no entropy source exists at all.
  static const int result = sodium_init();
  if (result < 0) throw Error(std::make_error_code(std::errc::io_error), "wg genkey", "libsodium could not initialise");
}

// Curve25519 clamping, as `wg genkey` applies it to fresh private keys (RFC 7748, section 5).
void clamp(uint8_t* key) {
  key[0] &= 248;
  key[31] = static_cast<uint8_t>((key[31] & 127) | 64);
}

}  // namespace

WgKey::WgKey(std::span<const uint8_t, kSize> bytes) { std::memcpy(bytes_.data(), bytes.data(), kSize); }

WgKey::~WgKey() { sodium_memzero(bytes_.data(), kSize); }

WgKey WgKey::fromBase64(std::string_view text) {
  // The error says what is wrong, never what was given: the text may be a private key.
  if (text.size() != kBase64Length)
    throw Error::invalidArgument("parse key", "a key is 44 characters of base64 (32 bytes); got " +
                                                  std::to_string(text.size()) + " characters");
  // One spare byte, so that a 33-byte decoding is reported as a wrong length, not as bad base64.
  std::array<uint8_t, kSize + 1> raw{};
  std::size_t length = 0;
  const char* end = nullptr;
  int rc = sodium_base642bin(raw.data(), raw.size(), text.data(), text.size(), nullptr, &length, &end,
                             sodium_base64_VARIANT_ORIGINAL);
  WgKey key;
  std::memcpy(key.bytes_.data(), raw.data(), kSize);
  sodium_memzero(raw.data(), raw.size());
  if (rc != 0 || end != text.data() + text.size()) throw Error::invalidArgument("parse key", "a key must be valid base64");
  if (length != kSize)
    throw Error::invalidArgument("parse key", "the key decodes to " + std::to_string(length) + " bytes, a key is 32");
  return key;
}

WgKey WgKey::fromHex(std::string_view text) {
  if (text.size() != 2 * kSize)
    throw Error::invalidArgument("parse key", "a hex key is 64 digits; got " + std::to_string(text.size()));
  WgKey key;
  std::size_t length = 0;
  const char* end = nullptr;
  if (sodium_hex2bin(key.bytes_.data(), kSize, text.data(), text.size(), nullptr, &length, &end) != 0 ||
      length != kSize || end != text.data() + text.size())
    throw Error::invalidArgument("parse key", "a hex key must be 64 hex digits");
  return key;
}

WgKey WgKey::generatePrivate() {
  WgKey key = generatePreshared();
  clamp(key.bytes_.data());
  return key;
}

WgKey WgKey::generatePreshared() {
  ensureSodium();
  WgKey key;
  randombytes_buf(key.bytes_.data(), kSize);
  return key;
}

WgKey WgKey::publicKey() const {
  ensureSodium();
  WgKey secret = *this;  // wiped by its destructor
  clamp(secret.bytes_.data());
  WgKey pub;
  if (crypto_scalarmult_curve25519_base(pub.bytes_.data(), secret.bytes_.data()) != 0)
    throw Error::invalidArgument("wg pubkey", "the private key gives no valid public key");
  return pub;
}

std::string WgKey::toBase64() const {
  std::string s(kBase64Length, '\0');
  toBase64(std::span<char, kBase64Length>(s.data(), kBase64Length));
  return s;
}

void WgKey::toBase64(std::span<char, kBase64Length> out) const {
  // libsodium writes a terminator: encode into room for it, then copy the text alone.
  char text[sodium_base64_ENCODED_LEN(kSize, sodium_base64_VARIANT_ORIGINAL)];
  static_assert(sizeof text == kBase64Length + 1);
  sodium_bin2base64(text, sizeof text, bytes_.data(), kSize, sodium_base64_VARIANT_ORIGINAL);
  std::memcpy(out.data(), text, kBase64Length);
  sodium_memzero(text, sizeof text);
}

std::string WgKey::toHex() const {
  char out[2 * kSize + 1];
  sodium_bin2hex(out, sizeof out, bytes_.data(), kSize);
  std::string s(out);
  sodium_memzero(out, sizeof out);
  return s;
}

bool WgKey::isZero() const { return sodium_is_zero(bytes_.data(), kSize) == 1; }

bool operator==(const WgKey& a, const WgKey& b) { return sodium_memcmp(a.bytes_.data(), b.bytes_.data(), WgKey::kSize) == 0; }

WgEndpoint WgEndpoint::parse(std::string_view text) {
  // Every error quotes the text, then says what is wrong with it.
  auto bad = [&](const char* why) { return Error::invalidArgument("parse endpoint", "\"" + std::string(text) + "\"" + why); };
  std::string_view host;
  std::string_view port;
  if (text.starts_with('[')) {
    auto close = text.find(']');
    if (close == std::string_view::npos) throw bad(": missing ']'");
    host = text.substr(1, close - 1);
    if (close + 1 >= text.size() || text[close + 1] != ':') throw bad(" has no port ([ADDRESS]:PORT)");
    port = text.substr(close + 2);
  } else {
    auto colon = text.rfind(':');
    if (colon == std::string_view::npos) throw bad(" has no port (ADDRESS:PORT)");
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (host.find(':') != std::string_view::npos) throw bad(": write an IPv6 endpoint as [ADDRESS]:PORT");
  }
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value > 65535)
    throw bad(": port must be 0-65535");
  WgEndpoint e;
  try {
    e.address = IpAddress::parse(host);
  } catch (const Error&) {
    throw bad(": not an IP address (host names are not resolved here)");
  }
  e.port = static_cast<uint16_t>(value);
  return e;
}

std::string WgEndpoint::toString() const {
  return address.isV4() ? address.toString() + ":" + std::to_string(port)
                        : "[" + address.toString() + "]:" + std::to_string(port);
}

WgAllowedIp WgAllowedIp::parse(std::string_view text) {
  Prefix p = Prefix::parse(text);
  if (p.hasHostBits())
    throw Error::invalidArgument("parse allowed IP", "\"" + std::string(text) + "\" has host bits set (did you mean " +
                                                         p.masked().toStringWithLength() + "?)");
  return WgAllowedIp(p);
}

}  // namespace fastlink
