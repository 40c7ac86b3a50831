// Golden bytes for bridge FDB requests (FdbRequests, family AF_BRIDGE) and the reply decoder.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <linux/neighbour.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "fastlink/fdb.hpp"
#include "rtnl/fdb_codec.hpp"
#include "unit/golden.hpp"

namespace fastlink {
namespace {

using test::AlignedMessage;
using test::Attrs;
using test::Bytes;
using test::sameBytes;

Bytes ndmsgBytes(uint8_t family, int32_t ifindex, uint16_t state, uint8_t flags) {
  Bytes b = {family, 0, 0, 0};
  test::appendLe32(b, static_cast<uint32_t>(ifindex));
  test::appendLe16(b, state);
  b.push_back(flags);
  b.push_back(0);
  return b;
}

constexpr uint16_t kAdd = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL;
const MacAddress kMac = MacAddress::parse("02:00:00:00:00:11");
const std::initializer_list<uint8_t> kMacBytes = {2, 0, 0, 0, 0, 0x11};

TEST(FdbGolden, AddStaticOnBridgePortWithVlan) {
  // bridge fdb add 02:00:00:00:00:11 dev <5> master static vlan 10
  Request r = FdbRequests::add(FdbInfo(kMac, 5u).setMaster(true).setState(FdbState::Static).setVlan(10));
  Bytes expected = test::netlinkMessage(RTM_NEWNEIGH, kAdd, ndmsgBytes(AF_BRIDGE, 5, NUD_NOARP | NUD_REACHABLE, NTF_MASTER),
                              Attrs().raw(NDA_LLADDR, kMacBytes).u16(NDA_VLAN, 10));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
  EXPECT_EQ(r.operation(), "fdb add 02:00:00:00:00:11 dev 5 master static vlan 10");
}

TEST(FdbGolden, DefaultsAreSelfAndPermanentLikeBridge8) {
  // bridge fdb add 02:00:00:00:00:11 dev <5>
  Request r = FdbRequests::add(FdbInfo(kMac, 5u));
  EXPECT_TRUE(sameBytes(r.bytes(), test::netlinkMessage(RTM_NEWNEIGH, kAdd, ndmsgBytes(AF_BRIDGE, 5, NUD_NOARP | NUD_PERMANENT, NTF_SELF),
                                              Attrs().raw(NDA_LLADDR, kMacBytes))));
}

TEST(FdbGolden, DynamicStickyExternLearn) {
  Request r = FdbRequests::replace(
      FdbInfo(kMac, 5u).setMaster(true).setState(FdbState::Dynamic).setSticky(true).setExternLearn(true));
  Bytes expected = test::netlinkMessage(RTM_NEWNEIGH, NLM_F_REQUEST | NLM_F_CREATE | NLM_F_REPLACE,
                              ndmsgBytes(AF_BRIDGE, 5, NUD_REACHABLE, NTF_MASTER | NTF_STICKY | NTF_EXT_LEARNED),
                              Attrs().raw(NDA_LLADDR, kMacBytes));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
}

TEST(FdbGolden, AppendVxlanRemoteWithPortVniSrcVniVia) {
  // bridge fdb append 00:00:00:00:00:00 dev <8> dst 10.0.0.2 port 4790 vni 100 src_vni 7 via <2>
  Request r = FdbRequests::append(FdbInfo(MacAddress::parse("00:00:00:00:00:00"), 8u)
                                      .setDst(IpAddress::parse("10.0.0.2"))
                                      .setPort(4790)
                                      .setVni(100)
                                      .setSrcVni(7)
                                      .setVia(2u));
  Bytes expected = test::netlinkMessage(RTM_NEWNEIGH, NLM_F_REQUEST | NLM_F_CREATE | NLM_F_APPEND,
                              ndmsgBytes(AF_BRIDGE, 8, NUD_NOARP | NUD_PERMANENT, NTF_SELF),
                              Attrs()
                                  .raw(NDA_LLADDR, {0, 0, 0, 0, 0, 0})
                                  .raw(NDA_DST, {10, 0, 0, 2})
                                  .be16(NDA_PORT, 4790)
                                  .u32(NDA_VNI, 100)
                                  .u32(NDA_SRC_VNI, 7)
                                  .u32(NDA_IFINDEX, 2));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
}

TEST(FdbGolden, DelSendsNoState) {
  Request r = FdbRequests::del(FdbInfo(kMac, 5u).setMaster(true).setVlan(10));
  EXPECT_TRUE(sameBytes(r.bytes(), test::netlinkMessage(RTM_DELNEIGH, NLM_F_REQUEST, ndmsgBytes(AF_BRIDGE, 5, 0, NTF_MASTER),
                                              Attrs().raw(NDA_LLADDR, kMacBytes).u16(NDA_VLAN, 10))));
}

TEST(FdbGolden, DumpFiltersInTheKernel) {
  core::MessageWriter w(RTM_GETNEIGH, 0);
  rtnl::encodeFdbDump(w, 4, 5);
  EXPECT_TRUE(sameBytes(w.bytes(), test::netlinkMessage(RTM_GETNEIGH, NLM_F_REQUEST, ndmsgBytes(AF_BRIDGE, 5, 0, 0), Attrs().u32(NDA_MASTER, 4))));
  core::MessageWriter all(RTM_GETNEIGH, 0);
  rtnl::encodeFdbDump(all, 0, 0);
  EXPECT_TRUE(sameBytes(all.bytes(), test::netlinkMessage(RTM_GETNEIGH, NLM_F_REQUEST, ndmsgBytes(AF_BRIDGE, 0, 0, 0), Attrs())));
}

TEST(FdbGolden, DecodeBridgeEntryThenEmit) {
  // What the bridge reports for a static entry on port 5 of bridge 4, vlan 10.
  Bytes cacheinfo;
  for (uint32_t v : {0u, 150u, 250u, 0u}) test::appendLe32(cacheinfo, v);
  Bytes reply = test::netlinkMessage(RTM_NEWNEIGH, 0, ndmsgBytes(AF_BRIDGE, 5, NUD_NOARP, NTF_STICKY),
                           Attrs()
                               .raw(NDA_LLADDR, kMacBytes)
                               .u32(NDA_MASTER, 4)
                               .u16(NDA_VLAN, 10)
                               .raw(NDA_CACHEINFO, cacheinfo)
                               .u8(NDA_PROTOCOL, 3));  // kept raw
  AlignedMessage m(reply);
  FdbInfo e = rtnl::decodeFdb(m.as<nlmsghdr>());
  EXPECT_EQ(e.mac, kMac);
  EXPECT_EQ(e.devIndex(), 5u);
  EXPECT_EQ(e.masterDev, 4u);
  EXPECT_EQ(e.vlan, 10);
  EXPECT_EQ(e.state, FdbState::Static);
  EXPECT_TRUE(e.sticky.value_or(false));
  EXPECT_FALSE(e.self.value_or(true));
  EXPECT_EQ(e.usedAgo, 150u);
  EXPECT_EQ(e.updatedAgo, 250u);
  ASSERT_EQ(e.unknown.count(), 1u);
  EXPECT_EQ(e.unknown.list()[0].type, NDA_PROTOCOL);

  FdbInfo again(*e.mac, *e.dev);
  again.setMaster(true).setState(*e.state).setVlan(*e.vlan).setSticky(true);
  EXPECT_TRUE(sameBytes(FdbRequests::add(again).bytes(),
                        test::netlinkMessage(RTM_NEWNEIGH, kAdd, ndmsgBytes(AF_BRIDGE, 5, NUD_NOARP | NUD_REACHABLE, NTF_MASTER | NTF_STICKY),
                                   Attrs().raw(NDA_LLADDR, kMacBytes).u16(NDA_VLAN, 10))));
}

TEST(FdbGolden, DecodeVxlanRemoteAndStates) {
  Bytes reply = test::netlinkMessage(RTM_NEWNEIGH, 0, ndmsgBytes(AF_BRIDGE, 8, NUD_NOARP | NUD_PERMANENT, NTF_SELF),
                           Attrs()
                               .raw(NDA_LLADDR, {0, 0, 0, 0, 0, 0})
                               .raw(NDA_DST, {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2})
                               .be16(NDA_PORT, 4790)
                               .u32(NDA_VNI, 100)
                               .u32(NDA_SRC_VNI, 7)
                               .u32(NDA_IFINDEX, 2));
  AlignedMessage m(reply);
  FdbInfo e = rtnl::decodeFdb(m.as<nlmsghdr>());
  EXPECT_EQ(e.state, FdbState::Permanent);
  EXPECT_TRUE(e.self.value_or(false));
  EXPECT_EQ(e.dst->toString(), "2001:db8::2");
  EXPECT_EQ(e.port, 4790);
  EXPECT_EQ(e.vni, 100u);
  EXPECT_EQ(e.srcVni, 7u);
  EXPECT_EQ(e.via, Ifref(2u));
  EXPECT_TRUE(e.unknown.empty());

  for (auto [nud, state] : {std::pair{uint16_t{NUD_REACHABLE}, FdbState::Dynamic}, std::pair{uint16_t{NUD_STALE}, FdbState::Stale},
                            std::pair{uint16_t{NUD_PERMANENT}, FdbState::Permanent}}) {
    Bytes b = test::netlinkMessage(RTM_NEWNEIGH, 0, ndmsgBytes(AF_BRIDGE, 5, nud, 0), Attrs().raw(NDA_LLADDR, kMacBytes));
    AlignedMessage a(b);
    EXPECT_EQ(rtnl::decodeFdb(a.as<nlmsghdr>()).state, state) << nud;
  }
  EXPECT_EQ(fdbStateName(FdbState::Dynamic), "");
  EXPECT_EQ(fdbStateName(FdbState::Static), "static");
}

TEST(FdbGolden, BadInputIsRefusedBeforeEncoding) {
  auto expectInvalid = [](const FdbInfo& e, const std::string& words) {
    try {
      FdbRequests::add(e);
      ADD_FAILURE() << "accepted: " << words;
    } catch (const Error& err) {
      EXPECT_EQ(err.code(), std::errc::invalid_argument);
      EXPECT_NE(std::string(err.what()).find(words), std::string::npos) << err.what();
    }
  };
  expectInvalid(FdbInfo(kMac, 5u).setVlan(4095), "vlan 4095 out of range (1-4094)");
  expectInvalid(FdbInfo(kMac, 5u).setVlan(0), "out of range");
  expectInvalid(FdbInfo(kMac, 5u).setVni(0x1000000), "vni");
  expectInvalid(FdbInfo(kMac, 5u).setSticky(true), "sticky");
  expectInvalid(FdbInfo(kMac, 5u).setState(FdbState::Stale), "stale");
  expectInvalid(FdbInfo(kMac, 5u).setMaster(true).setDst(IpAddress::parse("10.0.0.1")), "self");
  expectInvalid(FdbInfo(kMac, "v0"), "resolved");
  expectInvalid(FdbInfo().setDev(5u), "MAC");
  expectInvalid(FdbInfo().setMac(kMac), "device");
  try {
    FdbRequests::append(FdbInfo(kMac, 5u));
    ADD_FAILURE();
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("dst"), std::string::npos);
  }
}

}  // namespace
}  // namespace fastlink
