// `fastlink tune DEV` on one 4-queue veth: the whole process (tune, then tune --restore) and
// the library (TuneApi plan + apply, restore) against the shell recipe it replaces (one
// `ethtool -L` process plus one `sh` writing the RPS/XPS masks, no read-back). Medians of N
// rounds; every round's result is checked in /sys. Target: tune of one device <= 10 ms.
//
// Creates its devices in the CURRENT network namespace and refuses to run in the initial one:
//   scripts/sandbox build/bench/tune_bench [ROUNDS] [FASTLINK_CLI]
#include <spawn.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fastlink/fastlink.hpp>
#include <fastlink/tune.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bench_common.hpp"

namespace {

using bench::spawn;

ino_t inode(const char* path) {
  struct stat st {};
  return stat(path, &st) == 0 ? st.st_ino : 0;
}

using Clock = std::chrono::steady_clock;
double ms(Clock::time_point start) { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  return s;
}

int rxQueues() {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator("/sys/class/net/tb0/queues"))
    if (e.path().filename().string().rfind("rx-", 0) == 0) ++n;
  return n;
}

// Tuned: min(CPUs, 4) queues, rx-0 steered to CPU 0. Restored: 4 queues, RPS off.
bool isTuned(unsigned queues) { return rxQueues() == static_cast<int>(queues) && slurp("/sys/class/net/tb0/queues/rx-0/rps_cpus") == "1"; }
bool isRestored() { return rxQueues() == 4 && slurp("/sys/class/net/tb0/queues/rx-0/rps_cpus") == "0"; }

}  // namespace

int main(int argc, char** argv) {
  int rounds = argc > 1 ? std::atoi(argv[1]) : 50;
  std::string cli = argc > 2 ? argv[2] : "";
  if (rounds < 1) return 2;
  if (inode("/proc/self/ns/net") == inode("/proc/1/ns/net")) {
    std::fprintf(stderr, "tune_bench: refusing to run in the initial network namespace; use scripts/sandbox\n");
    return 2;
  }
  if (umount2("/sys", MNT_DETACH) != 0 || mount("sysfs", "/sys", "sysfs", 0, nullptr) != 0) {
    std::perror("tune_bench: remounting /sys (run inside scripts/sandbox)");
    return 2;
  }
  if (spawn({"ip", "link", "add", "tb0", "numtxqueues", "4", "numrxqueues", "4", "type", "veth", "peer", "name", "tb1",
             "numtxqueues", "4", "numrxqueues", "4"}) != 0)
    return 1;
  char tmpl[] = "/tmp/fastlink-tune-bench-XXXXXX";
  if (!mkdtemp(tmpl)) return 1;
  std::string dir = tmpl;
  setenv("FASTLINK_TUNE_SNAPSHOT_DIR", dir.c_str(), 1);
  unsigned cpus = static_cast<unsigned>(sysconf(_SC_NPROCESSORS_ONLN));
  unsigned queues = std::min(cpus, 4u);
  std::printf("one 4-queue veth, %u online CPUs -> %u queues; medians of %d rounds\n", cpus, queues, rounds);

  // Library: plan + apply (snapshot, writes, read-back, verify), then restore.
  std::vector<double> libTune, libPlan, libRestore;
  {
    fastlink::Netlink nl;
    fastlink::TuneOptions options;
    options.snapshotDir = dir;
    for (int i = 0; i < rounds; ++i) {
      auto t0 = Clock::now();
      fastlink::TuneApi tune = nl.tune(options);
      auto plan = tune.plan("tb0");
      libPlan.push_back(ms(t0));
      tune.apply(plan);
      libTune.push_back(ms(t0));
      if (!isTuned(queues)) return 1;
      t0 = Clock::now();
      tune.restore("tb0");
      libRestore.push_back(ms(t0));
      if (!isRestored()) return 1;
    }
  }

  // The shell recipe: ethtool -L, then one sh writing every mask (no snapshot, no read-back).
  std::string script;
  for (unsigned q = 0; q < queues; ++q) {
    char mask[16];
    std::snprintf(mask, sizeof mask, "%x", 1u << q);
    script += "echo " + std::string(mask) + " > /sys/class/net/tb0/queues/rx-" + std::to_string(q) + "/rps_cpus; ";
    script += "echo " + std::string(mask) + " > /sys/class/net/tb0/queues/tx-" + std::to_string(q) + "/xps_cpus; ";
  }
  std::string undo;
  for (unsigned q = 0; q < 4; ++q)
    undo += "echo 0 > /sys/class/net/tb0/queues/rx-" + std::to_string(q) + "/rps_cpus; echo 0 > /sys/class/net/tb0/queues/tx-" +
            std::to_string(q) + "/xps_cpus; ";
  std::vector<double> shell;
  for (int i = 0; i < rounds; ++i) {
    auto t0 = Clock::now();
    if (spawn({"ethtool", "-L", "tb0", "rx", std::to_string(queues), "tx", std::to_string(queues)}) != 0) return 1;
    if (spawn({"sh", "-c", script}) != 0) return 1;
    shell.push_back(ms(t0));
    if (!isTuned(queues)) return 1;
    if (spawn({"ethtool", "-L", "tb0", "rx", "4", "tx", "4"}) != 0 || spawn({"sh", "-c", undo}) != 0) return 1;
    if (!isRestored()) return 1;
  }

  std::printf("fastlink library tune (plan+apply+verify): %7.2f ms\n", median(libTune));
  std::printf("  of which plan (reads only):               %7.2f ms\n", median(libPlan));
  std::printf("fastlink library restore:                  %7.2f ms\n", median(libRestore));
  std::printf("shell recipe (ethtool -L + sh, no checks): %7.2f ms\n", median(shell));
  if (!cli.empty()) {
    std::vector<double> procTune, procRestore, procVersion;
    for (int i = 0; i < rounds; ++i) {
      auto t0 = Clock::now();
      if (spawn({cli, "tune", "tb0"}) != 0) return 1;
      procTune.push_back(ms(t0));
      if (!isTuned(queues)) return 1;
      t0 = Clock::now();
      if (spawn({cli, "tune", "tb0", "--restore"}) != 0) return 1;
      procRestore.push_back(ms(t0));
      if (!isRestored()) return 1;
      t0 = Clock::now();
      spawn({cli, "-V"});
      procVersion.push_back(ms(t0));
    }
    std::printf("fastlink tune DEV (whole process):         %7.2f ms  (target <= 10 ms)\n", median(procTune));
    std::printf("fastlink tune DEV --restore (process):     %7.2f ms\n", median(procRestore));
    std::printf("fastlink -V (process start-up floor):      %7.2f ms\n", median(procVersion));
    std::printf("ratio shell recipe / fastlink tune:        %7.2fx\n", median(shell) / median(procTune));
  }
  std::filesystem::remove_all(dir);
  return 0;
}
