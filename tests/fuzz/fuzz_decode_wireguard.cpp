// libFuzzer harness for the kernel WireGuard codec: the input is a sequence of message bodies
// (genlmsghdr + attributes), each prefixed by a 2-byte little-endian length, as a dump would
// deliver them. Every body is folded into one device, and the device is then re-encoded into
// WG_CMD_SET_DEVICE messages with a small budget, so the splitter sees whatever a kernel (or an
// attacker) could report, and the UAPI text form is produced and parsed back.
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include "fuzz_message.hpp"

#include <cstring>
#include <vector>

#include "fastlink/error.hpp"
#include "fastlink/wireguard.hpp"
#include "wg/wireguard_codec.hpp"
#include "wg/backend.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 65536) return 0;
  fastlink::wg::WgDeviceFolder folder;
  try {
    while (size >= 2) {
      std::size_t body = data[0] | (static_cast<std::size_t>(data[1]) << 8);
      data += 2, size -= 2;
      if (body > size) body = size;
      fastlink::fuzz::FuzzMessage message(data, body, 0x20, NLM_F_MULTI);
      nlmsghdr* h = message.header();
      data += body, size -= body;
      folder.add(h);
    }
  } catch (const fastlink::Error&) {
    return 0;  // malformed input is reported as an Error: fine
  }
  fastlink::WgDevice d = folder.take();
  d.name = "wg0";
  try {
    for (const auto& r : fastlink::wg::encodeWgSetDevice(0x20, d, 512))
      if (r.bytes().size() > 512) __builtin_trap();
  } catch (const fastlink::Error&) {
  }
  try {
    std::string text = fastlink::wg::uapiSetRequest(d);
    text.replace(0, 5, "errno=0\n");
    (void)fastlink::wg::uapiParseGet(text, "wg0", "fuzz");
  } catch (const fastlink::Error&) {
  }
  return 0;
}
