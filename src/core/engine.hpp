// The engine: one socket, sequence numbers, reply checking, single requests, dumps, batches.
#pragma once

#include <linux/netlink.h>

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/byte_buffer.hpp"
#include "core/socket.hpp"
#include "core/transport.hpp"
#include "fastlink/netlink_options.hpp"
#include "fastlink/request.hpp"

namespace fastlink::core {

using MessageHandler = std::function<void(const nlmsghdr* message)>;
/// The replies of one datagram, checked, in order: what a dump hands out per datagram so that
/// the per-message loop can be the caller's own (inlined) code.
using RunHandler = std::function<void(std::span<const nlmsghdr* const> messages)>;

/// Memory a dump is received into instead of the engine's own buffer: the caller's
/// (StateMirror's store), so that whatever it keeps of a datagram stays where the kernel wrote
/// it, never copied after recvmsg.
class ReceiveMemory {
 public:
  /// Room for the next datagram: at least `atLeast` bytes (0: what is at hand; the engine asks
  /// again with the datagram's length when that is too small).
  virtual std::span<uint8_t> room(std::size_t atLeast) = 0;
  /// The datagram received into the last room() (its first `length` bytes) was handed out: the
  /// callback returned (or the datagram was dropped). Nothing of it is read by the engine again.
  virtual void received(std::size_t length) = 0;

 protected:
  ~ReceiveMemory() = default;
};

/// Decodes an NLMSG_ERROR (or an NLMSG_DONE carrying an error) into fastlink::Error.
/// Returns std::nullopt for a positive ACK (error 0).
std::optional<Error> errorFromAck(const nlmsghdr* message, const std::string& operation);
/// True for an NLMSG_ERROR with error 0 (a positive ACK): lets callers skip formatting a
/// description that would not be used.
bool isPositiveAck(const nlmsghdr* message);

class Engine {
 public:
  Engine(int protocol, const NetlinkOptions& options);
  /// An engine over any transport (the fake kernel of the unit tests).
  Engine(std::unique_ptr<Transport> transport, const NetlinkOptions& options);

  uint32_t portId() const { return transport_->portId(); }
  int fd() const { return transport_->fd(); }
  const SocketCounters& counters() const { return counters_; }

  /// Sends one request (all its messages), waits for its answer; throws Error on failure.
  void execute(const Request& request);
  /// Same for raw bytes: one message, or several concatenated (each padded to 4 bytes).
  void execute(std::span<const uint8_t> message, const std::string& operation);
  /// Sends a request answered by one message (a `get`): calls `onReply` with it.
  /// Throws Error on failure.
  void query(std::span<const uint8_t> message, const std::string& operation, const MessageHandler& onReply);
  /// Sends a dump request and streams every message of the answer to `onMessage`. When the
  /// kernel marks the dump interrupted (NLM_F_DUMP_INTR) it is restarted, after `onRestart`,
  /// up to the configured number of times; then Error(Errc::dump_interrupted).
  void dump(std::span<const uint8_t> message, const std::string& operation, const MessageHandler& onMessage,
            const std::function<void()>& onRestart);
  /// The same dump handed out one datagram at a time: `onRun` gets every reply of a datagram
  /// before NLMSG_DONE (one call per datagram instead of one per message).
  /// `into`: the datagrams are received into the caller's memory (see ReceiveMemory), and the
  /// messages handed to `onRun` lie there.
  void dumpRuns(std::span<const uint8_t> message, const std::string& operation, const RunHandler& onRun,
                const std::function<void()>& onRestart, ReceiveMemory* into = nullptr);
  /// The pipelined batch (src/core/batch.cpp).
  BatchResult runBatch(const RequestSource& source, const BatchOptions& options, const ResultSink& sink);
  /// The same over requests the caller keeps (a Batch): they are read, never copied as objects.
  BatchResult runBatch(std::span<const Request> requests, const BatchOptions& options, const ResultSink& sink);

 private:
  friend class Pipeline;

  /// Receives one datagram and calls `onMessage` for every message in it that is a reply to
  /// us: from the kernel, to our port id, with a sequence number in [first, first + count).
  /// Everything else is dropped and counted. This is the one place replies are checked.
  void receiveReplies(uint32_t firstSeq, uint32_t count, const MessageHandler& onMessage);
  /// Receives one datagram and returns its replies to us (checked as above), in accepted_;
  /// into `into`'s room if given, else into receiveBuffer_. What the read found is in last_:
  /// a datagram cut off (Straight) or none queued (StraightIfQueued) returns no replies.
  std::span<const nlmsghdr* const> receiveChecked(uint32_t firstSeq, uint32_t count,
                                                  ReceiveMode mode = ReceiveMode::Whole, ReceiveMemory* into = nullptr);
  /// Copies every message of `messages` into `out` with consecutive sequence numbers, asking an
  /// ACK of the last one only if `ackLast`. Returns the number of messages.
  uint32_t stamp(std::span<const uint8_t> messages, std::vector<uint8_t>& out, bool ackLast);
  /// Sends the messages of one request and waits for the answer to every one of them.
  void executeMessages(std::span<const uint8_t> messages, const std::function<const std::string&()>& operation);
  /// Sends one request message and returns its sequence number.
  uint32_t sendOne(std::span<const uint8_t> message, uint16_t extraFlags);

  std::unique_ptr<Transport> transport_;
  unsigned dumpRetries_;
  uint32_t nextSeq_;
  SocketCounters counters_;
  std::vector<uint8_t> sendBuffer_;
  ByteBuffer receiveBuffer_;  // uninitialised: the kernel writes it before we read it
  std::vector<const nlmsghdr*> accepted_;  // receiveChecked's answer, reused
  Received last_;  // what receiveChecked read last
};

}  // namespace fastlink::core
