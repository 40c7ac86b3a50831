// libFuzzer harness for netdev::decodeNapi (the netdev family's NETDEV_CMD_NAPI_GET reply, one NAPI
// instance per message): the input is the message body (genlmsghdr + attributes); the harness
// puts an nlmsghdr of the netdev family's id in front (0x14 on the host, any id reaches the same
// decoder), as the engine hands over a message that passed mnl_nlmsg_ok, both as a dump part and
// as the answer of a `napi-get` do. Every field decoded is read back.
#include <linux/netlink.h>

#include "fuzz_decode.hpp"
#include "netdev/napi_codec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fastlink::fuzz::decodeEach(data, size, 0x14, fastlink::netdev::decodeNapi, [](const fastlink::NapiInfo& n) {
    volatile uint64_t sink = uint64_t{n.id} + n.ifindex + n.irq.value_or(0) + n.pid.value_or(0) + n.threaded.value_or(false);
    (void)sink;
  });
  return 0;
}
