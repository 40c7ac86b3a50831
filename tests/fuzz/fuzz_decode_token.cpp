// libFuzzer harness for the IPv6 token decoder (fastlink/token.hpp, src/rtnl/token.cpp): the
// input is the body of an RTM_NEWLINK message of the AF_INET6 family (ifinfomsg + attributes),
// as a dump part and as a get's answer. Every field decoded is read back.
#include <linux/rtnetlink.h>

#include "fastlink/token.hpp"
#include "fuzz_decode.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fastlink;
  fuzz::decodeEach(data, size, RTM_NEWLINK, decodeToken, [](const TokenInfo& t) {
    uint64_t sum = t.ifindex + t.flags;
    if (t.token)
      for (uint8_t b : t.token->bytes()) sum += b;
    volatile uint64_t sink = sum;
    (void)sink;
  });
  return 0;
}
