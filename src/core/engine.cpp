#include "core/engine.hpp"

#include <linux/netlink.h>
#include <time.h>

#include <exception>

#include "fastlink/error.hpp"

namespace fastlink::core {

Engine::Engine(int protocol, const NetlinkOptions& options)
    : socket_(protocol, options.netns, options.receiveBufferBytes), dumpRetries_(options.dumpRetries) {
  // Start from the clock like libmnl users do, so replies to an earlier socket that reused
  // our port id cannot be mistaken for ours.
  nextSeq_ = static_cast<uint32_t>(::time(nullptr));
  sendBuffer_.reserve(256 * 1024);
}

void Engine::execute(std::span<const uint8_t> message, const std::string& operation) {
  sendBuffer_.clear();
  uint32_t seq = stamp(message, sendBuffer_, true);
  socket_.send(sendBuffer_);
  ++counters_.sendCalls;
  ++counters_.requestsSent;
  bool done = false;
  std::optional<Error> failure;
  while (!done) {
    receiveReplies(seq, 1, [&](const nlmsghdr* m) {
      if (m->nlmsg_type != NLMSG_ERROR) return;  // a request may also echo (NLM_F_ECHO)
      failure = errorFromAck(m, operation);
      done = true;
    });
  }
  if (failure) throw *failure;
}

void Engine::query(std::span<const uint8_t> message, const std::string& operation, const MessageHandler& onReply) {
  sendBuffer_.clear();
  // No ACK asked: the reply itself confirms success, and a failure still comes as an error.
  uint32_t seq = stamp(message, sendBuffer_, false);
  socket_.send(sendBuffer_);
  ++counters_.sendCalls;
  ++counters_.requestsSent;
  bool done = false;
  std::optional<Error> failure;
  while (!done) {
    receiveReplies(seq, 1, [&](const nlmsghdr* m) {
      if (done) return;
      if (m->nlmsg_type == NLMSG_ERROR) {
        failure = errorFromAck(m, operation);
      } else {
        onReply(m);
      }
      done = true;
    });
  }
  if (failure) throw *failure;
}

void Engine::dump(std::span<const uint8_t> message, const std::string& operation, const MessageHandler& onMessage,
                  const std::function<void()>& onRestart) {
  for (unsigned attempt = 0;; ++attempt) {
    sendBuffer_.clear();
    uint32_t seq = stamp(message, sendBuffer_, false);
    auto* h = reinterpret_cast<nlmsghdr*>(sendBuffer_.data());
    h->nlmsg_flags |= NLM_F_DUMP;
    socket_.send(sendBuffer_);
    ++counters_.sendCalls;
    ++counters_.requestsSent;
    bool done = false, interrupted = false;
    std::optional<Error> failure;
    // If the callback throws, the rest of the dump is still read: the kernel keeps a dump open
    // until it is drained, and would refuse this socket's next dump with EBUSY.
    std::exception_ptr callbackFailure;
    while (!done) {
      receiveReplies(seq, 1, [&](const nlmsghdr* m) {
        if (done) return;
        if (m->nlmsg_flags & NLM_F_DUMP_INTR) interrupted = true;
        if (m->nlmsg_type == NLMSG_DONE || m->nlmsg_type == NLMSG_ERROR) {
          failure = errorFromAck(m, operation);
          done = true;
          return;
        }
        if (callbackFailure) return;
        try {
          onMessage(m);
        } catch (...) {
          callbackFailure = std::current_exception();
        }
      });
    }
    if (callbackFailure) std::rethrow_exception(callbackFailure);
    if (failure) throw *failure;
    if (!interrupted) return;
    if (attempt + 1 > dumpRetries_)
      throw Error(make_error_code(Errc::dump_interrupted), operation,
                  "dump interrupted " + std::to_string(attempt + 1) + " times: the kernel's table kept changing");
    ++counters_.dumpRestarts;
    if (onRestart) onRestart();
  }
}

}  // namespace fastlink::core
