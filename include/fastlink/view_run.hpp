// The template path of the views' forEach: the library hands out a dump one datagram at a time
// (the messages of the dump's type and families, in order), and the caller's own template code
// builds each view, matches it against the filter and calls the callback, so the callback is
// inlined into that loop instead of being reached through std::function hops per message.
//
//   nl.routes().forEach(filter, [&](const RouteView& r) { ... });  // a lambda: this path
//
// Nothing here is meant to be called directly: the API objects' forEach use it.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>

namespace fastlink::detail {

/// The filter's devices as ifindexes (0: none), resolved once per dump.
struct DumpIndexes {
  uint32_t dev = 0;
  uint32_t master = 0;
};

/// The messages (netlink header first) of one datagram that a dump hands out.
using MessageRun = std::span<const uint8_t* const>;

/// A callable reference to `void(MessageRun, const DumpIndexes&)`: one indirect call per
/// datagram, nothing allocated. The callable must outlive the dump.
class RunSink {
 public:
  template <class F>
  explicit RunSink(F& f)
      : self_(&f), call_([](void* self, MessageRun run, const DumpIndexes& ix) { (*static_cast<F*>(self))(run, ix); }) {}
  void operator()(MessageRun run, const DumpIndexes& ix) const { call_(self_, run, ix); }

 private:
  void* self_;
  void (*call_)(void*, MessageRun, const DumpIndexes&);
};

/// The bytes of the message at `m` (its length is the header's first field).
inline std::span<const uint8_t> messageAt(const uint8_t* m) {
  uint32_t length;
  std::memcpy(&length, m, sizeof length);
  return {m, length};
}

/// The loop every view's forEach runs per datagram: a View over each message, `each(view)` for
/// those View::matches accepts. The view lives during its call only.
template <class View, class Filter, class Each>
auto viewRun(const Filter& filter, Each& each) {
  return [&filter, &each](MessageRun run, const DumpIndexes& ix) {
    for (const uint8_t* m : run) {
      View view(messageAt(m));
      if (View::matches(view, filter, ix)) each(view);
    }
  };
}

}  // namespace fastlink::detail
