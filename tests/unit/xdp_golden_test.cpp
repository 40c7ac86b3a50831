// Golden bytes for XDP's RTM_SETLINK/RTM_GETLINK requests, and the status decoder against replies
// laid out like the kernel's (rtnl_xdp_fill). Numbers written out from include/uapi/linux/if_link.h,
// not taken from the header:
//   RTM_GETLINK 18, RTM_SETLINK 19; IFLA_IFNAME 3, IFLA_XDP 43, IFLA_EXT_MASK 29
//   IFLA_XDP_FD 1, ATTACHED 2, FLAGS 3, PROG_ID 4, DRV_PROG_ID 5, SKB_PROG_ID 6, HW_PROG_ID 7, EXPECTED_FD 8
//   XDP_FLAGS_UPDATE_IF_NOEXIST 1, SKB_MODE 2, DRV_MODE 4, HW_MODE 8, REPLACE 16
//   XDP_ATTACHED_NONE 0, DRV 1, SKB 2, HW 3, MULTI 4; RTEXT_FILTER_SKIP_STATS 8
#include <gtest/gtest.h>
#include <linux/netlink.h>

#include "fastlink/error.hpp"
#include "fastlink/xdp.hpp"
#include "unit/golden.hpp"
#include "rtnl/link_codec.hpp"
#include "rtnl/link_xdp.hpp"

namespace fastlink {
namespace {

using test::Attrs;
using test::Bytes;
using test::Ifinfo;
using test::sameBytes;

constexpr uint16_t kReq = NLM_F_REQUEST;

Bytes setlink(int32_t index, const Attrs& attrs) { return test::netlinkMessage(19, kReq, Ifinfo{.index = index}.bytes(), attrs); }

TEST(XdpGolden, AttachByNameRefusesToOverwrite) {
  Request r = XdpRequests::attach("vb", 7, XdpMode::Generic);
  Attrs xdp = Attrs().u32(1, 7).u32(3, 1 | 2);
  EXPECT_TRUE(sameBytes(r.bytes(), setlink(0, Attrs().str(3, "vb").nest(43, xdp))));
  EXPECT_NE(r.operation().find("xdpgeneric"), std::string::npos);
}

TEST(XdpGolden, AttachByIndexInEachMode) {
  EXPECT_TRUE(sameBytes(XdpRequests::attach(5u, 9, XdpMode::Native).bytes(), setlink(5, Attrs().nest(43, Attrs().u32(1, 9).u32(3, 1 | 4)))));
  EXPECT_TRUE(sameBytes(XdpRequests::attach(5u, 9, XdpMode::Offload).bytes(), setlink(5, Attrs().nest(43, Attrs().u32(1, 9).u32(3, 1 | 8)))));
  EXPECT_TRUE(sameBytes(XdpRequests::attach(5u, 9, XdpMode::Auto).bytes(), setlink(5, Attrs().nest(43, Attrs().u32(1, 9).u32(3, 1)))));
}

TEST(XdpGolden, ReplaceCarriesTheExpectedProgram) {
  Request r = XdpRequests::replace(5u, 9, 4, XdpMode::Generic);
  EXPECT_TRUE(sameBytes(r.bytes(), setlink(5, Attrs().nest(43, Attrs().u32(1, 9).u32(8, 4).u32(3, 16 | 2)))));
}

TEST(XdpGolden, DetachSendsFdMinusOne) {
  EXPECT_TRUE(sameBytes(XdpRequests::detach(5u, XdpMode::Native).bytes(), setlink(5, Attrs().nest(43, Attrs().u32(1, 0xffffffffu).u32(3, 4)))));
  // Without a mode no flags attribute at all (the kernel picks the hook).
  EXPECT_TRUE(sameBytes(XdpRequests::detach(5u, XdpMode::Auto).bytes(), setlink(5, Attrs().nest(43, Attrs().u32(1, 0xffffffffu)))));
}

TEST(XdpGolden, GetSkipsStatistics) {
  EXPECT_TRUE(sameBytes(XdpRequests::get("vb").bytes(), test::netlinkMessage(18, kReq, Ifinfo{}.bytes(), Attrs().str(3, "vb").u32(29, 8))));
  EXPECT_THROW(XdpRequests::get("bad name"), Error);
}

nlmsghdr* reply(Bytes& storage, const Attrs& xdp) {
  storage = test::netlinkMessage(16, 0, Ifinfo{.index = 5}.bytes(), Attrs().str(3, "vb").nestNoFlag(43, xdp));
  return reinterpret_cast<nlmsghdr*>(storage.data());
}

TEST(XdpDecode, OneModeReportsProgIdOnly) {
  Bytes b;
  XdpStatus s = rtnl::decodeXdpStatus(reply(b, Attrs().u8(2, 2).u32(4, 33)));
  EXPECT_EQ(s, (XdpStatus{.genericProgId = 33, .nativeProgId = 0, .offloadProgId = 0, .progId = 33}));
  s = rtnl::decodeXdpStatus(reply(b, Attrs().u8(2, 1).u32(4, 34)));
  EXPECT_EQ(s.nativeProgId, 34u);
  s = rtnl::decodeXdpStatus(reply(b, Attrs().u8(2, 3).u32(4, 35)));
  EXPECT_EQ(s.offloadProgId, 35u);
}

TEST(XdpDecode, MultipleModesHaveNoSingleId) {
  Bytes b;
  XdpStatus s = rtnl::decodeXdpStatus(reply(b, Attrs().u8(2, 4).u32(6, 40).u32(5, 41)));
  EXPECT_EQ(s, (XdpStatus{.genericProgId = 40, .nativeProgId = 41, .offloadProgId = 0, .progId = 0}));
  EXPECT_TRUE(s.attached());
}

TEST(XdpDecode, NoneOrAbsent) {
  Bytes b;
  EXPECT_FALSE(rtnl::decodeXdpStatus(reply(b, Attrs().u8(2, 0))).attached());
  Bytes plain = test::netlinkMessage(16, 0, Ifinfo{.index = 5}.bytes(), Attrs().str(3, "vb"));
  EXPECT_EQ(rtnl::decodeXdpStatus(reinterpret_cast<nlmsghdr*>(plain.data())), XdpStatus{});
}

// What the link decoder (every `link show`, LinkApi::get/list) makes of IFLA_XDP. The kernel's
// layout (rtnl_xdp_fill): the per-mode ids first, then IFLA_XDP_ATTACHED, then IFLA_XDP_PROG_ID
// unless several modes are in use.
LinkInfo decodedLink(Bytes& storage, const std::optional<Attrs>& xdp) {
  Attrs a = Attrs().str(3, "vb").u32(4 /* IFLA_MTU */, 1500);
  if (xdp) a.nestNoFlag(43, *xdp);
  storage = test::netlinkMessage(16, 0, Ifinfo{.index = 5}.bytes(), a);
  return rtnl::decodeLink(reinterpret_cast<nlmsghdr*>(storage.data()), false);
}

TEST(XdpDecode, LinkCarriesTheAttachedProgram) {
  Bytes b;
  LinkInfo generic = decodedLink(b, Attrs().u32(6, 548).u8(2, 2).u32(4, 548));
  ASSERT_TRUE(generic.xdp.has_value());
  EXPECT_EQ(*generic.xdp, (XdpStatus{.genericProgId = 548, .nativeProgId = 0, .offloadProgId = 0, .progId = 548}));
  EXPECT_FALSE(generic.xdp->multi());
  EXPECT_FALSE(generic.unknown.find(43).has_value()) << "decoded, so not kept raw";
  EXPECT_EQ(generic.mtu, 1500u);

  LinkInfo native = decodedLink(b, Attrs().u32(5, 9).u8(2, 1).u32(4, 9));
  EXPECT_EQ(*native.xdp, (XdpStatus{.genericProgId = 0, .nativeProgId = 9, .offloadProgId = 0, .progId = 9}));

  LinkInfo multi = decodedLink(b, Attrs().u32(6, 7).u32(7, 8).u8(2, 4));
  EXPECT_EQ(*multi.xdp, (XdpStatus{.genericProgId = 7, .nativeProgId = 0, .offloadProgId = 8, .progId = 0}));
  EXPECT_TRUE(multi.xdp->multi());
}

TEST(XdpDecode, LinkWithoutProgramOrWithoutTheNest) {
  Bytes b;
  LinkInfo none = decodedLink(b, Attrs().u8(2, 0));
  ASSERT_TRUE(none.xdp.has_value()) << "the kernel reported the hook: nothing attached";
  EXPECT_FALSE(none.xdp->attached());
  EXPECT_FALSE(decodedLink(b, std::nullopt).xdp.has_value()) << "not reported, so unset";
}

TEST(XdpDecode, ASingleIdNeverClearsAPerModeId) {
  // A reply with ATTACHED = SKB but no IFLA_XDP_PROG_ID keeps the per-mode id it carries.
  Bytes b;
  EXPECT_EQ(decodedLink(b, Attrs().u32(6, 31).u8(2, 2)).xdp->genericProgId, 31u);
}

TEST(XdpDecode, ShortAttributeIsAMalformedReply) {
  Bytes b;
  Attrs shortId = Attrs().raw(4, {0x01, 0x02}).u8(2, 2);  // a 2-byte program id
  EXPECT_THROW(decodedLink(b, shortId), Error);
}

}  // namespace
}  // namespace fastlink
