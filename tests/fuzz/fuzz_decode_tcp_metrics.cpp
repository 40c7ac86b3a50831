// libFuzzer harness for the tcp_metrics family's reply decoder (fastlink/tcp_metrics.hpp,
// src/tcp_metrics/tcp_metrics.cpp): the input is the message body (genlmsghdr + attributes); the
// harness puts an nlmsghdr of the family's id in front (any id reaches the same decoder), as a
// dump part and as the answer of a get. Every field decoded is read back.
#include "fastlink/tcp_metrics.hpp"
#include "fuzz_decode.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fastlink;
  fuzz::decodeEach(data, size, 0x1a, decodeTcpMetrics, [](const TcpMetricsEntry& e) {
    uint64_t sum = e.ageMs.value_or(0) + e.twTsval.value_or(0) + static_cast<uint32_t>(e.twTsStamp.value_or(0)) +
                   e.rttMicros() + e.rttVarMicros() + e.ssthresh.value_or(0) + e.cwnd.value_or(0) +
                   e.reordering.value_or(0) + e.fastOpenMss.value_or(0) + e.fastOpenSynDrops.value_or(0) +
                   e.fastOpenSynDropTs.value_or(0);
    for (uint8_t b : e.destination.bytes()) sum += b;
    if (e.source)
      for (uint8_t b : e.source->bytes()) sum += b;
    for (uint8_t b : e.fastOpenCookie) sum += b;
    volatile uint64_t sink = sum;
    (void)sink;
  });
  return 0;
}
