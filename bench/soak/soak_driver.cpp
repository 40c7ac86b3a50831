// The soak's one long-lived fastlink process (bench/soak/run starts it in a namespace): loads
// LINKS interfaces (veth pairs) and ROUTES routes, then until the time is up repeats rounds of
//   - a mixed batch: a slice of routes deleted, links' MTUs changed, the slice added back;
//   - dumps: every link, and every route streamed (forEach: constant memory);
//   - deletes: a few veth pairs deleted and created again;
// checking every result (a request that is not Applied is a lost request) and every dump's
// count. Prints "rss t=SECONDS kb=KB" samples (VmRSS of this process) and a final summary line
// the run script compares with `ip -j`.
//
//   soak_driver --netns NAME --seconds S --links N --routes R [--sample S]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "fastlink/fastlink.hpp"

using namespace fastlink;

namespace {

struct Options {
  std::string netns;
  double seconds = 60;
  uint32_t links = 1000;  // interfaces, i.e. links/2 veth pairs
  uint32_t routes = 100000;
  double sample = 5;
};

long rssKb() {
  std::ifstream in("/proc/self/status");
  std::string key;
  while (in >> key) {
    if (key == "VmRSS:") {
      long kb = 0;
      in >> kb;
      return kb;
    }
    in.ignore(1 << 20, '\n');
  }
  return -1;
}

IpAddress routeAddress(uint32_t i) {
  uint32_t a = (11u << 24) + i;  // 11.0.0.0/8: 16M host routes available
  uint8_t b[4] = {uint8_t(a >> 24), uint8_t(a >> 16), uint8_t(a >> 8), uint8_t(a)};
  return IpAddress::fromBytes(b);
}

Request routeRequest(uint32_t i, uint32_t dev, bool add) {
  RouteInfo r(Prefix(routeAddress(i), 32));
  r.setDev(Ifref(dev));
  return add ? RouteRequests::add(r) : RouteRequests::del(r);
}

std::string pairName(uint32_t p, char side) { return "s" + std::to_string(p) + side; }

uint64_t lost = 0, sent = 0;

// Runs requests [0, count) from `make` as one streamed batch; counts every non-applied one.
void runBatch(Netlink& nl, std::size_t count, const std::function<Request(std::size_t)>& make) {
  std::size_t next = 0;
  RequestSource source = [&]() -> std::optional<Request> {
    if (next == count) return std::nullopt;
    return make(next++);
  };
  BatchOptions options;
  options.onError = OnError::Continue;
  BatchResult r = nl.run(source, options, [&](std::size_t i, const RequestResult& res) {
    if (res.status != RequestStatus::Applied) {
      ++lost;
      if (lost < 10) std::fprintf(stderr, "request %zu not applied: %s\n", i, res.error ? res.error->what() : "?");
    }
  });
  sent += count;
  if (r.applied != count) std::fprintf(stderr, "batch: %zu of %zu applied\n", r.applied, count);
}

void addPairs(Netlink& nl, uint32_t first, uint32_t count) {
  runBatch(nl, count, [&](std::size_t i) {
    uint32_t p = first + uint32_t(i);
    return LinkRequests::add(LinkInfo(pairName(p, 'a'), "veth").setVeth(VethInfo().setPeerName(pairName(p, 'b'))));
  });
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--netns") o.netns = v;
    else if (k == "--seconds") o.seconds = std::atof(v.c_str());
    else if (k == "--links") o.links = uint32_t(std::atol(v.c_str()));
    else if (k == "--routes") o.routes = uint32_t(std::atol(v.c_str()));
    else if (k == "--sample") o.sample = std::atof(v.c_str());
  }
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  try {
    Netlink nl(NetlinkOptions{.netns = Netns::named(o.netns)});
    const uint32_t pairs = o.links / 2;
    nl.links().add(LinkInfo("r0", "veth").setVeth(VethInfo().setPeerName("r1")));
    nl.links().set(Ifref("r0"), LinkInfo().setAdmin(true));
    nl.links().set(Ifref("r1"), LinkInfo().setAdmin(true));
    uint32_t r0 = 0;
    for (const auto& l : nl.links().list())
      if (l.name == "r0") r0 = l.index.value_or(0);
    addPairs(nl, 0, pairs);
    runBatch(nl, o.routes, [&](std::size_t i) { return routeRequest(uint32_t(i), r0, true); });
    std::printf("setup links=%u routes=%u seconds=%.1f rss_kb=%ld\n", pairs * 2 + 3, o.routes, elapsed(), rssKb());
    std::fflush(stdout);

    const uint32_t slice = std::min<uint32_t>(10000, o.routes);
    const uint32_t churnPairs = std::min<uint32_t>(50, pairs);
    uint64_t rounds = 0, dumpMismatch = 0;
    double nextSample = 0;
    auto loopStart = elapsed();
    while (elapsed() - loopStart < o.seconds) {
      double t = elapsed() - loopStart;
      if (t >= nextSample) {
        std::printf("rss t=%.0f kb=%ld\n", t, rssKb());
        std::fflush(stdout);
        nextSample += o.sample;
      }
      // Mixed batch: delete a slice, change MTUs, add the slice back.
      uint32_t first = uint32_t((rounds * slice) % (o.routes - slice + 1));
      runBatch(nl, slice, [&](std::size_t i) { return routeRequest(first + uint32_t(i), r0, false); });
      runBatch(nl, churnPairs, [&](std::size_t i) {
        return LinkRequests::set(Ifref(pairName(uint32_t((rounds * churnPairs + i) % pairs), 'a')),
                                 LinkInfo().setMtu(1400 + uint32_t(rounds % 100)));
      });
      runBatch(nl, slice, [&](std::size_t i) { return routeRequest(first + uint32_t(i), r0, true); });
      // Dumps.
      std::size_t links = 0, routes = 0;
      nl.links().forEach({}, [&](const LinkInfo&) { ++links; }, [&] { links = 0; });
      RouteFilter mainTable;
      mainTable.table = kTableMain;
      nl.routes().forEach(mainTable, [&](const RouteInfo&) { ++routes; }, [&] { routes = 0; });
      if (links != pairs * 2 + 3 || routes < o.routes) {
        ++dumpMismatch;
        std::fprintf(stderr, "round %lu: dump saw %zu links, %zu routes\n", (unsigned long)rounds, links, routes);
      }
      // Deletes: some pairs deleted and created again.
      uint32_t p0 = uint32_t((rounds * churnPairs) % (pairs - churnPairs + 1));
      runBatch(nl, churnPairs, [&](std::size_t i) { return LinkRequests::del(Ifref(pairName(p0 + uint32_t(i), 'a'))); });
      addPairs(nl, p0, churnPairs);
      ++rounds;
    }
    std::printf("rss t=%.0f kb=%ld\n", elapsed() - loopStart, rssKb());
    std::printf("done rounds=%lu requests=%lu lost=%lu dump_mismatches=%lu links=%u routes=%u\n", (unsigned long)rounds,
                (unsigned long)sent, (unsigned long)lost, (unsigned long)dumpMismatch, pairs * 2 + 3, o.routes);
    return lost == 0 && dumpMismatch == 0 ? 0 : 1;
  } catch (const Error& e) {
    std::fprintf(stderr, "soak_driver: %s\n", e.what());
    return 1;
  }
}
