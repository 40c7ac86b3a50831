// Batched reading of notifications (recvmmsg): a backlog queued while nobody reads arrives
// whole, in order, each event with the nsid of its own datagram, in few system calls. The
// wire observer (tests/support/wire_observer.*) counts the recvmmsg calls independently.
#include <gtest/gtest.h>

#include <fastlink/events.hpp>
#include <fastlink/fastlink.hpp>

#include <fcntl.h>

#include <chrono>
#include <string>
#include <thread>
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

TEST(EventsBatchTest, WaitSleepsUntilTheFirstNotificationThenDeliversTheQueue) {
  TestNetns here;
  here.ip("link set lo up");
  Netlink nl{NetlinkOptions{.netns = Netns::named(here.name())}};
  EventStream stream(nl, {ObjectKind::Route});

  // Queued before the call: delivered at once, 100 in two recvmmsg calls (64 + 36), no sleep.
  here.ipBatch(addRoutes(0, 100));
  wire::reset();
  std::vector<std::string> seen;
  auto keep = [&](const Event& e) { seen.push_back(e.route()->dst->toStringWithLength()); };
  EXPECT_EQ(stream.wait(keep), 100u);
  EXPECT_EQ(wire::counts().batchReceiveCalls, 2u);
  ASSERT_EQ(seen.size(), 100u);
  EXPECT_EQ(seen.front(), hostRoute(0));
  EXPECT_EQ(seen.back(), hostRoute(99));

  // Nothing queued: wait() sleeps in the receive until a change comes 200 ms later, and the
  // fd made non-blocking by the caller (O_NONBLOCK) must not turn it into a busy return of 0.
  for (bool nonBlocking : {false, true}) {
    SCOPED_TRACE(nonBlocking ? "O_NONBLOCK" : "blocking fd");
    if (nonBlocking) fcntl(stream.fd(), F_SETFL, fcntl(stream.fd(), F_GETFL) | O_NONBLOCK);
    int route = nonBlocking ? 201 : 200;
    seen.clear();
    // t0 before the thread: its 200 ms count from t0 however late the main thread gets to wait().
    auto t0 = std::chrono::steady_clock::now();
    std::thread changer([&] {
      std::this_thread::sleep_until(t0 + std::chrono::milliseconds(200));
      here.ip("route add " + hostRoute(route) + " dev lo");
    });
    std::size_t n = stream.wait(keep);
    auto waited = std::chrono::steady_clock::now() - t0;
    changer.join();
    EXPECT_EQ(n, 1u);
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_EQ(seen[0], hostRoute(route));
    EXPECT_GE(waited, std::chrono::milliseconds(150));
  }
  EXPECT_EQ(here.ipJson("route show dev lo").size(), 102u);  // the oracle saw the same changes
}

}  // namespace
}  // namespace fastlink::test
