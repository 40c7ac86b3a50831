// Shared by the harnesses of objects a StateMirror keeps: the input is also read as a
// notification (created and deleted) by events::canonicalize, the mirror's own reader of kernel
// messages (key, stripped message, multipath devices), whose every byte is then read, and
// compared with the form a sync reads in place (canonicalizeLazily), and its key with the one the
// mirror's index derives from the stored form (storedKey).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "events/canonical.hpp"
#include "fuzz_message.hpp"

namespace fastlink::fuzz {

inline void canonicalizeEach(const uint8_t* data, std::size_t size, uint16_t newType, uint16_t delType) {
  if (size > 65536) return;
  for (uint16_t type : {newType, delType}) {
    FuzzMessage message(data, size, type);
    events::Canonical c = events::canonicalize(message.header());
    volatile uint32_t sink = c.ifindex ^ c.nexthopId ^ c.ipv4Address;
    sink = sink ^ static_cast<uint32_t>(c.identity().size());
    for (const std::string* s : {&c.key, &c.message, &c.name})
      for (char b : *s) sink = sink ^ static_cast<uint8_t>(b);
    for (uint32_t dev : c.pathDevices) sink = sink ^ dev;
    (void)sink;
    // What a sync compares in place and stores must be this canonical form, for any input.
    events::Canonical lazy = events::canonicalizeLazily(message.header());
    if (lazy.valid != c.valid || lazy.key != c.key) __builtin_trap();
    if (c.valid && (!events::sameStoredForm(lazy, c.message) || events::takeMessage(lazy) != c.message)) __builtin_trap();
    // The mirror's index keeps no keys: it derives them from the stored form, and must get this
    // one (an 8-aligned copy: the stored form is read as an nlmsghdr).
    if (c.valid) {
      std::vector<uint64_t> stored((c.message.size() + 7) / 8);
      std::memcpy(stored.data(), c.message.data(), c.message.size());
      std::string derived;
      events::storedKey(reinterpret_cast<const nlmsghdr*>(stored.data()), derived);
      if (derived != c.key) __builtin_trap();
    }
  }
}

}  // namespace fastlink::fuzz
