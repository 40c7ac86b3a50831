// Raw requests: caller-built messages through the engine's reply checking and error decoding.
#include <libmnl/libmnl.h>
#include <linux/netlink.h>

#include <cstring>

#include "core/engine.hpp"
#include "core/message.hpp"
#include "fastlink/raw.hpp"

namespace fastlink {
namespace {

std::vector<uint8_t> encode(const RawMessage& m) {
  core::MessageWriter w(m.type, m.flags);
  w.putHeaderBytes(m.header);
  w.putEncodedAttributes(m.attributes.bytes());
  return w.release();
}

RawMessage parseReply(const nlmsghdr* m, std::size_t headerSize) {
  return RawMessage::parse({reinterpret_cast<const uint8_t*>(m), m->nlmsg_len}, headerSize);
}

}  // namespace

RawMessage RawMessage::parse(std::span<const uint8_t> bytes, std::size_t headerSize) {
  if (bytes.size() < NLMSG_HDRLEN + headerSize)
    throw Error(make_error_code(Errc::malformed_reply), "decode raw message", "shorter than its headers");
  const auto* h = reinterpret_cast<const nlmsghdr*>(bytes.data());
  RawMessage out;
  out.type = h->nlmsg_type;
  out.flags = h->nlmsg_flags;
  out.header.assign(bytes.begin() + NLMSG_HDRLEN, bytes.begin() + NLMSG_HDRLEN + headerSize);
  std::size_t offset = NLMSG_HDRLEN + NLMSG_ALIGN(headerSize);
  if (offset < bytes.size()) {
    core::AttrTable t(bytes.subspan(offset), 0);
    for (const nlattr* a : t.all()) out.attributes.append(core::attrType(a), core::readBytes(a));
  }
  return out;
}

Request RawMessage::toRequest(std::string operation) const { return Request(encode(*this), std::move(operation)); }

void RawApi::execute(const RawMessage& message, const std::string& operation) {
  engine_.execute(encode(message), operation);
}

RawMessage RawApi::query(const RawMessage& message, const std::string& operation,
                         std::optional<std::size_t> replyHeaderSize) {
  RawMessage out;
  engine_.query(encode(message), operation,
                [&](const nlmsghdr* m) { out = parseReply(m, replyHeaderSize.value_or(message.header.size())); });
  return out;
}

void RawApi::dump(const RawMessage& message, const std::function<void(const RawMessage&)>& onMessage,
                  const std::string& operation, std::optional<std::size_t> replyHeaderSize,
                  const std::function<void()>& onRestart) {
  std::size_t headerSize = replyHeaderSize.value_or(message.header.size());
  engine_.dump(
      encode(message), operation, [&](const nlmsghdr* m) { onMessage(parseReply(m, headerSize)); }, onRestart);
}

void RawApi::dumpBytes(std::span<const uint8_t> request, const std::function<void(std::span<const uint8_t>)>& onMessage,
                       const std::string& operation, const std::function<void()>& onRestart) {
  engine_.dump(
      request, operation,
      [&](const nlmsghdr* m) { onMessage({reinterpret_cast<const uint8_t*>(m), m->nlmsg_len}); }, onRestart);
}

std::vector<RawMessage> RawApi::dumpAll(const RawMessage& message, const std::string& operation,
                                        std::optional<std::size_t> replyHeaderSize) {
  std::vector<RawMessage> out;
  dump(message, [&](const RawMessage& m) { out.push_back(m); }, operation, replyHeaderSize, [&] { out.clear(); });
  return out;
}

}  // namespace fastlink
