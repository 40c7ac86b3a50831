// Cost of resolving a generic netlink family by name, against a raw libmnl floor in the same run.
//
//   first use   a fresh Netlink: open the generic netlink socket + one CTRL_CMD_GETFAMILY
//   round trip  GenlApi::refresh on an open socket: one GETFAMILY request and reply
//   cached      GenlApi::get of a family already resolved: no system call at all
//   encode      GenlRequests::getFamily alone (no I/O)
//   list        GenlApi::list: the dump of every family (`genl ctrl list`)
//
// Run it in a throwaway namespace: scripts/sandbox build/bench/genl_lookup_bench [ROUNDS] [FAMILY]
// Prints the median and minimum per operation in µs, and fastlink / raw ratios.
#include <fastlink/genl.hpp>
#include <fastlink/netlink.hpp>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_common.hpp"

namespace {

struct Stat {
  double medianUs;
  double minUs;
};

Stat measure(int rounds, const std::function<void()>& op) {
  std::vector<double> t;
  t.reserve(rounds);
  op();  // warm caches and pages
  for (int i = 0; i < rounds; ++i) {
    double start = bench::now();
    op();
    t.push_back((bench::now() - start) * 1e6);
  }
  std::sort(t.begin(), t.end());
  return {t[t.size() / 2], t.front()};
}

// The floor: what any client must do at least, written straight on libmnl.
uint16_t rawLookup(mnl_socket* sock, const char* family, uint32_t seq) {
  char buf[8192];
  nlmsghdr* nlh = mnl_nlmsg_put_header(buf);
  nlh->nlmsg_type = GENL_ID_CTRL;
  nlh->nlmsg_flags = NLM_F_REQUEST;
  nlh->nlmsg_seq = seq;
  auto* g = static_cast<genlmsghdr*>(mnl_nlmsg_put_extra_header(nlh, sizeof(genlmsghdr)));
  g->cmd = CTRL_CMD_GETFAMILY;
  g->version = 1;
  mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, family);
  if (mnl_socket_sendto(sock, nlh, nlh->nlmsg_len) < 0) throw std::runtime_error("raw send");
  ssize_t n = mnl_socket_recvfrom(sock, buf, sizeof buf);
  if (n <= 0) throw std::runtime_error("raw receive");
  auto* reply = reinterpret_cast<nlmsghdr*>(buf);
  if (reply->nlmsg_type != GENL_ID_CTRL) throw std::runtime_error("raw: family not found");
  uint16_t id = 0;
  // libmnl's for_each macro assigns a void* (C only): walk by hand.
  auto* attrs = static_cast<uint8_t*>(mnl_nlmsg_get_payload_offset(reply, GENL_HDRLEN));
  int left = static_cast<int>(reinterpret_cast<uint8_t*>(reply) + reply->nlmsg_len - attrs);
  for (auto* a = reinterpret_cast<nlattr*>(attrs); mnl_attr_ok(a, left); a = mnl_attr_next(a)) {
    if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID) id = mnl_attr_get_u16(a);
    left = static_cast<int>(reinterpret_cast<uint8_t*>(reply) + reply->nlmsg_len - reinterpret_cast<uint8_t*>(mnl_attr_next(a)));
  }
  return id;
}

mnl_socket* rawOpen() {
  mnl_socket* s = mnl_socket_open(NETLINK_GENERIC);
  if (!s || mnl_socket_bind(s, 0, MNL_SOCKET_AUTOPID) < 0) throw std::runtime_error("raw socket");
  return s;
}

void row(const char* what, Stat mine, Stat raw) {
  std::printf("%-12s fastlink %9.3f µs (min %8.3f)   raw %9.3f µs (min %8.3f)   ratio %.2f\n", what, mine.medianUs,
              mine.minUs, raw.medianUs, raw.minUs, mine.medianUs / raw.medianUs);
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = argc > 1 ? std::atoi(argv[1]) : 2000;
  std::string family = argc > 2 ? argv[2] : "ethtool";
  volatile uint32_t sink = 0;
  try {
    Stat firstUse = measure(rounds, [&] {
      fastlink::Netlink nl;
      sink = sink + nl.families().get(family).id;
    });
    Stat rawFirst = measure(rounds, [&] {
      mnl_socket* s = rawOpen();
      sink = sink + rawLookup(s, family.c_str(), 1);
      mnl_socket_close(s);
    });

    fastlink::Netlink nl;
    fastlink::GenlApi& families = nl.families();
    Stat roundTrip = measure(rounds, [&] { sink = sink + families.refresh(family).id; });
    mnl_socket* s = rawOpen();
    uint32_t seq = 1;
    Stat rawTrip = measure(rounds, [&] { sink = sink + rawLookup(s, family.c_str(), ++seq); });
    mnl_socket_close(s);

    // Cached lookups are too fast for one clock read each: time batches of 1000.
    constexpr int kBatch = 1000;
    uint64_t sentBefore = families.counters().requestsSent;
    Stat cached = measure(rounds, [&] {
      for (int i = 0; i < kBatch; ++i) sink = sink + families.get(family).id;
    });
    uint64_t sentByCached = families.counters().requestsSent - sentBefore;
    Stat encode = measure(rounds, [&] { sink = sink + static_cast<uint32_t>(fastlink::GenlRequests::getFamily(family).bytes().size()); });
    Stat list = measure(std::max(rounds / 10, 10), [&] { sink = sink + static_cast<uint32_t>(families.list().size()); });

    std::printf("genl family lookup of \"%s\", %d rounds (median per operation)\n", family.c_str(), rounds);
    row("first use", firstUse, rawFirst);
    row("round trip", roundTrip, rawTrip);
    std::printf("%-12s fastlink %9.4f µs (min %8.4f)   requests sent by %d cached lookups: %llu\n", "cached",
                cached.medianUs / kBatch, cached.minUs / kBatch, (rounds + 1) * kBatch,
                static_cast<unsigned long long>(sentByCached));
    std::printf("%-12s fastlink %9.3f µs (min %8.3f)   (building the GETFAMILY request alone)\n", "encode",
                encode.medianUs, encode.minUs);
    std::printf("%-12s fastlink %9.3f µs (min %8.3f)   (%zu families)\n", "list", list.medianUs, list.minUs,
                families.list().size());
    return sentByCached == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "genl_lookup_bench: %s\n", e.what());
    return 1;
  }
}
