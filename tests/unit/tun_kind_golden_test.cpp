// The `tun` link kind (rtnetlink's read-only view of TUN/TAP devices): kernel-shaped decodes of
// IFLA_TUN_* as tun_fill_info() lays them out, the refusal to encode, and the pure parts of
// src/tuntap/ (TUNSETIFF flags, merging sysfs tun_flags, owner/group parsing).
#include <gtest/gtest.h>
#include <linux/if_link.h>
#include <linux/if_tun.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "fastlink/link.hpp"
#include "fastlink/tuntap.hpp"
#include "rtnl/link_codec.hpp"
#include "tuntap/tun_file.hpp"
#include "unit/golden.hpp"

namespace fastlink {
namespace {

using test::AlignedMessage;
using test::Attrs;
using test::Bytes;
using test::Ifinfo;

/// A dump reply as the kernel builds it (nests without NLA_F_NESTED).
LinkInfo decodeTun(const Attrs& data, uint16_t arphrd = 1) {
  Bytes m = test::linkMessage(RTM_NEWLINK, NLM_F_MULTI, Ifinfo{.type = arphrd, .index = 7},
                              Attrs().str(IFLA_IFNAME, "tap0").nestNoFlag(
                                  IFLA_LINKINFO, Attrs().str(IFLA_INFO_KIND, "tun").nestNoFlag(IFLA_INFO_DATA, data)),
                              1, 4242);
  AlignedMessage aligned(m);
  return rtnl::decodeLink(aligned.as<nlmsghdr>(), false);
}

TEST(TunKind, DecodesAMultiQueueTapWithOwner) {
  // tun_fill_info() for `ip tuntap add dev tap0 mode tap multi_queue vnet_hdr user 1000` with
  // three queues attached, one of them detached: owner first, the queue counts last.
  Attrs kernel = Attrs()
                     .u32(IFLA_TUN_OWNER, 1000)
                     .u8(IFLA_TUN_TYPE, IFF_TAP)
                     .u8(IFLA_TUN_PI, 0)
                     .u8(IFLA_TUN_VNET_HDR, 1)
                     .u8(IFLA_TUN_PERSIST, 1)
                     .u8(IFLA_TUN_MULTI_QUEUE, 1)
                     .u32(IFLA_TUN_NUM_QUEUES, 2)
                     .u32(IFLA_TUN_NUM_DISABLED_QUEUES, 1);
  LinkInfo l = decodeTun(kernel);
  EXPECT_EQ(l.kind, "tun");
  const auto* t = l.kindOptions<TunTapInfo>();
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->mode, TunTapMode::Tap);
  EXPECT_EQ(t->owner, 1000u);
  EXPECT_FALSE(t->group.has_value());
  EXPECT_EQ(t->pi, false);
  EXPECT_EQ(t->vnetHdr, true);
  EXPECT_EQ(t->persist, true);
  EXPECT_EQ(t->multiQueue, true);
  EXPECT_EQ(t->numQueues, 2u);
  EXPECT_EQ(t->numDisabledQueues, 1u);
  // rtnetlink does not carry these: unknown, not false.
  EXPECT_FALSE(t->oneQueue.has_value());
  EXPECT_FALSE(t->napi.has_value());
  EXPECT_TRUE(l.unknownKindData.empty());
}

TEST(TunKind, DecodesAPlainTunWithGroup) {
  Attrs kernel = Attrs()
                     .u32(IFLA_TUN_GROUP, 5)
                     .u8(IFLA_TUN_TYPE, IFF_TUN)
                     .u8(IFLA_TUN_PI, 1)
                     .u8(IFLA_TUN_VNET_HDR, 0)
                     .u8(IFLA_TUN_PERSIST, 0)
                     .u8(IFLA_TUN_MULTI_QUEUE, 0);
  LinkInfo l = decodeTun(kernel, 65534);  // kept: kindOptions points into it
  const auto* t = l.kindOptions<TunTapInfo>();
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->mode, TunTapMode::Tun);
  EXPECT_EQ(t->group, 5u);
  EXPECT_FALSE(t->owner.has_value());
  EXPECT_EQ(t->pi, true);
  EXPECT_EQ(t->persist, false);
  EXPECT_EQ(t->multiQueue, false);
  EXPECT_FALSE(t->numQueues.has_value());
}

TEST(TunKind, KeepsAnUnknownTypeAndNewAttributesRaw) {
  Attrs kernel = Attrs().u8(IFLA_TUN_TYPE, 7).u8(IFLA_TUN_PI, 0).u32(IFLA_TUN_MAX + 1, 9);
  LinkInfo l = decodeTun(kernel);
  const auto* t = l.kindOptions<TunTapInfo>();
  ASSERT_NE(t, nullptr);
  EXPECT_FALSE(t->mode.has_value());
  ASSERT_EQ(l.unknownKindData.count(), 2u);
  EXPECT_EQ(l.unknownKindData.list()[0].type, IFLA_TUN_TYPE);
  EXPECT_EQ(l.unknownKindData.list()[1].type, IFLA_TUN_MAX + 1);
}

TEST(TunKind, IsKnownAndRefusesToEncode) {
  auto kinds = knownLinkKinds();
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "tun"), kinds.end());
  try {
    LinkRequests::add(LinkInfo("tap0", "tun").setKindOptions(TunTapInfo("tap0", TunTapMode::Tap)));
    FAIL() << "encoded a tun creation";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("tuntap add"), std::string::npos) << e.what();
  }
}

TEST(TunTapFlags, MatchIpTuntapAdd) {
  // ip tuntap add always sets IFF_NO_PI unless `pi`; the rest map one to one.
  EXPECT_EQ(tuntap::iffFlags(TunTapInfo("t", TunTapMode::Tun)), uint32_t{IFF_TUN | IFF_NO_PI});
  EXPECT_EQ(tuntap::iffFlags(TunTapInfo("t", TunTapMode::Tap).setPi(true)), uint32_t{IFF_TAP});
  EXPECT_EQ(tuntap::iffFlags(TunTapInfo("t", TunTapMode::Tap).setVnetHdr(true).setMultiQueue(true).setOneQueue(true)),
            uint32_t{IFF_TAP | IFF_NO_PI | IFF_VNET_HDR | IFF_MULTI_QUEUE | IFF_ONE_QUEUE});
  EXPECT_EQ(tuntap::iffFlags(TunTapInfo("t", TunTapMode::Tun).setNapi(true).setNapiFrags(true)),
            uint32_t{IFF_TUN | IFF_NO_PI | IFF_NAPI | IFF_NAPI_FRAGS});
  // IFF_BACKPRESSURE is 0x0080 in the uapi header of the 7.3 cycle (not in Debian 12's).
  EXPECT_EQ(tuntap::iffFlags(TunTapInfo("t", TunTapMode::Tap).setBackpressure(true)), uint32_t{IFF_TAP | IFF_NO_PI | 0x0080});
  EXPECT_EQ(tuntap::iffFlags(TunTapInfo("t", TunTapMode::Tap).setBackpressure(false)), uint32_t{IFF_TAP | IFF_NO_PI});
}

TEST(TunTapFlags, BackpressureNeedsTheKernelToAdvertiseIt) {
  const TunTapInfo wanted = TunTapInfo("tap0", TunTapMode::Tap).setBackpressure(true);
  // What TUNGETFEATURES returns on 6.1-6.18: IFF_TUN | IFF_TAP | IFF_NO_CARRIER | TUN_FEATURES.
  constexpr uint32_t kStock = IFF_TUN | IFF_TAP | 0x0040 | IFF_NO_PI | IFF_ONE_QUEUE | IFF_VNET_HDR |
                              IFF_MULTI_QUEUE | IFF_NAPI | IFF_NAPI_FRAGS;
  try {
    tuntap::requireFeatures(wanted, kStock, "6.18.0-test", "tuntap add dev tap0 mode tap backpressure");
    FAIL() << "a kernel without IFF_BACKPRESSURE was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::operation_not_supported);
    EXPECT_NE(e.reason().find("kernel 6.18.0-test has no tun qdisc backpressure"), std::string::npos) << e.reason();
    EXPECT_NE(e.reason().find("nothing was created"), std::string::npos) << e.reason();
    EXPECT_EQ(e.operation(), "tuntap add dev tap0 mode tap backpressure");
  }
  EXPECT_NO_THROW(tuntap::requireFeatures(wanted, kStock | 0x0080, "7.3.0", "op"));
  // Not asked for: any kernel will do.
  EXPECT_NO_THROW(tuntap::requireFeatures(TunTapInfo("tap0", TunTapMode::Tap), kStock, "6.1.0", "op"));
  EXPECT_FALSE(tuntap::kernelRelease().empty());
}

TEST(TunTapFlags, SysfsFillsWhatRtnetlinkLacksAndNeverOverrides) {
  TunTapInfo fromNetlink("tun0", TunTapMode::Tun);
  fromNetlink.setPi(true);
  fromNetlink.persist = true;
  tuntap::SysfsTun s{.flags = IFF_TUN | IFF_ONE_QUEUE | IFF_PERSIST | IFF_NAPI | 0x80000, .owner = 3, .group = {}};
  tuntap::mergeSysfs(fromNetlink, s);
  EXPECT_EQ(fromNetlink.pi, true);  // rtnetlink's word stands (sysfs would say pi: no IFF_NO_PI, same here)
  EXPECT_EQ(fromNetlink.oneQueue, true);
  EXPECT_EQ(fromNetlink.napi, true);
  EXPECT_EQ(fromNetlink.napiFrags, false);
  EXPECT_EQ(fromNetlink.backpressure, false);
  EXPECT_EQ(fromNetlink.otherFlags, 0x80000u);
  EXPECT_EQ(fromNetlink.owner, 3u);
  EXPECT_TRUE(fromNetlink.fromSysfs);

  TunTapInfo oldKernel;  // no link info at all (kernels before 4.15)
  tuntap::mergeSysfs(oldKernel, {.flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR | IFF_MULTI_QUEUE, .owner = {}, .group = 7});
  EXPECT_EQ(oldKernel.mode, TunTapMode::Tap);
  EXPECT_EQ(oldKernel.pi, false);
  EXPECT_EQ(oldKernel.vnetHdr, true);
  EXPECT_EQ(oldKernel.multiQueue, true);
  EXPECT_EQ(oldKernel.persist, false);
  EXPECT_EQ(oldKernel.group, 7u);
  EXPECT_FALSE(oldKernel.otherFlags.has_value());

  // A patched or 7.3+ kernel's tun_flags carry IFF_BACKPRESSURE: named, not an unknown bit.
  TunTapInfo patched;
  tuntap::mergeSysfs(patched, {.flags = IFF_TAP | IFF_NO_PI | IFF_PERSIST | 0x0080, .owner = {}, .group = {}});
  EXPECT_EQ(patched.backpressure, true);
  EXPECT_FALSE(patched.otherFlags.has_value());
}

/// A fake /sys/class/net/NAME for readSysfsTun (what tun's sysfs attributes print).
class FakeSysfs {
 public:
  FakeSysfs() : root_(std::filesystem::temp_directory_path() / ("fastlink-sysfs-" + std::to_string(getpid()))) {}
  ~FakeSysfs() { std::filesystem::remove_all(root_); }
  void device(const std::string& name, const std::map<std::string, std::string>& files) {
    std::filesystem::create_directories(root_ / name);
    for (const auto& [file, text] : files) std::ofstream(root_ / name / file) << text << "\n";
  }
  std::string classNet() const { return root_.string() + "/"; }

 private:
  std::filesystem::path root_;
};

TEST(TunTapSysfs, ReadOnlyWhenTheEntryIsTheSameDevice) {
  FakeSysfs sys;
  sys.device("tap0", {{"ifindex", "7"}, {"type", "1"}, {"address", "02:00:00:00:00:01"}, {"tun_flags", "0x3002"},
                      {"owner", "-1"}, {"group", "5"}});
  auto s = tuntap::readSysfsTun("tap0", 7, 1, "02:00:00:00:00:01", sys.classNet());
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->flags, uint32_t{IFF_TAP | IFF_NO_PI | IFF_ONE_QUEUE});
  EXPECT_FALSE(s->owner.has_value());
  EXPECT_EQ(s->group, 5u);
  // The same name in another namespace's sysfs: another ifindex, type or address -> not used.
  EXPECT_FALSE(tuntap::readSysfsTun("tap0", 8, 1, "02:00:00:00:00:01", sys.classNet()).has_value());
  EXPECT_FALSE(tuntap::readSysfsTun("tap0", 7, 65534, "02:00:00:00:00:01", sys.classNet()).has_value());
  EXPECT_FALSE(tuntap::readSysfsTun("tap0", 7, 1, "02:00:00:00:00:02", sys.classNet()).has_value());
  EXPECT_FALSE(tuntap::readSysfsTun("tap1", 7, 1, "02:00:00:00:00:01", sys.classNet()).has_value());
  // Not a tun device (no tun_flags) or garbage: not used.
  sys.device("v0", {{"ifindex", "3"}, {"type", "1"}, {"address", ""}, {"owner", "-1"}, {"group", "-1"}});
  EXPECT_FALSE(tuntap::readSysfsTun("v0", 3, 1, "", sys.classNet()).has_value());
  sys.device("tun0", {{"ifindex", "4"}, {"type", "65534"}, {"address", ""}, {"tun_flags", "zz"}, {"owner", "-1"}, {"group", "-1"}});
  EXPECT_FALSE(tuntap::readSysfsTun("tun0", 4, 65534, "", sys.classNet()).has_value());
}

TEST(TunTapOwner, NumbersAreTakenAsIsNamesMustExist) {
  EXPECT_EQ(TunTapInfo().setOwner(std::string_view("99999")).owner, 99999u);
  EXPECT_EQ(TunTapInfo().setOwner(std::string_view("root")).owner, 0u);
  EXPECT_EQ(TunTapInfo().setGroup(std::string_view("root")).group, 0u);
  try {
    TunTapInfo().setOwner(std::string_view("no-such-user-fastlink"));
    FAIL() << "accepted a user that does not exist";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::invalid_argument);
    EXPECT_NE(e.reason().find("user \"no-such-user-fastlink\" does not exist"), std::string::npos) << e.reason();
  }
  EXPECT_THROW(TunTapInfo().setGroup(std::string_view("no-such-group-fastlink")), Error);
  // (uid_t)-1 means "no owner" to the kernel: as a name lookup it fails like any unknown name.
  EXPECT_THROW(TunTapInfo().setOwner(std::string_view("4294967295")), Error);
}

}  // namespace
}  // namespace fastlink
