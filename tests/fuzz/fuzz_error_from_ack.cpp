// libFuzzer harness for core::errorFromAck: the input is a whole NLMSG_ERROR or NLMSG_DONE
// message. nlmsg_len is set to the input size (the engine only passes messages that passed
// mnl_nlmsg_ok), and the type is forced to one of the two the engine hands to errorFromAck.
#include <linux/netlink.h>

#include <cstring>
#include <vector>

#include "core/engine.hpp"
#include "fastlink/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < NLMSG_HDRLEN || size > 65536) return 0;
  std::vector<uint32_t> storage((size + 3) / 4);
  std::memcpy(storage.data(), data, size);
  auto* h = reinterpret_cast<nlmsghdr*>(storage.data());
  h->nlmsg_len = static_cast<uint32_t>(size);
  h->nlmsg_type = (h->nlmsg_type & 1) ? NLMSG_DONE : NLMSG_ERROR;
  try {
    std::optional<fastlink::Error> e = fastlink::core::errorFromAck(h, "fuzz");
    if (e) {
      if (!e->code()) __builtin_trap();  // an error must carry a non-zero code
      (void)std::strlen(e->what());
      (void)e->reason();
    }
  } catch (const fastlink::Error&) {
    // malformed TLVs are reported as an Error: fine
  }
  return 0;
}
