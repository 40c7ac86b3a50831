// Routes: request builders, and the kernel-backed RouteApi.
#include <sys/socket.h>
#include <linux/rtnetlink.h>

#include "core/engine.hpp"
#include "core/message.hpp"
#include "fastlink/netlink.hpp"
#include "fastlink/route.hpp"
#include "rtnl/route_codec.hpp"

namespace fastlink {

using core::MessageWriter;
using rtnl::RouteVerb;

RouteApi& Netlink::routes() { return lazy(routes_); }

bool RoutePath::isDead() const { return (flags & RTNH_F_DEAD) != 0; }
bool RoutePath::isLinkdown() const { return (flags & RTNH_F_LINKDOWN) != 0; }

IpAddress::Family RouteInfo::family() const {
  if (dst) return dst->family();
  if (gateway) return gateway->family();
  return IpAddress::Family::v4;
}

bool RouteInfo::isCloned() const { return flags && (*flags & RTM_F_CLONED); }

// ---- RouteRequests ----------------------------------------------------------------------------

Request RouteRequests::add(const RouteInfo& route) { return rtnl::encodeRoute(route, RouteVerb::Add); }
Request RouteRequests::del(const RouteInfo& route) { return rtnl::encodeRoute(route, RouteVerb::Del); }
Request RouteRequests::replace(const RouteInfo& route) { return rtnl::encodeRoute(route, RouteVerb::Replace); }
Request RouteRequests::append(const RouteInfo& route) { return rtnl::encodeRoute(route, RouteVerb::Append); }

// ---- RouteApi -----------------------------------------------------------------------------------

RouteApi::RouteApi(core::Engine& engine) : engine_(engine), links_(engine) {}

RouteInfo RouteApi::resolveNames(const RouteInfo& route) {
  RouteInfo out = route;
  if (out.dev && out.dev->isName()) out.dev = Ifref(links_.indexOf(*out.dev));
  for (auto& p : out.paths)
    if (p.dev && p.dev->isName()) p.dev = Ifref(links_.indexOf(*p.dev));
  return out;
}

void RouteApi::add(const RouteInfo& route) {
  Request r = RouteRequests::add(resolveNames(route));
  engine_.execute(r.bytes(), r.operation());
}

void RouteApi::del(const RouteInfo& route) {
  Request r = RouteRequests::del(resolveNames(route));
  engine_.execute(r.bytes(), r.operation());
}

void RouteApi::replace(const RouteInfo& route) {
  Request r = RouteRequests::replace(resolveNames(route));
  engine_.execute(r.bytes(), r.operation());
}

void RouteApi::append(const RouteInfo& route) {
  Request r = RouteRequests::append(resolveNames(route));
  engine_.execute(r.bytes(), r.operation());
}

RouteInfo RouteApi::get(const RouteQuery& query) {
  std::string operation = "route get " + query.dst.toString();
  if (query.vrf && query.oif) throw Error::invalidArgument(operation, "give either vrf or oif, not both");
  if (query.table && (query.vrf || query.oif))
    throw Error::invalidArgument(operation, "give either table or vrf/oif, not both");
  uint32_t iif = query.iif ? links_.indexOf(*query.iif) : 0;
  uint32_t oif = 0;
  if (query.oif) oif = links_.indexOf(*query.oif);
  if (query.vrf) oif = links_.indexOf(*query.vrf);
  if (query.table) {
    // The kernel looks up one table only through the VRF device bound to it.
    for (const auto& l : links_.list(LinkFilter().setKind("vrf")))
      if (l.vrf && l.vrf->table == query.table) oif = *l.index;
    if (!oif)
      throw Error::invalidArgument(operation, "no VRF device is bound to table " + std::to_string(*query.table) +
                                                  ": the kernel looks up a single table only through its VRF");
  }
  MessageWriter w(RTM_GETROUTE, 0);
  rtnl::encodeRouteGet(w, query, iif, oif);
  std::optional<RouteInfo> out;
  engine_.query(w.bytes(), operation, [&](const nlmsghdr* m) {
    if (m->nlmsg_type == RTM_NEWROUTE) rtnl::decodeRoute(m, out.emplace());
  });
  if (!out) throw Error(make_error_code(Errc::malformed_reply), operation, "no route in the reply");
  return std::move(*out);
}

void RouteApi::forEach(const RouteFilter& filter, const std::function<void(const RouteInfo&)>& each,
                       const std::function<void()>& restart) {
  uint32_t oif = filter.dev ? links_.indexOf(*filter.dev) : 0;
  MessageWriter w(RTM_GETROUTE, 0);
  rtnl::encodeRouteDump(w, filter, oif);
  RouteInfo route;  // reused: decoding a million routes allocates nothing per route
  try {
    engine_.dump(
        w.bytes(), "route show",
        [&](const nlmsghdr* m) {
          if (!rtnl::isIpRoute(m)) return;
          rtnl::decodeRoute(m, route);
          // The kernel applied the filter (NLM_F_DUMP_FILTERED); checking again costs little
          // and keeps the answer right on a kernel that ignores part of it.
          if (rtnl::routeMatches(route, filter, oif)) each(route);
        },
        restart);
  } catch (const Error& e) {
    // A family-specific dump of a table that does not exist fails with ENOENT: no routes.
    if (filter.table && e.code() == std::errc::no_such_file_or_directory) return;
    throw;
  }
}

std::vector<RouteInfo> RouteApi::list(const RouteFilter& filter) {
  std::vector<RouteInfo> out;
  forEach(filter, [&](const RouteInfo& r) { out.push_back(r); }, [&] { out.clear(); });
  return out;
}

namespace {

// What identifies a route to delete it: compact, so flushing a million routes stays small.
struct RouteKey {
  Prefix dst;
  uint32_t table;
  uint32_t metric;
  bool hasMetric;
  uint8_t tos;
  RouteType type;
};

}  // namespace

std::size_t RouteApi::flush(const RouteFilter& filter) {
  std::vector<RouteKey> keys;
  forEach(
      filter,
      [&](const RouteInfo& r) {
        if (!filter.table && r.table == kTableLocal) return;  // the kernel's own local routes
        keys.push_back(RouteKey{*r.dst, r.tableOrMain(), r.metric.value_or(0), r.metric.has_value(), r.tos.value_or(0),
                                r.type.value_or(RouteType::Unicast)});
      },
      [&] { keys.clear(); });
  std::size_t next = 0, deleted = 0;
  RequestSource source = [&]() -> std::optional<Request> {
    if (next == keys.size()) return std::nullopt;
    const RouteKey& k = keys[next++];
    RouteInfo r(k.dst);
    r.setTable(k.table).setTos(k.tos).setType(k.type);
    if (k.hasMetric) r.setMetric(k.metric);
    return RouteRequests::del(r);
  };
  std::optional<Error> failure;
  BatchOptions options;
  options.onError = OnError::Continue;
  engine_.runBatch(source, options, [&](std::size_t, const RequestResult& result) {
    if (result.status == RequestStatus::Applied) ++deleted;
    // A route may vanish on its own meanwhile (its device went away): not a failure.
    else if (result.error && result.error->code() != std::errc::no_such_process && !failure) failure = result.error;
  });
  if (failure) throw *failure;
  return deleted;
}

}  // namespace fastlink
