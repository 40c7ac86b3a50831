// libFuzzer harness for the wg configuration parser and the UAPI reply parser: any text either
// parses or is refused with a fastlink::Error; a parsed config prints and parses back the same.
#include <string_view>

#include "fastlink/error.hpp"
#include "fastlink/wireguard.hpp"
#include "wg/backend.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 65536) return 0;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    fastlink::WgDevice d = fastlink::parseWgConfig(text, "wg0");
    std::string printed = fastlink::formatWgConfig(d);
    fastlink::WgDevice again = fastlink::parseWgConfig(printed, "wg0");
    if (fastlink::formatWgConfig(again) != printed) __builtin_trap();
  } catch (const fastlink::Error&) {
  }
  try {
    (void)fastlink::wg::uapiParseGet(text, "wg0", "fuzz");
  } catch (const fastlink::Error&) {
  }
  return 0;
}
