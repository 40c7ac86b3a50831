// The C++ side of bench/python's single-get comparison: LinkApi::get(NAME), CALLS times, on one
// Netlink; prints seconds per call as one JSON line, like peer.py's `get`: "seconds" (wall) and
// "cpu_seconds" (this process's user + system CPU, the kernel's work for the request included).
// On a loaded machine the wall time is mostly waiting for a core after each reply wakes us; the
// CPU time is what the call itself costs, so the binding's overhead is read from it.
//   get_latency NAME CALLS
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "../bench_common.hpp"
#include "fastlink/netlink.hpp"

namespace {
double cpuNow() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
}  // namespace

int main(int argc, char** argv) try {
  if (argc != 3) {
    std::fprintf(stderr, "usage: get_latency NAME CALLS\n");
    return 2;
  }
  std::string name = argv[1];
  long calls = std::atol(argv[2]);
  fastlink::Netlink nl;
  auto& links = nl.links();
  links.get(name);
  double t0 = bench::now();
  double cpu0 = cpuNow();
  for (long i = 0; i < calls; ++i) links.get(name);
  double cpu = cpuNow() - cpu0;
  double wall = bench::now() - t0;
  // Nine significant digits: bench::report's fixed six decimals would round a 12 us call to 1e-05.
  std::printf("{\"seconds\":%.9g,\"cpu_seconds\":%.9g,\"ops\":%ld}\n", wall / static_cast<double>(calls),
              cpu / static_cast<double>(calls), calls);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "get_latency: %s\n", e.what());
  return 1;
}
