// WireGuard data plane in the VM (issue 25, item 6): TCP through a kernel WireGuard tunnel between
// two network namespaces joined by a veth pair, per configuration of the veth underneath:
//
//   q1        one rx/tx queue per end (the veth is created with 1)
//   q2        two queues per end (`fastlink ethtool -L DEV rx 2 tx 2`), no RPS/XPS
//   q2+tune   `fastlink tune DEV cpus 0-1`: two queues, RPS and XPS spread over both CPUs
//   +threaded threaded NAPI on both veth ends and both WireGuard devices (/sys/.../threaded = 1)
//
// Both veth ends have GRO on and TSO off, so each end receives through its own NAPI rings (one
// per queue; veth_skb_is_eligible_for_gro) and the queue count and threaded NAPI mean something.
// Each configuration gets a fresh pair of namespaces. STREAMS TCP connections send from namespace
// A (10.77.0.1, wga) to B (10.77.0.2, wgb) for SECONDS; throughput is what the receivers read, CPU
// is /proc/stat over the same window (busy = all but idle and iowait, per CPU and summed).
// Independent checks: the WireGuard device's rx_bytes (`ip -s -j link`) must cover every byte
// the receivers read (the traffic went through the tunnel), and /sys must show the queues,
// RPS/XPS masks and threaded flags the configuration asked for.
//
// Only ratios between rows of one run mean anything: under qemu TCG every instruction is emulated
// (bench/wg_dataplane/run says which accelerator the VM used). The last table gives each row's
// throughput and CPU per Gbit/s as a ratio to the first configuration.
//
// Usage (tests/vm/run passes only environment): WG_DATAPLANE_CONFIGS="q1 q2 ...",
//   WG_DATAPLANE_SECONDS (5), WG_DATAPLANE_STREAMS (2), WG_DATAPLANE_REPS (3; rows interleaved,
//   medians reported), FASTLINK_CLI (/bin/fastlink). Needs root, the wireguard and veth modules,
//   `ip` and `wg`. Prints one row and one "WGDP {json}" line per run, then the ratio table.
//   Exit 1 when a check fails, 2 when the set-up fails.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_common.hpp"

namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kNsA = "wgdp-a";
constexpr const char* kNsB = "wgdp-b";
constexpr uint16_t kPort = 5201;

const char* env(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

using bench::capture;

void sh(const std::string& command) {
  if (std::system(command.c_str()) != 0) {
    std::fprintf(stderr, "wg_dataplane: set-up failed: %s\n", command.c_str());
    std::system((std::string("ip netns del ") + kNsA + " 2>/dev/null; ip netns del " + kNsB + " 2>/dev/null").c_str());
    std::exit(2);
  }
}

std::string in(const char* ns, const std::string& command) { return std::string("ip netns exec ") + ns + " " + command; }

/// A file of namespace `ns`'s /sys (ip netns exec mounts the namespace's own sysfs).
std::string sysRead(const char* ns, const std::string& path) {
  std::string s = capture(in(ns, "cat " + path + " 2>/dev/null"));
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

struct Config {
  std::string name;
  unsigned queues = 1;
  bool tune = false;
  bool threaded = false;
};

Config parseConfig(const std::string& name) {
  Config c;
  c.name = name;
  std::istringstream parts(name);
  for (std::string part; std::getline(parts, part, '+');) {
    if (part == "q1") c.queues = 1;
    else if (part == "q2") c.queues = 2;
    else if (part == "tune") c.tune = true;
    else if (part == "threaded") c.threaded = true;
    else {
      std::fprintf(stderr, "wg_dataplane: unknown configuration part \"%s\" in \"%s\" (q1, q2, tune, threaded)\n",
                   part.c_str(), name.c_str());
      std::exit(2);
    }
  }
  if (c.tune && c.queues != 2) {
    std::fprintf(stderr, "wg_dataplane: \"%s\": tune sets two queues; write q2+tune\n", name.c_str());
    std::exit(2);
  }
  return c;
}

/// Two namespaces, a veth between them with `c`'s queues, GRO on / TSO off on both ends, and a
/// WireGuard tunnel over it (10.77.0.0/24 inside, 192.168.77.0/24 outside).
void setUp(const Config& c, const std::string& cli) {
  sh(std::string("ip netns add ") + kNsA + " && ip netns add " + kNsB);
  const std::string q = std::to_string(c.queues);
  sh("ip link add va numtxqueues " + q + " numrxqueues " + q + " netns " + kNsA + " type veth peer name vb numtxqueues " +
     q + " numrxqueues " + q + " netns " + kNsB);
  const std::string keyA = capture("wg genkey"), keyB = capture("wg genkey");
  const std::string pubA = capture("echo '" + keyA.substr(0, keyA.find('\n')) + "' | wg pubkey");
  const std::string pubB = capture("echo '" + keyB.substr(0, keyB.find('\n')) + "' | wg pubkey");
  if (pubA.size() < 44 || pubB.size() < 44) {
    std::fprintf(stderr, "wg_dataplane: wg genkey/pubkey failed\n");
    std::exit(2);
  }
  struct Side {
    const char *ns, *veth, *wg, *outer, *inner, *peerOuter, *peerInner;
    std::string key, peerPub;
  };
  for (const Side& s : {Side{kNsA, "va", "wga", "192.168.77.1", "10.77.0.1", "192.168.77.2", "10.77.0.2", keyA, pubB},
                        Side{kNsB, "vb", "wgb", "192.168.77.2", "10.77.0.2", "192.168.77.1", "10.77.0.1", keyB, pubA}}) {
    const std::string ns = s.ns, veth = s.veth, wg = s.wg;
    sh("ip -n " + ns + " link set lo up && ip -n " + ns + " addr add " + s.outer + "/24 dev " + veth + " && ip -n " + ns +
       " link set " + veth + " up");
    sh(cli + " -n " + ns + " ethtool -K " + veth + " gro on tso off >/dev/null");
    if (c.queues == 2 && !c.tune) sh(cli + " -n " + ns + " ethtool -L " + veth + " rx 2 tx 2");
    if (c.tune) sh(cli + " -n " + ns + " tune " + veth + " cpus 0-1 >/dev/null");
    const std::string keyFile = "/tmp/wgdp-" + wg + ".key";
    std::ofstream(keyFile) << s.key;
    sh("ip -n " + ns + " link add " + wg + " type wireguard");
    sh(in(s.ns, "wg set " + wg + " private-key " + keyFile + " listen-port 51820 peer " +
                    s.peerPub.substr(0, s.peerPub.find('\n')) + " allowed-ips " + s.peerInner + "/32 endpoint " +
                    s.peerOuter + ":51820"));
    std::remove(keyFile.c_str());
    sh("ip -n " + ns + " addr add " + s.inner + "/24 dev " + wg + " && ip -n " + ns + " link set " + wg + " up");
  }
  if (c.threaded)
    for (const auto& [ns, dev] : {std::pair{kNsA, "va"}, {kNsB, "vb"}, {kNsA, "wga"}, {kNsB, "wgb"}})
      sh(in(ns, std::string("sh -c 'echo 1 > /sys/class/net/") + dev + "/threaded'"));
}

void tearDown() {
  std::system((std::string("ip netns del ") + kNsA + " 2>/dev/null; ip netns del " + kNsB + " 2>/dev/null").c_str());
}

/// What /sys says of one veth end: queue counts, RPS/XPS masks, threaded flag.
struct Observed {
  unsigned rxQueues = 0, txQueues = 0;
  std::string rps, xps, threaded;
};

Observed observe(const char* ns, const std::string& dev) {
  Observed o;
  const std::string q = "/sys/class/net/" + dev + "/queues/";
  o.rxQueues = std::atoi(capture(in(ns, "sh -c 'ls -d " + q + "rx-* | wc -l'")).c_str());
  o.txQueues = std::atoi(capture(in(ns, "sh -c 'ls -d " + q + "tx-* | wc -l'")).c_str());
  for (unsigned i = 0; i < o.rxQueues; ++i) o.rps += (i ? "," : "") + sysRead(ns, q + "rx-" + std::to_string(i) + "/rps_cpus");
  for (unsigned i = 0; i < o.txQueues; ++i) o.xps += (i ? "," : "") + sysRead(ns, q + "tx-" + std::to_string(i) + "/xps_cpus");
  o.threaded = sysRead(ns, "/sys/class/net/" + dev + "/threaded");
  return o;
}

/// A mask is "spread" when it is set and not all zero.
bool masksSet(const std::string& masks) {
  return !masks.empty() && masks.find_first_not_of("0,") != std::string::npos;
}

/// Runs `f` in a thread that joined namespace `ns` (sockets it creates live there).
template <class F>
void inNamespace(const char* ns, F&& f) {
  std::thread([&] {
    int fd = ::open((std::string("/run/netns/") + ns).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0 || setns(fd, CLONE_NEWNET) != 0) {
      std::fprintf(stderr, "wg_dataplane: cannot enter namespace %s\n", ns);
      std::exit(2);
    }
    ::close(fd);
    f();
  }).join();
}

struct CpuTimes {
  std::vector<uint64_t> busy, total, softirq;  ///< per CPU, in USER_HZ ticks
};

CpuTimes readCpu() {
  CpuTimes t;
  std::ifstream f("/proc/stat");
  for (std::string line; std::getline(f, line);) {
    if (line.rfind("cpu", 0) != 0 || line.size() < 4 || !std::isdigit(static_cast<unsigned char>(line[3]))) continue;
    std::istringstream in(line.substr(line.find(' ')));
    uint64_t v[8] = {};
    for (auto& x : v) in >> x;  // user nice system idle iowait irq softirq steal
    uint64_t total = 0;
    for (auto x : v) total += x;
    t.total.push_back(total);
    t.busy.push_back(total - v[3] - v[4]);
    t.softirq.push_back(v[6]);
  }
  return t;
}

uint64_t wgRxBytes() {
  std::string out = capture(std::string("ip -n ") + kNsB + " -s -j link show wgb");
  auto at = out.find("\"rx\":{\"bytes\":");
  return at == std::string::npos ? 0 : std::strtoull(out.c_str() + at + 14, nullptr, 10);
}

struct Result {
  std::string config;
  double gbps = 0;              ///< payload the receivers read, Gbit/s
  double busyCpus = 0;          ///< CPUs busy on average (0..N)
  double softirqCpus = 0;       ///< of which softirq
  std::vector<double> perCpu;   ///< busy fraction of each CPU
  bool ok = true;
};

Result measure(const Config& c, double seconds, unsigned streams, const std::string& cli) {
  setUp(c, cli);
  Result r;
  r.config = c.name;
  const Observed a = observe(kNsA, "va"), b = observe(kNsB, "vb");
  std::string problem;
  if (a.rxQueues != c.queues || b.rxQueues != c.queues || a.txQueues != c.queues || b.txQueues != c.queues)
    problem = "queues in /sys differ from the configuration";
  if (c.tune && !(masksSet(a.rps) && masksSet(a.xps) && masksSet(b.rps) && masksSet(b.xps)))
    problem = "fastlink tune left RPS/XPS unset in /sys";
  if (!c.tune && (masksSet(b.rps) || masksSet(b.xps))) problem = "RPS/XPS set without tune";
  if ((b.threaded == "1") != c.threaded || sysRead(kNsB, "/sys/class/net/wgb/threaded") != (c.threaded ? "1" : "0"))
    problem = "threaded NAPI in /sys differs from the configuration";

  // The receivers listen in B; the senders connect from A. Data moves on plain threads afterwards
  // (a socket keeps its namespace).
  int listener = -1;
  inNamespace(kNsB, [&] {
    listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(kPort);
    inet_pton(AF_INET, "10.77.0.2", &addr.sin_addr);
    if (bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(listener, 16) != 0) listener = -1;
  });
  if (listener < 0) {
    std::fprintf(stderr, "wg_dataplane: cannot listen on 10.77.0.2:%u\n", kPort);
    std::exit(2);
  }
  std::vector<int> senders(streams, -1), receivers;
  inNamespace(kNsA, [&] {
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(kPort);
    inet_pton(AF_INET, "10.77.0.2", &to.sin_addr);
    for (auto& s : senders) {
      s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      // The first packet waits for WireGuard's handshake; connect retries SYNs by itself (1 s).
      if (connect(s, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
        std::fprintf(stderr, "wg_dataplane: connect through the tunnel failed: %m\n");
        std::exit(2);
      }
    }
  });
  for (unsigned i = 0; i < streams; ++i) receivers.push_back(accept4(listener, nullptr, nullptr, SOCK_CLOEXEC));
  ::close(listener);
  // The tunnel's count over the whole transfer (an `ip` process takes long under TCG: read
  // before the first byte and after the last, not at the edges of the measured window).
  const uint64_t wgBefore = wgRxBytes();

  std::atomic<bool> stop{false};
  std::vector<std::atomic<uint64_t>> got(streams);
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < streams; ++i) {
    threads.emplace_back([&, i] {
      std::vector<char> buf(64 << 10, 'w');
      while (!stop.load(std::memory_order_relaxed))
        if (send(senders[i], buf.data(), buf.size(), MSG_NOSIGNAL) < 0) break;
      shutdown(senders[i], SHUT_WR);
    });
    threads.emplace_back([&, i] {
      std::vector<char> buf(64 << 10);
      for (ssize_t n; (n = recv(receivers[i], buf.data(), buf.size(), 0)) > 0;)
        got[i].fetch_add(static_cast<uint64_t>(n), std::memory_order_relaxed);
    });
  }
  auto total = [&] {
    uint64_t sum = 0;
    for (auto& g : got) sum += g.load();
    return sum;
  };
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // past slow start
  const uint64_t bytes0 = total();
  const CpuTimes cpu0 = readCpu();
  const auto t0 = Clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  const uint64_t bytes1 = total();
  const CpuTimes cpu1 = readCpu();
  const double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
  stop = true;
  for (auto& t : threads) t.join();  // the receivers read until the senders' FIN
  for (int s : senders) ::close(s);
  for (int s : receivers) ::close(s);
  const uint64_t wgBytes = wgRxBytes() - wgBefore, tcpBytes = total();

  r.gbps = (bytes1 - bytes0) * 8.0 / elapsed / 1e9;
  for (std::size_t i = 0; i < cpu1.total.size() && i < cpu0.total.size(); ++i) {
    const double ticks = static_cast<double>(cpu1.total[i] - cpu0.total[i]);
    const double busy = ticks ? (cpu1.busy[i] - cpu0.busy[i]) / ticks : 0;
    r.perCpu.push_back(busy);
    r.busyCpus += busy;
    r.softirqCpus += ticks ? (cpu1.softirq[i] - cpu0.softirq[i]) / ticks : 0;
  }
  if (bytes1 == bytes0) problem = "no byte arrived through the tunnel";
  // The tunnel's own count (payload + TCP/IP headers) must cover everything TCP delivered.
  if (wgBytes < tcpBytes) problem = "wgb counted fewer bytes than TCP delivered: not through the tunnel?";
  // Undo tune before the namespaces go: its snapshot (/run/fastlink/tune/<netns inode>-<ifindex>)
  // outlives them, and the next namespace may get the same inode number and ifindex.
  if (c.tune)
    for (const auto& [ns, dev] : {std::pair{kNsA, "va"}, {kNsB, "vb"}}) sh(cli + " -n " + ns + " tune " + dev + " --restore >/dev/null");
  tearDown();

  std::string perCpu;
  for (double p : r.perCpu) perCpu += (perCpu.empty() ? "" : "/") + std::to_string(static_cast<int>(p * 100 + 0.5));
  std::printf("%-22s %7.3f Gbit/s  CPUs busy %4.2f (softirq %4.2f, per CPU %s %%)  queues %u/%u  rps %s  xps %s  "
              "threaded %s  %s\n",
              c.name.c_str(), r.gbps, r.busyCpus, r.softirqCpus, perCpu.c_str(), b.rxQueues, b.txQueues,
              b.rps.c_str(), b.xps.c_str(), b.threaded.c_str(), problem.empty() ? "(checks pass)" : problem.c_str());
  std::printf("WGDP {\"config\":\"%s\",\"streams\":%u,\"seconds\":%.3f,\"gbps\":%.4f,\"busy_cpus\":%.3f,"
              "\"softirq_cpus\":%.3f,\"per_cpu_busy\":\"%s\",\"rx_queues\":%u,\"tx_queues\":%u,\"rps\":\"%s\","
              "\"xps\":\"%s\",\"threaded\":\"%s\",\"wg_rx_bytes\":%llu,\"tcp_bytes\":%llu,\"ok\":%s}\n",
              c.name.c_str(), streams, elapsed, r.gbps, r.busyCpus, r.softirqCpus, perCpu.c_str(), b.rxQueues,
              b.txQueues, b.rps.c_str(), b.xps.c_str(), b.threaded.c_str(),
              static_cast<unsigned long long>(wgBytes), static_cast<unsigned long long>(tcpBytes),
              problem.empty() ? "true" : "false");
  std::fflush(stdout);
  r.ok = problem.empty();
  return r;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace

int main() {
  const double seconds = std::atof(env("WG_DATAPLANE_SECONDS", "5"));
  const unsigned streams = static_cast<unsigned>(std::max(1, std::atoi(env("WG_DATAPLANE_STREAMS", "2"))));
  const int reps = std::max(1, std::atoi(env("WG_DATAPLANE_REPS", "3")));
  const std::string cli = env("FASTLINK_CLI", "/bin/fastlink");
  std::vector<Config> configs;
  std::istringstream words(env("WG_DATAPLANE_CONFIGS", "q1 q2 q2+tune q1+threaded q2+threaded q2+tune+threaded"));
  for (std::string w; words >> w;) configs.push_back(parseConfig(w));
  if (configs.empty()) return 2;
  tearDown();  // a namespace left by an interrupted run
  std::string kernel = capture("uname -r");
  if (!kernel.empty() && kernel.back() == '\n') kernel.pop_back();
  std::printf("wg_dataplane: kernel %s, %u CPUs, %u TCP streams, %.1f s per run, %d reps (rows interleaved)\n",
              kernel.c_str(), std::thread::hardware_concurrency(), streams, seconds, reps);
  bool ok = true;
  std::map<std::string, std::vector<Result>> runs;
  for (int r = 0; r < reps; ++r)
    for (const auto& c : configs) {
      Result res = measure(c, seconds, streams, cli);
      ok = res.ok && ok;
      runs[c.name].push_back(res);
    }
  // Ratios to the first configuration, from medians: throughput, and CPU spent per Gbit/s.
  auto med = [&](const std::string& name, auto field) {
    std::vector<double> v;
    for (const auto& r : runs[name]) v.push_back(field(r));
    return median(v);
  };
  auto gbps = [](const Result& r) { return r.gbps; };
  auto busy = [](const Result& r) { return r.busyCpus; };
  auto softirq = [](const Result& r) { return r.softirqCpus; };
  auto cpuPerGbit = [](const Result& r) { return r.gbps > 0 ? r.busyCpus / r.gbps : 0; };
  const std::string base = configs.front().name;
  // The spread (min-max over the reps) says how much of a ratio is the shared host's noise.
  auto spread = [&](const std::string& name) {
    double lo = 1e9, hi = 0;
    for (const auto& r : runs[name]) lo = std::min(lo, r.gbps), hi = std::max(hi, r.gbps);
    return std::pair{lo, hi};
  };
  std::printf("\n| configuration | Gbit/s (median) | min-max | CPUs busy (of %zu) | of which softirq | throughput vs %s | CPU per "
              "Gbit/s vs %s |\n|---|---|---|---|---|---|---|\n",
              runs[base].front().perCpu.size(), base.c_str(), base.c_str());
  for (const auto& c : configs) {
    const double baseThroughput = med(base, gbps), baseCost = med(base, cpuPerGbit);
    const auto [lo, hi] = spread(c.name);
    std::printf("| %s | %.4f | %.4f-%.4f | %.2f | %.2f | %.2f | %.2f |\n", c.name.c_str(), med(c.name, gbps), lo, hi,
                med(c.name, busy), med(c.name, softirq), baseThroughput ? med(c.name, gbps) / baseThroughput : 0,
                baseCost ? med(c.name, cpuPerGbit) / baseCost : 0);
  }
  std::fflush(stdout);
  return ok ? 0 : 1;
}
