// Where packets die when a TAP device's reader is slower than its sender (issue 11, item 4).
//
// In the current network namespace (run it in a throwaway one: bench/tap_drop/run does), it
// creates a TAP device with fastlink, gives it an address and a permanent neighbour, optionally
// replaces its root qdisc, then for SECONDS floods UDP at the neighbour from one thread while
// another holds the TAP fd and reads at most READ_RATE packets per second. Every figure comes
// from counters read before and after: the sender's own count, the device's (rtnetlink
// stats64, cross-checked with /sys/class/net/tap0/statistics), the qdisc's (`tc -s -j qdisc`,
// an independent reader) and UDP's SndbufErrors (/proc/net/snmp: a qdisc drop UDP was told of).
//
// Usage: tap_drop "COLUMN..." [SECONDS] [READ_RATE] [PAYLOAD]   (or TAP_DROP_QDISCS, _SECONDS,
//        _READ_RATE, _PAYLOAD, _REPS, _SENDERS in the environment)
//   COLUMN     [TUN/]QDISC. QDISC: default (leave the kernel's), noqueue, fq_codel, pfifo_fast, ...
//              (tc qdisc replace). TUN (issue 25): `stock` loads the kernel's own tun module,
//              `patched` our tests/vm/tun-backpressure build (from FASTLINK_TUN_BACKPRESSURE_DIR,
//              in the VM) and creates the tap with backpressure; without TUN, whatever tun is
//              loaded, no backpressure. `veth` (issue 25, item 4): the flood goes over a veth
//              pair instead of a TAP (measureVeth), QDISC on the sender. Several, space-separated,
//              run one after the other (a new device each).
//   TAP_DROP_SENDERS  sender threads (default 1), each with its own socket.
//   TAP_DROP_SOURCE   udp (default: UDP sockets) or pktgen (the kernel's packet generator in
//                     `xmit_mode queue_xmit`, which goes through the qdisc; one kpktgend thread;
//                     its sent count is pkts-sofar + errors, the packets it handed to the stack).
// Prints one human table row and one JSON line ("TAPDROP {...}"). Exit 1 when the counters do
// not add up (every packet the app sent must be read, dropped somewhere or still queued).
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fastlink/fastlink.hpp>
#include <nlohmann/json.hpp>

#include "bench_common.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using fastlink::LinkInfo;

constexpr const char* kDev = "tap0";

using bench::capture;

void sh(const std::string& command) {
  if (std::system(command.c_str()) != 0) {
    std::fprintf(stderr, "tap_drop: failed: %s\n", command.c_str());
    std::exit(2);  // the device goes with the throwaway namespace the bench runs in
  }
}

struct QdiscCounters {
  std::string kind = "none";
  uint64_t packets = 0, drops = 0, overlimits = 0, requeues = 0, backlog = 0, qlen = 0;
};

// The root qdisc of `dev` from `tc -s -j qdisc show dev DEV` (sums the children of mq, if any).
QdiscCounters readQdisc(const std::string& dev) {
  QdiscCounters q;
  auto text = capture("tc -s -j qdisc show dev " + dev);
  auto j = nlohmann::json::parse(text.empty() ? "[]" : text, nullptr, false);
  if (!j.is_array()) return q;
  for (const auto& e : j) {
    if (e.value("root", false) || !e.contains("parent")) q.kind = e.value("kind", "?");
    q.packets += e.value("packets", 0ull);
    q.drops += e.value("drops", 0ull);
    q.overlimits += e.value("overlimits", 0ull);
    q.requeues += e.value("requeues", 0ull);
    q.backlog += e.value("backlog", 0ull);
    q.qlen += e.value("qlen", 0ull);
  }
  return q;
}

/// IFF_BACKPRESSURE, in TUNGETFEATURES only on a tun that has it.
bool tunHasBackpressure() {
  int fd = ::open("/dev/net/tun", O_RDWR | O_CLOEXEC);
  unsigned int features = 0;
  if (fd >= 0) {
    if (ioctl(fd, TUNGETFEATURES, &features) != 0) features = 0;
    ::close(fd);
  }
  return features & 0x0080;
}

/// Makes `which` ("stock" or "patched") the loaded tun module (vhost_net, which uses tun's
/// exports, goes with it).
void loadTun(const std::string& which) {
  const bool patched = which == "patched";
  if (!patched && which != "stock") {
    std::fprintf(stderr, "tap_drop: unknown tun \"%s\" (stock or patched)\n", which.c_str());
    std::exit(2);
  }
  if (tunHasBackpressure() == patched) return;
  const char* dir = std::getenv("FASTLINK_TUN_BACKPRESSURE_DIR");
  if (patched && (!dir || !*dir)) {
    std::fprintf(stderr, "tap_drop: no patched tun (FASTLINK_TUN_BACKPRESSURE_DIR; tests/vm/run sets it)\n");
    std::exit(2);
  }
  std::string swap = "rmmod vhost_net 2>/dev/null; rmmod tun && ";
  swap += patched ? std::string("insmod ") + dir + "/tun.ko && modprobe vhost && insmod " + dir + "/vhost_net.ko"
                  : std::string("modprobe tun && modprobe vhost_net");
  sh(swap);
  if (tunHasBackpressure() != patched) {
    std::fprintf(stderr, "tap_drop: loading the %s tun did not take\n", which.c_str());
    std::exit(2);
  }
}

void writeProc(const std::string& path, const std::string& line) {
  std::ofstream f(path);
  f << line << "\n";
  f.flush();
  if (!f) {
    std::fprintf(stderr, "tap_drop: writing \"%s\" to %s failed\n", line.c_str(), path.c_str());
    std::exit(2);
  }
}

struct PktgenCount {
  uint64_t sofar = 0, errors = 0;
};

/// Floods tap0 with pktgen for `seconds` (queue_xmit: through the qdisc, as a socket's packets
/// go) and returns what it counted. Needs the pktgen module (tests/vm/modules.list).
PktgenCount runPktgen(const std::string& device, double seconds, std::size_t payload) {
  const std::string dir = "/proc/net/pktgen/";
  if (std::system("modprobe pktgen 2>/dev/null") != 0 && !std::ifstream(dir + "pgctrl")) {
    std::fprintf(stderr, "tap_drop: no pktgen module\n");
    std::exit(2);
  }
  writeProc(dir + "kpktgend_0", "rem_device_all");
  writeProc(dir + "kpktgend_0", "add_device " + device);
  const std::string dev = dir + device;
  for (const std::string& line : {std::string("count 0"), std::string("delay 0"), std::string("clone_skb 0"),
                                  "pkt_size " + std::to_string(payload + 42), std::string("dst 10.9.0.2"),
                                  std::string("dst_mac 02:00:00:00:00:02"), std::string("xmit_mode queue_xmit")})
    writeProc(dev, line);
  // "start" blocks until the run stops; "stop" from here ends it after `seconds`.
  std::thread run([&] { writeProc(dir + "pgctrl", "start"); });
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  writeProc(dir + "pgctrl", "stop");
  run.join();
  PktgenCount c;
  std::ifstream f(dev);
  for (std::string word; f >> word;) {
    if (word == "pkts-sofar:") f >> c.sofar;
    else if (word == "errors:") f >> c.errors;
  }
  writeProc(dir + "kpktgend_0", "rem_device_all");
  return c;
}

struct Flood {
  uint64_t sent = 0, errors = 0;  ///< packets the senders handed to the stack, and refusals
};

/// Floods 10.9.0.2 (a permanent neighbour on `device`) until `start + seconds`: from `senders`
/// threads with a connected UDP socket each, or from pktgen (queue_xmit, through the qdisc).
Flood floodDevice(const std::string& device, Clock::time_point start, double seconds, std::size_t payload,
                  unsigned senders, bool pktgen, int sndbuf = 0) {
  if (pktgen) {
    PktgenCount c = runPktgen(device, seconds, payload);
    return {c.sofar + c.errors, c.errors};
  }
  std::atomic<uint64_t> sentCount{0}, sendErrorCount{0};
  auto send = [&] {
    uint64_t mySent = 0, myErrors = 0;
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(9);
    inet_pton(AF_INET, "10.9.0.2", &to.sin_addr);
    if (connect(s, reinterpret_cast<sockaddr*>(&to), sizeof to) < 0) std::exit(2);
    if (sndbuf && setsockopt(s, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof sndbuf) != 0) std::exit(2);
    std::vector<char> data(payload, 'x');
    auto deadline = start + std::chrono::duration<double>(seconds);
    while (Clock::now() < deadline) {
      for (int i = 0; i < 64; ++i) {
        if (::send(s, data.data(), data.size(), 0) == static_cast<ssize_t>(data.size())) ++mySent;
        else ++myErrors;
      }
    }
    close(s);
    sentCount += mySent;
    sendErrorCount += myErrors;
  };
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < senders; ++i) threads.emplace_back(send);
  for (auto& t : threads) t.join();
  return {sentCount.load(), sendErrorCount.load()};
}

uint64_t udpSndbufErrors() {
  std::ifstream f("/proc/net/snmp");
  std::string header, values;
  while (std::getline(f, header) && std::getline(f, values)) {
    if (header.rfind("Udp:", 0) != 0) continue;
    std::istringstream h(header), v(values);
    std::string name, value;
    while (h >> name && v >> value)
      if (name == "SndbufErrors") return std::stoull(value);
  }
  return 0;
}

uint64_t sysStat(const std::string& dev, const std::string& counter) {
  std::ifstream f("/sys/class/net/" + dev + "/statistics/" + counter);
  uint64_t v = 0;
  f >> v;
  return v;
}

struct Snapshot {
  fastlink::LinkStats dev;
  uint64_t sysTxPackets = 0, sysTxDropped = 0;
  QdiscCounters qdisc;
  uint64_t sndbufErrors = 0;
};

Snapshot snapshot(fastlink::Netlink& nl, const std::string& dev = kDev) {
  Snapshot s;
  s.dev = *nl.links().get(dev, true).stats;
  s.sysTxPackets = sysStat(dev, "tx_packets");
  s.sysTxDropped = sysStat(dev, "tx_dropped");
  s.qdisc = readQdisc(dev);
  s.sndbufErrors = udpSndbufErrors();
  return s;
}

}  // namespace

namespace {

/// One measurement; true when the counters balance.
bool measure(const std::string& column, double seconds, uint64_t readRate, std::size_t payload, unsigned senders,
             bool pktgen) {
  const std::size_t slash = column.find('/');
  const std::string tun = slash == std::string::npos ? "" : column.substr(0, slash);
  const std::string qdisc = slash == std::string::npos ? column : column.substr(slash + 1);
  if (!tun.empty()) loadTun(tun);
  fastlink::Netlink nl;
  fastlink::TunTapApi& tuntap = nl.tuntap();
  tuntap.add(fastlink::TunTapInfo(kDev, fastlink::TunTapMode::Tap).setBackpressure(tun == "patched"));
  fastlink::TunTapQueue queue = tuntap.openQueue(kDev);  // the reader's fd, held from the start
  // No IPv6 on the device: its router solicitations and MLD reports would be packets the sender
  // did not send.
  std::ofstream(std::string("/proc/sys/net/ipv6/conf/") + kDev + "/disable_ipv6") << "1\n";
  nl.links().set(kDev, LinkInfo().setAdmin(true));
  sh(std::string("ip addr add 10.9.0.1/24 dev ") + kDev);
  sh(std::string("ip neigh replace 10.9.0.2 lladdr 02:00:00:00:00:02 nud permanent dev ") + kDev);
  if (qdisc != "default") sh(std::string("tc qdisc replace dev ") + kDev + " root " + qdisc);
  const uint32_t txqlen = *nl.links().get(kDev).txqlen;

  // Drain what the device queued while it came up (IPv6 router solicitations, ...).
  std::vector<char> buf(65536);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  while (read(queue.fd(), buf.data(), buf.size()) > 0) {
  }

  Snapshot before = snapshot(nl);
  std::atomic<bool> sending{true}, reading{true};
  std::atomic<uint64_t> readCount{0};

  std::thread reader([&] {
    // A token bucket refilled every millisecond: at most readRate packets per second.
    const double perMs = readRate / 1000.0;
    double tokens = 0;
    auto next = Clock::now();
    while (reading.load(std::memory_order_relaxed)) {
      next += std::chrono::milliseconds(1);
      std::this_thread::sleep_until(next);
      tokens = std::min(tokens + perMs, perMs * 10);
      while (tokens >= 1 && read(queue.fd(), buf.data(), buf.size()) > 0) {
        tokens -= 1;
        readCount.fetch_add(1, std::memory_order_relaxed);
      }
    }
  });

  auto start = Clock::now();
  const Flood flood = floodDevice(kDev, start, seconds, payload, senders, pktgen);
  const uint64_t sent = flood.sent, sendErrors = flood.errors;
  double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  Snapshot atStop = snapshot(nl);  // the qdisc's backlog and the ring's fill at the end of the flood
  // Let the reader empty what the qdisc and the ring still hold (nothing new arrives), then stop.
  uint64_t lastRead = ~0ull;
  while (readCount.load() != lastRead) {
    lastRead = readCount.load();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  reading = false;
  reader.join();
  Snapshot after = snapshot(nl);
  // A stuck queue (stopped while its ring is empty: the race upstream's series needed many
  // versions to close) shows as a backlog the drained reader never receives.
  const bool stuck = after.qdisc.qlen != 0;

  const uint64_t devTx = after.dev.txPackets - before.dev.txPackets;
  const uint64_t ringDrops = after.dev.txDropped - before.dev.txDropped;
  const uint64_t qdiscDrops = after.qdisc.drops - before.qdisc.drops;
  const uint64_t sndbuf = after.sndbufErrors - before.sndbufErrors;
  const uint64_t got = readCount.load();
  const uint64_t lost = ringDrops + qdiscDrops;
  // tun counts a packet as transmitted when it enters the ring (tx_packets), and one it cannot
  // put there as tx_dropped; the qdisc counts what it dropped, and UDP what a qdisc refused.
  bool sysAgrees = after.sysTxPackets - before.sysTxPackets == devTx && after.sysTxDropped - before.sysTxDropped == ringDrops;
  // Every sent packet went somewhere: read, dropped at the ring or at the qdisc. (A qdisc drop
  // is also counted by UDP as SndbufErrors when the qdisc said so at enqueue time.)
  bool balanced = got == devTx && sent == devTx + ringDrops + qdiscDrops;

  auto rate = [&](uint64_t n) { return n / elapsed; };
  std::printf("%-19s x%u %-11s txqlen %-5u sent %9.0f/s  read %8.0f/s  lost %9.0f/s (ring %9.0f/s, qdisc %9.0f/s)  "
              "at stop: qdisc backlog %llu pkts  udp SndbufErrors %llu  %s\n",
              column.c_str(), senders, after.qdisc.kind.c_str(), txqlen, rate(sent), rate(got), rate(lost), rate(ringDrops),
              rate(qdiscDrops), static_cast<unsigned long long>(atStop.qdisc.qlen), static_cast<unsigned long long>(sndbuf),
              !balanced || !sysAgrees ? "(COUNTERS DO NOT BALANCE)" : stuck ? "(QUEUE STUCK)" : "(counters balance)");
  nlohmann::ordered_json j = {{"qdisc", qdisc},
                              {"tun", tun.empty() ? "loaded" : tun},
                              {"backpressure", tun == "patched"},
                              {"senders", senders},
                              {"source", pktgen ? "pktgen" : "udp"},
                              {"root_kind", after.qdisc.kind},
                              {"txqlen", txqlen},
                              {"seconds", elapsed},
                              {"read_rate_limit", readRate},
                              {"sent", sent},
                              {"send_errors", sendErrors},
                              {"read", got},
                              {"dev_tx_packets", devTx},
                              {"dev_tx_dropped_ring", ringDrops},
                              {"qdisc_sent_packets", after.qdisc.packets - before.qdisc.packets},
                              {"qdisc_drops", qdiscDrops},
                              {"qdisc_overlimits", after.qdisc.overlimits - before.qdisc.overlimits},
                              {"qdisc_requeues", after.qdisc.requeues - before.qdisc.requeues},
                              {"qdisc_backlog_at_stop", atStop.qdisc.backlog},
                              {"qdisc_qlen_at_stop", atStop.qdisc.qlen},
                              {"udp_sndbuf_errors", sndbuf},
                              {"sysfs_agrees", sysAgrees},
                              {"stuck_queue", stuck},
                              {"balanced", balanced}};
  std::printf("TAPDROP %s\n", j.dump().c_str());
  std::fflush(stdout);
  tuntap.del(kDev);
  return balanced && sysAgrees && !stuck;
}

constexpr const char* kVethSender = "vsnd";
constexpr const char* kVethPeer = "vrcv";

/// Makes the peer's NAPI the slow reader: threaded (its own kernel thread, napi/vrcv-N, which
/// exists once GRO gave the peer a NAPI and the device is up) at nice 19, so the senders, at nice
/// 0 on every CPU, outrun it as the TAP bench's senders outrun its capped reader. In softirq
/// context on the senders' own CPUs it keeps up and the ring never fills.
void slowPeerNapi() {
  writeProc(std::string("/sys/class/net/") + kVethPeer + "/threaded", "1");
  const std::string prefix = std::string("napi/") + kVethPeer + "-";
  int found = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    std::string comm;
    std::getline(std::ifstream(entry.path() / "comm"), comm);
    if (comm.rfind(prefix, 0) != 0) continue;
    const int pid = std::atoi(entry.path().filename().c_str());
    if (setpriority(PRIO_PROCESS, static_cast<id_t>(pid), 19) != 0) {
      std::fprintf(stderr, "tap_drop: renice %s (%d) failed\n", comm.c_str(), pid);
      std::exit(2);
    }
    ++found;
  }
  if (!found) {
    std::fprintf(stderr, "tap_drop: no %s* thread after threaded=1\n", prefix.c_str());
    std::exit(2);
  }
}

/// The same flood over a veth pair (issue 25, item 4): `vsnd` sends, its peer `vrcv` (same
/// namespace, no address: the frames go to a MAC nobody owns and die cheaply in ip_rcv) has GRO
/// on, so veth_xmit puts every frame in the peer's 256-entry ptr_ring and its NAPI empties it;
/// the sender has TSO off, else veth takes the ring only for UDP when the peer has GRO forwarding
/// (veth_skb_is_eligible_for_gro). A frame that finds the ring full is counted in the sender's
/// tx_dropped (veth_xmit's `drop:` path, priv->dropped) - unless the kernel has veth's qdisc
/// backpressure (mainline 6.16, Debian 6.12.63+), which stops the sender's queue instead when it
/// has a qdisc, so the qdisc holds the backlog. No reader to pace: the peer's NAPI is the reader.
bool measureVeth(const std::string& qdisc, double seconds, std::size_t payload, unsigned senders, bool pktgen) {
  fastlink::Netlink nl;
  nl.links().add(LinkInfo(kVethSender, "veth").setVeth(fastlink::VethInfo().setPeerName(kVethPeer)));
  for (const char* dev : {kVethSender, kVethPeer})
    std::ofstream(std::string("/proc/sys/net/ipv6/conf/") + dev + "/disable_ipv6") << "1\n";
  nl.ethtool().setFeatures(kVethPeer, fastlink::FeatureChanges().set("rx-gro", true));
  nl.ethtool().setFeatures(kVethSender, fastlink::FeatureChanges()
                                            .set("tx-tcp-segmentation", false)
                                            .set("tx-tcp-ecn-segmentation", false)
                                            .set("tx-tcp-mangleid-segmentation", false)
                                            .set("tx-tcp6-segmentation", false));
  nl.links().set(kVethPeer, LinkInfo().setAdmin(true));
  nl.links().set(kVethSender, LinkInfo().setAdmin(true));
  slowPeerNapi();
  sh(std::string("ip addr add 10.9.0.1/24 dev ") + kVethSender);
  sh(std::string("ip neigh replace 10.9.0.2 lladdr 02:00:00:00:00:02 nud permanent dev ") + kVethSender);
  if (qdisc != "default") sh(std::string("tc qdisc replace dev ") + kVethSender + " root " + qdisc);
  const uint32_t txqlen = *nl.links().get(kVethSender).txqlen;
  std::this_thread::sleep_for(std::chrono::milliseconds(200));

  Snapshot before = snapshot(nl, kVethSender);
  const uint64_t peerRxBefore = sysStat(kVethPeer, "rx_packets");
  auto start = Clock::now();
  // veth does not orphan a frame it puts in the ring (tun does): with the default send buffer the
  // ring alone holds most of a socket's budget, the senders sleep in send() and a qdisc never
  // fills. A large buffer keeps the offered load the same whatever the qdisc holds.
  const Flood flood = floodDevice(kVethSender, start, seconds, payload, senders, pktgen, 64 << 20);
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  Snapshot atStop = snapshot(nl, kVethSender);
  // The NAPI empties the ring and the qdisc's backlog within milliseconds once the flood stops.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  Snapshot after = snapshot(nl, kVethSender);
  const uint64_t got = sysStat(kVethPeer, "rx_packets") - peerRxBefore;
  const bool stuck = after.qdisc.qlen != 0;

  const uint64_t devTx = after.dev.txPackets - before.dev.txPackets;
  const uint64_t ringDrops = after.dev.txDropped - before.dev.txDropped;
  const uint64_t qdiscDrops = after.qdisc.drops - before.qdisc.drops;
  const uint64_t sent = flood.sent;
  const bool sysAgrees =
      after.sysTxPackets - before.sysTxPackets == devTx && after.sysTxDropped - before.sysTxDropped == ringDrops;
  const bool balanced = got == devTx && sent == devTx + ringDrops + qdiscDrops;
  auto rate = [&](uint64_t n) { return n / elapsed; };
  const std::string column = "veth/" + qdisc;
  std::printf("%-19s x%u %-11s txqlen %-5u sent %9.0f/s  read %8.0f/s  lost %9.0f/s (ring %9.0f/s, qdisc %9.0f/s)  "
              "at stop: qdisc backlog %llu pkts  requeues %llu  %s\n",
              column.c_str(), senders, after.qdisc.kind.c_str(), txqlen, rate(sent), rate(got),
              rate(ringDrops + qdiscDrops), rate(ringDrops), rate(qdiscDrops),
              static_cast<unsigned long long>(atStop.qdisc.qlen),
              static_cast<unsigned long long>(after.qdisc.requeues - before.qdisc.requeues),
              !balanced || !sysAgrees ? "(COUNTERS DO NOT BALANCE)" : stuck ? "(QUEUE STUCK)" : "(counters balance)");
  nlohmann::ordered_json j = {{"device", "veth"},
                              {"qdisc", qdisc},
                              {"senders", senders},
                              {"source", pktgen ? "pktgen" : "udp"},
                              {"root_kind", after.qdisc.kind},
                              {"txqlen", txqlen},
                              {"seconds", elapsed},
                              {"sent", sent},
                              {"send_errors", flood.errors},
                              {"read", got},
                              {"dev_tx_packets", devTx},
                              {"dev_tx_dropped_ring", ringDrops},
                              {"qdisc_sent_packets", after.qdisc.packets - before.qdisc.packets},
                              {"qdisc_drops", qdiscDrops},
                              {"qdisc_requeues", after.qdisc.requeues - before.qdisc.requeues},
                              {"qdisc_backlog_at_stop", atStop.qdisc.backlog},
                              {"qdisc_qlen_at_stop", atStop.qdisc.qlen},
                              {"udp_sndbuf_errors", after.sndbufErrors - before.sndbufErrors},
                              {"sysfs_agrees", sysAgrees},
                              {"stuck_queue", stuck},
                              {"balanced", balanced}};
  std::printf("TAPDROP %s\n", j.dump().c_str());
  std::fflush(stdout);
  nl.links().del(kVethSender);
  return balanced && sysAgrees && !stuck;
}

const char* env(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

}  // namespace

int main(int argc, char** argv) {
  // Arguments, or (in the VM, where tests/vm/run passes only environment) TAP_DROP_* variables.
  std::string qdiscs = argc > 1 ? argv[1] : env("TAP_DROP_QDISCS", "default noqueue");
  const double seconds = std::atof(argc > 2 ? argv[2] : env("TAP_DROP_SECONDS", "3"));
  const uint64_t readRate = std::strtoull(argc > 3 ? argv[3] : env("TAP_DROP_READ_RATE", "20000"), nullptr, 10);
  const std::size_t payload = std::strtoul(argc > 4 ? argv[4] : env("TAP_DROP_PAYLOAD", "18"), nullptr, 10);  // 64-byte frames
  const int reps = std::atoi(env("TAP_DROP_REPS", "1"));
  const unsigned senders = static_cast<unsigned>(std::max(1, std::atoi(env("TAP_DROP_SENDERS", "1"))));
  const bool pktgen = std::string(env("TAP_DROP_SOURCE", "udp")) == "pktgen";
  bool ok = true;
  std::istringstream words(qdiscs);
  std::vector<std::string> list;
  for (std::string q; words >> q;) list.push_back(q);
  for (int r = 0; r < reps; ++r)
    for (const auto& q : list)
      ok = (q.rfind("veth/", 0) == 0 ? measureVeth(q.substr(5), seconds, payload, senders, pktgen)
                                     : measure(q, seconds, readRate, payload, senders, pktgen)) &&
           ok;
  return ok ? 0 : 1;
}
