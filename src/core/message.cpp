#include "core/message.hpp"

#include <algorithm>

#include <arpa/inet.h>
#include <libmnl/libmnl.h>

#include "fastlink/error.hpp"

namespace fastlink::core {
namespace {

[[noreturn]] void tooLarge(const char* what, std::size_t limit) {
  throw Error(std::make_error_code(std::errc::message_size), "encode request",
              std::string(what) + " larger than " + std::to_string(limit) + " bytes");
}

[[noreturn]] void malformed(const char* what) {
  throw Error(make_error_code(Errc::malformed_reply), "decode reply", std::string("attribute too short for ") + what);
}

// Most requests (a route, an address, a link change) fit; a bigger one grows by doubling. The
// buffer moves into the Request, so this is also what a Request held in a Batch costs.
constexpr std::size_t kInitialRoom = 256;

}  // namespace

MessageWriter::MessageWriter(uint16_t type, uint16_t flags) : buffer_(kInitialRoom) {
  nlmsghdr* h = mnl_nlmsg_put_header(buffer_.data());
  h->nlmsg_type = type;
  h->nlmsg_flags = NLM_F_REQUEST | flags;
}

// The room check of every put, inlined into the puts of this file (as putAttribute: a flower
// filter's ~15 attributes and nests each paid calls to put, putAttribute and reserveTail, issue
// 33); growing is the rare path. The buffer never grows past kMaxMessage, so a put that fits it
// fits the limit too.
[[gnu::noinline]] static void growTo(std::vector<uint8_t>& buffer, std::size_t needed) {
  if (needed > MessageWriter::kMaxMessage) tooLarge("request", MessageWriter::kMaxMessage);
  buffer.resize(std::min(std::max(buffer.size() * 2, needed), MessageWriter::kMaxMessage));
}

[[gnu::always_inline]] inline uint8_t* MessageWriter::reserveTail(std::size_t extra) {
  std::size_t used = size();
  if (used + extra > buffer_.size()) [[unlikely]] growTo(buffer_, used + extra);
  return buffer_.data() + used;
}

void* MessageWriter::putExtraHeader(std::size_t size) {
  reserveTail(MNL_ALIGN(size));
  return mnl_nlmsg_put_extra_header(header(), size);
}

namespace {

/// Copies n bytes (n <= 16 on the common path) without a call into libc: a flower filter's
/// ~14 attributes each paid a memcpy and a memset call (issue 33). Overlapping word copies, as
/// the compiler does for a constant size.
[[gnu::always_inline]] inline void copyBytes(uint8_t* to, const void* from, std::size_t n) {
  const auto* f = static_cast<const uint8_t*>(from);
  if (n >= 8 && n <= 16) {
    uint64_t a, b;
    std::memcpy(&a, f, 8);
    std::memcpy(&b, f + n - 8, 8);
    std::memcpy(to, &a, 8);
    std::memcpy(to + n - 8, &b, 8);
  } else if (n >= 4 && n < 8) {
    uint32_t a, b;
    std::memcpy(&a, f, 4);
    std::memcpy(&b, f + n - 4, 4);
    std::memcpy(to, &a, 4);
    std::memcpy(to + n - 4, &b, 4);
  } else if (n < 4) {
    for (std::size_t i = 0; i < n; ++i) to[i] = f[i];
  } else {
    std::memcpy(to, f, n);
  }
}

}  // namespace

[[gnu::always_inline]] inline void MessageWriter::putAttribute(uint16_t type, const void* data, std::size_t copied,
                                                               std::size_t length) {
  std::size_t total = MNL_ATTR_HDRLEN + length;
  if (total > kMaxAttribute) tooLarge("attribute", kMaxAttribute);
  std::size_t aligned = MNL_ALIGN(total);
  uint8_t* at = reserveTail(aligned);
  // Padding goes on the wire: the last word zeroed first, the payload written over its start
  // (a string's NUL is a byte of that word).
  std::memset(at + aligned - 4, 0, 4);
  nlattr attr{static_cast<uint16_t>(total), type};
  std::memcpy(at, &attr, sizeof attr);
  copyBytes(at + MNL_ATTR_HDRLEN, data, copied);
  header()->nlmsg_len += static_cast<uint32_t>(aligned);
}

void MessageWriter::put(uint16_t type, const void* data, std::size_t length) { putAttribute(type, data, length, length); }

void MessageWriter::putHeaderBytes(std::span<const uint8_t> header) {
  void* room = putExtraHeader(header.size());
  if (!header.empty()) std::memcpy(room, header.data(), header.size());
}

void MessageWriter::putEncodedAttributes(std::span<const uint8_t> tlvs) {
  uint8_t* at = reserveTail(MNL_ALIGN(tlvs.size()));
  if (!tlvs.empty()) std::memcpy(at, tlvs.data(), tlvs.size());
  std::memset(at + tlvs.size(), 0, MNL_ALIGN(tlvs.size()) - tlvs.size());
  header()->nlmsg_len += static_cast<uint32_t>(MNL_ALIGN(tlvs.size()));
}

void MessageWriter::putU8(uint16_t type, uint8_t value) { putAttribute(type, &value, 1, 1); }
void MessageWriter::putU16(uint16_t type, uint16_t value) { putAttribute(type, &value, 2, 2); }
void MessageWriter::putU32(uint16_t type, uint32_t value) { putAttribute(type, &value, 4, 4); }
void MessageWriter::putS32(uint16_t type, int32_t value) { putAttribute(type, &value, 4, 4); }
void MessageWriter::putU64(uint16_t type, uint64_t value) { putAttribute(type, &value, 8, 8); }
void MessageWriter::putBe16(uint16_t type, uint16_t hostValue) {
  uint16_t v = htons(hostValue);
  putAttribute(type, &v, 2, 2);
}
void MessageWriter::putString(uint16_t type, std::string_view value) {
  // Length includes the terminating NUL, as the kernel's NLA_STRING/NLA_NUL_STRING expect.
  putAttribute(type, value.data(), value.size(), value.size() + 1);
}
void MessageWriter::putBytes(uint16_t type, std::span<const uint8_t> value) { put(type, value.data(), value.size()); }
void MessageWriter::putFlag(uint16_t type) { putAttribute(type, nullptr, 0, 0); }

std::size_t MessageWriter::beginNest(uint16_t type) {
  std::size_t offset = size();
  putAttribute(static_cast<uint16_t>(type | NLA_F_NESTED), nullptr, 0, 0);
  return offset;
}

void MessageWriter::endNest(std::size_t offset) {
  std::size_t length = size() - offset;
  if (length > kMaxAttribute) tooLarge("nested attribute", kMaxAttribute);
  reinterpret_cast<nlattr*>(buffer_.data() + offset)->nla_len = static_cast<uint16_t>(length);
}

void MessageWriter::cancelNest(std::size_t offset) { header()->nlmsg_len = static_cast<uint32_t>(offset); }

std::vector<uint8_t> MessageWriter::release() {
  buffer_.resize(size());  // shrinks the size only: the allocation moves as it is
  return std::move(buffer_);
}

Request MessageWriter::toRequest(std::string operation, Request::KeepAlive keepAlive) {
  return Request(release(), std::move(operation), std::move(keepAlive));
}

Request MessageWriter::toRequest(Request::Describer describe, Request::KeepAlive keepAlive) {
  return Request(release(), std::move(describe), std::move(keepAlive));
}

AttrTable::AttrTable(std::span<const uint8_t> payload, uint16_t maxType) : byType_(maxType + 1u, nullptr) {
  const auto* attr = reinterpret_cast<const nlattr*>(payload.data());
  int remaining = static_cast<int>(payload.size());
  // mnl_attr_ok checks that the header and the whole payload lie inside what is left.
  while (mnl_attr_ok(attr, remaining)) {
    uint16_t type = mnl_attr_get_type(attr);
    if (type <= maxType) byType_[type] = attr;
    all_.push_back(attr);
    attr = mnl_attr_next(attr);
    remaining = static_cast<int>(payload.size() - (reinterpret_cast<const uint8_t*>(attr) - payload.data()));
  }
}

AttrTable AttrTable::ofMessage(const nlmsghdr* message, std::size_t headerSize, uint16_t maxType) {
  std::size_t offset = NLMSG_HDRLEN + MNL_ALIGN(headerSize);
  if (message->nlmsg_len < offset) return AttrTable({}, maxType);
  return AttrTable({reinterpret_cast<const uint8_t*>(message) + offset, message->nlmsg_len - offset}, maxType);
}

AttrTable AttrTable::ofNest(const nlattr* nest, uint16_t maxType) {
  return AttrTable({static_cast<const uint8_t*>(mnl_attr_get_payload(nest)), mnl_attr_get_payload_len(nest)}, maxType);
}

void attributeTooShort(const char* what) { malformed(what); }

uint16_t readBe16(const nlattr* a) { return ntohs(readU16(a)); }
std::string readString(const nlattr* a) {
  const char* p = static_cast<const char*>(mnl_attr_get_payload(a));
  return std::string(p, strnlen(p, mnl_attr_get_payload_len(a)));
}

}  // namespace fastlink::core
