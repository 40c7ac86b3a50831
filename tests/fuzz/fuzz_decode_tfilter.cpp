// libFuzzer harness for the tc filter and action decoders (rtnl::decodeFilter with every
// classifier's options and every action kind's nest; rtnl::decodeActionMessage): the input is
// the body of an RTM_NEWTFILTER message (tcmsg + attributes), decoded as a filter and as an
// action-table message. The decoded filter is then re-encoded as a replace request, so the
// encoders see whatever values a kernel could report. Seeds: capture_tfilter_seeds.py.
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "fuzz_message.hpp"

#include "fastlink/error.hpp"
#include "fastlink/tc_filter.hpp"
#include "rtnl/tc_filter_codec.hpp"

namespace {

void touch(const fastlink::RawAttributes& raw) {
  for (const auto& a : raw.list()) {
    volatile uint8_t sink = 0;
    for (uint8_t b : a.payload) sink = sink ^ b;
    (void)sink;
  }
}

void touchActions(const std::vector<fastlink::TcAction>& actions) {
  for (const auto& a : actions) {
    touch(a.unknown);
    touch(a.unknownOptions);
    if (const auto* g = std::get_if<fastlink::GactAction>(&a.options)) (void)fastlink::tcact::name(g->control);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 65536) return 0;
  fastlink::fuzz::FuzzMessage message(data, size, RTM_NEWTFILTER, NLM_F_MULTI);
  try {
    fastlink::TcFilterInfo f;
    fastlink::rtnl::decodeFilter(message.header(), f);
    touch(f.unknown);
    std::visit(
        [](const auto& o) {
          if constexpr (requires { o.actions; }) touchActions(o.actions);
        },
        f.options);
    if (f.dev) f.dev = fastlink::Ifref(1u);
    // Mirred targets come back as ifindexes: encodable as they are.
    try {
      fastlink::Request r = fastlink::TcFilterRequests::replace(f);
      if (r.bytes().size() < NLMSG_HDRLEN) __builtin_trap();
    } catch (const fastlink::Error&) {
      // values an encoder refuses (no kind, skip_hw and skip_sw, a bad control, ...): fine
    }
  } catch (const fastlink::Error&) {
  }
  fastlink::fuzz::FuzzMessage actions(data, size, RTM_NEWACTION, NLM_F_MULTI);
  try {
    touchActions(fastlink::rtnl::decodeActionMessage(actions.header()));
  } catch (const fastlink::Error&) {
  }
  return 0;
}
