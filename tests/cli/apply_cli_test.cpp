// `fastlink apply` and `fastlink show state` (issue 26) against the kernel, with `ip -j` as the
// oracle and the wire observer (tests/support/wire_observer) counting what the process sent.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_fixture.hpp"
#include "support/settled.hpp"

namespace fastlink::test {
namespace {

using nlohmann::json;

/// The source tree (the build gives it to the tests).
std::string sourceDir() { return build::sourceDir(); }

std::string exampleFile(const std::string& name) { return sourceDir() + "/examples/state/" + name; }

class ApplyCli : public CliTest {
 protected:
  std::string writeDoc(const std::string& content) {
    std::string path = "/tmp/fastlink-apply-" + std::to_string(getpid()) + "-" + ns.name() + "-" + std::to_string(files_++);
    std::ofstream(path) << content;
    paths_.push_back(path);
    return path;
  }
  /// The journals of this test's applies: in /tmp, not in the host's /run/fastlink.
  void SetUp() override {
    journals_ = "/tmp/fastlink-journal-" + std::to_string(getpid()) + "-" + ns.name();
    setenv("FASTLINK_RUN_DIR", journals_.c_str(), 1);
  }
  void TearDown() override {
    for (const auto& p : paths_) std::remove(p.c_str());
    std::filesystem::remove_all(journals_);
    unsetenv("FASTLINK_RUN_DIR");
    unsetenv("FASTLINK_TEST_DOCUMENT_CACHE");
  }
  /// Expects hostDump() to come back to `before`: polled, as a recreated device gets its IPv6
  /// link-local address and routes a little after it comes up.
  void expectHostReturnsTo(const std::string& before, const std::string& context = "") const {
    std::string now = hostDump();
    for (int tries = 0; now != before && tries < 50; ++tries) {
      usleep(100 * 1000);
      now = hostDump();
    }
    EXPECT_EQ(now, before) << context;
  }
  /// True while a journal of this test's namespace exists (its record file).
  bool journalled() const {
    std::error_code ec;
    for (const auto& dir : std::filesystem::directory_iterator(journals_, ec))
      if (std::filesystem::exists(dir.path() / "record")) return true;
    return false;
  }
  /// True while a --confirm watchdog of this test's namespace runs (`fastlink -n NS rollback --watch`).
  bool watchdogRuns() const { return watchdogPid() != 0; }
  /// A /proc file's text, "" when its process is gone: a process that exits between open and read
  /// fails the read with ESRCH, which std::ifstream turns into an exception (seen in CI's
  /// sanitizer build while a short-lived fastlink exited during the scan).
  static std::string procFile(const std::filesystem::path& path) {
    std::string text;
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return text;
    char chunk[4096];
    for (ssize_t n; (n = read(fd, chunk, sizeof chunk)) > 0;) text.append(chunk, static_cast<std::size_t>(n));
    close(fd);
    return text;
  }
  pid_t watchdogPid() const {
    std::error_code ec;
    for (const auto& proc : std::filesystem::directory_iterator("/proc", ec)) {
      std::string cmdline = procFile(proc.path() / "cmdline");
      if (cmdline.find(std::string("-n") + '\0' + ns.name() + '\0' + "rollback" + '\0' + "--watch") != std::string::npos)
        return static_cast<pid_t>(std::atoi(proc.path().filename().c_str()));
    }
    return 0;
  }
  /// `apply --confirm 1 DOC`, then its watchdog (found by the namespace's name) dies before its
  /// time, and the deadline passes with the journal still there.
  void applyAndOutliveItsWatchdog(const std::string& doc) {
    auto r = cli("apply --confirm 1 " + doc);
    ASSERT_EQ(r.status, 0) << r.err;
    pid_t watchdog = watchdogPid();
    ASSERT_NE(watchdog, 0) << "no watchdog runs";
    ASSERT_EQ(kill(watchdog, SIGKILL), 0);
    while (watchdogRuns()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    auto until = std::chrono::system_clock::now() + std::chrono::milliseconds(1100);
    while (std::chrono::system_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_TRUE(journalled());
  }
  /// Polls until the watchdogs have acted and exited (the --confirm deadline is a second).
  void waitForWatchdogs() const {
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while ((journalled() || watchdogRuns()) && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(watchdogRuns()) << "the watchdog still runs";
  }
  /// The host a rollback test starts from: a veth pair, a bridge with a port, addresses, routes
  /// through both (one in table 100, which a no-op plan of the document's main-table routes does
  /// not dump: the undo must), a rule; read once the kernel has stopped changing it.
  std::string makeRollbackHost() {
    ns.exec("sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0");
    for (const char* command : {"link add ra0 type veth peer name ra1", "addr add 10.1.0.1/24 dev ra0", "link set ra0 up",
                                "link add rold type bridge", "link set ra1 master rold", "addr add 10.6.0.1/24 dev rold",
                                "link set rold up", "route add 10.8.0.0/16 dev rold table 100 proto static", "link set ra1 up", "route add 10.2.0.0/16 via 10.1.0.2 proto bgp",
                                "route add 10.7.0.0/16 via 10.6.0.9 proto static",
                                "rule add from 10.3.0.0/16 lookup 50 pref 300 proto static"})
      ns.ip(command);
    return settledHostDump();
  }
  /// Changes every kind of object of makeRollbackHost: creates a bridge and enslaves ra0 to it,
  /// deletes rold (ra1 leaves it, its address and route go), changes mtu and alias, deletes a
  /// route, adds an address, a route and a rule.
  std::string rollbackDocument() {
    return writeDoc(
        "interfaces:\n"
        "  - name: rnew\n    type: linux-bridge\n    state: up\n    bridge:\n      port:\n        - name: ra0\n"
        "    ipv4:\n      enabled: true\n      address:\n        - ip: 10.9.0.1\n          prefix-length: 24\n"
        "  - name: ra0\n    type: veth\n    mtu: 1400\n    description: changed\n"
        "  - name: rold\n    state: absent\n"
        "routes:\n  config:\n    - destination: 10.2.0.0/16\n      state: absent\n"
        "    - destination: 10.4.0.0/16\n      next-hop-address: 10.9.0.2\n"
        "route-rules:\n  config:\n    - ip-from: 10.5.0.0/16\n      route-table: 60\n      priority: 400\n");
  }
  void expectRollbackDocumentApplied() const {
    EXPECT_EQ(ipLink("ra0")["master"], "rnew");
    EXPECT_EQ(ipLink("ra0")["mtu"], 1400);
    EXPECT_FALSE(ipHas("rold"));
    EXPECT_EQ(ns.ipJson("rule show pref 400").size(), 1u);
    EXPECT_EQ(ns.ipJson("route show 10.4.0.0/16").size(), 1u);
  }
  /// Requests that change something: every message sent that is not a dump.
  static uint64_t changeRequests(const wire::Counts& w) { return w.requests - w.dumpRequests; }

  /// Links, addresses, routes of every table, rules, as `ip -j` prints them (ifindexes
  /// included: a round trip that recreated a device would show).
  std::string hostDump() const {
    // Without -d: a bridge's timers tick between two reads.
    return ns.ip("-j link show") + ns.ip("-j addr show") + routesInAnyOrder() + ns.ip("-j rule show") +
           ns.ip("-6 -j rule show");
  }
  /// Every table's routes, sorted: routes of the same prefix on two devices (fe80::/64 on a bond and
  /// its vlan) are listed in the order the devices got them, which a rollback that recreates the
  /// devices need not repeat (seen on 6.1 in the VM); the set of routes is what must come back.
  std::string routesInAnyOrder() const {
    json routes = json::parse(ns.ip("-j route show table all"));
    std::vector<std::string> each;
    for (const auto& r : routes) each.push_back(r.dump());
    std::sort(each.begin(), each.end());
    std::string out;
    for (const auto& r : each) out += r + "\n";
    return out;
  }
  /// hostDump() once the kernel has stopped changing the host by itself: a device that comes up
  /// gets its IPv6 link-local address, multicast and local routes over the next few hundred ms
  /// (later still under the sanitizers), and a "before" read too early differs from any "after".
  /// Settled: no address still tentative (DAD takes a second; seen in CI's sanitizer build on a
  /// loaded machine) and the same dump for a second (linkwatch's longest delay of a carrier).
  std::string settledHostDump() const {
    return stableRead([this] { return hostDump(); },
                      [](const std::string& dump) { return dump.find("tentative") == std::string::npos; });
  }

 private:
  int files_ = 0;
  std::vector<std::string> paths_;
  std::string journals_;
};

bool hasAddress(const json& links, const std::string& dev, const std::string& local, int length) {
  for (const auto& l : links) {
    if (l["ifname"] != dev) continue;
    for (const auto& a : l["addr_info"])
      if (a["local"] == local && a["prefixlen"] == length) return true;
  }
  return false;
}

TEST_F(ApplyCli, BridgeOfVethPairsAppliesVerifiesAndThenSendsNoChange) {
  auto r = cli("apply " + exampleFile("bridge-veth.yaml"));
  ASSERT_EQ(r.status, 0) << r.err;
  json br0 = ipLink("br0");
  EXPECT_EQ(br0["linkinfo"]["info_kind"], "bridge");
  EXPECT_TRUE(hasFlag(br0, "UP"));
  EXPECT_EQ(ipLink("va0")["master"], "br0");
  EXPECT_EQ(ipLink("vb0")["master"], "br0");
  EXPECT_EQ(ipLink("va1")["link"], "va0");
  EXPECT_TRUE(hasFlag(ipLink("va1"), "UP"));
  json addrs = ns.ipJson("addr show");
  EXPECT_TRUE(hasAddress(addrs, "br0", "192.0.2.1", 24));
  EXPECT_TRUE(hasAddress(addrs, "va1", "192.0.2.10", 24));
  json routes = ns.ipJson("route show 198.51.100.0/24");
  ASSERT_EQ(routes.size(), 1u) << routes.dump();
  EXPECT_EQ(routes[0]["gateway"], "192.0.2.254");
  EXPECT_EQ(routes[0]["dev"], "br0");
  EXPECT_EQ(routes[0]["metric"], 100);
  EXPECT_EQ(routes[0]["protocol"], "static");
  json rules = ns.ipJson("rule show pref 1000");
  ASSERT_EQ(rules.size(), 1u) << rules.dump();
  EXPECT_EQ(rules[0]["src"], "203.0.113.0");
  EXPECT_EQ(rules[0]["table"], "100");

  // The host now matches: --check says so, and a second apply sends dumps only.
  r = cli("apply --check " + exampleFile("bridge-veth.yaml"));
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "");
  std::string before = settledHostDump();
  wire::Counts w;
  r = cliWire("apply " + exampleFile("bridge-veth.yaml"), w);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(changeRequests(w), 0u) << "a second apply sent change requests";
  EXPECT_GE(w.dumpRequests, 2u) << "links and addresses are dumped (and routes, rules)";
  expectHostReturnsTo(before, "after a second apply");
}

/// bench/apply's document at a test's scale: `pairs` veth pairs (vaI a port of br0, vbI up with
/// two addresses) and two routes through each vbI; vb7 with `vb7Extra` keys added.
std::string scaleDocument(int pairs, const std::string& vb7Extra = "") {
  std::string doc = "interfaces:\n  - {name: br0, type: linux-bridge, state: up}\n";
  std::string routes = "routes:\n  config:\n";
  for (int i = 0; i < pairs; ++i) {
    std::string n = std::to_string(i);
    doc += "  - {name: va" + n + ", type: veth, state: up, controller: br0, veth: {peer: vb" + n + "}}\n";
    doc += "  - {name: vb" + n + ", type: veth, state: up" + (i == 7 ? vb7Extra : "") + ", ipv4: {enabled: true, address: [{ip: 10.1." +
           n + ".1, prefix-length: 32}, {ip: 10.2." + n + ".1, prefix-length: 32}]}}\n";
    for (int k : {0, 1}) routes += "    - {destination: 172.16." + std::to_string(2 * i + k) + ".0/24, next-hop-interface: vb" + n + "}\n";
  }
  return doc + routes;
}

TEST_F(ApplyCli, DocumentOnStandardInputAsFromAFile) {
  // `apply -` reads the document with read(2) (the CLI builds no std::cin: cli/kit/
  // no_standard_streams.cpp), in 64 KiB blocks: a document larger than one block is read whole.
  std::string big;  // comment lines first: the document itself comes after the first block
  for (int i = 0; i < 800; ++i) big += "# a comment line, to make the document span more than one read of standard input\n";
  big += scaleDocument(120);
  ASSERT_GT(big.size(), 65536u) << "the document must span more than one read";
  std::string path = writeDoc(big);
  auto fromFile = cli("apply --check " + path);
  auto fromStdin = cli("apply --check - < " + path);
  EXPECT_EQ(fromFile.status, 2) << fromFile.err;
  EXPECT_EQ(fromStdin.status, fromFile.status) << fromStdin.err;
  EXPECT_EQ(fromStdin.out, fromFile.out) << "the plan of the document read from standard input differs";
  ASSERT_NE(fromFile.out.find("+ interface vb119: type veth, peer va119"), std::string::npos) << fromFile.out << fromFile.err;

  auto r = cli("apply - < " + writeDoc(scaleDocument(3)));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(ns.ipJson("link show master br0").size(), 3u);
  EXPECT_TRUE(hasAddress(ns.ipJson("addr show"), "vb2", "10.2.2.1", 32));
}

TEST_F(ApplyCli, FiftyInterfacesThenNoChangeSendsNothingAndOneFieldOneRequest) {
  // 51 interfaces, 50 addresses, 50 routes (the 10,000-interface run is bench/apply's).
  std::string path = writeDoc(scaleDocument(25));
  auto r = cli("apply " + path);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(ns.ipJson("link show master br0").size(), 25u);
  EXPECT_EQ(ns.ipJson("route show 172.16.49.0/24")[0]["dev"], "vb24");
  EXPECT_TRUE(hasAddress(ns.ipJson("addr show"), "vb24", "10.2.24.1", 32));
  wire::Counts w;
  r = cliWire("apply " + path, w);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(changeRequests(w), 0u) << "a second apply sent change requests:\n" << r.out;

  path = writeDoc(scaleDocument(25, ", mtu: 9000"));
  r = cli("apply --check " + path);
  EXPECT_EQ(r.status, 2) << "--check exits 2 when the host differs";
  EXPECT_EQ(r.out, "~ interface vb7: mtu 1500 -> 9000\n");
  r = cliWire("-j apply " + path, w);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(changeRequests(w), 1u);
  EXPECT_EQ(ipLink("vb7")["mtu"], 9000);
  json steps = json::parse(r.out);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0]["object"], "interface vb7");
  EXPECT_EQ(steps[0]["result"], "applied");
}

TEST_F(ApplyCli, ParsedDocumentCacheHitPlansAndAppliesAsAParse) {
  // The cache (cli/state/document_cache.cpp; its stale and corrupt cases are unit tests): the
  // second read of the same bytes is a hit, and plans what the parse planned.
  setenv("FASTLINK_TEST_DOCUMENT_CACHE", "1", 1);
  std::string path = writeDoc(scaleDocument(8, ", mtu: 9000"));
  auto missed = cli("apply --check " + path);
  EXPECT_EQ(missed.err, "document cache: miss\n");
  auto hit = cli("apply --check " + path);
  EXPECT_EQ(hit.err, "document cache: hit\n");
  EXPECT_EQ(hit.status, 2);
  EXPECT_EQ(hit.out, missed.out);
  EXPECT_NE(hit.out.find("+ interface vb2: type veth"), std::string::npos) << hit.out;
  auto r = cli("apply " + path);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "document cache: hit\n");
  EXPECT_EQ(ipLink("vb7")["mtu"], 9000);
  EXPECT_EQ(ns.ipJson("route show 172.16.5.0/24")[0]["dev"], "vb2");
}

TEST_F(ApplyCli, ShowStateAppliedBackChangesNothing) {
  // A host made by ip: a bridge with a veth port, a vxlan, addresses of both families, a route
  // in another table, a rule. No duplicate address detection: link-local addresses are not
  // tentative for a second or two after each device comes up.
  ns.exec("sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0");
  ASSERT_NO_THROW(ns.ip("link add rb0 type bridge"));
  ASSERT_NO_THROW(ns.ip("link add rv0 mtu 1400 type veth peer name rv1"));
  ASSERT_NO_THROW(ns.ip("link set rv0 master rb0"));
  ASSERT_NO_THROW(ns.ip("link set rb0 up"));
  ASSERT_NO_THROW(ns.ip("link set rv1 up"));
  ASSERT_NO_THROW(ns.ip("link set rv0 up"));
  ASSERT_NO_THROW(ns.ip("link set rv1 alias uplink group 3"));
  ASSERT_NO_THROW(ns.ip("link add rx0 type vxlan id 42 dstport 4789 local 10.7.0.1 dev rv1"));
  ASSERT_NO_THROW(ns.ip("addr add 10.7.0.1/24 dev rv1"));
  ASSERT_NO_THROW(ns.ip("addr add 2001:db8:7::1/64 dev rb0 nodad"));
  ASSERT_NO_THROW(ns.ip("route add 10.8.0.0/16 via 10.7.0.254 table 77 metric 5"));
  ASSERT_NO_THROW(ns.ip("rule add from 10.9.0.0/16 lookup 77 pref 500"));
  std::string before = settledHostDump();

  for (std::string format : {"", "-j "}) {
    auto shown = cli(format + "show state");
    ASSERT_EQ(shown.status, 0) << shown.err;
    std::string path = writeDoc(shown.out);
    auto r = cli("apply --check " + path);
    EXPECT_EQ(r.status, 0) << format << "show state differs from the host it came from:\n" << r.out << r.err;
    wire::Counts w;
    r = cliWire("apply " + path, w);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(changeRequests(w), 0u) << format << r.out;
    EXPECT_EQ(hostDump(), before) << format;
  }
}

TEST_F(ApplyCli, AbsentDevicesAndRoutesAreRemovedRoutesFirst) {
  ASSERT_NO_THROW(ns.ip("link add gv0 type veth peer name gv1"));
  ASSERT_NO_THROW(ns.ip("link set gv0 up"));
  ASSERT_NO_THROW(ns.ip("addr add 10.5.0.1/24 dev gv0"));
  ASSERT_NO_THROW(ns.ip("route add 10.6.0.0/16 via 10.5.0.2 proto static"));
  ASSERT_NO_THROW(ns.ip("link add gb0 type bridge"));
  std::string path = writeDoc(
      "interfaces:\n"
      "  - name: gb0\n    state: absent\n"
      "  - name: gv0\n    type: veth\n    state: up\n    ipv4:\n      enabled: true\n      address: []\n"
      "routes:\n  config:\n    - destination: 10.6.0.0/16\n      state: absent\n");
  auto r = cli("apply --check " + path);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out,
            "- route 10.6.0.0/16 via 10.5.0.2 dev gv0\n"
            "- address 10.5.0.1/24 dev gv0\n"
            "- interface gb0: type linux-bridge\n");
  r = cli("apply " + path);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(ipHas("gb0"));
  EXPECT_TRUE(ns.ipJson("route show 10.6.0.0/16").empty());
  EXPECT_FALSE(hasAddress(ns.ipJson("addr show"), "gv0", "10.5.0.1", 24));
}

TEST_F(ApplyCli, OverriddenRemovesOwnedDevicesAndRoutesOnly) {
  ASSERT_NO_THROW(ns.ip("link add lab-old type bridge"));
  ASSERT_NO_THROW(ns.ip("link add lab-keep1 type bridge"));
  ASSERT_NO_THROW(ns.ip("link add other0 type bridge"));
  ASSERT_NO_THROW(ns.ip("link set other0 up"));
  ASSERT_NO_THROW(ns.ip("route add 10.98.0.0/16 dev other0 proto static"));
  ASSERT_NO_THROW(ns.ip("route add 10.97.0.0/16 dev other0 proto static"));
  ASSERT_NO_THROW(ns.ip("route add 10.96.0.0/16 dev other0 proto bgp"));
  auto r = cli("apply " + exampleFile("overridden.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(ipHas("lab-old"));
  EXPECT_TRUE(ipHas("lab-keep1")) << "ignored";
  EXPECT_TRUE(ipHas("other0")) << "not owned";
  EXPECT_EQ(ipLink("lab-v0")["master"], "lab-br");
  EXPECT_EQ(ipLink("lab-br")["group"], "7");
  EXPECT_EQ(ns.ipJson("route show table 100 10.99.0.0/16").size(), 1u);
  EXPECT_TRUE(ns.ipJson("route show 10.98.0.0/16").empty()) << "named absent";
  EXPECT_TRUE(ns.ipJson("route show 10.97.0.0/16").empty()) << "proto static in table main is owned";
  EXPECT_EQ(ns.ipJson("route show 10.96.0.0/16").size(), 1u) << "a routing daemon's route stays";
}

TEST_F(ApplyCli, NmstateBondVlanVrfFileAppliesUnchanged) {
  for (const char* kind : {"bond", "vlan", "vrf", "dummy"}) FASTLINK_REQUIRE_KIND(kind);
  auto r = cli("apply " + exampleFile("nmstate-bond-vlan.yaml"));
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  json bond = ipLink("bond99");
  EXPECT_EQ(bond["linkinfo"]["info_kind"], "bond");
  EXPECT_EQ(bond["linkinfo"]["info_data"]["mode"], "active-backup");
  EXPECT_EQ(bond["linkinfo"]["info_data"]["miimon"], 100);
  EXPECT_EQ(ipLink("dummy0")["master"], "bond99");
  EXPECT_EQ(ipLink("dummy1")["master"], "bond99");
  json vlan = ipLink("bond99.10");
  EXPECT_EQ(vlan["link"], "bond99");
  EXPECT_EQ(vlan["linkinfo"]["info_data"]["id"], 10);
  EXPECT_EQ(vlan["master"], "vrf1");
  EXPECT_EQ(ipLink("vrf1")["linkinfo"]["info_data"]["table"], 100);
  json addrs = ns.ipJson("addr show");
  EXPECT_TRUE(hasAddress(addrs, "bond99.10", "192.0.2.2", 24));
  EXPECT_TRUE(hasAddress(addrs, "bond99.10", "2001:db8::2", 64));
  EXPECT_EQ(ns.ipJson("route show table 100 198.51.100.0/24").size(), 1u);
  r = cli("apply --check " + exampleFile("nmstate-bond-vlan.yaml"));
  EXPECT_EQ(r.status, 0) << r.out;
}

TEST_F(ApplyCli, RollbackRestoresLinksAddressesRoutesAndRulesExactly) {
  std::string before = makeRollbackHost();
  auto r = cli("apply " + rollbackDocument());
  ASSERT_EQ(r.status, 0) << r.err;
  expectRollbackDocumentApplied();
  ASSERT_TRUE(journalled());
  r = cli("rollback");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  // The same dumps, ifindexes included: rold is made again at its own index.
  expectHostReturnsTo(before, r.out);
  EXPECT_FALSE(journalled());
  r = cli("rollback");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "Error: nothing to roll back: no apply journal in this namespace\n");
}

// The undo of a created vxlan or mac-vlan is an absent entry of that type, without the options
// such a device needs when it is made (the reader refused the journal at stop 36: "interfaces[0].
// vxlan: missing (a vxlan needs an id)", and the rollback failed).
TEST_F(ApplyCli, RollbackRemovesCreatedDevicesOfTypesWithRequiredOptions) {
  ns.ip("link add ra0 type veth peer name ra1");
  std::string before = settledHostDump();
  auto r = cli("apply " + writeDoc("interfaces:\n"
                                   "  - {name: vx9, type: vxlan, vxlan: {id: 9, base-iface: ra0}}\n"
                                   "  - {name: mv9, type: mac-vlan, mac-vlan: {base-iface: ra0, mode: bridge}}\n"));
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_TRUE(ipHas("vx9") && ipHas("mv9"));
  r = cli("rollback");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_FALSE(ipHas("vx9") || ipHas("mv9"));
  expectHostReturnsTo(before, r.out);
  EXPECT_FALSE(journalled());
}

TEST_F(ApplyCli, KilledHalfWayThenRollbackRestores) {
  std::string before = makeRollbackHost();
  std::string path = rollbackDocument();
  auto r = run("FASTLINK_TEST_KILL_AFTER_STEPS=2 " + cliPath() + " -n " + ns.name() + " apply " + path);
  ASSERT_NE(r.status, 0) << "not killed: " << r.out;
  // The first batch (a route and rold deleted) was sent; the second (rnew and the rest) not.
  EXPECT_FALSE(ipHas("rold")) << "the first steps were sent";
  EXPECT_FALSE(ipHas("rnew")) << "the last steps were not";
  r = cli("apply " + path);
  EXPECT_EQ(r.status, 2) << "an interrupted apply's journal blocks the next apply";
  EXPECT_NE(r.err.find("was interrupted: fastlink commit keeps it, fastlink rollback undoes it; nothing was changed"), std::string::npos) << r.err;
  r = cli("rollback");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  expectHostReturnsTo(before, r.out);
}

TEST_F(ApplyCli, ConfirmRollsBackWithoutCommitAndCommitKeeps) {
  std::string before = makeRollbackHost();
  // Committed in time: kept, and its watchdog exits with the commit, not at its deadline.
  std::string first = writeDoc("interfaces:\n  - name: ra1\n    type: veth\n    fastlink-group: 5\n");
  auto r = cli("apply --confirm 60 " + first);
  ASSERT_EQ(r.status, 0) << r.err;
  r = cli("apply --confirm 1 " + first);
  EXPECT_EQ(r.status, 2) << "a pending --confirm blocks the next apply";
  ASSERT_TRUE(watchdogRuns());
  r = cli("commit");
  ASSERT_EQ(r.status, 0) << r.err;
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (watchdogRuns() && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(watchdogRuns()) << "the watchdog waits for the deadline of a committed apply";
  EXPECT_EQ(cli("commit").status, 2) << "nothing left to commit";
  // Not committed: rolled back by the watchdog, the first change stays.
  r = cli("apply --confirm 1 " + rollbackDocument());
  ASSERT_EQ(r.status, 0) << r.err;
  expectRollbackDocumentApplied();
  waitForWatchdogs();
  EXPECT_FALSE(journalled());
  ASSERT_EQ(ipLink("ra1")["group"], "5") << "the committed apply was rolled back";
  ASSERT_NO_THROW(ns.ip("link set ra1 group 0"));
  expectHostReturnsTo(before);
}

TEST_F(ApplyCli, CommitAfterTheDeadlineRollsBackWhenTheWatchdogIsGone) {
  std::string before = makeRollbackHost();
  ASSERT_NO_FATAL_FAILURE(applyAndOutliveItsWatchdog(rollbackDocument()));
  // Past the deadline, with the journal still there, commit must not keep the change.
  auto r = cli("commit");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("Error: too late: the apply of "), std::string::npos) << r.err;
  EXPECT_FALSE(journalled());
  expectHostReturnsTo(before, r.out);
}

TEST_F(ApplyCli, ApplyAfterAnExpiredConfirmRollsItBackFirst) {
  std::string before = makeRollbackHost();
  ASSERT_NO_FATAL_FAILURE(applyAndOutliveItsWatchdog(rollbackDocument()));
  auto r = cli("apply " + writeDoc("interfaces:\n  - name: ra1\n    type: veth\n    fastlink-group: 5\n"));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("was not committed in time: rolling it back first"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "~ interface ra1: fastlink-group 0 -> 5\n") << "the rollback's steps are not the apply's";
  EXPECT_EQ(ipLink("ra1")["group"], "5");
  ASSERT_NO_THROW(ns.ip("link set ra1 group 0"));
  expectHostReturnsTo(before);
}

TEST_F(ApplyCli, ConfirmRollsBackAnApplyKilledHalfWay) {
  std::string before = makeRollbackHost();
  auto r = run("FASTLINK_TEST_KILL_AFTER_STEPS=2 " + cliPath() + " -n " + ns.name() + " apply --confirm 1 " + rollbackDocument());
  ASSERT_NE(r.status, 0) << "not killed: " << r.out;
  EXPECT_FALSE(ipHas("rold"));
  EXPECT_FALSE(ipHas("rnew"));
  waitForWatchdogs();
  EXPECT_FALSE(journalled());
  expectHostReturnsTo(before);
}

TEST_F(ApplyCli, RollbackRestoresABondWithPortsAndAVlanOnIt) {
  // The kinds the host lacks: runs in the VM (tests/vm, --only-host-skips).
  for (const char* kind : {"bond", "vlan", "dummy"}) FASTLINK_REQUIRE_KIND(kind);
  ns.exec("sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0");
  for (const char* command : {"link add bd0 type bond mode active-backup miimon 100", "link add bp0 type dummy",
                              "link add bp1 type dummy", "link set bp0 master bd0", "link set bp1 master bd0",
                              "link set bd0 up", "link add link bd0 name bd0.10 type vlan id 10",
                              "addr add 10.20.0.1/24 dev bd0.10", "link set bd0.10 up",
                              "route add 10.21.0.0/16 via 10.20.0.254 proto static"})
    ns.ip(command);
  std::string before = settledHostDump();
  auto r = cli("apply " + writeDoc("interfaces:\n  - name: bd0\n    state: absent\n"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(ipHas("bd0"));
  EXPECT_FALSE(ipHas("bd0.10")) << "the kernel deletes the vlan with its base";
  r = cli("rollback");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  expectHostReturnsTo(before, r.out);
}

/// The kernel's bridges filter VLANs only with CONFIG_BRIDGE_VLAN_FILTERING (the host's lacks
/// it, FACTS.md): those tests run in the VM, where FASTLINK_REQUIRE_KINDS names bridge_vlan.
#define FASTLINK_REQUIRE_VLAN_FILTERING()                                                                 \
  do {                                                                                                    \
    if (run("ip -n " + ns.name() + " link add vfprobe type bridge vlan_filtering 1").status != 0) {       \
      if (kindRequired("bridge_vlan")) FAIL() << "kernel lacks bridge vlan filtering, required here";     \
      GTEST_SKIP() << "kernel lacks feature 'bridge_vlan' (CONFIG_BRIDGE_VLAN_FILTERING): runs in the VM"; \
    }                                                                                                     \
    ns.ip("link del vfprobe");                                                                            \
  } while (0)

/// A port's VLANs as `bridge -compressvlans -j vlan show dev DEV` lists them: "2-4094 tagged; 100 PVID Egress Untagged".
std::string bridgeVlans(const TestNetns& ns, const std::string& dev) {
  auto r = run("bridge -n " + ns.name() + " -compressvlans -j vlan show dev " + dev);
  EXPECT_EQ(r.status, 0) << r.err;
  std::string out;
  if (r.out.find_first_not_of(" \n") == std::string::npos) return out;
  for (const auto& port : json::parse(r.out)) {
    for (const auto& v : port["vlans"]) {
      out += (out.empty() ? "" : "; ") + std::to_string(v["vlan"].get<int>());
      if (v.contains("vlanEnd")) out += "-" + std::to_string(v["vlanEnd"].get<int>());
      if (!v.contains("flags") || v["flags"].empty()) out += " tagged";
      else
        for (const auto& f : v["flags"]) out += " " + f.get<std::string>();
    }
  }
  return out;
}

TEST_F(ApplyCli, BridgePortVlansAppliedAsDiffsShownAndRolledBackExactly) {
  FASTLINK_REQUIRE_VLAN_FILTERING();
  ns.exec("sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0");
  for (const char* command : {"link add bv0 type veth peer name bv1", "link add bv2 type veth peer name bv3",
                              "link add bv4 type veth peer name bv5", "link add bvbr type bridge", "link set bv0 master bvbr",
                              "link set bvbr up"})
    ns.ip(command);
  std::string before = settledHostDump(), vlansBefore = run("bridge -n " + ns.name() + " -j vlan show").out;
  // bv0 as kubernetes-nmstate's handler writes every port of an up bridge (ApplyDefaultVlanFiltering);
  // bv2 and bv4 join the bridge in the same plan (the kernel gives them VLAN 1 first).
  std::string doc = writeDoc(
      "interfaces:\n"
      "  - name: bvbr\n    type: linux-bridge\n    state: up\n    bridge:\n      port:\n"
      "        - name: bv0\n          vlan: {mode: trunk, trunk-tags: [{id-range: {min: 2, max: 4094}}]}\n"
      "        - name: bv2\n          vlan: {mode: trunk, enable-native: true, tag: 100, trunk-tags: [{id: 101}, {id-range: {min: 200, max: 210}}]}\n"
      "        - name: bv4\n          vlan: {mode: access, tag: 30}\n");
  auto r = cli("apply " + doc);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(ipLink("bvbr")["linkinfo"]["info_data"]["vlan_filtering"], 1);
  EXPECT_EQ(bridgeVlans(ns, "bv0"), "2-4094 tagged");
  EXPECT_EQ(bridgeVlans(ns, "bv2"), "100 PVID Egress Untagged; 101 tagged; 200-210 tagged");
  EXPECT_EQ(bridgeVlans(ns, "bv4"), "30 PVID Egress Untagged");
  // The same document again plans nothing; one port's VLAN changed plans one request per change.
  r = cli("apply --check " + doc);
  EXPECT_EQ(r.status, 0) << r.out;
  std::ifstream in(doc);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text.replace(text.find("tag: 30"), 7, "tag: 31");
  r = cli("apply --check " + writeDoc(text));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "- vlan 30 dev bv4\n+ vlan 31 dev bv4: pvid untagged\n");
  // show state gives the VLANs in nmstate's keys, and applying it back changes nothing.
  r = cli("-j show state");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"id-range\": {\n"), std::string::npos) << r.out;
  r = cli("apply --check " + writeDoc(r.out));
  EXPECT_EQ(r.status, 0) << "show state differs from the host:\n" << r.out << r.err;
  // The same through kubernetes-nmstate's commands: nmstatectl show | nmstatectl set sends nothing.
  std::string nmstatectl = cliPath() + " -n " + ns.name() + " nmstatectl ";
  r = run(nmstatectl + "show | " + nmstatectl + "set");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "") << "set printed a plan: it changed something";
  // Rollback: filtering off again, bv0 back to VLAN 1, bv2 and bv4 out of the bridge.
  r = cli("rollback");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  expectHostReturnsTo(before, r.out);
  EXPECT_EQ(ipLink("bvbr")["linkinfo"]["info_data"]["vlan_filtering"], 0);
  EXPECT_EQ(run("bridge -n " + ns.name() + " -j vlan show").out, vlansBefore);
}

TEST_F(ApplyCli, PortLeavingAVlanBridgeGetsItsVlansBackOnRollback) {
  FASTLINK_REQUIRE_VLAN_FILTERING();
  for (const char* command : {"link add lv0 type veth peer name lv1", "link add lvbr type bridge vlan_filtering 1",
                              "link set lv0 master lvbr", "link set lvbr up"})
    ns.ip(command);
  run("bridge -n " + ns.name() + " vlan add vid 300-302 dev lv0");
  run("bridge -n " + ns.name() + " vlan add vid 7 pvid untagged dev lv0");
  std::string vlans = bridgeVlans(ns, "lv0");
  ASSERT_EQ(vlans, "1 Egress Untagged; 7 PVID Egress Untagged; 300-302 tagged");
  // nmstatectl as the handler runs it: the port leaves the bridge (not in its complete port list).
  auto r = run("echo 'interfaces: [{name: lvbr, type: linux-bridge, state: up, bridge: {port: []}}]' | " + cliPath() +
               " -n " + ns.name() + " nmstatectl set --no-commit --timeout 60");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_FALSE(ipLink("lv0").contains("master"));
  r = cli("nmstatectl rollback");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(ipLink("lv0")["master"], "lvbr");
  EXPECT_EQ(bridgeVlans(ns, "lv0"), vlans);
}

TEST(ApplySchema, ExamplesFollowTheSchema) {
  // The VM's guest has no Python: the schema is checked by the host run (FASTLINK_REQUIRE_KINDS
  // is set in the guest only).
  if (std::getenv("FASTLINK_REQUIRE_KINDS")) return;
  if (system("/usr/bin/python3 -c 'import jsonschema, yaml' 2>/dev/null") != 0)
    GTEST_SKIP() << "needs Debian's python3-jsonschema and python3-yaml";
  std::string script =
      "import json, sys, yaml, jsonschema\n"
      "schema = json.load(open(sys.argv[1]))\n"
      "jsonschema.Draft202012Validator.check_schema(schema)\n"
      "bad = 0\n"
      "for path in sys.argv[2:]:\n"
      "    for e in jsonschema.Draft202012Validator(schema).iter_errors(yaml.safe_load(open(path))):\n"
      "        print(path, '/'.join(map(str, e.path)), e.message); bad += 1\n"
      "sys.exit(1 if bad else 0)\n";
  std::string examples = exampleFile("bridge-veth.yaml") + " " + exampleFile("nmstate-bond-vlan.yaml") + " " +
                         exampleFile("overridden.json");
  // A document the schema must refuse proves the check can fail.
  std::string wrong = "/tmp/fastlink-apply-schema-" + std::to_string(getpid()) + ".yaml";
  std::ofstream(wrong) << "interfaces:\n  - name: v0\n    type: vlan\n    vlan: {base-iface: e0, id: ten}\n";
  std::string pyfile = "/tmp/fastlink-apply-schema-" + std::to_string(getpid()) + ".py";
  std::ofstream(pyfile) << script;
  std::string schema = sourceDir() + "/docs/schema/state.schema.json";
  auto good = run("/usr/bin/python3 " + pyfile + " " + schema + " " + examples);
  EXPECT_EQ(good.status, 0) << good.out << good.err;
  auto bad = run("/usr/bin/python3 " + pyfile + " " + schema + " " + wrong);
  EXPECT_NE(bad.status, 0) << "the schema took vlan.id: ten";
  EXPECT_NE(bad.out.find("interfaces/0/vlan/id"), std::string::npos) << bad.out;
  std::remove(wrong.c_str());
  std::remove(pyfile.c_str());
}

}  // namespace
}  // namespace fastlink::test
