// Batched reading of notifications (recvmmsg): a backlog queued while nobody reads arrives
// whole, in order, each event with the nsid of its own datagram, in few system calls. The
// wire observer (tests/support/wire_observer.*) counts the recvmmsg calls independently.
#include <gtest/gtest.h>

#include <fastlink/events.hpp>
#include <fastlink/fastlink.hpp>

#include <string>
#include <vector>

#include "support/test_netns.hpp"
#include "support/wire_observer.hpp"

namespace fastlink::test {
namespace {

std::string hostRoute(int i) { return "10." + std::to_string(100 + i / 250) + "." + std::to_string(i % 250) + ".1/32"; }

std::vector<std::string> addRoutes(int from, int to) {
  std::vector<std::string> lines;
  for (int i = from; i < to; ++i) lines.push_back("route add " + hostRoute(i) + " dev lo");
  return lines;
}

TEST(EventsBatchTest, OneProcessDeliversAQueuedBacklogInOrderWithEachNsid) {
  TestNetns here;
  TestNetns other;
  here.ip("link set lo up");
  other.ip("link set lo up");
  here.ip("netns set " + other.name() + " 7");
  Netlink nl{NetlinkOptions{.netns = Netns::named(here.name())}};
  EventOptions options;
  options.subscription.allNamespaces = true;
  options.subscription.receiveBufferBytes = 32 * 1024 * 1024;  // the whole backlog fits
  EventStream stream(nl, {ObjectKind::Route}, options);

  // 1000 changes queued while the stream is not read, from two namespaces in three runs, so
  // datagrams of both namespaces share recvmmsg batches.
  constexpr int kChanges = 1000;
  here.ipBatch(addRoutes(0, 400));
  other.ipBatch(addRoutes(400, 800));
  here.ipBatch(addRoutes(800, kChanges));

  wire::reset();
  std::vector<Event> events;
  bool overflow = false;
  std::size_t delivered = stream.process([&](const Event& e) { events.push_back(e); }, [&] { overflow = true; });
  wire::Counts counts = wire::counts();

  EXPECT_FALSE(overflow);
  ASSERT_EQ(delivered, static_cast<std::size_t>(kChanges));
  ASSERT_EQ(events.size(), static_cast<std::size_t>(kChanges));
  for (int i = 0; i < kChanges; ++i) {
    const Event& e = events[i];
    ASSERT_EQ(e.kind, ObjectKind::Route) << i;
    ASSERT_EQ(e.action, EventAction::New) << i;
    ASSERT_TRUE(e.route() && e.route()->dst) << i;
    EXPECT_EQ(e.route()->dst->toStringWithLength(), hostRoute(i)) << i;
    if (i >= 400 && i < 800) EXPECT_EQ(e.nsid, 7) << i;
    else EXPECT_FALSE(e.nsid.has_value()) << i << " nsid " << e.nsid.value_or(-1);
  }
  // One datagram per notification, 64 datagrams per recvmmsg: 16 calls for 1000, not 1000.
  EXPECT_EQ(counts.receiveCalls, static_cast<uint64_t>(kChanges));
  EXPECT_EQ(counts.batchReceiveCalls, static_cast<uint64_t>((kChanges + 63) / 64));

  // The oracle agrees that the changes happened where the events said.
  EXPECT_EQ(here.ipJson("route show dev lo").size(), 600u);
  EXPECT_EQ(other.ipJson("route show dev lo").size(), 400u);
}

}  // namespace
}  // namespace fastlink::test
