// The floor of a StateMirror's sync (issue 29): the dumps a mirror of links + routes makes (links
// without counters, IPv4 and IPv6 addresses, nexthop objects, routes of every table), read by a
// plain libmnl loop that visits every attribute of every message and keeps nothing. Two passes,
// like a mirror's start and its resync; each printed as
//   pass N wall_s cpu_s messages peak_rss_kib
// (cpu = this process's user + system time, so the kernel's work building the dump counts).
//   sync_floor [PASSES] [keep|buffers]
//     keep: each message is also copied into a block of its own, kept until the end (a store
//       that copies: an allocation and a copy each)
//     buffers: nothing copied: every datagram is received into fresh memory (1 MiB chunks,
//       faulted in by mmap like the mirror's arena) that is kept, and an index of 8 bytes per
//       message points into it (the least any store of the objects costs: the memory the
//       messages arrive in, and one pointer each)
#include <libmnl/libmnl.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>
#include <sys/mman.h>
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


// Receive memory that is never reused: the `buffers` store.
struct Buffers {
  static constexpr std::size_t kChunk = std::size_t{1} << 20;
  static constexpr std::size_t kDatagram = 32768;  // the kernel's largest dump datagram
  std::vector<std::pair<char*, std::size_t>> chunks;
  char* next = nullptr;
  std::size_t left = 0;
  std::vector<const nlmsghdr*> index;
  // Room for the next datagram.
  std::pair<char*, std::size_t> room() {
    if (left < kDatagram) {
      void* p = ::mmap(nullptr, kChunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
      if (p == MAP_FAILED) throw std::runtime_error("mmap");
      chunks.emplace_back(static_cast<char*>(p), kChunk);
      next = static_cast<char*>(p);
      left = kChunk;
    }
    return {next, left};
  }
  void used(std::size_t n) {
    n = (n + 7) & ~std::size_t{7};
    next += n;
    left -= n;
  }
};

struct Walk {
  std::size_t familyHeader = 0;
  std::size_t messages = 0;
  uint64_t sum = 0;  // of attribute types and lengths: the walk is not optimised away
  std::vector<std::unique_ptr<uint8_t[]>>* kept = nullptr;
  Buffers* buffers = nullptr;
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
  if (w->buffers) w->buffers->index.push_back(m);
  return MNL_CB_OK;
}

// One dump of `type` (family header `header` bytes, AF_UNSPEC), every message walked.
std::size_t dump(mnl_socket* nl, uint32_t port, std::vector<char>& rx, uint16_t type, std::size_t header, bool skipStats,
                 std::vector<std::unique_ptr<uint8_t[]>>* kept, Buffers* buffers) {
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
  w.buffers = buffers;
  for (;;) {
    auto [at, size] = buffers ? buffers->room() : std::pair<char*, std::size_t>(rx.data(), rx.size());
    ssize_t r = mnl_socket_recvfrom(nl, at, size);
    if (r < 0) throw std::runtime_error(std::string("recv: ") + std::strerror(errno));
    if (buffers) buffers->used(static_cast<std::size_t>(r));
    int rc = mnl_cb_run(at, static_cast<size_t>(r), h->nlmsg_seq, port, onMessage, &w);
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
  bool buffers = argc > 2 && std::strcmp(argv[2], "buffers") == 0;
  Buffers received;
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
    auto* into = buffers ? &received : nullptr;
    double t0 = bench::now(), c0 = bench::cpuSeconds();
    std::size_t n = dump(nl, port, rx, RTM_GETLINK, sizeof(ifinfomsg), true, store, into);
    n += dump(nl, port, rx, RTM_GETADDR, sizeof(ifaddrmsg), false, store, into);
    n += dump(nl, port, rx, RTM_GETNEXTHOP, sizeof(nhmsg), false, store, into);
    n += dump(nl, port, rx, RTM_GETROUTE, sizeof(rtmsg), false, store, into);
    std::printf("pass %d %.4f %.4f %zu %ld\n", pass, bench::now() - t0, bench::cpuSeconds() - c0, n, bench::maxRssKb());
  }
  mnl_socket_close(nl);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "sync_floor: %s\n", e.what());
  return 1;
}
