// The pipelined batch: many requests per sendmsg, one ACK per window, results matched to
// requests by sequence number.
//
// The kernel handles every request of a sendmsg before sendmsg returns, and answers a failed
// request with an error even when no ACK was asked. So only the last request of a window asks
// for an ACK: its arrival proves every earlier request of the window without an error applied.
// That keeps per-request errors and saves the kernel building and us reading one ACK each.
#include <linux/netlink.h>

#include <algorithm>
#include <deque>
#include <string>

#include "core/ack_warning.hpp"
#include "core/engine.hpp"
#include "fastlink/error.hpp"

namespace fastlink::core {
namespace {

// Worst case the kernel queues one error per request: a capped error with an extack message is
// a few hundred bytes, but the socket accounts a whole skb (~1-2 KiB) for it.
constexpr std::size_t kReceiveCostPerRequest = 2048;
constexpr std::size_t kMaxAutoWindow = 1024;

}  // namespace

// Where the pipeline takes requests from: a stream it owns the requests of, or a Batch the
// caller keeps (read in place). A request taken into a window stays valid until the window is
// cleared.
class Feed {
 public:
  virtual ~Feed() = default;
  virtual const Request* peek() = 0;
  virtual const Request* take() = 0;
  virtual void clearWindow() = 0;
};

class StreamFeed final : public Feed {
 public:
  explicit StreamFeed(const RequestSource& source) : source_(source), pending_(source()) {}
  const Request* peek() override { return pending_ ? &*pending_ : nullptr; }
  const Request* take() override {
    window_.push_back(std::move(*pending_));  // a deque: earlier elements do not move
    pending_ = source_();
    return &window_.back();
  }
  // Requests stay alive until sent and answered: they may hold a namespace fd.
  void clearWindow() override { window_.clear(); }

 private:
  const RequestSource& source_;
  std::optional<Request> pending_;
  std::deque<Request> window_;
};

class SpanFeed final : public Feed {
 public:
  explicit SpanFeed(std::span<const Request> requests) : requests_(requests) {}
  const Request* peek() override { return next_ < requests_.size() ? &requests_[next_] : nullptr; }
  const Request* take() override { return &requests_[next_++]; }
  void clearWindow() override {}

 private:
  std::span<const Request> requests_;
  std::size_t next_ = 0;
};

class Pipeline {
 public:
  Pipeline(Engine& engine, const BatchOptions& options, const ResultSink& sink)
      : engine_(engine), options_(options), sink_(sink) {
    window_ = options.window;
    std::size_t affordable = std::max<std::size_t>(
        1, static_cast<std::size_t>(engine.transport_->receiveBufferBytes()) / 2 / kReceiveCostPerRequest);
    if (window_ == 0) window_ = options.onError == OnError::Stop ? 1 : std::min(kMaxAutoWindow, affordable);
    // An explicit window larger than the receive buffer can answer would lose errors.
    window_ = std::min(window_, affordable);
  }

  BatchResult run(Feed& feed) {
    while (feed.peek() && !stopped_) {
      fillWindow(feed);
      sendWindow();
    }
    // After a stop, the rest is reported as not sent (and never encoded onto the wire).
    for (; feed.peek(); feed.take(), feed.clearWindow()) report(RequestResult{RequestStatus::NotSent, std::nullopt});
    return totals_;
  }

 private:
  // The window is counted in messages (each may cost the kernel an error reply); a request
  // with more messages than the window still goes, alone.
  void fillWindow(Feed& feed) {
    engine_.sendBuffer_.clear();
    feed.clearWindow();
    inFlight_.clear();
    firstPart_.clear();
    owner_.clear();
    firstSeq_ = engine_.nextSeq_;
    std::size_t lastOffset = 0;
    while (const Request* next = feed.peek()) {
      auto bytes = next->bytes();
      if (!inFlight_.empty() &&
          (owner_.size() >= window_ || engine_.sendBuffer_.size() + bytes.size() > options_.maxBytesPerSend))
        break;
      std::size_t offset = engine_.sendBuffer_.size();
      uint32_t count = engine_.stamp(bytes, engine_.sendBuffer_, false);
      lastOffset = offset + lastMessageOffset(bytes, count);
      firstPart_.push_back(static_cast<uint32_t>(owner_.size()));
      owner_.insert(owner_.end(), count, static_cast<uint32_t>(inFlight_.size()));
      inFlight_.push_back(feed.take());
    }
    // The last message of the window asks for the ACK that closes the window.
    reinterpret_cast<nlmsghdr*>(engine_.sendBuffer_.data() + lastOffset)->nlmsg_flags |= NLM_F_ACK;
  }

  static std::size_t lastMessageOffset(std::span<const uint8_t> bytes, uint32_t count) {
    std::size_t at = 0;
    for (uint32_t i = 1; i < count; ++i) at += NLMSG_ALIGN(reinterpret_cast<const nlmsghdr*>(bytes.data() + at)->nlmsg_len);
    return at;
  }

  std::string describe(std::size_t i, uint32_t part) const {
    const Request& r = *inFlight_[i];
    uint32_t parts = (i + 1 < firstPart_.size() ? firstPart_[i + 1] : static_cast<uint32_t>(owner_.size())) - firstPart_[i];
    if (parts == 1) return r.operation();
    return r.operation() + " (message " + std::to_string(part + 1) + " of " + std::to_string(parts) + ")";
  }

  void sendWindow() {
    std::size_t n = inFlight_.size();
    auto messages = static_cast<uint32_t>(owner_.size());
    std::vector<std::optional<Error>> errors(n);
    try {
      engine_.transport_->send(engine_.sendBuffer_);
      ++engine_.counters_.sendCalls;
      engine_.counters_.requestsSent += n;
      bool closed = false;
      while (!closed) {
        engine_.receiveReplies(firstSeq_, messages, [&](const nlmsghdr* m) {
          if (m->nlmsg_type != NLMSG_ERROR) return;
          uint32_t k = m->nlmsg_seq - firstSeq_;
          if (k == messages - 1) closed = true;
          std::size_t i = owner_[k];
          // Only the first failing message of a request speaks for it.
          if (isPositiveAck(m)) return reportAckWarning(m);
          if (errors[i]) return;
          errors[i] = errorFromAck(m, describe(i, k - firstPart_[i]));
        });
      }
    } catch (const Error& e) {
      // sendmsg failed, or the answers stopped (lost, or the transport gave up waiting): we
      // cannot tell which requests applied, so none is reported Applied.
      for (std::size_t i = 0; i < n; ++i)
        if (!errors[i]) errors[i] = Error(e.code(), inFlight_[i]->operation(), e.extack().empty() ? e.reason() : e.extack());
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
  std::vector<const Request*> inFlight_;
  std::vector<uint32_t> firstPart_;  // per request: index of its first message in the window
  std::vector<uint32_t> owner_;      // per message of the window: index of its request
  uint32_t firstSeq_ = 0;
  std::size_t nextIndex_ = 0;
  bool stopped_ = false;
  BatchResult totals_;
};

BatchResult Engine::runBatch(const RequestSource& source, const BatchOptions& options, const ResultSink& sink) {
  StreamFeed feed(source);
  return Pipeline(*this, options, sink).run(feed);
}

BatchResult Engine::runBatch(std::span<const Request> requests, const BatchOptions& options, const ResultSink& sink) {
  SpanFeed feed(requests);
  return Pipeline(*this, options, sink).run(feed);
}

}  // namespace fastlink::core
