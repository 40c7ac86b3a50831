// Conntrack at scale (issue 33), in two parts (CT_BENCH_PARTS=table,flood; both by default):
// - table: N entries created with the library's pipelined batch, then the entries of one source
//   address listed and deleted, fastlink against a raw kernel-filtered dump (the floor) and
//   conntrack-tools;
// - flood: `fastlink conntrack -E` and conntrack-tools' `conntrack -E` listening in the same run
//   while this program creates entries in pipelined batches and destroys them (a flush, or
//   batches of deletes) at a paced rate (CT_BENCH_FLOOD_RATE events/s, CT_BENCH_FLOOD_SECONDS);
//   the events counted by the kernel (2 x its inserts, /proc/net/stat/nf_conntrack) against what
//   each listener showed and the messages the kernel dropped for it (/proc/net/netlink "Drops").
// - burst: the same listeners while CT_BENCH_BURST_ENTRIES (100,000) entries are created, then
//   destroyed by one flush request.
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
// CT_BENCH_FLOOD_RCVBUF (bytes, -b of both listeners; default: each one's own),
// CT_BENCH_FLOOD_DESTROY (flush | delete, default flush), CT_BENCH_FLOOD_TOOLS (1: conntrack -E
// listens too, the default; 0: fastlink alone), CT_BENCH_BURST_ENTRIES.
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <signal.h>
#include <sys/socket.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <set>
#include <sstream>
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

/// One flood generator: creates `chunk` entries in one pipelined batch and destroys them (one NEW
/// and one DESTROY event each), paced to `rate` events/s (0: as fast as it goes), for `seconds`,
/// on a Netlink of its own (one per thread; `base` keeps the threads' tuples apart). The entries
/// are built once, so the loop costs only the requests. `flush`: destroy by one flush request
/// (every thread's entries: the cheapest DESTROY the kernel has) instead of a batch of deletes.
/// Returns the entries created (the events are counted by the kernel: floodPart).
std::size_t floodEvents(std::size_t base, std::size_t rate, double seconds, bool flush, std::size_t maxEvents = SIZE_MAX) {
  const std::size_t chunk = 1000, perSource = 1000;
  std::vector<ConntrackEntry> entries;
  for (std::size_t i = 0; i < 16 * chunk; ++i) entries.push_back(entry(base + i, perSource));
  Netlink nl;
  ConntrackApi& ct = nl.conntrack();
  std::size_t created = 0, round = 0;
  BatchOptions options;
  options.onError = OnError::Continue;
  auto batch = [&](std::size_t from, bool create) {
    std::size_t next = from;
    ct.run([&]() -> std::optional<Request> {
             if (next == from + chunk) return std::nullopt;
             const ConntrackEntry& e = entries[next++];
             return create ? ConntrackRequests::create(e) : ConntrackRequests::del(e);
           },
           options, [&](std::size_t, const RequestResult& r) { created += create && r.status == RequestStatus::Applied; });
  };
  double t0 = bench::now();
  while (bench::now() - t0 < seconds && 2 * created < maxEvents) {
    std::size_t from = (round++ % 16) * chunk;
    batch(from, true);
    if (flush) ct.flush();
    else batch(from, false);
    if (rate) {
      double due = t0 + static_cast<double>(2 * created) / static_cast<double>(rate);
      double ahead = due - bench::now();
      if (ahead > 0) usleep(static_cast<useconds_t>(ahead * 1e6));
    }
  }
  rusage use{};
  getrusage(RUSAGE_THREAD, &use);
  double cpu = static_cast<double>(use.ru_utime.tv_sec + use.ru_stime.tv_sec) + (use.ru_utime.tv_usec + use.ru_stime.tv_usec) / 1e6;
  // Where the rest of the wall time went: waiting for a CPU (the scheduler's run-queue time,
  // /proc/thread-self/schedstat's second field) or blocked (in the kernel: a lock, a reply).
  double onCpu = 0, waitedForCpu = 0;
  if (std::ifstream stat("/proc/thread-self/schedstat"); stat) {
    unsigned long long runNs = 0, waitNs = 0;
    stat >> runNs >> waitNs;
    onCpu = static_cast<double>(runNs) / 1e9;
    waitedForCpu = static_cast<double>(waitNs) / 1e9;
  }
  std::printf("  generator %zu: %zu events in %.2f s of its own CPU (%.0f events per CPU second); %.2f s waiting for a CPU, "
              "%.2f s blocked, of %.2f s\n",
              base / 100000, 2 * created, cpu, cpu > 0 ? 2.0 * static_cast<double>(created) / cpu : 0.0, waitedForCpu,
              std::max(0.0, bench::now() - t0 - onCpu - waitedForCpu), bench::now() - t0);
  return created;
}

/// The kernel's own count of conntrack insertions in this namespace (/proc/net/stat/nf_conntrack:
/// one line per CPU, hexadecimal, column "insert"). Every entry a generator creates is inserted
/// once and destroyed once, so with the table empty before and after, events = 2 x inserts.
std::size_t kernelInserts() {
  std::ifstream f("/proc/net/stat/nf_conntrack");
  std::string header;
  std::getline(f, header);
  std::istringstream names(header);
  std::size_t column = 0, at = SIZE_MAX;
  for (std::string name; names >> name; ++column)
    if (name == "insert") at = column;
  std::size_t sum = 0;
  for (std::string line; std::getline(f, line);) {
    std::istringstream cells(line);
    std::string cell;
    for (std::size_t i = 0; i <= at && cells >> cell; ++i)
      if (i == at) sum += std::stoul(cell, nullptr, 16);
  }
  return sum;
}

/// What the kernel says of a process's NETLINK_NETFILTER sockets that joined groups
/// (/proc/net/netlink, matched by socket inode): bytes queued and messages dropped on overflow.
struct ListenerSocket {
  bool found = false;
  std::size_t queued = 0, drops = 0;
};

ListenerSocket listenerSocket(pid_t pid) {
  std::set<std::string> inodes;
  std::string dir = "/proc/" + std::to_string(pid) + "/fd";
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      char target[64];
      ssize_t n = readlink((dir + "/" + e->d_name).c_str(), target, sizeof target - 1);
      if (n > 9 && std::strncmp(target, "socket:[", 8) == 0) inodes.insert(std::string(target + 8, static_cast<std::size_t>(n) - 9));
    }
    closedir(d);
  }
  ListenerSocket s;
  std::ifstream f("/proc/net/netlink");
  std::string line;
  std::getline(f, line);  // sk Eth Pid Groups Rmem Wmem Dump Locks Drops Inode
  while (std::getline(f, line)) {
    std::istringstream c(line);
    std::string sk, groups, inode;
    int eth = 0;
    std::size_t portid = 0, rmem = 0, wmem = 0, dump = 0, locks = 0, drops = 0;
    c >> sk >> eth >> portid >> groups >> rmem >> wmem >> dump >> locks >> drops >> inode;
    if (eth != NETLINK_NETFILTER || groups.find_first_not_of('0') == std::string::npos || !inodes.count(inode)) continue;
    s.found = true;
    s.queued += rmem;
    s.drops += drops;
  }
  return s;
}

/// A listener of the flood: `fastlink conntrack -E` or conntrack-tools' `conntrack -E`, stdout to
/// /dev/null, stderr (where both print their count when stopped) into a file.
struct Listener {
  explicit Listener(std::string c) : command(std::move(c)) {}
  std::string command;
  pid_t pid = -1;
  std::string errFile;
  std::size_t drops = 0;
  double cpu = 0;  // user + system seconds, from wait4
  std::string said;
};

void startListener(Listener& l) {
  static int started = 0;
  l.errFile = "/tmp/conntrack-bench-listener-" + std::to_string(getpid()) + "-" + std::to_string(started++);
  l.pid = fork();
  if (l.pid == 0) {
    std::string cmd = "exec " + l.command + " > /dev/null 2> " + l.errFile;
    execl("/bin/sh", "sh", "-c", cmd.c_str(), nullptr);
    _exit(127);
  }
}

/// Stops a listener once the kernel holds nothing more for it (its queue drained, or 30 s), and
/// collects the kernel's drop count and what the listener said.
void stopListener(Listener& l) {
  double t0 = bench::now();
  int idle = 0;
  while (bench::now() - t0 < 30 && idle < 3) {
    idle = listenerSocket(l.pid).queued == 0 ? idle + 1 : 0;
    usleep(100000);
  }
  l.drops = listenerSocket(l.pid).drops;
  kill(l.pid, SIGTERM);
  rusage use{};
  wait4(l.pid, nullptr, 0, &use);
  l.cpu = static_cast<double>(use.ru_utime.tv_sec + use.ru_stime.tv_sec) + (use.ru_utime.tv_usec + use.ru_stime.tv_usec) / 1e6;
  std::ifstream f(l.errFile);
  l.said.assign(std::istreambuf_iterator<char>(f), {});
  std::remove(l.errFile.c_str());
}

/// The flood: the generators beside `fastlink conntrack -E` and conntrack-tools' `conntrack -E`
/// (both listening in the same run, with the same receive buffer when `rcvbuf` is given), the
/// events counted by the kernel (its inserts) against what each listener showed, and the kernel's
/// count of messages it dropped for each (netlink overflow, /proc/net/netlink "Drops").
/// Runs `generate` (which prints what it did) while `fastlink conntrack -E` and, with
/// `withTools`, conntrack-tools' `conntrack -E` listen (same receive buffer when `rcvbuf` is
/// given); then the events counted by the kernel (2 x its inserts: every entry is destroyed by
/// the end) against what each listener showed, and the kernel's count of messages it dropped for
/// each (netlink overflow, /proc/net/netlink "Drops").
void withListeners(ConntrackApi& ct, const std::string& cli, const std::string& rcvbuf, bool withTools,
                   const std::function<void()>& generate) {
  ct.flush();
  std::string b = rcvbuf.empty() ? "" : " -b " + rcvbuf;
  std::vector<Listener> listeners{Listener(cli + " conntrack -E" + b)};
  if (withTools) listeners.emplace_back("conntrack -E" + b);
  for (Listener& l : listeners) startListener(l);
  // Every listener subscribed: its netfilter socket joined its groups (polled, 20 s at most).
  for (double t0 = bench::now(); bench::now() - t0 < 20;) {
    if (std::all_of(listeners.begin(), listeners.end(), [](const Listener& l) { return listenerSocket(l.pid).found; })) break;
    usleep(10000);
  }
  std::size_t inserts0 = kernelInserts();
  generate();
  ct.flush();  // nothing left: every entry inserted was destroyed
  std::size_t inserts = kernelInserts() - inserts0;
  for (Listener& l : listeners) stopListener(l);
  std::printf("  events by the kernel's count: %zu (2 x %zu inserts)\n", 2 * inserts, inserts);
  for (const Listener& l : listeners) {
    // Its last line (the count), and how many lines warned of lost events (conntrack-tools
    // repeats a three-line warning at every ENOBUFS).
    std::istringstream in(l.said);
    std::string line, last;
    std::size_t warnings = 0;
    while (std::getline(in, line))
      if (!line.empty()) {
        warnings += line.find("WARNING") != std::string::npos;
        last = line;
      }
    std::printf("  %s: the kernel dropped %zu messages for it; %zu warnings of lost events on stderr; %.2f s CPU (%.0f events "
                "per CPU second); its last line: %s\n",
                l.command.c_str(), l.drops, warnings, l.cpu, l.cpu > 0 ? static_cast<double>(2 * inserts - l.drops) / l.cpu : 0.0, last.c_str());
  }
  std::fflush(stdout);
}

/// The steady flood: `threads` generators (floodEvents) for `seconds`.
void floodPart(ConntrackApi& ct, const std::string& cli, std::size_t rate, double seconds, const std::string& rcvbuf,
               std::size_t threads, bool flush, bool withTools) {
  withListeners(ct, cli, rcvbuf, withTools, [&] {
    std::vector<std::size_t> created(threads);
    std::vector<std::thread> workers;
    double t0 = bench::now();
    for (std::size_t i = 0; i < threads; ++i)
      workers.emplace_back([&, i] { created[i] = floodEvents(i * 100000, rate / threads, seconds, flush); });
    for (auto& w : workers) w.join();
    double took = bench::now() - t0;
    std::size_t mine = 0;
    for (std::size_t c : created) mine += c;
    std::printf("flood: %zu entries created and destroyed (%s) in %.3f s by %zu threads: %.0f events/s (paced to %zu/s%s)\n", mine,
                flush ? "flush" : "delete batches", took, threads, 2 * mine / took, rate, rate ? "" : " = unpaced");
  });
}

/// The burst: `n` entries created (their NEW events at the batch's pace), the listeners' queues
/// let drain, then one flush request: n DESTROY events from one system call, far faster than any
/// steady generator here reaches.
void burstPart(ConntrackApi& ct, const std::string& cli, std::size_t n, const std::string& rcvbuf, bool withTools) {
  withListeners(ct, cli, rcvbuf, withTools, [&] {
    double t0 = bench::now();
    std::size_t failed = createRange(ct, 0, n, 1000);
    double created = bench::now() - t0;
    usleep(2000000);  // the NEW events drained (the listeners' counts show it if not)
    t0 = bench::now();
    ct.flush();
    double flushed = bench::now() - t0;
    std::printf("burst: %zu entries created in %.3f s (%.0f NEW events/s, %zu failed), then flushed in %.3f s: %.0f DESTROY events/s\n",
                n - failed, created, (n - failed) / created, failed, flushed, (n - failed) / flushed);
  });
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
  std::size_t generated = 2 * floodEvents(0, 0, 600, false, events);
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
  if (parts.find("flood") != std::string::npos)
    floodPart(ct, cli, rate, seconds, rcvbuf, threads, envOr("CT_BENCH_FLOOD_DESTROY", "flush") == "flush",
              envOr("CT_BENCH_FLOOD_TOOLS", "1") == "1");
  if (parts.find("burst") != std::string::npos)
    burstPart(ct, cli, std::stoul(envOr("CT_BENCH_BURST_ENTRIES", "100000")), rcvbuf, envOr("CT_BENCH_FLOOD_TOOLS", "1") == "1");
  if (parts.find("drain") != std::string::npos) {
    // 200,000 events of ~1 KiB kernel memory each: a 512 MiB buffer holds them.
    std::size_t events = std::stoul(envOr("CT_BENCH_DRAIN_EVENTS", "200000"));
    drainPart({cli, "conntrack", "-E", "-b", "536870912"}, events);
    drainPart({"conntrack", "-E", "-b", "536870912"}, events);
  }
  return 0;
}
