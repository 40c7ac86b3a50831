// A StateMirror's sync at scale (issue 29): the start (subscribe, dump links, addresses,
// nexthops and routes, store each canonical message, in place where the dump received it) and
// resync() (the same dumps against the stored state: mark and sweep), of a mirror of links +
// routes as bench/events/run's. Printed like bench/events/sync_floor, the floor it is compared
// with:
//   pass 1 wall_s cpu_s objects peak_rss_kib      (the start)
//   pass 2 wall_s cpu_s differences peak_rss_kib  (resync())
//   mirror_sync 1: the start alone (for a profile of it)
#include <fastlink/fastlink.hpp>
#include <fastlink/mirror.hpp>
#include <time.h>

#include <cstdio>
#include <string_view>

#include "../bench_common.hpp"

int main(int argc, char** argv) try {
  const bool startOnly = argc > 1 && std::string_view(argv[1]) == "1";
  fastlink::Netlink nl;
  fastlink::MirrorOptions options;
  options.addresses = options.neighbours = false;
  double t0 = bench::now(), c0 = bench::cpuSeconds();
  fastlink::StateMirror mirror(nl, options);
  double wall = bench::now() - t0, cpu = bench::cpuSeconds() - c0;
  std::printf("pass 1 %.4f %.4f %zu %ld\n", wall, cpu,
              mirror.count(fastlink::ObjectKind::Link) + mirror.count(fastlink::ObjectKind::Route), bench::maxRssKb());
  if (startOnly) return 0;
  t0 = bench::now();
  c0 = bench::cpuSeconds();
  std::size_t differences = mirror.resync();
  std::printf("pass 2 %.4f %.4f %zu %ld\n", bench::now() - t0, bench::cpuSeconds() - c0, differences, bench::maxRssKb());
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "mirror_sync: %s\n", e.what());
  return 1;
}
