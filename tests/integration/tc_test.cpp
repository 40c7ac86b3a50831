// Traffic control against the real kernel, with `tc -j -s qdisc show` and `tc class show` as the
// oracles, and where packets are dropped (TcDrops: drops made on purpose, counted by tc, /sys and
// /proc/net/snmp). The host kernel has pfifo/bfifo, pfifo_fast, htb, mq, noqueue and ingress; fq_codel,
// fq, netem, tbf and clsact run in the VM (QdiscVm*: skipped here with the reason, required there).
#include <gtest/gtest.h>
#include <linux/rtnetlink.h>

#include <fastlink/fastlink.hpp>
#include <fastlink/tc.hpp>
#include <fastlink/tc_filter.hpp>
#include <fastlink/tuntap.hpp>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <regex>
#include <thread>

#include "support/settled.hpp"
#include "support/test_netns.hpp"
#include "support/traffic.hpp"
#include "support/wire_observer.hpp"

namespace fastlink::test {
namespace {

/// True when the kernel can attach a `kind` root qdisc (probed once per kind on a scratch veth).
bool kernelHasQdisc(const std::string& kind) {
  static std::map<std::string, bool> known;
  if (auto it = known.find(kind); it != known.end()) return it->second;
  TestNetns scratch;
  scratch.ip("link add q0 type veth peer name q1");
  std::string where = kind == "clsact" || kind == "ingress" ? kind : "root " + kind;
  if (kind == "tbf") where += " rate 1mbit burst 32kbit latency 400ms";  // tbf refuses to start without them
  bool has = run("tc -n " + scratch.name() + " qdisc add dev q0 " + where + " 2>/dev/null").status == 0;
  return known[kind] = has;
}

/// Skips with the reason when the host lacks a qdisc; in the VM (FASTLINK_REQUIRE_KINDS is set
/// only there) the kernel has every one, so a missing one fails instead.
#define FASTLINK_REQUIRE_QDISC(kind)                                                                           \
  do {                                                                                                         \
    if (!kernelHasQdisc(kind)) {                                                                               \
      if (std::getenv("FASTLINK_REQUIRE_KINDS")) FAIL() << "the VM kernel lacks qdisc " << kind;              \
      GTEST_SKIP() << "kernel lacks qdisc '" << kind << "': golden bytes here, runs for real in the VM (tests/vm)"; \
    }                                                                                                          \
  } while (0)

class TcTest : public ::testing::Test {
 protected:
  TestNetns ns;
  Netlink nl{NetlinkOptions{.netns = Netns::named(ns.name())}};
  TcApi& tc = nl.tc();

  void SetUp() override {
    ns.exec("sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1");
    ns.ip("link add v0 numtxqueues 4 type veth peer name v1");
    ns.ip("link set v0 up");
    ns.ip("link set v1 up");
  }

  CommandResult tcRun(const std::string& args) const { return run("tc -n " + ns.name() + " " + args); }
  /// `tc -n NS -j -s qdisc show dev DEV` keyed by handle.
  std::map<std::string, nlohmann::json> tcQdiscs(const std::string& dev) const {
    auto r = tcRun("-j -s qdisc show dev " + dev);
    EXPECT_EQ(r.status, 0) << r.err;
    std::map<std::string, nlohmann::json> out;
    for (const auto& q : nlohmann::json::parse(r.out)) out[q["handle"].get<std::string>() + (q.contains("parent") ? q["parent"].get<std::string>() : "root")] = q;
    return out;
  }
  std::string tcText(const std::string& args) const {
    auto r = tcRun(args);
    EXPECT_EQ(r.status, 0) << r.err;
    return r.out;
  }
  static std::string key(const QdiscInfo& q) {
    return fmt(q.handle) + (q.parent->value == TcHandle::kRoot ? "root" : q.parent->value == TcHandle::kIngress ? "ffff:fff1" : q.parent->toString());
  }
  static std::string fmt(const std::optional<TcHandle>& h) { return TcHandle(h->major(), 0).toString(); }
};

TEST_F(TcTest, QdiscHostKindsMatchTc) {
  tc.replaceQdisc(QdiscInfo().setDev("v0").setRoot().setHandle(TcHandle(1, 0)).setKind("mq"));
  tc.replaceQdisc(QdiscInfo().setDev("v0").setParent(TcHandle(1, 1)).setHandle(TcHandle(0x10, 0)).setKind("pfifo").setOptions(FifoOptions{10}));
  tc.replaceQdisc(QdiscInfo().setDev("v0").setParent(TcHandle(1, 2)).setHandle(TcHandle(0x20, 0)).setKind("bfifo").setOptions(FifoOptions{20000}));
  tc.replaceQdisc(QdiscInfo().setDev("v0").setParent(TcHandle(1, 3)).setKind("pfifo_fast"));
  tc.addQdisc(QdiscInfo().setDev("v1").setIngress());

  auto oracle = tcQdiscs("v0");
  auto mine = tc.qdiscs(QdiscFilter().setDev("v0"));
  ASSERT_EQ(mine.size(), oracle.size()) << tcText("qdisc show dev v0");
  for (const auto& q : mine) {
    ASSERT_TRUE(oracle.count(key(q))) << key(q);
    const auto& o = oracle[key(q)];
    EXPECT_EQ(q.kind, o["kind"]);
    ASSERT_TRUE(q.stats);
    // tc reads after us: IPv6 may have sent a packet (router solicitation) in between.
    EXPECT_LE(q.stats->packets, o["packets"].get<uint64_t>());
    EXPECT_EQ(q.stats->drops, o["drops"].get<uint32_t>());
    if (q.kind == "pfifo") { EXPECT_EQ(std::get<FifoOptions>(q.options).limit, 10u); }
    if (q.kind == "bfifo") { EXPECT_EQ(std::get<FifoOptions>(q.options).limit, o["options"]["limit"].get<uint32_t>()); }
    if (q.kind == "pfifo_fast") {
      auto& p = std::get<PrioOptions>(q.options);
      EXPECT_EQ(p.bands, o["options"]["bands"].get<uint32_t>());
      for (std::size_t i = 0; i < 16; ++i) EXPECT_EQ(p.priomap[i], o["options"]["priomap"][i].get<int>());
    }
  }
  auto ingress = tc.qdiscs(QdiscFilter().setDev("v1").setParent(TcHandle(TcHandle::kIngress)));
  ASSERT_EQ(ingress.size(), 1u);
  EXPECT_EQ(ingress[0].kind, "ingress");
  EXPECT_EQ(ingress[0].handle->value, 0xFFFF0000u);

  tc.delQdisc(QdiscInfo().setDev("v1").setIngress());
  EXPECT_EQ(tcText("qdisc show dev v1 ingress"), "");
  tc.delQdisc(QdiscInfo().setDev("v0").setRoot());
  EXPECT_EQ(tcQdiscs("v0").count("1:root"), 0u);
}

TEST_F(TcTest, FilterApiResolvesTheDeviceAndMirredTargetsByName) {
  // The library's own add (not a batch): the filter's device and each mirred action's target
  // given by name, resolved before the request is built (FilterChangeTraits::devices); a target
  // that does not exist is refused and changes nothing. tc filter show is the oracle.
  tcText("qdisc add dev v0 ingress");
  U32FilterOptions u;
  u.keys.push_back({0x0A000001, 0xFFFFFFFF, 16, 0});
  u.actions.push_back(TcAction::mirred(MirredAction::EgressMirror, Ifref("v0")));
  u.actions.push_back(TcAction::mirred(MirredAction::EgressRedirect, Ifref("v1")));
  TcFilterInfo f;
  f.setDev(Ifref("v0")).setParent(TcFilterInfo::kIngressParent).setPrio(10).setProtocol(0x0800).setOptions(u);
  nl.tcFilters().add(f);
  std::string shown = tcText("filter show dev v0 ingress");
  EXPECT_NE(shown.find("(Egress Mirror to device v0)"), std::string::npos) << shown;
  EXPECT_NE(shown.find("(Egress Redirect to device v1)"), std::string::npos) << shown;
  TcFilterInfo missing = f;
  missing.setPrio(11);
  std::get<U32FilterOptions>(missing.options).actions[1] = TcAction::mirred(MirredAction::EgressRedirect, Ifref("nosuch0"));
  EXPECT_THROW(nl.tcFilters().add(missing), Error);
  EXPECT_EQ(tcText("filter show dev v0 ingress"), shown);
}

TEST_F(TcTest, QdiscChangeKeepsHandleAndReplaceSwapsKind) {
  tc.addQdisc(QdiscInfo().setDev("v0").setRoot().setHandle(TcHandle(5, 0)).setKind("pfifo").setOptions(FifoOptions{7}));
  EXPECT_THROW(tc.addQdisc(QdiscInfo().setDev("v0").setRoot().setHandle(TcHandle(5, 0)).setKind("pfifo")), Error);
  tc.changeQdisc(QdiscInfo().setDev("v0").setRoot().setHandle(TcHandle(5, 0)).setKind("pfifo").setOptions(FifoOptions{99}));
  auto o = tcQdiscs("v0");
  ASSERT_TRUE(o.count("5:root"));
  EXPECT_EQ(o["5:root"]["options"]["limit"], 99);
  // Like tc: the kernel keeps a handle's kind ("must match existing qdisc"); a new handle swaps.
  EXPECT_THROW(tc.replaceQdisc(QdiscInfo().setDev("v0").setRoot().setHandle(TcHandle(5, 0)).setKind("bfifo")), Error);
  tc.replaceQdisc(QdiscInfo().setDev("v0").setRoot().setHandle(TcHandle(6, 0)).setKind("bfifo").setOptions(FifoOptions{3000}));
  o = tcQdiscs("v0");
  EXPECT_EQ(o["6:root"]["kind"], "bfifo");
  EXPECT_EQ(o["6:root"]["options"]["limit"], 3000);
}

TEST_F(TcTest, QdiscOfOneDeviceAmongMany) {
  std::vector<std::string> lines;
  for (int i = 0; i < 30; ++i) lines.push_back("link add w" + std::to_string(i) + " type veth peer name x" + std::to_string(i));
  ns.ipBatch(lines);
  for (int i = 0; i < 30; ++i) tc.replaceQdisc(QdiscInfo().setDev("w" + std::to_string(i)).setRoot().setKind("pfifo"));
  tc.replaceQdisc(QdiscInfo().setDev("v0").setRoot().setHandle(TcHandle(1, 0)).setKind("htb"));
  tc.addQdisc(QdiscInfo().setDev("v0").setIngress());
  uint32_t v0 = nl.links().get("v0").index.value();

  // A device's qdiscs: the kernel ignores tcm_ifindex in qdisc dumps (it sends every device's),
  // so the dump is filtered here; the result is still exactly tc's.
  wire::reset();
  auto mine = tc.qdiscs(QdiscFilter().setDev(v0));
  auto c = wire::counts();
  EXPECT_EQ(mine.size(), 2u);
  EXPECT_EQ(tcQdiscs("v0").size(), 2u);
  ASSERT_EQ(wire::dumpReplies(c, RTM_GETQDISC).size(), 1u);
  for (const auto& q : mine) EXPECT_EQ(q.dev->index(), v0);

  auto root = tc.qdiscs(QdiscFilter().setDev(v0).setRoot());
  ASSERT_EQ(root.size(), 1u);
  EXPECT_EQ(root[0].kind, "htb");
  EXPECT_TRUE(tc.qdiscs(QdiscFilter().setDev("w1").setParent(TcHandle(TcHandle::kIngress))).empty());
}

TEST_F(TcTest, ClassHtbTreeMatchesTc) {
  HtbOptions root;
  root.defaultClass = 0x20;
  root.r2q = 5;
  tc.addQdisc(QdiscInfo().setDev("v0").setRoot().setHandle(TcHandle(1, 0)).setKind("htb").setOptions(root));
  HtbClassOptions top;
  top.rate = 1250000;  // 10mbit
  top.ceil = 2500000;
  top.burst = 15360;
  top.prio = 2;
  tc.addClass(ClassInfo().setDev("v0").setParent(TcHandle(1, 0)).setClassid(TcHandle(1, 0x10)).setKind("htb").setOptions(top));
  HtbClassOptions leaf;
  leaf.rate = 125000;  // 1mbit
  leaf.prio = 3;
  leaf.quantum = 3000;
  tc.addClass(ClassInfo().setDev("v0").setParent(TcHandle(1, 0x10)).setClassid(TcHandle(1, 0x20)).setKind("htb").setOptions(leaf));
  tc.addQdisc(QdiscInfo().setDev("v0").setParent(TcHandle(1, 0x20)).setHandle(TcHandle(0x20, 0)).setKind("pfifo"));

  // tc 6.1 prints htb classes as text even with -j: read the words of `tc -s -d class show`.
  std::string text = tcText("-s -d class show dev v0");
  auto classes = tc.classes(ClassFilter().setDev("v0"));
  ASSERT_EQ(classes.size(), 2u) << text;
  for (const auto& c : classes) {
    const auto& o = std::get<HtbClassOptions>(c.options);
    std::regex line("class htb " + c.classid->toString() + " (root|parent [0-9a-f:]+) (leaf ([0-9a-f]+): )?(prio (\\d+) quantum (\\d+) )?rate (\\S+) ceil (\\S+) linklayer ethernet burst (\\S+)/1 mpu 0b cburst (\\S+)/1 mpu 0b level (\\d+)");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(text, m, line)) << c.classid->toString() << "\n" << text;
    EXPECT_EQ(tcunits::rateText(o.rate), m[7].str());
    EXPECT_EQ(tcunits::rateText(*o.ceil), m[8].str());
    EXPECT_EQ(tcunits::sizeText(*o.burst), m[9].str());
    EXPECT_EQ(tcunits::sizeText(*o.cburst), m[10].str());
    EXPECT_EQ(std::to_string(o.level), m[11].str());
    if (o.level == 0) {
      EXPECT_EQ(std::to_string(*o.prio), m[5].str());
      EXPECT_EQ(std::to_string(*o.quantum), m[6].str());
    }
    if (c.leaf) { EXPECT_EQ(fmt(c.leaf), m[3].str() + ":"); }
    ASSERT_TRUE(c.stats && c.stats->htb);
    std::regex tokens(" tokens: (-?\\d+) ctokens: (-?\\d+)");
    // Tokens refill with time; the configured bucket is what an idle class holds.
    auto at = text.find("class htb " + c.classid->toString());
    std::string block = text.substr(at, text.find("\n\n", at) - at);
    ASSERT_TRUE(std::regex_search(block, m, tokens)) << block;
    EXPECT_EQ(std::to_string(c.stats->htb->tokens), m[1].str());
    EXPECT_EQ(std::to_string(c.stats->htb->ctokens), m[2].str());
  }
  EXPECT_EQ(classes[0].parent->value == TcHandle::kRoot || classes[1].parent->value == TcHandle::kRoot, true);

  // change, then delete the leaf class (after its qdisc).
  leaf.rate = 250000;
  tc.changeClass(ClassInfo().setDev("v0").setParent(TcHandle(1, 0x10)).setClassid(TcHandle(1, 0x20)).setKind("htb").setOptions(leaf));
  EXPECT_NE(tcText("class show dev v0 classid 1:20").find("rate 2Mbit"), std::string::npos);
  tc.delQdisc(QdiscInfo().setDev("v0").setParent(TcHandle(1, 0x20)));
  tc.delClass(ClassInfo().setDev("v0").setClassid(TcHandle(1, 0x20)));
  EXPECT_EQ(tcText("class show dev v0 classid 1:20"), "");
}

TEST_F(TcTest, ClassUnderMissingParentIsRefusedAndChangesNothing) {
  tc.addQdisc(QdiscInfo().setDev("v0").setRoot().setHandle(TcHandle(1, 0)).setKind("htb"));
  std::string before = tcText("class show dev v0");
  HtbClassOptions o;
  o.rate = 125000;
  try {
    tc.addClass(ClassInfo().setDev("v0").setParent(TcHandle(1, 0x99)).setClassid(TcHandle(1, 0x40)).setKind("htb").setOptions(o));
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::no_such_file_or_directory);
    EXPECT_NE(std::string(e.what()).find("1:99"), std::string::npos) << e.what();
  }
  EXPECT_EQ(tcText("class show dev v0"), before);
}

TEST_F(TcTest, QdiscBadInputChangesNothing) {
  tc.replaceQdisc(QdiscInfo().setDev("v0").setRoot().setHandle(TcHandle(1, 0)).setKind("pfifo").setOptions(FifoOptions{4}));
  std::string before = tcText("-d qdisc show");
  NetemOptions netem;
  netem.loss = 1.2;
  EXPECT_THROW(tc.replaceQdisc(QdiscInfo().setDev("v0").setRoot().setKind("netem").setOptions(netem)), Error);
  EXPECT_THROW(tc.replaceQdisc(QdiscInfo().setDev("v0").setRoot().setKind("htb").setOptions(FifoOptions{1})), Error);
  EXPECT_THROW(tc.replaceQdisc(QdiscInfo().setDev("nosuchdev").setRoot().setKind("pfifo")), Error);
  try {
    tc.replaceQdisc(QdiscInfo().setDev("v0").setRoot().setKind("nosuchkind"));
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_FALSE(e.extack().empty()) << e.what();  // "Specified qdisc kind is unknown"
  }
  EXPECT_EQ(tcText("-d qdisc show"), before);
}

// ---- where packets are dropped ----------------------------------------------------------------------
// Drops made on purpose at a known place, with a known number of datagrams, and counted by
// oracles that do not share code with fastlink: tc (the qdisc's and the class's counters), /sys
// (the device's), UDP's SndbufErrors (/proc/net/snmp: a qdisc drop the sender was told of) and
// the peer's or the TAP reader's count of what arrived. Each test fails when the drops are 0 or
// are counted anywhere but where they happened.

class TcDrops : public TcTest {
 protected:
  /// /sys/class/net/DEV/statistics/COUNTER inside the test's namespace.
  uint64_t sysStat(const TestNetns& where, const std::string& dev, const std::string& counter) const {
    return std::stoull(where.sysfs(dev, "statistics/" + counter));
  }
  /// "Sent B bytes P pkt (dropped D, ..." of `tc -s class show dev DEV classid ID`: {P, D}.
  std::pair<uint64_t, uint64_t> tcClassSentDropped(const std::string& dev, const std::string& classid) const {
    std::string text = tcText("-s class show dev " + dev + " classid " + classid);
    std::smatch m;
    if (!std::regex_search(text, m, std::regex(" Sent \\d+ bytes (\\d+) pkt \\(dropped (\\d+),"))) {
      ADD_FAILURE() << "no Sent line for class " << classid << ":\n" << text;
      return {0, 0};
    }
    return {std::stoull(m[1].str()), std::stoull(m[2].str())};
  }
  /// Waits (up to 10 s) until tc shows every qdisc of `dev` empty: what was queued has left.
  void waitForEmptyQdiscs(const std::string& dev) const {
    for (int i = 0; i < 100; ++i) {
      uint64_t queued = 0;
      for (const auto& [k, q] : tcQdiscs(dev)) queued += q.value("qlen", 0ull);
      if (queued == 0) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ADD_FAILURE() << "the qdiscs of " << dev << " did not drain in 10 s:\n" << tcText("-s qdisc show dev " + dev);
  }
  /// A TAP whose reader reads nothing: tun's ring (txqueuelen entries) fills, and the driver
  /// drops the rest after the qdisc has passed them on. `qdisc` is the TAP's root qdisc.
  void expectRingDropsAtTheDevice(const std::string& qdisc);
};

TEST_F(TcDrops, AFullPfifoUnderHtbDropsAndItsClassAndHtbCountThem) {
  // v0 (this namespace) -> v1 (a peer namespace), shaped by htb at 8kbit (1,000 bytes/s: the
  // bucket passes ~25 of the 60-byte frames at once) into a pfifo of 5 packets. A burst of 200
  // datagrams overflows the pfifo: every datagram is either sent on or dropped by the pfifo.
  TestNetns peer;
  wireToPeer(ns, "v0", peer, "v1");
  ASSERT_EQ(tcRun("qdisc replace dev v0 root handle 1: htb default 1").status, 0);
  ASSERT_EQ(tcRun("class add dev v0 parent 1: classid 1:1 htb rate 8kbit").status, 0);
  ASSERT_EQ(tcRun("qdisc add dev v0 parent 1:1 handle 10: pfifo limit 5").status, 0);
  const uint64_t txBefore = sysStat(ns, "v0", "tx_packets"), txDroppedBefore = sysStat(ns, "v0", "tx_dropped");
  const uint64_t rxBefore = sysStat(peer, "v1", "rx_packets"), sndbufBefore = udpSndbufErrors(ns);

  constexpr uint64_t kBurst = 200;
  ASSERT_EQ(sendUdpBurst(ns.name(), "10.9.0.2", kBurst), kBurst);
  // Let the pfifo drain (5 frames at 1,000 bytes/s), then read until tc's counters stand still
  // across fastlink's read.
  waitForEmptyQdiscs("v0");
  auto [mine, oracle] = settledReads([&] { return tc.qdiscs(QdiscFilter().setDev("v0")); }, [&] { return tcQdiscs("v0"); }, 100);
  ASSERT_EQ(oracle.size(), 2u);
  const auto& pfifo = oracle.at("10:1:1");
  const auto& htb = oracle.at("1:root");
  const uint64_t drops = pfifo["drops"].get<uint64_t>(), passed = pfifo["packets"].get<uint64_t>();
  ASSERT_EQ(pfifo["qlen"], 0) << "the pfifo did not drain";

  // The count: most of the burst was dropped, all of it by the pfifo, and nothing else was lost.
  EXPECT_GE(drops, kBurst / 2) << "the pfifo dropped too little: " << pfifo.dump();
  EXPECT_EQ(passed + drops, kBurst) << pfifo.dump();
  EXPECT_EQ(sysStat(ns, "v0", "tx_packets") - txBefore, passed);
  EXPECT_EQ(sysStat(peer, "v1", "rx_packets") - rxBefore, passed);
  EXPECT_EQ(udpSndbufErrors(ns) - sndbufBefore, drops) << "UDP was told of a different number of qdisc drops";
  // The place: the pfifo, its class and htb (which counts its leaf's drops) — not the device.
  EXPECT_EQ(htb["drops"].get<uint64_t>(), drops);
  EXPECT_EQ(htb["packets"].get<uint64_t>(), passed);
  EXPECT_EQ(tcClassSentDropped("v0", "1:1"), std::make_pair(passed, drops));
  EXPECT_EQ(sysStat(ns, "v0", "tx_dropped") - txDroppedBefore, 0u);

  // fastlink reads the same counters at the same places.
  ASSERT_EQ(mine.size(), 2u);
  for (const auto& q : mine) {
    const auto& o = oracle.at(key(q));
    ASSERT_TRUE(q.stats) << q.kind;
    EXPECT_EQ(q.stats->packets, o["packets"].get<uint64_t>()) << q.kind;
    EXPECT_EQ(q.stats->bytes, o["bytes"].get<uint64_t>()) << q.kind;
    EXPECT_EQ(q.stats->drops, o["drops"].get<uint32_t>()) << q.kind;
    EXPECT_EQ(q.stats->overlimits, o["overlimits"].get<uint32_t>()) << q.kind;
    EXPECT_EQ(q.stats->backlog, o["backlog"].get<uint32_t>()) << q.kind;
    EXPECT_EQ(q.stats->qlen, o["qlen"].get<uint32_t>()) << q.kind;
    if (q.kind == "htb") { EXPECT_GT(q.stats->overlimits, 0u); }
  }
  auto classes = tc.classes(ClassFilter().setDev("v0").setClassid(TcHandle(1, 1)));
  ASSERT_EQ(classes.size(), 1u);
  ASSERT_TRUE(classes[0].stats);
  EXPECT_EQ(classes[0].stats->packets, passed);
  EXPECT_EQ(classes[0].stats->drops, drops);
  auto link = nl.links().get("v0", true);
  ASSERT_TRUE(link.stats);
  EXPECT_EQ(link.stats->txDropped, sysStat(ns, "v0", "tx_dropped"));
  EXPECT_EQ(link.stats->txPackets, sysStat(ns, "v0", "tx_packets"));
}

void TcDrops::expectRingDropsAtTheDevice(const std::string& qdisc) {
  TunTapApi& tuntap = nl.tuntap();
  tuntap.add(TunTapInfo("tap0", TunTapMode::Tap));
  constexpr uint64_t kRing = 16, kBurst = 100;
  ns.ip("link set tap0 txqueuelen " + std::to_string(kRing));  // the ring is sized when a queue attaches
  TunTapQueue reader = tuntap.openQueue("tap0");
  ns.ip("link set tap0 up");
  ns.ip("addr add 10.8.0.1/24 dev tap0");
  ns.ip("neigh replace 10.8.0.2 lladdr 02:00:00:00:00:02 dev tap0 nud permanent");
  ASSERT_EQ(tcRun("qdisc replace dev tap0 root " + qdisc).status, 0);
  std::vector<char> frame(65536);
  while (read(reader.fd(), frame.data(), frame.size()) > 0) {
  }
  auto qdiscDrops = [&] {
    uint64_t sum = 0, packets = 0;
    for (const auto& [k, q] : tcQdiscs("tap0")) sum += q.value("drops", 0ull), packets += q.value("packets", 0ull);
    return std::make_pair(packets, sum);
  };
  const uint64_t droppedBefore = sysStat(ns, "tap0", "tx_dropped"), sndbufBefore = udpSndbufErrors(ns);
  const auto [qPacketsBefore, qDropsBefore] = qdiscDrops();

  ASSERT_EQ(sendUdpBurst(ns.name(), "10.8.0.2", kBurst), kBurst);
  waitForEmptyQdiscs("tap0");  // a qdisc run the sender handed to the softirq has ended
  const uint64_t ringDrops = sysStat(ns, "tap0", "tx_dropped") - droppedBefore;
  const auto [qPackets, qDrops] = qdiscDrops();
  // The count: the ring kept kRing frames and the driver dropped the rest. tun returns
  // NET_XMIT_DROP for them: with noqueue that return reaches the sender (UDP counts it), behind a
  // qdisc it ends in the qdisc's transmit loop and the sender never hears of it.
  EXPECT_EQ(ringDrops, kBurst - kRing) << qdisc;
  EXPECT_EQ(udpSndbufErrors(ns) - sndbufBefore, qdisc == "noqueue" ? ringDrops : 0u) << qdisc;
  // The place: the device, not the qdisc (which passed every datagram on, when it counts).
  EXPECT_EQ(qDrops - qDropsBefore, 0u) << qdisc;
  if (qdisc != "noqueue") { EXPECT_EQ(qPackets - qPacketsBefore, kBurst) << qdisc; }
  uint64_t inRing = 0;
  while (read(reader.fd(), frame.data(), frame.size()) > 0) ++inRing;
  EXPECT_EQ(inRing, kRing) << "the reader found another number of frames in the ring";

  // fastlink reads the drops at the device and none at the qdisc.
  auto link = nl.links().get("tap0", true);
  ASSERT_TRUE(link.stats);
  EXPECT_EQ(link.stats->txDropped, sysStat(ns, "tap0", "tx_dropped"));
  uint64_t mineDrops = 0;
  for (const auto& q : tc.qdiscs(QdiscFilter().setDev("tap0"))) mineDrops += q.stats ? q.stats->drops : 0;
  EXPECT_EQ(mineDrops, qDrops);
}

TEST_F(TcDrops, AnUnreadTapDropsInItsRingBehindPfifoFast) { expectRingDropsAtTheDevice("pfifo_fast"); }
TEST_F(TcDrops, AnUnreadTapDropsInItsRingBehindNoqueue) { expectRingDropsAtTheDevice("noqueue"); }

// ---- kinds the host lacks: the VM ------------------------------------------------------------------

class QdiscVm : public TcTest {};

TEST_F(QdiscVm, FqCodelOptionsAndStatsMatchTc) {
  FASTLINK_REQUIRE_QDISC("fq_codel");
  FqCodelOptions o;
  o.limit = 2000;
  o.flows = 256;
  o.target = 4000;
  o.interval = 80000;
  o.ecn = true;
  tc.replaceQdisc(QdiscInfo().setDev("v0").setRoot().setHandle(TcHandle(1, 0)).setKind("fq_codel").setOptions(o));
  auto q = tc.qdiscs(QdiscFilter().setDev("v0").setRoot());
  ASSERT_EQ(q.size(), 1u);
  auto& got = std::get<FqCodelOptions>(q[0].options);
  EXPECT_EQ(got.limit, 2000u);
  EXPECT_EQ(got.flows, 256u);
  EXPECT_NEAR(double(*got.target), 4000, 1);  // codel keeps 1024 ns units
  EXPECT_EQ(got.interval, 80000u);
  EXPECT_EQ(got.ecn, true);
  ASSERT_TRUE(q[0].stats && q[0].stats->fqCodel);
  auto o2 = tcQdiscs("v0")["1:root"];
  EXPECT_EQ(o2["options"]["limit"], 2000);
  EXPECT_EQ(o2["options"]["flows"], 256);
  EXPECT_EQ(q[0].stats->fqCodel->maxPacket, o2["maxpacket"].get<uint32_t>());
  EXPECT_EQ(q[0].stats->fqCodel->newFlowCount, o2["new_flow_count"].get<uint32_t>());
}

TEST_F(QdiscVm, NetemTbfFqClsactMatchTc) {
  FASTLINK_REQUIRE_QDISC("netem");
  FASTLINK_REQUIRE_QDISC("tbf");
  FASTLINK_REQUIRE_QDISC("fq");
  FASTLINK_REQUIRE_QDISC("clsact");
  NetemOptions n;
  n.delay = 100000;
  n.jitter = 10000;
  n.loss = 0.01;
  n.duplicate = 0.02;
  n.reorder = 0.25;
  n.corrupt = 0.005;
  n.limit = 500;
  n.rate = 125000;
  tc.replaceQdisc(QdiscInfo().setDev("v0").setRoot().setHandle(TcHandle(1, 0)).setKind("netem").setOptions(n));
  auto netem = tcQdiscs("v0")["1:root"];
  EXPECT_EQ(netem["kind"], "netem");
  EXPECT_EQ(netem["options"]["limit"], 500);
  auto mine = tc.qdiscs(QdiscFilter().setDev("v0").setRoot());
  auto& got = std::get<NetemOptions>(mine.at(0).options);
  EXPECT_EQ(got.delay, 100000u);
  EXPECT_EQ(got.jitter, 10000u);
  EXPECT_NEAR(got.loss, 0.01, 1e-6);
  EXPECT_NEAR(got.duplicate, 0.02, 1e-6);
  EXPECT_NEAR(got.reorder, 0.25, 1e-6);
  EXPECT_NEAR(got.corrupt, 0.005, 1e-6);
  EXPECT_EQ(got.rate, 125000u);
  std::string text = run("tc -n " + ns.name() + " qdisc show dev v0").out;
  EXPECT_NE(text.find("delay 100ms  10ms"), std::string::npos) << text;
  EXPECT_NE(text.find("loss 1%"), std::string::npos) << text;

  TbfOptions t;
  t.rate = 125000;
  t.burst = 32768;
  t.latency = 400000;
  // A new handle each time: replacing the root with the same handle but another kind is refused
  // ("Invalid qdisc name"), by tc as well.
  tc.replaceQdisc(QdiscInfo().setDev("v0").setRoot().setHandle(TcHandle(2, 0)).setKind("tbf").setOptions(t));
  auto tbf = std::get<TbfOptions>(tc.qdiscs(QdiscFilter().setDev("v0").setRoot()).at(0).options);
  EXPECT_EQ(tbf.rate, 125000u);
  EXPECT_EQ(tbf.burst, 32768u);
  EXPECT_EQ(tbf.limit, 82768u);
  EXPECT_EQ(tbf.reportedLatency, 400000u);  // 50,000 bytes beyond the bucket at 125,000 bytes/s
  text = run("tc -n " + ns.name() + " qdisc show dev v0").out;
  EXPECT_NE(text.find("rate 1Mbit burst 32Kb"), std::string::npos) << text;

  FqOptions f;
  f.limit = 5000;
  f.flowLimit = 50;
  f.pacing = false;
  tc.replaceQdisc(QdiscInfo().setDev("v0").setRoot().setHandle(TcHandle(3, 0)).setKind("fq").setOptions(f));
  auto fq = tcQdiscs("v0")["3:root"];
  EXPECT_EQ(fq["options"]["limit"], 5000);
  EXPECT_EQ(fq["options"]["flow_limit"], 50);
  auto mineFq = tc.qdiscs(QdiscFilter().setDev("v0").setRoot()).at(0);
  EXPECT_EQ(std::get<FqOptions>(mineFq.options).flowLimit, 50u);
  ASSERT_TRUE(mineFq.stats && mineFq.stats->fq);
  EXPECT_EQ(mineFq.stats->fq->flows, fq["flows"].get<uint32_t>());

  tc.addQdisc(QdiscInfo().setDev("v0").setClsact());
  auto cls = tc.qdiscs(QdiscFilter().setDev("v0").setParent(TcHandle(TcHandle::kIngress)));
  ASSERT_EQ(cls.size(), 1u);
  EXPECT_EQ(cls[0].kind, "clsact");
  EXPECT_NE(run("tc -n " + ns.name() + " qdisc show dev v0 clsact").out.find("clsact"), std::string::npos);
  tc.delQdisc(QdiscInfo().setDev("v0").setClsact());
  EXPECT_EQ(run("tc -n " + ns.name() + " qdisc show dev v0 clsact").out, "");
}

}  // namespace
}  // namespace fastlink::test
