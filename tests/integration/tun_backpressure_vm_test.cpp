// tun/tap qdisc backpressure, for real (issue 25): the VM's stock tun against our patched one
// (tests/vm/tun-backpressure/: IFF_BACKPRESSURE on Debian's own tun.c), swapped with
// rmmod/insmod in one boot. A tap whose reader does not read is flooded with UDP through a qdisc;
// where the packets die is read from the kernel: /sys/class/net/TAP/statistics/tx_dropped (tun's
// ring) and `tc -s -j qdisc show` (the qdisc's drops and backlog), never from fastlink. The tap is
// created with fastlink's TunTapApi, so `setBackpressure` is what reaches the patched module.
//
// Runs only in the VM (FASTLINK_VM): it replaces a kernel module. The patched modules come from
// tests/vm/run, which builds them once per kernel (FASTLINK_TUN_BACKPRESSURE_DIR); if that build
// failed, these tests skip naming it, and tests/vm/run fails the run on that skip.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/if_tun.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <fastlink/fastlink.hpp>
#include <fastlink/tuntap.hpp>
#include <thread>

#include "backpressure_support.hpp"
#include "support/settled.hpp"
#include "support/test_netns.hpp"

namespace fastlink::test {
namespace {

constexpr uint32_t kIffBackpressure = 0x0080;
constexpr const char* kTap = "tapbp0";
constexpr int kRing = 1000;  // tun's ring holds tx_queue_len packets

uint32_t tunFeatures() {
  int fd = ::open("/dev/net/tun", O_RDWR | O_CLOEXEC);
  unsigned int features = 0;
  if (fd >= 0) {
    if (ioctl(fd, TUNGETFEATURES, &features) != 0) features = 0;
    ::close(fd);
  }
  return features;
}

/// A non-blocking UDP socket that lives in namespace `ns` (created by a thread that joined it).
int udpSocketIn(const std::string& ns) {
  int fd = -1;
  std::thread([&] {
    int nsFd = ::open(("/run/netns/" + ns).c_str(), O_RDONLY | O_CLOEXEC);
    if (nsFd < 0) return;
    if (setns(nsFd, CLONE_NEWNET) == 0) fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    // Packets a qdisc holds stay charged to the socket: with the default buffer the sender
    // itself would be stopped after a few hundred, and the runs would not offer the same load.
    int bytes = 64 << 20;
    if (fd >= 0) setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &bytes, sizeof bytes);
    ::close(nsFd);
  }).join();
  return fd;
}

/// What one flood left behind, as the kernel counts it.
struct Counts {
  long sent = 0;        ///< sendto calls the stack accepted
  long ringDrops = 0;   ///< tun's tail drops: statistics/tx_dropped
  long qdiscDrops = 0;  ///< tc -s: drops
  long qdiscQlen = 0;   ///< tc -s: packets held (backlog)
  long qdiscSent = 0;   ///< tc -s: packets handed to tun
  long read = 0;        ///< packets the reader got after the flood (drain)
  std::string qdisc;
};

std::string describe(const Counts& c) {
  return "qdisc " + c.qdisc + ": sent " + std::to_string(c.sent) + ", ring drops " + std::to_string(c.ringDrops) +
         ", qdisc drops " + std::to_string(c.qdiscDrops) + ", qdisc backlog " + std::to_string(c.qdiscQlen) +
         " packets, read " + std::to_string(c.read);
}

class VmTunBackpressure : public ::testing::Test {
 protected:
  TestNetns ns;
  std::string modules;

  void SetUp() override {
    if (!std::getenv("FASTLINK_VM")) GTEST_SKIP() << "VM only (tests/vm/run): it swaps the kernel's tun module";
    const char* dir = std::getenv("FASTLINK_TUN_BACKPRESSURE_DIR");
    if (!dir || !*dir)
      GTEST_SKIP() << "kernel lacks module 'tun-backpressure': the patched tun (tests/vm/tun-backpressure) "
                      "was not built for this kernel; tests/vm/run printed why";
    modules = dir;
    // No IPv6 on the tap: router solicitations and MLD would be packets the test did not send.
    ASSERT_EQ(ns.exec("sysctl -qw net.ipv6.conf.default.disable_ipv6=1").status, 0);
  }
  void TearDown() override {
    if (!modules.empty()) loadStockTun();  // the next tests of this boot get the kernel's own tun
  }

  /// Swaps tun (and vhost_net, which uses tun's exports) for the stock or the patched build.
  void loadTun(bool patched) {
    run("rmmod vhost_net 2>/dev/null; rmmod tun 2>/dev/null");
    if (patched) {
      auto r = run("insmod " + modules + "/tun.ko && modprobe vhost && insmod " + modules + "/vhost_net.ko");
      ASSERT_EQ(r.status, 0) << r.err;
      ASSERT_TRUE(tunFeatures() & kIffBackpressure) << "the patched tun does not advertise IFF_BACKPRESSURE";
    } else {
      loadStockTun();
      ASSERT_FALSE(tunFeatures() & kIffBackpressure) << "the stock tun advertises IFF_BACKPRESSURE";
    }
  }
  void loadStockTun() {
    run("rmmod vhost_net 2>/dev/null; rmmod tun 2>/dev/null");
    auto r = run("modprobe tun && modprobe vhost_net");
    EXPECT_EQ(r.status, 0) << r.err;
  }

  long sysCounter(const std::string& name) { return std::stol(ns.sysfs(kTap, "statistics/" + name)); }

  void readQdisc(Counts& c) {
    const auto root = rootQdiscStats(ns, kTap);
    c.qdisc = root.value("kind", "");
    c.qdiscDrops = root.value("drops", 0L);
    c.qdiscQlen = root.value("qlen", 0L);
    c.qdiscSent = root.value("packets", 0L);
  }

  /// Floods a tap whose reader is asleep with `packets` UDP datagrams through `qdisc`, reads the
  /// counters, then lets the reader drain everything and reads them again.
  Counts flood(bool backpressure, const std::string& qdisc, int packets) {
    Counts c;
    Netlink nl(NetlinkOptions{.netns = Netns::named(ns.name())});
    TunTapApi& tuntap = nl.tuntap();
    tuntap.add(TunTapInfo(kTap, TunTapMode::Tap).setBackpressure(backpressure));
    // The test's /sys is not the namespace's: say which flags to attach with.
    TunTapQueue reader = tuntap.openQueue(kTap, TunTapQueueOptions{.backpressure = backpressure});
    ns.ip(std::string("link set ") + kTap + " up");
    ns.ip(std::string("addr add 10.77.0.1/24 dev ") + kTap);
    ns.ip(std::string("neigh add 10.77.0.2 lladdr 02:00:00:00:00:02 nud permanent dev ") + kTap);
    auto tc = ns.exec(std::string("tc qdisc replace dev ") + kTap + " root " + qdisc);
    EXPECT_EQ(tc.status, 0) << tc.err;
    EXPECT_EQ(static_cast<bool>(std::stoul(ns.sysfs(kTap, "tun_flags"), nullptr, 16) & kIffBackpressure), backpressure);

    int sock = udpSocketIn(ns.name());
    EXPECT_GE(sock, 0);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(9);
    inet_pton(AF_INET, "10.77.0.2", &to.sin_addr);
    char payload[64] = {};
    for (int i = 0; i < packets; ++i) {
      ssize_t n = sendto(sock, payload, sizeof payload, 0, reinterpret_cast<sockaddr*>(&to), sizeof to);
      // ENOBUFS: the qdisc refused it (counted in its drops); the stack did take it.
      if (n == static_cast<ssize_t>(sizeof payload) || (n < 0 && errno == ENOBUFS)) ++c.sent;
    }
    ::close(sock);
    c.ringDrops = sysCounter("tx_dropped");
    readQdisc(c);

    // Drain: read until nothing has come for 300 ms and the qdisc is empty, for at most 30 s (a
    // woken queue refills the ring from the qdisc in softirq, asynchronously, and TCG can pause
    // the VM's CPUs for longer than the quiet time).
    Counts held = c;
    char frame[2048];
    auto quietSince = std::chrono::steady_clock::now();
    auto drained = [&] {
      if (::read(reader.fd(), frame, sizeof frame) > 0) {
        ++c.read;
        quietSince = std::chrono::steady_clock::now();
        return false;
      }
      if (std::chrono::steady_clock::now() - quietSince < std::chrono::milliseconds(300)) return false;
      Counts now;
      readQdisc(now);
      return now.qdiscQlen == 0;
    };
    EXPECT_TRUE(waitUntil(drained, std::chrono::seconds(30), std::chrono::milliseconds(1)))
        << "the reader was still reading, or the qdisc held packets, after 30 s";
    Counts after;
    readQdisc(after);
    c.ringDrops = sysCounter("tx_dropped");
    c.qdiscDrops = after.qdiscDrops;
    c.qdiscSent = after.qdiscSent;
    // Nothing is stuck: the qdisc is empty and a new packet still reaches the reader.
    EXPECT_EQ(after.qdiscQlen, 0) << "the qdisc kept packets after the reader drained the ring (queue stopped for good?)";
    int probe = udpSocketIn(ns.name());
    EXPECT_GT(sendto(probe, payload, sizeof payload, 0, reinterpret_cast<sockaddr*>(&to), sizeof to), 0);
    ::close(probe);
    bool probed = waitUntil([&] { return ::read(reader.fd(), frame, sizeof frame) > 0; }, std::chrono::seconds(10),
                            std::chrono::milliseconds(1));
    EXPECT_TRUE(probed) << "a packet sent after the drain never reached the reader: the queue is stuck";
    // Every accepted packet is accounted for: read, dropped at the ring, or dropped by the qdisc.
    EXPECT_EQ(c.sent, c.read + c.ringDrops + c.qdiscDrops)
        << "sent " << c.sent << " read " << c.read << " ring drops " << c.ringDrops << " qdisc drops " << c.qdiscDrops;
    // /sys agrees with the reader.
    EXPECT_EQ(sysCounter("tx_packets"), c.read + 1);
    c.qdiscQlen = held.qdiscQlen;  // report what the flood left in the qdisc
    // The drop view names where each of these drops happened (tun's ring, or the qdisc).
    expectWatchNamesTheDrops(ns, kTap, "tun ring");
    tuntap.del(kTap);
    std::printf("backpressure %s, %s\n", backpressure ? "on" : "off", describe(c).c_str());
    return c;
  }
};


TEST_F(VmTunBackpressure, StockTunLosesAtTheRingWhateverTheQdisc) {
  loadTun(false);
  Counts c = flood(false, "fq_codel", 3 * kRing);
  EXPECT_GT(c.ringDrops, 0) << describe(c);
  EXPECT_EQ(c.qdiscDrops, 0) << describe(c);
  EXPECT_EQ(c.qdiscQlen, 0) << describe(c);
}

TEST_F(VmTunBackpressure, PatchedTunWithTheFlagLetsFqCodelHoldTheBacklog) {
  loadTun(true);
  Counts c = flood(true, "fq_codel", 3 * kRing);
  EXPECT_EQ(c.sent, 3 * kRing) << describe(c);
  EXPECT_EQ(c.ringDrops, 0) << describe(c);
  EXPECT_GT(c.qdiscQlen + c.qdiscDrops, 0) << describe(c);
  EXPECT_GE(c.qdiscQlen, kRing) << "the flood did not pile up in the qdisc: " << describe(c);
}

TEST_F(VmTunBackpressure, PatchedTunWithoutTheFlagBehavesAsStock) {
  loadTun(true);
  Counts c = flood(false, "fq_codel", 3 * kRing);
  EXPECT_GT(c.ringDrops, 0) << describe(c);
  EXPECT_EQ(c.qdiscDrops, 0) << describe(c);
  EXPECT_EQ(c.qdiscQlen, 0) << describe(c);
}

TEST_F(VmTunBackpressure, PatchedTunWithNoqueueKeepsTheTailDrop) {
  // No qdisc, nowhere to hold packets: stopping the queue would only move the drops.
  loadTun(true);
  Counts c = flood(true, "noqueue", 3 * kRing);
  EXPECT_GT(c.ringDrops, 0) << describe(c);
}

TEST_F(VmTunBackpressure, TheCliCreatesAndShowsIt) {
  // On a kernel with the flag, `tuntap add ... backpressure` reaches the device and `show`
  // names it (ip 6.1 would print 0x80); the oracle is the namespace's tun_flags.
  const char* cli = std::getenv("FASTLINK_CLI");
  if (!cli || !*cli) GTEST_SKIP() << "FASTLINK_CLI is not set";
  loadTun(true);
  auto add = run(std::string(cli) + " -n " + ns.name() + " tuntap add dev " + kTap + " mode tap backpressure");
  ASSERT_EQ(add.status, 0) << add.err;
  EXPECT_EQ(ns.sysfs(kTap, "tun_flags"), "0x1882");  // IFF_TAP | IFF_NO_PI | IFF_PERSIST | IFF_BACKPRESSURE
  auto show = run(std::string(cli) + " -n " + ns.name() + " -j tuntap show");
  EXPECT_EQ(show.out, std::string("[{\"ifname\":\"") + kTap + "\",\"flags\":[\"tap\",\"persist\",\"backpressure\"]}]\n")
      << show.err;
  auto text = run(std::string(cli) + " -n " + ns.name() + " tuntap show");
  EXPECT_EQ(text.out, std::string(kTap) + ": tap persist backpressure\n") << text.err;
  ASSERT_EQ(run(std::string(cli) + " -n " + ns.name() + " tuntap del dev " + kTap).status, 0);
}

}  // namespace
}  // namespace fastlink::test
