// Shared by the rtnetlink decoder harnesses: the fuzz input is the body of one message of a given
// type; the decoder either returns a value (every byte of which is then read, so ASan sees a value
// that points outside the input) or throws fastlink::Error. Anything else is a crash.
#pragma once

#include <cstdint>

#include "fastlink/error.hpp"
#include "fastlink/raw_attributes.hpp"
#include "fuzz_message.hpp"

namespace fastlink::fuzz {

/// Reads every byte of the attributes a decoder kept undecoded.
inline void touch(const RawAttributes& raw) {
  for (const auto& a : raw.list()) {
    volatile uint8_t sink = 0;
    for (uint8_t b : a.payload) sink = sink ^ b;
    (void)sink;
  }
}

/// Runs `decode(const nlmsghdr*)` over the input as a message of `type` (both with and without
/// NLM_F_MULTI, as a dump part and as the answer of a get); calls `inspect` on what it returns.
template <typename Decode, typename Inspect>
void decodeEach(const uint8_t* data, std::size_t size, uint16_t type, Decode decode, Inspect inspect) {
  if (size > 65536) return;
  for (uint16_t flags : {uint16_t(NLM_F_MULTI), uint16_t(0)}) {
    FuzzMessage message(data, size, type, flags);
    try {
      inspect(decode(message.header()));
    } catch (const Error&) {
      // malformed input is reported as an Error: fine
    }
  }
}

}  // namespace fastlink::fuzz
