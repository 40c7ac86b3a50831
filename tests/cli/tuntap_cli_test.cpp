// `fastlink tuntap` against `ip tuntap` (iproute2 6.1), byte for byte: ip runs inside the
// namespace (`ip netns exec` mounts its /sys, which ip tuntap reads), fastlink with `-n`.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/if_tun.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cli/cli_fixture.hpp"

namespace fastlink::test {
namespace {

class TunTapCliTest : public CliTest {
 protected:
  /// `ip ARGS` inside the namespace (stdout; ip -d prints readlink noise on stderr).
  std::string ipIn(const std::string& args) {
    auto r = ns.exec("ip " + args);
    EXPECT_EQ(r.status, 0) << args << "\n" << r.err;
    return r.out;
  }
  std::string ok(const std::string& args) {
    auto r = cli(args);
    EXPECT_EQ(r.status, 0) << args << "\n" << r.err;
    return r.out;
  }
  void makeDevices() {
    ipIn("tuntap add dev tap0 mode tap multi_queue vnet_hdr user 0");
    ipIn("tuntap add dev tun0 mode tun pi one_queue group 5");
    ipIn("tuntap add dev tun1 mode tun");
    ipIn("tuntap add dev tap9 mode tap user 65534 group 65534");
    ns.ip("link add v0 type veth peer name v1");  // not listed
  }
};

TEST_F(TunTapCliTest, ShowIsByteIdenticalToIp) {
  makeDevices();
  std::string ip = ipIn("tuntap show");
  ASSERT_NE(ip.find("tun0: tun pi one_queue persist filter group 5\n"), std::string::npos) << ip;
  EXPECT_EQ(ok("tuntap show"), ip);
  EXPECT_EQ(ok("tuntap"), ip);
  EXPECT_EQ(ok("tuntap list"), ip);
  EXPECT_EQ(ok("-j tuntap show"), ipIn("-j tuntap show"));
  // No process holds them: "Attached to processes:" with nothing after it.
  EXPECT_EQ(ok("-d tuntap show"), ipIn("-d tuntap show"));
  // Inside the namespace (ip netns exec) fastlink needs no -n: same bytes.
  auto inside = ns.exec(cliPath() + " tuntap show");
  EXPECT_EQ(inside.out, ip) << inside.err;
}

TEST_F(TunTapCliTest, ShowDevFiltersAndAnEmptyNamespacePrintsNothing) {
  EXPECT_EQ(ok("tuntap show"), "");
  EXPECT_EQ(ok("-j tuntap show"), "[]\n");
  makeDevices();
  EXPECT_EQ(ok("tuntap show dev tun1"), "tun1: tun persist\n");
  EXPECT_EQ(ok("tuntap show dev v0"), "");
}

TEST_F(TunTapCliTest, AddedDevicesAreWhatIpSees) {
  ok("tuntap add dev tap0 mode tap multi_queue vnet_hdr user 0");
  ok("tuntap add tun3 mode tun pi one_queue group root");
  ok("tuntap add mode tap user root");  // the kernel names it tap1
  std::string ip = ipIn("tuntap show");
  EXPECT_NE(ip.find("tap0: tap multi_queue vnet_hdr persist user 0\n"), std::string::npos) << ip;
  EXPECT_NE(ip.find("tun3: tun pi one_queue persist filter group 0\n"), std::string::npos) << ip;
  EXPECT_NE(ip.find("tap1: tap persist user 0\n"), std::string::npos) << ip;
  EXPECT_EQ(ok("tuntap show"), ip);
  auto d = ipLink("tap0")["linkinfo"]["info_data"];
  EXPECT_EQ(d["multi_queue"], true);
  EXPECT_EQ(d["vnet_hdr"], true);
  // The `tun` link info through `link show -d`, as ip prints it.
  auto mine = nlohmann::json::parse(ok("-d -j link show dev tap0"));
  EXPECT_EQ(mine[0]["linkinfo"], ipLink("tap0")["linkinfo"]);
}

TEST_F(TunTapCliTest, DelRemovesOnlyTunTapDevices) {
  makeDevices();
  ok("tuntap del dev tun1 mode tun");
  ok("tuntap del tap9");
  EXPECT_FALSE(ipHas("tun1"));
  EXPECT_FALSE(ipHas("tap9"));
  EXPECT_TRUE(ipHas("tap0"));
}

TEST_F(TunTapCliTest, BadInputExitsWithAClearErrorAndChangesNothing) {
  makeDevices();
  std::string before = snapshot();
  struct Case {
    std::string args;
    int status;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {"tuntap add dev tap0 mode tap", 1, "Error: device \"tap0\" already exists (tuntap add dev tap0 mode tap)"},
           {"tuntap add dev v0 mode tun", 1, "already exists"},
           {"tuntap add dev tapx mode foo", 255, "Error: tuntap: unknown mode \"foo\" (mode tun or mode tap)"},
           {"tuntap add dev tapx", 255, "a mode is needed"},
           {"tuntap add dev tapx mode tap mode tun", 255, "more than one mode"},
           {"tuntap add dev tapx mode tap user no-such-user-fastlink", 255, "user \"no-such-user-fastlink\" does not exist"},
           {"tuntap add dev tapx mode tap group no-such-group-fastlink", 255, "group \"no-such-group-fastlink\" does not exist"},
           {"tuntap add dev abcdefghijklmnopq mode tap", 255, "longer than 15 bytes"},
           {"tuntap add dev tapx name tapy mode tap", 255, "named twice"},
           {"tuntap del dev v0", 1, "\"v0\" is not a tun/tap device (type veth)"},
           {"tuntap del dev tap0 mode tun", 1, "\"tap0\" is a tap device, not tun"},
           {"tuntap del dev nothere", 1, "Cannot find device \"nothere\""},
           {"tuntap del", 255, "which device?"},
           {"tuntap del dev tap0 user 0", 255, "unknown keyword"},
           {"tuntap bogus", 255, "command \"bogus\" is unknown"},
       }) {
    auto r = cli(c.args);
    EXPECT_EQ(r.status, c.status) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_EQ(r.out, "") << c.args;
  }
  EXPECT_EQ(snapshot(), before);
  EXPECT_EQ(ns.sysfs("tap0", "tun_flags"), "0x5902");
}

TEST_F(TunTapCliTest, BackpressureOnAKernelWithoutItIsAClearErrorAndCreatesNothing) {
  // TUNGETFEATURES, asked without fastlink: kernels before the 7.3 cycle lack IFF_BACKPRESSURE.
  const bool supported = [] {
    int fd = ::open("/dev/net/tun", O_RDWR | O_CLOEXEC);
    unsigned int features = 0;
    if (fd >= 0) {
      ioctl(fd, TUNGETFEATURES, &features);
      ::close(fd);
    }
    return (features & 0x0080) != 0;
  }();
  std::string before = snapshot();
  auto r = cli("tuntap add dev tapb mode tap backpressure");
  if (supported) {
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(ok("-j tuntap show dev tapb"), "[{\"ifname\":\"tapb\",\"flags\":[\"tap\",\"persist\",\"backpressure\"]}]\n");
    EXPECT_EQ(ns.sysfs("tapb", "tun_flags"), "0x1882");
    return;
  }
  utsname u{};
  ASSERT_EQ(uname(&u), 0);
  EXPECT_EQ(r.status, 1) << r.err;  // a refused tun ioctl: 1, as ip tuntap
  EXPECT_EQ(r.err.rfind(std::string("Error: kernel ") + u.release +
                            " has no tun qdisc backpressure (IFF_BACKPRESSURE is not in its TUNGETFEATURES 0x",
                        0),
            0u)
      << r.err;
  EXPECT_NE(r.err.find("); nothing was created (tuntap add dev tapb mode tap backpressure)\n"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(snapshot(), before);
  EXPECT_EQ(ipIn("-j tuntap show"), "[]\n");
  EXPECT_FALSE(ipHas("tapb"));
  // `del` takes no flags: backpressure there is a bad word.
  auto d = cli("tuntap del dev tapb backpressure");
  EXPECT_EQ(d.status, 255);
  EXPECT_NE(d.err.find("unknown keyword"), std::string::npos) << d.err;
}

TEST_F(TunTapCliTest, BatchDeletesButRefusesAddBeforeSendingAnything) {
  makeDevices();
  // tuntap add is an ioctl, not a netlink request: the whole file is refused in the first pass,
  // so the del line before it is not applied either.
  std::string before = snapshot();
  auto r = batch("tuntap del dev tun1\ntuntap add dev tap5 mode tap\n");
  EXPECT_EQ(r.status, 255) << r.err;
  EXPECT_NE(r.err.find("tuntap add cannot be a batch line"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("line 2"), std::string::npos) << r.err;
  EXPECT_EQ(snapshot(), before);
  // del lines are RTM_DELLINK by name, pipelined like link del.
  r = batch("tuntap del dev tun1\ntuntap delete tap9 mode tap\nlink del v0\n");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(ipHas("tun1"));
  EXPECT_FALSE(ipHas("tap9"));
  EXPECT_FALSE(ipHas("v0"));
  EXPECT_EQ(ok("tuntap show"), "tap0: tap multi_queue vnet_hdr persist user 0\ntun0: tun pi one_queue persist filter group 5\n");
  r = batch("tuntap del dev nothere\n");
  EXPECT_EQ(r.status, 1);  // ip -batch: 1 when a line failed
  EXPECT_NE(r.err.find("Cannot find device \"nothere\" (line 1: tuntap del dev nothere)"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace fastlink::test
