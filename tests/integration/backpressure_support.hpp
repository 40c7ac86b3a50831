// Shared by the *Backpressure* VM tests (issue 25): the root qdisc's counters, as tc prints them.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "support/test_netns.hpp"

namespace fastlink::test {

/// The root qdisc of `dev` in `ns` from `tc -s -j qdisc show dev DEV` (its first entry); an empty
/// object, after a test failure, when tc fails or prints none.
inline nlohmann::json rootQdiscStats(const TestNetns& ns, const std::string& dev) {
  auto r = ns.exec("tc -s -j qdisc show dev " + dev);
  EXPECT_EQ(r.status, 0) << r.err;
  auto list = nlohmann::json::parse(r.out, nullptr, false);
  const bool found = list.is_array() && !list.empty();
  EXPECT_TRUE(found) << r.out;
  return found ? list.at(0) : nlohmann::json::object();
}

}  // namespace fastlink::test
