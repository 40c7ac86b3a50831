// Golden bytes for the mptcp_pm family: every request builder against a hand-laid message, and
// the reply decoders against replies laid out like the kernel's (mptcp_nl_fill_addr,
// mptcp_pm_nl_get_limits_doit). Numbers are written out from the uapi enum order
// (include/uapi/linux/mptcp.h), not taken from the header, so a wrong constant in src/ shows here:
//   commands: ADD_ADDR 1, DEL_ADDR 2, GET_ADDR 3, FLUSH_ADDRS 4, SET_LIMITS 5, GET_LIMITS 6
//   attributes: ADDR 1 (nested), RCV_ADD_ADDRS 2, SUBFLOWS 3
//   address nest: FAMILY 1 (u16), ID 2 (u8), ADDR4 3, ADDR6 4, PORT 5 (u16), FLAGS 6, IF_IDX 7 (s32)
//   flags: signal 1, subflow 2, backup 4, fullmesh 8, implicit 16; version 1
#include <gtest/gtest.h>
#include <linux/netlink.h>

#include "fastlink/error.hpp"
#include "fastlink/mptcp.hpp"
#include "mptcp/mptcp_codec.hpp"
#include "unit/genl_golden.hpp"

namespace fastlink {
namespace {

using test::AlignedMessage;
using test::Attrs;
using test::Bytes;
using test::sameBytes;

const GenlFamily kMptcp{"mptcp_pm", 0x1d, 1};
const test::GenlMessages message(kMptcp);

TEST(MptcpGolden, ShowListsWithoutAttributesAndGetsByIdInTheAddressNest) {
  Request list = MptcpRequests::listEndpoints(kMptcp);
  EXPECT_TRUE(sameBytes(list.bytes(), message(3, Attrs())));
  EXPECT_EQ(list.operation(), "ip mptcp endpoint show");
  Request get = MptcpRequests::getEndpoint(kMptcp, 7);
  EXPECT_TRUE(sameBytes(get.bytes(), message(3, Attrs().nest(1, Attrs().u8(2, 7)))));
  EXPECT_EQ(get.operation(), "ip mptcp endpoint show id 7");
}

TEST(MptcpGolden, AddSendsFamilyAddressAndOnlyWhatIsSet) {
  MptcpEndpoint plain{.address = IpAddress::parse("10.0.0.1"), .flags = kMptcpSubflow};
  EXPECT_TRUE(sameBytes(MptcpRequests::addEndpoint(kMptcp, plain).bytes(),
                        message(1, Attrs().nest(1, Attrs().u16(1, 2).raw(3, {10, 0, 0, 1}).u32(6, 2)))));
  MptcpEndpoint all{.address = IpAddress::parse("2001:db8::1"), .id = 9, .port = 1234,
                    .flags = kMptcpSignal | kMptcpBackup, .ifindex = 3};
  Request r = MptcpRequests::addEndpoint(kMptcp, all);
  EXPECT_TRUE(sameBytes(r.bytes(), message(1, Attrs().nest(1, Attrs()
                                                               .u16(1, 10)
                                                               .raw(4, {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1})
                                                               .u8(2, 9)
                                                               .u16(5, 1234)
                                                               .u32(6, 5)
                                                               .u32(7, 3)))));
  EXPECT_EQ(r.operation(), "ip mptcp endpoint add 2001:db8::1");
  MptcpEndpoint unknown{.address = IpAddress::parse("10.0.0.1"), .flags = 1u << 7};
  EXPECT_THROW(MptcpRequests::addEndpoint(kMptcp, unknown), Error);
}

TEST(MptcpGolden, DeleteFlushAndLimits) {
  EXPECT_TRUE(sameBytes(MptcpRequests::deleteEndpoint(kMptcp, 7).bytes(), message(2, Attrs().nest(1, Attrs().u8(2, 7)))));
  EXPECT_TRUE(sameBytes(MptcpRequests::flushEndpoints(kMptcp).bytes(), message(4, Attrs())));
  EXPECT_TRUE(sameBytes(MptcpRequests::getLimits(kMptcp).bytes(), message(6, Attrs())));
  Request set = MptcpRequests::setLimits(kMptcp, MptcpLimits{.addAddrAccepted = 4, .subflows = 3});
  EXPECT_TRUE(sameBytes(set.bytes(), message(5, Attrs().u32(2, 4).u32(3, 3))));
  EXPECT_EQ(set.operation(), "ip mptcp limits set subflows 3 add_addr_accepted 4");
  EXPECT_TRUE(sameBytes(MptcpRequests::setLimits(kMptcp, MptcpLimits{.subflows = 1}).bytes(), message(5, Attrs().u32(3, 1))));
  EXPECT_THROW(MptcpRequests::setLimits(kMptcp, MptcpLimits{}), Error);
}

TEST(MptcpDecode, EndpointAsTheKernelFillsIt) {
  // mptcp_nl_fill_addr: FAMILY, ID, ADDR4/ADDR6, PORT (0 for none on 6.18), FLAGS, IF_IDX when set.
  AlignedMessage v4(message(3, Attrs().nest(1, Attrs().u16(1, 2).u8(2, 7).raw(3, {10, 0, 0, 2}).u16(5, 0).u32(6, 5)), 0));
  MptcpEndpoint e = mptcp::decodeEndpoint(v4.as<nlmsghdr>());
  EXPECT_EQ(e, (MptcpEndpoint{.address = IpAddress::parse("10.0.0.2"), .id = 7, .flags = kMptcpSignal | kMptcpBackup}));
  AlignedMessage v6(message(
      3, Attrs().nest(1, Attrs().u16(1, 10).u8(2, 1).raw(4, {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1})
                             .u16(5, 1234).u32(6, 1).u32(7, 4)),
      0));
  EXPECT_EQ(mptcp::decodeEndpoint(v6.as<nlmsghdr>()),
            (MptcpEndpoint{.address = IpAddress::parse("2001:db8::1"), .id = 1, .port = 1234, .flags = kMptcpSignal, .ifindex = 4}));
}

TEST(MptcpDecode, MalformedEndpointsAndLimits) {
  AlignedMessage noNest(message(3, Attrs().u32(2, 1), 0));
  EXPECT_THROW(mptcp::decodeEndpoint(noNest.as<nlmsghdr>()), Error);
  AlignedMessage shortAddress(message(3, Attrs().nest(1, Attrs().u16(1, 10).raw(4, {0x20, 0x01, 0x0d, 0xb8})), 0));
  EXPECT_THROW(mptcp::decodeEndpoint(shortAddress.as<nlmsghdr>()), Error);
  AlignedMessage limits(message(6, Attrs().u32(2, 0).u32(3, 2), 0));
  EXPECT_EQ(mptcp::decodeLimits(limits.as<nlmsghdr>()), (MptcpLimits{.addAddrAccepted = 0, .subflows = 2}));
}

}  // namespace
}  // namespace fastlink
