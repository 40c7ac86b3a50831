// core::Engine over a scripted kernel (tests/unit/support/fake_kernel.hpp): the pipeline's
// windows and ACK rule, errors mid-window, lost answers, dump restarts, dropped replies,
// multi-message requests, receive-buffer growth and folded dumps, without root.
#include <gtest/gtest.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "core/engine.hpp"
#include "core/fold.hpp"
#include "core/message.hpp"
#include "fastlink/raw_attributes.hpp"
#include "unit/golden.hpp"
#include "unit/support/fake_kernel.hpp"

namespace fastlink::core {

// The fake kernel's record of receive modes, readable in a failure.
void PrintTo(ReceiveMode m, std::ostream* os) {
  *os << (m == ReceiveMode::Whole ? "Whole" : m == ReceiveMode::Straight ? "Straight" : "StraightIfQueued");
}

namespace {

using test::FakeKernel;

struct Fixture {
  explicit Fixture(NetlinkOptions options = {}) {
    auto k = std::make_unique<FakeKernel>();
    kernel = k.get();
    engine = std::make_unique<Engine>(std::move(k), options);
  }
  FakeKernel* kernel;
  std::unique_ptr<Engine> engine;
};

// A small RTM_NEWLINK whose ifindex tells requests apart.
Request linkRequest(int index) {
  MessageWriter w(RTM_NEWLINK, 0);
  w.putHeader<ifinfomsg>().ifi_index = index;
  return w.toRequest("link set ifindex " + std::to_string(index));
}

int indexOf(const nlmsghdr* m) { return messageHeader<ifinfomsg>(m)->ifi_index; }

// Fails the messages whose ifindex is in `failing` with EINVAL (answering even without an ACK
// asked, as the kernel does) and ACKs the others that asked.
FakeKernel::Responder failIndexes(std::vector<int> failing) {
  return [failing](FakeKernel& k, const nlmsghdr* m) {
    for (int f : failing)
      if (indexOf(m) == f) return k.queueAck(m, -EINVAL, "bad index " + std::to_string(f));
    if (m->nlmsg_flags & NLM_F_ACK) k.queueAck(m, 0);
  };
}

struct Collected {
  std::vector<RequestResult> results;
  ResultSink sink() {
    return [this](std::size_t index, const RequestResult& r) {
      EXPECT_EQ(index, results.size());
      results.push_back(r);
    };
  }
};

BatchResult runAll(Engine& e, std::vector<Request>& requests, BatchOptions options, Collected& out) {
  return e.runBatch(std::span<const Request>(requests), options, out.sink());
}

TEST(EngineFakeKernel, WindowAsksAnAckOfItsLastMessageOnly) {
  Fixture f;
  std::vector<Request> rs;
  for (int i = 1; i <= 10; ++i) rs.push_back(linkRequest(i));
  Collected c;
  BatchResult r = runAll(*f.engine, rs, {.onError = OnError::Continue, .window = 4}, c);
  EXPECT_EQ(r.applied, 10u);
  ASSERT_EQ(f.kernel->sent.size(), 10u);
  EXPECT_EQ(f.kernel->sendCalls, 3u);  // 4 + 4 + 2
  for (std::size_t i = 0; i < 10; ++i) {
    bool last = i == 3 || i == 7 || i == 9;
    EXPECT_EQ((f.kernel->sent[i].header.nlmsg_flags & NLM_F_ACK) != 0, last) << i;
    if (i) {
      EXPECT_EQ(f.kernel->sent[i].header.nlmsg_seq, f.kernel->sent[i - 1].header.nlmsg_seq + 1);
    }
  }
  EXPECT_EQ(f.kernel->receiveCalls, 3u);  // one ACK per window
  EXPECT_EQ(f.engine->counters().requestsSent, 10u);
}

TEST(EngineFakeKernel, ErrorInTheMiddleOfAWindowWithLaterSuccesses) {
  Fixture f;
  f.kernel->setResponder(failIndexes({2}));
  std::vector<Request> rs;
  for (int i = 1; i <= 4; ++i) rs.push_back(linkRequest(i));
  Collected c;
  BatchResult r = runAll(*f.engine, rs, {.onError = OnError::Continue, .window = 4}, c);
  EXPECT_EQ(r.applied, 3u);
  EXPECT_EQ(r.failed, 1u);
  ASSERT_EQ(c.results.size(), 4u);
  EXPECT_EQ(c.results[0].status, RequestStatus::Applied);
  EXPECT_EQ(c.results[1].status, RequestStatus::Failed);
  EXPECT_EQ(c.results[1].error->code(), std::errc::invalid_argument);
  EXPECT_EQ(c.results[1].error->extack(), "bad index 2");
  EXPECT_EQ(c.results[1].error->operation(), "link set ifindex 2");
  EXPECT_EQ(c.results[1].error->batchIndex(), 1u);
  EXPECT_EQ(c.results[2].status, RequestStatus::Applied);
  EXPECT_EQ(c.results[3].status, RequestStatus::Applied);
}

TEST(EngineFakeKernel, ErrorOfTheLastRequestClosesTheWindow) {
  Fixture f;
  f.kernel->setResponder(failIndexes({3, 4}));
  std::vector<Request> rs;
  for (int i = 1; i <= 4; ++i) rs.push_back(linkRequest(i));
  Collected c;
  BatchResult r = runAll(*f.engine, rs, {.onError = OnError::Continue, .window = 4}, c);
  EXPECT_EQ(r.applied, 2u);
  EXPECT_EQ(r.failed, 2u);
  EXPECT_EQ(c.results[3].error->extack(), "bad index 4");
  EXPECT_TRUE(f.kernel->queue.empty());
}

TEST(EngineFakeKernel, StopReportsTheRestNotSent) {
  Fixture f;
  f.kernel->setResponder(failIndexes({2}));
  std::vector<Request> rs;
  for (int i = 1; i <= 5; ++i) rs.push_back(linkRequest(i));
  Collected c;
  BatchResult r = runAll(*f.engine, rs, {.onError = OnError::Stop}, c);  // window 1
  EXPECT_EQ(r.applied, 1u);
  EXPECT_EQ(r.failed, 1u);
  EXPECT_EQ(r.notSent, 3u);
  EXPECT_EQ(f.kernel->sent.size(), 2u);
}

// Defined behaviour for an answer that never comes: the engine waits as long as its transport
// does (the kernel always answers a real socket); when the transport gives up (the fake: EAGAIN)
// execute throws that error, and in a batch every request of the window that was not already
// answered is Failed with it (we cannot know whether it applied), never Applied.
TEST(EngineFakeKernel, LostAckIsAnErrorNotAHang) {
  Fixture f;
  f.kernel->setResponder([](FakeKernel&, const nlmsghdr*) {});  // answers nothing
  Request one = linkRequest(1);
  try {
    f.engine->execute(one);
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::resource_unavailable_try_again);
  }
  std::vector<Request> rs;
  for (int i = 1; i <= 3; ++i) rs.push_back(linkRequest(i));
  Collected c;
  BatchResult r = runAll(*f.engine, rs, {.onError = OnError::Continue, .window = 3}, c);
  EXPECT_EQ(r.failed, 3u);
  for (const auto& res : c.results) EXPECT_EQ(res.error->code(), std::errc::resource_unavailable_try_again);
}

TEST(EngineFakeKernel, LostAckAfterAnEarlierErrorKeepsThatError) {
  Fixture f;
  f.kernel->setResponder([](FakeKernel& k, const nlmsghdr* m) {
    if (indexOf(m) == 1) k.queueAck(m, -EEXIST, "exists");  // the ACK of #2 never comes
  });
  std::vector<Request> rs{linkRequest(1), linkRequest(2)};
  Collected c;
  runAll(*f.engine, rs, {.onError = OnError::Continue, .window = 2}, c);
  EXPECT_EQ(c.results[0].error->code(), std::errc::file_exists);
  EXPECT_EQ(c.results[1].error->code(), std::errc::resource_unavailable_try_again);
}

std::vector<uint8_t> dumpMessage() {
  MessageWriter w(RTM_GETLINK, 0);
  w.putHeader<ifinfomsg>();
  auto b = w.bytes();
  return {b.begin(), b.end()};
}

std::vector<uint8_t> linkMessage(const nlmsghdr* request, int index, uint16_t flags = NLM_F_MULTI,
                                 std::size_t padding = 0) {
  std::vector<uint8_t> payload(sizeof(ifinfomsg) + padding, 0);
  reinterpret_cast<ifinfomsg*>(payload.data())->ifi_index = index;
  if (padding) {  // one big attribute after the header
    uint16_t len = static_cast<uint16_t>(std::min<std::size_t>(padding, 0xffff));
    uint16_t type = 99;
    std::memcpy(&payload[sizeof(ifinfomsg)], &len, 2);
    std::memcpy(&payload[sizeof(ifinfomsg) + 2], &type, 2);
  }
  return FakeKernel::message(request, RTM_NEWLINK, flags, payload);
}

// A link dump; `seen` holds the ifindexes handed out since the last restart.
struct Dumped {
  std::vector<int> seen;
  int restarts = 0;
};
Dumped dumpIndexes(Engine& engine) {
  Dumped d;
  auto msg = dumpMessage();
  engine.dump(msg, "link show", [&](const nlmsghdr* m) { d.seen.push_back(indexOf(m)); }, [&] {
    ++d.restarts;
    d.seen.clear();
  });
  return d;
}

TEST(EngineFakeKernel, InterruptedDumpRestartsThenSucceeds) {
  Fixture f;
  int dumps = 0;
  f.kernel->setResponder([&](FakeKernel& k, const nlmsghdr* m) {
    uint16_t intr = dumps++ == 0 ? NLM_F_DUMP_INTR : 0;
    k.queueDatagram({linkMessage(m, 1, NLM_F_MULTI | intr), linkMessage(m, 2, NLM_F_MULTI | intr)});
    k.queueDatagram(FakeKernel::done(m, NLM_F_MULTI | intr));
  });
  Dumped d = dumpIndexes(*f.engine);
  EXPECT_EQ(d.restarts, 1);
  EXPECT_EQ(d.seen, (std::vector<int>{1, 2}));
  EXPECT_EQ(f.engine->counters().dumpRestarts, 1u);
  EXPECT_TRUE(f.kernel->sent[0].header.nlmsg_flags & NLM_F_DUMP);
}

TEST(EngineFakeKernel, InterruptedDumpWithNoRetriesIsDumpInterrupted) {
  NetlinkOptions noRetries;
  noRetries.dumpRetries = 0;
  Fixture f(noRetries);
  f.kernel->setResponder([&](FakeKernel& k, const nlmsghdr* m) {
    k.queueDatagram({linkMessage(m, 1, NLM_F_MULTI | NLM_F_DUMP_INTR), FakeKernel::done(m, NLM_F_MULTI | NLM_F_DUMP_INTR)});
  });
  auto msg = dumpMessage();
  try {
    f.engine->dump(msg, "link show", [](const nlmsghdr*) {}, {});
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::dump_interrupted);
  }
  EXPECT_EQ(f.kernel->sent.size(), 1u);
}

TEST(EngineFakeKernel, ForeignAndOutOfWindowRepliesAreDroppedAndCounted) {
  Fixture f;
  f.kernel->setResponder([](FakeKernel& k, const nlmsghdr* m) {
    // From another process (sender port id != 0): dropped whole.
    k.queueDatagram(FakeKernel::ack(m, -EPERM), 777);
    // From the kernel but for another port id, and one with a sequence number we never sent.
    nlmsghdr stale = *m;
    stale.nlmsg_seq = m->nlmsg_seq - 100;
    k.queueDatagram({FakeKernel::message(m, NLMSG_ERROR, 0, std::vector<uint8_t>(sizeof(nlmsgerr), 0), 31337),
                     FakeKernel::ack(&stale, -ENOENT)});
    k.queueAck(m, 0);
  });
  Request r = linkRequest(1);
  EXPECT_NO_THROW(f.engine->execute(r));
  EXPECT_EQ(f.engine->counters().droppedForeign, 2u);
  EXPECT_EQ(f.engine->counters().droppedUnexpected, 1u);
}

Request threePartRequest(int first) {
  Request r = linkRequest(first);
  r.setOperation("peers set");
  r.appendMessage(linkRequest(first + 1));
  r.appendMessage(linkRequest(first + 2));
  return r;
}

TEST(EngineFakeKernel, MultiMessageRequestFailsWithItsFirstFailingPart) {
  Fixture f;
  f.kernel->setResponder(failIndexes({2, 3}));
  Request r = threePartRequest(1);
  EXPECT_EQ(r.messageCount(), 3u);
  try {
    f.engine->execute(r);
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.extack(), "bad index 2");
    EXPECT_EQ(e.operation(), "peers set (message 2 of 3)");
  }
  ASSERT_EQ(f.kernel->sent.size(), 3u);
  EXPECT_EQ(f.kernel->sendCalls, 1u);
  EXPECT_FALSE(f.kernel->sent[0].header.nlmsg_flags & NLM_F_ACK);
  EXPECT_FALSE(f.kernel->sent[1].header.nlmsg_flags & NLM_F_ACK);
  EXPECT_TRUE(f.kernel->sent[2].header.nlmsg_flags & NLM_F_ACK);
  EXPECT_EQ(f.kernel->sent[2].header.nlmsg_seq, f.kernel->sent[0].header.nlmsg_seq + 2);
  EXPECT_TRUE(f.kernel->queue.empty());
}

TEST(EngineFakeKernel, MultiMessageRequestIsOneResultInABatch) {
  Fixture f;
  f.kernel->setResponder(failIndexes({12}));
  std::vector<Request> rs;
  rs.push_back(linkRequest(1));
  rs.push_back(threePartRequest(11));  // its 2nd message fails
  rs.push_back(threePartRequest(21));
  rs.push_back(linkRequest(2));
  Collected c;
  BatchResult r = runAll(*f.engine, rs, {.onError = OnError::Continue, .window = 100}, c);
  ASSERT_EQ(c.results.size(), 4u);
  EXPECT_EQ(r.applied, 3u);
  EXPECT_EQ(c.results[1].status, RequestStatus::Failed);
  EXPECT_EQ(c.results[1].error->operation(), "peers set (message 2 of 3)");
  EXPECT_EQ(c.results[1].error->batchIndex(), 1u);
  EXPECT_EQ(c.results[2].status, RequestStatus::Applied);
  ASSERT_EQ(f.kernel->sent.size(), 8u);
  EXPECT_EQ(f.kernel->sendCalls, 1u);
  for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ((f.kernel->sent[i].header.nlmsg_flags & NLM_F_ACK) != 0, i == 7);
  EXPECT_EQ(f.engine->counters().requestsSent, 4u);
}

TEST(EngineFakeKernel, WindowIsCountedInMessages) {
  Fixture f;
  std::vector<Request> rs{threePartRequest(1), threePartRequest(11), linkRequest(1)};
  Collected c;
  BatchResult r = runAll(*f.engine, rs, {.onError = OnError::Continue, .window = 4}, c);
  EXPECT_EQ(r.applied, 3u);
  // 3 messages, then 3 + 1 = 4 (a window closes once it holds 4 or more).
  EXPECT_EQ(f.kernel->sendCalls, 2u);
}

TEST(EngineFakeKernel, StreamedBatchKeepsRequestsAliveUntilAnswered) {
  Fixture f;
  f.kernel->setResponder(failIndexes({5}));
  int next = 0;
  RequestSource source = [&]() -> std::optional<Request> {
    if (next == 9) return std::nullopt;
    return linkRequest(++next);
  };
  Collected c;
  BatchResult r = f.engine->runBatch(source, {.onError = OnError::Continue, .window = 4}, c.sink());
  EXPECT_EQ(r.applied, 8u);
  EXPECT_EQ(c.results[4].error->operation(), "link set ifindex 5");
}

// A dump's answer: links 1 and 2 in one datagram, link 3 in the next, NLMSG_DONE in its own.
void threeLinksInTwoDatagrams(FakeKernel& k, const nlmsghdr* m) {
  k.queueDatagram({linkMessage(m, 1, NLM_F_MULTI), linkMessage(m, 2, NLM_F_MULTI)});
  k.queueDatagram({linkMessage(m, 3, NLM_F_MULTI)});
  k.queueDatagram(FakeKernel::done(m));
}

// A dump's datagrams are read straight into the buffer, one receive each, never peeked.
TEST(EngineFakeKernel, DumpDatagramsAreReadStraight) {
  Fixture f;
  f.kernel->setResponder(threeLinksInTwoDatagrams);
  std::vector<int> seen;
  auto msg = dumpMessage();
  f.engine->dump(msg, "link show", [&](const nlmsghdr* m) { seen.push_back(indexOf(m)); }, {});
  EXPECT_EQ(seen, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(f.kernel->modes, std::vector<ReceiveMode>(3, ReceiveMode::Straight));
  EXPECT_EQ(f.engine->counters().dumpRestarts, 0u);
}

// A dump datagram larger than the buffer (a device whose message outgrows 64 KiB) is cut off
// and lost: the rest of the dump is drained without handing anything out, and the dump starts
// again with every size peeked first, growing the buffer; it costs no retry (dumpRetries 0).
TEST(EngineFakeKernel, CutOffDumpDatagramRestartsTheDumpSizedFirst) {
  NetlinkOptions noRetries;
  noRetries.dumpRetries = 0;
  Fixture f(noRetries);
  f.kernel->setResponder([](FakeKernel& k, const nlmsghdr* m) {
    // Three 60 KiB messages in one 180 KiB datagram: more than the 64 KiB initial buffer.
    k.queueDatagram({linkMessage(m, 1, NLM_F_MULTI)});
    k.queueDatagram({linkMessage(m, 2, NLM_F_MULTI, 60000), linkMessage(m, 3, NLM_F_MULTI, 60000),
                     linkMessage(m, 4, NLM_F_MULTI, 60000)});
    k.queueDatagram({linkMessage(m, 5, NLM_F_MULTI)});
    k.queueDatagram(FakeKernel::done(m));
  });
  Dumped d = dumpIndexes(*f.engine);
  EXPECT_EQ(d.seen, (std::vector<int>{1, 2, 3, 4, 5}));
  EXPECT_EQ(d.restarts, 1);
  EXPECT_EQ(f.kernel->sent.size(), 2u) << "the dump was not asked again";
  using enum ReceiveMode;
  // Straight until the cut, drained without waiting, then peeked (the large one twice: grown).
  EXPECT_EQ(f.kernel->modes, (std::vector<ReceiveMode>{Straight, Straight, StraightIfQueued, StraightIfQueued, Whole,
                                                       Whole, Whole, Whole, Whole}));
  EXPECT_EQ(f.engine->counters().receiveBufferGrowths, 1u);
  EXPECT_EQ(f.engine->counters().dumpRestarts, 1u);
}

// The cut-off datagram may have held NLMSG_DONE (the kernel appends it when it fits): then
// nothing more comes, and the drain must end on the empty queue instead of waiting for ever
// (the fake throws EAGAIN where a socket would block).
TEST(EngineFakeKernel, CutOffDatagramHoldingDoneEndsTheDrain) {
  Fixture f;
  f.kernel->setResponder([](FakeKernel& k, const nlmsghdr* m) {
    k.queueDatagram({linkMessage(m, 1, NLM_F_MULTI)});
    k.queueDatagram({linkMessage(m, 2, NLM_F_MULTI, 70000), FakeKernel::done(m)});
  });
  Dumped d = dumpIndexes(*f.engine);
  EXPECT_EQ(d.seen, (std::vector<int>{1, 2}));
  EXPECT_EQ(f.engine->counters().dumpRestarts, 1u);
  EXPECT_TRUE(f.kernel->queue.empty());
}

// A dump received into the caller's memory (StateMirror's store): every message handed out lies
// in the room the caller gave for its datagram, nothing is copied into the engine's buffer, a
// datagram larger than the room is asked room for again with its length, and the caller hears
// of each datagram once its messages were handed out.
TEST(EngineFakeKernel, DumpIsReceivedIntoTheCallersMemory) {
  struct Rooms final : ReceiveMemory {
    std::vector<std::vector<uint8_t>> rooms;
    std::vector<std::size_t> asked, lengths;
    std::span<uint8_t> room(std::size_t atLeast) override {
      asked.push_back(atLeast);
      rooms.emplace_back(std::max<std::size_t>(atLeast, 1000));
      return rooms.back();
    }
    void received(std::size_t length) override { lengths.push_back(length); }
    bool holds(const nlmsghdr* m) const {
      if (rooms.empty()) return false;
      const auto* p = reinterpret_cast<const uint8_t*>(m);
      const auto& last = rooms.back();
      return p >= last.data() && p + m->nlmsg_len <= last.data() + last.size();
    }
  } memory;
  Fixture f;
  f.kernel->setResponder([](FakeKernel& k, const nlmsghdr* m) {
    k.queueDatagram({linkMessage(m, 1, NLM_F_MULTI), linkMessage(m, 2, NLM_F_MULTI)});
    k.queueDatagram({linkMessage(m, 3, NLM_F_MULTI, 3000)});  // larger than the 1000-byte room
    k.queueDatagram(FakeKernel::done(m));
  });
  std::vector<int> seen;
  bool inRooms = true;
  auto msg = dumpMessage();
  f.engine->dumpRuns(
      msg, "link show",
      [&](std::span<const nlmsghdr* const> run) {
        for (const nlmsghdr* m : run) {
          seen.push_back(indexOf(m));
          inRooms = inRooms && memory.holds(m);
        }
      },
      {}, &memory);
  EXPECT_EQ(seen, (std::vector<int>{1, 2, 3}));
  EXPECT_TRUE(inRooms) << "a message handed out outside the caller's room";
  // One room per datagram, the large one asked again with its length; three datagrams heard of.
  EXPECT_EQ(memory.asked.size(), 4u);
  EXPECT_GT(memory.asked[2], 3000u);
  EXPECT_EQ(memory.lengths.size(), 3u);
  EXPECT_EQ(f.engine->counters().receiveBufferGrowths, 0u);
}

// A dump into the caller's memory is peeked, however large the room (the mirror's start: each
// peek also has the kernel queue its next datagram, and the start costs 2-3% less CPU than read
// straight, docs/BENCHMARKS.md stop 38); the engine's own dumps read straight.
TEST(EngineFakeKernel, DumpIntoTheCallersMemoryIsPeekedEvenWhereARoomHoldsAnyDatagram) {
  struct Room final : ReceiveMemory {
    std::vector<uint8_t> bytes = std::vector<uint8_t>(1 << 20);
    std::span<uint8_t> room(std::size_t) override { return bytes; }
    void received(std::size_t) override {}
  } memory;
  Fixture f;
  f.kernel->setResponder(threeLinksInTwoDatagrams);
  std::vector<int> seen;
  auto msg = dumpMessage();
  f.engine->dumpRuns(
      msg, "link show",
      [&](std::span<const nlmsghdr* const> run) {
        for (const nlmsghdr* m : run) seen.push_back(indexOf(m));
      },
      {}, &memory);
  EXPECT_EQ(seen, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(f.kernel->modes, std::vector<ReceiveMode>(3, ReceiveMode::Whole)) << "a dump into a 1 MiB room read straight";
}

TEST(EngineFakeKernel, QueryReturnsTheReplyOrTheError) {
  Fixture f;
  f.kernel->setResponder([](FakeKernel& k, const nlmsghdr* m) {
    if (indexOf(m) == 1) k.queueDatagram(linkMessage(m, 1, 0));
    else k.queueAck(m, -ENODEV, "no such device");
  });
  Request one = linkRequest(1), two = linkRequest(2);
  int got = 0;
  f.engine->query(one.bytes(), "link get", [&](const nlmsghdr* m) { got = indexOf(m); });
  EXPECT_EQ(got, 1);
  EXPECT_THROW(f.engine->query(two.bytes(), "link get", [](const nlmsghdr*) {}), Error);
}

// A device split over messages: each message names its device (ifindex) and carries some of
// its peers (here: the ifi_flags field stands for "peers in this message").
struct Device {
  int index = 0;
  int peers = 0;
  int messages = 0;
};

TEST(EngineFakeKernel, FoldDumpJoinsObjectsSplitAcrossMessages) {
  Fixture f;
  int dumps = 0;
  f.kernel->setResponder([&](FakeKernel& k, const nlmsghdr* m) {
    auto part = [&](int index, unsigned peers) {
      auto msg = linkMessage(m, index);
      reinterpret_cast<ifinfomsg*>(msg.data() + NLMSG_HDRLEN)->ifi_flags = peers;
      return msg;
    };
    uint16_t intr = dumps++ == 0 ? NLM_F_DUMP_INTR : 0;
    if (intr) {
      k.queueDatagram({part(7, 1)});
      k.queueDatagram(FakeKernel::done(m, NLM_F_MULTI | NLM_F_DUMP_INTR));
      return;
    }
    k.queueDatagram({part(7, 2), part(7, 3)});  // device 7: 5 peers over 3 messages,
    k.queueDatagram({part(7, 4 - 4), part(8, 1)});  // the last one carrying none
    k.queueDatagram({part(9, 2), FakeKernel::done(m)});
  });
  Folding<Device> folding{
      .continues = [](const Device& d, const nlmsghdr* m) { return indexOf(m) == d.index; },
      .merge =
          [](Device& d, const nlmsghdr* m) {
            d.index = indexOf(m);
            d.peers += static_cast<int>(messageHeader<ifinfomsg>(m)->ifi_flags);
            ++d.messages;
          },
      .emit = nullptr,
  };
  std::vector<Device> out;
  folding.emit = [&](Device&& d) { out.push_back(d); };
  int restarts = 0;
  auto msg = dumpMessage();
  foldDump(*f.engine, msg, "wg show", folding, [&] {
    ++restarts;
    out.clear();
  });
  EXPECT_EQ(restarts, 1);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].index, 7);
  EXPECT_EQ(out[0].peers, 5);
  EXPECT_EQ(out[0].messages, 3);
  EXPECT_EQ(out[1].index, 8);
  EXPECT_EQ(out[2].index, 9);
  EXPECT_EQ(out[2].peers, 2);
}

TEST(EngineFakeKernel, DescriptionsAreFormattedOnlyForFailures) {
  Fixture f;
  f.kernel->setResponder(failIndexes({3}));
  int formatted = 0;
  std::vector<Request> rs;
  for (int i = 1; i <= 4; ++i) {
    MessageWriter w(RTM_NEWLINK, 0);
    w.putHeader<ifinfomsg>().ifi_index = i;
    rs.push_back(w.toRequest([i, &formatted] {
      ++formatted;
      return "link set ifindex " + std::to_string(i);
    }));
  }
  Collected c;
  runAll(*f.engine, rs, {.onError = OnError::Continue, .window = 4}, c);
  EXPECT_EQ(formatted, 1);
  EXPECT_EQ(c.results[2].error->operation(), "link set ifindex 3");
  f.engine->execute(rs[0]);  // applies: nothing more to format
  EXPECT_EQ(formatted, 1);
}

TEST(RequestAppend, AttributesGoToTheLastMessageAndFixItsLength) {
  MessageWriter w(RTM_NEWLINK, NLM_F_CREATE);
  w.putHeader<ifinfomsg>().ifi_index = 5;
  w.putU32(IFLA_MTU, 1400);
  Request r = w.toRequest("link set dev ifindex 5 mtu 1400");
  RawAttributes extra;
  extra.append(IFLA_TXQLEN, std::vector<uint8_t>{0xe8, 0x03, 0, 0});
  extra.append(IFLA_IFALIAS, std::vector<uint8_t>{'u', 'p', 0});
  r.appendAttributes(extra);

  test::Ifinfo ifi;
  ifi.index = 5;
  test::Bytes payload = ifi.bytes();
  test::Bytes attrs = test::Attrs().u32(IFLA_MTU, 1400).u32(IFLA_TXQLEN, 1000).raw(IFLA_IFALIAS, {'u', 'p', 0}).bytes();
  payload.insert(payload.end(), attrs.begin(), attrs.end());
  test::Bytes expected = test::netlinkMessage(RTM_NEWLINK, NLM_F_REQUEST | NLM_F_CREATE, payload);
  EXPECT_TRUE(test::sameBytes(r.bytes(), expected));

  // With two messages, only the second grows.
  Request two = linkRequest(1);
  std::size_t firstSize = two.bytes().size();
  two.appendMessage(linkRequest(2));
  two.appendAttributes(extra);
  EXPECT_EQ(two.messageCount(), 2u);
  uint32_t len0, len1;
  std::memcpy(&len0, two.bytes().data(), 4);
  std::memcpy(&len1, two.bytes().data() + firstSize, 4);
  EXPECT_EQ(len0, firstSize);
  EXPECT_EQ(len1, firstSize + extra.bytes().size());
}

TEST(RequestAppend, MalformedBytesAreRefusedNotLoopedOver) {
  Request bad(std::vector<uint8_t>(32, 0), "garbage");  // nlmsg_len 0
  RawAttributes extra;
  extra.append(1, std::vector<uint8_t>{1, 2, 3, 4});
  EXPECT_THROW(bad.appendAttributes(extra), Error);
  EXPECT_EQ(bad.messageCount(), 0u);
  EXPECT_THROW(Request().appendAttributes(extra), Error);
  EXPECT_THROW(bad.appendMessage(std::vector<uint8_t>(8, 0)), Error);
}

}  // namespace
}  // namespace fastlink::core
