// libFuzzer harness for the address label decoder (fastlink/addrlabel.hpp, src/rtnl/addrlabel.cpp):
// the input is the body of an RTM_NEWADDRLABEL message (ifaddrlblmsg + attributes), as a dump
// part and as a get's answer. Every field decoded is read back.
#include <linux/rtnetlink.h>

#include "fastlink/addrlabel.hpp"
#include "fuzz_decode.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fastlink;
  fuzz::decodeEach(data, size, RTM_NEWADDRLABEL, decodeAddrLabel, [](const AddrLabelInfo& e) {
    uint64_t sum = e.ifindex + e.label + e.prefix.length() + static_cast<uint8_t>(e.family);
    for (uint8_t b : e.prefix.address().bytes()) sum += b;
    volatile uint64_t sink = sum;
    (void)sink;
  });
  return 0;
}
