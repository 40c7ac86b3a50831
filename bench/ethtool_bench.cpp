// Setting channels and one feature on N veth devices (4 queues each): fastlink's library in one
// process against one `ethtool` process per setting per device (ethtool -L, ethtool -K), and
// against one `fastlink ethtool` process per setting (the CLI as a whole process). Prints times
// and ratios; checks every device's queues in /sys afterwards.
//
// Creates its devices in the CURRENT network namespace and refuses to run in the initial one:
//   scripts/sandbox build/bench/ethtool_bench [DEVICES] [FASTLINK_CLI]
// (scripts/sandbox gives it a throwaway namespace; /sys is remounted there so it shows it).
#include <spawn.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fastlink/ethtool.hpp>
#include <fastlink/fastlink.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bench_common.hpp"

namespace {

using bench::spawn;

ino_t netnsInode(const char* path) {
  struct stat st {};
  return stat(path, &st) == 0 ? st.st_ino : 0;
}

double seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string dev(int i) { return "eb" + std::to_string(i); }

int rxQueues(const std::string& name) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator("/sys/class/net/" + name + "/queues"))
    if (e.path().filename().string().rfind("rx-", 0) == 0) ++n;
  return n;
}

bool verify(int devices, int rx) {
  for (int i = 0; i < devices; ++i)
    if (rxQueues(dev(i)) != rx) {
      std::fprintf(stderr, "%s has %d rx queues, expected %d\n", dev(i).c_str(), rxQueues(dev(i)), rx);
      return false;
    }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  int devices = argc > 1 ? std::atoi(argv[1]) : 1000;
  std::string cli = argc > 2 ? argv[2] : "";
  if (devices < 2 || devices % 2) {
    std::fprintf(stderr, "usage: ethtool_bench [EVEN_DEVICE_COUNT] [FASTLINK_CLI]\n");
    return 2;
  }
  if (netnsInode("/proc/self/ns/net") == netnsInode("/proc/1/ns/net")) {
    std::fprintf(stderr, "ethtool_bench: refusing to run in the initial network namespace; use scripts/sandbox\n");
    return 2;
  }
  // /sys must show this namespace for the check: remount it privately (scripts/sandbox gives
  // us a private mount namespace).
  if (umount2("/sys", MNT_DETACH) != 0 || mount("sysfs", "/sys", "sysfs", 0, nullptr) != 0) {
    std::perror("ethtool_bench: remounting /sys (run inside scripts/sandbox)");
    return 2;
  }
  {
    std::ofstream batch("/tmp/ethtool_bench.batch");
    for (int i = 0; i < devices; i += 2)
      batch << "link add " << dev(i) << " numtxqueues 4 numrxqueues 4 type veth peer name " << dev(i + 1)
            << " numtxqueues 4 numrxqueues 4\n";
  }
  if (spawn({"ip", "-batch", "/tmp/ethtool_bench.batch"}) != 0) {
    std::fprintf(stderr, "creating the veths failed\n");
    return 1;
  }
  std::printf("%d veth devices, 4 queues each; per device: channels rx/tx N, feature rx-gro-list\n", devices);

  // fastlink, one process, one Netlink.
  auto t0 = std::chrono::steady_clock::now();
  fastlink::Netlink nl;
  auto& et = nl.ethtool();
  for (int i = 0; i < devices; ++i) {
    et.setChannels(dev(i), fastlink::ChannelsInfo().setRx(2).setTx(2));
    auto r = et.setFeatures(dev(i), fastlink::FeatureChanges().set("rx-gro-list", true));
    if (!r.unmet.empty()) return 1;
  }
  double lib = seconds(t0);
  if (!verify(devices, 2)) return 1;

  // fastlink, one process, every request pipelined (EthtoolApi::run); checked afterwards.
  t0 = std::chrono::steady_clock::now();
  {
    std::vector<fastlink::Request> batch;
    batch.reserve(static_cast<std::size_t>(devices) * 2);
    const auto& family = et.family();
    for (int i = 0; i < devices; ++i) {
      batch.push_back(fastlink::EthtoolRequests::setChannels(family, dev(i), fastlink::ChannelsInfo().setRx(1).setTx(1)));
      batch.push_back(fastlink::EthtoolRequests::setFeatures(family, dev(i), fastlink::FeatureChanges().set("rx-gro-list", false)));
    }
    auto r = et.run(batch, {.onError = fastlink::OnError::Continue});
    if (r.failed || r.notSent) return 1;
  }
  double pipelined = seconds(t0);
  if (!verify(devices, 1)) return 1;
  for (int i = 0; i < devices; ++i) {
    const auto* f = et.features(dev(i)).find("rx-gro-list");
    if (!f || f->active) return 1;
  }
  // Back to the state the ethtool run starts from (rx-gro-list on).
  for (int i = 0; i < devices; ++i) et.setFeatures(dev(i), fastlink::FeatureChanges().set("rx-gro-list", true));

  // ethtool, one process per setting per device.
  t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < devices; ++i) {
    if (spawn({"ethtool", "-L", dev(i), "rx", "3", "tx", "3"}) != 0) return 1;
    if (spawn({"ethtool", "-K", dev(i), "rx-gro-list", "off"}) != 0) return 1;
  }
  double tool = seconds(t0);
  if (!verify(devices, 3)) return 1;

  std::printf("fastlink library (1 process):      %8.3f s  %7.1f us/device\n", lib, lib * 1e6 / devices);
  std::printf("ethtool (2 processes per device):  %8.3f s  %7.1f us/device\n", tool, tool * 1e6 / devices);
  std::printf("ratio ethtool / fastlink library:  %8.1fx\n", tool / lib);
  std::printf("fastlink library, pipelined batch: %8.3f s  %7.1f us/device\n", pipelined, pipelined * 1e6 / devices);
  std::printf("ratio ethtool / pipelined batch:   %8.1fx\n", tool / pipelined);

  if (!cli.empty()) {
    t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < devices; ++i) {
      if (spawn({cli, "ethtool", "-L", dev(i), "rx", "4", "tx", "4"}) != 0) return 1;
      if (spawn({cli, "ethtool", "-K", dev(i), "rx-gro-list", "on"}) != 0) return 1;
    }
    double proc = seconds(t0);
    if (!verify(devices, 4)) return 1;
    std::printf("fastlink CLI (2 processes/device): %8.3f s  %7.1f us/device\n", proc, proc * 1e6 / devices);
    std::printf("ratio ethtool / fastlink CLI:      %8.1fx\n", tool / proc);
  }
  // The devices go with the sandbox's namespace.
  return 0;
}
