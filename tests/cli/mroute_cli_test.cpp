// `mroute` against ip (iproute2 6.1) in one namespace: multicast forwarding cache entries put in
// by a stand-in multicast routing daemon (a Python process holding the IPv4 mroute socket:
// MRT_INIT, three VIFs, two (S,G) entries with TTL thresholds; a packet sent to a third group
// makes an unresolved entry), listed as ip lists them (text, -o, -s, -j, -j -p, table and iif
// selectors, `table all`, -d); ip's exit statuses for its failures. The daemon is stopped by the
// test that started it (a stop file, then its pid).
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>

#include "cli/cli_fixture.hpp"

namespace fastlink::test {
namespace {

/// `Age 1.18` and `"expires":1.18` as read a moment apart: the value is dropped.
std::string withoutAges(const std::string& text) {
  static const std::regex textAge(", Age [0-9]+\\.[0-9]{2}"), jsonAge("\"expires\": ?[0-9.e+-]+");
  return std::regex_replace(std::regex_replace(text, textAge, ", Age N"), jsonAge, "\"expires\":N");
}

class MrouteCliTest : public CliTest {
 protected:
  void SetUp() override {
    for (int p : {0, 2, 4}) {
      ns.ip("link add v" + std::to_string(p) + " type veth peer name v" + std::to_string(p + 1));
      ns.ip("link set v" + std::to_string(p) + " up");
      ns.ip("link set v" + std::to_string(p + 1) + " up");
    }
    ns.ip("addr add 10.0.0.254/24 dev v0");
    base_ = "/tmp/fastlink-mroute-" + std::to_string(getpid()) + "-" + ns.name();
    std::ofstream(base_ + ".py") << R"(import os, socket, struct, sys, time
base = sys.argv[1]
MRT_INIT, MRT_ADD_VIF, MRT_ADD_MFC = 200, 202, 204
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_IGMP)
s.setsockopt(socket.IPPROTO_IP, MRT_INIT, 1)
for n, dev in enumerate(("v0", "v2", "v4")):
    # struct vifctl: vifi, flags (VIFF_USE_IFINDEX), threshold, rate_limit, lcl_ifindex, rmt_addr
    s.setsockopt(socket.IPPROTO_IP, MRT_ADD_VIF, struct.pack("<HBBIiI", n, 8, 1, 0, socket.if_nametoindex(dev), 0))
def mfc(src, grp, parent, ttls):
    # struct mfcctl: origin, mcastgrp, parent, ttls[32], pad, pkt_cnt, byte_cnt, wrong_if, expire
    s.setsockopt(socket.IPPROTO_IP, MRT_ADD_MFC, socket.inet_aton(src) + socket.inet_aton(grp) + struct.pack("<H", parent)
                 + bytes(ttls + [0] * (32 - len(ttls))) + b"\0\0" + struct.pack("<IIIi", 0, 0, 0, 0))
mfc("10.0.0.1", "239.1.1.1", 0, [0, 1, 3])
mfc("10.0.0.2", "239.1.1.2", 1, [1, 0, 0])
open(base + ".pid", "w").write(str(os.getpid()))
open(base + ".ready", "w").close()
for _ in range(1200):
    if os.path.exists(base + ".stop"):
        break
    time.sleep(0.05)
)";
    auto r = ns.exec("python3 " + base_ + ".py " + base_ + " >/dev/null 2>&1 &");
    ASSERT_EQ(r.status, 0) << r.err;
    for (int i = 0; i < 200 && !std::filesystem::exists(base_ + ".ready"); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_TRUE(std::filesystem::exists(base_ + ".ready")) << "the stand-in daemon did not start";
    // A packet to a group without an entry: the kernel queues it as an unresolved entry.
    ns.exec("ping -c1 -W1 -I v0 239.1.1.9 >/dev/null 2>&1");
    std::string all = ns.exec("ip mroute show").out;
    for (const char* line : {"(10.0.0.1,239.1.1.1)             Iif: v0         Oifs: v2 v4(ttl 3)  State: resolved\n",
                             "Iif: unresolved  State: unresolved"})
      ASSERT_NE(all.find(line), std::string::npos) << line << " in\n" << all;
  }
  void TearDown() override {
    std::ofstream(base_ + ".stop").close();
    std::ifstream pidFile(base_ + ".pid");
    pid_t pid = 0;
    if (pidFile >> pid && pid > 0) {
      for (int i = 0; i < 40 && ::kill(pid, 0) == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
      if (::kill(pid, 0) == 0) ::kill(pid, SIGKILL);
    }
    for (const char* ext : {".py", ".pid", ".ready", ".stop"}) std::remove((base_ + ext).c_str());
  }

  std::string base_;
};

TEST_F(MrouteCliTest, ShowPrintsWhatIpPrints) {
  for (const char* line : {"mroute", "mroute show", "mroute list", "mr s", "mroute lst", "-4 mroute show", "-o mroute",
                           "-s mroute show", "-s -o mroute", "-j mroute show", "-j -p mroute", "-s -j mroute",
                           "mroute show table all", "-d mroute show table all", "mroute show table default",
                           "mroute show iif v2", "mroute show iif v0 table all", "-j mroute show table 253",
                           "-6 mroute show", "-0 mroute show"}) {
    auto mine = cli(line);
    auto theirs = ns.exec(std::string("ip ") + line);
    ASSERT_EQ(theirs.status, 0) << line << ": " << theirs.err;
    EXPECT_EQ(mine.status, 0) << line << ": " << mine.err;
    EXPECT_EQ(withoutAges(mine.out), withoutAges(theirs.out)) << line;
  }
}

TEST_F(MrouteCliTest, PrefixSelectorsWorkWhereIp61RefusesThem) {
  // ip 6.1 parses these with the multicast family and refuses every one ("??? prefix is expected").
  EXPECT_EQ(ns.exec("ip mroute show 239.1.1.1").status, 1);
  auto r = cli("mroute show 239.1.1.1");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "(10.0.0.1,239.1.1.1)             Iif: v0         Oifs: v2 v4(ttl 3)  State: resolved\n");
  r = cli("mroute show to 239.1.1.0/24 from 10.0.0.2");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "(10.0.0.2,239.1.1.2)             Iif: v2         Oifs: v0  State: resolved\n");
  EXPECT_EQ(cli("mroute show 2001:db8::/32").status, 1);  // the other family, as ip refuses it
}

TEST_F(MrouteCliTest, FailuresExitAsIps) {
  for (const char* line : {"mroute show table 5", "mroute show iif nosuch", "mroute show table nosuchtable",
                           "mroute show table", "mroute frob", "mroute help", "mroute show help"}) {
    auto mine = cli(line);
    auto theirs = ns.exec(std::string("ip ") + line);
    EXPECT_EQ(mine.status, theirs.status) << line << "\nfastlink: " << mine.err << "\nip: " << theirs.err;
    EXPECT_EQ(mine.out, theirs.out) << line;
    EXPECT_NE(mine.status, 0) << line;
  }
  EXPECT_EQ(cli("mroute show table 5").err, "Error: ipv4: MR table does not exist (mroute show)\n");
}

}  // namespace
}  // namespace fastlink::test
