// Test support: comparing what fastlink read with what an oracle reads when the kernel may change
// the value on its own between the two reads (an IPv6 link-local route appearing when DAD ends,
// an ARP probe's packet counted by a qdisc, linkwatch running late on a loaded machine).
#pragma once

#include <chrono>
#include <thread>
#include <utility>

namespace fastlink::test {

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

}  // namespace fastlink::test
