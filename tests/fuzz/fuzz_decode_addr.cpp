// libFuzzer harness for rtnl::decodeAddr: the input is the body of an RTM_NEWADDR message (fixed header +
// attributes), as the engine hands it over after mnl_nlmsg_ok; and as a notification read by the
// mirror's canonical form; and as an AddrView: every accessor must read what decodeAddr decoded, or decodeAddr
// must refuse the message (traps otherwise).
#include <linux/rtnetlink.h>

#include "fuzz_canonical.hpp"
#include "fuzz_decode.hpp"
#include "rtnl/addr_codec.hpp"
#include "support/view_agreement.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fastlink::fuzz::decodeEach(data, size, RTM_NEWADDR, [](const nlmsghdr* m) { return fastlink::rtnl::decodeAddr(m); },
                             [](const auto& info) { fastlink::fuzz::touch(info.unknown); if (info.address) (void)info.address->toString(); });
  fastlink::fuzz::compareView<fastlink::AddrView>(
      data, size, RTM_NEWADDR, "AddrView", [](const nlmsghdr* m) { return fastlink::rtnl::decodeAddr(m); },
      fastlink::test::addrViewDisagreement);
  fastlink::fuzz::canonicalizeEach(data, size, RTM_NEWADDR, RTM_DELADDR);
  return 0;
}
