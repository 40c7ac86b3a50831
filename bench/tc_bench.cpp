// Traffic control at scale, in one run: replacing the root qdisc on N interfaces (N/2 veth pairs)
// and showing one device's qdiscs with statistics among them.
//   replace: fastlink library (one pipelined batch) | `fastlink -force -batch` | `tc -force -batch` | one `tc`
//            process per interface (timed on a sample, extrapolated: said so in the output) |
//            raw floor (names by SIOCGIFINDEX, RTM_NEWQDISC over libmnl in windows of 64 with an
//            ACK asked of each window's last message, nothing decoded but error codes)
//   show:    library | `fastlink -s tc qdisc show dev X` | `tc -s qdisc show dev X` | raw floor
//            (one kernel-filtered RTM_GETQDISC dump over libmnl), medians of repeated runs
// Every replace round starts from the default root (an untimed reset), creates pfifo roots with a
// new limit, and is checked with `tc qdisc show` afterwards;
// fastlink's show output is compared byte for byte with tc's.
//
// Creates its devices in the CURRENT network namespace and refuses to run in the initial one:
//   scripts/sandbox build/bench/tc_bench [INTERFACES] [FASTLINK_CLI]
#include <fcntl.h>
#include <libmnl/libmnl.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fastlink/fastlink.hpp>
#include <fastlink/tc.hpp>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "bench_common.hpp"

namespace {

using bench::spawn;

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

std::string dev(int i) { return "tq" + std::to_string(i); }

std::string slurp(const char* path) {
  std::ifstream f(path);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

/// Independent check: `tc qdisc show` lists a root pfifo with `limit` on every device.
bool verify(int n, uint32_t limit) {
  if (spawn({"tc", "qdisc", "show"}, "/tmp/tc_bench.show") != 0) return false;
  std::string text = slurp("/tmp/tc_bench.show");
  std::string want = "root refcnt 2 limit " + std::to_string(limit) + "p";
  int found = 0;
  for (std::size_t at = 0; (at = text.find(want, at)) != std::string::npos; at += want.size()) ++found;
  if (found != n) std::fprintf(stderr, "tc shows %d of %d devices with limit %u\n", found, n, limit);
  return found == n;
}

void writeFile(const char* path, const std::string& content) { std::ofstream(path) << content; }

/// Independent check after a reset: `tc qdisc show` lists no pfifo at all.
bool verifyNoPfifo() {
  if (spawn({"tc", "qdisc", "show"}, "/tmp/tc_bench.show") != 0) return false;
  bool none = slurp("/tmp/tc_bench.show").find("qdisc pfifo ") == std::string::npos;
  if (!none) std::fprintf(stderr, "tc still shows pfifo qdiscs after the reset\n");
  return none;
}

/// The raw floor: each name resolved by SIOCGIFINDEX on the netlink socket (the cheapest way),
/// RTM_NEWQDISC (replace root pfifo limit L) sent in windows of 64, an ACK asked of each window's
/// last message only (errors come back anyway); nothing decoded but the error codes.
double rawReplace(const std::vector<std::string>& names, uint32_t limit) {
  mnl_socket* s = mnl_socket_open(NETLINK_ROUTE);
  mnl_socket_bind(s, 0, MNL_SOCKET_AUTOPID);
  std::vector<char> buf(64 * 256);
  std::vector<char> rx(1 << 16);
  double t0 = now();
  uint32_t seq = 1;
  for (std::size_t i = 0; i < names.size();) {
    std::size_t len = 0, inWindow = 0;
    nlmsghdr* last = nullptr;
    for (; i < names.size() && inWindow < 64; ++i, ++inWindow) {
      ifreq ifr{};
      names[i].copy(ifr.ifr_name, IFNAMSIZ - 1);
      if (ioctl(mnl_socket_get_fd(s), SIOCGIFINDEX, &ifr) != 0) std::fprintf(stderr, "raw: no %s\n", names[i].c_str());
      nlmsghdr* h = last = mnl_nlmsg_put_header(buf.data() + len);
      h->nlmsg_type = RTM_NEWQDISC;
      h->nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_REPLACE;
      h->nlmsg_seq = seq++;
      auto* t = static_cast<tcmsg*>(mnl_nlmsg_put_extra_header(h, sizeof(tcmsg)));
      t->tcm_ifindex = ifr.ifr_ifindex;
      t->tcm_parent = TC_H_ROOT;
      mnl_attr_put_strz(h, TCA_KIND, "pfifo");
      mnl_attr_put(h, TCA_OPTIONS, sizeof limit, &limit);
      len += h->nlmsg_len;
    }
    last->nlmsg_flags |= NLM_F_ACK;
    mnl_socket_sendto(s, buf.data(), len);
    for (bool windowDone = false; !windowDone;) {
      ssize_t n = mnl_socket_recvfrom(s, rx.data(), rx.size());
      if (n <= 0) break;
      for (auto* h = reinterpret_cast<nlmsghdr*>(rx.data()); mnl_nlmsg_ok(h, static_cast<int>(n)); h = mnl_nlmsg_next(h, reinterpret_cast<int*>(&n))) {
        if (h->nlmsg_type == NLMSG_ERROR && static_cast<nlmsgerr*>(mnl_nlmsg_get_payload(h))->error != 0) std::fprintf(stderr, "raw: error\n");
        if (h->nlmsg_seq == last->nlmsg_seq) windowDone = true;
      }
    }
  }
  double t = now() - t0;
  mnl_socket_close(s);
  return t;
}

/// The raw floor of show: one RTM_GETQDISC dump with tcm_ifindex set, replies counted.
double rawShow(uint32_t ifindex, int* messages) {
  mnl_socket* s = mnl_socket_open(NETLINK_ROUTE);
  mnl_socket_bind(s, 0, MNL_SOCKET_AUTOPID);
  std::vector<char> rx(1 << 16);
  char req[64];
  double t0 = now();
  nlmsghdr* h = mnl_nlmsg_put_header(req);
  h->nlmsg_type = RTM_GETQDISC;
  h->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  h->nlmsg_seq = 1;
  auto* t = static_cast<tcmsg*>(mnl_nlmsg_put_extra_header(h, sizeof(tcmsg)));
  t->tcm_ifindex = static_cast<int>(ifindex);
  mnl_socket_sendto(s, h, h->nlmsg_len);
  *messages = 0;
  for (bool done = false; !done;) {
    ssize_t n = mnl_socket_recvfrom(s, rx.data(), rx.size());
    if (n <= 0) break;
    for (auto* m = reinterpret_cast<nlmsghdr*>(rx.data()); mnl_nlmsg_ok(m, static_cast<int>(n)); m = mnl_nlmsg_next(m, reinterpret_cast<int*>(&n))) {
      if (m->nlmsg_type == NLMSG_DONE || m->nlmsg_type == NLMSG_ERROR) done = true;
      else ++*messages;
    }
  }
  double el = now() - t0;
  mnl_socket_close(s);
  return el;
}

template <class Fn>
double median(int runs, Fn fn) {
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) t.push_back(fn());
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

bool sameInode(const char* a, const char* b) {
  struct stat x {}, y {};
  return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_ino == y.st_ino;
}

}  // namespace

int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 10000;
  std::string cli = argc > 2 ? argv[2] : "";
  if (n < 2 || n % 2) {
    std::fprintf(stderr, "usage: tc_bench [EVEN_INTERFACE_COUNT] [FASTLINK_CLI]\n");
    return 2;
  }
  if (sameInode("/proc/self/ns/net", "/proc/1/ns/net")) {
    std::fprintf(stderr, "tc_bench: refusing to run in the initial network namespace; use scripts/sandbox\n");
    return 2;
  }
  {
    std::string lines;
    for (int i = 0; i < n; i += 2) lines += "link add " + dev(i) + " numtxqueues 1 type veth peer name " + dev(i + 1) + " numtxqueues 1\n";
    writeFile("/tmp/tc_bench.links", lines);
  }
  if (spawn({"ip", "-batch", "/tmp/tc_bench.links"}) != 0) return 1;
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.push_back(dev(i));
  std::printf("%d interfaces (%d veth pairs), 1 tx queue each\n\nreplace the root qdisc on every interface (pfifo limit L):\n", n, n / 2);

  // Every timed round starts from the same state, the veths' default (noqueue) root, and creates a
  // pfifo on each device: replacing a pfifo by a pfifo is only a change, far cheaper in the
  // kernel, so a round that came after another would be timed on easier work (stop 17 timed the
  // library creating and the others changing). The reset is untimed; the rounds rotate their
  // order over REPS repetitions and each figure is the median.
  std::string resetLines;
  for (int i = 0; i < n; ++i) resetLines += "qdisc del dev " + dev(i) + " root\n";
  writeFile("/tmp/tc_bench.reset", resetLines);
  auto reset = [&] {
    // Devices that already have the default root make tc say so; the check below is what counts.
    spawn({"tc", "-force", "-batch", "/tmp/tc_bench.reset"}, "/dev/null", "/dev/null");
    bool reset = verifyNoPfifo();
    // The kernel frees the 10,000 deleted qdiscs after an RCU grace period, in softirq: left to
    // run inside the next timed round, that work made one round 1.5x slower than the next.
    usleep(300'000);
    return reset;
  };
  fastlink::Netlink nl;
  uint32_t limit = 100;
  // fastlink library: each name resolved by LinkApi::findIndex (one ioctl), then one pipelined batch.
  auto libraryRound = [&]() -> double {
    double t0 = now();
    fastlink::Batch batch;
    for (int i = 0; i < n; ++i)
      batch.add(fastlink::TcRequests::replaceQdisc(fastlink::QdiscInfo()
                                                       .setDev(nl.links().findIndex(dev(i)).value_or(0))
                                                       .setRoot()
                                                       .setKind("pfifo")
                                                       .setOptions(fastlink::FifoOptions{limit})));
    auto result = nl.run(batch, fastlink::BatchOptions{.onError = fastlink::OnError::Continue});  // pipelined
    double t = now() - t0;
    return result.failed ? -1 : t;
  };
  auto batchFileRound = [&](std::vector<std::string> argv, const std::string& prefix) -> double {
    std::string lines;
    for (int i = 0; i < n; ++i) lines += prefix + "qdisc replace dev " + dev(i) + " root pfifo limit " + std::to_string(limit) + "\n";
    writeFile("/tmp/tc_bench.batch", lines);
    argv.push_back("/tmp/tc_bench.batch");
    double t0 = now();
    if (spawn(argv) != 0) return -1;
    return now() - t0;
  };
  enum Round { kLibrary, kCli, kTc, kRaw, kRounds };
  const char* roundName[kRounds] = {"library", "fastlink -batch", "tc -batch", "raw floor"};
  std::vector<double> times[kRounds];
  int reps = std::getenv("TC_BENCH_REPS") ? std::atoi(std::getenv("TC_BENCH_REPS")) : 5;
  for (int rep = 0; rep < reps; ++rep) {
    for (int k = 0; k < kRounds; ++k) {
      int round = (k + rep) % kRounds;
      if (round == kCli && cli.empty()) continue;
      if (!reset()) return 1;
      ++limit;
      double t = round == kLibrary ? libraryRound()
                 : round == kCli   ? batchFileRound({cli, "-force", "-batch"}, "tc ")
                 : round == kTc    ? batchFileRound({"tc", "-force", "-batch"}, "")
                                   : rawReplace(names, limit);
      if (t < 0 || !verify(n, limit)) {
        std::fprintf(stderr, "%s round failed\n", roundName[round]);
        return 1;
      }
      times[round].push_back(t);
    }
  }
  auto medianOf = [](std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  double lib = medianOf(times[kLibrary]), fastBatch = medianOf(times[kCli]), tcBatch = medianOf(times[kTc]),
         raw = medianOf(times[kRaw]);
  std::printf("  (every round creates the pfifo roots from noqueue; medians of %d, rounds rotated)\n", reps);
  for (int round = 0; round < kRounds; ++round) {
    if (times[round].empty()) continue;
    std::printf("  %-16s each round (ms):", roundName[round]);
    for (double t : times[round]) std::printf(" %.0f", t * 1e3);
    std::printf("\n");
  }

  int sample = std::min(n, 100);
  if (!reset()) return 1;  // the sample creates too
  double t0 = now();
  for (int i = 0; i < sample; ++i)
    if (spawn({"tc", "qdisc", "replace", "dev", dev(i), "root", "pfifo", "limit", "99"}) != 0) return 1;
  double perProcess = (now() - t0) / sample * n;
  // The show part below wants a root qdisc on every device (untimed).
  ++limit;
  if (batchFileRound({"tc", "-force", "-batch"}, "") < 0 || !verify(n, limit)) return 1;

  std::printf("  fastlink library (1 batch):        %8.3f s\n", lib);
  if (!cli.empty()) std::printf("  fastlink -batch (whole process):   %8.3f s\n", fastBatch);
  std::printf("  tc -batch:                         %8.3f s\n", tcBatch);
  std::printf("  tc, one process per interface:     %8.3f s  (%d processes timed, extrapolated to %d)\n", perProcess, sample, n);
  std::printf("  raw floor (ioctl names, libmnl):   %8.3f s\n", raw);
  std::printf("  tc -batch / library:        %6.1fx   tc per process / library:        %7.1fx\n", tcBatch / lib, perProcess / lib);
  if (!cli.empty())
    std::printf("  tc -batch / fastlink -batch: %5.1fx   tc per process / fastlink -batch: %6.1fx\n", tcBatch / fastBatch, perProcess / fastBatch);
  std::printf("  library / raw floor:         %5.2fx\n", lib / raw);

  // ---- show one device's qdiscs with statistics ----
  std::string target = dev(n / 2);
  uint32_t targetIndex = if_nametoindex(target.c_str());
  std::printf("\nshow %s's qdiscs with statistics among %d interfaces (medians):\n", target.c_str(), n);
  std::size_t count = 0;
  double libShow = median(51, [&] {
    double s = now();
    count = nl.tc().qdiscs(fastlink::QdiscFilter().setDev(targetIndex)).size();
    return now() - s;
  });
  int rawMessages = 0;
  double rawShowT = median(51, [&] { return rawShow(targetIndex, &rawMessages); });
  double tcShow = median(11, [&] {
    double s = now();
    spawn({"tc", "-s", "qdisc", "show", "dev", target}, "/tmp/tc_bench.tcshow");
    return now() - s;
  });
  double cliShow = 0;
  if (!cli.empty()) {
    cliShow = median(11, [&] {
      double s = now();
      spawn({cli, "-s", "tc", "qdisc", "show", "dev", target}, "/tmp/tc_bench.clishow");
      return now() - s;
    });
    if (slurp("/tmp/tc_bench.clishow") != slurp("/tmp/tc_bench.tcshow")) {
      std::fprintf(stderr, "fastlink and tc print different text:\n%s---\n%s", slurp("/tmp/tc_bench.clishow").c_str(),
                   slurp("/tmp/tc_bench.tcshow").c_str());
      return 1;
    }
  }
  std::printf("  fastlink library:                  %8.3f ms  (%zu qdisc)\n", libShow * 1e3, count);
  if (!cli.empty()) std::printf("  fastlink -s tc qdisc show dev X:   %8.3f ms  (same text as tc)\n", cliShow * 1e3);
  std::printf("  tc -s qdisc show dev X:            %8.3f ms\n", tcShow * 1e3);
  std::printf("  raw floor (filtered dump):         %8.3f ms  (%d messages: the kernel ignores tcm_ifindex)\n", rawShowT * 1e3, rawMessages);
  std::printf("  tc / library: %.0fx", tcShow / libShow);
  if (!cli.empty()) std::printf("   tc / fastlink CLI: %.1fx", tcShow / cliShow);
  std::printf("   library / raw floor: %.2fx\n", libShow / rawShowT);
  // Veths go with the sandbox's namespace (no bridges: its teardown is quick).
  return 0;
}
