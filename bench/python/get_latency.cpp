// The C++ side of bench/python's single-get comparison: LinkApi::get(NAME), CALLS times, on one
// Netlink; prints seconds per call as one JSON line (bench_common.hpp), like peer.py's `get`.
//   get_latency NAME CALLS
#include <cstdio>
#include <cstdlib>
#include <string>

#include "../bench_common.hpp"
#include "fastlink/netlink.hpp"

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
  for (long i = 0; i < calls; ++i) links.get(name);
  bench::report((bench::now() - t0) / static_cast<double>(calls), static_cast<std::size_t>(calls), 0, 0);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "get_latency: %s\n", e.what());
  return 1;
}
