// The state document reader alone (issue 26): State::load of a file, ROUNDS times, CPU seconds
// per read. No kernel, no root: the figure the reader contributes to a no-op apply, which on a
// loaded machine cannot be told apart from RTNL waits in bench/apply/run.sh.
//   read_document FILE [ROUNDS]
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fastlink/error.hpp"
#include "fastlink/state.hpp"

namespace {
double cpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: read_document FILE [ROUNDS]\n");
    return 2;
  }
  int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
  try {
    for (int i = 0; i < rounds; ++i) {
      double start = cpuSeconds();
      fastlink::State state = fastlink::State::load(argv[1]);
      double took = cpuSeconds() - start;
      std::printf("%.3f s cpu  %zu interfaces, %zu routes, %zu rules\n", took, state.interfaces.size(), state.routes.size(), state.rules.size());
    }
  } catch (const fastlink::Error& e) {
    std::fprintf(stderr, "read_document: %s\n", e.what());
    return 1;
  }
  return 0;
}
