// Routes: the codec (RouteInfo <-> RTM_NEWROUTE/RTM_DELROUTE/RTM_GETROUTE), the request
// builders, and the kernel-backed RouteApi over the kit.
#include <sys/socket.h>
#include <linux/rtnetlink.h>

#include <libmnl/libmnl.h>
#include <algorithm>
#include <cstring>

#include "fastlink/netlink.hpp"
#include "fastlink/route.hpp"
#include "fastlink/route_view.hpp"
#include "core/api_access.hpp"
#include "core/attr_fields.hpp"
#include "rtnl/codec_helpers.hpp"
#include "rtnl/kit.hpp"
#include "rtnl/route_codec.hpp"
#include "rtnl/view_fields.hpp"

namespace fastlink::rtnl {
namespace {

// A TLV appended by hand into a byte vector (for RTA_MULTIPATH and RTA_METRICS payloads,
// which iproute2 sends without NLA_F_NESTED; RTA_MULTIPATH is not even a plain nest).
void appendAttr(std::vector<uint8_t>& out, uint16_t type, const void* data, std::size_t length) {
  std::size_t at = out.size();
  out.resize(at + MNL_ALIGN(MNL_ATTR_HDRLEN + length), 0);
  nlattr attr{static_cast<uint16_t>(MNL_ATTR_HDRLEN + length), type};
  std::memcpy(&out[at], &attr, sizeof attr);
  if (length) std::memcpy(&out[at + MNL_ATTR_HDRLEN], data, length);
}

void appendU32(std::vector<uint8_t>& out, uint16_t type, uint32_t v) { appendAttr(out, type, &v, sizeof v); }

// The simple attributes, in the order iproute2 sends them (between RTA_TABLE and RTA_METRICS).
constexpr FieldTable kFields({
    field<RTA_PRIORITY, &RouteInfo::metric>(),
    field<RTA_PREFSRC, &RouteInfo::prefsrc>(),
    field<RTA_GATEWAY, &RouteInfo::gateway>(),
    field<RTA_OIF, &RouteInfo::dev>("dev"),
    field<RTA_NH_ID, &RouteInfo::nhid>(),
    field<RTA_IIF, &RouteInfo::iif, Wire::Reported>(),
    field<RTA_TABLE, &RouteInfo::table, Wire::Reported>(),
    field<RTA_PREF, &RouteInfo::pref>(),
    field<RTA_UID, &RouteInfo::uid, Wire::Reported>(),
    field<RTA_MARK, &RouteInfo::mark, Wire::Reported>(),
});

// RTA_METRICS as data: the metric each RTAX_* attribute carries (encoded in this order).
constexpr std::pair<uint16_t, std::optional<uint32_t> RouteMetrics::*> kMetrics[] = {
    {RTAX_LOCK, &RouteMetrics::lock},         {RTAX_MTU, &RouteMetrics::mtu},
    {RTAX_WINDOW, &RouteMetrics::window},     {RTAX_ADVMSS, &RouteMetrics::advmss},
    {RTAX_HOPLIMIT, &RouteMetrics::hoplimit}, {RTAX_INITCWND, &RouteMetrics::initcwnd},
    {RTAX_INITRWND, &RouteMetrics::initrwnd}};

std::vector<uint8_t> encodeMetrics(const RouteMetrics& m) {
  std::vector<uint8_t> out;
  for (auto [type, field] : kMetrics)
    if (m.*field) appendU32(out, type, *(m.*field));
  for (const auto& raw : m.unknown.list()) appendAttr(out, raw.type, raw.payload.data(), raw.payload.size());
  return out;
}

std::vector<uint8_t> encodeMultipath(const RouteInfo& route, const auto& operation) {
  std::vector<uint8_t> out;
  for (std::size_t i = 0; i < route.paths.size(); ++i) {
    const RoutePath& p = route.paths[i];
    std::string which = "nexthop #" + std::to_string(i + 1);
    if (!p.gateway && !p.dev) throw invalid(operation, which + " needs a gateway (via) or a device (dev)");
    if (p.weight < 1 || p.weight > 256)
      throw invalid(operation, which + ": weight " + std::to_string(p.weight) + " is out of range (1-256)");
    if (p.gateway && p.gateway->family() != route.family())
      throw invalid(operation, which + ": gateway " + p.gateway->toString() + " is not an " +
                                   familyWord(route.family()) + " address");
    std::size_t at = out.size();
    out.resize(at + sizeof(rtnexthop), 0);
    rtnexthop nh{};
    nh.rtnh_flags = p.onlink ? RTNH_F_ONLINK : 0;
    nh.rtnh_hops = static_cast<uint8_t>(p.weight - 1);
    nh.rtnh_ifindex = p.dev ? static_cast<int>(requireIndex(*p.dev, "nexthop dev")) : 0;
    if (p.gateway) appendAttr(out, RTA_GATEWAY, p.gateway->bytes().data(), p.gateway->bytes().size());
    nh.rtnh_len = static_cast<uint16_t>(out.size() - at);
    std::memcpy(&out[at], &nh, sizeof nh);
  }
  return out;
}

void validate(const RouteInfo& route, const auto& operation) {
  if (!route.dst) throw invalid(operation, "a route needs a destination prefix");
  const Prefix& dst = *route.dst;
  if (dst.isV4() && dst.hasHostBits())
    throw invalid(operation, "invalid prefix " + dst.toStringWithLength() + ": host bits are set (the network is " +
                                 dst.masked().toStringWithLength() + ")");
  auto sameFamily = [&](const IpAddress& a, const char* what) {
    if (a.family() != dst.family())
      throw invalid(operation, std::string(what) + " " + a.toString() + " is not an " + familyWord(dst.family()) +
                                   " address (the route is " + dst.toStringWithLength() + ")");
  };
  if (route.gateway) sameFamily(*route.gateway, "gateway");
  if (route.prefsrc) sameFamily(*route.prefsrc, "prefsrc");
  if (!route.paths.empty() && (route.gateway || route.dev))
    throw invalid(operation, "a multipath route takes via/dev inside each nexthop, not on the route");
  if (route.nhid && (route.gateway || route.dev || !route.paths.empty()))
    throw invalid(operation, "a route using a nexthop object (nhid) cannot also have via, dev or nexthop");
  if (route.nhid && *route.nhid == 0) throw invalid(operation, "nexthop id 0 is not valid");
  // RFC 4191's 2-bit field: 2 is reserved (the kernel reads it as medium); refuse it outright.
  if (route.pref && *route.pref != 0 && *route.pref != 1 && *route.pref != 3)
    throw invalid(operation, "router preference " + std::to_string(*route.pref) + " is not 3 (low), 0 (medium) or 1 (high)");
}

Scope defaultScope(const RouteInfo& route, RouteType type, Verb verb) {
  switch (type) {
    case RouteType::Local:
    case RouteType::Nat: return Scope::Host;
    case RouteType::Broadcast:
    case RouteType::Multicast:
    case RouteType::Anycast: return Scope::Link;
    case RouteType::Unicast:
    case RouteType::Unspec:
      if (verb == Verb::Del) return Scope::Nowhere;
      if (!route.gateway && route.paths.empty() && !route.nhid) return Scope::Link;
      return Scope::Universe;
    default: return Scope::Universe;
  }
}

// What describeRoute reads, kept with a request for its lazy description (a RouteInfo is
// several times larger: nexthops, metrics, ...).
struct RouteWords {
  std::optional<RouteType> type;
  std::optional<Prefix> dst;
  std::optional<IpAddress> gateway;
  std::optional<Ifref> dev;
  std::optional<uint32_t> nhid, table, metric;
};

std::string describeRoute(Verb verb, const auto& route) {
  std::string s;
  s.reserve(96);
  s += "route ";
  s += verbWord(verb);
  if (route.type && *route.type != RouteType::Unicast) s += " " + routeTypeName(*route.type);
  s += ' ';
  s += route.dst ? route.dst->toString() : "?";
  if (route.gateway) s += " via " + route.gateway->toString();
  if (route.dev) s += " dev " + devWord(*route.dev);
  if (route.nhid) s += " nhid " + std::to_string(*route.nhid);
  if (route.table && *route.table != kTableMain) s += " table " + std::to_string(*route.table);
  if (route.metric) s += " metric " + std::to_string(*route.metric);
  return s;
}

}  // namespace

Request encodeRoute(const RouteInfo& route, Verb verb) {
  auto operation = [&] { return describeRoute(verb, route); };
  validate(route, operation);
  core::MessageWriter w(messageType(verb, RTM_NEWROUTE), createFlags(verb));
  const Prefix& dst = *route.dst;
  bool del = verb == Verb::Del;
  RouteType type = route.type.value_or(del ? RouteType::Unspec : RouteType::Unicast);
  uint32_t table = route.tableOrMain();

  auto& rtm = w.putHeader<rtmsg>();
  rtm.rtm_family = familyOf(dst.family());
  rtm.rtm_dst_len = dst.length();
  rtm.rtm_tos = route.tos.value_or(0);
  rtm.rtm_table = static_cast<uint8_t>(table < 256 ? table : RT_TABLE_UNSPEC);
  rtm.rtm_protocol = static_cast<uint8_t>(route.protocol.value_or(del ? RouteProtocol::Unspec : RouteProtocol::Boot));
  rtm.rtm_scope = static_cast<uint8_t>(route.scope.value_or(defaultScope(route, type, verb)));
  rtm.rtm_type = static_cast<uint8_t>(type);
  rtm.rtm_flags = route.onlink ? RTNH_F_ONLINK : 0;

  if (dst.length() > 0) w.putBytes(RTA_DST, dst.address().bytes());
  if (table >= 256) w.putU32(RTA_TABLE, table);
  kFields.encode(w, route);
  if (route.metrics && !route.metrics->empty()) {
    auto m = encodeMetrics(*route.metrics);
    w.putBytes(RTA_METRICS, m);
  }
  if (!route.paths.empty()) w.putBytes(RTA_MULTIPATH, encodeMultipath(route, operation));
  RouteWords words{route.type, route.dst, route.gateway, route.dev, route.nhid, route.table, route.metric};
  return w.toRequest(lazily(verb, std::move(words), describeRoute<RouteWords>));
}

void encodeRouteDump(core::MessageWriter& w, const RouteFilter& filter, uint32_t oif) {
  auto& rtm = w.putHeader<rtmsg>();
  rtm.rtm_family = filter.family ? familyOf(*filter.family) : AF_UNSPEC;
  if (filter.table) rtm.rtm_table = static_cast<uint8_t>(*filter.table < 256 ? *filter.table : RT_TABLE_UNSPEC);
  if (filter.protocol) rtm.rtm_protocol = static_cast<uint8_t>(*filter.protocol);
  if (filter.type) rtm.rtm_type = static_cast<uint8_t>(*filter.type);
  if (filter.table) w.putU32(RTA_TABLE, *filter.table);
  if (oif) w.putU32(RTA_OIF, oif);
}

void encodeRouteGet(core::MessageWriter& w, const RouteQuery& q, uint32_t iif, uint32_t oif) {
  std::string operation = "route get " + q.dst.toString();
  if (q.from && q.from->family() != q.dst.family())
    throw invalid(operation, "from " + q.from->toString() + " is not of the family of " + q.dst.toString());
  auto& rtm = w.putHeader<rtmsg>();
  rtm.rtm_family = familyOf(q.dst.family());
  rtm.rtm_dst_len = q.dst.isV4() ? 32 : 128;
  rtm.rtm_src_len = q.from ? rtm.rtm_dst_len : 0;
  // IPv6 accepts only RTM_F_FIB_MATCH here: with strict checking any other flag is EINVAL
  // ("ipv6: Invalid flags for get route request").
  rtm.rtm_flags = (q.dst.isV4() ? RTM_F_LOOKUP_TABLE : 0) | (q.fibMatch ? RTM_F_FIB_MATCH : 0);
  w.putBytes(RTA_DST, q.dst.bytes());
  if (q.from) w.putBytes(RTA_SRC, q.from->bytes());
  if (iif) w.putU32(RTA_IIF, iif);
  if (oif) w.putU32(RTA_OIF, oif);
  if (q.mark) w.putU32(RTA_MARK, *q.mark);
}

namespace {

IpAddress readIp(const nlattr* a, uint8_t family) { return readAddress(a, family == AF_INET ? 4 : 16, "decode route"); }

void decodeMetrics(const nlattr* nest, RouteMetrics& m) {
  forEachAttr(core::readBytes(nest), [&](const nlattr* a) {
    for (auto [type, field] : kMetrics)
      if (core::attrType(a) == type) return void(m.*field = core::readU32(a));
    m.unknown.append(core::attrType(a), core::readBytes(a));
  });
}

// A repeated attribute replaces the earlier one here too (the views read the last).
std::vector<RoutePath> decodeMultipath(const nlattr* attr, uint8_t family) {
  std::vector<RoutePath> paths;
  bool whole = forEachNexthop(core::readBytes(attr), [&](const rtnexthop& nh, std::span<const uint8_t> attrs) {
    RoutePath p;
    p.weight = static_cast<uint16_t>(nh.rtnh_hops + 1);
    p.flags = nh.rtnh_flags;
    p.onlink = (nh.rtnh_flags & RTNH_F_ONLINK) != 0;
    if (nh.rtnh_ifindex) p.dev = Ifref(static_cast<uint32_t>(nh.rtnh_ifindex));
    // The rtnexthop's attributes follow it; their data is 4-byte aligned inside the payload.
    forEachAttr(attrs, [&](const nlattr* a) {
      if (core::attrType(a) == RTA_GATEWAY) p.gateway = readIp(a, family);
    });
    paths.push_back(std::move(p));
  });
  if (!whole) throw malformed("decode route", "bad rtnexthop length");
  return paths;
}

std::optional<uint32_t> expiresOf(const nlattr* cacheinfo) {
  auto ci = readStruct<rta_cacheinfo>(cacheinfo);
  return ci.rta_expires ? std::optional<uint32_t>(ci.rta_expires / 100) : std::nullopt;  // USER_HZ
}

FieldContext routeContext(uint8_t family) { return {"decode route", family == AF_INET ? 4u : 16u}; }

// The destination without RTA_DST: the default route of the message's family.
std::optional<Prefix> defaultDst(uint8_t family) {
  if (family == AF_INET) return Prefix::any(IpAddress::Family::v4);
  if (family == AF_INET6) return Prefix::any(IpAddress::Family::v6);
  return std::nullopt;
}

}  // namespace

void decodeRoute(const nlmsghdr* m, RouteInfo& r) {
  const auto& rtm = headerOf<rtmsg>(m, "route");
  r = RouteInfo();
  uint8_t family = rtm.rtm_family;
  r.table = rtm.rtm_table;
  r.type = static_cast<RouteType>(rtm.rtm_type);
  r.protocol = static_cast<RouteProtocol>(rtm.rtm_protocol);
  r.scope = static_cast<Scope>(rtm.rtm_scope);
  r.tos = rtm.rtm_tos;
  r.flags = rtm.rtm_flags;
  r.onlink = (rtm.rtm_flags & RTNH_F_ONLINK) != 0;
  bool haveDst = false;
  kFields.decodeAll(attrsOf(m, sizeof(rtmsg)), r, routeContext(family), [&](const nlattr* a) {
    switch (core::attrType(a)) {
      case RTA_DST:
        r.dst = Prefix(readIp(a, family), rtm.rtm_dst_len);
        haveDst = true;
        return true;
      case RTA_SRC: r.src = Prefix(readIp(a, family), rtm.rtm_src_len); return true;
      case RTA_METRICS: decodeMetrics(a, r.metrics.emplace()); return true;
      case RTA_MULTIPATH: r.paths = decodeMultipath(a, family); return true;
      case RTA_CACHEINFO: r.expires = expiresOf(a); return true;
    }
    return false;
  });
  if (!haveDst) r.dst = defaultDst(family);
}

}  // namespace fastlink::rtnl

namespace fastlink {

// RouteView (fastlink/route_view.hpp): the readers of many-route dumps are inline in the header
// (their wire numbers checked here); the rest read through the route's FieldTable rows or with
// decodeRoute's own helpers.
using Wire = detail::RouteWire;
static_assert(Wire::kHeaderAt == NLMSG_HDRLEN && Wire::kHeaderSize == sizeof(rtmsg));
static_assert(Wire::kFamily == offsetof(rtmsg, rtm_family) && Wire::kDstLen == offsetof(rtmsg, rtm_dst_len) &&
              Wire::kSrcLen == offsetof(rtmsg, rtm_src_len) && Wire::kTos == offsetof(rtmsg, rtm_tos) &&
              Wire::kTable == offsetof(rtmsg, rtm_table) && Wire::kProtocol == offsetof(rtmsg, rtm_protocol) &&
              Wire::kScope == offsetof(rtmsg, rtm_scope) && Wire::kType == offsetof(rtmsg, rtm_type) &&
              Wire::kFlags == offsetof(rtmsg, rtm_flags));
static_assert(Wire::kDst == RTA_DST && Wire::kOif == RTA_OIF && Wire::kGateway == RTA_GATEWAY &&
              Wire::kPriority == RTA_PRIORITY && Wire::kTable32 == RTA_TABLE && Wire::kInet == AF_INET);
// The inline readers read the rows' attributes with the rows' readers (a u32, an address of the
// family's width): the table and the header agree on where each field is.
static_assert(rtnl::kFields.rowOf<&RouteInfo::gateway>().type == Wire::kGateway &&
              rtnl::kFields.rowOf<&RouteInfo::dev>().type == Wire::kOif &&
              rtnl::kFields.rowOf<&RouteInfo::metric>().type == Wire::kPriority &&
              rtnl::kFields.rowOf<&RouteInfo::table>().type == Wire::kTable32);

void RouteView::tooShort() {
  rtnl::checkedView<rtmsg>({}, "decode route", "route");  // throws the decoder's error
  std::abort();
}

namespace {
const rtmsg& rtmOf(const RouteView& v) { return rtnl::viewHeader<rtmsg>(v.message()); }
const nlattr* asAttr(const uint8_t* a) { return reinterpret_cast<const nlattr*>(a); }
}  // namespace

template <auto kMember>
auto RouteView::read() const {
  return rtnl::viewField<rtnl::kFields, kMember>(attrs_, rtnl::routeContext(rtmOf(*this).rtm_family));
}

bool RouteView::onlink() const { return flags() & RTNH_F_ONLINK; }
bool RouteView::isCloned() const { return flags() & RTM_F_CLONED; }

IpAddress::Family RouteView::family() const {
  // An IPv4 or IPv6 route's dst is of the header's family (the default route without RTA_DST
  // too): no address need be read for it.
  uint8_t family = rtmOf(*this).rtm_family;
  if (family == AF_INET || family == AF_INET6) return family == AF_INET ? IpAddress::Family::v4 : IpAddress::Family::v6;
  if (auto d = dst()) return d->family();
  if (auto g = gateway()) return g->family();
  return IpAddress::Family::v4;
}

std::optional<Prefix> RouteView::defaultDst() const { return rtnl::defaultDst(rtmOf(*this).rtm_family); }

std::optional<Prefix> RouteView::src() const {
  const rtmsg& rtm = rtmOf(*this);
  const uint8_t* a = attrs_.find(RTA_SRC);
  return a ? std::optional(Prefix(rtnl::readIp(asAttr(a), rtm.rtm_family), rtm.rtm_src_len)) : std::nullopt;
}

std::optional<IpAddress> RouteView::prefsrc() const { return read<&RouteInfo::prefsrc>(); }
std::optional<uint32_t> RouteView::nhid() const { return read<&RouteInfo::nhid>(); }
std::optional<uint32_t> RouteView::iif() const { return read<&RouteInfo::iif>(); }
std::optional<uint8_t> RouteView::pref() const { return read<&RouteInfo::pref>(); }
std::optional<uint32_t> RouteView::uid() const { return read<&RouteInfo::uid>(); }

std::optional<uint32_t> RouteView::expires() const {
  const uint8_t* a = attrs_.find(RTA_CACHEINFO);
  return a ? rtnl::expiresOf(asAttr(a)) : std::nullopt;
}

std::optional<RouteMetrics> RouteView::metrics() const {
  const uint8_t* a = attrs_.find(RTA_METRICS);
  if (!a) return std::nullopt;
  std::optional<RouteMetrics> m(std::in_place);
  rtnl::decodeMetrics(asAttr(a), *m);
  return m;
}

bool RouteView::isMultipath() const { return attrs_.find(RTA_MULTIPATH) != nullptr; }

std::vector<RoutePath> RouteView::paths() const {
  const uint8_t* a = attrs_.find(RTA_MULTIPATH);
  return a ? rtnl::decodeMultipath(asAttr(a), rtmOf(*this).rtm_family) : std::vector<RoutePath>{};
}

RouteInfo RouteView::toInfo() const {
  RouteInfo r;
  rtnl::decodeRoute(reinterpret_cast<const nlmsghdr*>(message().data()), r);
  return r;
}

namespace {

// Dumps with AF_UNSPEC also carry multicast routes of other families: skipped.
struct Traits : rtnl::Object<RouteInfo, RouteFilter, RTM_NEWROUTE, rtnl::kIpFamilies> {
  static constexpr const char* kNoun = "route";
  static void devices(auto& r, auto&& visit) {
    visit(r.dev);
    for (auto& p : r.paths) visit(p.dev);
  }
  static void encodeDump(core::MessageWriter& w, const Filter& f, const rtnl::Indexes& ix) { rtnl::encodeRouteDump(w, f, ix.dev); }
  // Decoded into one reused RouteInfo: a million routes allocate nothing per route.
  static void decode(const nlmsghdr* m, Info& out, const Filter&) { rtnl::decodeRoute(m, out); }
  // The kernel applied the filter (NLM_F_DUMP_FILTERED); checking again costs little and keeps
  // the answer right on a kernel that ignores part of it.
  static bool matches(const Info& r, const Filter& f, const rtnl::Indexes& ix) {
    if (f.skipCloned && r.isCloned()) return false;
    if (f.family && r.dst && r.dst->family() != *f.family) return false;
    if ((f.table && r.table != f.table) || (f.protocol && r.protocol != f.protocol) || (f.type && r.type != f.type))
      return false;
    auto uses = [&](const std::optional<Ifref>& dev) { return dev && dev->isIndex() && dev->index() == ix.dev; };
    return !ix.dev || uses(r.dev) || std::any_of(r.paths.begin(), r.paths.end(), [&](const RoutePath& p) { return uses(p.dev); });
  }
  using View = RouteView;
  // matches, read from the view: the paths are decoded only under a device filter the route's
  // own device does not meet (out of line, so the common case needs no stack frame).
  static bool matchesView(const RouteView& r, const Filter& f, const rtnl::Indexes& ix) {
    // The header's fields read once here: this runs for every message.
    const rtmsg& rtm = rtmOf(r);
    if (f.skipCloned && (rtm.rtm_flags & RTM_F_CLONED)) return false;
    if (f.family) {
      bool ip = rtm.rtm_family == AF_INET || rtm.rtm_family == AF_INET6;
      auto family = rtm.rtm_family == AF_INET ? IpAddress::Family::v4 : IpAddress::Family::v6;
      if ((ip ? family : r.family()) != *f.family) return false;
    }
    if ((f.table && r.table() != f.table) || (f.protocol && rtm.rtm_protocol != static_cast<uint8_t>(*f.protocol)) ||
        (f.type && rtm.rtm_type != static_cast<uint8_t>(*f.type)))
      return false;
    return !ix.dev || r.devIndex() == ix.dev || aPathUses(r, ix.dev);
  }
  [[gnu::noinline]] static bool aPathUses(const RouteView& r, uint32_t dev) {
    auto paths = r.paths();
    return std::any_of(paths.begin(), paths.end(), [&](const RoutePath& p) { return p.dev && p.dev->index() == dev; });
  }
  // A family-specific dump of a table that does not exist fails with ENOENT: no routes.
  static bool emptyOn(const Filter& f, const Error& e) { return f.table && e.code() == std::errc::no_such_file_or_directory; }
};

// What identifies a route to delete it: compact, so flushing a million routes stays small.
struct RouteKey {
  Prefix dst;
  uint32_t table;
  /// The output device (0: none, a multipath route): two devices' fe80::/64 share every other
  /// field, and a delete without RTA_OIF removes the kernel's first match, maybe the other's.
  uint32_t oif;
  std::optional<uint32_t> metric;
  uint8_t tos;
  RouteType type;
};

}  // namespace

RouteApi& Netlink::routes() { return lazy(routes_); }

bool RoutePath::isDead() const { return (flags & RTNH_F_DEAD) != 0; }
bool RoutePath::isLinkdown() const { return (flags & RTNH_F_LINKDOWN) != 0; }

IpAddress::Family RouteInfo::family() const {
  if (dst) return dst->family();
  if (gateway) return gateway->family();
  return IpAddress::Family::v4;
}

bool RouteInfo::isCloned() const { return flags && (*flags & RTM_F_CLONED); }

FASTLINK_RTNL_VERB(Route, add, Add, encodeRoute)
FASTLINK_RTNL_VERB(Route, del, Del, encodeRoute)
FASTLINK_RTNL_VERB(Route, replace, Replace, encodeRoute)
FASTLINK_RTNL_VERB(Route, append, Append, encodeRoute)
FASTLINK_RTNL_VERB(Route, change, Change, encodeRoute)

RouteInfo RouteApi::resolveNames(const RouteInfo& route) { return rtnl::resolved<Traits>(engine_, route); }

RouteInfo RouteApi::get(const RouteQuery& query) {
  std::string operation = "route get " + query.dst.toString();
  if (query.vrf && query.oif) throw Error::invalidArgument(operation, "give either vrf or oif, not both");
  if (query.table && (query.vrf || query.oif))
    throw Error::invalidArgument(operation, "give either table or vrf/oif, not both");
  rtnl::Names names(engine_);
  uint32_t iif = query.iif ? names.index(*query.iif) : 0;
  uint32_t oif = names.index(query.vrf ? query.vrf : query.oif);
  if (query.table) {
    // The kernel looks up one table only through the VRF device bound to it.
    for (const auto& l : core::ApiAccess::make<LinkApi>(engine_).list(LinkFilter().setKind("vrf")))
      if (l.vrf && l.vrf->table == query.table) oif = *l.index;
    if (!oif)
      throw Error::invalidArgument(operation, "no VRF device is bound to table " + std::to_string(*query.table) +
                                                  ": the kernel looks up a single table only through its VRF");
  }
  core::MessageWriter w(RTM_GETROUTE, 0);
  rtnl::encodeRouteGet(w, query, iif, oif);
  return rtnl::get<Traits>(engine_, w, operation);
}

FASTLINK_RTNL_LIST_API(RouteApi, Traits)
FASTLINK_RTNL_VIEW_API(RouteApi, Traits, forEachRoute, routes)

std::size_t RouteApi::flush(const RouteFilter& filter) {
  auto key = [&](const RouteInfo& r) -> std::optional<RouteKey> {
    if (!filter.table && r.table == kTableLocal) return std::nullopt;  // the kernel's own local routes
    return RouteKey{*r.dst, r.tableOrMain(), r.devIndex(), r.metric, r.tos.value_or(0), r.type.value_or(RouteType::Unicast)};
  };
  auto del = [](const RouteKey& k) {
    RouteInfo r(k.dst);
    r.setTable(k.table).setTos(k.tos).setType(k.type).metric = k.metric;
    if (k.oif) r.setDev(Ifref(k.oif));
    return RouteRequests::del(r);
  };
  // A route may vanish on its own meanwhile (its device went away): not a failure.
  return rtnl::flush<Traits>(engine_, filter, key, del, {std::errc::no_such_process});
}

}  // namespace fastlink
