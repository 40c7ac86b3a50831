// Permissions (issue 14): the library without CAP_NET_ADMIN. A forked child opens its Netlink in
// the test namespace as root, then becomes nobody (setresuid drops every capability; the kernel
// checks the sender's capabilities on each request). Every write of every object must throw
// fastlink::Error with EPERM whose message says "Operation not permitted" and names the request;
// every list must work. The parent checks with `ip -j` that nothing changed.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "fastlink/fastlink.hpp"
#include "support/test_netns.hpp"

namespace fastlink::test {
namespace {

using Step = std::pair<std::string, std::function<void(Netlink&)>>;

// Runs in the child: returns how many checks failed (each reported on stderr).
int checkUnprivileged(Netlink& nl, const std::vector<Step>& writes, const std::vector<Step>& reads) {
  int failures = 0;
  for (const auto& [name, write] : writes) {
    try {
      write(nl);
      std::fprintf(stderr, "%s: succeeded without CAP_NET_ADMIN\n", name.c_str());
      ++failures;
    } catch (const Error& e) {
      std::string what = e.what();
      if (e.code().value() != EPERM || what.find("Operation not permitted") == std::string::npos ||
          what.find(name) == std::string::npos) {
        std::fprintf(stderr, "%s: expected EPERM naming the request, got: %s\n", name.c_str(), what.c_str());
        ++failures;
      }
    }
  }
  for (const auto& [name, read] : reads) {
    try {
      read(nl);
    } catch (const Error& e) {
      std::fprintf(stderr, "%s: failed unprivileged: %s\n", name.c_str(), e.what());
      ++failures;
    }
  }
  return failures;
}

std::string state(const TestNetns& ns) {
  std::string s;
  for (const char* what : {"-d link show", "addr show", "route show table all", "neigh show", "rule show", "nexthop show"})
    s += run("ip -n " + ns.name() + " -j " + what).out;
  return s + run("bridge -n " + ns.name() + " -j fdb show").out;
}

TEST(Permission, LibraryWritesFailWithEpermReadsWork) {
  TestNetns ns;
  // No IPv6: its addresses leave "tentative" (DAD) on their own time, which a slow kernel (the
  // VM) shows as a change between the two snapshots.
  ns.exec("sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1");
  ns.ip("link add v0 type veth peer name v1");
  ns.ip("link add br0 type bridge");
  ns.ip("link set v1 master br0");
  ns.ip("link set v0 up");
  ns.ip("link set v1 up");
  ns.ip("addr add 10.0.0.1/24 dev v0");
  ns.ip("route add 10.9.0.0/16 via 10.0.0.2");
  ns.ip("neigh add 10.0.0.2 lladdr 02:00:00:00:00:02 dev v0 nud permanent");
  ns.ip("rule add from 10.9.0.0/16 table 100 priority 500");
  ns.ip("nexthop add id 7 via 10.0.0.2 dev v0");
  std::string before = state(ns);

  const MacAddress mac = MacAddress::parse("02:00:00:00:00:0a");
  std::vector<Step> writes = {
      {"link add", [](Netlink& nl) { nl.links().add(LinkInfo("x0", "bridge")); }},
      {"link set", [](Netlink& nl) { nl.links().set(Ifref("v0"), LinkInfo().setMtu(1400)); }},
      {"link del", [](Netlink& nl) { nl.links().del(Ifref("v0")); }},
      {"address add", [](Netlink& nl) { nl.addresses().add(AddrInfo().setDev(Ifref("v0")).setAddress(Prefix::parse("10.0.5.1/24"))); }},
      {"address del", [](Netlink& nl) { nl.addresses().del(AddrInfo().setDev(Ifref("v0")).setAddress(Prefix::parse("10.0.0.1/24"))); }},
      {"route add", [](Netlink& nl) { nl.routes().add(RouteInfo(Prefix::parse("10.8.0.0/16")).setDev(Ifref("v0"))); }},
      {"route del", [](Netlink& nl) { nl.routes().del(RouteInfo(Prefix::parse("10.9.0.0/16"))); }},
      {"neigh add", [](Netlink& nl) { nl.neighbours().add(NeighInfo(IpAddress::parse("10.0.0.3"), "v0").setLladdr(MacAddress::parse("02:00:00:00:00:03"))); }},
      {"neigh del", [](Netlink& nl) { nl.neighbours().del(NeighInfo(IpAddress::parse("10.0.0.2"), "v0")); }},
      {"rule add", [](Netlink& nl) { nl.rules().add(RuleInfo().setSrc(Prefix::parse("10.8.0.0/16")).setTable(100)); }},
      {"rule del", [](Netlink& nl) { nl.rules().del(RuleInfo().setPriority(500).setSrc(Prefix::parse("10.9.0.0/16")).setTable(100)); }},
      {"nexthop add", [](Netlink& nl) { nl.nexthops().add(NexthopInfo().setId(8).setBlackhole()); }},
      {"nexthop del", [](Netlink& nl) { nl.nexthops().del(7); }},
      {"fdb add", [mac](Netlink& nl) { nl.fdb().add(FdbInfo(mac, "v1").setMaster(true)); }},
      {"fdb del", [mac](Netlink& nl) { nl.fdb().del(FdbInfo(mac, "v1").setMaster(true)); }},
      {"vlan add", [](Netlink& nl) { nl.bridgeVlans().add(BridgeVlanInfo("v1", 10)); }},
      {"vlan del", [](Netlink& nl) { nl.bridgeVlans().del(BridgeVlanInfo("v1", 1)); }},
  };
  std::vector<Step> reads = {
      {"link list", [](Netlink& nl) { if (nl.links().list().size() < 4) throw Error::invalidArgument("link list", "too few links"); }},
      {"address list", [](Netlink& nl) { (void)nl.addresses().list(); }},
      {"route list", [](Netlink& nl) { (void)nl.routes().list(); }},
      {"neigh list", [](Netlink& nl) { (void)nl.neighbours().list(); }},
      {"fdb list", [](Netlink& nl) { (void)nl.fdb().list(); }},
      {"bridge vlan list", [](Netlink& nl) { (void)nl.bridgeVlans().list(); }},
      {"rule list", [](Netlink& nl) { (void)nl.rules().list(); }},
      {"nexthop list", [](Netlink& nl) { (void)nl.nexthops().list(); }},
  };

  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    int failures = 0;
    try {
      Netlink nl(NetlinkOptions{.netns = Netns::named(ns.name())});
      (void)nl.links().list();  // the rtnetlink socket is opened (in the namespace) on first use
      if (setresgid(65534, 65534, 65534) != 0 || setresuid(65534, 65534, 65534) != 0) _exit(100);
      failures = checkUnprivileged(nl, writes, reads);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "child: %s\n", e.what());
      _exit(101);
    }
    _exit(failures > 99 ? 99 : failures);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "child killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "failed checks (see stderr above)";
  EXPECT_EQ(before, state(ns));
  run("ip -n " + ns.name() + " link del br0");
}

}  // namespace
}  // namespace fastlink::test
