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

namespace fastlink {

/// One encoded request, ready to be sent alone or in a batch. Built by the object APIs
/// (for instance `LinkRequests::add`); holds what it needs (such as an open namespace fd)
/// until it is sent. Sequence number and ACK flag are assigned when it is sent.
class Request {
 public:
  Request() = default;
  Request(std::vector<uint8_t> bytes, std::string operation, std::vector<std::shared_ptr<const void>> keepAlive = {})
      : bytes_(std::move(bytes)), operation_(std::move(operation)), keepAlive_(std::move(keepAlive)) {}

  std::span<const uint8_t> bytes() const { return bytes_; }
  /// What the request does, in iproute2 words ("link set dev v0 mtu 9000").
  const std::string& operation() const { return operation_; }
  /// Replaces the description, e.g. with the command line a request came from.
  Request& setOperation(std::string operation) {
    operation_ = std::move(operation);
    return *this;
  }

 private:
  std::vector<uint8_t> bytes_;
  std::string operation_;
  std::vector<std::shared_ptr<const void>> keepAlive_;
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
  Batch& add(Request request) {
    requests_.push_back(std::move(request));
    return *this;
  }
  std::size_t size() const { return requests_.size(); }
  bool empty() const { return requests_.empty(); }
  const std::vector<Request>& requests() const { return requests_; }
  void clear() { requests_.clear(); }

 private:
  std::vector<Request> requests_;
};

/// Produces the next request of a streamed batch, or std::nullopt at the end. Lets huge batches
/// (a million routes) be encoded as they are sent instead of held in memory.
using RequestSource = std::function<std::optional<Request>()>;
/// Receives each request's result as soon as it is known, with the request's index.
using ResultSink = std::function<void(std::size_t index, const RequestResult& result)>;

/// Counters of the reply reader (messages that were not ours are dropped, never parsed).
struct SocketCounters {
  uint64_t requestsSent = 0;
  uint64_t sendCalls = 0;
  uint64_t receiveCalls = 0;
  uint64_t bytesReceived = 0;
  uint64_t droppedForeign = 0;     ///< not from the kernel, or for another port id
  uint64_t droppedUnexpected = 0;  ///< a sequence number we did not send (e.g. late replies)
  uint64_t dumpRestarts = 0;
};

}  // namespace fastlink
