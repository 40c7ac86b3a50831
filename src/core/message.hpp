// Message codec: building one netlink message, and reading attributes out of one.
#pragma once

#include <linux/netlink.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fastlink/request.hpp"

namespace fastlink::core {

/// Builds one netlink message in a growing buffer that becomes the Request's storage by move
/// (no copy). Every put is bounds-checked: an attribute or nest longer than its 16-bit length
/// field can say, or a message over kMaxMessage, is an error, never a silent truncation.
/// A reference returned by putHeader stays valid until the next put (the buffer may move).
class MessageWriter {
 public:
  /// A message is bounded by the socket's send buffer (4 MiB), not by an attribute's u16 length.
  static constexpr std::size_t kMaxMessage = 4 * 1024 * 1024;
  /// An attribute (or nest) with its 4-byte header: nla_len is 16 bits.
  static constexpr std::size_t kMaxAttribute = 0xffff;

  MessageWriter(uint16_t type, uint16_t flags);
  MessageWriter(const MessageWriter&) = delete;
  MessageWriter& operator=(const MessageWriter&) = delete;

  /// Appends the family header (ifinfomsg, rtmsg, ...) zero-filled, and returns it.
  template <class Header>
  Header& putHeader() {
    return *static_cast<Header*>(putExtraHeader(sizeof(Header)));
  }

  /// Appends a family header given as bytes (a raw request's), zero-padded to 4 bytes.
  void putHeaderBytes(std::span<const uint8_t> header);
  /// Appends attributes already encoded as TLVs (RawAttributes::bytes()).
  void putEncodedAttributes(std::span<const uint8_t> tlvs);

  void putU8(uint16_t type, uint8_t value);
  void putU16(uint16_t type, uint16_t value);
  void putU32(uint16_t type, uint32_t value);
  void putS32(uint16_t type, int32_t value);
  void putU64(uint16_t type, uint64_t value);
  void putBe16(uint16_t type, uint16_t hostValue);  ///< network byte order on the wire
  void putString(uint16_t type, std::string_view value);  ///< NUL-terminated
  void putBytes(uint16_t type, std::span<const uint8_t> value);
  void putFlag(uint16_t type);

  /// Starts a nested attribute; returns its offset for endNest/cancelNest.
  std::size_t beginNest(uint16_t type);
  /// Closes a nest; throws Error(EMSGSIZE) when it grew past kMaxAttribute.
  void endNest(std::size_t offset);
  /// Drops a nest that turned out empty or invalid, with everything put in it.
  void cancelNest(std::size_t offset);

  nlmsghdr* header() { return reinterpret_cast<nlmsghdr*>(buffer_.data()); }
  std::size_t size() const { return reinterpret_cast<const nlmsghdr*>(buffer_.data())->nlmsg_len; }
  std::span<const uint8_t> bytes() const { return {buffer_.data(), size()}; }

  /// Hands the finished message to a Request (by move: the writer is empty afterwards and
  /// must not be used again).
  Request toRequest(std::string operation, Request::KeepAlive keepAlive = {});
  /// Same, with the description formatted only if it is ever needed (see Request::Describer).
  Request toRequest(Request::Describer describe, Request::KeepAlive keepAlive = {});
  /// Takes the finished message's bytes (the writer is empty afterwards).
  std::vector<uint8_t> release();

 private:
  void* putExtraHeader(std::size_t size);
  void put(uint16_t type, const void* data, std::size_t length);
  /// An attribute of `length` payload bytes, the first `copied` from data, the rest zero.
  void putAttribute(uint16_t type, const void* data, std::size_t copied, std::size_t length);
  /// Makes room for `extra` more bytes after the message; returns where they start.
  uint8_t* reserveTail(std::size_t extra);

  std::vector<uint8_t> buffer_;  // size() is the room allocated; nlmsg_len what is used
};

/// Index of the attributes found in a payload: O(1) lookup by type, plus the full list in
/// order so undecoded attributes can be kept raw.
class AttrTable {
 public:
  /// Parses `payload`; attributes with type > maxType are kept in all() only.
  AttrTable(std::span<const uint8_t> payload, uint16_t maxType);
  /// Parses the payload of a message after its family header of `headerSize` bytes.
  static AttrTable ofMessage(const nlmsghdr* message, std::size_t headerSize, uint16_t maxType);
  /// Parses the payload of a nested attribute.
  static AttrTable ofNest(const nlattr* nest, uint16_t maxType);

  const nlattr* get(uint16_t type) const { return type < byType_.size() ? byType_[type] : nullptr; }
  bool has(uint16_t type) const { return get(type) != nullptr; }
  const std::vector<const nlattr*>& all() const { return all_; }

 private:
  std::vector<const nlattr*> byType_;
  std::vector<const nlattr*> all_;
};

// Typed readers: each checks the payload length and throws Error(Errc::malformed_reply) when
// the kernel sent something shorter than the type needs. Inline: they are what every decoder
// and view reads per field (a call into libmnl per field cost the views a third of their time).
[[noreturn]] void attributeTooShort(const char* what);

inline std::span<const uint8_t> readBytes(const nlattr* attr) {
  return {reinterpret_cast<const uint8_t*>(attr) + NLA_HDRLEN, static_cast<std::size_t>(attr->nla_len - NLA_HDRLEN)};
}
/// The payload copied, for a value that outlives the message (a cookie, a label bitmap).
inline std::vector<uint8_t> copyBytes(const nlattr* attr) {
  std::span<const uint8_t> b = readBytes(attr);
  return {b.begin(), b.end()};
}
/// The payload as a V (host order), at least sizeof(V) bytes of it.
template <class V>
V readScalar(const nlattr* attr, const char* what) {
  if (attr->nla_len < NLA_HDRLEN + sizeof(V)) attributeTooShort(what);
  V v;
  std::memcpy(&v, reinterpret_cast<const uint8_t*>(attr) + NLA_HDRLEN, sizeof v);  // only 4-byte aligned
  return v;
}
inline uint8_t readU8(const nlattr* attr) { return readScalar<uint8_t>(attr, "u8"); }
inline uint16_t readU16(const nlattr* attr) { return readScalar<uint16_t>(attr, "u16"); }
inline uint32_t readU32(const nlattr* attr) { return readScalar<uint32_t>(attr, "u32"); }
inline int32_t readS32(const nlattr* attr) { return static_cast<int32_t>(readU32(attr)); }
inline uint64_t readU64(const nlattr* attr) { return readScalar<uint64_t>(attr, "u64"); }
uint16_t readBe16(const nlattr* attr);
std::string readString(const nlattr* attr);
/// Without the NESTED / BYTEORDER bits.
inline uint16_t attrType(const nlattr* attr) { return attr->nla_type & NLA_TYPE_MASK; }

/// Payload of a message after its netlink header.
template <class Header>
const Header* messageHeader(const nlmsghdr* message) {
  if (message->nlmsg_len < NLMSG_HDRLEN + sizeof(Header)) return nullptr;
  return reinterpret_cast<const Header*>(reinterpret_cast<const uint8_t*>(message) + NLMSG_HDRLEN);
}

}  // namespace fastlink::core
