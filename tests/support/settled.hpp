// Test support: comparing what fastlink read with what an oracle reads when the kernel may change
// the value on its own between the two reads (an IPv6 link-local route appearing when DAD ends,
// an ARP probe's packet counted by a qdisc, linkwatch running late on a loaded machine), and
// waiting for such a change by polling its condition, never with a fixed sleep.
#pragma once

#include <chrono>
#include <thread>
#include <utility>

namespace fastlink::test {

/// Polls `condition` every `every` until it holds (true) or `limit` has passed (false, after one
/// last look). For what the kernel or another process does on its own time (linkwatch, a daemon's
/// socket, DAD): the wait ends as soon as the condition holds, so the generous default costs
/// nothing when the machine is fast and spares the 3-5x slower sanitizer build on a loaded CI
/// machine. A deliberate "nothing happens in T" check is not this: keep that short and explicit.
template <class Condition>
bool waitUntil(Condition condition, std::chrono::milliseconds limit = std::chrono::seconds(10),
               std::chrono::milliseconds every = std::chrono::milliseconds(20)) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) return condition();
    std::this_thread::sleep_for(every);
  }
  return true;
}

/// Reads oracle, mine, oracle until the two oracle reads agree, and returns {mine, oracle}. The
/// kernel stood still across fastlink's read, so the two must be equal: the caller's EXPECT_EQ
/// still fails when fastlink is wrong. After `attempts` tries it returns the last reads (the
/// comparison then reports what moved).
template <class ReadMine, class ReadOracle>
auto settledReads(ReadMine readMine, ReadOracle readOracle, int attempts = 50) {
  auto before = readOracle();
  auto mine = readMine();
  auto after = readOracle();
  for (int i = 1; i < attempts && !(before == after); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    before = readOracle();
    mine = readMine();
    after = readOracle();
  }
  return std::pair{std::move(mine), std::move(after)};
}

/// read() once it has returned the same value `stableReads` times in a row, `every` apart, and
/// `accept` holds for it: for a "before" picture of state the kernel is still finishing by itself
/// (linkwatch sets a new device's carrier up to a second late; DAD keeps an IPv6 address tentative
/// for a second). After `tries` reads it returns the last one (the caller's comparison then shows
/// what kept moving).
template <class Read, class Accept>
auto stableRead(Read read, Accept accept, int stableReads = 5,
                std::chrono::milliseconds every = std::chrono::milliseconds(200), int tries = 100) {
  auto last = read();
  for (int stable = 0, tried = 0; stable < stableReads && tried < tries; ++tried) {
    std::this_thread::sleep_for(every);
    auto now = read();
    stable = now == last && accept(now) ? stable + 1 : 0;
    last = std::move(now);
  }
  return last;
}

}  // namespace fastlink::test
