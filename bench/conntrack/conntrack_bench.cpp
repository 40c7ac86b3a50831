// Conntrack at scale (issue 33), in two parts (CT_BENCH_PARTS=table,flood; both by default):
// - table: N entries created with the library's pipelined batch, then the entries of one source
//   address listed and deleted, fastlink against a raw kernel-filtered dump (the floor) and
//   conntrack-tools;
// - flood: `fastlink conntrack -E` while this program creates and deletes entries in pipelined
//   batches at a paced rate (CT_BENCH_FLOOD_RATE events/s, CT_BENCH_FLOOD_SECONDS), counting the
//   events shown against the events generated.
// Where it runs (docs/BENCHMARKS.md, "conntrack"):
//   scripts/sandbox build/bench/conntrack_bench [ENTRIES] [PER_SOURCE] [FASTLINK_CLI]
//     a namespace of the sandbox; nf_conntrack_max is the host's (a non-initial namespace cannot
//     raise it), so ENTRIES is scaled down to it. Refuses to run in PID 1's network namespace.
//   bench/conntrack/run build   (tests/vm/run --bench: the VM's own initial namespace)
//     FASTLINK_VM=1: raises nf_conntrack_max and nf_conntrack_buckets there to fit ENTRIES.
// - drain (asked for only): how fast fastlink and conntrack -E consume a queued burst.
// Environment: CT_BENCH_ENTRIES, CT_BENCH_PER_SOURCE, FASTLINK_CLI, CT_BENCH_TOOL_REPS (runs of
// each process timing, default 3), CT_BENCH_PARTS, CT_BENCH_FLOOD_RATE (0 = as fast as it goes),
// CT_BENCH_FLOOD_SECONDS, CT_BENCH_FLOOD_THREADS (generators, each on its own socket, default 2),
// CT_BENCH_FLOOD_RCVBUF (bytes, -E's -b; default: -E's own).
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>

#include "bench_common.hpp"
#include "fastlink/conntrack.hpp"
#include "fastlink/netlink.hpp"

using namespace fastlink;

namespace {

IpAddress sourceOf(std::size_t i, std::size_t perSource) {
  std::size_t s = i / perSource;
  return IpAddress::parse("10." + std::to_string(1 + s / 65536) + "." + std::to_string(s / 256 % 256) + "." + std::to_string(s % 256));
}

ConntrackEntry entry(std::size_t i, std::size_t perSource, uint32_t timeout = 7200) {
  ConntrackTuple t;
  t.src = sourceOf(i, perSource);
  t.dst = IpAddress::parse("192.168.0.1");
  t.protocol = 17;
  t.srcPort = static_cast<uint16_t>(1024 + i % perSource);
  t.dstPort = 53;
  return ConntrackEntry().setOrig(t).setTimeout(timeout);
}

std::size_t createRange(ConntrackApi& ct, std::size_t from, std::size_t to, std::size_t perSource) {
  std::size_t next = from, failed = 0;
  BatchOptions options;
  options.onError = OnError::Continue;
  ct.run([&]() -> std::optional<Request> { return next < to ? std::optional(ConntrackRequests::create(entry(next++, perSource))) : std::nullopt; },
         options, [&](std::size_t, const RequestResult& r) { failed += r.status != RequestStatus::Applied; });
  return failed;
}

/// The floor: one hand-built CTA_FILTER dump on a raw socket, messages counted, nothing decoded.
std::size_t rawFilteredDump(const IpAddress& src) {
  int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER);
  std::vector<uint8_t> m(256, 0);
  std::size_t len = 0;
  auto put = [&](const void* p, std::size_t n) {
    std::memcpy(m.data() + len, p, n);
    len += (n + 3) & ~std::size_t{3};
  };
  auto attr = [&](uint16_t type, const void* p, std::size_t n) {
    nlattr a{static_cast<uint16_t>(4 + n), type};
    put(&a, 4);
    std::memcpy(m.data() + len, p, n);
    len += (n + 3) & ~std::size_t{3};
  };
  nlmsghdr h{};
  h.nlmsg_type = NFNL_SUBSYS_CTNETLINK << 8 | IPCTNL_MSG_CT_GET;
  h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  put(&h, sizeof h);
  nfgenmsg g{AF_INET, NFNETLINK_V0, 0};
  put(&g, sizeof g);
  // CTA_TUPLE_ORIG { CTA_TUPLE_IP { V4_SRC, V4_DST } }, CTA_FILTER { ORIG_FLAGS = IP_SRC, REPLY_FLAGS = 0 }
  std::size_t orig = len;
  attr(CTA_TUPLE_ORIG | NLA_F_NESTED, nullptr, 0);
  std::size_t ip = len;
  attr(CTA_TUPLE_IP | NLA_F_NESTED, nullptr, 0);
  uint32_t zero = 0;
  attr(CTA_IP_V4_SRC, src.bytes().data(), 4);
  attr(CTA_IP_V4_DST, &zero, 4);
  reinterpret_cast<nlattr*>(m.data() + ip)->nla_len = static_cast<uint16_t>(len - ip);
  reinterpret_cast<nlattr*>(m.data() + orig)->nla_len = static_cast<uint16_t>(len - orig);
  std::size_t filter = len;
  attr(CTA_FILTER | NLA_F_NESTED, nullptr, 0);
  uint32_t flags = 1;
  attr(CTA_FILTER_ORIG_FLAGS, &flags, 4);
  attr(CTA_FILTER_REPLY_FLAGS, &zero, 4);
  reinterpret_cast<nlattr*>(m.data() + filter)->nla_len = static_cast<uint16_t>(len - filter);
  reinterpret_cast<nlmsghdr*>(m.data())->nlmsg_len = static_cast<uint32_t>(len);
  send(fd, m.data(), len, 0);
  std::vector<uint8_t> buf(64 * 1024);
  std::size_t count = 0;
  for (bool done = false; !done;) {
    ssize_t n = recv(fd, buf.data(), buf.size(), 0);
    if (n <= 0) break;
    for (auto* p = reinterpret_cast<nlmsghdr*>(buf.data()); NLMSG_OK(p, n); p = NLMSG_NEXT(p, n)) {
      if (p->nlmsg_type == NLMSG_DONE || p->nlmsg_type == NLMSG_ERROR) done = true;
      else ++count;
    }
  }
  close(fd);
  return count;
}

template <class F>
double best(int runs, F f) {
  double b = 1e9;
  for (int i = 0; i < runs; ++i) {
    double t0 = bench::now();
    f();
    b = std::min(b, bench::now() - t0);
  }
  return b;
}

std::string envOr(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

std::size_t readSysctl(const char* path) {
  std::size_t v = 0;
  std::ifstream(path) >> v;
  return v;
}

bool writeSysctl(const char* path, std::size_t value) {
  std::ofstream f(path);
  f << value << '\n';
  f.flush();
  return static_cast<bool>(f);
}

/// The host's own namespace is never touched: outside the VM this must run in a namespace of
/// its own (scripts/sandbox). Where /proc/1 cannot be read (a container), the sign is the
/// global limit: only the initial namespace may write nf_conntrack_max.
bool inInitialNetns() {
  struct stat self {}, init {};
  if (stat("/proc/self/ns/net", &self) == 0 && stat("/proc/1/ns/net", &init) == 0)
    return self.st_ino == init.st_ino && self.st_dev == init.st_dev;
  return access("/proc/sys/net/netfilter/nf_conntrack_max", W_OK) == 0;
}

/// The best of `reps` runs of `argv` (whole process, stdout to /dev/null); `said` gets the last
/// run's stderr (the tools print their counts there).
double timedSpawn(const std::vector<std::string>& argv, int reps, std::string& said) {
  std::string err = "/tmp/conntrack-bench-stderr-" + std::to_string(getpid());
  double b = best(reps, [&] { bench::spawn(argv, "/dev/null", err.c_str()); });
  std::ifstream f(err);
  said.assign(std::istreambuf_iterator<char>(f), {});
  std::remove(err.c_str());
  while (!said.empty() && said.back() == '\n') said.pop_back();
  return b;
}

void tablePart(ConntrackApi& ct, std::size_t n, std::size_t perSource, const std::string& cli, int toolReps) {
  ct.flush();
  double t0 = bench::now();
  std::size_t failed = createRange(ct, 0, n, perSource);
  double create = bench::now() - t0;
  std::printf("create %zu entries (library batch): %.3f s, %.0f/s, %zu failed; nf_conntrack_count %zu\n", n, create,
              n / create, failed, readSysctl("/proc/sys/net/netfilter/nf_conntrack_count"));
  std::fflush(stdout);

  // The entries of one source in the middle of the table.
  std::size_t target = (n / perSource / 2) * perSource;
  IpAddress src = sourceOf(target, perSource);
  std::string addr = src.toString();
  std::size_t got = 0, raw = 0;
  // Alternated, so that the kernel's own work (conntrack's garbage collector walks the table
  // too) falls on both alike.
  double lib = 1e9, floor = 1e9;
  for (int i = 0; i < 5; ++i) {
    lib = std::min(lib, best(1, [&] {
      got = 0;
      ct.forEach(ConntrackFilter().setSrc(src), [&](const ConntrackEntry&) { ++got; });
    }));
    floor = std::min(floor, best(1, [&] { raw = rawFilteredDump(src); }));
  }
  std::printf("list -s %s: library %.4f s (%zu entries), raw CTA_FILTER dump %.4f s (%zu messages): library/raw x%.2f\n",
              addr.c_str(), lib, got, floor, raw, lib / floor);
  std::fflush(stdout);
  // Whole processes: the floor as a process (this program, --raw-dump) against both tools.
  char exe[4096] = {};
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  std::string rawExe(exe, len > 0 ? static_cast<std::size_t>(len) : 0);
  std::string rawSaid, cliSaid, toolSaid;
  double rawProc = 1e9, cliList = 1e9;
  for (int i = 0; i < 5; ++i) {
    rawProc = std::min(rawProc, timedSpawn({rawExe, "--raw-dump", addr}, 1, rawSaid));
    cliList = std::min(cliList, timedSpawn({cli, "conntrack", "-L", "-s", addr}, 1, cliSaid));
  }
  std::printf("processes: raw floor %.4f s [%s], fastlink conntrack -L -s %.4f s (x%.2f of the raw process) [%s]\n", rawProc,
              rawSaid.c_str(), cliList, cliList / rawProc, cliSaid.c_str());
  std::fflush(stdout);
  double toolList = timedSpawn({"conntrack", "-L", "-s", addr}, toolReps, toolSaid);
  std::printf("conntrack -L -s %.4f s [%s]: conntrack/fastlink x%.1f\n", toolList, toolSaid.c_str(), toolList / cliList);
  std::fflush(stdout);

  // Delete the source's entries: fastlink, re-create, conntrack. Only the process is timed.
  double cliDel = 1e9, toolDel = 1e9;
  for (int i = 0; i < toolReps; ++i) {
    double t = bench::now();
    bench::spawn({cli, "conntrack", "-D", "-s", addr}, "/dev/null", "/dev/null");
    cliDel = std::min(cliDel, bench::now() - t);
    std::size_t left = 0;
    ct.forEach(ConntrackFilter().setSrc(src), [&](const ConntrackEntry&) { ++left; });
    if (left) std::printf("fastlink conntrack -D left %zu entries\n", left);
    createRange(ct, target, target + perSource, perSource);
  }
  for (int i = 0; i < toolReps; ++i) {
    double t = bench::now();
    bench::spawn({"conntrack", "-D", "-s", addr}, "/dev/null", "/dev/null");
    toolDel = std::min(toolDel, bench::now() - t);
    std::size_t left = 0;
    ct.forEach(ConntrackFilter().setSrc(src), [&](const ConntrackEntry&) { ++left; });
    if (left) std::printf("conntrack -D left %zu entries\n", left);
    createRange(ct, target, target + perSource, perSource);
  }
  std::printf("delete -s %s (%zu entries): fastlink conntrack -D %.4f s, conntrack -D %.4f s: conntrack/fastlink x%.1f\n",
              addr.c_str(), perSource, cliDel, toolDel, toolDel / cliDel);
  t0 = bench::now();
  ct.flush();
  std::printf("flush %zu entries: %.3f s\n", n, bench::now() - t0);
  std::fflush(stdout);
}

/// Creates and deletes entries in pipelined batches of `chunk` (one NEW and one DESTROY event
/// each), paced to `rate` events/s (0: as fast as it goes), for `seconds`, on a Netlink of its
/// own (one per thread; `base` keeps the threads' tuples apart). Returns the events generated
/// (successful creates + deletes).
std::size_t floodEvents(std::size_t base, std::size_t rate, double seconds, std::size_t maxEvents = SIZE_MAX) {
  const std::size_t chunk = 1000, perSource = 1000;
  Netlink nl;
  ConntrackApi& ct = nl.conntrack();
  std::size_t events = 0, round = 0;
  BatchOptions options;
  options.onError = OnError::Continue;
  double t0 = bench::now();
  while (bench::now() - t0 < seconds && events < maxEvents) {
    std::size_t from = base + (round++ % 16) * chunk, next = from;
    ct.run([&]() -> std::optional<Request> { return next < from + chunk ? std::optional(ConntrackRequests::create(entry(next++, perSource))) : std::nullopt; },
           options, [&](std::size_t, const RequestResult& r) { events += r.status == RequestStatus::Applied; });
    next = from;
    ct.run([&]() -> std::optional<Request> { return next < from + chunk ? std::optional(ConntrackRequests::del(entry(next++, perSource))) : std::nullopt; },
           options, [&](std::size_t, const RequestResult& r) { events += r.status == RequestStatus::Applied; });
    if (rate) {
      double due = t0 + static_cast<double>(events) / static_cast<double>(rate);
      double ahead = due - bench::now();
      if (ahead > 0) usleep(static_cast<useconds_t>(ahead * 1e6));
    }
  }
  return events;
}

void floodPart(ConntrackApi& ct, const std::string& cli, std::size_t rate, double seconds, const std::string& rcvbuf,
               std::size_t threads) {
  ct.flush();
  std::string out = "/tmp/conntrack-bench-events-" + std::to_string(getpid());
  pid_t pid = fork();
  if (pid == 0) {
    std::string cmd = "exec " + cli + " conntrack -E" + (rcvbuf.empty() ? "" : " -b " + rcvbuf) + " > /dev/null 2> " + out;
    execl("/bin/sh", "sh", "-c", cmd.c_str(), nullptr);
    _exit(127);
  }
  usleep(500000);  // -E subscribed
  std::vector<std::size_t> generated(threads);
  std::vector<std::thread> workers;
  double t0 = bench::now();
  for (std::size_t i = 0; i < threads; ++i)
    workers.emplace_back([&, i] { generated[i] = floodEvents(i * 100000, rate / threads, seconds); });
  for (auto& w : workers) w.join();
  double took = bench::now() - t0;
  std::size_t events = 0;
  for (std::size_t g : generated) events += g;
  usleep(1000000);  // -E drains its socket
  kill(pid, SIGTERM);
  waitpid(pid, nullptr, 0);
  std::ifstream f(out);
  std::string summary((std::istreambuf_iterator<char>(f)), {});
  std::remove(out.c_str());
  std::printf("events: %zu generated in %.3f s by %zu threads (%.0f events/s, paced to %zu/s%s); fastlink conntrack -E%s said:\n%s",
              events, took, threads, events / took, rate, rate ? "" : " = unpaced", rcvbuf.empty() ? "" : (" -b " + rcvbuf).c_str(),
              summary.c_str());
  std::fflush(stdout);
}

}  // namespace

/// How fast an event reader consumes: `argv` (fastlink or conntrack -E, stdout into a pipe this
/// program reads) is stopped (SIGSTOP) while `events` events queue in its socket, then let go;
/// the time until its last line arrives gives its rate. Its receive buffer (-b) must hold them all.
void drainPart(const std::vector<std::string>& argv, std::size_t events) {
  int fds[2];
  if (pipe(fds) != 0) return;
  std::string err = "/tmp/conntrack-bench-drain-" + std::to_string(getpid());
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(e, 2);
    close(fds[0]);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(fds[1]);
  std::atomic<std::size_t> lines{0};
  std::atomic<double> last{0};
  std::thread reader([&] {
    std::vector<char> buf(1 << 20);
    for (ssize_t n; (n = read(fds[0], buf.data(), buf.size())) > 0;) {
      lines += static_cast<std::size_t>(std::count(buf.data(), buf.data() + n, '\n'));
      last = bench::now();
    }
  });
  usleep(500000);  // subscribed
  kill(pid, SIGSTOP);
  std::size_t generated = floodEvents(0, 0, 600, events);
  usleep(200000);
  double t0 = bench::now();
  kill(pid, SIGCONT);
  // Done when every event has a line, or nothing came for 2 s.
  while (lines < generated && bench::now() - std::max(t0, last.load()) < 2) usleep(1000);
  double took = std::max(last.load(), t0) - t0;
  kill(pid, SIGINT);
  waitpid(pid, nullptr, 0);
  reader.join();
  close(fds[0]);
  std::ifstream f(err);
  std::string said((std::istreambuf_iterator<char>(f)), {});
  std::remove(err.c_str());
  std::string cmd;
  for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
  std::printf("drain: %s: %zu events queued, %zu lines printed in %.3f s (%.0f events/s); it said: %s", cmd.c_str(), generated,
              lines.load(), took, took > 0 ? lines / took : 0.0, said.c_str());
  std::fflush(stdout);
}

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--raw-dump") {
    std::size_t n = rawFilteredDump(IpAddress::parse(argv[2]));
    std::fprintf(stderr, "%zu messages\n", n);
    return 0;
  }
  std::size_t n = std::stoul(argc > 1 ? argv[1] : envOr("CT_BENCH_ENTRIES", "250000"));
  std::size_t perSource = std::stoul(argc > 2 ? argv[2] : envOr("CT_BENCH_PER_SOURCE", "100"));
  std::string cli = argc > 3 ? argv[3] : envOr("FASTLINK_CLI", "build/cli/fastlink");
  int toolReps = std::stoi(envOr("CT_BENCH_TOOL_REPS", "3"));
  std::string parts = envOr("CT_BENCH_PARTS", "table,flood");
  std::size_t rate = std::stoul(envOr("CT_BENCH_FLOOD_RATE", "100000"));
  double seconds = std::stod(envOr("CT_BENCH_FLOOD_SECONDS", "5"));
  std::string rcvbuf = envOr("CT_BENCH_FLOOD_RCVBUF", "");
  std::size_t threads = std::stoul(envOr("CT_BENCH_FLOOD_THREADS", "2"));
  bool vm = envOr("FASTLINK_VM", "") == "1";
  if (!vm && inInitialNetns()) {
    std::fprintf(stderr, "conntrack_bench: refusing to run in PID 1's network namespace (run it in scripts/sandbox, or in the VM: bench/conntrack/run)\n");
    return 2;
  }
  std::size_t max = readSysctl("/proc/sys/net/netfilter/nf_conntrack_max");
  if (vm && max && n + 2 * perSource > max) {
    // The VM's initial namespace is the VM's own: the global limit and the hash may grow there.
    std::size_t want = n + 4 * perSource + 65536;
    bool ok = writeSysctl("/proc/sys/net/netfilter/nf_conntrack_max", want);
    ok = writeSysctl("/proc/sys/net/netfilter/nf_conntrack_buckets", 262144) && ok;
    max = readSysctl("/proc/sys/net/netfilter/nf_conntrack_max");
    std::printf("VM: nf_conntrack_max %zu, nf_conntrack_buckets %zu%s\n", max,
                readSysctl("/proc/sys/net/netfilter/nf_conntrack_buckets"), ok ? "" : " (a write failed)");
  }
  if (max && n + perSource > max) {
    std::printf("nf_conntrack_max is %zu: %zu entries scaled down to %zu\n", max, n, max - perSource);
    n = max - perSource;
  }
  {
    std::ifstream uname("/proc/sys/kernel/osrelease");
    std::string release;
    uname >> release;
    std::printf("kernel %s%s, %zu entries, %zu per source\n", release.c_str(), vm ? " (the VM)" : "", n, perSource);
  }
  Netlink nl;
  ConntrackApi& ct = nl.conntrack();
  if (parts.find("table") != std::string::npos) tablePart(ct, n, perSource, cli, toolReps);
  if (parts.find("flood") != std::string::npos) floodPart(ct, cli, rate, seconds, rcvbuf, threads);
  if (parts.find("drain") != std::string::npos) {
    // 200,000 events of ~1 KiB kernel memory each: a 512 MiB buffer holds them.
    std::size_t events = std::stoul(envOr("CT_BENCH_DRAIN_EVENTS", "200000"));
    drainPart({cli, "conntrack", "-E", "-b", "536870912"}, events);
    drainPart({"conntrack", "-E", "-b", "536870912"}, events);
  }
  return 0;
}
