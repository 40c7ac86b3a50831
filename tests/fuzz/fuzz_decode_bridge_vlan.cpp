// libFuzzer harness for rtnl::decodeBridgeVlans: the input is the body of an RTM_NEWLINK message (fixed header +
// attributes), as the engine hands it over after mnl_nlmsg_ok.
#include <linux/rtnetlink.h>

#include "fuzz_decode.hpp"
#include "rtnl/bridge_vlan_codec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fastlink::fuzz::decodeEach(data, size, RTM_NEWLINK, [](const nlmsghdr* m) { return fastlink::rtnl::decodeBridgeVlans(m); },
                             [](const auto& info) { for (const auto& v : info) (void)v; });
  return 0;
}
