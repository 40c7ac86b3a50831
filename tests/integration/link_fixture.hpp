// Shared fixture: a fresh namespace and a fastlink socket inside it.
#pragma once

#include <gtest/gtest.h>

#include <fastlink/fastlink.hpp>

#include "support/test_netns.hpp"

namespace fastlink::test {

class LinkTest : public ::testing::Test {
 protected:
  TestNetns ns;
  Netlink nl{NetlinkOptions{.netns = Netns::named(ns.name())}};
  LinkApi& links = nl.links();

  /// `ip -d -j link show dev NAME` as one JSON object.
  nlohmann::json ipLink(const std::string& name) {
    auto j = ns.ipJson("-d link show dev " + name);
    EXPECT_EQ(j.size(), 1u) << name;
    return j.empty() ? nlohmann::json::object() : j[0];
  }
  bool ipHasLink(const std::string& name) {
    return run("ip -n " + ns.name() + " link show dev " + name).status == 0;
  }
  std::string ipLinkSnapshot() { return ns.ip("-d -o link show"); }
  void addVeth(const std::string& a, const std::string& b) {
    links.add(LinkInfo(a, "veth").setVeth(VethInfo().setPeerName(b)));
  }
  static bool hasFlag(const nlohmann::json& link, const std::string& flag) {
    for (const auto& f : link["flags"])
      if (f == flag) return true;
    return false;
  }
};

}  // namespace fastlink::test
