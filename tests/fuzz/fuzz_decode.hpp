// Shared by the rtnetlink decoder harnesses: the fuzz input is the body of one message of a given
// type; the decoder either returns a value (every byte of which is then read, so ASan sees a value
// that points outside the input) or throws fastlink::Error. Anything else is a crash.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <type_traits>

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

/// Reads the input as the message of `type` (NLM_F_MULTI, as a dump hands it out) and as a `View`
/// of it: every accessor must read what `decode(h)` decoded
/// (`disagreement(view, info)` names the first field that does not, support/view_agreement.hpp),
/// or the decoder must refuse the message. A view may throw Error where the decoder does, and must
/// never crash. Traps on a disagreement, so the fuzzer keeps the input.
template <class View, typename Decode, typename Disagreement>
void compareView(const uint8_t* data, std::size_t size, uint16_t type, const char* name, Decode decode,
                 Disagreement disagreement) {
  if (size > 65536) return;
  FuzzMessage message(data, size, type, NLM_F_MULTI);
  const nlmsghdr* h = message.header();
  using Info = std::remove_cvref_t<decltype(decode(h))>;
  std::optional<View> view;
  std::optional<Info> decoded;
  try {
    decoded.emplace(decode(h));
  } catch (const Error&) {
  }
  try {
    view.emplace(std::span(reinterpret_cast<const uint8_t*>(h), h->nlmsg_len));
  } catch (const Error&) {
    if (!decoded) return;  // too short for its header: refused by both
    std::fprintf(stderr, "%s refused a message its decoder accepts\n", name);
    __builtin_trap();
  }
  if (!decoded) {
    try {
      (void)disagreement(*view, Info{});  // every accessor runs
    } catch (const Error&) {
    }
    return;
  }
  std::string field = disagreement(*view, *decoded);
  if (!field.empty()) {
    std::fprintf(stderr, "%s::%s disagrees with its decoder\n", name, field.c_str());
    __builtin_trap();
  }
}

}  // namespace fastlink::fuzz
