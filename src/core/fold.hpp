// Folding split replies: a dump where one object may span several messages (WireGuard's
// get-device dump splits a device, and even one peer, across messages when it outgrows a
// datagram). The decoder says whether a message continues the object being built; the fold
// emits an object once a message starts another one, or the dump ends.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>

#include "core/engine.hpp"

namespace fastlink::core {

template <class Object>
struct Folding {
  /// True when `message` continues `current` (same device; for WireGuard, the first peer of
  /// `message` may even be the last peer of `current`, which merge then extends).
  std::function<bool(const Object& current, const nlmsghdr* message)> continues;
  /// Decodes `message` into `object`: a fresh Object{} or the one it continues.
  std::function<void(Object& object, const nlmsghdr* message)> merge;
  /// Receives each complete object, in dump order.
  std::function<void(Object&& object)> emit;
};

/// Folds every message of one message's answer into objects (see Folding). Without
/// `continues`, every message is its own object.
template <class Object>
class Folder {
 public:
  explicit Folder(const Folding<Object>& folding) : folding_(folding) {}

  void add(const nlmsghdr* message) {
    if (current_ && folding_.continues && folding_.continues(*current_, message)) {
      folding_.merge(*current_, message);
      return;
    }
    flush();
    current_.emplace();
    folding_.merge(*current_, message);
  }
  /// Emits the object being built, if any (at the end of the dump).
  void flush() {
    if (!current_) return;
    Object done = std::move(*current_);
    current_.reset();
    folding_.emit(std::move(done));
  }
  /// Forgets the object being built (the dump restarts).
  void reset() { current_.reset(); }

 private:
  const Folding<Object>& folding_;
  std::optional<Object> current_;
};

/// A dump whose objects may span messages. On an interrupted dump the partial object is
/// dropped, `onRestart` runs (objects already emitted are stale, as with Engine::dump), and the
/// dump starts over.
template <class Object>
void foldDump(Engine& engine, std::span<const uint8_t> message, const std::string& operation,
              const Folding<Object>& folding, const std::function<void()>& onRestart = {}) {
  Folder<Object> folder(folding);
  engine.dump(
      message, operation, [&](const nlmsghdr* m) { folder.add(m); },
      [&] {
        folder.reset();
        if (onRestart) onRestart();
      });
  folder.flush();
}

}  // namespace fastlink::core
