// The engine: one socket, sequence numbers, reply checking, single requests, dumps, batches.
#pragma once

#include <linux/netlink.h>

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/socket.hpp"
#include "fastlink/netlink_options.hpp"
#include "fastlink/request.hpp"

namespace fastlink::core {

using MessageHandler = std::function<void(const nlmsghdr* message)>;

/// Decodes an NLMSG_ERROR (or an NLMSG_DONE carrying an error) into fastlink::Error.
/// Returns std::nullopt for a positive ACK (error 0).
std::optional<Error> errorFromAck(const nlmsghdr* message, const std::string& operation);

class Engine {
 public:
  Engine(int protocol, const NetlinkOptions& options);

  uint32_t portId() const { return socket_.portId(); }
  const SocketCounters& counters() const { return counters_; }

  /// Sends one request, waits for its ACK; throws Error on failure.
  void execute(std::span<const uint8_t> message, const std::string& operation);
  /// Sends a request answered by one message (a `get`): calls `onReply` with it.
  /// Throws Error on failure.
  void query(std::span<const uint8_t> message, const std::string& operation, const MessageHandler& onReply);
  /// Sends a dump request and streams every message of the answer to `onMessage`. When the
  /// kernel marks the dump interrupted (NLM_F_DUMP_INTR) it is restarted, after `onRestart`,
  /// up to the configured number of times; then Error(Errc::dump_interrupted).
  void dump(std::span<const uint8_t> message, const std::string& operation, const MessageHandler& onMessage,
            const std::function<void()>& onRestart);
  /// The pipelined batch (src/core/batch.cpp).
  BatchResult runBatch(const RequestSource& source, const BatchOptions& options, const ResultSink& sink);

 private:
  friend class Pipeline;

  /// Receives one datagram and calls `onMessage` for every message in it that is a reply to
  /// us: from the kernel, to our port id, with a sequence number in [first, first + count).
  /// Everything else is dropped and counted. This is the one place replies are checked.
  void receiveReplies(uint32_t firstSeq, uint32_t count, const MessageHandler& onMessage);
  /// Copies `message` into `out` with our sequence number and the given ACK choice.
  uint32_t stamp(std::span<const uint8_t> message, std::vector<uint8_t>& out, bool ack);

  NetlinkSocket socket_;
  unsigned dumpRetries_;
  uint32_t nextSeq_;
  SocketCounters counters_;
  std::vector<uint8_t> sendBuffer_;
};

}  // namespace fastlink::core
