// libFuzzer harness for the tc decoders (rtnl::decodeQdisc / decodeClass, with every kind's
// options and TCA_STATS2 + TCA_STATS_APP decoder): the input is the body of an RTM_NEWQDISC
// message (tcmsg + attributes), decoded as a qdisc and as a class. Each decoded object is then
// re-encoded as a replace request, so the encoders see whatever values a kernel could report.
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "fuzz_message.hpp"

#include "fastlink/error.hpp"
#include "fastlink/tc.hpp"
#include "rtnl/tc_codec.hpp"

namespace {

void touch(const fastlink::RawAttributes& raw) {
  for (const auto& a : raw.list()) {
    volatile uint8_t sink = 0;
    for (uint8_t b : a.payload) sink = sink ^ b;
    (void)sink;
  }
}

template <class Info, class Encode>
void reencode(Info info, Encode encode) {
  info.dev = fastlink::Ifref(1u);
  try {
    fastlink::Request r = encode(info);
    if (r.bytes().size() < NLMSG_HDRLEN) __builtin_trap();
  } catch (const fastlink::Error&) {
    // values an encoder refuses (no parent, rate 0, ...): fine
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 65536) return 0;
  fastlink::fuzz::FuzzMessage message(data, size, RTM_NEWQDISC, NLM_F_MULTI);
  try {
    fastlink::QdiscInfo q;
    fastlink::rtnl::decodeQdisc(message.header(), q);
    touch(q.unknown);
    if (q.handle) (void)q.handle->toString();
    reencode(q, fastlink::TcRequests::replaceQdisc);
  } catch (const fastlink::Error&) {
  }
  try {
    fastlink::ClassInfo c;
    fastlink::rtnl::decodeClass(message.header(), c);
    touch(c.unknown);
    reencode(c, fastlink::TcRequests::replaceClass);
  } catch (const fastlink::Error&) {
  }
  return 0;
}
