// libFuzzer harness for rtnl::decodeAddr: the input is the body of an RTM_NEWADDR message (fixed header +
// attributes), as the engine hands it over after mnl_nlmsg_ok; and as a notification read by the
// mirror's canonical form.
#include <linux/rtnetlink.h>

#include "fuzz_canonical.hpp"
#include "fuzz_decode.hpp"
#include "rtnl/addr_codec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fastlink::fuzz::decodeEach(data, size, RTM_NEWADDR, [](const nlmsghdr* m) { return fastlink::rtnl::decodeAddr(m); },
                             [](const auto& info) { fastlink::fuzz::touch(info.unknown); if (info.address) (void)info.address->toString(); });
  fastlink::fuzz::canonicalizeEach(data, size, RTM_NEWADDR, RTM_DELADDR);
  return 0;
}
