// libFuzzer harness for rtnl::decodeLink: the input is the body of an RTM_NEWLINK message
// (ifinfomsg + attributes); the harness puts the netlink header in front, as the engine would
// hand over a message that passed mnl_nlmsg_ok. Each decoded link is then re-encoded as a
// `set` request, so the encoder sees whatever values a kernel (or an attacker) could report.
// Also read as a notification by the mirror's canonical form, and as a LinkView: every accessor
// must read what the decoder decoded (support/view_agreement.hpp), or the decoder must have
// refused the message; a view never crashes, whatever the input.
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include "fuzz_canonical.hpp"
#include "fuzz_decode.hpp"
#include "fuzz_message.hpp"

#include <cstdio>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fastlink/error.hpp"
#include "fastlink/link.hpp"
#include "rtnl/link_codec.hpp"
#include "support/view_agreement.hpp"

namespace {

void reencode(const fastlink::LinkInfo& d) {
  fastlink::LinkInfo c;
  c.name = d.name, c.mtu = d.mtu, c.address = d.address, c.group = d.group, c.master = d.master;
  c.admin = d.admin, c.txqlen = d.txqlen, c.alias = d.alias, c.kind = d.kind;
  c.bridge = d.bridge, c.vxlan = d.vxlan, c.macvlan = d.macvlan, c.vlan = d.vlan, c.vrf = d.vrf, c.bond = d.bond;
  try {
    uint32_t index = d.index.value_or(0);
    fastlink::Request r = fastlink::LinkRequests::set(index ? index : 1u, c);  // ifindex 0 is refused
    if (r.bytes().size() < NLMSG_HDRLEN) __builtin_trap();
  } catch (const fastlink::Error&) {
    // invalid values are refused: fine
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 65536) return 0;
  fastlink::fuzz::FuzzMessage message(data, size, RTM_NEWLINK, NLM_F_MULTI);
  nlmsghdr* h = message.header();
  for (bool withStats : {false, true}) {
    try {
      fastlink::LinkInfo link = fastlink::rtnl::decodeLink(h, withStats);
      fastlink::fuzz::touch(link.unknown);
      fastlink::fuzz::touch(link.unknownKindData);
      fastlink::fuzz::touch(link.slaveData);
      if (link.address) (void)link.address->toString();
      if (link.vxlan && link.vxlan->local) (void)link.vxlan->local->toString();
      reencode(link);
    } catch (const fastlink::Error&) {
      // malformed input is reported as an Error: fine
    }
  }
  fastlink::fuzz::compareView<fastlink::LinkView>(
      data, size, RTM_NEWLINK, "LinkView", [](const nlmsghdr* m) { return fastlink::rtnl::decodeLink(m, true); },
      fastlink::test::linkViewDisagreement);
  fastlink::fuzz::canonicalizeEach(data, size, RTM_NEWLINK, RTM_DELLINK);
  return 0;
}
