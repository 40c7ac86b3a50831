// libFuzzer harness for the multicast route decoder (fastlink/mroute.hpp, src/rtnl/mroute.cpp):
// the input is the body of an RTM_NEWROUTE message of RTNL_FAMILY_IPMR/IP6MR (rtmsg + attributes,
// RTA_MULTIPATH walked as rtnexthop records), as a dump part and as a get's answer. Every field
// decoded is read back.
#include <linux/rtnetlink.h>

#include "fastlink/mroute.hpp"
#include "fuzz_decode.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fastlink;
  fuzz::decodeEach(data, size, RTM_NEWROUTE, decodeMroute, [](const MrouteInfo& e) {
    uint64_t sum = e.family + e.type + e.flags + e.table + e.iif.value_or(0) + e.lastUse.value_or(0);
    for (const auto& a : {e.source, e.group})
      if (a)
        for (uint8_t b : a->bytes()) sum += b;
    for (const MrouteOif& o : e.oifs) sum += o.ifindex + o.ttl;
    if (e.stats) sum += e.stats->packets + e.stats->bytes + e.stats->wrongIf;
    volatile uint64_t sink = sum;
    (void)sink;
  });
  return 0;
}
