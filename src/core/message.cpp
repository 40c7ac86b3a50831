#include "core/message.hpp"

#include <arpa/inet.h>
#include <libmnl/libmnl.h>

#include "fastlink/error.hpp"

namespace fastlink::core {
namespace {

[[noreturn]] void tooLarge() {
  throw Error(std::make_error_code(std::errc::message_size), "encode request",
              "request larger than " + std::to_string(MessageWriter::kMaxMessage) + " bytes");
}

[[noreturn]] void malformed(const char* what) {
  throw Error(make_error_code(Errc::malformed_reply), "decode reply", std::string("attribute too short for ") + what);
}

}  // namespace

namespace {

// Building a request used to allocate (and free) a 32 KiB buffer each time: a measurable share
// of a batched request's cost. Buffers are recycled per thread instead; a free list rather than
// one buffer, because a writer may be alive while another is built (a request made inside a
// dump callback).
std::vector<std::unique_ptr<uint8_t[]>>& spareBuffers() {
  thread_local std::vector<std::unique_ptr<uint8_t[]>> spares;
  return spares;
}

std::unique_ptr<uint8_t[]> takeBuffer() {
  auto& spares = spareBuffers();
  if (spares.empty()) return std::unique_ptr<uint8_t[]>(new uint8_t[MessageWriter::kMaxMessage]);
  auto buffer = std::move(spares.back());
  spares.pop_back();
  return buffer;
}

}  // namespace

MessageWriter::~MessageWriter() {
  constexpr std::size_t kMaxSpares = 8;
  if (buffer_ && spareBuffers().size() < kMaxSpares) spareBuffers().push_back(std::move(buffer_));
}

MessageWriter::MessageWriter(uint16_t type, uint16_t flags) : buffer_(takeBuffer()) {
  nlmsghdr* h = mnl_nlmsg_put_header(buffer_.get());
  h->nlmsg_type = type;
  h->nlmsg_flags = NLM_F_REQUEST | flags;
}

void* MessageWriter::putExtraHeader(std::size_t size) {
  if (size + header()->nlmsg_len > kMaxMessage) tooLarge();
  return mnl_nlmsg_put_extra_header(header(), size);
}

void MessageWriter::put(uint16_t type, const void* data, std::size_t length) {
  if (!mnl_attr_put_check(header(), kMaxMessage, type, length, data)) tooLarge();
  std::memset(buffer_.get() + header()->nlmsg_len - (MNL_ALIGN(length) - length), 0, MNL_ALIGN(length) - length);  // libmnl 1.0.4 leaves padding unzeroed
}

void MessageWriter::putU8(uint16_t type, uint8_t value) { put(type, &value, sizeof value); }
void MessageWriter::putU16(uint16_t type, uint16_t value) { put(type, &value, sizeof value); }
void MessageWriter::putU32(uint16_t type, uint32_t value) { put(type, &value, sizeof value); }
void MessageWriter::putS32(uint16_t type, int32_t value) { put(type, &value, sizeof value); }
void MessageWriter::putU64(uint16_t type, uint64_t value) { put(type, &value, sizeof value); }
void MessageWriter::putBe16(uint16_t type, uint16_t hostValue) {
  uint16_t v = htons(hostValue);
  put(type, &v, sizeof v);
}
void MessageWriter::putString(uint16_t type, std::string_view value) {
  // Length includes the terminating NUL, as the kernel's NLA_STRING/NLA_NUL_STRING expect.
  if (value.size() + 1 + header()->nlmsg_len + MNL_ATTR_HDRLEN > kMaxMessage) tooLarge();
  nlattr* attr = reinterpret_cast<nlattr*>(reinterpret_cast<uint8_t*>(header()) + MNL_ALIGN(header()->nlmsg_len));
  attr->nla_type = type;
  attr->nla_len = static_cast<uint16_t>(MNL_ATTR_HDRLEN + value.size() + 1);
  auto* payload = static_cast<char*>(mnl_attr_get_payload(attr));
  std::memcpy(payload, value.data(), value.size());
  payload[value.size()] = '\0';
  std::size_t padded = MNL_ALIGN(attr->nla_len);
  std::memset(payload + value.size() + 1, 0, padded - attr->nla_len);
  header()->nlmsg_len += padded;
}
void MessageWriter::putBytes(uint16_t type, std::span<const uint8_t> value) { put(type, value.data(), value.size()); }
void MessageWriter::putFlag(uint16_t type) { put(type, nullptr, 0); }

std::size_t MessageWriter::beginNest(uint16_t type) {
  nlattr* nest = mnl_attr_nest_start_check(header(), kMaxMessage, type);
  if (!nest) tooLarge();
  return reinterpret_cast<uint8_t*>(nest) - buffer_.get();
}

void MessageWriter::endNest(std::size_t offset) {
  mnl_attr_nest_end(header(), reinterpret_cast<nlattr*>(buffer_.get() + offset));
}

void MessageWriter::cancelNest(std::size_t offset) {
  mnl_attr_nest_cancel(header(), reinterpret_cast<nlattr*>(buffer_.get() + offset));
}

Request MessageWriter::toRequest(std::string operation, std::vector<std::shared_ptr<const void>> keepAlive) const {
  auto b = bytes();
  return Request(std::vector<uint8_t>(b.begin(), b.end()), std::move(operation), std::move(keepAlive));
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

uint16_t attrType(const nlattr* attr) { return mnl_attr_get_type(attr); }

uint8_t readU8(const nlattr* a) {
  if (mnl_attr_get_payload_len(a) < 1) malformed("u8");
  return mnl_attr_get_u8(a);
}
uint16_t readU16(const nlattr* a) {
  if (mnl_attr_get_payload_len(a) < 2) malformed("u16");
  return mnl_attr_get_u16(a);
}
uint32_t readU32(const nlattr* a) {
  if (mnl_attr_get_payload_len(a) < 4) malformed("u32");
  return mnl_attr_get_u32(a);
}
int32_t readS32(const nlattr* a) { return static_cast<int32_t>(readU32(a)); }
uint64_t readU64(const nlattr* a) {
  if (mnl_attr_get_payload_len(a) < 8) malformed("u64");
  uint64_t v;
  std::memcpy(&v, mnl_attr_get_payload(a), sizeof v);  // the payload is only 4-byte aligned
  return v;
}
uint16_t readBe16(const nlattr* a) { return ntohs(readU16(a)); }
std::string readString(const nlattr* a) {
  const char* p = static_cast<const char*>(mnl_attr_get_payload(a));
  return std::string(p, strnlen(p, mnl_attr_get_payload_len(a)));
}
std::span<const uint8_t> readBytes(const nlattr* a) {
  return {static_cast<const uint8_t*>(mnl_attr_get_payload(a)), mnl_attr_get_payload_len(a)};
}

}  // namespace fastlink::core
