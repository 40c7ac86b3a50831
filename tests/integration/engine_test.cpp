// The engine's public mechanisms against the real kernel: subscriptions (including overflow),
// raw requests and dumps, and raw attributes appended to a fastlink-built request. The oracle is
// `ip` (it makes the changes a subscription must see, and reads back what raw requests did).
#include <linux/genetlink.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <set>
#include <string>

#include "integration/link_fixture.hpp"

namespace fastlink::test {
namespace {

using namespace std::chrono_literals;

class EngineTest : public LinkTest {};

std::string ifname(const RawMessage& m) {
  for (const auto& a : m.attributes.list())
    if (a.type == IFLA_IFNAME) return std::string(reinterpret_cast<const char*>(a.payload.data()), strnlen(reinterpret_cast<const char*>(a.payload.data()), a.payload.size()));
  return {};
}

// Reads notifications until `done` says so or `limit` passes; returns whether it did. The limit
// is generous (the loop ends as soon as `done` holds): the sanitizer build on a loaded machine.
bool readUntil(Subscription& sub, const Subscription::Handlers& handlers, const std::function<bool()>& done,
               std::chrono::milliseconds limit = 10s) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > end) return false;
    sub.wait(handlers, 100ms);
  }
  return true;
}

TEST_F(EngineTest, SubscriptionDeliversLinkNotifications) {
  Subscription sub = nl.subscribe({NotificationGroup::Link});
  EXPECT_GE(sub.fd(), 0);
  std::set<std::string> created;
  Subscription::Handlers h;
  h.onNotification = [&](const Notification& n) {
    if (n.type() != RTM_NEWLINK) return;
    created.insert(ifname(RawMessage::parse(n.bytes, sizeof(ifinfomsg))));
  };
  EXPECT_EQ(sub.process(h), 0u);  // nothing yet, and it does not block
  ns.ip("link add sa type veth peer name sb");
  EXPECT_TRUE(readUntil(sub, h, [&] { return created.count("sa") && created.count("sb"); }));
  // Notifications never reach the request socket's reply stream.
  EXPECT_EQ(nl.counters().droppedUnexpected, 0u);
  EXPECT_EQ(nl.counters().droppedForeign, 0u);
}

TEST_F(EngineTest, SubscriptionReportsOverflowAndKeepsDelivering) {
  // A small receive buffer holds a few link notifications, not the 80+ of 40 veth pairs.
  Subscription sub = nl.subscribe({NotificationGroup::Link}, SubscriptionOptions{.receiveBufferBytes = 16384});
  std::string script;
  for (int i = 0; i < 40; ++i) script += "link add o" + std::to_string(i) + " type veth peer name op" + std::to_string(i) + "\n";
  CommandResult r = run("printf '" + script + "' | ip -n " + ns.name() + " -batch -");
  ASSERT_EQ(r.status, 0) << r.err;
  int overflows = 0;
  std::set<std::string> created;
  Subscription::Handlers h;
  h.onNotification = [&](const Notification& n) {
    if (n.type() == RTM_NEWLINK) created.insert(ifname(RawMessage::parse(n.bytes, sizeof(ifinfomsg))));
  };
  h.onOverflow = [&] { ++overflows; };
  sub.process(h);
  EXPECT_GE(overflows, 1);
  EXPECT_EQ(sub.overflows(), static_cast<uint64_t>(overflows));
  EXPECT_LT(created.size(), 80u) << "the buffer was meant to overflow";
  // Still usable: a later change arrives.
  ns.ip("link add after type veth peer name afterp");
  EXPECT_TRUE(readUntil(sub, h, [&] { return created.count("after") == 1; }));

  // Without an onOverflow handler the overflow is an Error with its own code.
  CommandResult again = run("printf '" + script + "' | sed s/o/q/g | ip -n " + ns.name() + " -batch -");
  ASSERT_EQ(again.status, 0) << again.err;
  Subscription::Handlers noOverflowHandler;
  noOverflowHandler.onNotification = h.onNotification;
  try {
    sub.process(noOverflowHandler);
    ADD_FAILURE() << "no overflow reported";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::receive_overflow);
  }
}

TEST_F(EngineTest, RawLinkDumpMatchesIp) {
  ns.ip("link add ra type veth peer name rb");
  RawMessage req;
  req.type = RTM_GETLINK;
  req.header.assign(sizeof(ifinfomsg), 0);
  std::vector<RawMessage> replies = nl.raw().dumpAll(req, "raw link dump");
  std::set<std::string> names;
  for (const auto& m : replies) {
    EXPECT_EQ(m.type, RTM_NEWLINK);
    EXPECT_EQ(m.header.size(), sizeof(ifinfomsg));
    names.insert(ifname(m));
  }
  std::set<std::string> expected;
  for (const auto& l : ns.ipJson("link show")) expected.insert(l["ifname"].get<std::string>());
  EXPECT_EQ(names, expected);
}

TEST_F(EngineTest, RawRequestFailureCarriesTheExtack) {
  // Equivalent to: ip link set dev ea mtu 10 (below a veth's minimum of 68).
  addVeth("ea", "eb");
  RawMessage req;
  req.type = RTM_NEWLINK;
  ifinfomsg ifi{};
  ifi.ifi_index = static_cast<int>(links.indexOf("ea"));
  req.header.assign(reinterpret_cast<const uint8_t*>(&ifi), reinterpret_cast<const uint8_t*>(&ifi) + sizeof ifi);
  uint32_t mtu = 10;
  req.attributes.append(IFLA_MTU, {reinterpret_cast<const uint8_t*>(&mtu), sizeof mtu});
  try {
    nl.raw().execute(req, "raw link set ea mtu 10");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::invalid_argument);
    EXPECT_NE(e.extack().find("mtu"), std::string::npos) << e.what();
    EXPECT_EQ(e.operation(), "raw link set ea mtu 10");
  }
  EXPECT_EQ(ipLink("ea")["mtu"], 1500);
}

TEST_F(EngineTest, RawQueryReturnsTheMessage) {
  RawMessage req;
  req.type = RTM_GETLINK;
  ifinfomsg ifi{};
  ifi.ifi_index = 1;
  req.header.assign(reinterpret_cast<const uint8_t*>(&ifi), reinterpret_cast<const uint8_t*>(&ifi) + sizeof ifi);
  RawMessage reply = nl.raw().query(req);
  EXPECT_EQ(ifname(reply), "lo");
}

TEST_F(EngineTest, AppendedRawAttributesReachTheKernel) {
  addVeth("xa", "xb");
  // fastlink builds the mtu change; the caller adds txqlen, which fastlink is not asked to set.
  Request r = LinkRequests::set("xa", LinkInfo().setMtu(1400));
  RawAttributes extra;
  uint32_t txqlen = 77;
  extra.append(IFLA_TXQLEN, {reinterpret_cast<const uint8_t*>(&txqlen), sizeof txqlen});
  r.appendAttributes(extra);
  nl.execute(r);
  auto link = ipLink("xa");
  EXPECT_EQ(link["mtu"], 1400);
  EXPECT_EQ(link["txqlen"], 77);
}

TEST_F(EngineTest, MultiMessageRequestAgainstTheKernel) {
  addVeth("ma", "mb");
  // Two messages, one request: the second fails (no such device), so the request fails with
  // the second part named, while the first part applied (the kernel handles each message).
  Request r = LinkRequests::set("ma", LinkInfo().setMtu(1300));
  r.appendMessage(LinkRequests::set("nosuch0", LinkInfo().setMtu(1300)));
  r.setOperation("two-part change");
  Batch b;
  b.add(LinkRequests::set("mb", LinkInfo().setMtu(1200)));
  b.add(std::move(r));
  auto result = nl.run(b, {.onError = OnError::Continue});
  ASSERT_EQ(result.results.size(), 2u);
  EXPECT_EQ(result.results[0].status, RequestStatus::Applied);
  ASSERT_EQ(result.results[1].status, RequestStatus::Failed);
  EXPECT_EQ(result.results[1].error->code(), std::errc::no_such_device);
  EXPECT_EQ(result.results[1].error->operation(), "two-part change (message 2 of 2)");
  EXPECT_EQ(ipLink("ma")["mtu"], 1300);
  EXPECT_EQ(ipLink("mb")["mtu"], 1200);
}

// Type-length-value walk over a nest's payload (test-side, independent of src/core).
std::vector<std::pair<uint16_t, std::span<const uint8_t>>> tlvs(std::span<const uint8_t> p) {
  std::vector<std::pair<uint16_t, std::span<const uint8_t>>> out;
  for (std::size_t at = 0; at + 4 <= p.size();) {
    uint16_t len, type;
    std::memcpy(&len, p.data() + at, 2);
    std::memcpy(&type, p.data() + at + 2, 2);
    if (len < 4 || at + len > p.size()) break;
    out.emplace_back(type & 0x3fff, p.subspan(at + 4, len - 4u));
    at += (len + 3u) & ~3u;
  }
  return out;
}

TEST_F(EngineTest, RawGenericQueryResolvesAFamilyAndItsGroupJoins) {
  // Equivalent to: genl ctrl get name nlctrl
  RawMessage req;
  req.type = GENL_ID_CTRL;
  req.header = {CTRL_CMD_GETFAMILY, 1, 0, 0};
  std::string name = "nlctrl";
  req.attributes.append(CTRL_ATTR_FAMILY_NAME, {reinterpret_cast<const uint8_t*>(name.c_str()), name.size() + 1});
  RawMessage reply = nl.raw(Protocol::Generic).query(req, "genl ctrl get name nlctrl");
  auto id = reply.attributes.find(CTRL_ATTR_FAMILY_ID);
  ASSERT_TRUE(id);
  uint16_t familyId;
  std::memcpy(&familyId, id->payload.data(), 2);
  CommandResult oracle = run("genl ctrl get name nlctrl");
  ASSERT_EQ(oracle.status, 0);
  char hex[16];
  std::snprintf(hex, sizeof hex, "ID: 0x%x", familyId);
  EXPECT_NE(oracle.out.find(hex), std::string::npos) << oracle.out;

  auto groups = reply.attributes.find(CTRL_ATTR_MCAST_GROUPS);
  ASSERT_TRUE(groups);
  std::optional<uint32_t> notifyId;
  for (auto& [index, group] : tlvs(groups->payload)) {
    std::string groupName;
    uint32_t groupId = 0;
    for (auto& [type, value] : tlvs(group)) {
      if (type == CTRL_ATTR_MCAST_GRP_NAME) groupName = reinterpret_cast<const char*>(value.data());
      if (type == CTRL_ATTR_MCAST_GRP_ID) std::memcpy(&groupId, value.data(), 4);
    }
    if (groupName == "notify") notifyId = groupId;
  }
  ASSERT_TRUE(notifyId);
  Subscription sub = nl.subscribeGeneric({*notifyId});
  EXPECT_EQ(sub.process({}), 0u);
  // A group the family does not have is refused by the kernel.
  EXPECT_THROW(sub.joinGeneric(0xfffff0), Error);
}

}  // namespace
}  // namespace fastlink::test
