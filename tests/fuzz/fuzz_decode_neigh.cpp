// libFuzzer harness for rtnl::decodeNeigh: the input is the body of an RTM_NEWNEIGH message (fixed header +
// attributes), as the engine hands it over after mnl_nlmsg_ok; and as a notification read by the
// mirror's canonical form; and as a NeighView: every accessor must read what decodeNeigh decoded, or decodeNeigh
// must refuse the message (traps otherwise). And as a dump through NeighApi, list() against
// forEach with NeighViews under state filters (fuzz_view_dump.hpp).
#include <arpa/inet.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>

#include "fuzz_canonical.hpp"
#include "fuzz_decode.hpp"
#include "core/api_access.hpp"
#include "fuzz_view_dump.hpp"
#include "fastlink/neigh_view.hpp"
#include "rtnl/neigh_codec.hpp"
#include "support/view_agreement.hpp"

namespace {

// A neighbour with every field NeighView reads, decoded into list()'s Info before the input.
const std::vector<uint8_t>& lead() {
  static const std::vector<uint8_t> bytes = [] {
    using fastlink::fuzz::Body;
    ndmsg h{};
    h.ndm_family = AF_INET, h.ndm_ifindex = 3, h.ndm_state = NUD_REACHABLE, h.ndm_flags = NTF_ROUTER;
    h.ndm_type = RTN_UNICAST;
    in_addr dst;
    inet_pton(AF_INET, "10.0.0.9", &dst);
    const uint8_t mac[6] = {2, 0, 0, 0, 0, 9};
    nda_cacheinfo cache{};
    cache.ndm_confirmed = 10, cache.ndm_used = 20, cache.ndm_updated = 30, cache.ndm_refcnt = 2;
    Body b(h);
    b.attr(NDA_DST, &dst, 4).attr(NDA_LLADDR, mac, 6).attr(NDA_CACHEINFO, &cache, sizeof cache);
    b.u32(NDA_PROBES, 3).u8(NDA_PROTOCOL, 4);
    return b.bytes;
  }();
  return bytes;
}

// Through NeighApi: list() and forEach as views under the state filters (the one filter both
// paths apply in user space: the kernel has none), proxy entries passing every one.
void compareDumps(const uint8_t* data, size_t size) {
  if (size > 16384) return;
  using fastlink::NeighFilter;
  auto& h = fastlink::fuzz::DumpHarness::get();
  h.answerWith(lead(), {data, size}, RTM_NEWNEIGH);
  fastlink::NeighApi api = fastlink::core::ApiAccess::make<fastlink::NeighApi>(*h.engine);
  std::vector<NeighFilter> filters{NeighFilter{}, NeighFilter().addState(fastlink::NeighState::Reachable),
                                   NeighFilter().addState(fastlink::NeighState::None),
                                   NeighFilter().setStateMask(0xffff)};
  fastlink::fuzz::FuzzMessage message(data, size, RTM_NEWNEIGH, NLM_F_MULTI);
  try {
    fastlink::NeighView v(std::span(reinterpret_cast<const uint8_t*>(message.header()), message.header()->nlmsg_len));
    if (auto s = v.state()) filters.push_back(NeighFilter().addState(*s));
  } catch (const fastlink::Error&) {
  }
  for (const auto* f : fastlink::fuzz::chosen(filters, data, size))
    fastlink::fuzz::compareDump<fastlink::NeighView>(api, *f, "NeighView (dump)", fastlink::test::neighViewDisagreement,
                                                     [](const fastlink::NeighView& v) { return v.toInfo(); });
  h.clear();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fastlink::fuzz::decodeEach(data, size, RTM_NEWNEIGH, [](const nlmsghdr* m) { return fastlink::rtnl::decodeNeigh(m); },
                             [](const auto& info) { fastlink::fuzz::touch(info.unknown); });
  fastlink::fuzz::compareView<fastlink::NeighView>(
      data, size, RTM_NEWNEIGH, "NeighView", [](const nlmsghdr* m) { return fastlink::rtnl::decodeNeigh(m); },
      fastlink::test::neighViewDisagreement);
  fastlink::fuzz::canonicalizeEach(data, size, RTM_NEWNEIGH, RTM_DELNEIGH);
  compareDumps(data, size);
  return 0;
}
