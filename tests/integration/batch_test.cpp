// The pipelined batch against the real kernel: per-request results matched by sequence number.
#include <linux/rtnetlink.h>

#include "integration/link_fixture.hpp"
#include "support/wire_observer.hpp"

namespace fastlink::test {
namespace {

class BatchTest : public LinkTest {
 protected:
  void addVeths(int n, const std::string& prefix = "v") {
    Batch b;
    for (int i = 0; i < n; ++i)
      b.add(LinkRequests::add(
          LinkInfo(prefix + std::to_string(i), "veth").setVeth(VethInfo().setPeerName(prefix + "p" + std::to_string(i)))));
    auto r = nl.run(b, {.onError = OnError::Continue});
    ASSERT_TRUE(r.ok()) << (r.firstError() ? r.firstError()->what() : "");
  }
  uint32_t ipMtu(const std::string& name) { return ipLink(name)["mtu"]; }
};

TEST_F(BatchTest, ThousandRequestsPipelinedFewSyscalls) {
  addVeths(100);
  // 1000 requests: ten MTU changes per device; the last one of each must win.
  Batch b;
  for (int round = 0; round < 10; ++round)
    for (int i = 0; i < 100; ++i) b.add(LinkRequests::set("v" + std::to_string(i), LinkInfo().setMtu(1000 + 10 * i + round)));
  ASSERT_EQ(b.size(), 1000u);
  // Counted on the wire by an observer of the socket calls, not by fastlink's own counters.
  wire::reset();
  auto r = nl.run(b, {.onError = OnError::Continue});
  wire::Counts w = wire::counts();
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.applied, 1000u);
  EXPECT_EQ(w.requests, 1000u) << "every request crossed the socket once";
  EXPECT_EQ(w.requestTypes[RTM_NEWLINK], 1000u);
  EXPECT_LE(w.sendCalls, 10u) << "many requests per sendmsg";
  EXPECT_LE(w.receiveCalls, 20u) << "ACKs per window, not per request";
  EXPECT_EQ(w.errors, 0u);
  auto all = ns.ipJson("link show");
  int checked = 0;
  for (const auto& l : all) {
    std::string name = l["ifname"];
    if (name.size() > 1 && name[0] == 'v' && name[1] != 'p') {
      EXPECT_EQ(l["mtu"], 1000 + 10 * std::stoi(name.substr(1)) + 9) << name;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 100);
}

TEST_F(BatchTest, ContinueReportsEveryFailureWithIndexAndExtack) {
  addVeths(10);
  Batch b;
  for (int i = 0; i < 10; ++i) {
    uint32_t mtu = (i == 3 || i == 7) ? 65536 : 1400;  // veth refuses 65536: the kernel says why
    b.add(LinkRequests::set("v" + std::to_string(i), LinkInfo().setMtu(mtu)));
  }
  b.add(LinkRequests::set("nosuch", LinkInfo().setMtu(1400)));
  auto r = nl.run(b, {.onError = OnError::Continue});
  ASSERT_EQ(r.results.size(), 11u);
  EXPECT_EQ(r.applied, 8u);
  EXPECT_EQ(r.failed, 3u);
  for (int i = 0; i < 11; ++i) {
    bool bad = i == 3 || i == 7 || i == 10;
    EXPECT_EQ(r.results[i].status, bad ? RequestStatus::Failed : RequestStatus::Applied) << i;
    if (bad) {
      ASSERT_TRUE(r.results[i].error);
      EXPECT_EQ(r.results[i].error->batchIndex(), static_cast<std::size_t>(i));
    }
  }
  EXPECT_NE(r.results[3].error->extack().find("mtu"), std::string::npos) << r.results[3].error->extack();
  EXPECT_EQ(r.results[10].error->code(), std::errc::no_such_device);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(ipMtu("v" + std::to_string(i)), (i == 3 || i == 7) ? 1500u : 1400u);
}

TEST_F(BatchTest, StopIsStopSafeByDefault) {
  addVeths(10);
  Batch b;
  for (int i = 0; i < 10; ++i) b.add(LinkRequests::set("v" + std::to_string(i), LinkInfo().setMtu(i == 4 ? 65536 : 1400)));
  auto r = nl.run(b);  // OnError::Stop, automatic window = 1
  EXPECT_EQ(r.applied, 4u);
  EXPECT_EQ(r.failed, 1u);
  EXPECT_EQ(r.notSent, 5u);
  EXPECT_EQ(r.results[4].status, RequestStatus::Failed);
  for (int i = 5; i < 10; ++i) EXPECT_EQ(r.results[i].status, RequestStatus::NotSent);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(ipMtu("v" + std::to_string(i)), i < 4 ? 1400u : 1500u) << i;
}

TEST_F(BatchTest, StopWithWindowReportsWhatWasInFlightTruthfully) {
  addVeths(20);
  Batch b;
  for (int i = 0; i < 20; ++i) b.add(LinkRequests::set("v" + std::to_string(i), LinkInfo().setMtu(i == 2 ? 65536 : 1400)));
  auto r = nl.run(b, {.onError = OnError::Stop, .window = 8});
  // Requests 0..7 went out in one sendmsg; 3..7 were applied although 2 failed. 8.. were not sent.
  for (int i = 0; i < 20; ++i) {
    RequestStatus expected = i == 2 ? RequestStatus::Failed : (i < 8 ? RequestStatus::Applied : RequestStatus::NotSent);
    EXPECT_EQ(r.results[i].status, expected) << i;
    bool applied = expected == RequestStatus::Applied;
    EXPECT_EQ(ipMtu("v" + std::to_string(i)), applied ? 1400u : 1500u) << i;
  }
}

TEST_F(BatchTest, StreamedSourceDeliversResultsInOrder) {
  addVeths(50);
  int next = 0;
  RequestSource source = [&]() -> std::optional<Request> {
    if (next == 60) return std::nullopt;
    int i = next++;
    // 50..59 do not exist: each fails with its own index.
    return LinkRequests::set("v" + std::to_string(i), LinkInfo().setMtu(1600));
  };
  std::vector<std::size_t> order;
  std::size_t failures = 0;
  auto totals = nl.run(source, {.onError = OnError::Continue, .window = 16}, [&](std::size_t i, const RequestResult& r) {
    order.push_back(i);
    if (r.status == RequestStatus::Failed) {
      ++failures;
      EXPECT_GE(i, 50u);
      EXPECT_EQ(r.error->batchIndex(), i);
    }
  });
  ASSERT_EQ(order.size(), 60u);
  for (std::size_t i = 0; i < order.size(); ++i) EXPECT_EQ(order[i], i);
  EXPECT_EQ(failures, 10u);
  EXPECT_EQ(totals.applied, 50u);
  EXPECT_TRUE(totals.results.empty()) << "the streamed form keeps no per-request results";
  EXPECT_EQ(ipMtu("v49"), 1600u);
}

TEST_F(BatchTest, BadRequestIsRejectedBeforeAnythingIsQueued) {
  Batch b;
  b.add(LinkRequests::add(LinkInfo("ok0", "bridge")));
  EXPECT_THROW(b.add(LinkRequests::add(LinkInfo("bad/name", "bridge"))), Error);
  EXPECT_EQ(b.size(), 1u);
}

TEST_F(BatchTest, MixedCreateConfigureDeleteInOneBatch) {
  Batch b;
  b.add(LinkRequests::add(LinkInfo("br0", "bridge")));
  b.add(LinkRequests::add(LinkInfo("v0", "veth").setVeth(VethInfo().setPeerName("v1")).setMtu(2000)));
  b.add(LinkRequests::set("v0", LinkInfo().setAdmin(true).setGroup(3)));
  b.add(LinkRequests::add(LinkInfo("tmp0", "ifb")));
  b.add(LinkRequests::del("tmp0"));
  auto r = nl.run(b, {.onError = OnError::Continue});
  EXPECT_TRUE(r.ok()) << (r.firstError() ? r.firstError()->what() : "");
  EXPECT_EQ(ipLink("v0")["mtu"], 2000);
  EXPECT_EQ(ipLink("v0")["group"], "3");
  EXPECT_TRUE(ipHasLink("br0"));
  EXPECT_FALSE(ipHasLink("tmp0"));
}

TEST_F(BatchTest, ExecuteSingleRequestThrowsWithOperation) {
  try {
    nl.execute(LinkRequests::del("nosuch"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::no_such_device);
    EXPECT_EQ(e.operation(), "link del dev nosuch");
  }
}

}  // namespace
}  // namespace fastlink::test
