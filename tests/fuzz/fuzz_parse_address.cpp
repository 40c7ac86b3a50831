// libFuzzer harness for the text parsers: MacAddress::parse, IpAddress::parse, validateIfname.
// Whatever parses must print back to text that parses to the same value.
#include <cstring>
#include <string_view>

#include "fastlink/error.hpp"
#include "fastlink/types.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    fastlink::MacAddress mac = fastlink::MacAddress::parse(text);
    if (mac.size() != 6) __builtin_trap();
    if (!(fastlink::MacAddress::parse(mac.toString()) == mac)) __builtin_trap();
  } catch (const fastlink::Error& e) {
    if (e.code() != std::errc::invalid_argument) __builtin_trap();
  }
  try {
    fastlink::IpAddress ip = fastlink::IpAddress::parse(text);
    if (!(fastlink::IpAddress::parse(ip.toString()) == ip)) __builtin_trap();
    if (std::memchr(text.data(), '\0', text.size())) __builtin_trap();  // the whole input was used
  } catch (const fastlink::Error& e) {
    if (e.code() != std::errc::invalid_argument) __builtin_trap();
  }
  try {
    fastlink::validateIfname(text);
    if (text.empty() || text.size() > 15) __builtin_trap();
  } catch (const fastlink::Error& e) {
    if (e.code() != std::errc::invalid_argument) __builtin_trap();
  }
  return 0;
}
