// libFuzzer harness for the mptcp_pm family's reply decoders (src/mptcp/mptcp_codec.hpp): the input
// is the message body (genlmsghdr + attributes); the harness puts an nlmsghdr of the family's id in
// front (any id reaches the same decoders), as the engine hands over a message that passed
// mnl_nlmsg_ok, both as a dump part and as the answer of a `do`, to the endpoint decoder
// (GET_ADDR) and to the limits decoder (GET_LIMITS). Every field decoded is read back.
#include <linux/netlink.h>

#include "fuzz_decode.hpp"
#include "mptcp/mptcp_codec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fastlink;
  fuzz::decodeEach(data, size, 0x1d, mptcp::decodeEndpoint, [](const MptcpEndpoint& e) {
    uint64_t sum = e.id + e.port.value_or(0) + e.flags + static_cast<uint32_t>(e.ifindex.value_or(0));
    for (uint8_t b : e.address.bytes()) sum += b;
    volatile uint64_t sink = sum;
    (void)sink;
  });
  fuzz::decodeEach(data, size, 0x1d, mptcp::decodeLimits, [](const MptcpLimits& l) {
    volatile uint64_t sink = uint64_t{l.addAddrAccepted.value_or(0)} + l.subflows.value_or(0);
    (void)sink;
  });
  return 0;
}
