// libFuzzer harness for rtnl::decodeRule: the input is the body of an RTM_NEWRULE message (fixed header +
// attributes), as the engine hands it over after mnl_nlmsg_ok.
#include <linux/rtnetlink.h>

#include "fuzz_decode.hpp"
#include "rtnl/rule_codec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fastlink::fuzz::decodeEach(data, size, RTM_NEWRULE, [](const nlmsghdr* m) { return fastlink::rtnl::decodeRule(m); },
                             [](const auto& info) { fastlink::fuzz::touch(info.unknown); });
  return 0;
}
