// The pipelined batch: many requests per sendmsg, one ACK per window, results matched to
// requests by sequence number.
//
// The kernel handles every request of a sendmsg before sendmsg returns, and answers a failed
// request with an error even when no ACK was asked. So only the last request of a window asks
// for an ACK: its arrival proves every earlier request of the window without an error applied.
// That keeps per-request errors and saves the kernel building and us reading one ACK each.
#include <linux/netlink.h>

#include <algorithm>

#include "core/engine.hpp"
#include "fastlink/error.hpp"

namespace fastlink::core {
namespace {

// Worst case the kernel queues one error per request: a capped error with an extack message is
// a few hundred bytes, but the socket accounts a whole skb (~1-2 KiB) for it.
constexpr std::size_t kReceiveCostPerRequest = 2048;
constexpr std::size_t kMaxAutoWindow = 1024;

}  // namespace

class Pipeline {
 public:
  Pipeline(Engine& engine, const BatchOptions& options, const ResultSink& sink)
      : engine_(engine), options_(options), sink_(sink) {
    window_ = options.window;
    std::size_t affordable = std::max<std::size_t>(
        1, static_cast<std::size_t>(engine.socket_.receiveBufferBytes()) / 2 / kReceiveCostPerRequest);
    if (window_ == 0) window_ = options.onError == OnError::Stop ? 1 : std::min(kMaxAutoWindow, affordable);
    // An explicit window larger than the receive buffer can answer would lose errors.
    window_ = std::min(window_, affordable);
  }

  BatchResult run(const RequestSource& source) {
    std::optional<Request> pending = source();
    while (pending && !stopped_) {
      fillWindow(pending, source);
      sendWindow();
    }
    // After a stop, the rest is reported as not sent (and never encoded onto the wire).
    for (; pending; pending = source()) report(RequestResult{RequestStatus::NotSent, std::nullopt});
    return totals_;
  }

 private:
  void fillWindow(std::optional<Request>& pending, const RequestSource& source) {
    engine_.sendBuffer_.clear();
    inFlight_.clear();  // requests stay alive until sent: they may hold a namespace fd
    std::size_t lastOffset = 0;
    while (pending && inFlight_.size() < window_) {
      auto bytes = pending->bytes();
      if (!inFlight_.empty() && engine_.sendBuffer_.size() + bytes.size() > options_.maxBytesPerSend) break;
      lastOffset = engine_.sendBuffer_.size();
      uint32_t seq = engine_.stamp(bytes, engine_.sendBuffer_, false);
      if (inFlight_.empty()) firstSeq_ = seq;
      inFlight_.push_back(std::move(*pending));
      pending = source();
    }
    // The last request of the window asks for the ACK that closes the window.
    auto* last = reinterpret_cast<nlmsghdr*>(engine_.sendBuffer_.data() + lastOffset);
    last->nlmsg_flags |= NLM_F_ACK;
  }

  void sendWindow() {
    std::size_t n = inFlight_.size();
    std::vector<std::optional<Error>> errors(n);
    try {
      engine_.socket_.send(engine_.sendBuffer_);
      ++engine_.counters_.sendCalls;
      engine_.counters_.requestsSent += n;
      bool closed = false;
      while (!closed) {
        engine_.receiveReplies(firstSeq_, static_cast<uint32_t>(n), [&](const nlmsghdr* m) {
          if (m->nlmsg_type != NLMSG_ERROR) return;
          std::size_t i = m->nlmsg_seq - firstSeq_;
          errors[i] = errorFromAck(m, inFlight_[i].operation());
          if (i == n - 1) closed = true;
        });
      }
    } catch (const Error& e) {
      // sendmsg failed, or replies were lost: we cannot tell which requests applied.
      for (std::size_t i = 0; i < n; ++i)
        if (!errors[i]) errors[i] = Error(e.code(), inFlight_[i].operation(), e.extack().empty() ? e.reason() : e.extack());
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (errors[i]) {
        errors[i]->setBatchIndex(nextIndex_);
        report(RequestResult{RequestStatus::Failed, std::move(errors[i])});
        if (options_.onError == OnError::Stop) stopped_ = true;
      } else {
        report(RequestResult{RequestStatus::Applied, std::nullopt});
      }
    }
  }

  void report(RequestResult result) {
    switch (result.status) {
      case RequestStatus::Applied: ++totals_.applied; break;
      case RequestStatus::Failed: ++totals_.failed; break;
      case RequestStatus::NotSent: ++totals_.notSent; break;
    }
    sink_(nextIndex_++, result);
  }

  Engine& engine_;
  const BatchOptions& options_;
  const ResultSink& sink_;
  std::size_t window_;
  std::vector<Request> inFlight_;
  uint32_t firstSeq_ = 0;
  std::size_t nextIndex_ = 0;
  bool stopped_ = false;
  BatchResult totals_;
};

BatchResult Engine::runBatch(const RequestSource& source, const BatchOptions& options, const ResultSink& sink) {
  return Pipeline(*this, options, sink).run(source);
}

}  // namespace fastlink::core
