// `fastlink tc` against iproute2 6.1's `tc`: the same text and JSON (host kinds), batch files,
// and bad input that changes nothing (oracle: tc).
#include <gtest/gtest.h>

#include <fastlink/fastlink.hpp>
#include <fastlink/tuntap.hpp>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <map>
#include <vector>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "cli/tc_cli_fixture.hpp"
#include "support/traffic.hpp"

namespace fastlink::test {
namespace {

class TcCli : public TcCliFixture {
 protected:
  void SetUp() override {
    // No IPv6 router solicitations or MLD reports: counters must not move between our read and tc's.
    ns.exec("sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1");
    ns.ip("link add v0 numtxqueues 3 type veth peer name v1");
    ns.ip("link set v0 up");
    ns.ip("link set v1 up");
  }
  std::string state() const { return tc("-d qdisc show").out + tc("-d class show dev v0").out; }
};

TEST_F(TcCli, QdiscAndClassOutputMatchesTc) {
  ok("tc qdisc add dev v0 root handle 1: htb default 10 r2q 5");
  ok("tc class add dev v0 parent 1: classid 1:10 htb rate 10mbit ceil 20mbit burst 15k prio 2");
  ok("tc class add dev v0 parent 1:10 classid 1:20 htb rate 1mbit prio 1 quantum 2000");
  ok("tc qdisc add dev v0 parent 1:20 handle 20: pfifo limit 10");
  ok("tc qdisc add dev v1 root handle 1: mq");
  ok("tc qdisc add dev v1 parent 1:1 bfifo limit 10kb");
  ok("tc qdisc add dev v1 parent 1:2 pfifo_fast");
  ok("tc qdisc add dev v1 ingress");
  for (const char* options : {"", "-s", "-d", "-j", "-s -j"}) {
    samePrint(options, "qdisc show");
    samePrint(options, "qdisc show dev v0");
    samePrint(options, "qdisc show dev v1");
    samePrint(options, "qdisc show dev v1 ingress");
  }
  for (const char* options : {"", "-s", "-d"}) {
    samePrint(options, "class show dev v0");
    samePrint(options, "class show dev v1");
  }
  // The kernel computed what tc would have: the htb class rate table and the default bursts.
  auto text = tc("class show dev v0").out;
  EXPECT_NE(text.find("class htb 1:10 root rate 10Mbit ceil 20Mbit burst 15Kb cburst 1600b"), std::string::npos) << text;
}

TEST_F(TcCli, IecRatesLikeTc) {
  // tc -iec prints rates in powers of 1024 ("1Mibit"), dividing while a rate is a whole number
  // of units or at least 1000 of them: a sweep across each unit's edges, in htb classes (rate and
  // ceil) and a police action's rate where the kernel has act_police.
  ok("tc qdisc add dev v0 root handle 1: htb");
  const char* rates[] = {"8bit",    "1000bit",  "1024bit",  "8kbit",     "8kibit",  "1000kibit", "1023kibit",
                         "1024kibit", "999kbit", "1mbit",    "1mibit",    "1001mibit", "100mibit", "1gbit",
                         "3gibit",  "12345678bit", "8000000bit", "10gbit", "1tibit", "1030000bit"};
  int minor = 1;
  for (const char* rate : rates) {
    char classid[16];
    std::snprintf(classid, sizeof classid, "1:%x", minor);
    ok(std::string("tc class add dev v0 parent 1: classid ") + classid + " htb rate " + rate + " ceil " + rate);
    ++minor;
  }
  // (-j is left out: tc 6.1 prints htb classes as text there, a pinned difference.) The bursts
  // beside the rates are tc's tc_calc_xmitsize of the kernel's ticks, whole microseconds first
  // (10gbit's 1600-byte default burst reads 1250b in tc, and now in fastlink).
  for (const char* options : {"-iec", "-iec -s", "-iec -d", "-i"}) samePrint(options, "class show dev v0");
  auto text = cli("tc -iec class show dev v0").out;
  EXPECT_NE(text.find("rate 1Mibit ceil 1Mibit"), std::string::npos) << text;
  EXPECT_NE(text.find("rate 1000Kibit"), std::string::npos) << text;
  // -iec before `tc` is ip's option (-human counters): the same switch for tc's printer.
  EXPECT_EQ(cli("-iec tc class show dev v0").out, text);
  EXPECT_EQ(cli("tc class show dev v0").out, tc("class show dev v0").out);
}

TEST_F(TcCli, TbfPrintsItsLatencyOrItsLimitLikeTc) {
  // tc prints the latency the limit allows ("lat 78.1ms"), or the limit when that latency is
  // negative; with a peak rate, the longer of the two latencies.
  if (tc("qdisc add dev v1 root handle 9: tbf rate 1mbit burst 10kb latency 50ms").status != 0) {
    if (std::getenv("FASTLINK_REQUIRE_KINDS")) FAIL() << "the VM kernel lacks qdisc tbf";
    GTEST_SKIP() << "kernel lacks qdisc 'tbf': runs in the VM (tests/vm)";
  }
  for (const char* options : {"", "-j"}) samePrint(options, "qdisc show dev v1");
  for (const char* tbf : {"rate 1mbit burst 10kb limit 20000", "rate 1mbit burst 10kb limit 2000",
                          "rate 100mbit burst 100kb latency 2s", "rate 8kbit burst 2kb latency 900us"}) {
    ASSERT_EQ(tc(std::string("qdisc replace dev v1 root handle 9: tbf ") + tbf).status, 0) << tbf;
    for (const char* options : {"", "-j"}) samePrint(options, "qdisc show dev v1");
  }
  // With a peak rate tc 6.1's JSON leaves "peakrate" out (a tc bug fastlink does not copy): text only.
  ASSERT_EQ(tc("qdisc replace dev v1 root handle 9: tbf rate 1mbit burst 10kb peakrate 2mbit mtu 1600 latency 20ms").status, 0);
  samePrint("", "qdisc show dev v1");
  EXPECT_NE(tc("qdisc show dev v1").out.find("lat 20ms"), std::string::npos);
}

// A success can carry the kernel's warning (an extended ACK with error 0): tc prints it on
// stderr and exits 0, and so must fastlink, alone and in a batch (the pipelined path).
TEST_F(TcCli, KernelWarningOnSuccessIsPrintedLikeTc) {
  ok("tc qdisc add dev v0 root handle 1: htb");
  ASSERT_EQ(tc("qdisc add dev v1 root handle 1: htb").status, 0);
  // rate / r2q (10) is far above 200,000 bytes: htb warns that the quantum is big.
  auto theirs = tc("class add dev v1 parent 1: classid 1:1 htb rate 10gbit");
  ASSERT_EQ(theirs.status, 0) << theirs.err;
  if (theirs.err.empty()) GTEST_SKIP() << "this kernel's htb does not warn through the ACK";
  auto mine = cli("tc class add dev v0 parent 1: classid 1:1 htb rate 10gbit");
  EXPECT_EQ(mine.status, 0) << mine.err;
  EXPECT_EQ(mine.err, theirs.err);
  auto batched = batch("tc class add dev v0 parent 1: classid 1:2 htb rate 10gbit\n"
                       "tc class add dev v0 parent 1: classid 1:3 htb rate 1mbit\n");
  EXPECT_EQ(batched.status, 0) << batched.err;
  auto theirs2 = tc("class add dev v1 parent 1: classid 1:2 htb rate 10gbit");
  EXPECT_EQ(batched.err, theirs2.err);
}

TEST_F(TcCli, ReplaceChangeDelLikeTc) {
  ok("tc qdisc replace dev v0 root pfifo limit 5");
  EXPECT_NE(tc("qdisc show dev v0").out.find("pfifo"), std::string::npos);
  ok("tc qdisc replace dev v0 root handle 7: bfifo limit 3000");
  ok("tc qdisc change dev v0 root handle 7: bfifo limit 6000");
  auto shown = tc("qdisc show dev v0").out;
  EXPECT_NE(shown.find("qdisc bfifo 7: root "), std::string::npos) << shown;
  EXPECT_NE(shown.find("limit 6000b"), std::string::npos) << shown;
  ok("tc qdisc del dev v0 root");
  EXPECT_EQ(tc("qdisc show dev v0").out.find("bfifo"), std::string::npos);
}

TEST_F(TcCli, BatchReplacesManyRootQdiscs) {
  std::string lines;
  for (int i = 0; i < 20; ++i) {
    ns.ip("link add b" + std::to_string(i) + " type veth peer name c" + std::to_string(i));
    lines += "tc qdisc replace dev b" + std::to_string(i) + " root handle 1: pfifo limit " + std::to_string(100 + i) + "\n";
  }
  lines += "tc qdisc add dev b0 root handle 1: htb\n";  // fails: exists
  auto r = batch(lines);
  EXPECT_EQ(r.status, 1) << r.err;  // tc -batch: 1 when a line failed
  EXPECT_NE(r.err.find("Exclusivity flag on"), std::string::npos) << r.err;  // the kernel's extack, line named
  EXPECT_NE(r.err.find("line 21"), std::string::npos) << r.err;
  for (int i = 0; i < 20; ++i)
    EXPECT_NE(tc("qdisc show dev b" + std::to_string(i)).out.find("limit " + std::to_string(100 + i) + "p"), std::string::npos) << i;
}

// `fastlink tc -batch FILE` reads tc's own batch file (lines without `tc`, as `tc -batch`): the
// qdiscs and classes are tc's afterwards; a failing line exits 1 and stops, -force goes on.
TEST_F(TcCli, TcBatchFileHoldsTcLines) {
  auto r = batch("qdisc add dev v0 root handle 1: htb default 10\n"
                 "class add dev v0 parent 1: classid 1:10 htb rate 5mbit\n"
                 "qdisc add dev v0 parent 1:10 handle 10: pfifo limit 20\n",
                 "tc");
  ASSERT_EQ(r.status, 0) << r.err;
  auto classes = tc("class show dev v0").out;
  EXPECT_NE(classes.find("class htb 1:10 root leaf 10: prio 0 rate 5Mbit"), std::string::npos) << classes;
  auto qdiscs = tc("qdisc show dev v0").out;
  EXPECT_NE(qdiscs.find("qdisc pfifo 10: parent 1:10 limit 20p"), std::string::npos) << qdiscs;
  const std::string failing = "qdisc add dev v1 root handle 1: htb\n"
                              "qdisc add dev v1 root handle 1: htb\n"
                              "class add dev v1 parent 1: classid 1:5 htb rate 1mbit\n";
  auto stopped = batch(failing, "tc");
  EXPECT_EQ(stopped.status, 1) << stopped.err;  // tc -batch: 1 when a line failed
  EXPECT_NE(stopped.err.find("line 2"), std::string::npos) << stopped.err;
  EXPECT_EQ(tc("class show dev v1").out, "");  // the line after the failure was not sent
  ok("tc qdisc del dev v1 root");
  auto forced = batch(failing, "tc -force");
  EXPECT_EQ(forced.status, 1) << forced.err;
  EXPECT_NE(tc("class show dev v1").out.find("class htb 1:5 root prio 0 rate 1Mbit"), std::string::npos);
}

// Statuses as tc's: 1 when a kind's options do not parse, 255 for the rest of the line's grammar.
TEST_F(TcCli, BadInputIsRefusedAndChangesNothing) {
  ok("tc qdisc add dev v0 root handle 1: htb");
  ok("tc class add dev v0 parent 1: classid 1:1 htb rate 1mbit");
  std::string before = state();
  struct Case {
    const char* args;
    int status;
    const char* says;
  } cases[] = {
      {"tc class add dev v0 parent 1: classid 1:2 htb rate 1000", 1, "has no unit"},
      {"tc class add dev v0 parent 1:99 classid 1:40 htb rate 1mbit", 2, "parent class 1:99 does not exist"},
      {"tc qdisc replace dev v0 root netem loss 101%", 1, "above 100%"},
      {"tc qdisc replace dev v0 root foo limit 5", 1, "unparsable"},
      {"tc qdisc replace dev v0 root pfifo rate 1mbit", 1, "rate"},
      {"tc qdisc replace dev v0 root mq limit 4", 1, "takes no options"},
      {"tc qdisc replace dev v0 root nosuchkind", 2, "unknown"},
      {"tc qdisc replace dev nosuch root pfifo", 1, "nosuch"},
      {"tc class add dev v0 parent 1: classid 1:0 htb rate 1mbit", 255, "names a qdisc"},
      {"tc qdisc add dev v0 pfifo", 255, "parent"},
  };
  for (const auto& c : cases) {
    auto r = cli(c.args);
    EXPECT_EQ(r.status, c.status) << c.args << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.args << ": " << r.err;
  }
  EXPECT_EQ(state(), before);
}

TEST_F(TcCli, WatchPrintsDeviceAndQdiscCounters) {
  ok("tc qdisc replace dev v0 root handle 1: pfifo limit 50");
  auto r = cli("tc watch dev v0 interval 0.1 count 2");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("dev v0: tx "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("qdisc pfifo 1: root sent "), std::string::npos) << r.out;
  auto j = cli("-j tc watch dev v0 interval 0.1 count 1");
  ASSERT_EQ(j.status, 0) << j.err;
  auto parsed = nlohmann::json::parse(j.out);
  EXPECT_EQ(parsed["dev"], "v0");
  EXPECT_TRUE(parsed["device"].contains("tx_dropped"));
  ASSERT_EQ(parsed["qdiscs"].size(), 1u);
  EXPECT_EQ(parsed["qdiscs"][0]["qdisc"], "pfifo 1:");
  EXPECT_EQ(parsed["qdiscs"][0]["parent"], "root");
}

// ---- tc watch: where packets are dropped, live ---------------------------------------------------
// Drops made at a known place while `fastlink -j tc watch` runs: its per-interval rates must add
// up to the drops tc and /sys count at the end, on the line of the place that dropped them, and
// its totals must be tc's and /sys's. Each test fails when the drops are 0 or land elsewhere.

class TcWatch : public TcCli {
 protected:
  uint64_t sysStat(const std::string& dev, const std::string& counter) const {
    return std::stoull(ns.sysfs(dev, "statistics/" + counter));
  }
  /// Runs `fastlink -j tc watch dev DEV interval 0.25 count ROUNDS` and, once its first line is
  /// out (the baseline was read before it), calls `traffic`; returns the lines as JSON.
  std::vector<nlohmann::json> watchAround(const std::string& dev, int rounds, const std::function<void()>& traffic) {
    std::string file = "/tmp/fastlink-tc-watch-" + std::to_string(getpid()) + "-" + ns.name();
    CommandResult watch;
    std::thread watcher([&] { watch = cli("-j tc watch dev " + dev + " interval 0.25 count " + std::to_string(rounds) + " >" + file); });
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    auto lines = [&] {
      std::ifstream in(file);
      std::vector<nlohmann::json> out;
      for (std::string line; std::getline(in, line);)
        if (!line.empty()) out.push_back(nlohmann::json::parse(line));
      return out;
    };
    while (lines().empty() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    bool started = !lines().empty();
    if (started) traffic();
    watcher.join();
    auto out = lines();
    std::remove(file.c_str());
    EXPECT_TRUE(started) << "tc watch printed nothing in 20 s";
    EXPECT_EQ(watch.status, 0) << watch.err;
    EXPECT_EQ(out.size(), static_cast<std::size_t>(rounds));
    return out;
  }
  /// The qdisc entry named `name` ("pfifo 10:") of one watch line (an empty object if absent).
  static nlohmann::json watchQdisc(const nlohmann::json& line, const std::string& name) {
    for (const auto& q : line["qdiscs"])
      if (q["qdisc"] == name) return q;
    return nlohmann::json::object();
  }
  /// Sum over the lines of rate x interval: the count the live figures account for.
  static double summed(const std::vector<nlohmann::json>& lines, const std::function<double(const nlohmann::json&)>& rate) {
    double sum = 0;
    for (const auto& l : lines) sum += rate(l) * l["interval"].get<double>();
    return sum;
  }
  /// `tc -s -j qdisc show dev DEV` keyed "KIND HANDLE".
  std::map<std::string, nlohmann::json> tcStats(const std::string& dev) const {
    std::map<std::string, nlohmann::json> out;
    for (const auto& q : nlohmann::json::parse(tc("-s -j qdisc show dev " + dev).out)) out[q["kind"].get<std::string>() + " " + q["handle"].get<std::string>()] = q;
    return out;
  }
};

TEST_F(TcWatch, QdiscDropsShowOnThePfifoLineNotTheDevice) {
  // v0 -> v1 (a peer namespace) through htb at 8kbit into a 5-packet pfifo: a burst of 200
  // datagrams overflows the pfifo (tests/integration/tc_test.cpp proves the counts balance).
  TestNetns peer;
  wireToPeer(ns, "v0", peer, "v1");
  ok("tc qdisc replace dev v0 root handle 1: htb default 1");
  ok("tc class add dev v0 parent 1: classid 1:1 htb rate 8kbit");
  ok("tc qdisc add dev v0 parent 1:1 handle 10: pfifo limit 5");
  constexpr uint64_t kBurst = 200;
  auto lines = watchAround("v0", 6, [&] { ASSERT_EQ(sendUdpBurst(ns.name(), "10.9.0.2", kBurst), kBurst); });
  ASSERT_FALSE(lines.empty());
  auto oracle = tcStats("v0");
  const uint64_t drops = oracle.at("pfifo 10:")["drops"];
  ASSERT_GE(drops, kBurst / 2) << "the pfifo dropped too little for the test to mean anything: " << oracle.at("pfifo 10:").dump();
  ASSERT_EQ(oracle.at("pfifo 10:")["qlen"], 0) << "still draining at the end of the watch";

  const auto& last = lines.back();
  // Totals: tc's at the qdiscs, /sys's at the device (which dropped nothing).
  EXPECT_EQ(watchQdisc(last, "pfifo 10:")["drops"], drops) << last.dump();
  EXPECT_EQ(watchQdisc(last, "htb 1:")["drops"], oracle.at("htb 1:")["drops"]) << last.dump();
  EXPECT_EQ(watchQdisc(last, "pfifo 10:")["sent"], oracle.at("pfifo 10:")["packets"]) << last.dump();
  EXPECT_EQ(last["device"]["tx_dropped"], sysStat("v0", "tx_dropped"));
  EXPECT_EQ(last["device"]["tx_dropped"], 0);
  EXPECT_EQ(last["device"]["tx_packets"], sysStat("v0", "tx_packets"));
  // Live: the per-interval rates on the pfifo's line add up to its drops; the device's to 0.
  EXPECT_NEAR(summed(lines, [](const nlohmann::json& l) { return watchQdisc(l, "pfifo 10:").value("drops_ps", -1e9); }), double(drops), 0.5);
  EXPECT_EQ(summed(lines, [](const nlohmann::json& l) { return l["device"]["tx_dropped_ps"].get<double>(); }), 0.0);

  // The text view: the drops on the pfifo's line, none on the device's.
  auto text = cli("tc watch dev v0 interval 0.1 count 1");
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("qdisc pfifo 10: parent 1:1 sent 0 pkt/s (total " + oracle.at("pfifo 10:")["packets"].dump() + ") dropped 0/s (total " +
                          std::to_string(drops) + ")"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find(" tx_dropped 0/s (total 0) "), std::string::npos) << text.out;
}

TEST_F(TcWatch, RingDropsOfAnUnreadTapShowOnTheDeviceLineNotTheQdisc) {
  // A TAP whose reader reads nothing: tun's ring holds txqueuelen (16) frames and the driver
  // drops the rest of a 100-datagram burst after pfifo_fast passed them on.
  ASSERT_EQ(ns.exec("ip tuntap add dev tap0 mode tap && ip link set tap0 txqueuelen 16").status, 0);
  Netlink nl(NetlinkOptions{.netns = Netns::named(ns.name())});
  TunTapQueue reader = nl.tuntap().openQueue("tap0");  // held, never read: the ring is sized now
  ns.ip("link set tap0 up");
  ns.ip("addr add 10.8.0.1/24 dev tap0");
  ns.ip("neigh replace 10.8.0.2 lladdr 02:00:00:00:00:02 dev tap0 nud permanent");
  ASSERT_EQ(tc("qdisc replace dev tap0 root pfifo_fast").status, 0);
  constexpr uint64_t kBurst = 100, kRing = 16;
  const uint64_t droppedBefore = sysStat("tap0", "tx_dropped");
  auto lines = watchAround("tap0", 4, [&] { ASSERT_EQ(sendUdpBurst(ns.name(), "10.8.0.2", kBurst), kBurst); });
  ASSERT_FALSE(lines.empty());
  const uint64_t ringDrops = sysStat("tap0", "tx_dropped") - droppedBefore;
  ASSERT_EQ(ringDrops, kBurst - kRing) << "the ring dropped another number than the test arranged";
  auto oracle = tcStats("tap0");
  ASSERT_EQ(oracle.size(), 1u);
  const auto& [name, root] = *oracle.begin();  // "pfifo_fast 8001:": the kernel picked the handle
  ASSERT_EQ(root["kind"], "pfifo_fast");
  ASSERT_EQ(root["drops"], 0);
  ASSERT_EQ(root["packets"], kBurst);

  const auto& last = lines.back();
  EXPECT_EQ(last["device"]["tx_dropped"], sysStat("tap0", "tx_dropped")) << last.dump();
  // The drops are named by where they happen: ip -d says the device is tun's, whose ring drops.
  ASSERT_EQ(ns.ipJson("-d link show dev tap0").at(0)["linkinfo"]["info_kind"], "tun");
  EXPECT_EQ(last["device"]["tx_dropped_at"], "tun ring") << last.dump();
  EXPECT_NEAR(summed(lines, [](const nlohmann::json& l) { return l["device"]["tx_dropped_ps"].get<double>(); }), double(ringDrops), 0.5);
  EXPECT_EQ(watchQdisc(last, name)["drops"], 0) << last.dump();
  EXPECT_EQ(watchQdisc(last, name)["sent"], root["packets"]) << last.dump();
  EXPECT_EQ(summed(lines, [&](const nlohmann::json& l) { return watchQdisc(l, name).value("drops_ps", -1e9); }), 0.0);
}

TEST_F(TcWatch, EveryQdiscOfAnMqHasItsOwnLine) {
  // mq on v0's 3 transmit queues: the kernel gives each default child (pfifo_fast) the handle 0:,
  // so only the parent tells them apart. One flow's datagrams go through one of them.
  TestNetns peer;
  wireToPeer(ns, "v0", peer, "v1");
  ok("tc qdisc replace dev v0 root handle 1: mq");
  constexpr uint64_t kBurst = 50;
  ASSERT_EQ(sendUdpBurst(ns.name(), "10.9.0.2", kBurst), kBurst);
  auto r = cli("-j tc watch dev v0 interval 0.1 count 1");
  ASSERT_EQ(r.status, 0) << r.err;
  auto line = nlohmann::json::parse(r.out);
  auto oracle = nlohmann::json::parse(tc("-s -j qdisc show dev v0").out);
  ASSERT_EQ(oracle.size(), 4u) << oracle.dump();
  ASSERT_EQ(line["qdiscs"].size(), oracle.size()) << line.dump();
  uint64_t busiest = 0;
  std::vector<std::string> childLines;  // "qdisc KIND 0: parent 1:N sent ": the default qdisc's kind
  for (const auto& o : oracle) {
    std::string name = o["kind"].get<std::string>() + " " + o["handle"].get<std::string>();
    std::string parent = o.contains("parent") ? o["parent"].get<std::string>() : "root";
    nlohmann::json mine;
    for (const auto& q : line["qdiscs"])
      if (q["qdisc"] == name && q["parent"] == parent) mine = q;
    ASSERT_FALSE(mine.is_null()) << name << " parent " << parent << " missing from " << line.dump();
    EXPECT_EQ(mine["sent"], o["packets"]) << name << " parent " << parent;
    EXPECT_EQ(mine["drops"], o["drops"]) << name << " parent " << parent;
    if (parent == "root") continue;
    busiest = std::max(busiest, o["packets"].get<uint64_t>());
    childLines.push_back("qdisc " + name + " parent " + parent + " sent ");
  }
  EXPECT_GE(busiest, kBurst) << "no child of mq carried the burst";
  auto text = cli("tc watch dev v0 interval 0.1 count 1");
  // The children's kind is the kernel's default qdisc (pfifo_fast on the host, fq_codel in the VM).
  ASSERT_EQ(childLines.size(), 3u);
  for (const auto& child : childLines) EXPECT_NE(text.out.find(child), std::string::npos) << child << " in\n" << text.out;
}

TEST_F(TcWatch, FqHorizonStatisticsPrintLikeTc) {
  // fq's horizon at work on datagrams that ask to leave 100 s from now (SO_TXTIME): beyond a 1 s
  // horizon, horizon_drop drops them (horizon_drops) and horizon_cap sends them at the horizon
  // (horizon_caps; meanwhile the flow is throttled and next_packet_delay counts down; once fq's
  // timer let them go, the unthrottle latency is known).
  using namespace std::chrono_literals;
  TestNetns peer;
  wireToPeer(ns, "v0", peer, "v1");
  if (tc("qdisc replace dev v0 root fq horizon 1s horizon_drop").status != 0) {
    if (std::getenv("FASTLINK_REQUIRE_KINDS")) FAIL() << "the VM kernel lacks qdisc fq";
    GTEST_SKIP() << "kernel lacks qdisc 'fq': runs in the VM (tests/vm)";
  }
  ASSERT_EQ(sendUdpBurst(ns.name(), "10.9.0.2", 3, 18, 100s), 3u);
  ok("tc qdisc change dev v0 root fq horizon 1s horizon_cap");
  ASSERT_EQ(sendUdpBurst(ns.name(), "10.9.0.2", 2, 18, 100s), 2u);

  // Waiting: the delay moves between the two reads, so it is compared as present in both.
  auto withoutDelay = [](std::string text) {
    auto at = text.find(" next_packet_delay ");
    if (at == std::string::npos) return text;
    auto end = text.find('\n', at);
    return text.erase(at, end - at);
  };
  auto mine = cli("-s tc qdisc show dev v0");
  auto theirs = tc("-s qdisc show dev v0");
  ASSERT_EQ(mine.status, 0) << mine.err;
  ASSERT_NE(theirs.out.find(" next_packet_delay "), std::string::npos) << "the capped datagrams left too soon:\n" << theirs.out;
  EXPECT_NE(mine.out.find(" next_packet_delay "), std::string::npos) << mine.out;
  EXPECT_EQ(withoutDelay(mine.out), withoutDelay(theirs.out));
  auto json = nlohmann::json::parse(cli("-s -j tc qdisc show dev v0").out);
  ASSERT_EQ(json.size(), 1u) << json.dump();
  EXPECT_GT(json[0]["next_packet_delay"].get<int64_t>(), 0) << json.dump();
  EXPECT_LE(json[0]["next_packet_delay"].get<int64_t>(), 1000000000) << json.dump();

  std::this_thread::sleep_for(1500ms);
  auto oracle = nlohmann::json::parse(tc("-s -j qdisc show dev v0").out).at(0);
  ASSERT_EQ(oracle["horizon_drops"], 3) << oracle.dump();
  ASSERT_EQ(oracle["horizon_caps"], 2) << oracle.dump();
  ASSERT_EQ(oracle["qlen"], 0) << "the capped datagrams are still queued: " << oracle.dump();
  samePrint("-s", "qdisc show dev v0");
  // tc's JSON has "throttled" twice (docs/cli/tc.md): compared as a JSON parser reads both.
  auto mineJson = cli("-s -j tc qdisc show dev v0");
  ASSERT_EQ(mineJson.status, 0) << mineJson.err;
  EXPECT_EQ(nlohmann::json::parse(mineJson.out), nlohmann::json::parse(tc("-s -j qdisc show dev v0").out));
}

}  // namespace
}  // namespace fastlink::test
