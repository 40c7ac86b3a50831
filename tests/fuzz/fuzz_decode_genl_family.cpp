// libFuzzer harness for genl::decodeFamily (the controller's CTRL_CMD_NEWFAMILY reply): the input
// is the message body (genlmsghdr + attributes); the harness puts an nlmsghdr of type GENL_ID_CTRL
// in front, as the engine hands over a message that passed mnl_nlmsg_ok. A decoded family is fed
// back to the encoders that take one (GenlWriter, getFamily), so odd names and ids reach them too.
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include "fuzz_message.hpp"

#include <cstring>
#include <vector>

#include "fastlink/error.hpp"
#include "genl/ctrl_codec.hpp"
#include "genl/genl_message.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 65536) return 0;
  fastlink::fuzz::FuzzMessage message(data, size, GENL_ID_CTRL);
  nlmsghdr* h = message.header();
  try {
    std::optional<fastlink::GenlFamilyInfo> f = fastlink::genl::decodeFamily(h);
    if (!f) return 0;
    volatile std::size_t sink = f->name.size() + f->ops.size() + f->groups.size();
    for (const auto& g : f->groups) sink = sink + g.name.size() + g.id;
    (void)f->group("monitor");
    (void)f->op(1);
    fastlink::genl::GenlWriter w(*f, 1, 1);
    w.putU32(1, f->version);
    if (w.header()->nlmsg_type != f->id) __builtin_trap();
    try {
      (void)fastlink::genl::encodeGetFamily(f->name);
    } catch (const fastlink::Error&) {
      // an empty or too long name is refused: fine
    }
  } catch (const fastlink::Error&) {
    // malformed input is reported as an Error: fine
  }
  return 0;
}
