// Encoded requests and pipelined batches of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fastlink/error.hpp"

struct nlmsghdr;  // <linux/netlink.h>: decoders take a message without the kernel's headers here

namespace fastlink {

// What every API header names: the engine an API runs on (src/core/engine.hpp, not installed)
// and the Netlink that builds it.
namespace core {
class Engine;
}
class Netlink;

class RawAttributes;

/// One encoded request, ready to be sent alone or in a batch. Built by the object APIs
/// (for instance `LinkRequests::add`); holds what it needs (such as an open namespace fd)
/// until it is sent. Sequence numbers and ACK flags are assigned when it is sent.
///
/// A request is one or more netlink messages sent in order (a WireGuard peer list split over
/// several messages, say). Each message gets its own sequence number, but the request is one
/// unit: one result in a batch, Applied only if every message was accepted, and the first
/// failing message's error is the request's error ("... (message 3 of 5)").
///
/// The description (`operation()`) is needed only when a request fails, so builders may supply
/// it lazily: pass a `Describer` (a callable returning the text) instead of a string, and it is
/// called at most once, the first time `operation()` is read.
class Request {
 public:
  using KeepAlive = std::vector<std::shared_ptr<const void>>;
  /// Formats the description on demand; it must own (capture by value) what it reads.
  using Describer = std::function<std::string()>;

  Request() = default;
  /// `bytes` holds one message (or several, each padded to 4 bytes).
  Request(std::vector<uint8_t> bytes, std::string operation, KeepAlive keepAlive = {})
      : bytes_(std::move(bytes)), operation_(std::move(operation)), keepAlive_(std::move(keepAlive)) {}
  Request(std::vector<uint8_t> bytes, Describer describe, KeepAlive keepAlive = {})
      : bytes_(std::move(bytes)), describe_(std::move(describe)), keepAlive_(std::move(keepAlive)) {}

  /// Every message of the request, concatenated (each padded to 4 bytes).
  std::span<const uint8_t> bytes() const { return bytes_; }
  /// Number of netlink messages in the request.
  std::size_t messageCount() const;

  /// Appends one more message (its own header included), sent after the ones already here.
  /// Throws Error(EINVAL) when `message` is not one whole netlink message.
  Request& appendMessage(std::span<const uint8_t> message);
  /// Appends every message of `other` and takes over what it keeps alive; the description
  /// stays this request's.
  Request& appendMessage(Request&& other);
  /// Appends raw attributes to the last message (attributes fastlink does not encode), fixing
  /// its length. Throws Error(EINVAL) on an empty request.
  Request& appendAttributes(const RawAttributes& attributes);
  /// Keeps `object` alive until the request is gone (an open namespace fd, say).
  Request& keepAlive(std::shared_ptr<const void> object) {
    keepAlive_.push_back(std::move(object));
    return *this;
  }

  /// The request that exactly undoes this one once the kernel has applied it, when there is
  /// one: a single create that refuses to overwrite (`ip route add`, `ip addr add`,
  /// `ip neigh add`: NLM_F_CREATE|NLM_F_EXCL) is undone by deleting what it created, with the
  /// same attributes. std::nullopt for everything else (replace, set, del, link add, ...).
  /// Lets a batch pipeline such requests and still stop exactly at a failure.
  std::optional<Request> exactUndo() const;
  /// exactUndo() would return a request (no allocation).
  bool hasExactUndo() const;
  /// True when the request keeps something alive (an open namespace fd, say): its bytes alone
  /// cannot be stored and sent later.
  bool keepsAlive() const { return !keepAlive_.empty(); }

  /// What the request does, in iproute2 words ("link set dev v0 mtu 9000"). Formatted on the
  /// first call when the request was built with a Describer (not thread-safe for that call).
  const std::string& operation() const;
  /// Replaces the description, e.g. with the command line a request came from.
  Request& setOperation(std::string operation) {
    operation_ = std::move(operation);
    describe_ = nullptr;
    return *this;
  }
  /// Replaces the description with one formatted on demand.
  Request& setDescriber(Describer describe) {
    operation_.clear();
    describe_ = std::move(describe);
    return *this;
  }

 private:
  std::vector<uint8_t> bytes_;
  mutable std::string operation_;
  mutable Describer describe_;
  KeepAlive keepAlive_;
};

/// What a batch does when a request fails.
enum class OnError {
  /// Stop sending at the first failure. With the default window (1) nothing after the failed
  /// request has been applied, exactly like iproute2. With a larger window the requests already
  /// in flight were applied (or failed) and their results say so.
  Stop,
  /// Send everything; every failure is reported with its index.
  Continue,
};

struct BatchOptions {
  OnError onError = OnError::Stop;
  /// Requests per sendmsg (and in flight at once). 0 = automatic: 1 for Stop (stop-safe),
  /// as many as the receive buffer can answer for Continue.
  std::size_t window = 0;
  /// Send buffer budget per sendmsg in bytes.
  std::size_t maxBytesPerSend = 256 * 1024;
};

enum class RequestStatus { Applied, Failed, NotSent };

struct RequestResult {
  RequestStatus status = RequestStatus::NotSent;
  std::optional<Error> error;  ///< set when status is Failed (or NotSent after a stop)
};

/// Per-request outcome of a batch, in the order the requests were queued.
struct BatchResult {
  std::vector<RequestResult> results;
  std::size_t applied = 0;
  std::size_t failed = 0;
  std::size_t notSent = 0;

  bool ok() const { return failed == 0 && notSent == 0; }
  /// The first failure, or nullptr.
  const Error* firstError() const;
};

/// A queue of requests to send as one pipelined batch (see Netlink::run).
class Batch {
 public:
  Batch& add(Request request);
  std::size_t size() const { return requests_.size(); }
  bool empty() const { return requests_.empty(); }
  const std::vector<Request>& requests() const { return requests_; }
  void clear() { requests_.clear(); }

 private:
  std::vector<Request> requests_;
};

/// The ifindex of a device name, while a request is built (Netlink::execute).
using IndexOf = std::function<uint32_t(const std::string& name)>;

/// Produces the next request of a streamed batch, or std::nullopt at the end. Lets huge batches
/// (a million routes) be encoded as they are sent instead of held in memory.
using RequestSource = std::function<std::optional<Request>()>;
/// Receives each request's result as soon as it is known, with the request's index.
using ResultSink = std::function<void(std::size_t index, const RequestResult& result)>;

/// Counters of the reply reader (messages that were not ours are dropped, never parsed).
struct SocketCounters {
  uint64_t requestsSent = 0;  ///< requests (a multi-message request counts once)
  uint64_t sendCalls = 0;
  uint64_t receiveCalls = 0;
  uint64_t bytesReceived = 0;
  uint64_t droppedForeign = 0;     ///< not from the kernel, or for another port id
  uint64_t droppedUnexpected = 0;  ///< a sequence number we did not send (e.g. late replies)
  uint64_t dumpRestarts = 0;
  uint64_t receiveBufferGrowths = 0;  ///< a datagram larger than the receive buffer grew it
};

}  // namespace fastlink
