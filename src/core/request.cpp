// Request: one or more encoded messages plus a description formatted on demand.
#include "fastlink/request.hpp"

#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <cstring>

#include "fastlink/raw_attributes.hpp"

namespace fastlink {
namespace {

uint32_t lengthAt(std::span<const uint8_t> bytes, std::size_t at) {
  uint32_t len = 0;
  std::memcpy(&len, bytes.data() + at, sizeof len);
  return len;
}

/// The delete message type that undoes a create of `type`, or 0.
uint16_t undoType(uint16_t type) {
  switch (type) {
    case RTM_NEWROUTE: return RTM_DELROUTE;
    case RTM_NEWADDR: return RTM_DELADDR;
    case RTM_NEWNEIGH: return RTM_DELNEIGH;
    default: return 0;
  }
}

}  // namespace

bool Request::hasExactUndo() const {
  if (bytes_.size() < NLMSG_HDRLEN) return false;
  nlmsghdr h;
  std::memcpy(&h, bytes_.data(), sizeof h);
  // One message only: an undo of several would have to know which of them were applied.
  if (NLMSG_ALIGN(h.nlmsg_len) != bytes_.size() && h.nlmsg_len != bytes_.size()) return false;
  constexpr uint16_t kCreateExcl = NLM_F_CREATE | NLM_F_EXCL;
  if ((h.nlmsg_flags & (kCreateExcl | NLM_F_REPLACE | NLM_F_APPEND)) != kCreateExcl) return false;
  return undoType(h.nlmsg_type) != 0;
}

std::optional<Request> Request::exactUndo() const {
  if (!hasExactUndo()) return std::nullopt;
  std::vector<uint8_t> bytes = bytes_;
  nlmsghdr h;
  std::memcpy(&h, bytes.data(), sizeof h);
  h.nlmsg_type = undoType(h.nlmsg_type);
  h.nlmsg_flags = NLM_F_REQUEST;  // the sender adds NLM_F_ACK
  std::memcpy(bytes.data(), &h, sizeof h);
  std::string what = operation();
  return Request(std::move(bytes), [what] { return "undo of: " + what; }, keepAlive_);
}

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
