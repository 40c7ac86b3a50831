// The factory: owns the engines (one socket per protocol) and the object APIs built on them.
#include "fastlink/netlink.hpp"

#include <linux/netlink.h>

#include "core/engine.hpp"
#include "rtnl/kit.hpp"

namespace fastlink {

// The namespace is opened once, here: a missing one fails at construction, and every socket
// opened later (one per protocol, on first use) lands in the same namespace even if its name
// is deleted or reused meanwhile.
Netlink::Netlink(const NetlinkOptions& options) : options_(options) {
  if (!options.netns || options.netns->kind() == Netns::Kind::Pid || options.netns->kind() == Netns::Kind::Fd) return;
  namespace_ = NetnsHandle::open(*options.netns);
  options_.netns = Netns::fd(namespace_->fd());
}

Netlink::~Netlink() = default;
Netlink::Netlink(Netlink&&) noexcept = default;
Netlink& Netlink::operator=(Netlink&&) noexcept = default;

core::Engine& Netlink::engine(int protocol) const {
  std::unique_ptr<core::Engine>& slot = protocol == NETLINK_GENERIC     ? genericEngine_
                                       : protocol == NETLINK_NETFILTER ? netfilterEngine_
                                                                       : routeEngine_;
  if (!slot) slot = std::make_unique<core::Engine>(protocol, options_);
  return *slot;
}

core::Engine& Netlink::routeEngine() const { return engine(NETLINK_ROUTE); }
core::Engine& Netlink::genericEngine() const { return engine(NETLINK_GENERIC); }
core::Engine& Netlink::netfilterEngine() const { return engine(NETLINK_NETFILTER); }

void Netlink::execute(const Request& request) { routeEngine().execute(request); }

void Netlink::execute(const std::function<Request(const IndexOf& indexOf)>& build) {
  rtnl::checkResolveSend(routeEngine(), build);
}

BatchResult Netlink::run(const Batch& batch, const BatchOptions& options) {
  BatchResult result;
  result.results.reserve(batch.size());
  // The batch is read in place: its requests are copied once, into the send buffer.
  BatchResult totals = routeEngine().runBatch(std::span<const Request>(batch.requests()), options,
                                              [&](std::size_t, const RequestResult& r) { result.results.push_back(r); });
  result.applied = totals.applied;
  result.failed = totals.failed;
  result.notSent = totals.notSent;
  return result;
}

BatchResult Netlink::run(const RequestSource& source, const BatchOptions& options, const ResultSink& sink) {
  return routeEngine().runBatch(source, options, sink);
}

RawApi Netlink::raw(Protocol protocol) {
  switch (protocol) {
    case Protocol::Generic: return RawApi(genericEngine());
    case Protocol::Netfilter: return RawApi(netfilterEngine());
    case Protocol::Route: break;
  }
  return RawApi(routeEngine());
}

Subscription Netlink::subscribe(std::initializer_list<NotificationGroup> groups, const SubscriptionOptions& options) {
  Subscription s(NETLINK_ROUTE, options_.netns, options);
  for (NotificationGroup g : groups) s.join(g);
  return s;
}

Subscription Netlink::subscribeGeneric(std::initializer_list<uint32_t> groupIds, const SubscriptionOptions& options) {
  Subscription s(NETLINK_GENERIC, options_.netns, options);
  for (uint32_t id : groupIds) s.joinGeneric(id);
  return s;
}

Subscription Netlink::subscribeNetfilter(std::initializer_list<uint32_t> groups, const SubscriptionOptions& options) {
  Subscription s(NETLINK_NETFILTER, options_.netns, options);
  for (uint32_t g : groups) s.joinGeneric(g);
  return s;
}

// const: reading a counter opens no socket the caller has not used; an unused one reads as zero.
const SocketCounters& Netlink::counters() const {
  static const SocketCounters kNone;
  return routeEngine_ ? routeEngine_->counters() : kNone;
}
uint32_t Netlink::portId() const { return routeEngine().portId(); }

}  // namespace fastlink
