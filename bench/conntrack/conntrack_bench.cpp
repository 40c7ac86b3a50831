// Conntrack at scale (issue 33): N entries created with the library's pipelined batch, then the
// entries of one source address listed and deleted, fastlink against a raw kernel-filtered dump
// and conntrack-tools; and `fastlink conntrack -E` under an event flood.
// Run as root inside scripts/sandbox (entries live in the sandbox's own namespace):
//   scripts/sandbox build/bench/conntrack_bench [ENTRIES] [PER_SOURCE] [FASTLINK_CLI]
#include <arpa/inet.h>
#include <linux/netlink.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

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

ConntrackEntry entry(std::size_t i, std::size_t perSource, uint32_t timeout = 600) {
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

}  // namespace

int main(int argc, char** argv) {
  std::size_t n = argc > 1 ? std::stoul(argv[1]) : 250000;
  std::size_t perSource = argc > 2 ? std::stoul(argv[2]) : 100;
  std::string cli = argc > 3 ? argv[3] : "build/cli/fastlink";
  std::size_t max = 0;
  std::ifstream("/proc/sys/net/netfilter/nf_conntrack_max") >> max;
  if (max && n > max) {
    std::cout << "nf_conntrack_max is " << max << ": " << n << " entries scaled down to " << max - perSource << "\n";
    n = max - perSource;
  }
  Netlink nl;
  ConntrackApi& ct = nl.conntrack();
  ct.flush();
  double t0 = bench::now();
  std::size_t failed = createRange(ct, 0, n, perSource);
  double create = bench::now() - t0;
  std::printf("create %zu entries (library batch): %.3f s, %.0f/s, %zu failed\n", n, create, n / create, failed);

  // The entries of one source in the middle of the table.
  std::size_t target = (n / perSource / 2) * perSource;
  IpAddress src = sourceOf(target, perSource);
  std::string addr = src.toString();
  std::size_t got = 0, raw = 0;
  double lib = best(5, [&] {
    got = 0;
    ct.forEach(ConntrackFilter().setSrc(src), [&](const ConntrackEntry&) { ++got; });
  });
  double floor = best(5, [&] { raw = rawFilteredDump(src); });
  double cliList = best(3, [&] { bench::spawn({cli, "conntrack", "-L", "-s", addr}, "/dev/null", "/dev/null"); });
  double toolList = best(3, [&] { bench::spawn({"conntrack", "-L", "-s", addr}, "/dev/null", "/dev/null"); });
  std::printf("list -s %s (%zu entries, raw %zu): library %.4f s, raw filtered dump %.4f s (x%.2f); "
              "fastlink conntrack -L %.4f s, conntrack -L %.4f s (conntrack/fastlink x%.1f)\n",
              addr.c_str(), got, raw, lib, floor, lib / floor, cliList, toolList, toolList / cliList);

  // Delete the source's entries: fastlink, re-create, conntrack.
  double cliDel = best(3, [&] {
    bench::spawn({cli, "conntrack", "-D", "-s", addr}, "/dev/null", "/dev/null");
    createRange(ct, target, target + perSource, perSource);
  });
  double toolDel = best(3, [&] {
    bench::spawn({"conntrack", "-D", "-s", addr}, "/dev/null", "/dev/null");
    createRange(ct, target, target + perSource, perSource);
  });
  // The re-creation is in both timings; take it out.
  double recreate = best(3, [&] {
    for (std::size_t i = target; i < target + perSource; ++i) ct.del(entry(i, perSource));
    createRange(ct, target, target + perSource, perSource);
  });
  (void)recreate;
  std::printf("delete -s %s (%zu entries): fastlink conntrack -D %.4f s, conntrack -D %.4f s (x%.1f, both incl. re-create)\n",
              addr.c_str(), perSource, cliDel, toolDel, toolDel / cliDel);
  ct.flush();

  // -E under a flood: create and destroy `flood` entries as fast as the batch goes (2 events each).
  std::size_t flood = std::min<std::size_t>(50000, max ? max / 2 : 50000);
  std::string out = "/tmp/conntrack-bench-events-" + std::to_string(getpid());
  pid_t pid = fork();
  if (pid == 0) {
    std::string cmd = "exec " + cli + " conntrack -E > /dev/null 2> " + out;
    execl("/bin/sh", "sh", "-c", cmd.c_str(), nullptr);
    _exit(127);
  }
  usleep(300000);
  t0 = bench::now();
  createRange(ct, 0, flood, perSource);
  ct.flush();
  double floodTime = bench::now() - t0;
  usleep(500000);
  kill(pid, SIGTERM);
  waitpid(pid, nullptr, 0);
  std::ifstream f(out);
  std::string summary((std::istreambuf_iterator<char>(f)), {});
  std::remove(out.c_str());
  std::printf("events: %zu generated in %.3f s (%.0f events/s); fastlink conntrack -E said: %s", 2 * flood, floodTime,
              2 * flood / floodTime, summary.c_str());
  return 0;
}
