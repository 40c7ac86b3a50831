// libFuzzer harness for the device statistics decoder (fastlink/stats.hpp, src/rtnl/stats.cpp):
// the input is the body of an RTM_NEWSTATS message (if_stats_msg + IFLA_STATS_* attributes), as
// a dump part and as a get's answer. Every field decoded is read back.
#include <linux/rtnetlink.h>

#include "fastlink/stats.hpp"
#include "fuzz_decode.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fastlink;
  fuzz::decodeEach(data, size, RTM_NEWSTATS, decodeDeviceStats, [](const DeviceStats& s) {
    uint64_t sum = s.ifindex;
    if (s.link) sum += s.link->rxBytes + s.link->txPackets + s.link->rxNohandler;
    if (s.cpuHit) sum += s.cpuHit->rxPackets;
    if (s.l3StatsState) sum += s.l3StatsState->request + s.l3StatsState->used.value_or(false);
    if (s.l3Stats) sum += s.l3Stats->multicast + s.l3Stats->txDropped;
    if (s.mpls) sum += s.mpls->rxNoroute;
    for (const ExtendedStats* x : {&s.xstats, &s.xstatsSlave}) {
      if (x->bridgeMcast) sum += x->bridgeMcast->igmpV3Queries[1] + x->bridgeMcast->mcastPackets[1];
      if (x->bridgeStp) sum += x->bridgeStp->txTcn;
      if (x->bond3ad) sum += x->bond3ad->lacpduRx.value_or(0) + x->bond3ad->markerUnknownRx.value_or(0);
    }
    volatile uint64_t sink = sum;
    (void)sink;
  });
  return 0;
}
