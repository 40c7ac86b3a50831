// libFuzzer harness for rtnl::decodeRoute: the input is the body of an RTM_NEWROUTE message
// (rtmsg + attributes, multipath nexthops, metrics). One RouteInfo is reused across the two
// decodes, as a dump reuses it, so state left over from the first decode is exercised too. Also
// read as a notification by the mirror's canonical form (multipath devices, nexthop id, source),
// and as a RouteView: every accessor must read what decodeRoute decoded, or decodeRoute must
// refuse the message (traps otherwise). And as a dump through RouteApi, list() against forEach
// with RouteViews under filters (fuzz_view_dump.hpp).
#include <arpa/inet.h>
#include <linux/rtnetlink.h>

#include "fuzz_canonical.hpp"
#include "fuzz_decode.hpp"
#include "core/api_access.hpp"
#include "fuzz_view_dump.hpp"
#include "fastlink/route_view.hpp"
#include "rtnl/route_codec.hpp"
#include "support/view_agreement.hpp"

namespace {

// A route with every field RouteView reads (two paths, metrics, an expiry), decoded into
// list()'s reused RouteInfo before the input.
const std::vector<uint8_t>& lead() {
  static const std::vector<uint8_t> bytes = [] {
    using fastlink::fuzz::Body;
    rtmsg h{};
    h.rtm_family = AF_INET, h.rtm_dst_len = 24, h.rtm_src_len = 16, h.rtm_tos = 4, h.rtm_table = RT_TABLE_MAIN;
    h.rtm_protocol = RTPROT_STATIC, h.rtm_scope = RT_SCOPE_UNIVERSE, h.rtm_type = RTN_UNICAST;
    h.rtm_flags = RTNH_F_ONLINK;
    auto ip = [](const char* text) {
      in_addr a;
      inet_pton(AF_INET, text, &a);
      return a;
    };
    in_addr dst = ip("10.1.2.0"), src = ip("10.9.0.0"), gw = ip("10.1.2.1"), pref = ip("10.1.2.3"), gw2 = ip("10.1.2.9");
    rtnexthop nh{};
    nh.rtnh_len = sizeof nh + 8, nh.rtnh_hops = 1, nh.rtnh_ifindex = 4;
    std::vector<uint8_t> paths(reinterpret_cast<uint8_t*>(&nh), reinterpret_cast<uint8_t*>(&nh) + sizeof nh);
    Body via = Body::none().attr(RTA_GATEWAY, &gw2, 4);
    paths.insert(paths.end(), via.bytes.begin(), via.bytes.end());
    nh.rtnh_ifindex = 5, nh.rtnh_hops = 2;
    paths.insert(paths.end(), reinterpret_cast<uint8_t*>(&nh), reinterpret_cast<uint8_t*>(&nh) + sizeof nh);
    paths.insert(paths.end(), via.bytes.begin(), via.bytes.end());
    rta_cacheinfo cache{};
    cache.rta_expires = 500 * 100;
    Body b(h);
    b.u32(RTA_TABLE, RT_TABLE_MAIN).attr(RTA_DST, &dst, 4).attr(RTA_SRC, &src, 4).attr(RTA_GATEWAY, &gw, 4);
    b.u32(RTA_OIF, 3).u32(RTA_PRIORITY, 100).attr(RTA_PREFSRC, &pref, 4).u32(RTA_IIF, 2).u8(RTA_PREF, 1);
    b.u32(RTA_UID, 1000).attr(RTA_MULTIPATH, paths.data(), paths.size());
    b.nest(RTA_METRICS, Body::none().u32(RTAX_MTU, 1400).u32(RTAX_ADVMSS, 1360).u32(RTAX_LOCK, 1 << RTAX_MTU));
    b.attr(RTA_CACHEINFO, &cache, sizeof cache);
    return b.bytes;
  }();
  return bytes;
}

// Through RouteApi: list() and forEach as views under every filter the view path reads itself
// (family, table, protocol, type, device of the route or of a path, clones).
void compareDumps(const uint8_t* data, size_t size) {
  if (size > 16384) return;
  using fastlink::RouteFilter;
  auto& h = fastlink::fuzz::DumpHarness::get();
  h.answerWith(lead(), {data, size}, RTM_NEWROUTE);
  fastlink::RouteApi api = fastlink::core::ApiAccess::make<fastlink::RouteApi>(*h.engine);
  RouteFilter all;
  all.skipCloned = false;
  std::vector<RouteFilter> filters{RouteFilter{}, all, RouteFilter().setFamily(fastlink::IpAddress::Family::v4),
                                   RouteFilter().setFamily(fastlink::IpAddress::Family::v6),
                                   RouteFilter().setTable(RT_TABLE_MAIN), RouteFilter().setDev(fastlink::Ifref(4u)),
                                   RouteFilter().setProtocol(fastlink::RouteProtocol(RTPROT_STATIC))};
  fastlink::fuzz::FuzzMessage message(data, size, RTM_NEWROUTE, NLM_F_MULTI);
  try {
    fastlink::RouteView v(std::span(reinterpret_cast<const uint8_t*>(message.header()), message.header()->nlmsg_len));
    filters.push_back(RouteFilter().setTable(v.table()).setType(v.type()).setProtocol(v.protocol()));
    if (v.devIndex()) filters.push_back(RouteFilter().setDev(fastlink::Ifref(v.devIndex())));
    for (const auto& p : v.paths())
      if (p.dev) filters.push_back(RouteFilter().setDev(*p.dev));
  } catch (const fastlink::Error&) {
  }
  for (const auto* f : fastlink::fuzz::chosen(filters, data, size))
    fastlink::fuzz::compareDump<fastlink::RouteView>(api, *f, "RouteView (dump)", fastlink::test::routeViewDisagreement,
                                                     [](const fastlink::RouteView& v) { return v.toInfo(); });
  h.clear();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fastlink::RouteInfo route;
  fastlink::fuzz::decodeEach(
      data, size, RTM_NEWROUTE,
      [&route](const nlmsghdr* m) -> const fastlink::RouteInfo& {
        if (fastlink::rtnl::isIpRoute(m)) fastlink::rtnl::decodeRoute(m, route);
        return route;
      },
      [](const fastlink::RouteInfo& info) {
        fastlink::fuzz::touch(info.unknown);
        if (info.dst) (void)info.dst->toString();
      });
  fastlink::fuzz::compareView<fastlink::RouteView>(
      data, size, RTM_NEWROUTE, "RouteView",
      [](const nlmsghdr* m) {
        fastlink::RouteInfo r;
        fastlink::rtnl::decodeRoute(m, r);
        return r;
      },
      fastlink::test::routeViewDisagreement);
  fastlink::fuzz::canonicalizeEach(data, size, RTM_NEWROUTE, RTM_DELROUTE);
  compareDumps(data, size);
  return 0;
}
