// The floor: the same routes as route_bench, written straight with libmnl — one buffer of up
// to 1024 messages per sendmsg, only the last asks for an ACK (errors come regardless), replies
// read until that ACK. No library, no objects, no per-request allocation.
//   raw_routes install|replace|delete N TABLE [GW]     raw_routes dump TABLE
//   raw_routes read TABLE   the dump, reading each route's destination, prefix length, gateway,
//                           device, metric and table with a libmnl attribute walk (the floor of
//                           route_bench read; both print the same checksum)
//   raw_routes install-ack N TABLE [GW]: install with an ACK asked of every request (what a
//   pipelined client that reports each request's outcome needs; the "raw pipelined floor")
#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>
#include <sys/resource.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../bench_common.hpp"

namespace {

using bench::maxRssKb;
using bench::now;

constexpr std::size_t kWindow = 1024;

}  // namespace

/// Six fields of one route, as route_bench read sums them.
uint64_t readSix(const nlmsghdr* m) {
  const auto* rtm = static_cast<const rtmsg*>(mnl_nlmsg_get_payload(m));
  uint32_t dst = 0, gateway = 0, oif = 0, metric = 0, table = rtm->rtm_table;
  const auto* end = reinterpret_cast<const char*>(mnl_nlmsg_get_payload_tail(m));
  for (auto* a = static_cast<const nlattr*>(mnl_nlmsg_get_payload_offset(m, sizeof(rtmsg)));
       mnl_attr_ok(a, static_cast<int>(end - reinterpret_cast<const char*>(a))); a = mnl_attr_next(a)) {
    switch (mnl_attr_get_type(a)) {
      case RTA_DST: if (mnl_attr_get_payload_len(a) == 4) std::memcpy(&dst, mnl_attr_get_payload(a), 4); break;
      case RTA_GATEWAY: if (mnl_attr_get_payload_len(a) == 4) std::memcpy(&gateway, mnl_attr_get_payload(a), 4); break;
      case RTA_OIF: oif = mnl_attr_get_u32(a); break;
      case RTA_PRIORITY: metric = mnl_attr_get_u32(a); break;
      case RTA_TABLE: table = mnl_attr_get_u32(a); break;
    }
  }
  return uint64_t{dst} + gateway + oif + metric + table + rtm->rtm_dst_len;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fputs("usage: raw_routes install|replace|delete N TABLE [GW] | dump TABLE\n", stderr);
    return 2;
  }
  std::string mode = argv[1];
  mnl_socket* nl = mnl_socket_open(NETLINK_ROUTE);
  if (!nl) return perror("mnl_socket_open"), 1;
  int rcvbuf = 32 * 1024 * 1024, one = 1;
  setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof rcvbuf);
  mnl_socket_setsockopt(nl, NETLINK_EXT_ACK, &one, sizeof one);
  mnl_socket_setsockopt(nl, NETLINK_CAP_ACK, &one, sizeof one);
  mnl_socket_setsockopt(nl, NETLINK_GET_STRICT_CHK, &one, sizeof one);
  if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) return perror("bind"), 1;
  uint32_t portid = mnl_socket_get_portid(nl);
  std::vector<char> recvBuf(256 * 1024);
  uint32_t seq = static_cast<uint32_t>(time(nullptr));

  if (mode == "dump" || mode == "read") {
    bool read = mode == "read";
    uint64_t checksum = 0;
    uint32_t table = static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 10));
    char buf[256];
    double start = now();
    nlmsghdr* h = mnl_nlmsg_put_header(buf);
    h->nlmsg_type = RTM_GETROUTE;
    h->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    h->nlmsg_seq = ++seq;
    auto* rtm = static_cast<rtmsg*>(mnl_nlmsg_put_extra_header(h, sizeof(rtmsg)));
    rtm->rtm_family = AF_INET;
    mnl_attr_put_u32(h, RTA_TABLE, table);
    mnl_socket_sendto(nl, h, h->nlmsg_len);
    std::size_t count = 0;
    for (bool done = false; !done;) {
      ssize_t n = mnl_socket_recvfrom(nl, recvBuf.data(), recvBuf.size());
      if (n <= 0) return perror("recv"), 1;
      int len = static_cast<int>(n);
      for (auto* m = reinterpret_cast<nlmsghdr*>(recvBuf.data()); mnl_nlmsg_ok(m, len); m = mnl_nlmsg_next(m, &len)) {
        if (m->nlmsg_type == NLMSG_DONE || m->nlmsg_type == NLMSG_ERROR) done = true;
        else if (m->nlmsg_type == RTM_NEWROUTE) {
          ++count;
          if (read) checksum += readSix(m);
        }
      }
    }
    if (read) std::fprintf(stderr, "checksum %llu\n", static_cast<unsigned long long>(checksum));
    std::printf("{\"seconds\":%.6f,\"ops\":%zu,\"failed\":0,\"maxrss_kb\":%ld}\n", now() - start, count, maxRssKb());
    return 0;
  }

  if (argc < 4) return 2;
  std::size_t count = std::strtoull(argv[2], nullptr, 10);
  uint32_t table = static_cast<uint32_t>(std::strtoul(argv[3], nullptr, 10));
  in_addr gw{};
  inet_pton(AF_INET, argc > 4 ? argv[4] : "10.0.0.2", &gw);
  bool ackEach = mode == "install-ack";
  if (ackEach) mode = "install";
  bool del = mode == "delete";
  uint16_t flags = mode == "install" ? NLM_F_CREATE | NLM_F_EXCL : mode == "replace" ? NLM_F_CREATE | NLM_F_REPLACE : 0;
  std::vector<char> sendBuf(kWindow * 128);
  std::size_t failed = 0, next = 0;
  double start = now();
  while (next < count) {
    std::size_t used = 0, n = 0;
    uint32_t first = seq + 1;
    nlmsghdr* last = nullptr;
    while (next < count && n < kWindow) {
      nlmsghdr* h = mnl_nlmsg_put_header(sendBuf.data() + used);
      h->nlmsg_type = del ? RTM_DELROUTE : RTM_NEWROUTE;
      h->nlmsg_flags = NLM_F_REQUEST | flags | (ackEach ? NLM_F_ACK : 0);
      h->nlmsg_seq = ++seq;
      auto* rtm = static_cast<rtmsg*>(mnl_nlmsg_put_extra_header(h, sizeof(rtmsg)));
      rtm->rtm_family = AF_INET;
      rtm->rtm_dst_len = 24;
      rtm->rtm_table = table < 256 ? table : RT_TABLE_UNSPEC;
      rtm->rtm_protocol = del ? 0 : RTPROT_BOOT;
      rtm->rtm_scope = del ? RT_SCOPE_NOWHERE : RT_SCOPE_UNIVERSE;
      rtm->rtm_type = del ? 0 : RTN_UNICAST;
      uint32_t dst = htonl(0x14000000u + (static_cast<uint32_t>(next) << 8));
      mnl_attr_put(h, RTA_DST, 4, &dst);
      if (table >= 256) mnl_attr_put_u32(h, RTA_TABLE, table);
      if (!del) mnl_attr_put(h, RTA_GATEWAY, 4, &gw);
      used += h->nlmsg_len;
      last = h;
      ++n;
      ++next;
    }
    last->nlmsg_flags |= NLM_F_ACK;
    if (mnl_socket_sendto(nl, sendBuf.data(), used) < 0) return perror("send"), 1;
    for (bool closed = false; !closed;) {
      ssize_t r = mnl_socket_recvfrom(nl, recvBuf.data(), recvBuf.size());
      if (r <= 0) return perror("recv"), 1;
      int len = static_cast<int>(r);
      for (auto* m = reinterpret_cast<nlmsghdr*>(recvBuf.data()); mnl_nlmsg_ok(m, len); m = mnl_nlmsg_next(m, &len)) {
        if (m->nlmsg_pid != portid || m->nlmsg_type != NLMSG_ERROR) continue;
        auto* err = static_cast<nlmsgerr*>(mnl_nlmsg_get_payload(m));
        if (err->error) ++failed;
        if (m->nlmsg_seq == first + n - 1) closed = true;
      }
    }
  }
  std::printf("{\"seconds\":%.6f,\"ops\":%zu,\"failed\":%zu,\"maxrss_kb\":%ld}\n", now() - start, count, failed, maxRssKb());
  return 0;
}
