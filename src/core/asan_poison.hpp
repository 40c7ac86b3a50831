// The sanitizer build's guard for views (fastlink/link_view.hpp): a dump poisons the receive
// buffer once a datagram's messages have been handed out, so that a view (or a string_view from
// one) kept past its callback is reported where it is read, instead of silently reading the next
// datagram's bytes. Every receive unpoisons the buffer first. No-ops without AddressSanitizer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#if defined(__SANITIZE_ADDRESS__)
#define FASTLINK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FASTLINK_ASAN 1
#endif
#endif
#ifdef FASTLINK_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace fastlink::core {

/// `n` bytes at `p` unreadable until unpoisoned (the receive buffer; the mirror's store, see
/// events/object_store.cpp).
inline void poison([[maybe_unused]] const void* p, [[maybe_unused]] std::size_t n) {
#ifdef FASTLINK_ASAN
  __asan_poison_memory_region(p, n);
#endif
}
inline void unpoison([[maybe_unused]] const void* p, [[maybe_unused]] std::size_t n) {
#ifdef FASTLINK_ASAN
  __asan_unpoison_memory_region(p, n);
#endif
}

inline void poisonReceived(std::span<uint8_t> buffer) { poison(buffer.data(), buffer.size()); }
inline void unpoisonReceived(std::span<uint8_t> buffer) { unpoison(buffer.data(), buffer.size()); }

}  // namespace fastlink::core
