// libFuzzer harness for rtnl::decodeNexthop: the input is the body of an RTM_NEWNEXTHOP message (fixed header +
// attributes), as the engine hands it over after mnl_nlmsg_ok; and applied twice to the mirror's
// nexthop book-keeping (events::NexthopUses) as a notification, created and deleted.
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <set>

#include "events/nexthop_uses.hpp"
#include "fuzz_decode.hpp"
#include "rtnl/nexthop_codec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fastlink::fuzz::decodeEach(data, size, RTM_NEWNEXTHOP, [](const nlmsghdr* m) { return fastlink::rtnl::decodeNexthop(m); },
                             [](const auto& info) { fastlink::fuzz::touch(info.unknown); });
  // The mirror's book-keeping of nexthops: the input as a notification, after a route over it.
  if (size > 65536) return 0;
  for (uint16_t type : {uint16_t(RTM_NEWNEXTHOP), uint16_t(RTM_DELNEXTHOP)}) {
    fastlink::fuzz::FuzzMessage message(data, size, type);
    fastlink::events::NexthopUses uses;
    std::set<fastlink::events::RouteTable> stale;
    uses.routeAdded(1, {AF_INET, 254});
    try {
      uses.apply(message.header(), stale);
      uses.apply(message.header(), stale);
    } catch (const fastlink::Error&) {
      // malformed input is reported as an Error: fine
    }
    (void)uses.deviceChanged(1, stale);
  }
  return 0;
}
