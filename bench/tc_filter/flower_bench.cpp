// N flower filters (issue 33: 100,000 in the VM, whose kernel has cls_flower; the host's has
// not): `fastlink -force -batch` against `tc -force -batch`, the same lines, each round from a
// fresh clsact qdisc. The driver is C++ because the VM's guest has no python3 (the u32 bench,
// bench/tc_filter_bench.sh, generates its lines with python). Every filter is
//   filter add dev fb0 ingress protocol ip pref 1 flower dst_ip A action mirred egress redirect dev fb1
// with a distinct address each. After each round `tc filter show` is counted (one "dst_ip" line
// per filter), so a round that added less fails the run. Rounds alternate (fastlink, tc, ...);
// the medians of wall and CPU seconds (user + system of the child: the kernel's work in the
// sender's context included) and their ratios are printed. Each round starts on an idle machine
// (settle: the previous round's filters are freed by kernel workers after the qdisc is gone).
// The raw floor (bench/raw_floor
// flower-mirred, next to this program: the same filters from hand-written libmnl, pipelined, an
// ACK asked only of each window's last request) runs a third round in each repetition when it
// is there (TC_BENCH_RAW=0 leaves it out): what is left is the kernel's own work.
// Where it runs (docs/BENCHMARKS.md, "tc filters"):
//   bench/tc_filter/run build          the VM (tests/vm/run --bench, Debian's 6.1 under TCG)
//   scripts/sandbox build/bench/tc_flower_bench [N] [REPS] [FASTLINK_CLI]
//     a kernel with cls_flower and act_mirred, in a namespace of its own (refuses PID 1's).
// Environment: TC_BENCH_FILTERS (N, default 100000), TC_BENCH_REPS (default 3), FASTLINK_CLI.
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "bench_common.hpp"

namespace {

std::string envOr(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

bool inInitialNetns() {
  struct stat self {}, init {};
  return stat("/proc/self/ns/net", &self) == 0 && stat("/proc/1/ns/net", &init) == 0 && self.st_ino == init.st_ino &&
         self.st_dev == init.st_dev;
}

/// The children's user + system seconds so far, and their user seconds.
std::pair<double, double> childCpu() {
  rusage u{};
  getrusage(RUSAGE_CHILDREN, &u);
  auto sec = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
  return {sec(u.ru_utime) + sec(u.ru_stime), sec(u.ru_utime)};
}

struct Round {
  double wall = 0, cpu = 0, user = 0;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[(v.size() - 1) / 2];
}

int run(const std::string& command) { return bench::spawn({"sh", "-c", command}); }

/// Idle and busy jiffies of every CPU so far (/proc/stat's first line).
std::pair<double, double> cpuJiffies() {
  std::ifstream f("/proc/stat");
  std::string cpu;
  double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0;
  f >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq;
  return {idle + iowait, user + nice + system + irq + softirq};
}

/// Waits until the machine is idle (90% over 0.5 s; 120 s at most): deleting a qdisc frees its
/// filters and actions later, in the kernel's workers, and a round timed while they still run
/// would pay for the previous round's teardown (the VM runs nothing else).
void settle() {
  for (double t0 = bench::now(); bench::now() - t0 < 120;) {
    auto [idle0, busy0] = cpuJiffies();
    usleep(500000);
    auto [idle1, busy1] = cpuJiffies();
    double idle = idle1 - idle0, busy = busy1 - busy0;
    if (idle + busy > 0 && idle / (idle + busy) >= 0.9) return;
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t n = std::stoul(argc > 1 ? argv[1] : envOr("TC_BENCH_FILTERS", "100000"));
  int reps = std::stoi(argc > 2 ? argv[2] : envOr("TC_BENCH_REPS", "3"));
  std::string cli = argc > 3 ? argv[3] : envOr("FASTLINK_CLI", "build/cli/fastlink");
  if (envOr("FASTLINK_VM", "") != "1" && inInitialNetns()) {
    std::fprintf(stderr, "tc_flower_bench: refusing to run in PID 1's network namespace (run it in scripts/sandbox, or in the VM: bench/tc_filter/run)\n");
    return 2;
  }
  if (run("ip link add fb0 type veth peer name fb1 && ip link set fb0 up && ip link set fb1 up") != 0) {
    std::fprintf(stderr, "tc_flower_bench: cannot create the veth pair fb0/fb1\n");
    return 1;
  }
  char dirTemplate[] = "/tmp/tc_flower_bench.XXXXXX";
  std::string dir = mkdtemp(dirTemplate);
  std::string tcFile = dir + "/tc", flFile = dir + "/fl";
  {
    std::ofstream t(tcFile), f(flFile);
    for (std::size_t k = 0; k < n; ++k) {
      std::string line = "filter add dev fb0 ingress protocol ip pref 1 flower dst_ip 10." + std::to_string(k >> 16 & 255) + "." +
                         std::to_string(k >> 8 & 255) + "." + std::to_string(k & 255) + " action mirred egress redirect dev fb1\n";
      t << line;
      f << "tc " << line;
    }
  }
  std::string self = argv[0], raw = self.substr(0, self.rfind('/') + 1) + "raw_floor";
  bool withRaw = envOr("TC_BENCH_RAW", "1") == "1" && access(raw.c_str(), X_OK) == 0;
  enum class Sender { Fastlink, Tc, Raw };
  const char* names[] = {"fastlink", "tc", "raw floor"};
  auto round = [&](Sender sender) -> Round {
    run("tc qdisc del dev fb0 clsact 2>/dev/null; tc qdisc add dev fb0 clsact");
    settle();
    std::vector<std::string> argvOf = sender == Sender::Fastlink ? std::vector<std::string>{cli, "-force", "-batch", flFile}
                                      : sender == Sender::Tc     ? std::vector<std::string>{"tc", "-force", "-batch", tcFile}
                                                                 : std::vector<std::string>{raw, "flower-mirred", "fb0", "fb1", std::to_string(n)};
    auto [cpu0, user0] = childCpu();
    double t0 = bench::now();
    int status = bench::spawn(argvOf, "/dev/null", (dir + "/err").c_str());
    double t1 = bench::now();
    auto [cpu1, user1] = childCpu();
    std::string counted = bench::capture("tc filter show dev fb0 ingress | grep -c '^  dst_ip '");
    std::size_t got = std::strtoul(counted.c_str(), nullptr, 10);
    if (status != 0 || got != n) {
      std::fprintf(stderr, "tc_flower_bench: %s exited %d and left %zu filters, not %zu:\n%s", names[static_cast<int>(sender)], status,
                   got, n, bench::capture("head -5 " + dir + "/err").c_str());
      std::exit(1);
    }
    return {t1 - t0, cpu1 - cpu0, user1 - user0};
  };
  std::vector<double> fw, fc, fu, tw, tcpu, tu, rw, rc, ru;
  // Each repetition's own CPU ratio: its fastlink and tc rounds ran next to each other, under
  // the same host load (under TCG the guest's CPU seconds stretch with the host's load, and the
  // repetitions of one run spread by +-25%), so this is the fair figure; the ratio of the medians
  // mixes rounds of different repetitions.
  std::vector<double> ratio;
  for (int r = 0; r < reps; ++r) {
    Round f = round(Sender::Fastlink), t = round(Sender::Tc);
    fw.push_back(f.wall), fc.push_back(f.cpu), fu.push_back(f.user);
    tw.push_back(t.wall), tcpu.push_back(t.cpu), tu.push_back(t.user);
    ratio.push_back(t.cpu / f.cpu);
    std::printf("rep %d wall (cpu, user) s: fastlink -batch %.2f (%.2f, %.2f), tc -batch %.2f (%.2f, %.2f)", r + 1, f.wall, f.cpu,
                f.user, t.wall, t.cpu, t.user);
    if (withRaw) {
      Round w = round(Sender::Raw);
      rw.push_back(w.wall), rc.push_back(w.cpu), ru.push_back(w.user);
      std::printf(", raw floor %.2f (%.2f, %.2f)", w.wall, w.cpu, w.user);
    }
    std::printf("; cpu tc/fastlink %.2fx\n", t.cpu / f.cpu);
    std::fflush(stdout);
  }
  std::printf("%zu flower filters with mirred, medians of %d: wall fastlink -batch %.2f s, tc -batch %.2f s, tc/fastlink %.2fx; "
              "cpu fastlink %.2f s, tc %.2f s, tc/fastlink %.2fx; user fastlink %.2f s, tc %.2f s\n",
              n, reps, median(fw), median(tw), median(tw) / median(fw), median(fc), median(tcpu), median(tcpu) / median(fc),
              median(fu), median(tu));
  std::printf("cpu tc/fastlink per repetition: min %.2fx, median %.2fx\n", *std::min_element(ratio.begin(), ratio.end()), median(ratio));
  if (withRaw)
    std::printf("raw floor: wall %.2f s (tc/floor %.2fx, fastlink/floor %.2fx), cpu %.2f s (tc/floor %.2fx, fastlink/floor %.2fx), "
                "user %.2f s\n",
                median(rw), median(tw) / median(rw), median(fw) / median(rw), median(rc), median(tcpu) / median(rc),
                median(fc) / median(rc), median(ru));
  else
    std::printf("raw floor: not run (%s)\n", access(raw.c_str(), X_OK) == 0 ? "TC_BENCH_RAW=0" : (raw + " not found").c_str());
  run("tc qdisc del dev fb0 clsact; ip link del fb0; rm -rf " + dir);
  return 0;
}
