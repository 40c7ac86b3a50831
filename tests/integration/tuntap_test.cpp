// TUN/TAP devices (TunTapApi) against iproute2 and sysfs: `ip -j tuntap show` (run inside the
// namespace, where `ip netns exec` mounts its /sys), `ip -d -j link show` (the `tun` link info)
// and /sys/class/net/NAME/tun_flags. One fresh namespace per test.
#include <fcntl.h>
#include <linux/if_tun.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fastlink/tuntap.hpp>

#include "integration/link_fixture.hpp"

namespace fastlink::test {
namespace {

class TunTapTest : public LinkTest {
 protected:
  TunTapApi& tuntap{nl.tuntap()};

  /// `ip -j tuntap show` inside the namespace, by device name.
  std::map<std::string, nlohmann::json> ipTuntap() {
    auto r = ns.exec("ip -j tuntap show");
    EXPECT_EQ(r.status, 0) << r.err;
    std::map<std::string, nlohmann::json> out;
    for (const auto& d : nlohmann::json::parse(r.out.empty() ? "[]" : r.out)) out[d["ifname"]] = d;
    return out;
  }
  nlohmann::json tunData(const std::string& name) { return ipLink(name)["linkinfo"]["info_data"]; }
  uint32_t tunFlags(const std::string& name) { return static_cast<uint32_t>(std::stoul(ns.sysfs(name, "tun_flags"), nullptr, 16)); }
  std::string snapshot() { return ns.ip("-d -j link show"); }
};

TEST_F(TunTapTest, AddTapIsWhatIpAndSysfsSee) {
  std::string name = tuntap.add(TunTapInfo("tap0", TunTapMode::Tap).setMultiQueue(true).setVnetHdr(true).setOwner(1000u).setGroup(100u));
  EXPECT_EQ(name, "tap0");
  auto ip = ipTuntap();
  ASSERT_TRUE(ip.count("tap0")) << ns.exec("ip tuntap show").out;
  EXPECT_EQ(ip["tap0"]["flags"], nlohmann::json({"tap", "multi_queue", "vnet_hdr", "persist"}));
  EXPECT_EQ(ip["tap0"]["user"], 1000);
  EXPECT_EQ(ip["tap0"]["group"], 100);
  EXPECT_EQ(tunFlags("tap0"), uint32_t{IFF_TAP | IFF_NO_PI | IFF_MULTI_QUEUE | IFF_VNET_HDR | IFF_PERSIST});
  auto d = tunData("tap0");
  EXPECT_EQ(d["type"], "tap");
  EXPECT_EQ(d["pi"], false);
  EXPECT_EQ(d["numqueues"], 0);
  // Created in the Netlink's namespace, not in the one the test runs in.
  EXPECT_NE(run("ip link show dev tap0").status, 0);
}

TEST_F(TunTapTest, AddTunWithPiAndNoNameLetsTheKernelPick) {
  std::string first = tuntap.add(TunTapInfo("", TunTapMode::Tun).setPi(true));
  std::string second = tuntap.add(TunTapInfo("", TunTapMode::Tun));
  EXPECT_EQ(first, "tun0");
  EXPECT_EQ(second, "tun1");
  auto ip = ipTuntap();
  EXPECT_EQ(ip["tun0"]["flags"], nlohmann::json({"tun", "pi", "persist", "filter"}));
  EXPECT_EQ(ip["tun1"]["flags"], nlohmann::json({"tun", "persist"}));
  EXPECT_FALSE(ip["tun1"].contains("user"));
}

TEST_F(TunTapTest, ListEqualsIpTuntapShow) {
  ns.exec("ip tuntap add dev tun7 mode tun pi group 5");
  ns.exec("ip tuntap add dev tap7 mode tap vnet_hdr multi_queue user 0");
  ns.exec("ip tuntap add dev tap8 mode tap user 65534 group 65534");
  ns.ip("link add v0 type veth peer name v1");  // not tun/tap: never listed
  auto ip = ipTuntap();
  auto mine = tuntap.list();
  ASSERT_EQ(mine.size(), ip.size());
  ASSERT_EQ(mine.size(), 3u);
  for (const auto& d : mine) {
    ASSERT_TRUE(ip.count(d.name)) << d.name;
    const auto& o = ip[d.name];
    std::vector<std::string> flags = o["flags"];
    auto has = [&](const char* f) { return std::find(flags.begin(), flags.end(), f) != flags.end(); };
    EXPECT_EQ(d.mode == TunTapMode::Tap, has("tap")) << d.name;
    EXPECT_EQ(d.pi.value_or(false), has("pi")) << d.name;
    EXPECT_EQ(d.vnetHdr.value_or(false), has("vnet_hdr")) << d.name;
    EXPECT_EQ(d.multiQueue.value_or(false), has("multi_queue")) << d.name;
    EXPECT_EQ(d.persist.value_or(false), has("persist")) << d.name;
    EXPECT_EQ(d.owner.has_value(), o.contains("user")) << d.name;
    if (d.owner) {
      EXPECT_EQ(*d.owner, o["user"]);
    }
    EXPECT_EQ(d.group.has_value(), o.contains("group")) << d.name;
    if (d.group) {
      EXPECT_EQ(*d.group, o["group"]);
    }
    EXPECT_EQ(d.index, links.get(d.name).index);
  }
  // The same object rides on the link: LinkInfo carries the `tun` link info.
  LinkInfo l = links.get("tap7");
  ASSERT_NE(l.kindOptions<TunTapInfo>(), nullptr);
  EXPECT_EQ(l.kindOptions<TunTapInfo>()->multiQueue, true);
  EXPECT_FALSE(tuntap.find("v0").has_value());
  EXPECT_FALSE(tuntap.find("nothere").has_value());
}

TEST_F(TunTapTest, OneQueueIsNeverReportedWrong) {
  ns.exec("ip tuntap add dev tun9 mode tun one_queue");
  ASSERT_NE(tunFlags("tun9") & IFF_ONE_QUEUE, 0u);
  // rtnetlink does not carry one_queue; the test's /sys is not the namespace's, so the library
  // must say "unknown" rather than "off" (the CLI test reads it through the namespace's /sys).
  TunTapInfo d = tuntap.get("tun9");
  EXPECT_TRUE(!d.oneQueue || *d.oneQueue);
  EXPECT_EQ(d.fromSysfs, d.oneQueue.has_value());
}

TEST_F(TunTapTest, BadInputIsRefusedAndChangesNothing) {
  tuntap.add(TunTapInfo("tap0", TunTapMode::Tap));
  ns.ip("link add v0 type veth peer name v1");
  std::string before = snapshot();
  auto expectError = [&](std::errc code, const std::string& text, auto&& f) {
    try {
      f();
      ADD_FAILURE() << "no error for: " << text;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), code) << e.what();
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  };
  // An existing device, even of the other mode or another kind: EBUSY, the device untouched.
  expectError(std::errc::device_or_resource_busy, "device \"tap0\" already exists",
              [&] { tuntap.add(TunTapInfo("tap0", TunTapMode::Tap).setVnetHdr(true).setOwner(5u)); });
  expectError(std::errc::device_or_resource_busy, "already exists", [&] { tuntap.add(TunTapInfo("tap0", TunTapMode::Tun)); });
  expectError(std::errc::device_or_resource_busy, "already exists", [&] { tuntap.add(TunTapInfo("v0", TunTapMode::Tap)); });
  expectError(std::errc::invalid_argument, "longer than 15 bytes", [&] { tuntap.add(TunTapInfo("abcdefghijklmnopq", TunTapMode::Tap)); });
  expectError(std::errc::invalid_argument, "contains '/'", [&] { tuntap.add(TunTapInfo("a/b", TunTapMode::Tap)); });
  expectError(std::errc::invalid_argument, "a mode is needed", [&] { tuntap.add(TunTapInfo().setName("tapx")); });
  expectError(std::errc::invalid_argument, "user \"no-such-user-fastlink\" does not exist",
              [&] { tuntap.add(TunTapInfo("tapx", TunTapMode::Tap).setOwner(std::string_view("no-such-user-fastlink"))); });
  // Deleting: not a tun/tap device, the other mode, a missing device.
  expectError(std::errc::invalid_argument, "not a tun/tap device (type veth)", [&] { tuntap.del("v0"); });
  expectError(std::errc::invalid_argument, "is a tap device, not tun", [&] { tuntap.del("tap0", TunTapMode::Tun); });
  expectError(std::errc::no_such_device, "Cannot find device \"nothere\"", [&] { tuntap.del("nothere"); });
  EXPECT_EQ(snapshot(), before);
  EXPECT_EQ(tunFlags("tap0"), uint32_t{IFF_TAP | IFF_NO_PI | IFF_PERSIST});
  EXPECT_EQ(ns.sysfs("tap0", "owner"), "-1");
}

/// TUNGETFEATURES asked directly (the oracle for what this kernel's tun understands).
uint32_t tunFeatures() {
  int fd = ::open("/dev/net/tun", O_RDWR | O_CLOEXEC);
  unsigned int features = 0;
  if (fd >= 0) {
    EXPECT_EQ(ioctl(fd, TUNGETFEATURES, &features), 0);
    ::close(fd);
  }
  return features;
}

constexpr uint32_t kIffBackpressure = 0x0080;

TEST_F(TunTapTest, BackpressureIsRefusedByAKernelWithoutItAndCreatesNothing) {
  if (tunFeatures() & kIffBackpressure) {
    // A kernel with the flag (7.3+, or the VM's patched tun): it must reach the device.
    tuntap.add(TunTapInfo("tapb", TunTapMode::Tap).setBackpressure(true));
    EXPECT_EQ(tunFlags("tapb") & kIffBackpressure, kIffBackpressure);
    EXPECT_EQ(tuntap.get("tapb").backpressure, true);
    return;
  }
  std::string before = snapshot();
  utsname u{};
  ASSERT_EQ(uname(&u), 0);
  try {
    tuntap.add(TunTapInfo("tapb", TunTapMode::Tap).setBackpressure(true));
    ADD_FAILURE() << "a kernel without IFF_BACKPRESSURE created a device";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::operation_not_supported) << e.what();
    EXPECT_NE(std::string(e.what()).find(std::string("kernel ") + u.release + " has no tun qdisc backpressure"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(snapshot(), before);
  EXPECT_TRUE(ipTuntap().empty());
  EXPECT_FALSE(ipHasLink("tapb"));
  // Without the flag the same device is created (the refusal was about the flag alone).
  tuntap.add(TunTapInfo("tapb", TunTapMode::Tap).setBackpressure(false));
  EXPECT_EQ(tunFlags("tapb") & kIffBackpressure, 0u);
}

TEST_F(TunTapTest, DelRemovesEvenAnAttachedDevice) {
  tuntap.add(TunTapInfo("tap0", TunTapMode::Tap));
  tuntap.add(TunTapInfo("tun0", TunTapMode::Tun));
  TunTapQueue q = tuntap.openQueue("tap0");
  tuntap.del("tap0", TunTapMode::Tap);
  tuntap.del("tun0");
  EXPECT_FALSE(ipHasLink("tap0"));
  EXPECT_FALSE(ipHasLink("tun0"));
  EXPECT_TRUE(ipTuntap().empty());
}

TEST_F(TunTapTest, FourQueuesOfAMultiQueueTap) {
  tuntap.add(TunTapInfo("mq0", TunTapMode::Tap).setMultiQueue(true).setVnetHdr(true));
  {
    std::vector<TunTapQueue> queues = tuntap.openQueues("mq0", 4);
    ASSERT_EQ(queues.size(), 4u);
    for (const auto& q : queues) {
      EXPECT_TRUE(q.isOpen());
      EXPECT_NE(fcntl(q.fd(), F_GETFL) & O_NONBLOCK, 0);
    }
    EXPECT_EQ(tunData("mq0")["numqueues"], 4);
    EXPECT_EQ(tunData("mq0")["numdisabled"], 0);
    EXPECT_EQ(tuntap.get("mq0").numQueues, 4u);
    // Attaching with the device's own flags left vnet_hdr on.
    EXPECT_EQ(tunData("mq0")["vnet_hdr"], true);

    queues[2].detach();
    EXPECT_FALSE(queues[2].attached());
    EXPECT_EQ(tunData("mq0")["numqueues"], 3);
    EXPECT_EQ(tunData("mq0")["numdisabled"], 1);
    TunTapInfo d = tuntap.get("mq0");
    EXPECT_EQ(d.numQueues, 3u);
    EXPECT_EQ(d.numDisabledQueues, 1u);
    queues[2].attach();
    EXPECT_EQ(tunData("mq0")["numqueues"], 4);

    TunTapQueue moved = std::move(queues[0]);
    EXPECT_FALSE(queues[0].isOpen());
    EXPECT_TRUE(moved.isOpen());
    EXPECT_EQ(tunData("mq0")["numqueues"], 4);
  }
  // Closing the fds detached every queue; the persistent device stays.
  EXPECT_EQ(tunData("mq0")["numqueues"], 0);
  EXPECT_TRUE(ipHasLink("mq0"));
}

TEST_F(TunTapTest, ASingleQueueDeviceTakesOneQueue) {
  tuntap.add(TunTapInfo("tap1", TunTapMode::Tap).setVnetHdr(true));
  TunTapQueue q = tuntap.openQueue("tap1", {.nonBlocking = false});
  EXPECT_EQ(fcntl(q.fd(), F_GETFL) & O_NONBLOCK, 0);
  try {
    tuntap.openQueue("tap1");
    FAIL() << "a second queue opened on a single-queue device";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::device_or_resource_busy) << e.what();
  }
  EXPECT_THROW(tuntap.openQueues("tap1", 2), Error);
  EXPECT_THROW(q.detach(), Error);  // TUNSETQUEUE needs multi_queue
  EXPECT_EQ(tunData("tap1")["vnet_hdr"], true);
  EXPECT_THROW(tuntap.openQueue("nothere"), Error);
}

TEST_F(TunTapTest, AQueueCarriesFramesIntoTheDevice) {
  tuntap.add(TunTapInfo("tap2", TunTapMode::Tap));
  ns.ip("link set tap2 up");
  TunTapQueue q = tuntap.openQueue("tap2");
  // A broadcast Ethernet frame (ARP ethertype, zero payload): the device receives what the
  // queue writes.
  std::vector<uint8_t> frame(60, 0);
  std::fill(frame.begin(), frame.begin() + 6, 0xff);
  frame[6] = 0x02;
  frame[12] = 0x08;
  frame[13] = 0x06;
  for (int i = 0; i < 5; ++i) ASSERT_EQ(write(q.fd(), frame.data(), frame.size()), 60);
  EXPECT_EQ(ns.sysfs("tap2", "statistics/rx_packets"), "5");
}

}  // namespace
}  // namespace fastlink::test
