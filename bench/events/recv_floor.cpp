// The receive floor of a route monitor: a socket joined to the IPv4 and IPv6 route groups, read
// with a blocking recvmmsg (MSG_WAITFORONE, 64 datagrams per call), counting the route messages
// and nothing else (no decode, no output). What is left is the kernel's cost of handing the
// notifications over plus the unavoidable system calls and wake-ups; bench/events/run measures
// the monitors against it in the same run.
//
//   recv_floor RCVBUF [COUNT]   writes "done" on stdout once COUNT route messages have come (and
//                               reads on); runs until SIGTERM, then prints the count on stderr
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

constexpr unsigned kBatch = 64;
constexpr std::size_t kSlot = 64 * 1024;

// Static: pages are touched only when a datagram lands in them.
char gSlots[kBatch][kSlot];
volatile std::sig_atomic_t gStop = 0;

void onTerm(int) { gStop = 1; }

unsigned long countRoutes(const char* data, unsigned length) {
  unsigned long n = 0;
  auto* m = reinterpret_cast<const nlmsghdr*>(data);
  int remaining = static_cast<int>(length);
  for (; NLMSG_OK(m, remaining); m = NLMSG_NEXT(m, remaining))
    if (m->nlmsg_type == RTM_NEWROUTE || m->nlmsg_type == RTM_DELROUTE) ++n;
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: recv_floor RCVBUF [COUNT]\n");
    return 2;
  }
  int rcvbuf = std::atoi(argv[1]);
  unsigned long want = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 0;
  struct sigaction sa {};
  sa.sa_handler = onTerm;  // no SA_RESTART: the blocking recvmmsg returns EINTR
  sigaction(SIGTERM, &sa, nullptr);

  int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  if (fd < 0) return perror("socket"), 1;
  if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof rcvbuf) < 0 &&
      setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf) < 0)
    return perror("SO_RCVBUF"), 1;
  sockaddr_nl local{};
  local.nl_family = AF_NETLINK;
  if (bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local) < 0) return perror("bind"), 1;
  for (int group : {RTNLGRP_IPV4_ROUTE, RTNLGRP_IPV6_ROUTE})
    if (setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &group, sizeof group) < 0)
      return perror("NETLINK_ADD_MEMBERSHIP"), 1;

  std::array<mmsghdr, kBatch> headers{};
  std::array<iovec, kBatch> iov{};
  std::array<sockaddr_nl, kBatch> senders{};
  unsigned long count = 0, overflows = 0;
  bool told = false;
  while (!gStop) {
    for (unsigned i = 0; i < kBatch; ++i) {
      iov[i] = iovec{gSlots[i], kSlot};
      headers[i].msg_hdr.msg_name = &senders[i];
      headers[i].msg_hdr.msg_namelen = sizeof senders[i];
      headers[i].msg_hdr.msg_iov = &iov[i];
      headers[i].msg_hdr.msg_iovlen = 1;
    }
    int n = recvmmsg(fd, headers.data(), kBatch, MSG_WAITFORONE, nullptr);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == ENOBUFS) {
        ++overflows;
        continue;
      }
      return perror("recvmmsg"), 1;
    }
    for (int i = 0; i < n; ++i)
      if (senders[i].nl_pid == 0) count += countRoutes(gSlots[i], headers[i].msg_len);
    if (want && !told && count >= want) {
      // Stays alive: the bench reads its CPU time from /proc after this line, like the monitors'.
      told = write(STDOUT_FILENO, "done\n", 5) == 5;
    }
  }
  std::fprintf(stderr, "%lu %lu\n", count, overflows);
  return 0;
}
