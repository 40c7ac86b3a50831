// Shared by the *Backpressure* VM tests (issue 25): the root qdisc's counters, as tc prints them.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
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

/// `fastlink tc watch` names the place of each drop: the device's tx_dropped "at PLACE" ("tun
/// ring", "veth ring"), each qdisc's drops on its own line; the totals are /sys's and tc's.
inline void expectWatchNamesTheDrops(const TestNetns& ns, const std::string& dev, const std::string& place) {
  const char* cli = std::getenv("FASTLINK_CLI");
  ASSERT_TRUE(cli && *cli) << "FASTLINK_CLI is not set (tests/vm/run sets it)";
  auto r = run(std::string(cli) + " -n " + ns.name() + " -j tc watch dev " + dev + " interval 0.1 count 1");
  ASSERT_EQ(r.status, 0) << r.err;
  auto line = nlohmann::json::parse(r.out);
  EXPECT_EQ(line["device"]["tx_dropped_at"], place) << r.out;
  EXPECT_EQ(line["device"]["tx_dropped"], std::stol(ns.sysfs(dev, "statistics/tx_dropped"))) << r.out;
  auto oracle = nlohmann::json::parse(ns.exec("tc -s -j qdisc show dev " + dev).out);
  ASSERT_EQ(line["qdiscs"].size(), oracle.size()) << r.out;
  ASSERT_FALSE(oracle.empty());
  EXPECT_EQ(line["qdiscs"][0]["qdisc"], oracle[0]["kind"].get<std::string>() + " " + oracle[0]["handle"].get<std::string>());
  EXPECT_EQ(line["qdiscs"][0]["drops"], oracle[0]["drops"]) << r.out;
  auto text = run(std::string(cli) + " -n " + ns.name() + " tc watch dev " + dev + " interval 0.1 count 1");
  EXPECT_NE(text.out.find(") at " + place + " rx "), std::string::npos) << text.out;
}

}  // namespace fastlink::test
