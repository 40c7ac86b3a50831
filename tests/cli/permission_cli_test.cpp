// Permissions (issue 14): the CLI without CAP_NET_ADMIN. Each command runs in the test namespace
// as nobody (`ip netns exec NS setpriv --reuid=65534 ...`: root enters the namespace, then every
// capability is dropped). Every write verb of every object fails with exit 1 and a message that
// says "Operation not permitted" and names the request; `ip -j` sees nothing changed. Every show
// works unprivileged.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/cli_fixture.hpp"

namespace fastlink::test {
namespace {

class PermissionCli : public CliTest {
 protected:
  void SetUp() override {
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
    run("bridge -n " + ns.name() + " fdb add 02:00:00:00:00:09 dev v1 master static");
  }
  void TearDown() override { run("ip -n " + ns.name() + " link del br0"); }

  CommandResult unprivileged(const std::string& args) const {
    return run("ip netns exec " + ns.name() + " setpriv --reuid=65534 --regid=65534 --clear-groups " + cliPath() +
               " " + args);
  }
  std::string state() const {
    std::string s;
    for (const char* what : {"-d link show", "addr show", "route show table all", "neigh show", "rule show",
                             "nexthop show"})
      s += run("ip -n " + ns.name() + " -j " + what).out;
    return s + run("bridge -n " + ns.name() + " -j fdb show").out;
  }
};

TEST_F(PermissionCli, EveryWriteFailsWithEpermAndChangesNothing) {
  const std::vector<std::string> writes = {
      "link add x0 type veth peer name x1", "link set v0 mtu 1400", "link set v0 down", "link del v0",
      "link set v0 master br0",
      "address add 10.0.5.1/24 dev v0", "address del 10.0.0.1/24 dev v0", "address replace 10.0.0.1/24 dev v0",
      "route add 10.8.0.0/16 via 10.0.0.2", "route del 10.9.0.0/16", "route replace 10.9.0.0/16 via 10.0.0.3",
      "neigh add 10.0.0.3 lladdr 02:00:00:00:00:03 dev v0", "neigh del 10.0.0.2 dev v0",
      "neigh replace 10.0.0.2 lladdr 02:00:00:00:00:04 dev v0",
      "fdb add 02:00:00:00:00:0a dev v1 master", "fdb del 02:00:00:00:00:09 dev v1 master",
      "rule add from 10.8.0.0/16 table 100", "rule del from 10.9.0.0/16 table 100 priority 500",
      "nexthop add id 8 via 10.0.0.2 dev v0", "nexthop del id 7",
      "vlan add dev v1 vid 10", "vlan del dev v1 vid 1"};
  std::string before = state();
  for (const auto& w : writes) {
    auto r = unprivileged(w);
    EXPECT_EQ(r.status, 2) << w << "\n" << r.err;
    EXPECT_NE(r.err.find("Operation not permitted"), std::string::npos) << w << "\n" << r.err;
    // The message names the request: its object and verb as typed.
    std::string head = w.substr(0, w.find(' ', w.find(' ') + 1));
    EXPECT_NE(r.err.find(head), std::string::npos) << w << "\n" << r.err;
  }
  EXPECT_EQ(before, state());
}

TEST_F(PermissionCli, ABatchFailsAtItsFirstLineAndChangesNothing) {
  std::string before = state();
  std::string path = "/tmp/fastlink-perm-batch-" + ns.name();
  run("printf 'link set v0 mtu 1400\\nroute add 10.8.0.0/16 via 10.0.0.2\\n' > " + path + "; chmod 644 " + path);
  auto r = unprivileged("-batch " + path);
  std::remove(path.c_str());
  EXPECT_EQ(r.status, 1) << r.err;  // ip -batch: 1 when a line failed
  EXPECT_NE(r.err.find("Operation not permitted (line 1: link set v0 mtu 1400)"), std::string::npos) << r.err;
  EXPECT_EQ(before, state());
}

TEST_F(PermissionCli, EveryShowWorksUnprivileged) {
  for (const char* show : {"link show", "-j link show", "address show", "route show", "route show table all",
                           "neigh show", "fdb show", "rule show", "nexthop show", "vlan show"}) {
    auto r = unprivileged(show);
    EXPECT_EQ(r.status, 0) << show << "\n" << r.err;
    // The host's bridge has no VLAN filtering (FACTS.md): `vlan show` may print nothing.
    if (std::string(show) != "vlan show") {
      EXPECT_FALSE(r.out.empty()) << show;
    }
  }
  auto r = unprivileged("-j route show");
  EXPECT_NE(r.out.find("10.9.0.0/16"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace fastlink::test
