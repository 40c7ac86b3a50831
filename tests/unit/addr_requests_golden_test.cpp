// Golden bytes for address requests and for decoding the kernel's address messages.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <linux/if_addr.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "core/message.hpp"
#include "fastlink/addr.hpp"
#include "rtnl/addr_codec.hpp"
#include "unit/route_golden.hpp"
#include "support/view_agreement.hpp"

namespace fastlink {
namespace {

using test::AlignedMessage;
using test::Attrs;
using test::Bytes;
using test::familyMessage;
using test::Ifaddrmsg;
using test::sameBytes;
using test::v4;

constexpr uint16_t kAdd = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL;

Bytes bytesOf(const char* ip) {
  IpAddress address = IpAddress::parse(ip);  // bytes() is a view: keep the address alive
  auto b = address.bytes();
  return Bytes(b.begin(), b.end());
}

Bytes cacheinfo(uint32_t preferred, uint32_t valid) {
  Bytes b;
  test::appendLe32(b, preferred);
  test::appendLe32(b, valid);
  test::appendLe32(b, 0);
  test::appendLe32(b, 0);
  return b;
}

/// decodeAddr, with the AddrView of the same message checked against it field by field.
AddrInfo decodeAddr(const AlignedMessage& m) {
  AddrInfo a = rtnl::decodeAddr(m.as<nlmsghdr>());
  AddrView view(std::span(m.as<uint8_t>(), m.as<nlmsghdr>()->nlmsg_len));
  EXPECT_EQ(test::addrViewDisagreement(view, a), "");
  return a;
}

TEST(AddrRequestsGolden, AddIpv4WithLabelAndBroadcast) {
  // ip addr add 10.0.0.1/24 dev <3> broadcast + label v0:web
  Request r = AddrRequests::add(AddrInfo(Prefix::parse("10.0.0.1/24"), 3u).setBroadcastAuto().setLabel("v0:web"));
  Ifaddrmsg h{.family = AF_INET, .prefixlen = 24, .scope = RT_SCOPE_UNIVERSE, .index = 3};
  Attrs a = Attrs()
                .raw(IFA_LOCAL, v4(10, 0, 0, 1))
                .raw(IFA_ADDRESS, v4(10, 0, 0, 1))
                .raw(IFA_BROADCAST, v4(10, 0, 0, 255))
                .str(IFA_LABEL, "v0:web");
  EXPECT_TRUE(sameBytes(r.bytes(), familyMessage(RTM_NEWADDR, kAdd, h, a)));
  EXPECT_EQ(r.operation(), "address add 10.0.0.1/24 dev 3");
}

TEST(AddrRequestsGolden, AddPeerAndLoopbackScope) {
  // ip addr add 10.1.0.1 peer 10.1.0.2/32 dev <3>
  Request r = AddrRequests::add(AddrInfo(Prefix::parse("10.1.0.1/32"), 3u).setPeer(IpAddress::parse("10.1.0.2")));
  Ifaddrmsg h{.family = AF_INET, .prefixlen = 32, .index = 3};
  EXPECT_TRUE(sameBytes(r.bytes(), familyMessage(RTM_NEWADDR, kAdd, h,
                                                 Attrs().raw(IFA_LOCAL, v4(10, 1, 0, 1)).raw(IFA_ADDRESS, v4(10, 1, 0, 2)))));
  // ip addr add 127.0.0.2/8 dev <1>: host scope by default, like iproute2.
  Request lo = AddrRequests::add(AddrInfo(Prefix::parse("127.0.0.2/8"), 1u));
  Ifaddrmsg hl{.family = AF_INET, .prefixlen = 8, .scope = RT_SCOPE_HOST, .index = 1};
  EXPECT_TRUE(sameBytes(lo.bytes(), familyMessage(RTM_NEWADDR, kAdd, hl,
                                                  Attrs().raw(IFA_LOCAL, v4(127, 0, 0, 2)).raw(IFA_ADDRESS, v4(127, 0, 0, 2)))));
}

TEST(AddrRequestsGolden, Ipv6FlagsAndLifetimesReplaceAndDel) {
  // ip addr replace 2001:db8::1/64 dev <4> nodad noprefixroute valid_lft 300 preferred_lft 100
  Request r = AddrRequests::replace(AddrInfo(Prefix::parse("2001:db8::1/64"), 4u)
                                        .setNodad()
                                        .setNoprefixroute()
                                        .setValidLifetime(300)
                                        .setPreferredLifetime(100));
  Ifaddrmsg h{.family = AF_INET6, .prefixlen = 64, .flags = IFA_F_NODAD, .index = 4};
  Attrs a = Attrs()
                .raw(IFA_LOCAL, bytesOf("2001:db8::1"))
                .raw(IFA_ADDRESS, bytesOf("2001:db8::1"))
                .raw(IFA_CACHEINFO, cacheinfo(100, 300))
                .u32(IFA_FLAGS, IFA_F_NODAD | IFA_F_NOPREFIXROUTE);
  EXPECT_TRUE(sameBytes(r.bytes(), familyMessage(RTM_NEWADDR, NLM_F_REQUEST | NLM_F_CREATE | NLM_F_REPLACE, h, a)));
  // ip addr del fe80::1/64 dev <4>
  Request d = AddrRequests::del(AddrInfo(Prefix::parse("fe80::1/64"), 4u));
  Ifaddrmsg hd{.family = AF_INET6, .prefixlen = 64, .index = 4};
  EXPECT_TRUE(sameBytes(d.bytes(), familyMessage(RTM_DELADDR, NLM_F_REQUEST, hd,
                                                 Attrs().raw(IFA_LOCAL, bytesOf("fe80::1")).raw(IFA_ADDRESS, bytesOf("fe80::1")))));
}

TEST(AddrRequestsGolden, DumpRequestFiltersDeviceAndFamily) {
  core::MessageWriter w(RTM_GETADDR, 0);
  rtnl::encodeAddrDump(w, AddrFilter().setFamily(IpAddress::Family::v6), 7);
  EXPECT_TRUE(sameBytes(w.bytes(), familyMessage(RTM_GETADDR, NLM_F_REQUEST, Ifaddrmsg{.family = AF_INET6, .index = 7})));
}

TEST(AddrRequestsGolden, BadInput) {
  auto reason = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), std::errc::invalid_argument);
      return e.reason();
    }
    return std::string("no error");
  };
  EXPECT_EQ(reason([] { AddrRequests::add(AddrInfo().setDev(1u)); }), "an address is required (ADDR/LEN)");
  EXPECT_EQ(reason([] { AddrRequests::add(AddrInfo().setAddress(Prefix::parse("10.0.0.1/24"))); }),
            "a device is required (dev D)");
  EXPECT_EQ(reason([] { AddrRequests::add(AddrInfo(Prefix::parse("2001:db8::1/64"), 1u).setLabel("x")); }),
            "labels exist only for IPv4 addresses");
  EXPECT_EQ(reason([] { AddrRequests::add(AddrInfo(Prefix::parse("10.0.0.1/24"), 1u).setValidLifetime(0)); }),
            "valid_lft is zero");
  EXPECT_EQ(reason([] { AddrRequests::add(AddrInfo(Prefix::parse("10.0.0.1/24"), "v0")); }),
            "dev \"v0\" must be resolved to an ifindex first (LinkApi does this)");
}

// As the kernel reports a point-to-point address with a label, lifetimes and IFA_FLAGS, plus an
// attribute fastlink keeps raw (IFA_PROTO).
TEST(AddrDecodeGolden, KernelMessage) {
  Ifaddrmsg h{.family = AF_INET, .prefixlen = 32, .flags = IFA_F_PERMANENT, .scope = RT_SCOPE_UNIVERSE, .index = 3};
  Attrs a = Attrs()
                .raw(IFA_ADDRESS, v4(10, 1, 0, 2))
                .raw(IFA_LOCAL, v4(10, 1, 0, 1))
                .str(IFA_LABEL, "v0:p2p")
                .u32(IFA_FLAGS, IFA_F_PERMANENT | IFA_F_NOPREFIXROUTE)
                .raw(IFA_CACHEINFO, cacheinfo(0xffffffff, 0xffffffff))
                .u8(IFA_PROTO, 3);
  AlignedMessage m(familyMessage(RTM_NEWADDR, NLM_F_MULTI, h, a, 9, 100));
  ASSERT_TRUE(rtnl::isIpAddr(m.as<nlmsghdr>()));
  AddrInfo x = decodeAddr(m);
  EXPECT_EQ(x.address, Prefix::parse("10.1.0.1/32"));
  EXPECT_EQ(x.peer, IpAddress::parse("10.1.0.2"));
  EXPECT_EQ(x.devIndex(), 3u);
  EXPECT_EQ(x.label, "v0:p2p");
  EXPECT_TRUE(x.has(AddrFlag::Noprefixroute));
  EXPECT_TRUE(x.has(AddrFlag::Permanent));
  EXPECT_EQ(x.validLifetime, kLifetimeForever);
  ASSERT_EQ(x.unknown.count(), 1u);
  EXPECT_EQ(x.unknown.list()[0].type, IFA_PROTO);
  // Emit it back (as del: local + peer + label) and compare.
  x.label.reset();
  Request d = AddrRequests::del(x);
  Ifaddrmsg hd{.family = AF_INET, .prefixlen = 32, .index = 3};  // del sends no flags
  EXPECT_TRUE(sameBytes(d.bytes(), familyMessage(RTM_DELADDR, NLM_F_REQUEST, hd,
                                                 Attrs().raw(IFA_LOCAL, v4(10, 1, 0, 1)).raw(IFA_ADDRESS, v4(10, 1, 0, 2)))));
}

}  // namespace
}  // namespace fastlink
