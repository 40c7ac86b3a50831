// `fastlink apply` SIGKILLed half-way through a plan of ~200 steps, then `fastlink rollback`
// (issue 26): the host comes back exactly, by `ip -j` dumps taken before the apply and after the
// rollback. The same run at 10,000 steps is bench/apply/kill_rollback.sh (too big for a test).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_fixture.hpp"
#include "support/settled.hpp"

namespace fastlink::test {
namespace {

using nlohmann::json;

class ApplyKillCli : public CliTest {
 protected:
  void SetUp() override {
    journals_ = "/tmp/fastlink-journal-" + std::to_string(getpid()) + "-" + ns.name();
    setenv("FASTLINK_RUN_DIR", journals_.c_str(), 1);
    document_ = "/tmp/fastlink-apply-kill-" + std::to_string(getpid()) + "-" + ns.name() + ".yaml";
    // No IPv6: the new devices' link-local addresses and routes would arrive (and go) by
    // themselves, around the dumps this test compares.
    ASSERT_EQ(ns.exec("sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1").status, 0);
  }
  void TearDown() override {
    std::remove(document_.c_str());
    std::filesystem::remove_all(journals_);
    unsetenv("FASTLINK_RUN_DIR");
  }

  /// Links, addresses, every table's routes (as a set) and rules, one object a line.
  std::string hostDump() const {
    std::string out;
    for (const char* what : {"link show", "addr show", "rule show"})
      for (const auto& o : ns.ipJson(what)) out += o.dump() + "\n";
    std::vector<std::string> routes;
    for (const auto& r : ns.ipJson("route show table all")) routes.push_back(r.dump());
    std::sort(routes.begin(), routes.end());
    for (const auto& r : routes) out += r + "\n";
    return out;
  }

  /// The lines of `b` that `a` lacks, for a readable failure.
  static std::string missingFrom(const std::string& a, const std::string& b) {
    std::istringstream in(b);
    std::string line, out;
    while (std::getline(in, line))
      if (a.find(line) == std::string::npos) out += line + "\n";
    return out;
  }

  std::string journals_;
  std::string document_;
};

// 10 veth pairs on the host (up, mtu 1400, an address and two routes each); the document wants
// 20 pairs in a bridge at mtu 1500 with two other addresses each and 40 other routes: ~150 steps
// of every kind the plan has (veth and bridge creates, mtu and master changes, admin up, address
// and route adds), killed once half of them are answered.
TEST_F(ApplyKillCli, KilledAtHalfOfAHundredFiftyStepsThenRollbackRestoresExactly) {
  constexpr int kPairs = 20;
  std::string host;
  for (int i = 0; i < kPairs / 2; ++i) {
    host += "link add va" + std::to_string(i) + " mtu 1400 type veth peer name vb" + std::to_string(i) + " mtu 1400\n";
    host += "link set va" + std::to_string(i) + " up\nlink set vb" + std::to_string(i) + " up\n";
    host += "addr add 12.0." + std::to_string(i) + ".1/32 dev vb" + std::to_string(i) + "\n";
    host += "route add 192.168.0." + std::to_string(i) + "/32 dev vb" + std::to_string(i) + " proto static\n";
    host += "route add 172.16.0." + std::to_string(i) + "/32 dev vb" + std::to_string(i) + " proto static\n";
  }
  auto r = batch(host);
  ASSERT_EQ(r.status, 0) << r.err;
  std::string doc = "interfaces:\n  - {name: br0, type: linux-bridge, state: up}\n";
  for (int i = 0; i < kPairs; ++i) {
    std::string n = std::to_string(i);
    doc += "  - {name: va" + n + ", type: veth, state: up, mtu: 1500, controller: br0, veth: {peer: vb" + n + "}}\n";
    doc += "  - {name: vb" + n + ", type: veth, state: up, mtu: 1500, ipv4: {address: [{ip: 10.0." + n +
           ".1, prefix-length: 32}, {ip: 11.0." + n + ".1, prefix-length: 32}]}}\n";
  }
  doc += "routes:\n  config:\n";
  for (int k = 0; k < 2 * kPairs; ++k)
    doc += "    - {destination: 172.17.0." + std::to_string(k) + "/32, next-hop-interface: vb" + std::to_string(k % kPairs) + ", metric: 7}\n";
  std::ofstream(document_) << doc;

  // Settled first: linkwatch turns the new pairs' carrier on up to a second late (later under the
  // sanitizers on a loaded machine), and an early picture differs from any later one.
  std::string before = stableRead([this] { return hostDump(); }, [](const std::string&) { return true; });
  r = cli("apply --check " + document_);
  ASSERT_EQ(r.status, 2) << r.err;
  std::size_t steps = std::count(r.out.begin(), r.out.end(), '\n');
  ASSERT_GE(steps, 120u) << r.out;

  r = run("FASTLINK_TEST_KILL_AFTER_STEPS=" + std::to_string(steps / 2) + " " + cliPath() + " -n " + ns.name() + " apply " + document_);
  ASSERT_NE(r.status, 0) << "not killed: " << r.out;
  r = cli("apply --check " + document_);
  std::size_t left = std::count(r.out.begin(), r.out.end(), '\n');
  EXPECT_GT(left, 0u) << "the apply finished before it was killed";
  EXPECT_LT(left, steps) << "the apply was killed before it changed anything";

  r = cli("rollback");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  // The rollback's devices come up again; their carrier follows as late as the first time.
  std::string after;
  waitUntil([&] { return (after = hostDump()) == before; }, std::chrono::seconds(15), std::chrono::milliseconds(200));
  EXPECT_EQ(after, before) << "missing after the rollback:\n"
                           << missingFrom(after, before) << "left by the apply:\n"
                           << missingFrom(before, after);
  EXPECT_FALSE(std::filesystem::exists(journals_) && !std::filesystem::is_empty(journals_) &&
               std::any_of(std::filesystem::recursive_directory_iterator(journals_), {},
                           [](const auto& e) { return e.path().filename() == "record"; }))
      << "the rollback left its journal";
}

}  // namespace
}  // namespace fastlink::test
