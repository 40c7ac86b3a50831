// libFuzzer harness for rtnl::decodeNeigh: the input is the body of an RTM_NEWNEIGH message (fixed header +
// attributes), as the engine hands it over after mnl_nlmsg_ok; and as a notification read by the
// mirror's canonical form; and as a NeighView: every accessor must read what decodeNeigh decoded, or decodeNeigh
// must refuse the message (traps otherwise).
#include <linux/rtnetlink.h>

#include "fuzz_canonical.hpp"
#include "fuzz_decode.hpp"
#include "rtnl/neigh_codec.hpp"
#include "support/view_agreement.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fastlink::fuzz::decodeEach(data, size, RTM_NEWNEIGH, [](const nlmsghdr* m) { return fastlink::rtnl::decodeNeigh(m); },
                             [](const auto& info) { fastlink::fuzz::touch(info.unknown); });
  fastlink::fuzz::compareView<fastlink::NeighView>(
      data, size, RTM_NEWNEIGH, "NeighView", [](const nlmsghdr* m) { return fastlink::rtnl::decodeNeigh(m); },
      fastlink::test::neighViewDisagreement);
  fastlink::fuzz::canonicalizeEach(data, size, RTM_NEWNEIGH, RTM_DELNEIGH);
  return 0;
}
