// list() while another thread keeps changing the same table: the kernel marks such dumps with
// NLM_F_DUMP_INTR and fastlink restarts them. Every listing must be free of duplicates and hold
// every object that stayed put; after the churn it must equal `ip -j`. With dumpRetries = 0 an
// interrupted dump is Errc::dump_interrupted. Each test is bounded to a few seconds.
#include <gtest/gtest.h>

#include <fastlink/fastlink.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <set>
#include <thread>
#include <unistd.h>

#include "support/test_netns.hpp"
#include "support/wire_observer.hpp"

namespace fastlink::test {
namespace {

using Clock = std::chrono::steady_clock;
// How long a test lists under churn when it only checks listings (20, or what fits in this).
constexpr auto kChurnBudget = std::chrono::seconds(3);
// How long a test may wait to see what it must see (a restart, an interrupted dump): the loops
// end as soon as it is seen, so this is generous for the sanitizer build on a loaded machine,
// where one listing of links took the whole 3 s budget and the churner gets less CPU.
constexpr auto kMustSeeDeadline = std::chrono::seconds(10);

/// Changes the namespace from its own thread and socket until stopped: `step(nl, i)` is called
/// with i = 0, 1, 2, ... (adds on even i, deletes on odd i, so an even count leaves it as before).
class Churner {
 public:
  /// `pause` after every pair of steps: a table changed back to back (tens of thousands of times a
  /// second for cheap objects like addresses) interrupts every multi-part dump, so no listing
  /// could ever finish; with a pause some dumps are interrupted and their restarts succeed.
  Churner(const std::string& netns, std::function<void(Netlink&, uint64_t)> step,
          std::chrono::microseconds pause = std::chrono::microseconds(0))
      : thread_([this, netns, step = std::move(step), pause] {
          Netlink nl{NetlinkOptions{.netns = Netns::named(netns)}};
          uint64_t i = 0;
          try {
            while (!stop_ || i % 2 == 1) {
              step(nl, i++);
              if (i % 2 == 0 && pause.count() > 0) std::this_thread::sleep_for(pause);
            }
          } catch (const std::exception& e) {
            failure_ = e.what();
          }
          steps_ = i;
        }) {}
  ~Churner() { stop(); }
  /// Stops after an even number of steps (the churned object is gone again).
  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  uint64_t steps() const { return steps_; }
  const std::string& failure() const { return failure_; }

 private:
  std::atomic<bool> stop_{false};
  uint64_t steps_ = 0;
  std::string failure_;
  std::thread thread_;
};

class ChurnTest : public ::testing::Test {
 protected:
  TestNetns ns;
  // The churner changes the table every few microseconds, more than any real system: five
  // restarts in a row (the default) happen, so the lister may restart up to 100 times.
  Netlink nl{NetlinkOptions{.netns = Netns::named(ns.name()), .dumpRetries = 100}};

  void SetUp() override {
    ns.ip("link set lo up");
    ns.ip("link add v0 type veth peer name v1");
    ns.ip("link set v0 up");
    ns.ip("link set v1 up");
    ns.ip("addr add 10.0.0.1/16 dev v0");
  }

  void ipBatch(const std::vector<std::string>& lines) { ns.ipBatch(lines); }

  /// Lists once (the stable keys) and returns the churner's pause for that table: 3 ms, or twice
  /// one whole listing where that is longer. Under TCG a dump of 1,500 addresses takes longer than
  /// 3 ms, so a fixed pause let the churner interrupt every attempt (101 restarts, the lister gave
  /// up: seen on 6.1 in the VM); with the pause scaled some attempts finish wherever it runs.
  static std::chrono::microseconds churnPause(const std::function<std::vector<std::string>()>& list,
                                              std::set<std::string>& stable) {
    auto start = Clock::now();
    std::vector<std::string> keys = list();
    auto once = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start);
    stable = std::set<std::string>(keys.begin(), keys.end());
    return std::max<std::chrono::microseconds>(std::chrono::milliseconds(3), 2 * once);
  }

  /// Lists (keys of one listing) under churn until at least `minLists` listings were checked or
  /// the budget is spent, and (when expected) restarts happened, waiting up to kMustSeeDeadline
  /// for them. Every listing: no duplicate, and every key of `stable` present. Returns how many
  /// listings were checked.
  int listUnderChurn(const std::function<std::vector<std::string>()>& list, const std::set<std::string>& stable,
                     bool expectRestarts, int minLists = 20) {
    uint64_t restartsBefore = nl.counters().dumpRestarts;
    wire::reset();
    int lists = 0;
    auto budget = Clock::now() + kChurnBudget, until = Clock::now() + (expectRestarts ? kMustSeeDeadline : kChurnBudget);
    while (Clock::now() < until) {
      std::vector<std::string> keys = list();
      std::multiset<std::string> all(keys.begin(), keys.end());
      std::set<std::string> unique(keys.begin(), keys.end());
      EXPECT_EQ(unique.size(), keys.size()) << "duplicates in listing " << lists;
      for (const auto& k : stable)
        if (!unique.count(k)) ADD_FAILURE() << "listing " << lists << " lost " << k;
      ++lists;
      if (::testing::Test::HasFailure()) break;
      bool seen = !expectRestarts || nl.counters().dumpRestarts > restartsBefore;
      if (seen && (lists >= minLists || Clock::now() >= budget)) break;
    }
    restarts_ = nl.counters().dumpRestarts - restartsBefore;
    interruptedOnWire_ = wire::counts().dumpInterrupted;
    if (expectRestarts) {
      EXPECT_GT(restarts_, 0u) << "no dump was interrupted in " << lists << " listings";
      // Seen independently: the kernel's NLM_F_DUMP_INTR flag on the wire.
      EXPECT_GT(interruptedOnWire_, 0u);
    }
    std::printf("    %d listings under churn, %llu restarts, %llu NLM_F_DUMP_INTR messages on the wire\n", lists,
                static_cast<unsigned long long>(restarts_), static_cast<unsigned long long>(interruptedOnWire_));
    return lists;
  }

  static std::set<std::string> asSet(const std::vector<std::string>& v) { return {v.begin(), v.end()}; }

  uint64_t restarts_ = 0;
  uint64_t interruptedOnWire_ = 0;
};

TEST_F(ChurnTest, LinksUnderChurnRestartAndMatchIp) {
  Batch b;
  for (int i = 0; i < 150; ++i)
    b.add(LinkRequests::add(LinkInfo("s" + std::to_string(i), "veth").setVeth(VethInfo().setPeerName("t" + std::to_string(i)))));
  ASSERT_TRUE(nl.run(b).ok());
  auto list = [&] {
    std::vector<std::string> keys;
    for (const auto& l : nl.links().list()) keys.push_back(*l.name);
    return keys;
  };
  std::set<std::string> stable = asSet(list());
  ASSERT_EQ(stable.size(), 303u);
  Churner churn(ns.name(), [](Netlink& c, uint64_t i) {
    if (i % 2 == 0) c.links().add(LinkInfo("churn0", "veth").setVeth(VethInfo().setPeerName("churn1")));
    else c.links().del("churn0");
  });
  listUnderChurn(list, stable, true);
  churn.stop();
  EXPECT_EQ(churn.failure(), "");
  std::set<std::string> oracle;
  for (const auto& l : ns.ipJson("link show")) oracle.insert(l["ifname"].get<std::string>());
  EXPECT_EQ(asSet(list()), oracle);
  EXPECT_EQ(oracle, stable);
}

TEST_F(ChurnTest, InterruptedDumpWithoutRetriesIsDumpInterrupted) {
  Batch b;
  for (int i = 0; i < 150; ++i)
    b.add(LinkRequests::add(LinkInfo("s" + std::to_string(i), "veth").setVeth(VethInfo().setPeerName("t" + std::to_string(i)))));
  ASSERT_TRUE(nl.run(b).ok());
  Netlink strict{NetlinkOptions{.netns = Netns::named(ns.name()), .dumpRetries = 0}};
  Churner churn(ns.name(), [](Netlink& c, uint64_t i) {
    if (i % 2 == 0) c.links().add(LinkInfo("churn0", "veth").setVeth(VethInfo().setPeerName("churn1")));
    else c.links().del("churn0");
  });
  bool interrupted = false;
  int lists = 0;
  for (auto until = Clock::now() + kMustSeeDeadline; !interrupted && Clock::now() < until; ++lists) {
    try {
      strict.links().list();
    } catch (const Error& e) {
      ASSERT_EQ(e.code(), Errc::dump_interrupted) << e.what();
      EXPECT_NE(std::string(e.what()).find("interrupted"), std::string::npos) << e.what();
      interrupted = true;
    }
  }
  churn.stop();
  EXPECT_TRUE(interrupted) << "no dump was interrupted in " << lists << " listings";
  EXPECT_EQ(strict.counters().dumpRestarts, 0u) << "dumpRetries = 0 never restarts";
  // The socket is usable afterwards (the interrupted dump was drained).
  EXPECT_EQ(strict.links().list().size(), ns.ipJson("link show").size());
}

TEST_F(ChurnTest, AddressesUnderChurnRestartAndMatchIp) {
  std::vector<std::string> lines;
  for (int i = 0; i < 1500; ++i)
    lines.push_back("addr add 10.1." + std::to_string(i / 250) + "." + std::to_string(i % 250 + 1) + "/32 dev v1");
  ipBatch(lines);
  auto list = [&] {
    std::vector<std::string> keys;
    for (const auto& a : nl.addresses().list())
      keys.push_back(std::to_string(a.devIndex()) + " " + a.address->toStringWithLength());
    return keys;
  };
  std::set<std::string> stable;
  auto pause = churnPause(list, stable);
  ASSERT_GE(stable.size(), 1502u);
  uint32_t v0 = nl.links().indexOf("v0");
  Churner churn(ns.name(), [v0](Netlink& c, uint64_t i) {
    AddrInfo a(Prefix::parse("10.2.0.1/32"), v0);
    if (i % 2 == 0) c.addresses().add(a);
    else c.addresses().del(a);
  }, pause);
  listUnderChurn(list, stable, true);
  churn.stop();
  EXPECT_EQ(churn.failure(), "");
  std::set<std::string> oracle;
  for (const auto& link : ns.ipJson("addr show"))
    for (const auto& a : link["addr_info"])
      oracle.insert(std::to_string(link["ifindex"].get<uint32_t>()) + " " + a["local"].get<std::string>() + "/" +
                    std::to_string(a["prefixlen"].get<int>()));
  EXPECT_EQ(asSet(list()), oracle);
}

TEST_F(ChurnTest, RoutesUnderChurnHaveNoDuplicatesAndMatchIp) {
  std::vector<std::string> lines;
  for (int i = 0; i < 2000; ++i)
    lines.push_back("route add 10.3." + std::to_string(i / 250) + "." + std::to_string(i % 250) + "/32 via 10.0.0.2 table 100");
  ipBatch(lines);
  auto list = [&] {
    std::vector<std::string> keys;
    for (const auto& r : nl.routes().list(RouteFilter().setTable(100).setFamily(IpAddress::Family::v4)))
      keys.push_back(r.dst->toString());
    return keys;
  };
  std::set<std::string> stable = asSet(list());
  ASSERT_EQ(stable.size(), 2000u);
  Churner churn(ns.name(), [](Netlink& c, uint64_t i) {
    RouteInfo r = RouteInfo(Prefix::parse("10.4.0.0/24")).setGateway(IpAddress::parse("10.0.0.2")).setTable(100);
    if (i % 2 == 0) c.routes().add(r);
    else c.routes().del(r);
  });
  // The IPv4 FIB dump does not flag interruptions (it resumes by position): no restart is
  // expected, but the listing must stay exact.
  listUnderChurn(list, stable, false);
  churn.stop();
  EXPECT_EQ(churn.failure(), "");
  std::set<std::string> oracle;
  for (const auto& r : ns.ipJson("-4 route show table 100")) oracle.insert(r["dst"].get<std::string>());
  EXPECT_EQ(asSet(list()), oracle);
}

TEST_F(ChurnTest, NeighboursUnderChurnHaveNoDuplicatesAndMatchIp) {
  std::vector<std::string> lines;
  for (int i = 0; i < 1000; ++i)
    lines.push_back("neigh add 10.0." + std::to_string(i / 250 + 1) + "." + std::to_string(i % 250 + 1) +
                    " lladdr 02:00:00:00:00:01 dev v0");
  ipBatch(lines);
  auto list = [&] {
    std::vector<std::string> keys;
    for (const auto& n : nl.neighbours().list(NeighFilter().setFamily(IpAddress::Family::v4)))
      keys.push_back(n.dst->toString() + " " + std::to_string(n.devIndex()));
    return keys;
  };
  std::set<std::string> stable = asSet(list());
  ASSERT_GE(stable.size(), 1000u);
  uint32_t v0 = nl.links().indexOf("v0");
  Churner churn(ns.name(), [v0](Netlink& c, uint64_t i) {
    NeighInfo n(IpAddress::parse("10.0.9.9"), v0);
    if (i % 2 == 0) c.neighbours().add(NeighInfo(n).setLladdr(MacAddress::parse("02:00:00:00:00:09")));
    else c.neighbours().del(n);
  });
  listUnderChurn(list, stable, false);
  churn.stop();
  EXPECT_EQ(churn.failure(), "");
  std::set<std::string> oracle;
  for (const auto& e : ns.ipJson("-4 neigh show nud all"))
    oracle.insert(e["dst"].get<std::string>() + " " + std::to_string(nl.links().indexOf(e["dev"].get<std::string>())));
  EXPECT_EQ(asSet(list()), oracle);
}

TEST_F(ChurnTest, RulesUnderChurnHaveNoDuplicatesAndMatchIp) {
  std::vector<std::string> lines;
  for (int i = 0; i < 1000; ++i) lines.push_back("rule add pref " + std::to_string(1000 + i) + " fwmark " + std::to_string(i + 1) + " lookup 100");
  ipBatch(lines);
  auto list = [&] {
    std::vector<std::string> keys;
    for (const auto& r : nl.rules().list(RuleFilter().setFamily(IpAddress::Family::v4)))
      keys.push_back(std::to_string(r.priority.value_or(0)));
    return keys;
  };
  std::set<std::string> stable = asSet(list());
  ASSERT_EQ(stable.size(), 1003u);
  // The kernel resumes a rule dump by position and never sets NLM_F_DUMP_INTR for rules: a rule
  // added or removed *before* the dump's position shifts the rest by one (a duplicate or a
  // skipped rule, and nothing says so). So the churned rule sorts last (pref 40000 > 32767),
  // where it cannot shift others; what is checked is that the others stay exact.
  Churner churn(ns.name(), [](Netlink& c, uint64_t i) {
    RuleInfo r = RuleInfo().setPriority(40000).setFwmark(99).setTable(100);
    if (i % 2 == 0) c.rules().add(r);
    else c.rules().del(r);
  });
  listUnderChurn(list, stable, false);
  churn.stop();
  EXPECT_EQ(churn.failure(), "");
  std::set<std::string> oracle;
  for (const auto& r : ns.ipJson("rule show")) oracle.insert(std::to_string(r["priority"].get<uint32_t>()));
  EXPECT_EQ(asSet(list()), oracle);
}

TEST_F(ChurnTest, NexthopsUnderChurnRestartAndMatchIp) {
  std::vector<std::string> lines;
  for (int i = 0; i < 1500; ++i) lines.push_back("nexthop add id " + std::to_string(i + 1) + " via 10.0.0.2 dev v0");
  ipBatch(lines);
  auto list = [&] {
    std::vector<std::string> keys;
    for (const auto& n : nl.nexthops().list()) keys.push_back(std::to_string(*n.id));
    return keys;
  };
  std::set<std::string> stable;
  auto pause = churnPause(list, stable);
  ASSERT_EQ(stable.size(), 1500u);
  Churner churn(ns.name(), [](Netlink& c, uint64_t i) {
    if (i % 2 == 0) c.nexthops().add(NexthopInfo(5000).setGateway(IpAddress::parse("10.0.0.3")).setDev("v0"));
    else c.nexthops().del(5000);
  }, pause);
  listUnderChurn(list, stable, true);
  churn.stop();
  EXPECT_EQ(churn.failure(), "");
  std::set<std::string> oracle;
  for (const auto& n : ns.ipJson("nexthop show")) oracle.insert(std::to_string(n["id"].get<uint32_t>()));
  EXPECT_EQ(asSet(list()), oracle);
}

}  // namespace
}  // namespace fastlink::test
