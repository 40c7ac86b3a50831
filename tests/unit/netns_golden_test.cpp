// Golden bytes for the nsid requests (RTM_NEWNSID / RTM_GETNSID, src/rtnl/netns_ids.cpp) and
// the nsid decoder against messages laid out like the kernel's (rtnl_net_fill). Numbers are
// written out from the uapi (include/uapi/linux/rtnetlink.h, net_namespace.h), not taken from
// the headers, so a wrong constant in src/ shows here:
//   RTM_NEWNSID 88, RTM_DELNSID 89, RTM_GETNSID 90; rtgenmsg: family (1 byte, padded to 4)
//   NETNSA_NSID 1 (s32), NETNSA_PID 2 (u32), NETNSA_FD 3 (u32), NETNSA_TARGET_NSID 4 (s32),
//   NETNSA_CURRENT_NSID 5 (s32); NLM_F_REQUEST 1, NLM_F_DUMP 0x300
#include <gtest/gtest.h>
#include <linux/netlink.h>

#include "fastlink/error.hpp"
#include "fastlink/netns_ids.hpp"
#include "fastlink/netns_named.hpp"
#include "rtnl/netns_codec.hpp"
#include "unit/golden.hpp"

namespace fastlink {
namespace {

using test::AlignedMessage;
using test::Attrs;
using test::Bytes;
using test::sameBytes;

const Bytes kRtgen{0, 0, 0, 0};  // AF_UNSPEC and the padding

Bytes request(uint16_t type, const Attrs& attrs, uint16_t flags = 1) { return test::netlinkMessage(type, flags, kRtgen, attrs); }

TEST(NetnsGolden, SetSendsTheFdOrPidThenTheId) {
  Request byFd = NetnsIdRequests::set(7, 0, 99, "blue");
  EXPECT_TRUE(sameBytes(byFd.bytes(), request(88, Attrs().u32(3, 7).u32(1, 99))));
  EXPECT_EQ(byFd.operation(), "netns set blue 99");
  // auto: -1 (NETNSA_NSID_NOT_ASSIGNED) lets the kernel pick.
  Request byPid = NetnsIdRequests::set(-1, 1234, NsidInfo::kNotAssigned, "pid 1234");
  EXPECT_TRUE(sameBytes(byPid.bytes(), request(88, Attrs().u32(2, 1234).u32(1, 0xffffffff))));
  EXPECT_EQ(byPid.operation(), "netns set pid 1234 auto");
}

TEST(NetnsGolden, GetAsksByFdOrPid) {
  EXPECT_TRUE(sameBytes(NetnsIdRequests::get(5, 0, "blue").bytes(), request(90, Attrs().u32(3, 5))));
  EXPECT_TRUE(sameBytes(NetnsIdRequests::get(-1, 42, "pid 42").bytes(), request(90, Attrs().u32(2, 42))));
}

TEST(NetnsGolden, FindAndListCarryTheTarget) {
  EXPECT_TRUE(sameBytes(NetnsIdRequests::find(3, std::nullopt).bytes(), request(90, Attrs().u32(1, 3))));
  Request find = NetnsIdRequests::find(3, 7);
  EXPECT_TRUE(sameBytes(find.bytes(), request(90, Attrs().u32(1, 3).u32(4, 7))));
  EXPECT_EQ(find.operation(), "netns list-id target-nsid 7 nsid 3");
  EXPECT_TRUE(sameBytes(NetnsIdRequests::list({}).bytes(), request(90, Attrs(), 0x301)));
  Request list = NetnsIdRequests::list(NsidFilter{.targetNsid = 2});
  EXPECT_TRUE(sameBytes(list.bytes(), request(90, Attrs().u32(4, 2), 0x301)));
  EXPECT_EQ(list.operation(), "netns list-id target-nsid 2");
}

NsidInfo decode(uint16_t type, const Attrs& attrs, const Bytes& header = kRtgen) {
  AlignedMessage m(test::netlinkMessage(type, 2, header, attrs));
  return rtnl::decodeNsid(m.as<nlmsghdr>());
}

TEST(NetnsDecode, AsTheKernelFillsIt) {
  // rtnl_net_fill: NETNSA_NSID, then NETNSA_CURRENT_NSID in a dump with a target.
  EXPECT_EQ(decode(88, Attrs().u32(1, 99)), (NsidInfo{.nsid = 99, .currentNsid = std::nullopt}));
  EXPECT_EQ(decode(88, Attrs().u32(1, 0).u32(5, 0xffffffff)), (NsidInfo{.nsid = 0, .currentNsid = -1}));
  EXPECT_EQ(decode(88, Attrs().u32(1, 0xffffffff)), (NsidInfo{.nsid = NsidInfo::kNotAssigned, .currentNsid = std::nullopt}));
  // A freed id (monitor), and an attribute of a later kernel, left alone.
  EXPECT_EQ(decode(89, Attrs().u32(1, 4).u32(9, 1)), (NsidInfo{.nsid = 4, .currentNsid = std::nullopt, .deleted = true}));
}

TEST(NetnsDecode, RefusesWhatIsNoNsid) {
  EXPECT_THROW(decode(88, Attrs()), Error);                      // no NETNSA_NSID
  EXPECT_THROW(decode(88, Attrs().raw(1, {1, 2})), Error);       // an id shorter than an s32
  EXPECT_THROW(decode(88, Attrs().u32(1, 1).raw(5, {})), Error);  // a current id without its s32
  EXPECT_THROW(decode(88, Attrs(), Bytes{}), Error);             // no rtgenmsg
}

TEST(NetnsNames, AsIpAcceptsThem) {
  EXPECT_TRUE(validNetnsName("blue"));
  EXPECT_TRUE(validNetnsName(std::string(255, 'x')));
  EXPECT_FALSE(validNetnsName(std::string(256, 'x')));
  for (const char* bad : {"", ".", "..", "a/b", "/"}) EXPECT_FALSE(validNetnsName(bad)) << bad;
  EXPECT_THROW(addNamedNetns("a/b"), Error);  // refused before anything is touched
  EXPECT_THROW(deleteNamedNetns(".."), Error);
}

}  // namespace
}  // namespace fastlink
