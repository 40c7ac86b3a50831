// libFuzzer harness for the conntrack decoder: the input is the body of a ctnetlink
// IPCTNL_MSG_CT_NEW message (nfgenmsg + CTA_* attributes), as a dump or an event delivers it.
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>

#include "fuzz_decode.hpp"
#include "netfilter/conntrack_codec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fastlink::fuzz::decodeEach(
      data, size, NFNL_SUBSYS_CTNETLINK << 8 | IPCTNL_MSG_CT_NEW,
      [](const nlmsghdr* m) { return fastlink::netfilter::decodeEntry(m); },
      [](const fastlink::ConntrackEntry& e) {
        volatile uint8_t sink = 0;
        for (const auto& [type, bytes] : e.unknown)
          for (uint8_t b : bytes) sink = sink ^ b ^ static_cast<uint8_t>(type);
        if (e.labels)
          for (uint8_t b : *e.labels) sink = sink ^ b;
        if (e.helper) sink = sink ^ static_cast<uint8_t>(e.helper->size());
        (void)sink;
      });
  return 0;
}
