// libFuzzer harness for the nsid decoder (src/rtnl/netns_codec.hpp): the input is the message body
// (rtgenmsg + NETNSA_* attributes); the harness puts an nlmsghdr in front, as RTM_NEWNSID (a get's
// answer, a dump part) and as RTM_DELNSID (a notification). Every field decoded is read back.
#include <linux/rtnetlink.h>

#include "fuzz_decode.hpp"
#include "rtnl/netns_codec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fastlink;
  for (uint16_t type : {uint16_t(RTM_NEWNSID), uint16_t(RTM_DELNSID)})
    fuzz::decodeEach(data, size, type, rtnl::decodeNsid, [](const NsidInfo& n) {
      volatile int64_t sink = int64_t{n.nsid} + n.currentNsid.value_or(0) + n.deleted;
      (void)sink;
    });
  return 0;
}
