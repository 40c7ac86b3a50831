// nl.run(..., on_error="stop") with the automatic window: pipelined where a failure can be undone
// exactly, so the result is the same as sending one request at a time (docs/python.md, "Batches").
//
// The library's OnError::Stop sends one request per round trip with the automatic window: a
// request in flight with a failed one would be applied after the failure. But a create that
// refuses to overwrite (route/address/neighbour add: Request::hasExactUndo) can be deleted again
// with the same attributes. So runs of such requests go pipelined (OnError::Continue, as many in
// flight as the receive buffer can answer); when one fails, nothing more is handed to the
// pipeline, and the requests of that run the kernel applied after the failure are undone, newest
// first, and reported not_sent: the kernel ends up with exactly the requests before the failure,
// as with stop-and-wait. Every other request (link set, replace, del, ...) is sent alone and
// answered before the next (OnError::Stop, window 1).
//
// `fastlink -batch` does the same for batch files (cli/kit/batch.cpp, Sender, which also spools
// and re-parses lines); moving both into the library's pipeline is the next step.
#include <deque>
#include <utility>
#include <vector>

#include "binding.hpp"

namespace fastlink::python {
namespace {

using fastlink::BatchOptions;
using fastlink::BatchResult;
using fastlink::OnError;
using fastlink::Request;
using fastlink::RequestResult;
using fastlink::RequestStatus;

class StopPipeline {
 public:
  StopPipeline(fastlink::Netlink& netlink, const fastlink::RequestSource& source, const fastlink::ResultSink& sink)
      : netlink_(netlink), source_(source), sink_(sink), next_(source()) {}

  BatchResult run() {
    while (next_ && !stopped_) {
      if (pipelinable(*next_)) runPipelined();
      else runAlone();
    }
    // After a stop the rest is reported not sent (each still taken from the source, like the library).
    for (; next_; next_ = source_()) report(RequestResult{RequestStatus::NotSent, std::nullopt});
    return totals_;
  }

 private:
  static bool pipelinable(const Request& r) { return r.hasExactUndo(); }

  Request take() {
    Request request = std::move(*next_);
    next_ = source_();
    return request;
  }

  /// Requests without an exact undo, up to the next one with: one at a time.
  void runAlone() {
    BatchOptions options;
    options.onError = OnError::Stop;
    options.window = 1;
    netlink_.run(
        [&]() -> std::optional<Request> {
          if (stopped_ || !next_ || pipelinable(*next_)) return std::nullopt;
          return take();
        },
        options,
        [&](std::size_t, const RequestResult& r) {
          if (r.status == RequestStatus::Failed) stopped_ = true;
          report(r);
        });
  }

  /// A run of requests with an exact undo, pipelined; after a failure, what the kernel applied
  /// behind it is undone.
  void runPipelined() {
    struct Behind {
      Request request;
      bool applied;
    };
    std::deque<Request> inFlight;  // copies kept until answered: the undo is made from them
    std::vector<Behind> behind;    // answered after the failure, in order
    BatchOptions options;
    options.onError = OnError::Continue;  // the automatic window: as many as the buffer can answer
    netlink_.run(
        [&]() -> std::optional<Request> {
          if (stopped_ || !next_ || !pipelinable(*next_)) return std::nullopt;
          inFlight.push_back(take());
          return inFlight.back();
        },
        options,
        [&](std::size_t, const RequestResult& r) {
          Request sent = std::move(inFlight.front());
          inFlight.pop_front();
          if (stopped_) {
            behind.push_back({std::move(sent), r.status == RequestStatus::Applied});
            return;
          }
          if (r.status != RequestStatus::Applied) stopped_ = true;
          report(r);
        });
    if (!behind.empty()) undo(behind);
  }

  /// Deletes again, newest first, what was applied after the failure; reports each request
  /// behind the failure: not_sent when the kernel no longer holds it, applied when the undo
  /// failed (it stays applied, and the result says so).
  template <class Behind>
  void undo(std::vector<Behind>& behind) {
    std::vector<std::size_t> applied;
    for (std::size_t i = behind.size(); i-- > 0;)
      if (behind[i].applied) applied.push_back(i);
    std::size_t next = 0;
    BatchOptions options;
    options.onError = OnError::Continue;
    netlink_.run(
        [&]() -> std::optional<Request> {
          if (next == applied.size()) return std::nullopt;
          return behind[applied[next++]].request.exactUndo();
        },
        options,
        [&](std::size_t i, const RequestResult& r) { behind[applied[i]].applied = r.status != RequestStatus::Applied; });
    for (const Behind& b : behind)
      report(RequestResult{b.applied ? RequestStatus::Applied : RequestStatus::NotSent, std::nullopt});
  }

  void report(RequestResult result) {
    switch (result.status) {
      case RequestStatus::Applied: ++totals_.applied; break;
      case RequestStatus::Failed: ++totals_.failed; break;
      case RequestStatus::NotSent: ++totals_.notSent; break;
    }
    // The library numbered it within its own run; the caller's batch index is ours.
    if (result.error) result.error->setBatchIndex(index_);
    sink_(index_++, result);
  }

  fastlink::Netlink& netlink_;
  const fastlink::RequestSource& source_;
  const fastlink::ResultSink& sink_;
  std::optional<Request> next_;  // the next request, looked at before it is sent
  std::size_t index_ = 0;
  bool stopped_ = false;
  BatchResult totals_;
};

}  // namespace

fastlink::BatchResult runStopPipelined(fastlink::Netlink& netlink, const fastlink::RequestSource& source,
                                       const fastlink::ResultSink& sink) {
  return StopPipeline(netlink, source, sink).run();
}

}  // namespace fastlink::python
