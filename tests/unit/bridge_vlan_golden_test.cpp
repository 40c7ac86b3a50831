// Golden bytes for bridge VLAN requests (RTM_SETLINK/RTM_DELLINK, PF_BRIDGE, IFLA_AF_SPEC) and the
// dump decoder (ranges joined from RANGE_BEGIN/RANGE_END).
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <linux/if_bridge.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "fastlink/bridge_vlan.hpp"
#include "rtnl/bridge_vlan_codec.hpp"
#include "unit/golden.hpp"

namespace fastlink {
namespace {

using test::AlignedMessage;
using test::Attrs;
using test::Bytes;
using test::Ifinfo;
using test::linkMessage;
using test::sameBytes;

Bytes vlanInfo(uint16_t flags, uint16_t vid) {
  Bytes b;
  test::appendLe16(b, flags);
  test::appendLe16(b, vid);
  return b;
}

Ifinfo bridgeIfinfo(int32_t index) {
  Ifinfo i;
  i.family = AF_BRIDGE;
  i.index = index;
  return i;
}

TEST(BridgeVlanGolden, AddPvidUntagged) {
  // bridge vlan add vid 10 dev <5> pvid untagged
  Request r = BridgeVlanRequests::add(BridgeVlanInfo(5u, 10).setPvid(true).setUntagged(true));
  Bytes expected = linkMessage(RTM_SETLINK, NLM_F_REQUEST, bridgeIfinfo(5),
                               Attrs().nest(IFLA_AF_SPEC, Attrs().raw(IFLA_BRIDGE_VLAN_INFO,
                                                                      vlanInfo(BRIDGE_VLAN_INFO_PVID | BRIDGE_VLAN_INFO_UNTAGGED, 10))));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
  EXPECT_EQ(r.operation(), "vlan add vid 10 dev 5 pvid untagged");
}

TEST(BridgeVlanGolden, AddRangeSelf) {
  // bridge vlan add vid 20-30 dev <4> self
  Request r = BridgeVlanRequests::add(BridgeVlanInfo(4u, 20).setVidEnd(30).setSelf(true));
  Bytes expected = linkMessage(RTM_SETLINK, NLM_F_REQUEST, bridgeIfinfo(4),
                               Attrs().nest(IFLA_AF_SPEC, Attrs()
                                                              .u16(IFLA_BRIDGE_FLAGS, BRIDGE_FLAGS_SELF)
                                                              .raw(IFLA_BRIDGE_VLAN_INFO, vlanInfo(BRIDGE_VLAN_INFO_RANGE_BEGIN, 20))
                                                              .raw(IFLA_BRIDGE_VLAN_INFO, vlanInfo(BRIDGE_VLAN_INFO_RANGE_END, 30))));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
}

TEST(BridgeVlanGolden, DelRangeMaster) {
  Request r = BridgeVlanRequests::del(BridgeVlanInfo(5u, 20).setVidEnd(30).setMaster(true));
  Bytes expected = linkMessage(RTM_DELLINK, NLM_F_REQUEST, bridgeIfinfo(5),
                               Attrs().nest(IFLA_AF_SPEC, Attrs()
                                                              .u16(IFLA_BRIDGE_FLAGS, BRIDGE_FLAGS_MASTER)
                                                              .raw(IFLA_BRIDGE_VLAN_INFO, vlanInfo(BRIDGE_VLAN_INFO_RANGE_BEGIN, 20))
                                                              .raw(IFLA_BRIDGE_VLAN_INFO, vlanInfo(BRIDGE_VLAN_INFO_RANGE_END, 30))));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
}

TEST(BridgeVlanGolden, RangeOfOneIsOneVlan) {
  Request r = BridgeVlanRequests::add(BridgeVlanInfo(5u, 7).setVidEnd(7).setPvid(true));
  Bytes expected = linkMessage(RTM_SETLINK, NLM_F_REQUEST, bridgeIfinfo(5),
                               Attrs().nest(IFLA_AF_SPEC, Attrs().raw(IFLA_BRIDGE_VLAN_INFO, vlanInfo(BRIDGE_VLAN_INFO_PVID, 7))));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
}

TEST(BridgeVlanGolden, DumpRequest) {
  core::MessageWriter w(RTM_GETLINK, 0);
  rtnl::encodeBridgeVlanDump(w, true);
  Ifinfo i;
  i.family = AF_BRIDGE;
  EXPECT_TRUE(sameBytes(w.bytes(), linkMessage(RTM_GETLINK, NLM_F_REQUEST, i, Attrs().u32(IFLA_EXT_MASK, RTEXT_FILTER_BRVLAN_COMPRESSED))));
  core::MessageWriter plain(RTM_GETLINK, 0);
  rtnl::encodeBridgeVlanDump(plain, false);
  EXPECT_TRUE(sameBytes(plain.bytes(), linkMessage(RTM_GETLINK, NLM_F_REQUEST, i, Attrs().u32(IFLA_EXT_MASK, RTEXT_FILTER_BRVLAN))));
}

TEST(BridgeVlanGolden, DecodeCompressedDumpThenEmit) {
  // A port (index 5, on bridge 4) with vid 1 pvid untagged, 20-30, and 40 untagged; the kernel
  // nests IFLA_AF_SPEC without NLA_F_NESTED.
  Bytes reply = linkMessage(
      RTM_NEWLINK, NLM_F_MULTI, bridgeIfinfo(5),
      Attrs()
          .str(IFLA_IFNAME, "v1")
          .u32(IFLA_MASTER, 4)
          .nestNoFlag(IFLA_AF_SPEC, Attrs()
                                        .raw(IFLA_BRIDGE_VLAN_INFO, vlanInfo(BRIDGE_VLAN_INFO_PVID | BRIDGE_VLAN_INFO_UNTAGGED, 1))
                                        .raw(IFLA_BRIDGE_VLAN_INFO, vlanInfo(BRIDGE_VLAN_INFO_RANGE_BEGIN, 20))
                                        .raw(IFLA_BRIDGE_VLAN_INFO, vlanInfo(BRIDGE_VLAN_INFO_RANGE_END, 30))
                                        .raw(IFLA_BRIDGE_VLAN_INFO, vlanInfo(BRIDGE_VLAN_INFO_UNTAGGED, 40))));
  AlignedMessage m(reply);
  auto vlans = rtnl::decodeBridgeVlans(m.as<nlmsghdr>());
  ASSERT_EQ(vlans.size(), 3u);
  EXPECT_EQ(vlans[0].vid, 1);
  EXPECT_FALSE(vlans[0].vidEnd);
  EXPECT_TRUE(vlans[0].pvid.value_or(false));
  EXPECT_TRUE(vlans[0].untagged.value_or(false));
  EXPECT_EQ(vlans[1].vid, 20);
  EXPECT_EQ(vlans[1].vidEnd, 30);
  EXPECT_EQ(vlans[1].lastVid(), 30);
  EXPECT_FALSE(vlans[1].pvid.value_or(true));
  EXPECT_EQ(vlans[2].vid, 40);
  EXPECT_TRUE(vlans[2].untagged.value_or(false));
  for (const auto& v : vlans) {
    EXPECT_EQ(v.devIndex(), 5u);
    EXPECT_EQ(v.devName, "v1");
    EXPECT_EQ(v.masterDev, 4u);
  }
  // Emit the range back: the request `bridge vlan add vid 20-30 dev 5` sends.
  BridgeVlanInfo again(*vlans[1].dev, *vlans[1].vid);
  again.setVidEnd(*vlans[1].vidEnd);
  Bytes expected = linkMessage(RTM_SETLINK, NLM_F_REQUEST, bridgeIfinfo(5),
                               Attrs().nest(IFLA_AF_SPEC, Attrs()
                                                              .raw(IFLA_BRIDGE_VLAN_INFO, vlanInfo(BRIDGE_VLAN_INFO_RANGE_BEGIN, 20))
                                                              .raw(IFLA_BRIDGE_VLAN_INFO, vlanInfo(BRIDGE_VLAN_INFO_RANGE_END, 30))));
  EXPECT_TRUE(sameBytes(BridgeVlanRequests::add(again).bytes(), expected));
}

TEST(BridgeVlanGolden, DecodeWithoutVlansAndMalformedRanges) {
  Bytes none = linkMessage(RTM_NEWLINK, NLM_F_MULTI, bridgeIfinfo(5), Attrs().str(IFLA_IFNAME, "v1"));
  AlignedMessage m(none);
  EXPECT_TRUE(rtnl::decodeBridgeVlans(m.as<nlmsghdr>()).empty());
  Bytes endOnly = linkMessage(RTM_NEWLINK, NLM_F_MULTI, bridgeIfinfo(5),
                              Attrs().nestNoFlag(IFLA_AF_SPEC, Attrs().raw(IFLA_BRIDGE_VLAN_INFO, vlanInfo(BRIDGE_VLAN_INFO_RANGE_END, 30))));
  AlignedMessage bad(endOnly);
  EXPECT_THROW(rtnl::decodeBridgeVlans(bad.as<nlmsghdr>()), Error);
}

TEST(BridgeVlanGolden, BadInputIsRefusedBeforeEncoding) {
  auto expectInvalid = [](const BridgeVlanInfo& v, const std::string& words) {
    try {
      BridgeVlanRequests::add(v);
      ADD_FAILURE() << "accepted: " << words;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), std::errc::invalid_argument);
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  expectInvalid(BridgeVlanInfo(5u, 4095), "vid 4095 out of range (1-4094)");
  expectInvalid(BridgeVlanInfo(5u, 0), "vid 0 out of range");
  expectInvalid(BridgeVlanInfo(5u, 10).setVidEnd(4095), "4095");
  expectInvalid(BridgeVlanInfo(5u, 30).setVidEnd(20), "empty");
  expectInvalid(BridgeVlanInfo(5u, 20).setVidEnd(30).setPvid(true), "pvid");
  expectInvalid(BridgeVlanInfo("v0", 10), "resolved");
  expectInvalid(BridgeVlanInfo().setVid(10), "device");
  EXPECT_THROW(BridgeVlanRequests::del(BridgeVlanInfo(5u, 10).setPvid(true)), Error);
}

}  // namespace
}  // namespace fastlink
