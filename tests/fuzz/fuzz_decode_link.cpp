// libFuzzer harness for rtnl::decodeLink: the input is the body of an RTM_NEWLINK message
// (ifinfomsg + attributes); the harness puts the netlink header in front, as the engine would
// hand over a message that passed mnl_nlmsg_ok. Each decoded link is then re-encoded as a
// `set` request, so the encoder sees whatever values a kernel (or an attacker) could report.
// Also read as a notification by the mirror's canonical form, and as a LinkView: every accessor
// must read what the decoder decoded (support/view_agreement.hpp), or the decoder must have
// refused the message; a view never crashes, whatever the input. And as a dump through LinkApi,
// list() against forEach with LinkViews under filters (fuzz_view_dump.hpp).
#include <linux/netlink.h>
#include <linux/if.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include "fuzz_canonical.hpp"
#include "fuzz_decode.hpp"
#include "fuzz_message.hpp"
#include "core/api_access.hpp"
#include "fuzz_view_dump.hpp"

#include <cstdio>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fastlink/error.hpp"
#include "fastlink/link.hpp"
#include "fastlink/link_view.hpp"
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

// A link with every field LinkView reads, decoded into list()'s Info before the input.
const std::vector<uint8_t>& lead() {
  static const std::vector<uint8_t> bytes = [] {
    using fastlink::fuzz::Body;
    ifinfomsg h{};
    h.ifi_type = 1;
    h.ifi_index = 7;
    h.ifi_flags = IFF_UP | IFF_RUNNING | IFF_BROADCAST;
    const uint8_t mac[6] = {2, 0, 0, 0, 0, 7}, brd[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    rtnl_link_stats64 stats{};
    stats.rx_packets = 11, stats.tx_bytes = 22;
    Body b(h);
    b.str(IFLA_IFNAME, "lead0").u32(IFLA_MTU, 1400).u32(IFLA_TXQLEN, 1000).attr(IFLA_ADDRESS, mac, 6);
    b.attr(IFLA_BROADCAST, brd, 6).u32(IFLA_GROUP, 5).u32(IFLA_MASTER, 3).u32(IFLA_LINK, 2);
    b.str(IFLA_IFALIAS, "lead alias").u32(IFLA_NUM_TX_QUEUES, 2).u32(IFLA_NUM_RX_QUEUES, 3).u8(IFLA_CARRIER, 1);
    b.u32(IFLA_PROMISCUITY, 1).u32(IFLA_MIN_MTU, 68).u32(IFLA_MAX_MTU, 9000).str(IFLA_QDISC, "noqueue");
    b.u32(IFLA_LINK_NETNSID, 4).u32(IFLA_ALLMULTI, 1).u32(IFLA_CARRIER_CHANGES, 3).u32(IFLA_GSO_MAX_SIZE, 65536);
    b.u32(IFLA_GSO_MAX_SEGS, 65535).u32(IFLA_TSO_MAX_SIZE, 524280).u32(IFLA_TSO_MAX_SEGS, 65535);
    b.u32(IFLA_GRO_MAX_SIZE, 65536).u8(IFLA_OPERSTATE, 6).u8(IFLA_LINKMODE, 1);
    b.nest(IFLA_LINKINFO, Body::none().str(IFLA_INFO_KIND, "veth").str(IFLA_INFO_SLAVE_KIND, "bridge"));
    b.attr(IFLA_STATS64, &stats, sizeof stats);
    b.nest(IFLA_XDP, Body::none().u8(IFLA_XDP_ATTACHED, 1).u32(IFLA_XDP_PROG_ID, 9));
    b.nest(IFLA_AF_SPEC, Body::none().nest(AF_INET6, Body::none().u8(IFLA_INET6_ADDR_GEN_MODE, 1)));
    return b.bytes;
  }();
  return bytes;
}

// Through LinkApi: list() and forEach as views under filters that keep the input (its group,
// its name, a pattern) and one that drops it (statistics always: the view reads them anyway).
void compareDumps(const uint8_t* data, size_t size) {
  if (size > 16384) return;
  auto& h = fastlink::fuzz::DumpHarness::get();
  h.answerWith(lead(), {data, size}, RTM_NEWLINK);
  fastlink::LinkApi api = fastlink::core::ApiAccess::make<fastlink::LinkApi>(*h.engine);
  std::vector<fastlink::LinkFilter> filters{fastlink::LinkFilter{}, fastlink::LinkFilter().setGroup(5),
                                            fastlink::LinkFilter().setNamePattern("*")};
  fastlink::fuzz::FuzzMessage message(data, size, RTM_NEWLINK, NLM_F_MULTI);
  try {
    fastlink::LinkView v(std::span(reinterpret_cast<const uint8_t*>(message.header()), message.header()->nlmsg_len));
    if (auto g = v.group()) filters.push_back(fastlink::LinkFilter().setGroup(*g));
    if (auto n = v.name()) filters.push_back(fastlink::LinkFilter().setNamePattern(std::string(*n)));
  } catch (const fastlink::Error&) {
  }
  for (auto& f : filters) f.setWithStats(true);
  for (const auto* f : fastlink::fuzz::chosen(filters, data, size)) {
    fastlink::fuzz::compareDump<fastlink::LinkView>(api, *f, "LinkView (dump)", fastlink::test::linkViewDisagreement,
                                                    [](const fastlink::LinkView& v) { return v.toInfo(true); });
  }
  h.clear();
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
  compareDumps(data, size);
  return 0;
}
