// libFuzzer harness for rtnl::decodeRoute: the input is the body of an RTM_NEWROUTE message
// (rtmsg + attributes, multipath nexthops, metrics). One RouteInfo is reused across the two
// decodes, as a dump reuses it, so state left over from the first decode is exercised too. Also
// read as a notification by the mirror's canonical form (multipath devices, nexthop id, source),
// and as a RouteView: every accessor must read what decodeRoute decoded, or decodeRoute must
// refuse the message (traps otherwise).
#include <linux/rtnetlink.h>

#include "fuzz_canonical.hpp"
#include "fuzz_decode.hpp"
#include "rtnl/route_codec.hpp"
#include "support/view_agreement.hpp"

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
  return 0;
}
