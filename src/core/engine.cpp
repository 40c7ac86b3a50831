#include "core/engine.hpp"

#include <linux/netlink.h>
#include <time.h>

#include <algorithm>
#include <exception>

#include "core/ack_warning.hpp"
#include "core/asan_poison.hpp"
#include "fastlink/error.hpp"

namespace fastlink::core {

Engine::Engine(int protocol, const NetlinkOptions& options)
    : Engine(std::make_unique<NetlinkSocket>(protocol, options.netns, options.receiveBufferBytes), options) {}

Engine::Engine(std::unique_ptr<Transport> transport, const NetlinkOptions& options)
    : transport_(std::move(transport)), dumpRetries_(options.dumpRetries), receiveBuffer_(kReceiveBufferSize) {
  // Start from the clock like libmnl users do, so replies to an earlier socket that reused
  // our port id cannot be mistaken for ours.
  nextSeq_ = static_cast<uint32_t>(::time(nullptr));
  sendBuffer_.reserve(256 * 1024);
}

void Engine::execute(const Request& request) {
  executeMessages(request.bytes(), [&]() -> const std::string& { return request.operation(); });
}

void Engine::execute(std::span<const uint8_t> message, const std::string& operation) {
  executeMessages(message, [&]() -> const std::string& { return operation; });
}

// Every message of the request goes in one sendmsg; only the last asks for an ACK. The kernel
// handles them in order before sendmsg returns and answers a failed one with an error anyway,
// so the last one's ACK (or error) proves the whole request answered, as in a batch window.
void Engine::executeMessages(std::span<const uint8_t> messages, const std::function<const std::string&()>& operation) {
  sendBuffer_.clear();
  uint32_t firstSeq = nextSeq_;
  uint32_t count = stamp(messages, sendBuffer_, true);
  transport_->send(sendBuffer_);
  ++counters_.sendCalls;
  ++counters_.requestsSent;
  bool done = false;
  std::optional<Error> failure;
  while (!done) {
    receiveReplies(firstSeq, count, [&](const nlmsghdr* m) {
      if (m->nlmsg_type != NLMSG_ERROR) return;  // a request may also echo (NLM_F_ECHO)
      uint32_t part = m->nlmsg_seq - firstSeq;
      if (part == count - 1) done = true;
      if (isPositiveAck(m)) return reportAckWarning(m);
      if (failure) return;
      failure = errorFromAck(m, count == 1 ? operation()
                                           : operation() + " (message " + std::to_string(part + 1) + " of " +
                                                 std::to_string(count) + ")");
    });
  }
  if (failure) throw *failure;
}

uint32_t Engine::sendOne(std::span<const uint8_t> message, uint16_t extraFlags) {
  sendBuffer_.clear();
  uint32_t seq = nextSeq_;
  // Only the first message is sent: a query or dump is one message.
  uint32_t len = reinterpret_cast<const nlmsghdr*>(message.data())->nlmsg_len;
  stamp(message.first(std::min<std::size_t>(len, message.size())), sendBuffer_, false);
  reinterpret_cast<nlmsghdr*>(sendBuffer_.data())->nlmsg_flags |= extraFlags;
  transport_->send(sendBuffer_);
  ++counters_.sendCalls;
  ++counters_.requestsSent;
  return seq;
}

void Engine::query(std::span<const uint8_t> message, const std::string& operation, const MessageHandler& onReply) {
  // No ACK asked: the reply itself confirms success, and a failure still comes as an error.
  uint32_t seq = sendOne(message, 0);
  bool done = false;
  std::optional<Error> failure;
  // The reply is handed out in place (getLinkView's view spans it): once the handler is done,
  // returned or thrown, the sanitizer build poisons the buffer, as a dump does per datagram.
  struct PoisonAfter {
    ByteBuffer& buffer;
    ~PoisonAfter() { poisonReceived(buffer); }
  } poisonAfter{receiveBuffer_};
  while (!done) {
    receiveReplies(seq, 1, [&](const nlmsghdr* m) {
      if (done) return;
      if (m->nlmsg_type == NLMSG_ERROR) failure = errorFromAck(m, operation);
      else onReply(m);
      done = true;
    });
  }
  if (failure) throw *failure;
}

void Engine::dump(std::span<const uint8_t> message, const std::string& operation, const MessageHandler& onMessage,
                  const std::function<void()>& onRestart) {
  dumpRuns(
      message, operation,
      [&](std::span<const nlmsghdr* const> run) {
        for (const nlmsghdr* m : run) onMessage(m);
      },
      onRestart);
}

void Engine::dumpRuns(std::span<const uint8_t> message, const std::string& operation, const RunHandler& onRun,
                      const std::function<void()>& onRestart, ReceiveMemory* into) {
  std::vector<const nlmsghdr*> run;  // this datagram's replies (see receiveReplies)
  // One recvmsg a datagram (kDumpDatagramBound). One cut off is lost: the rest is drained unread
  // and the dump starts again, sizes peeked. The drain does not wait: while a dump runs, each
  // recvmsg has the kernel queue the next datagram before it returns (netlink_recvmsg calls
  // netlink_dump), so an empty queue means the lost one held NLMSG_DONE.
  // A dump into the caller's memory (the mirror's store) is peeked throughout: the peek has the
  // kernel queue datagrams ahead, its route dump's trie walk runs back to back and cheaper, and a
  // mirror's start over 1M routes costs ~3% less CPU than read straight (docs/BENCHMARKS.md).
  bool peek = into != nullptr;
  for (unsigned attempt = 0;;) {
    uint32_t seq = sendOne(message, NLM_F_DUMP);
    bool done = false, interrupted = false, lost = false;
    std::optional<Error> failure;
    // If the callback throws, the rest of the dump is still read: the kernel keeps a dump open
    // until it is drained, and would refuse this socket's next dump with EBUSY.
    std::exception_ptr callbackFailure;
    while (!done) {
      auto mode = peek ? ReceiveMode::Whole : lost ? ReceiveMode::StraightIfQueued : ReceiveMode::Straight;
      auto checked = receiveChecked(seq, 1, mode, into);
      run.swap(accepted_);
      lost = lost || (last_.tooLarge && last_.senderPortId == 0);  // a forger cannot restart us
      done = last_.none;
      std::size_t data = 0;  // the messages before NLMSG_DONE/ERROR
      for (const nlmsghdr* m : checked) {
        if (m->nlmsg_flags & NLM_F_DUMP_INTR) interrupted = true;
        if (m->nlmsg_type == NLMSG_DONE || m->nlmsg_type == NLMSG_ERROR) {
          failure = errorFromAck(m, operation);
          done = true;
          break;
        }
        ++data;
      }
      if (!callbackFailure && !lost && data > 0) {
        try {
          onRun(checked.first(data));
        } catch (...) {
          callbackFailure = std::current_exception();
        }
      }
      if (accepted_.empty()) run.swap(accepted_);  // keep the capacity for the next datagram
      if (into) into->received(last_.tooLarge ? 0 : last_.length);  // what it keeps of the datagram is its own
      else poisonReceived(receiveBuffer_);  // views of it end with their callbacks
    }
    if (callbackFailure) std::rethrow_exception(callbackFailure);
    if (failure) throw *failure;
    if (!lost && !interrupted) return;
    if (!lost && ++attempt > dumpRetries_)
      throw Error(make_error_code(Errc::dump_interrupted), operation,
                  "dump interrupted " + std::to_string(attempt) + " times: the kernel's table kept changing");
    peek = peek || lost;  // a lost datagram restarts once, and costs no retry
    ++counters_.dumpRestarts;
    if (onRestart) onRestart();
  }
}

}  // namespace fastlink::core
