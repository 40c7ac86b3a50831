// Request: one or more encoded messages plus a description formatted on demand.
#include "fastlink/request.hpp"

#include <linux/netlink.h>

#include <cstring>

#include "fastlink/raw_attributes.hpp"

namespace fastlink {
namespace {

uint32_t lengthAt(std::span<const uint8_t> bytes, std::size_t at) {
  uint32_t len = 0;
  std::memcpy(&len, bytes.data() + at, sizeof len);
  return len;
}

}  // namespace

std::size_t Request::messageCount() const {
  std::size_t n = 0;
  for (std::size_t at = 0; at + NLMSG_HDRLEN <= bytes_.size(); ++n) {
    uint32_t len = lengthAt(bytes_, at);
    if (len < NLMSG_HDRLEN) break;
    at += NLMSG_ALIGN(len);
  }
  return n;
}

Request& Request::appendMessage(std::span<const uint8_t> message) {
  if (message.size() < NLMSG_HDRLEN || lengthAt(message, 0) != message.size())
    throw Error::invalidArgument(operation(), "appended message is not one whole netlink message");
  std::size_t at = bytes_.size();
  bytes_.resize(at + NLMSG_ALIGN(message.size()), 0);
  std::memcpy(bytes_.data() + at, message.data(), message.size());
  return *this;
}

Request& Request::appendMessage(Request&& other) {
  if (bytes_.empty()) {
    bytes_ = std::move(other.bytes_);
  } else {
    bytes_.insert(bytes_.end(), other.bytes_.begin(), other.bytes_.end());
  }
  for (auto& k : other.keepAlive_) keepAlive_.push_back(std::move(k));
  other.bytes_.clear();
  other.keepAlive_.clear();
  return *this;
}

Request& Request::appendAttributes(const RawAttributes& attributes) {
  if (bytes_.size() < NLMSG_HDRLEN) throw Error::invalidArgument(operation(), "no message to append attributes to");
  std::size_t last = 0;
  for (std::size_t at = 0; at + NLMSG_HDRLEN <= bytes_.size();) {
    uint32_t len = lengthAt(bytes_, at);
    if (len < NLMSG_HDRLEN || at + len > bytes_.size())
      throw Error::invalidArgument(operation(), "request bytes are not whole netlink messages");
    last = at;
    at += NLMSG_ALIGN(len);
  }
  uint32_t len = lengthAt(bytes_, last);
  // Attributes start 4-byte aligned after the message; the last message ends the buffer.
  std::size_t start = last + NLMSG_ALIGN(len);
  auto extra = attributes.bytes();
  bytes_.resize(start + extra.size(), 0);
  if (!extra.empty()) std::memcpy(bytes_.data() + start, extra.data(), extra.size());
  uint32_t newLen = static_cast<uint32_t>(bytes_.size() - last);
  std::memcpy(bytes_.data() + last, &newLen, sizeof newLen);
  return *this;
}

// Out of line: inlined into every caller it grew them enough to trip GCC 12's
// -Wmaybe-uninitialized false positive on std::variant temporaries (an Ifref built in the call).
Batch& Batch::add(Request request) {
  requests_.push_back(std::move(request));
  return *this;
}

const std::string& Request::operation() const {
  if (describe_) {
    operation_ = describe_();
    describe_ = nullptr;
  }
  return operation_;
}

}  // namespace fastlink
