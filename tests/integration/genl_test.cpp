// Generic netlink family lookup against the real kernel, with iproute2's `genl ctrl` as the
// oracle. Families are global, but every socket here is opened inside the test's namespace.
#include <gtest/gtest.h>

#include <fastlink/fastlink.hpp>
#include <fastlink/genl.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <map>

#include "support/genl_oracle.hpp"
#include "support/test_netns.hpp"

namespace fastlink::test {
namespace {

class GenlTest : public ::testing::Test {
 protected:
  TestNetns ns;
  Netlink nl{NetlinkOptions{.netns = Netns::named(ns.name())}};

  /// iproute2's genl is on the host; the VM's initramfs may lack it (tests/vm/build-initramfs).
  bool haveGenl() const { return ns.exec("command -v genl").status == 0; }

  std::vector<OracleFamily> oracle(const std::string& args) const {
    CommandResult r = ns.exec("genl " + args);
    if (r.status != 0) throw std::runtime_error("genl " + args + ": " + r.err);
    return parseGenlCtrl(r.out);
  }

  static void expectSame(const GenlFamilyInfo& mine, const OracleFamily& theirs) {
    SCOPED_TRACE(theirs.name);
    EXPECT_EQ(mine.name, theirs.name);
    EXPECT_EQ(mine.id, theirs.id);
    EXPECT_EQ(mine.version, theirs.version);
    EXPECT_EQ(mine.headerSize, theirs.headerSize);
    EXPECT_EQ(mine.maxAttr, theirs.maxAttr);
    ASSERT_EQ(mine.ops.size(), theirs.ops.size());
    for (std::size_t i = 0; i < mine.ops.size(); ++i) {
      EXPECT_EQ(mine.ops[i].id, theirs.ops[i].id) << "command #" << i + 1;
      if (theirs.ops[i].flags) {
        EXPECT_EQ(mine.ops[i].flags, *theirs.ops[i].flags) << "command #" << i + 1;
      }
    }
    ASSERT_EQ(mine.groups.size(), theirs.groups.size());
    for (std::size_t i = 0; i < mine.groups.size(); ++i) {
      EXPECT_EQ(mine.groups[i].name, theirs.groups[i].name);
      EXPECT_EQ(mine.groups[i].id, theirs.groups[i].id);
    }
  }

  /// The fd of this process's generic netlink socket (the Netlink's), found by asking every
  /// open socket its protocol, or -1.
  static int genericSocketFd() {
    int found = -1;
    DIR* d = opendir("/proc/self/fd");
    if (!d) return -1;
    while (dirent* e = readdir(d)) {
      int fd = std::atoi(e->d_name);
      if (e->d_name[0] == '.' || fd == dirfd(d)) continue;
      sockaddr_storage addr{};
      socklen_t len = sizeof addr;
      int protocol = 0;
      socklen_t plen = sizeof protocol;
      if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0 || addr.ss_family != AF_NETLINK) continue;
      if (getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &protocol, &plen) != 0 || protocol != NETLINK_GENERIC) continue;
      found = found == -1 ? fd : -2;  // more than one: ambiguous
    }
    closedir(d);
    return found;
  }
};

#define FASTLINK_REQUIRE_GENL() \
  do {                         \
    if (!haveGenl()) GTEST_SKIP() << "iproute2's genl (the oracle) is not installed here"; \
  } while (0)

TEST_F(GenlTest, ListMatchesGenlCtrlListForEveryFamily) {
  FASTLINK_REQUIRE_GENL();
  std::vector<GenlFamilyInfo> mine = nl.families().list();
  std::vector<OracleFamily> theirs = oracle("ctrl list");
  ASSERT_GE(theirs.size(), 3u);  // nlctrl, ethtool, netdev at least (docs/FACTS)
  ASSERT_EQ(mine.size(), theirs.size());
  std::map<std::string, const GenlFamilyInfo*> byName;
  for (const auto& f : mine) byName[f.name] = &f;
  for (const auto& t : theirs) {
    ASSERT_TRUE(byName.count(t.name)) << t.name << " missing";
    expectSame(*byName[t.name], t);
  }
  // genl shows capabilities for version >= 2 families only; nlctrl is one, so flags were compared.
  auto nlctrl = std::find_if(theirs.begin(), theirs.end(), [](const OracleFamily& f) { return f.name == "nlctrl"; });
  ASSERT_NE(nlctrl, theirs.end());
  ASSERT_FALSE(nlctrl->ops.empty());
  EXPECT_TRUE(nlctrl->ops[0].flags.has_value());
}

TEST_F(GenlTest, GetNlctrlAndEthtoolMatchGenlCtrlGet) {
  FASTLINK_REQUIRE_GENL();
  // netdev is newer than the VM's kernel (6.2+): compared where the oracle lists it.
  std::vector<OracleFamily> all = oracle("ctrl list");
  for (std::string name : {"nlctrl", "ethtool", "netdev"}) {
    if (name == "netdev" && std::none_of(all.begin(), all.end(), [](const OracleFamily& f) { return f.name == "netdev"; }))
      continue;
    const GenlFamilyInfo& mine = nl.families().get(name);
    std::vector<OracleFamily> theirs = oracle("ctrl get name " + name);
    ASSERT_EQ(theirs.size(), 1u) << name;
    expectSame(mine, theirs[0]);
  }
  const GenlFamilyInfo& nlctrl = nl.families().get("nlctrl");
  EXPECT_EQ(nlctrl.id, 0x10);  // GENL_ID_CTRL is fixed
  ASSERT_NE(nlctrl.group("notify"), nullptr);
  const GenlFamilyInfo& ethtool = nl.families().get("ethtool");
  ASSERT_NE(ethtool.group("monitor"), nullptr);  // ETHTOOL_MCGRP_MONITOR_NAME
  EXPECT_NE(ethtool.op(1), nullptr);             // ETHTOOL_MSG_STRSET_GET
}

TEST_F(GenlTest, UnknownFamilyIsEnoentWithAClearMessage) {
  // The oracle agrees that it does not exist.
  if (haveGenl()) {
    EXPECT_NE(ns.exec("genl ctrl get name fastlink_nope").status, 0);
  }
  try {
    nl.families().get("fastlink_nope");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::no_such_file_or_directory);
    EXPECT_EQ(e.reason(), "generic netlink family \"fastlink_nope\" not found: is the module loaded?");
    EXPECT_EQ(e.operation(), "genl ctrl get name fastlink_nope");
  }
  EXPECT_EQ(nl.families().find("fastlink_nope"), nullptr);
  // A missing family is not cached: asking again asks the kernel again (its module may load).
  uint64_t before = nl.families().counters().requestsSent;
  EXPECT_EQ(nl.families().find("fastlink_nope"), nullptr);
  EXPECT_EQ(nl.families().counters().requestsSent, before + 1);
  // wireguard is not on this host (docs: FACTS.md); in the VM it is, so only check the shape.
  if (const GenlFamilyInfo* wg = nl.families().find("wireguard")) {
    EXPECT_EQ(wg->name, "wireguard");
  }
}

TEST_F(GenlTest, WireGuardFamilyHasNoNotificationGroup) {
  // Why `fastlink monitor` has no WireGuard events (docs/cli/monitor.md): the kernel's family
  // has no multicast group to join. Should a kernel add one, this fails and says so.
  const GenlFamilyInfo* wg = nl.families().find("wireguard");
  if (!wg) {
    if (std::getenv("FASTLINK_REQUIRE_KINDS")) FAIL() << "the VM kernel lacks the wireguard module";
    GTEST_SKIP() << "kernel lacks module 'wireguard': runs in the VM (tests/vm)";
  }
  EXPECT_TRUE(wg->groups.empty()) << wg->groups.size() << " groups, the first: " << wg->groups[0].name;
  if (haveGenl()) {
    EXPECT_EQ(ns.exec("genl ctrl get name wireguard").out.find("multicast groups"), std::string::npos);
  }
}

TEST_F(GenlTest, SecondGetSendsNothing) {
  GenlApi& families = nl.families();
  uint64_t before = families.counters().requestsSent;
  const GenlFamilyInfo& first = families.get("nlctrl");
  EXPECT_EQ(families.counters().requestsSent, before + 1);
  const GenlFamilyInfo& second = families.get("nlctrl");
  EXPECT_EQ(&first, &second);
  EXPECT_EQ(families.counters().requestsSent, before + 1);

  // Independent of fastlink's own counters: replace the socket with /dev/null. A cached lookup
  // still answers; one that would have to ask the kernel now fails, so the check can fail.
  int fd = genericSocketFd();
  ASSERT_GE(fd, 0) << "no unique generic netlink socket in /proc/self/fd";
  int null = open("/dev/null", O_RDWR | O_CLOEXEC);
  ASSERT_GE(null, 0);
  ASSERT_EQ(dup2(null, fd), fd);
  close(null);
  EXPECT_EQ(families.get("nlctrl").id, 0x10);
  EXPECT_THROW(families.get("ethtool"), Error);
}

TEST_F(GenlTest, ListFillsTheCacheAndRefreshAsksAgain) {
  GenlApi& families = nl.families();
  families.list();
  uint64_t before = families.counters().requestsSent;
  EXPECT_EQ(families.get("ethtool").name, "ethtool");
  EXPECT_EQ(families.get("nlctrl").name, "nlctrl");  // netdev is newer than the VM's 6.1
  EXPECT_EQ(families.counters().requestsSent, before);
  const GenlFamilyInfo& cached = families.get("ethtool");
  const GenlFamilyInfo& fresh = families.refresh("ethtool");
  EXPECT_EQ(&cached, &fresh);  // updated in place
  EXPECT_EQ(families.counters().requestsSent, before + 1);
}

}  // namespace
}  // namespace fastlink::test
