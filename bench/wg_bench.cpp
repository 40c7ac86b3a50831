// WireGuard at scale: fastlink (library and `fastlink wg` processes) against wireguard-tools' `wg`.
//
//  1. `wg show` with many other netdevs (dummies) and 3 kernel WireGuard devices: wg dumps every
//     netdev and filters in user space, fastlink asks the kernel for `type wireguard` only.
//  2. 20,000 peers on one kernel device: `setconf` then `show DEV dump`, whole processes and the
//     library calls, with the peak RSS of each process.
//
// Needs root and the kernel wireguard + dummy modules (the project's VM: bench/wg/run). It never
// works in the namespace it was started in: it unshares a network namespace (and a mount
// namespace with a private /var/run/wireguard, so no userspace device of someone else shows up)
// and everything it creates dies with it. Correctness is checked with `wg` as the oracle; exit
// status 0 = every check passed (targets are reported, not enforced: times are noisy), 1 = a
// check failed, 2 = setup failed, 77 = no wireguard/dummy module.
#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fastlink/fastlink.hpp>
#include <fastlink/wireguard.hpp>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench_common.hpp"

extern char** environ;

namespace {

struct Options {
  std::size_t links = 10000;
  std::size_t peers = 20000;
  int reps = 5;
  int setReps = 3;
  std::string cli;  // fastlink binary
  std::string wg = "wg";
  std::string ip = "ip";
};

struct Proc {
  int status = -1;
  double seconds = 0;
  long maxRssKb = 0;
  std::string out;
  bool ok() const { return WIFEXITED(status) && WEXITSTATUS(status) == 0; }
};

[[noreturn]] void die(int code, const std::string& what) {
  std::fprintf(stderr, "wg_bench: %s\n", what.c_str());
  std::exit(code);
}

/// Runs argv as a whole process (stdin from `input` if given, stdout captured), timing it from
/// spawn to reap; its peak RSS comes from wait4's rusage.
Proc run(const std::vector<std::string>& argv, const std::string* input = nullptr) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int outPipe[2];
  if (pipe2(outPipe, O_CLOEXEC) != 0) die(2, "pipe failed");
  int inPipe[2] = {-1, -1};
  if (input && pipe2(inPipe, O_CLOEXEC) != 0) die(2, "pipe failed");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, outPipe[1], 1);
  if (input)
    posix_spawn_file_actions_adddup2(&fa, inPipe[0], 0);
  else
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  Proc p;
  double t0 = bench::now();
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(outPipe[1]);
  if (input) close(inPipe[0]);
  if (rc != 0) die(2, "cannot run " + argv[0] + ": " + std::strerror(rc));
  if (input) {
    // Small enough inputs only (ip -batch lines); a writer thread would be needed otherwise.
    std::size_t off = 0;
    while (off < input->size()) {
      ssize_t n = write(inPipe[1], input->data() + off, input->size() - off);
      if (n <= 0) break;
      off += static_cast<std::size_t>(n);
    }
    close(inPipe[1]);
  }
  std::array<char, 65536> buf;
  for (;;) {
    ssize_t n = read(outPipe[0], buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    p.out.append(buf.data(), static_cast<std::size_t>(n));
  }
  close(outPipe[0]);
  rusage ru{};
  while (wait4(pid, &p.status, 0, &ru) < 0 && errno == EINTR) {
  }
  p.seconds = bench::now() - t0;
  p.maxRssKb = ru.ru_maxrss;
  return p;
}

Proc mustRun(const std::vector<std::string>& argv, const std::string* input = nullptr) {
  Proc p = run(argv, input);
  if (!p.ok()) {
    std::string cmd;
    for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
    die(1, "failed (status " + std::to_string(p.status) + "): " + cmd);
  }
  return p;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Times argv `reps` times; returns the run with the median time (output and RSS of the last).
Proc timed(const std::vector<std::string>& argv, int reps, double* medianSeconds, double* minSeconds) {
  std::vector<double> t;
  Proc last;
  for (int i = 0; i < reps; ++i) {
    last = mustRun(argv);
    t.push_back(last.seconds);
  }
  *medianSeconds = median(t);
  *minSeconds = *std::min_element(t.begin(), t.end());
  return last;
}

/// Leaves the namespaces this was started in: a fresh network namespace, and a mount namespace
/// whose /var/run/wireguard is an empty private tmpfs (UAPI sockets are not per netns).
void isolate() {
  struct stat before{};
  if (stat("/proc/self/ns/net", &before) != 0) die(2, "cannot stat /proc/self/ns/net");
  if (unshare(CLONE_NEWNET | CLONE_NEWNS) != 0)
    die(2, std::string("unshare(CLONE_NEWNET|CLONE_NEWNS) failed (root needed): ") + std::strerror(errno));
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) die(2, "cannot make / private");
  mkdir("/run", 0755);
  mkdir("/run/wireguard", 0755);
  if (mount("tmpfs", "/run/wireguard", "tmpfs", 0, "mode=0700") != 0)
    die(2, std::string("cannot mount a tmpfs on /run/wireguard: ") + std::strerror(errno));
  struct stat after{}, init{};
  if (stat("/proc/self/ns/net", &after) != 0 || after.st_ino == before.st_ino)
    die(2, "still in the network namespace it was started in; refusing to run");
  // Never in the initial namespace (the one PID 1 sees), whatever the caller did.
  if (stat("/proc/1/ns/net", &init) == 0 && init.st_ino == after.st_ino)
    die(2, "in the initial network namespace; refusing to run");
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::string sortedWords(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> w;
  for (std::string x; in >> x;) w.push_back(x);
  std::sort(w.begin(), w.end());
  return join(w, " ");
}

std::vector<std::string> sortedLines(const std::string& text) {
  auto l = lines(text);
  std::sort(l.begin(), l.end());
  return l;
}

/// The "interface: NAME" blocks of `wg show` text, sorted.
std::vector<std::string> blocks(const std::string& text) {
  std::vector<std::string> out;
  for (const auto& l : lines(text)) {
    if (l.rfind("interface: ", 0) == 0 || out.empty()) out.emplace_back();
    if (!l.empty()) out.back() += l + "\n";  // blank lines separate blocks, wherever they sort
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// Peer lines of a `wg show DEV dump` (every line after the device's).
std::vector<std::string> peerLines(const std::string& dump) {
  auto l = lines(dump);
  if (!l.empty()) l.erase(l.begin());
  return l;
}

struct Row {
  std::string what;
  double fastlink;
  double peer;
  long fastlinkRss;
  long peerRss;
};

std::string ms(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f ms", s * 1e3);
  return b;
}

int checkFailures = 0;
void check(bool ok, const std::string& what) {
  std::printf("check: %-70s %s\n", what.c_str(), ok ? "ok" : "FAILED");
  if (!ok) ++checkFailures;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (const char* c = std::getenv("FASTLINK_CLI")) o.cli = c;
  // Defaults from the environment too: the VM runs binaries without arguments (tests/vm/run --env).
  if (const char* v = std::getenv("WG_BENCH_LINKS")) o.links = std::stoul(v);
  if (const char* v = std::getenv("WG_BENCH_PEERS")) o.peers = std::stoul(v);
  if (const char* v = std::getenv("WG_BENCH_REPS")) o.reps = std::stoi(v);
  if (const char* v = std::getenv("WG_BENCH_SET_REPS")) o.setReps = std::stoi(v);
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) die(2, a + " needs a value");
      return argv[++i];
    };
    if (a == "--links") o.links = std::stoul(value());
    else if (a == "--peers") o.peers = std::stoul(value());
    else if (a == "--reps") o.reps = std::stoi(value());
    else if (a == "--set-reps") o.setReps = std::stoi(value());
    else if (a == "--cli") o.cli = value();
    else if (a == "--wg") o.wg = value();
    else if (a == "--help") {
      std::puts("usage: wg_bench [--links N] [--peers N] [--reps R] [--set-reps R] [--cli FASTLINK] [--wg WG]\n"
                "(defaults also from $WG_BENCH_LINKS, $WG_BENCH_PEERS, $WG_BENCH_REPS, $WG_BENCH_SET_REPS)\n"
                "(root; FASTLINK defaults to $FASTLINK_CLI; run it in the VM through bench/wg/run)");
      return 0;
    } else die(2, "unknown argument " + a);
  }
  if (o.cli.empty()) die(2, "no fastlink CLI: pass --cli PATH or set FASTLINK_CLI");
  if (o.reps < 1) o.reps = 1;
  if (o.setReps < 1) o.setReps = 1;
  isolate();
  mustRun({o.ip, "link", "set", "lo", "up"});

  // ---- 1. wg show among many netdevs --------------------------------------------------------
  // One `ip -batch`: the 3 WireGuard devices sit among the dummies (not all at the end).
  std::string batch;
  const std::size_t wgAt[3] = {o.links / 4, o.links / 2, (3 * o.links) / 4};
  int w = 0;
  for (std::size_t i = 0; i < o.links; ++i) {
    if (w < 3 && i == wgAt[w]) batch += "link add wg" + std::to_string(w++) + " type wireguard\n";
    batch += "link add d" + std::to_string(i) + " type dummy\n";
  }
  while (w < 3) batch += "link add wg" + std::to_string(w++) + " type wireguard\n";
  Proc probe = run({o.ip, "link", "add", "probe0", "type", "wireguard"});
  if (!probe.ok()) {
    std::printf("SKIP: this kernel cannot create wireguard links (no module)\n");
    return 77;
  }
  mustRun({o.ip, "link", "del", "probe0"});
  Proc created = mustRun({o.ip, "-batch", "-"}, &batch);
  std::printf("setup: %zu dummies + 3 wireguard devices with one ip -batch in %.2f s\n", o.links,
              created.seconds);

  fastlink::Netlink nl;
  fastlink::WireGuardApi* api = &nl.wireguard();
  std::mt19937_64 rng(42);
  auto randomKey = [&] {
    std::array<uint8_t, 32> b;
    for (auto& x : b) x = static_cast<uint8_t>(rng());
    return fastlink::WgKey(std::span<const uint8_t, 32>(b));
  };
  for (int d = 0; d < 3; ++d) {
    fastlink::WgDevice dev("wg" + std::to_string(d));
    dev.setPrivateKey(fastlink::WgKey::generatePrivate()).setListenPort(static_cast<uint16_t>(51820 + d));
    for (int p = 0; p < 2; ++p) {
      fastlink::WgPeer peer(randomKey());
      peer.setEndpoint(fastlink::WgEndpoint::parse("192.0.2." + std::to_string(d * 2 + p + 1) + ":51820"));
      peer.addAllowedIp(fastlink::WgAllowedIp::parse("10." + std::to_string(d) + "." + std::to_string(p) + ".0/24"));
      dev.addPeer(peer);
    }
    api->set(dev);
  }

  // Correctness: the same 3 devices from both tools and the library; identical dumps.
  Proc wgIfs = mustRun({o.wg, "show", "interfaces"});
  Proc flIfs = mustRun({o.cli, "wg", "show", "interfaces"});
  std::vector<std::string> libIfs = api->list();
  // wg prints devices in the kernel's dump order (ifindex hash buckets); fastlink sorts them by
  // name. Compared as sets: words, lines of the dumps, "interface:" blocks of the text.
  check(sortedWords(wgIfs.out) == "wg0 wg1 wg2", "wg show interfaces lists wg0 wg1 wg2 (got: " + lines(wgIfs.out).at(0) + ")");
  check(flIfs.out == "wg0 wg1 wg2\n", "fastlink wg show interfaces lists wg0 wg1 wg2, sorted");
  check(join(libIfs, " ") == "wg0 wg1 wg2", "library list() == wg0 wg1 wg2");
  Proc wgAll = mustRun({o.wg, "show", "all", "dump"});
  Proc flAll = mustRun({o.cli, "wg", "show", "all", "dump"});
  check(lines(wgAll.out).size() == 9 && sortedLines(flAll.out) == sortedLines(wgAll.out),
        "fastlink wg show all dump == wg show all dump (same lines)");
  Proc wgShowOut = mustRun({o.wg, "show"});
  Proc flShowOut = mustRun({o.cli, "wg", "show"});
  check(blocks(flShowOut.out) == blocks(wgShowOut.out), "fastlink wg show == wg show (same device blocks)");

  std::vector<Row> rows;
  double wgMed, wgMin, flMed, flMin;
  Proc wgShow = timed({o.wg, "show"}, o.reps, &wgMed, &wgMin);
  Proc flShow = timed({o.cli, "wg", "show"}, o.reps, &flMed, &flMin);
  rows.push_back({"wg show (" + std::to_string(o.links) + " dummies + 3 wg), median", flMed, wgMed,
                  flShow.maxRssKb, wgShow.maxRssKb});
  rows.push_back({"  same, best of " + std::to_string(o.reps), flMin, wgMin, 0, 0});
  Proc wgIfsT = timed({o.wg, "show", "interfaces"}, o.reps, &wgMed, &wgMin);
  Proc flIfsT = timed({o.cli, "wg", "show", "interfaces"}, o.reps, &flMed, &flMin);
  rows.push_back({"wg show interfaces, median", flMed, wgMed, flIfsT.maxRssKb, wgIfsT.maxRssKb});
  // The floor: the library calls alone, in this process (Netlink already open).
  std::vector<double> lib;
  for (int r = 0; r < o.reps; ++r) {
    double t0 = bench::now();
    fastlink::WireGuardApi* a = &nl.wireguard();
    std::size_t n = 0;
    for (const auto& name : a->list()) n += a->get(name).peers.size();
    lib.push_back(bench::now() - t0);
    if (n != 6) check(false, "library get of the 3 devices finds 6 peers");
  }
  double libShow = median(lib);
  rows.push_back({"  library list() + get() x3, in-process, median", libShow, rows[0].peer, 0, 0});
  // What a process costs before any netlink work (exec, dynamic loading, static init): under
  // TCG this floor is large and bounds every whole-process ratio.
  Proc wgVer = timed({o.wg, "--version"}, o.reps, &wgMed, &wgMin);
  Proc flVer = timed({o.cli, "-V"}, o.reps, &flMed, &flMin);
  rows.push_back({"  process floor: fastlink -V / wg --version, median", flMed, wgMed, flVer.maxRssKb, wgVer.maxRssKb});
  const double flFloor = flMed, wgFloor = wgMed;
  const double showNet = (rows[0].peer - wgFloor) / std::max(rows[0].fastlink - flFloor, 1e-6);

  // ---- 2. many peers on one device ----------------------------------------------------------
  // The same configuration goes to three fresh devices: wgA by `wg setconf`, wgB by
  // `fastlink wg setconf`, wgC by the library; each is then read back and compared.
  std::string conf = "[Interface]\nPrivateKey = " + fastlink::WgKey::generatePrivate().toBase64() + "\n";
  for (std::size_t i = 0; i < o.peers; ++i) {
    conf += "\n[Peer]\nPublicKey = " + randomKey().toBase64() + "\nAllowedIPs = 10." +
            std::to_string(100 + (i >> 16)) + "." + std::to_string((i >> 8) & 255) + "." + std::to_string(i & 255) + "/32";
    if (i % 2) conf += ", fd00::" + std::to_string(i % 10000) + ":" + std::to_string(i / 10000) + "/128";
    if (i % 3 == 0)
      conf += "\nEndpoint = [2001:db8::" + std::to_string(i % 9999 + 1) + "]:" + std::to_string(1024 + i % 60000);
    else
      conf += "\nEndpoint = 198.51." + std::to_string((i >> 8) & 255) + "." + std::to_string(i & 255) + ":" +
              std::to_string(1024 + i % 60000);
    conf += "\n";
  }
  char confPath[] = "/tmp/wg_bench.XXXXXX";
  int fd = mkstemp(confPath);
  if (fd < 0) die(2, "mkstemp failed");
  if (write(fd, conf.data(), conf.size()) != static_cast<ssize_t>(conf.size())) die(2, "write failed");
  close(fd);
  std::string path = confPath;
  for (const char* d : {"wgA", "wgB", "wgC"}) mustRun({o.ip, "link", "add", d, "type", "wireguard"});

  // Alternated, so a change of load hits both alike; the first run fills an empty device, the
  // later ones replace its 20,000 peers (the same work for both tools).
  std::vector<double> wgSetT, flSetT, libSetT, libParseSetT;
  Proc wgSet, flSet;
  long rssBefore = bench::maxRssKb();
  for (int r = 0; r < o.setReps; ++r) {
    wgSet = mustRun({o.wg, "setconf", "wgA", path});
    flSet = mustRun({o.cli, "wg", "setconf", "wgB", path});
    double t0 = bench::now();
    fastlink::WgDevice change = fastlink::parseWgConfig(conf, "wgC");
    change.setReplacePeers();
    double tParsed = bench::now();
    api->set(change);
    double tSet = bench::now();
    wgSetT.push_back(wgSet.seconds);
    flSetT.push_back(flSet.seconds);
    libParseSetT.push_back(tSet - t0);
    libSetT.push_back(tSet - tParsed);
  }
  unlink(confPath);
  wgSet.seconds = median(wgSetT);
  flSet.seconds = median(flSetT);
  double tSetMedian = median(libSetT), tParseSetMedian = median(libParseSetT);
  rows.push_back({"setconf " + std::to_string(o.peers) + " peers (process), median of " + std::to_string(o.setReps),
                  flSet.seconds, wgSet.seconds, flSet.maxRssKb, wgSet.maxRssKb});
  rows.push_back({"  library parse + set, in-process, median", tParseSetMedian, wgSet.seconds, 0, 0});
  rows.push_back({"  library set alone, median", tSetMedian, wgSet.seconds, 0, 0});

  Proc wgDumpT = timed({o.wg, "show", "wgA", "dump"}, o.reps, &wgMed, &wgMin);
  Proc flDumpT = timed({o.cli, "wg", "show", "wgA", "dump"}, o.reps, &flMed, &flMin);
  rows.push_back({"show DEV dump, " + std::to_string(o.peers) + " peers, median", flMed, wgMed, flDumpT.maxRssKb,
                  wgDumpT.maxRssKb});
  lib.clear();
  std::size_t got = 0;
  for (int r = 0; r < o.reps; ++r) {
    double s = bench::now();
    got = api->get("wgA").peers.size();
    lib.push_back(bench::now() - s);
  }
  rows.push_back({"  library get(), in-process, median", median(lib), wgMed, 0, 0});
  long rssAfter = bench::maxRssKb();

  // Correctness: every reader agrees on every peer of every writer.
  std::vector<std::string> ref = peerLines(wgDumpT.out);
  check(ref.size() == o.peers, "wg show wgA dump has " + std::to_string(o.peers) + " peers (" +
                                   std::to_string(ref.size()) + ")");
  check(flDumpT.out == wgDumpT.out, "fastlink wg show wgA dump == wg show wgA dump (byte for byte)");
  check(got == o.peers, "library get(wgA) has " + std::to_string(o.peers) + " peers");
  Proc wgB = mustRun({o.wg, "show", "wgB", "dump"});
  Proc wgC = mustRun({o.wg, "show", "wgC", "dump"});
  check(peerLines(wgB.out) == ref, "peers set by fastlink wg setconf (wgB) == peers set by wg setconf (wgA)");
  check(peerLines(wgC.out) == ref, "peers set by the library (wgC) == peers set by wg setconf (wgA)");
  Proc flC = mustRun({o.cli, "wg", "show", "wgC", "dump"});
  check(flC.out == wgC.out, "fastlink wg show wgC dump == wg show wgC dump");

  // ---- table ----------------------------------------------------------------------------------
  std::printf("\n%-52s %12s %12s %8s %14s %10s\n", "", "fastlink", "wg", "wg/fl", "fastlink RSS", "wg RSS");
  for (const auto& r : rows) {
    std::string frss = r.fastlinkRss ? std::to_string(r.fastlinkRss / 1024) + " MiB" : "";
    std::string prss = r.peerRss ? std::to_string(r.peerRss / 1024) + " MiB" : "";
    std::printf("%-52s %12s %12s %7.1fx %14s %10s\n", r.what.c_str(), ms(r.fastlink).c_str(), ms(r.peer).c_str(),
                r.peer / r.fastlink, frss.c_str(), prss.c_str());
  }
  std::printf("config file: %zu bytes; dump output: %zu bytes; bench process peak RSS %ld MiB before the "
              "library setconf, %ld MiB after it and the gets (RSS in KiB: fastlink setconf %ld, show dump %ld)\n",
              conf.size(), wgDumpT.out.size(), rssBefore / 1024, rssAfter / 1024, flSet.maxRssKb, flDumpT.maxRssKb);
  double showRatio = rows[0].peer / rows[0].fastlink;
  std::printf("target wg show >= 30x: %s (%.1fx)\n", showRatio >= 30 ? "met" : "MISSED", showRatio);
  std::printf("target setconf not slower: %s (%.2fx)\n", flSet.seconds <= wgSet.seconds ? "met" : "MISSED",
              wgSet.seconds / flSet.seconds);
  const Row& dump = rows[rows.size() - 2];
  std::printf("target dump not slower: %s (%.2fx)\n", dump.fastlink <= dump.peer ? "met" : "MISSED",
              dump.peer / dump.fastlink);
  std::printf("wg show, each tool's process floor subtracted: %.1fx; library floor vs wg process: %.1fx; "
              "library vs wg with its process floor subtracted: %.1fx\n",
              showNet, rows[0].peer / libShow, (rows[0].peer - wgFloor) / libShow);
  std::printf("show DEV dump, each tool's process floor subtracted: %.2fx\n",
              (dump.peer - wgFloor) / std::max(dump.fastlink - flFloor, 1e-6));
  std::printf("wg_bench: %s\n", checkFailures ? "CHECKS FAILED" : "all checks passed");
  std::fflush(stdout);
  // The namespace (10,000 dummies, 60,000 peers) goes away with this process; the kernel tears
  // it down in the background.
  return checkFailures ? 1 : 0;
}
