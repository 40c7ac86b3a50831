// The receive path of a dump (issue 29 item 3): the same link or route dump read three ways, so
// what each costs is measured on the kernel that serves it, not argued:
//   peek   recvmsg(MSG_PEEK|MSG_TRUNC) for the datagram's size, then recvmsg into a 64 KiB
//          buffer (what fastlink's engine does, like iproute2's rtnl_recvmsg: a datagram larger
//          than the buffer stays queued for a bigger one instead of being cut)
//   plain  one recvmsg into the same buffer (a datagram larger than it would be lost)
//   mmsg   recvmmsg of up to 16 datagrams per call into 16 such buffers (MSG_WAITFORONE)
// Messages are only counted (no decode). Prints one JSON line per mode: wall and CPU seconds per
// dump (medians of REPEAT, round robin after one warm-up round), datagrams and system calls.
//   recv_sizing link|route REPEAT
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

constexpr std::size_t kBuffer = 64 * 1024;
constexpr unsigned kBatch = 16;
char gBuffers[kBatch][kBuffer];

// User + system CPU seconds of this process: on a shared, loaded machine the wall time of a
// dump is mostly waiting for a core, its CPU time is what the mode costs.
double cpu() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

double now() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

struct Count {
  unsigned long messages = 0, datagrams = 0, calls = 0;
  bool done = false;
};

// Counts the messages of one datagram; NLMSG_DONE (or an error) ends the dump.
void take(const char* data, std::size_t length, Count& c) {
  ++c.datagrams;
  auto* m = reinterpret_cast<const nlmsghdr*>(data);
  int remaining = static_cast<int>(length);
  for (; NLMSG_OK(m, remaining); m = NLMSG_NEXT(m, remaining)) {
    if (m->nlmsg_type == NLMSG_DONE || m->nlmsg_type == NLMSG_ERROR) c.done = true;
    else ++c.messages;
  }
}

int openSocket() {
  int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  if (fd < 0) throw std::runtime_error("socket");
  int on = 1;
  setsockopt(fd, SOL_NETLINK, NETLINK_GET_STRICT_CHK, &on, sizeof on);
  sockaddr_nl local{};
  local.nl_family = AF_NETLINK;
  if (bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local) < 0) throw std::runtime_error("bind");
  return fd;
}

void request(int fd, bool route) {
  struct {
    nlmsghdr h;
    union {
      ifinfomsg link;
      rtmsg rt;
    };
  } req{};
  req.h.nlmsg_len = NLMSG_LENGTH(route ? sizeof(rtmsg) : sizeof(ifinfomsg));
  req.h.nlmsg_type = route ? RTM_GETROUTE : RTM_GETLINK;
  req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  req.h.nlmsg_seq = 1;
  if (route) req.rt.rtm_family = AF_UNSPEC;
  else req.link.ifi_family = AF_UNSPEC;
  if (send(fd, &req, req.h.nlmsg_len, 0) < 0) throw std::runtime_error("send");
}

Count dumpPeek(int fd) {
  Count c;
  while (!c.done) {
    ssize_t size = recv(fd, nullptr, 0, MSG_PEEK | MSG_TRUNC);
    ++c.calls;
    if (size < 0 && errno == EINTR) continue;
    if (size < 0 || static_cast<std::size_t>(size) > kBuffer) throw std::runtime_error("peek");
    ssize_t n = recv(fd, gBuffers[0], kBuffer, 0);
    ++c.calls;
    if (n < 0) throw std::runtime_error("recv");
    take(gBuffers[0], static_cast<std::size_t>(n), c);
  }
  return c;
}

Count dumpPlain(int fd) {
  Count c;
  while (!c.done) {
    ssize_t n = recv(fd, gBuffers[0], kBuffer, 0);
    ++c.calls;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error("recv");
    take(gBuffers[0], static_cast<std::size_t>(n), c);
  }
  return c;
}

Count dumpMmsg(int fd) {
  Count c;
  iovec iov[kBatch];
  mmsghdr headers[kBatch];
  while (!c.done) {
    for (unsigned i = 0; i < kBatch; ++i) {
      iov[i] = {gBuffers[i], kBuffer};
      headers[i] = {};
      headers[i].msg_hdr.msg_iov = &iov[i];
      headers[i].msg_hdr.msg_iovlen = 1;
    }
    int n = recvmmsg(fd, headers, kBatch, MSG_WAITFORONE, nullptr);
    ++c.calls;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error("recvmmsg");
    for (int i = 0; i < n && !c.done; ++i) take(gBuffers[i], headers[i].msg_len, c);
  }
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: recv_sizing link|route REPEAT\n");
    return 2;
  }
  bool route = std::string(argv[1]) == "route";
  int repeat = std::atoi(argv[2]);
  struct Mode {
    const char* name;
    Count (*dump)(int);
    std::vector<double> seconds, cpuSeconds;
    Count last;
  } modes[] = {{"peek", dumpPeek, {}, {}, {}}, {"plain", dumpPlain, {}, {}, {}}, {"mmsg", dumpMmsg, {}, {}, {}}};
  int fd = openSocket();
  for (int r = 0; r <= repeat; ++r)
    for (Mode& m : modes) {  // round robin, so a load spike hits every mode alike
      double t0 = now(), c0 = cpu();
      request(fd, route);
      Count c = m.dump(fd);
      if (r > 0) {  // the first round warms up
        m.seconds.push_back(now() - t0);
        m.cpuSeconds.push_back(cpu() - c0);
      }
      m.last = c;
    }
  for (Mode& m : modes) {
    std::sort(m.seconds.begin(), m.seconds.end());
    std::sort(m.cpuSeconds.begin(), m.cpuSeconds.end());
    std::printf("{\"mode\":\"%s\",\"dump\":\"%s\",\"seconds\":%.4f,\"cpu_seconds\":%.4f,\"messages\":%lu,"
                "\"datagrams\":%lu,\"calls\":%lu}\n",
                m.name, argv[1], m.seconds[m.seconds.size() / 2], m.cpuSeconds[m.cpuSeconds.size() / 2], m.last.messages,
                m.last.datagrams, m.last.calls);
  }
  close(fd);
  return 0;
}
