// The floor of a StateMirror's sync (issue 29): the dumps a mirror of links + routes makes (links
// without counters, IPv4 and IPv6 addresses, nexthop objects, routes of every table), read by a
// plain libmnl loop that visits every attribute of every message and keeps nothing. Two passes,
// like a mirror's start and its resync; each printed as
//   pass N wall_s cpu_s messages
// (cpu = this process's user + system time, so the kernel's work building the dump counts).
//   sync_floor [PASSES] [keep]   keep: each message is also copied into a block of its own,
//   kept until the end (the least a store of the objects costs: an allocation and a copy each)
#include <libmnl/libmnl.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>
#include <time.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "../bench_common.hpp"

namespace {


struct Walk {
  std::size_t familyHeader = 0;
  std::size_t messages = 0;
  uint64_t sum = 0;  // of attribute types and lengths: the walk is not optimised away
  std::vector<std::unique_ptr<uint8_t[]>>* kept = nullptr;
};

int onMessage(const nlmsghdr* m, void* data) {
  auto* w = static_cast<Walk*>(data);
  ++w->messages;
  auto* a = static_cast<const nlattr*>(mnl_nlmsg_get_payload_offset(m, w->familyHeader));
  const char* tail = reinterpret_cast<const char*>(mnl_nlmsg_get_payload_tail(m));
  for (; mnl_attr_ok(a, static_cast<int>(tail - reinterpret_cast<const char*>(a))); a = mnl_attr_next(a))
    w->sum += mnl_attr_get_type(a) + mnl_attr_get_payload_len(a);
  if (w->kept) {
    auto copy = std::make_unique_for_overwrite<uint8_t[]>(m->nlmsg_len);
    std::memcpy(copy.get(), m, m->nlmsg_len);
    w->kept->push_back(std::move(copy));
  }
  return MNL_CB_OK;
}

// One dump of `type` (family header `header` bytes, AF_UNSPEC), every message walked.
std::size_t dump(mnl_socket* nl, uint32_t port, std::vector<char>& rx, uint16_t type, std::size_t header, bool skipStats,
                 std::vector<std::unique_ptr<uint8_t[]>>* kept) {
  char buf[MNL_SOCKET_BUFFER_SIZE];
  nlmsghdr* h = mnl_nlmsg_put_header(buf);
  h->nlmsg_type = type;
  h->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  static uint32_t seq = static_cast<uint32_t>(time(nullptr));
  h->nlmsg_seq = ++seq;
  mnl_nlmsg_put_extra_header(h, header);
  if (skipStats) mnl_attr_put_u32(h, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
  if (mnl_socket_sendto(nl, h, h->nlmsg_len) < 0) throw std::runtime_error("sendto");
  Walk w;
  w.familyHeader = header;
  w.kept = kept;
  for (;;) {
    ssize_t r = mnl_socket_recvfrom(nl, rx.data(), rx.size());
    if (r < 0) throw std::runtime_error(std::string("recv: ") + std::strerror(errno));
    int rc = mnl_cb_run(rx.data(), static_cast<size_t>(r), h->nlmsg_seq, port, onMessage, &w);
    if (rc == MNL_CB_ERROR) throw std::runtime_error(std::string("dump: ") + std::strerror(errno));
    if (rc == MNL_CB_STOP) break;
  }
  if (w.sum == 1) std::fputs("", stdout);  // uses the sum
  return w.messages;
}

}  // namespace

int main(int argc, char** argv) try {
  int passes = argc > 1 ? std::atoi(argv[1]) : 2;
  bool keep = argc > 2 && std::strcmp(argv[2], "keep") == 0;
  std::vector<std::unique_ptr<uint8_t[]>> kept;
  mnl_socket* nl = mnl_socket_open(NETLINK_ROUTE);
  if (!nl) throw std::runtime_error("mnl_socket_open");
  int on = 1;
  mnl_socket_setsockopt(nl, NETLINK_GET_STRICT_CHK, &on, sizeof on);
  if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) throw std::runtime_error("mnl_socket_bind");
  uint32_t port = mnl_socket_get_portid(nl);
  std::vector<char> rx(64 * 1024);
  for (int pass = 1; pass <= passes; ++pass) {
    auto* store = keep ? &kept : nullptr;
    double t0 = bench::now(), c0 = bench::cpuSeconds();
    std::size_t n = dump(nl, port, rx, RTM_GETLINK, sizeof(ifinfomsg), true, store);
    n += dump(nl, port, rx, RTM_GETADDR, sizeof(ifaddrmsg), false, store);
    n += dump(nl, port, rx, RTM_GETNEXTHOP, sizeof(nhmsg), false, store);
    n += dump(nl, port, rx, RTM_GETROUTE, sizeof(rtmsg), false, store);
    std::printf("pass %d %.4f %.4f %zu\n", pass, bench::now() - t0, bench::cpuSeconds() - c0, n);
  }
  mnl_socket_close(nl);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "sync_floor: %s\n", e.what());
  return 1;
}
