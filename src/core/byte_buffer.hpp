// A byte vector whose growth leaves the new bytes uninitialised.
#pragma once

#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace fastlink::core {

/// std::allocator that default-initialises instead of value-initialising: `resize(n)` of bytes
/// leaves them as they are. The engine's receive buffer is written by the kernel before anything
/// reads it; zero-filling its 64 KiB cost every CLI process 16 page faults and 64 KiB of stores
/// it never used (docs/BENCHMARKS.md, "3 bridges among 10,000": a third of fastlink's extra page
/// faults over the raw C process).
template <class T>
struct UninitialisedAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = UninitialisedAllocator<U>;
  };
  UninitialisedAllocator() = default;
  template <class U>
  UninitialisedAllocator(const UninitialisedAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

using ByteBuffer = std::vector<uint8_t, UninitialisedAllocator<uint8_t>>;

}  // namespace fastlink::core
