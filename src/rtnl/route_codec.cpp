#include "rtnl/route_codec.hpp"

#include <libmnl/libmnl.h>
#include <sys/socket.h>
#include <linux/rtnetlink.h>

#include <cstring>

#include "rtnl/codec_helpers.hpp"

namespace fastlink::rtnl {
namespace {

Error invalid(const std::string& operation, const std::string& why) { return Error::invalidArgument(operation, why); }

uint8_t familyOf(IpAddress::Family f) { return f == IpAddress::Family::v4 ? AF_INET : AF_INET6; }

const char* familyWord(IpAddress::Family f) { return f == IpAddress::Family::v4 ? "IPv4" : "IPv6"; }

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

std::vector<uint8_t> encodeMetrics(const RouteMetrics& m) {
  std::vector<uint8_t> out;
  if (m.lock) appendU32(out, RTAX_LOCK, *m.lock);
  if (m.mtu) appendU32(out, RTAX_MTU, *m.mtu);
  if (m.window) appendU32(out, RTAX_WINDOW, *m.window);
  if (m.advmss) appendU32(out, RTAX_ADVMSS, *m.advmss);
  if (m.hoplimit) appendU32(out, RTAX_HOPLIMIT, *m.hoplimit);
  if (m.initcwnd) appendU32(out, RTAX_INITCWND, *m.initcwnd);
  if (m.initrwnd) appendU32(out, RTAX_INITRWND, *m.initrwnd);
  for (const auto& raw : m.unknown.list()) appendAttr(out, raw.type, raw.payload.data(), raw.payload.size());
  return out;
}

std::vector<uint8_t> encodeMultipath(const RouteInfo& route, const std::string& operation) {
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

void validate(const RouteInfo& route, const std::string& operation) {
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
}

Scope defaultScope(const RouteInfo& route, RouteType type, RouteVerb verb) {
  switch (type) {
    case RouteType::Local:
    case RouteType::Nat: return Scope::Host;
    case RouteType::Broadcast:
    case RouteType::Multicast:
    case RouteType::Anycast: return Scope::Link;
    case RouteType::Unicast:
    case RouteType::Unspec:
      if (verb == RouteVerb::Del) return Scope::Nowhere;
      if (!route.gateway && route.paths.empty() && !route.nhid) return Scope::Link;
      return Scope::Universe;
    default: return Scope::Universe;
  }
}

}  // namespace

namespace {

// Every request of a million-route batch carries its description, so it is built without
// inet_ntop/sprintf (which cost more than the whole encoding).
void appendAddress(std::string& s, const IpAddress& a) {
  if (!a.isV4()) {
    s += a.toString();
    return;
  }
  auto b = a.bytes();
  for (std::size_t i = 0; i < 4; ++i) {
    if (i) s += '.';
    unsigned v = b[i];
    if (v >= 100) s += static_cast<char>('0' + v / 100);
    if (v >= 10) s += static_cast<char>('0' + v / 10 % 10);
    s += static_cast<char>('0' + v % 10);
  }
}

void appendPrefix(std::string& s, const Prefix& p) {
  appendAddress(s, p.address());
  if (!p.isHost()) {
    s += '/';
    s += std::to_string(p.length());
  }
}

}  // namespace

std::string describeRoute(const char* verb, const RouteInfo& route) {
  std::string s;
  s.reserve(96);
  s += "route ";
  s += verb;
  if (route.type && *route.type != RouteType::Unicast) s += " " + routeTypeName(*route.type);
  s += ' ';
  if (route.dst) appendPrefix(s, *route.dst);
  else s += '?';
  if (route.gateway) {
    s += " via ";
    appendAddress(s, *route.gateway);
  }
  if (route.dev) s += " dev " + (route.dev->isName() ? route.dev->name() : std::to_string(route.dev->index()));
  if (route.nhid) s += " nhid " + std::to_string(*route.nhid);
  if (route.table && *route.table != kTableMain) s += " table " + std::to_string(*route.table);
  if (route.metric) s += " metric " + std::to_string(*route.metric);
  return s;
}

Request encodeRoute(const RouteInfo& route, RouteVerb verb) {
  static const char* const kVerbs[] = {"add", "del", "replace", "append"};
  std::string operation = describeRoute(kVerbs[static_cast<int>(verb)], route);
  validate(route, operation);
  uint16_t flags = 0;
  switch (verb) {
    case RouteVerb::Add: flags = NLM_F_CREATE | NLM_F_EXCL; break;
    case RouteVerb::Replace: flags = NLM_F_CREATE | NLM_F_REPLACE; break;
    case RouteVerb::Append: flags = NLM_F_CREATE | NLM_F_APPEND; break;
    case RouteVerb::Del: break;
  }
  core::MessageWriter w(verb == RouteVerb::Del ? RTM_DELROUTE : RTM_NEWROUTE, flags);
  const Prefix& dst = *route.dst;
  bool del = verb == RouteVerb::Del;
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
  if (route.metric) w.putU32(RTA_PRIORITY, *route.metric);
  if (route.prefsrc) w.putBytes(RTA_PREFSRC, route.prefsrc->bytes());
  if (route.gateway) w.putBytes(RTA_GATEWAY, route.gateway->bytes());
  if (route.dev) w.putU32(RTA_OIF, requireIndex(*route.dev, "dev"));
  if (route.nhid) w.putU32(RTA_NH_ID, *route.nhid);
  if (route.metrics && !route.metrics->empty()) {
    auto m = encodeMetrics(*route.metrics);
    w.putBytes(RTA_METRICS, m);
  }
  if (!route.paths.empty()) w.putBytes(RTA_MULTIPATH, encodeMultipath(route, operation));
  return w.toRequest(std::move(operation));
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

bool isIpRoute(const nlmsghdr* m) {
  const auto* rtm = core::messageHeader<rtmsg>(m);
  return m->nlmsg_type == RTM_NEWROUTE && rtm && (rtm->rtm_family == AF_INET || rtm->rtm_family == AF_INET6);
}

namespace {

[[noreturn]] void malformed(const char* why) {
  throw Error(make_error_code(Errc::malformed_reply), "decode route", why);
}

IpAddress readAddress(const nlattr* a, uint8_t family) {
  auto b = core::readBytes(a);
  std::size_t want = family == AF_INET ? 4 : 16;
  if (b.size() < want) malformed("address attribute too short");
  return IpAddress::fromBytes(b.first(want));
}

void decodeMetrics(const nlattr* nest, RouteMetrics& m) {
  const auto* payload = static_cast<const uint8_t*>(mnl_attr_get_payload(nest));
  int total = static_cast<int>(mnl_attr_get_payload_len(nest));
  int remaining = total;
  for (const auto* a = reinterpret_cast<const nlattr*>(payload); mnl_attr_ok(a, remaining);
       a = mnl_attr_next(a), remaining = total - static_cast<int>(reinterpret_cast<const uint8_t*>(a) - payload)) {
    switch (mnl_attr_get_type(a)) {
      case RTAX_LOCK: m.lock = core::readU32(a); break;
      case RTAX_MTU: m.mtu = core::readU32(a); break;
      case RTAX_WINDOW: m.window = core::readU32(a); break;
      case RTAX_ADVMSS: m.advmss = core::readU32(a); break;
      case RTAX_HOPLIMIT: m.hoplimit = core::readU32(a); break;
      case RTAX_INITCWND: m.initcwnd = core::readU32(a); break;
      case RTAX_INITRWND: m.initrwnd = core::readU32(a); break;
      default: m.unknown.append(mnl_attr_get_type(a), core::readBytes(a));
    }
  }
}

void decodeMultipath(const nlattr* attr, uint8_t family, std::vector<RoutePath>& paths) {
  auto bytes = core::readBytes(attr);
  std::size_t at = 0;
  while (at + sizeof(rtnexthop) <= bytes.size()) {
    rtnexthop nh;
    std::memcpy(&nh, bytes.data() + at, sizeof nh);
    if (nh.rtnh_len < sizeof nh || at + nh.rtnh_len > bytes.size()) malformed("bad rtnexthop length");
    RoutePath p;
    p.weight = static_cast<uint16_t>(nh.rtnh_hops + 1);
    p.flags = nh.rtnh_flags;
    p.onlink = (nh.rtnh_flags & RTNH_F_ONLINK) != 0;
    if (nh.rtnh_ifindex) p.dev = Ifref(static_cast<uint32_t>(nh.rtnh_ifindex));
    // The rtnexthop's attributes follow it; their data is 4-byte aligned inside the payload.
    const uint8_t* attrStart = bytes.data() + at + sizeof nh;
    int attrLen = static_cast<int>(nh.rtnh_len - sizeof nh);
    const auto* a = reinterpret_cast<const nlattr*>(attrStart);
    int remaining = attrLen;
    while (mnl_attr_ok(a, remaining)) {
      if (mnl_attr_get_type(a) == RTA_GATEWAY) p.gateway = readAddress(a, family);
      a = mnl_attr_next(a);
      remaining = attrLen - static_cast<int>(reinterpret_cast<const uint8_t*>(a) - attrStart);
    }
    paths.push_back(std::move(p));
    at += RTNH_ALIGN(nh.rtnh_len);
  }
}

}  // namespace

void decodeRoute(const nlmsghdr* m, RouteInfo& r) {
  const auto* rtm = core::messageHeader<rtmsg>(m);
  if (!rtm) malformed("short route message");
  r = RouteInfo();
  uint8_t family = rtm->rtm_family;
  IpAddress::Family fam = family == AF_INET ? IpAddress::Family::v4 : IpAddress::Family::v6;
  r.table = rtm->rtm_table;
  r.type = static_cast<RouteType>(rtm->rtm_type);
  r.protocol = static_cast<RouteProtocol>(rtm->rtm_protocol);
  r.scope = static_cast<Scope>(rtm->rtm_scope);
  r.tos = rtm->rtm_tos;
  r.flags = rtm->rtm_flags;
  r.onlink = (rtm->rtm_flags & RTNH_F_ONLINK) != 0;
  bool haveDst = false;
  std::size_t offset = NLMSG_HDRLEN + MNL_ALIGN(sizeof(rtmsg));
  if (m->nlmsg_len < offset) malformed("short route message");
  const auto* start = reinterpret_cast<const uint8_t*>(m) + offset;
  int total = static_cast<int>(m->nlmsg_len - offset);
  int remaining = total;
  for (const auto* a = reinterpret_cast<const nlattr*>(start); mnl_attr_ok(a, remaining);) {
    switch (mnl_attr_get_type(a)) {
      case RTA_DST:
        r.dst = Prefix(readAddress(a, family), rtm->rtm_dst_len);
        haveDst = true;
        break;
      case RTA_SRC: r.src = Prefix(readAddress(a, family), rtm->rtm_src_len); break;
      case RTA_IIF: r.iif = Ifref(core::readU32(a)); break;
      case RTA_OIF: r.dev = Ifref(core::readU32(a)); break;
      case RTA_GATEWAY: r.gateway = readAddress(a, family); break;
      case RTA_PRIORITY: r.metric = core::readU32(a); break;
      case RTA_PREFSRC: r.prefsrc = readAddress(a, family); break;
      case RTA_TABLE: r.table = core::readU32(a); break;
      case RTA_NH_ID: r.nhid = core::readU32(a); break;
      case RTA_PREF: r.pref = core::readU8(a); break;
      case RTA_METRICS: decodeMetrics(a, r.metrics.emplace()); break;
      case RTA_MULTIPATH: decodeMultipath(a, family, r.paths); break;
      case RTA_CACHEINFO: {
        rta_cacheinfo ci{};
        auto b = core::readBytes(a);
        std::memcpy(&ci, b.data(), std::min(b.size(), sizeof ci));
        if (ci.rta_expires) r.expires = ci.rta_expires / 100;  // USER_HZ
        break;
      }
      default: r.unknown.append(mnl_attr_get_type(a), core::readBytes(a));
    }
    a = mnl_attr_next(a);
    remaining = total - static_cast<int>(reinterpret_cast<const uint8_t*>(a) - start);
  }
  if (!haveDst && (family == AF_INET || family == AF_INET6)) r.dst = Prefix::any(fam);
}

bool routeMatches(const RouteInfo& r, const RouteFilter& f, uint32_t oif) {
  if (f.skipCloned && r.flags && (*r.flags & RTM_F_CLONED)) return false;
  if (f.family && r.dst && r.dst->family() != *f.family) return false;
  if (f.table && r.table != f.table) return false;
  if (f.protocol && r.protocol != f.protocol) return false;
  if (f.type && r.type != f.type) return false;
  if (oif) {
    bool uses = r.devIndex() == oif;
    for (const auto& p : r.paths)
      if (p.dev && p.dev->isIndex() && p.dev->index() == oif) uses = true;
    if (!uses) return false;
  }
  return true;
}

}  // namespace fastlink::rtnl
