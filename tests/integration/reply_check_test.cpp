// Reply checking (src/core/reply.cpp, Engine::receiveReplies) against forged and stale replies:
// only the kernel may answer, only for our port id, only within the sequence numbers in flight.
//
// Forged: a second NETLINK_ROUTE socket in the same namespace sends fake ACKs, errors and dump
// parts to fastlink's port id; the kernel stamps them with the forger's port id, which is how
// fastlink tells them apart. Stale: replies that look like the kernel's (sender 0, our port id)
// but carry sequence numbers outside the window, put in front of the socket's queue by the wire
// observer (a real late reply cannot be produced on demand).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <set>
#include <thread>

#include "integration/link_fixture.hpp"
#include "support/wire_observer.hpp"

namespace fastlink::test {
namespace {

/// Appends one netlink message (header + payload) to `out`.
void append(std::vector<uint8_t>& out, uint16_t type, uint16_t flags, uint32_t seq, uint32_t pid,
            const std::vector<uint8_t>& payload) {
  nlmsghdr h{};
  h.nlmsg_len = static_cast<uint32_t>(NLMSG_LENGTH(payload.size()));
  h.nlmsg_type = type;
  h.nlmsg_flags = flags;
  h.nlmsg_seq = seq;
  h.nlmsg_pid = pid;
  std::size_t at = out.size();
  out.resize(at + NLMSG_ALIGN(h.nlmsg_len));
  std::memcpy(out.data() + at, &h, sizeof h);
  std::memcpy(out.data() + at + NLMSG_HDRLEN, payload.data(), payload.size());
}

/// An NLMSG_ERROR payload: `error` (0 = ACK) and the echoed request header.
std::vector<uint8_t> errorPayload(int error, uint32_t seq, uint32_t pid) {
  nlmsgerr e{};
  e.error = error;
  e.msg.nlmsg_len = NLMSG_HDRLEN;
  e.msg.nlmsg_type = RTM_NEWLINK;
  e.msg.nlmsg_seq = seq;
  e.msg.nlmsg_pid = pid;
  std::vector<uint8_t> p(sizeof e);
  std::memcpy(p.data(), &e, sizeof e);
  return p;
}

/// An RTM_NEWLINK payload naming a device that does not exist.
std::vector<uint8_t> fakeLinkPayload(const std::string& name, int index) {
  ifinfomsg ifi{};
  ifi.ifi_family = AF_UNSPEC;
  ifi.ifi_index = index;
  std::vector<uint8_t> p(NLMSG_ALIGN(sizeof ifi));
  std::memcpy(p.data(), &ifi, sizeof ifi);
  nlattr a{};
  a.nla_type = IFLA_IFNAME;
  a.nla_len = static_cast<uint16_t>(NLA_HDRLEN + name.size() + 1);
  std::size_t at = p.size();
  p.resize(at + NLA_ALIGN(a.nla_len));
  std::memcpy(p.data() + at, &a, sizeof a);
  std::memcpy(p.data() + at + NLA_HDRLEN, name.c_str(), name.size() + 1);
  return p;
}

class ReplyCheckTest : public LinkTest {
 protected:
  void SetUp() override {
    for (int i = 0; i < 10; ++i) addVeth("v" + std::to_string(i), "p" + std::to_string(i));
    // The sequence numbers fastlink used last, seen on the wire.
    wire::reset();
    links.get("v0");
    auto sent = wire::counts().sent;
    ASSERT_EQ(sent.size(), 1u);
    lastSeq = sent.back().seq;
    auto fds = wire::sockets();
    ASSERT_EQ(fds.size(), 1u);
    fastlinkFd = fds[0];
    forger = openInNamespace();
  }
  void TearDown() override {
    if (forger >= 0) ::close(forger);
  }

  /// A NETLINK_ROUTE socket opened inside the test namespace (from a thread that entered it).
  int openInNamespace() {
    int fd = -1;
    std::thread([&] {
      int nsFd = ::open(("/run/netns/" + ns.name()).c_str(), O_RDONLY | O_CLOEXEC);
      if (nsFd < 0 || setns(nsFd, CLONE_NEWNET) != 0) return;
      ::close(nsFd);
      fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
      sockaddr_nl local{};
      local.nl_family = AF_NETLINK;
      if (fd >= 0 && bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0) {
        ::close(fd);
        fd = -1;
      }
    }).join();
    EXPECT_GE(fd, 0) << "cannot open a netlink socket in the namespace";
    return fd;
  }

  /// Sends one datagram from the forger to fastlink's port id.
  void forge(const std::vector<uint8_t>& datagram) {
    sockaddr_nl to{};
    to.nl_family = AF_NETLINK;
    to.nl_pid = nl.portId();
    ASSERT_EQ(sendto(forger, datagram.data(), datagram.size(), 0, reinterpret_cast<sockaddr*>(&to), sizeof to),
              static_cast<ssize_t>(datagram.size()))
        << strerror(errno);
    ++forged;
  }

  uint32_t lastSeq = 0;
  int fastlinkFd = -1;
  int forger = -1;
  uint64_t forged = 0;
};

TEST_F(ReplyCheckTest, ForgedAcksErrorsAndDumpPartsFromAnotherSocketAreDropped) {
  // Every sequence number the next batch and dump will use (and some around them) gets a fake
  // error, a fake ACK, a fake device and a fake end of dump, all addressed to fastlink's port.
  for (uint32_t seq = lastSeq - 3; seq != lastSeq + 40; ++seq) {
    std::vector<uint8_t> d;
    append(d, NLMSG_ERROR, 0, seq, nl.portId(), errorPayload(-EPERM, seq, nl.portId()));
    forge(d);
    d.clear();
    append(d, RTM_NEWLINK, NLM_F_MULTI, seq, nl.portId(), fakeLinkPayload("forged" + std::to_string(seq % 100), 9000));
    append(d, NLMSG_DONE, NLM_F_MULTI, seq, nl.portId(), std::vector<uint8_t>(4, 0));
    forge(d);
  }
  // Out of every window too.
  for (uint32_t seq : {lastSeq + 100000, lastSeq - 100000, 0u}) {
    std::vector<uint8_t> d;
    append(d, NLMSG_ERROR, 0, seq, nl.portId(), errorPayload(0, seq, nl.portId()));
    forge(d);
  }
  uint64_t foreignBefore = nl.counters().droppedForeign;
  wire::reset();

  Batch b;
  for (int i = 0; i < 10; ++i) b.add(LinkRequests::set("v" + std::to_string(i), LinkInfo().setMtu(1400 + i)));
  auto r = nl.run(b, {.onError = OnError::Continue});
  EXPECT_TRUE(r.ok()) << (r.firstError() ? r.firstError()->what() : "");
  EXPECT_EQ(r.applied, 10u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(ipLink("v" + std::to_string(i))["mtu"], 1400 + i);

  auto all = links.list();
  std::set<std::string> mine, oracle;
  for (const auto& l : all) mine.insert(*l.name);
  for (const auto& l : ns.ipJson("link show")) oracle.insert(l["ifname"].get<std::string>());
  EXPECT_EQ(mine, oracle) << "no forged device, nothing cut short by a forged end of dump";

  // The forged datagrams did reach fastlink's socket (seen on the wire), and each was dropped.
  EXPECT_GE(wire::counts().errors, 43u) << "the forged errors were received";
  EXPECT_EQ(nl.counters().droppedForeign - foreignBefore, forged);
}

TEST_F(ReplyCheckTest, StaleKernelRepliesOutsideTheWindowAreDropped) {
  // Replies as from the kernel, for our port id, but for sequence numbers not in flight: a
  // failure for a request long answered, an ACK from the future, and dump parts of an old dump.
  auto stale = [&](uint32_t seq) {
    std::vector<uint8_t> d;
    append(d, NLMSG_ERROR, 0, seq, nl.portId(), errorPayload(-EPERM, seq, nl.portId()));
    append(d, RTM_NEWLINK, NLM_F_MULTI, seq, nl.portId(), fakeLinkPayload("stale0", 9001));
    append(d, NLMSG_DONE, NLM_F_MULTI, seq, nl.portId(), std::vector<uint8_t>(4, 0));
    return d;
  };
  // Also one message for another port id, from the kernel.
  std::vector<uint8_t> otherPort;
  append(otherPort, NLMSG_ERROR, 0, lastSeq + 1, nl.portId() + 1, errorPayload(-EPERM, lastSeq + 1, nl.portId() + 1));
  uint64_t unexpectedBefore = nl.counters().droppedUnexpected, foreignBefore = nl.counters().droppedForeign;

  // A single request: its window is exactly its own sequence number.
  wire::injectFromKernel(fastlinkFd, stale(lastSeq));
  wire::injectFromKernel(fastlinkFd, stale(lastSeq - 1000));
  wire::injectFromKernel(fastlinkFd, otherPort);
  links.set("v0", LinkInfo().setMtu(1300));
  EXPECT_EQ(ipLink("v0")["mtu"], 1300);
  EXPECT_EQ(nl.counters().droppedUnexpected - unexpectedBefore, 6u);
  EXPECT_EQ(nl.counters().droppedForeign - foreignBefore, 1u);

  // A batch (window of several) and a dump.
  wire::reset();
  wire::injectFromKernel(fastlinkFd, stale(lastSeq + 5000));
  Batch b;
  for (int i = 0; i < 10; ++i) b.add(LinkRequests::set("v" + std::to_string(i), LinkInfo().setMtu(1500 - i)));
  auto r = nl.run(b, {.onError = OnError::Continue});
  EXPECT_TRUE(r.ok()) << (r.firstError() ? r.firstError()->what() : "");
  for (int i = 0; i < 10; ++i) EXPECT_EQ(ipLink("v" + std::to_string(i))["mtu"], 1500 - i);
  uint32_t batchFirst = wire::counts().sent.front().seq;
  wire::injectFromKernel(fastlinkFd, stale(batchFirst));  // the batch is over: now stale
  std::set<std::string> mine, oracle;
  for (const auto& l : links.list()) mine.insert(*l.name);
  for (const auto& l : ns.ipJson("link show")) oracle.insert(l["ifname"].get<std::string>());
  EXPECT_EQ(mine, oracle);
  EXPECT_EQ(nl.counters().droppedUnexpected - unexpectedBefore, 12u);
}

// Issue 14: the forger runs concurrently with batches and dumps (not only queued beforehand):
// a thread keeps sending fake errors, ACKs, devices and ends of dump for the sequence numbers
// in flight while the main thread runs batches and dumps. Every result must stay correct, and
// every forged datagram that reached the socket must be counted as dropped.
TEST_F(ReplyCheckTest, ForgerRunningDuringBatchesAndDumpsChangesNoResult) {
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> sentForged{0};
  uint64_t foreignBefore = nl.counters().droppedForeign;
  uint32_t portId = nl.portId();
  std::thread forgerThread([&] {
    sockaddr_nl to{};
    to.nl_family = AF_NETLINK;
    to.nl_pid = portId;
    for (uint32_t i = 0; !stop && i < 3000; ++i) {
      uint32_t seq = lastSeq + i % 400;
      std::vector<uint8_t> d;
      if (i % 3 == 0) append(d, NLMSG_ERROR, 0, seq, portId, errorPayload(i % 2 ? -EPERM : 0, seq, portId));
      else append(d, RTM_NEWLINK, NLM_F_MULTI, seq, portId, fakeLinkPayload("forged" + std::to_string(i % 50), 9000));
      if (i % 3 == 2) append(d, NLMSG_DONE, NLM_F_MULTI, seq, portId, std::vector<uint8_t>(4, 0));
      if (sendto(forger, d.data(), d.size(), MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&to), sizeof to) ==
          static_cast<ssize_t>(d.size()))
        ++sentForged;
      if (i % 50 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  std::set<std::string> oracle;
  for (const auto& l : ns.ipJson("link show")) oracle.insert(l["ifname"].get<std::string>());
  for (int round = 0; round < 20; ++round) {
    Batch b;
    for (int i = 0; i < 10; ++i) b.add(LinkRequests::set("v" + std::to_string(i), LinkInfo().setMtu(1300 + round * 10 + i)));
    auto r = nl.run(b, {.onError = OnError::Continue});
    EXPECT_EQ(r.applied, 10u) << (r.firstError() ? r.firstError()->what() : "");
    std::set<std::string> mine;
    for (const auto& l : links.list()) mine.insert(*l.name);
    EXPECT_EQ(mine, oracle) << "round " << round;
  }
  stop = true;
  forgerThread.join();
  for (int i = 0; i < 10; ++i) EXPECT_EQ(ipLink("v" + std::to_string(i))["mtu"], 1300 + 190 + i);
  (void)links.list();  // reads (and drops) whatever forged datagrams are still queued
  EXPECT_GT(sentForged.load(), 0u);
  EXPECT_EQ(nl.counters().droppedForeign - foreignBefore, sentForged.load());
}

}  // namespace
}  // namespace fastlink::test
