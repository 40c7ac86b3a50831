// The factory: owns the engine (socket) and the object APIs built on it.
#include "fastlink/netlink.hpp"

#include <linux/netlink.h>

#include "core/engine.hpp"

namespace fastlink {

Netlink::Netlink(const NetlinkOptions& options)
    : engine_(std::make_unique<core::Engine>(NETLINK_ROUTE, options)), links_(std::make_unique<LinkApi>(*engine_)) {}

Netlink::~Netlink() = default;
Netlink::Netlink(Netlink&&) noexcept = default;
Netlink& Netlink::operator=(Netlink&&) noexcept = default;

LinkApi& Netlink::links() { return *links_; }

void Netlink::execute(const Request& request) { engine_->execute(request.bytes(), request.operation()); }

BatchResult Netlink::run(const Batch& batch, const BatchOptions& options) {
  BatchResult result;
  result.results.reserve(batch.size());
  std::size_t next = 0;
  const auto& requests = batch.requests();
  // Requests are copied into the send buffer, so the batch itself is only read.
  RequestSource source = [&]() -> std::optional<Request> {
    if (next == requests.size()) return std::nullopt;
    return requests[next++];
  };
  BatchResult totals = engine_->runBatch(source, options, [&](std::size_t, const RequestResult& r) { result.results.push_back(r); });
  result.applied = totals.applied;
  result.failed = totals.failed;
  result.notSent = totals.notSent;
  return result;
}

BatchResult Netlink::run(const RequestSource& source, const BatchOptions& options, const ResultSink& sink) {
  return engine_->runBatch(source, options, sink);
}

const SocketCounters& Netlink::counters() const { return engine_->counters(); }
uint32_t Netlink::portId() const { return engine_->portId(); }

}  // namespace fastlink
