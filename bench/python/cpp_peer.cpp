// The C++ library used the way bench/python/peer.py uses the binding, job for job, so "the
// binding adds <= 10% to the C++ library" is a measured ratio (docs/BENCHMARKS.md, "Python"):
//
//   cpp_peer mtu PREFIX COUNT MTU stop|continue   a Batch of LinkRequests::set, Netlink::run
//   cpp_peer routes DEV COUNT TABLE stop|continue a Batch of COUNT RouteRequests::add (each prefix
//                                                 parsed from its text, as the binding's RouteInfo(dst=...)
//                                                 does), Netlink::run; stop is the library's
//                                                 OnError::Stop (one request per round trip: the
//                                                 binding's window=1 "stop-wait")
//   cpp_peer list                                 links.list(kind="bridge"), the names
//
// Prints peer.py's JSON line: seconds (wall, socket opening included), cpu_seconds (this
// process's user + system CPU over the same span: the kernel's work for each request is done in
// the sending process, so this is the job's whole cost and does not count waiting for a core on
// a loaded machine), ops, found, growth_kib (peak RSS at the end minus the peak before the job).
#include <sys/resource.h>
#include <time.h>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "../bench_common.hpp"
#include "fastlink/fastlink.hpp"

namespace {

using namespace fastlink;

double cpuNow() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

long peakKib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

BatchOptions optionsOf(const std::string& mode) {
  BatchOptions options;
  if (mode == "stop") options.onError = OnError::Stop;
  else if (mode == "continue") options.onError = OnError::Continue;
  else throw std::invalid_argument("mode must be stop or continue");
  return options;
}

/// Runs a batch; a failure is an error of the benchmark (every request must apply).
std::size_t runAll(Netlink& nl, const Batch& batch, const std::string& mode) {
  BatchResult result = nl.run(batch, optionsOf(mode));
  if (const Error* e = result.firstError()) throw *e;
  return batch.size();
}

std::string routeText(std::size_t i) {
  return "10." + std::to_string(i >> 16 & 255) + "." + std::to_string(i >> 8 & 255) + "." + std::to_string(i & 255) +
         "/32";
}

}  // namespace

int main(int argc, char** argv) try {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::function<std::size_t(std::vector<std::string>&)> job;
  std::vector<std::string> found;
  if (args.size() == 5 && args[0] == "mtu") {
    job = [&](std::vector<std::string>&) {
      std::size_t count = std::stoul(args[2]);
      uint32_t mtu = static_cast<uint32_t>(std::stoul(args[3]));
      Netlink nl;
      Batch batch;
      for (std::size_t i = 0; i < count; ++i) batch.add(LinkRequests::set(Ifref(args[1] + std::to_string(i)), LinkInfo().setMtu(mtu)));
      return runAll(nl, batch, args[4]);
    };
  } else if (args.size() == 5 && args[0] == "routes") {
    uint32_t index = if_nametoindex(args[1].c_str());
    job = [&, index](std::vector<std::string>&) {
      std::size_t count = std::stoul(args[2]);
      uint32_t table = static_cast<uint32_t>(std::stoul(args[3]));
      Netlink nl;
      Batch batch;
      for (std::size_t i = 0; i < count; ++i)
        batch.add(RouteRequests::add(RouteInfo(Prefix::parse(routeText(i))).setDev(Ifref(index)).setTable(table)));
      return runAll(nl, batch, args[4]);
    };
  } else if (args.size() == 1 && args[0] == "list") {
    job = [](std::vector<std::string>& names) {
      Netlink nl;
      for (const auto& l : nl.links().list(LinkFilter().setKind("bridge"))) names.push_back(*l.name);
      return names.size();
    };
  } else {
    std::fputs("usage: cpp_peer mtu PREFIX COUNT MTU stop|continue | routes DEV COUNT TABLE stop|continue | list\n", stderr);
    return 2;
  }
  long peak0 = peakKib();
  double t0 = bench::now();
  double cpu0 = cpuNow();
  std::size_t ops = job(found);
  double cpu = cpuNow() - cpu0;
  double wall = bench::now() - t0;
  std::string names;
  for (const auto& n : found) names += (names.empty() ? "\"" : ",\"") + n + "\"";
  std::printf("{\"seconds\":%.9g,\"cpu_seconds\":%.9g,\"ops\":%zu,\"found\":[%s],\"growth_kib\":%ld}\n", wall, cpu, ops,
              names.c_str(), peakKib() - peak0);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "cpp_peer: %s\n", e.what());
  return 1;
}
