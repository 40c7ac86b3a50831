// Request::exactUndo: which requests have an exact undo, and its bytes (the add's message with
// the delete type and plain request flags; every attribute kept).
#include <gtest/gtest.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <cstring>

#include "fastlink/addr.hpp"
#include "fastlink/link.hpp"
#include "fastlink/route.hpp"

namespace fastlink {
namespace {

nlmsghdr header(std::span<const uint8_t> bytes) {
  nlmsghdr h;
  std::memcpy(&h, bytes.data(), sizeof h);
  return h;
}

RouteInfo route() { return RouteInfo(Prefix::parse("10.1.0.0/16")).setGateway(IpAddress::parse("10.0.0.2")).setTable(100); }

TEST(RequestUndo, RouteAddIsUndoneByTheSameMessageAsADelete) {
  Request add = RouteRequests::add(route());
  ASSERT_TRUE(add.hasExactUndo());
  std::optional<Request> undo = add.exactUndo();
  ASSERT_TRUE(undo);
  auto a = add.bytes(), u = undo->bytes();
  ASSERT_EQ(a.size(), u.size());
  EXPECT_EQ(header(u).nlmsg_type, RTM_DELROUTE);
  EXPECT_EQ(header(u).nlmsg_flags, NLM_F_REQUEST);
  EXPECT_EQ(header(u).nlmsg_len, header(a).nlmsg_len);
  // Everything after the type and flags (seq, pid, rtmsg, attributes) is the add's.
  EXPECT_EQ(0, std::memcmp(a.data() + 8, u.data() + 8, a.size() - 8));
  EXPECT_NE(undo->operation().find("undo of:"), std::string::npos);
}

TEST(RequestUndo, AddressAddHasOneToo) {
  Request add = AddrRequests::add(AddrInfo(Prefix::parse("10.0.0.1/24"), Ifref(3u)));
  std::optional<Request> undo = add.exactUndo();
  ASSERT_TRUE(undo);
  EXPECT_EQ(header(undo->bytes()).nlmsg_type, RTM_DELADDR);
}

TEST(RequestUndo, RequestsThatOverwriteOrDeleteHaveNone) {
  EXPECT_FALSE(RouteRequests::replace(route()).hasExactUndo());  // what it replaced is gone
  EXPECT_FALSE(RouteRequests::append(route()).hasExactUndo());
  EXPECT_FALSE(RouteRequests::del(route()).hasExactUndo());
  EXPECT_FALSE(RouteRequests::del(route()).exactUndo());
  EXPECT_FALSE(Request().hasExactUndo());
  // A link add has side effects a delete does not reverse exactly (veth peers, namespaces).
  EXPECT_FALSE(LinkRequests::add(LinkInfo().setName("br0").setKind("bridge")).hasExactUndo());
}

TEST(RequestUndo, SeveralMessagesHaveNone) {
  Request add = RouteRequests::add(route());
  Request two = RouteRequests::add(route());
  two.appendMessage(add.bytes());
  EXPECT_FALSE(two.hasExactUndo());
}

}  // namespace
}  // namespace fastlink
