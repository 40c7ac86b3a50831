// libFuzzer harness for rtnl::decodeAddr: the input is the body of an RTM_NEWADDR message (fixed header +
// attributes), as the engine hands it over after mnl_nlmsg_ok; and as a notification read by the
// mirror's canonical form; and as an AddrView: every accessor must read what decodeAddr decoded, or decodeAddr
// must refuse the message (traps otherwise). And as a dump through AddrApi, list() against
// forEach with AddrViews under filters (fuzz_view_dump.hpp).
#include <arpa/inet.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>

#include "fuzz_canonical.hpp"
#include "fuzz_decode.hpp"
#include "core/api_access.hpp"
#include "fuzz_view_dump.hpp"
#include "fastlink/addr_view.hpp"
#include "rtnl/addr_codec.hpp"
#include "support/view_agreement.hpp"

namespace {

// An address with every field AddrView reads (a peer, a label, lifetimes), decoded into list()'s
// Info before the input.
const std::vector<uint8_t>& lead() {
  static const std::vector<uint8_t> bytes = [] {
    using fastlink::fuzz::Body;
    ifaddrmsg h{};
    h.ifa_family = AF_INET, h.ifa_prefixlen = 24, h.ifa_flags = IFA_F_PERMANENT, h.ifa_scope = RT_SCOPE_UNIVERSE;
    h.ifa_index = 3;
    auto ip = [](const char* text) {
      in_addr a;
      inet_pton(AF_INET, text, &a);
      return a;
    };
    in_addr local = ip("10.0.0.1"), peer = ip("10.0.0.2"), brd = ip("10.0.0.255");
    ifa_cacheinfo cache{};
    cache.ifa_prefered = 100, cache.ifa_valid = 200;
    Body b(h);
    b.attr(IFA_ADDRESS, &peer, 4).attr(IFA_LOCAL, &local, 4).str(IFA_LABEL, "lead0:a").attr(IFA_BROADCAST, &brd, 4);
    b.attr(IFA_CACHEINFO, &cache, sizeof cache).u32(IFA_FLAGS, IFA_F_PERMANENT | IFA_F_NOPREFIXROUTE);
    b.u32(IFA_RT_PRIORITY, 50);
    return b.bytes;
  }();
  return bytes;
}

// Through AddrApi: list() and forEach as views under every filter the view path reads itself
// (device, family, scope, label).
void compareDumps(const uint8_t* data, size_t size) {
  if (size > 16384) return;
  using fastlink::AddrFilter;
  auto& h = fastlink::fuzz::DumpHarness::get();
  h.answerWith(lead(), {data, size}, RTM_NEWADDR);
  fastlink::AddrApi api = fastlink::core::ApiAccess::make<fastlink::AddrApi>(*h.engine);
  std::vector<AddrFilter> filters{AddrFilter{}, AddrFilter().setFamily(fastlink::IpAddress::Family::v4),
                                  AddrFilter().setFamily(fastlink::IpAddress::Family::v6),
                                  AddrFilter().setDev(fastlink::Ifref(3u)), AddrFilter().setLabel("lead0:a"),
                                  AddrFilter().setScope(fastlink::Scope(RT_SCOPE_UNIVERSE))};
  fastlink::fuzz::FuzzMessage message(data, size, RTM_NEWADDR, NLM_F_MULTI);
  try {
    fastlink::AddrView v(std::span(reinterpret_cast<const uint8_t*>(message.header()), message.header()->nlmsg_len));
    AddrFilter own;
    own.setScope(v.scope());
    if (v.devIndex()) own.setDev(fastlink::Ifref(v.devIndex()));
    if (auto l = v.label()) own.setLabel(std::string(*l));
    filters.push_back(own);
  } catch (const fastlink::Error&) {
  }
  for (const auto* f : fastlink::fuzz::chosen(filters, data, size))
    fastlink::fuzz::compareDump<fastlink::AddrView>(api, *f, "AddrView (dump)", fastlink::test::addrViewDisagreement,
                                                    [](const fastlink::AddrView& v) { return v.toInfo(); });
  h.clear();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fastlink::fuzz::decodeEach(data, size, RTM_NEWADDR, [](const nlmsghdr* m) { return fastlink::rtnl::decodeAddr(m); },
                             [](const auto& info) { fastlink::fuzz::touch(info.unknown); if (info.address) (void)info.address->toString(); });
  fastlink::fuzz::compareView<fastlink::AddrView>(
      data, size, RTM_NEWADDR, "AddrView", [](const nlmsghdr* m) { return fastlink::rtnl::decodeAddr(m); },
      fastlink::test::addrViewDisagreement);
  fastlink::fuzz::canonicalizeEach(data, size, RTM_NEWADDR, RTM_DELADDR);
  compareDumps(data, size);
  return 0;
}
