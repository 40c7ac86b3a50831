// Test support: traffic with a known count between test namespaces, for the tests that assert
// where packets are dropped (tests/integration/tc_test.cpp, tests/cli/tc_cli_test.cpp), and the
// sender's own record of the drops the kernel told it about (/proc/net/snmp, Udp SndbufErrors).
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <linux/net_tstamp.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "support/test_netns.hpp"

namespace fastlink::test {

/// Moves `peerDev` (the veth peer of `dev` in `ns`) into `peer`: `dev` gets 10.9.0.1/24 and
/// `peerDev` 10.9.0.2/24, with permanent neighbours on both sides, so no ARP packet crosses the
/// link and no datagram waits in the neighbour layer during resolution: the qdiscs of `dev` see
/// the test's datagrams and nothing else.
inline void wireToPeer(const TestNetns& ns, const std::string& dev, const TestNetns& peer, const std::string& peerDev) {
  ns.ip("link set " + peerDev + " netns " + peer.name());
  peer.ip("link set " + peerDev + " up");
  peer.ip("addr add 10.9.0.2/24 dev " + peerDev);
  ns.ip("addr add 10.9.0.1/24 dev " + dev);
  std::string mac = ns.ipJson("link show dev " + dev)[0]["address"], peerMac = peer.ipJson("link show dev " + peerDev)[0]["address"];
  ns.ip("neigh replace 10.9.0.2 lladdr " + peerMac + " dev " + dev + " nud permanent");
  peer.ip("neigh replace 10.9.0.1 lladdr " + mac + " dev " + peerDev + " nud permanent");
}

/// Sends `count` UDP datagrams of `payload` bytes to `dst`:9 from inside namespace `ns` (a
/// thread joins it: setns moves only that thread), as fast as send() returns. Returns how many
/// send() accepted (a datagram a qdisc drops is still accepted: UDP counts it in SndbufErrors).
/// `departAhead` > 0: each datagram asks to leave that long after now (SO_TXTIME on
/// CLOCK_MONOTONIC, the clock fq reads), for fq's horizon.
inline uint64_t sendUdpBurst(const std::string& ns, const std::string& dst, uint64_t count, std::size_t payload = 18,
                             std::chrono::nanoseconds departAhead = {}) {
  uint64_t accepted = 0;
  std::string error;
  std::thread([&] {
    int nsFd = ::open(("/run/netns/" + ns).c_str(), O_RDONLY | O_CLOEXEC);
    if (nsFd < 0 || ::setns(nsFd, CLONE_NEWNET) != 0) {
      error = "cannot join namespace " + ns;
      if (nsFd >= 0) ::close(nsFd);
      return;
    }
    ::close(nsFd);
    // Not connected: the peer answers port 9 with ICMP port unreachable, which a connected
    // socket would report as ECONNREFUSED on a later send().
    int s = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0) {
      error = "cannot open a UDP socket in " + ns;
      return;
    }
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(9);
    ::inet_pton(AF_INET, dst.c_str(), &to.sin_addr);
    std::vector<char> data(payload, 'x');
    sock_txtime clock{CLOCK_MONOTONIC, 0};
    if (departAhead.count() > 0 && ::setsockopt(s, SOL_SOCKET, SO_TXTIME, &clock, sizeof clock) != 0) error = "SO_TXTIME refused";
    for (uint64_t i = 0; i < count && error.empty(); ++i) {
      iovec iov{data.data(), data.size()};
      msghdr m{};
      m.msg_name = &to;
      m.msg_namelen = sizeof to;
      m.msg_iov = &iov;
      m.msg_iovlen = 1;
      alignas(cmsghdr) char control[CMSG_SPACE(sizeof(uint64_t))] = {};
      if (departAhead.count() > 0) {
        timespec now{};
        ::clock_gettime(CLOCK_MONOTONIC, &now);
        uint64_t at = static_cast<uint64_t>(now.tv_sec) * 1000000000u + static_cast<uint64_t>(now.tv_nsec) + departAhead.count();
        m.msg_control = control;
        m.msg_controllen = sizeof control;
        cmsghdr* c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_TXTIME;
        c->cmsg_len = CMSG_LEN(sizeof at);
        std::memcpy(CMSG_DATA(c), &at, sizeof at);
      }
      if (::sendmsg(s, &m, 0) == static_cast<ssize_t>(data.size())) ++accepted;
    }
    ::close(s);
  }).join();
  if (!error.empty()) throw std::runtime_error(error);
  return accepted;
}

/// Udp SndbufErrors of namespace `ns` (/proc/net/snmp read inside it): the datagrams the first
/// stage after the socket refused, as UDP was told: a qdisc at enqueue, or without a qdisc
/// (noqueue) the driver; a driver's drop behind a qdisc reaches nobody.
inline uint64_t udpSndbufErrors(const TestNetns& ns) {
  auto r = ns.exec("cat /proc/net/snmp");
  std::istringstream in(r.out);
  std::string header, values;
  while (std::getline(in, header) && std::getline(in, values)) {
    if (header.rfind("Udp:", 0) != 0) continue;
    std::istringstream h(header), v(values);
    std::string name, value;
    while (h >> name && v >> value)
      if (name == "SndbufErrors") return std::stoull(value);
  }
  throw std::runtime_error("no Udp SndbufErrors in /proc/net/snmp:\n" + r.out);
}

}  // namespace fastlink::test
