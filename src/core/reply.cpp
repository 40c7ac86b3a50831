// Reply checking and ACK decoding: every datagram the engine reads passes through here.
#include <linux/netlink.h>

#include <cstdint>
#include <cstring>

#include "core/asan_poison.hpp"
#include "core/ack_warning.hpp"
#include "core/engine.hpp"
#include "core/message.hpp"
#include "core/message_walk.hpp"
#include "fastlink/error.hpp"
#include "fastlink/warnings.hpp"

namespace fastlink::core {
namespace {

// Extended-ACK attributes follow the error header; when the ACK is not capped the original
// request is echoed first, and the attributes start after it.
std::span<const uint8_t> ackTlvs(const nlmsghdr* message, std::size_t fixedSize, std::size_t echoedLength) {
  std::size_t offset = NLMSG_HDRLEN + fixedSize + echoedLength;
  offset = NLMSG_ALIGN(offset);
  if (!(message->nlmsg_flags & NLM_F_ACK_TLVS) || message->nlmsg_len <= offset) return {};
  return {reinterpret_cast<const uint8_t*>(message) + offset, message->nlmsg_len - offset};
}

// A TLV too short for its type is skipped: the errno the kernel sent matters more than the
// decoration, and throwing here would lose it (and, in a batch, the rest of the window).
std::optional<uint32_t> u32If(const nlattr* a) {
  if (!a || readBytes(a).size() < sizeof(uint32_t)) return std::nullopt;
  return readU32(a);
}

Error makeError(int negativeErrno, std::span<const uint8_t> tlvs, const std::string& operation) {
  std::string extack;
  AttrTable t(tlvs, NLMSGERR_ATTR_MAX);
  if (auto* m = t.get(NLMSGERR_ATTR_MSG)) extack = readString(m);
  std::optional<uint32_t> offset = u32If(t.get(NLMSGERR_ATTR_OFFS));
  // The kernel names a missing attribute by type rather than in words; say so plainly.
  if (auto missing = u32If(t.get(NLMSGERR_ATTR_MISS_TYPE)); missing && extack.empty())
    extack = "missing attribute (type " + std::to_string(*missing) + ")";
  // Negate in unsigned arithmetic: -INT_MIN would be undefined behaviour.
  int code = static_cast<int>(0u - static_cast<unsigned>(negativeErrno));
  return Error(std::error_code(code, std::generic_category()), operation, std::move(extack), offset);
}

WarningHandler& warningHandler() {
  static WarningHandler handler;
  return handler;
}

}  // namespace

std::optional<Error> errorFromAck(const nlmsghdr* message, const std::string& operation) {
  if (message->nlmsg_type == NLMSG_DONE) {
    // A dump may end with an error: NLMSG_DONE then carries a negative errno (and extack).
    if (message->nlmsg_len < NLMSG_HDRLEN + sizeof(int)) return std::nullopt;
    int code;
    std::memcpy(&code, reinterpret_cast<const uint8_t*>(message) + NLMSG_HDRLEN, sizeof code);
    if (code >= 0) return std::nullopt;
    return makeError(code, ackTlvs(message, sizeof(int), 0), operation);
  }
  const auto* err = messageHeader<nlmsgerr>(message);
  if (!err) return Error(make_error_code(Errc::malformed_reply), operation, "short error message");
  if (err->error == 0) return std::nullopt;
  std::size_t echoed = (message->nlmsg_flags & NLM_F_CAPPED) ? 0 : err->msg.nlmsg_len - NLMSG_HDRLEN;
  return makeError(err->error, ackTlvs(message, sizeof(nlmsgerr), echoed), operation);
}

bool isPositiveAck(const nlmsghdr* message) {
  const auto* err = messageHeader<nlmsgerr>(message);
  return message->nlmsg_type == NLMSG_ERROR && err && err->error == 0;
}

void reportAckWarning(const nlmsghdr* message) {
  // Cheap for the common ACK: no TLVs, no work; no handler, no decoding.
  if (!(message->nlmsg_flags & NLM_F_ACK_TLVS) || !warningHandler()) return;
  // A success never echoes the request (the kernel marks it capped), so the TLVs follow the header.
  AttrTable t(ackTlvs(message, sizeof(nlmsgerr), 0), NLMSGERR_ATTR_MAX);
  if (auto* m = t.get(NLMSGERR_ATTR_MSG)) {
    std::string text = readString(m);
    if (!text.empty()) warningHandler()(text);
  }
}

}  // namespace fastlink::core

namespace fastlink {

void setWarningHandler(WarningHandler handler) { core::warningHandler() = std::move(handler); }

}  // namespace fastlink

namespace fastlink::core {

std::span<const nlmsghdr* const> Engine::receiveChecked(uint32_t firstSeq, uint32_t count, ReceiveMode mode,
                                                        ReceiveMemory* into) {
  accepted_.clear();
  std::span<uint8_t> buffer;
  if (into) {
    buffer = into->room(0);
  } else {
    unpoisonReceived(receiveBuffer_);  // a dump poisons it between datagrams (core/asan_poison.hpp)
    buffer = receiveBuffer_;
  }
  // The end of the caller's memory may be too small for a dump datagram: peek there.
  if (mode == ReceiveMode::Straight && buffer.size() < kDumpDatagramBound) mode = ReceiveMode::Whole;
  last_ = transport_->receive(buffer, mode);
  while (last_.tooLarge && mode == ReceiveMode::Whole) {
    // Grow to what the datagram needs (rounded up) and read it again: it is still queued.
    if (into) {
      buffer = into->room(last_.length);
    } else {
      receiveBuffer_.resize((last_.length + 4095) & ~std::size_t{4095});
      buffer = receiveBuffer_;
      ++counters_.receiveBufferGrowths;
    }
    last_ = transport_->receive(buffer, mode);
  }
  if (last_.none) return {};
  ++counters_.receiveCalls;
  counters_.bytesReceived += last_.length;
  // Cut off (the dump that read it starts again), or not from the kernel (only it may answer us).
  if (last_.tooLarge || last_.senderPortId != 0) {
    counters_.droppedForeign += last_.senderPortId != 0;
    return {};
  }
  const auto* message = reinterpret_cast<const nlmsghdr*>(buffer.data());
  int remaining = static_cast<int>(last_.length);
  uint32_t portId = transport_->portId();
  // mnl_nlmsg_next, inline: this loop runs for every message of every dump.
  auto next = [&](const nlmsghdr* m) {
    remaining -= static_cast<int>(NLMSG_ALIGN(m->nlmsg_len));
    return reinterpret_cast<const nlmsghdr*>(reinterpret_cast<const uint8_t*>(m) + NLMSG_ALIGN(m->nlmsg_len));
  };
  for (; messageFits(message, remaining); message = next(message)) {
    if (message->nlmsg_pid != portId) {
      ++counters_.droppedForeign;
      continue;
    }
    // Unsigned subtraction keeps this right across sequence-number wrap-around.
    if (message->nlmsg_seq - firstSeq >= count) {
      ++counters_.droppedUnexpected;
      continue;
    }
    accepted_.push_back(message);
  }
  return accepted_;
}

void Engine::receiveReplies(uint32_t firstSeq, uint32_t count, const MessageHandler& onMessage) {
  // Walked from a vector of our own: a handler that reaches the engine again (it should not:
  // the receive buffer is shared) cannot reallocate what this loop reads.
  std::vector<const nlmsghdr*> replies;
  auto checked = receiveChecked(firstSeq, count);
  replies.swap(accepted_);
  for (const nlmsghdr* m : checked) onMessage(m);
  if (accepted_.empty()) replies.swap(accepted_);  // keep the capacity for the next datagram
}

uint32_t Engine::stamp(std::span<const uint8_t> messages, std::vector<uint8_t>& out, bool ackLast) {
  std::size_t at = out.size();
  out.resize(at + messages.size());
  std::memcpy(out.data() + at, messages.data(), messages.size());
  uint32_t count = 0;
  std::size_t last = SIZE_MAX;
  // Walk the copy: each message's own length says where the next starts.
  while (at + NLMSG_HDRLEN <= out.size()) {
    auto* h = reinterpret_cast<nlmsghdr*>(out.data() + at);
    if (h->nlmsg_len < NLMSG_HDRLEN || at + h->nlmsg_len > out.size()) break;
    h->nlmsg_seq = nextSeq_++;
    h->nlmsg_pid = 0;
    h->nlmsg_flags = static_cast<uint16_t>((h->nlmsg_flags | NLM_F_REQUEST) & ~NLM_F_ACK);
    last = at;
    ++count;
    std::size_t next = at + NLMSG_ALIGN(h->nlmsg_len);
    if (next > out.size()) out.resize(next, 0);  // a caller's unpadded last message
    at = next;
  }
  if (last == SIZE_MAX) throw Error::invalidArgument("send request", "empty or malformed request");
  if (ackLast) reinterpret_cast<nlmsghdr*>(out.data() + last)->nlmsg_flags |= NLM_F_ACK;
  return count;
}

}  // namespace fastlink::core
