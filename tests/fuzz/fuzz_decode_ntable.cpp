// libFuzzer harness for the neighbour table decoder (fastlink/ntable.hpp, src/rtnl/ntable.cpp):
// the input is the body of an RTM_NEWNEIGHTBL message (ndtmsg + attributes), as a dump part and as
// a get's answer. Every field decoded is read back.
#include <linux/rtnetlink.h>

#include "fastlink/ntable.hpp"
#include "fuzz_decode.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fastlink;
  fuzz::decodeEach(data, size, RTM_NEWNEIGHTBL, decodeNeighTable, [](const NeighTableInfo& t) {
    uint64_t sum = t.family + t.thresh1.value_or(0) + t.thresh2.value_or(0) + t.thresh3.value_or(0) + t.gcInterval.value_or(0);
    for (char c : t.name) sum += static_cast<uint8_t>(c);
    if (t.config) sum += t.config->entries + t.config->hashRnd + t.config->lastFlushMs + t.config->keyLength;
    if (t.stats) sum += t.stats->allocs + t.stats->tableFulls + t.stats->hits;
    if (t.parms) {
      const NeighTableParms& p = *t.parms;
      sum += p.ifindex.value_or(0) + p.refcnt.value_or(0) + p.reachable.value_or(0) + p.baseReachable.value_or(0) +
             p.retrans.value_or(0) + p.gcStale.value_or(0) + p.delayProbe.value_or(0) + p.queueLen.value_or(0) +
             p.appProbes.value_or(0) + p.ucastProbes.value_or(0) + p.mcastProbes.value_or(0) +
             p.anycastDelay.value_or(0) + p.proxyDelay.value_or(0) + p.proxyQlen.value_or(0) + p.locktime.value_or(0);
    }
    volatile uint64_t sink = sum;
    (void)sink;
  });
  return 0;
}
