// fastlink side of the route benchmarks. Run inside the benchmark's namespace
// (`ip netns exec NS route_bench ...`); prints one JSON line:
//   {"seconds":S,"ops":N,"failed":F,"maxrss_kb":K}
//
//   route_bench install|replace|delete N TABLE [GATEWAY]   streamed pipelined batch of N routes
//   route_bench dump TABLE                                  forEach over the table, count routes
//   route_bench read TABLE views|foreach                    each route's destination, prefix length,
//        gateway, device, metric and table (the checksum raw_routes read prints): RouteView or RouteInfo
//   route_bench routes-dev DEV | routes-all                 route listing filtered by device / not
//   route_bench addrs-dev DEV | addrs-all                   address listing filtered by device / not
#include <sys/resource.h>
#include <time.h>

#include <fastlink/addr.hpp>
#include <fastlink/fastlink.hpp>
#include <fastlink/route.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "../bench_common.hpp"

using namespace fastlink;

namespace {

using bench::maxRssKb;
using bench::now;

void report(double seconds, std::size_t ops, std::size_t failed) {
  std::printf("{\"seconds\":%.6f,\"ops\":%zu,\"failed\":%zu,\"maxrss_kb\":%ld}\n", seconds, ops, failed, maxRssKb());
}

/// The i-th /24 of the benchmark: 20.0.0.0/24, 20.0.1.0/24, ... (the same in every peer).
Prefix prefixOf(std::size_t i) {
  uint32_t a = 0x14000000u + (static_cast<uint32_t>(i) << 8);
  return Prefix(IpAddress::fromBytes(std::array<uint8_t, 4>{static_cast<uint8_t>(a >> 24), static_cast<uint8_t>(a >> 16),
                                                             static_cast<uint8_t>(a >> 8), 0}),
                24);
}

int usage() {
  std::fputs("usage: route_bench install|replace|delete N TABLE [GW] | dump TABLE | read TABLE views|foreach | routes-dev DEV | routes-all | "
             "addrs-dev DEV | addrs-all\n",
             stderr);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  std::string mode = argv[1];
  try {
    Netlink nl;
    if (mode == "install" || mode == "replace" || mode == "delete") {
      if (argc < 4) return usage();
      std::size_t count = std::strtoull(argv[2], nullptr, 10);
      uint32_t table = static_cast<uint32_t>(std::strtoul(argv[3], nullptr, 10));
      IpAddress gateway = IpAddress::parse(argc > 4 ? argv[4] : "10.0.0.2");
      std::size_t next = 0, failed = 0;
      std::string firstError;
      double start = now();
      RequestSource source = [&]() -> std::optional<Request> {
        if (next == count) return std::nullopt;
        RouteInfo r(prefixOf(next++));
        r.setTable(table);
        if (mode == "delete") return RouteRequests::del(r);
        r.setGateway(gateway);
        return mode == "install" ? RouteRequests::add(r) : RouteRequests::replace(r);
      };
      nl.run(source, BatchOptions{.onError = OnError::Continue}, [&](std::size_t, const RequestResult& r) {
        if (r.status == RequestStatus::Applied) return;
        if (failed++ == 0 && r.error) firstError = r.error->what();
      });
      double seconds = now() - start;
      if (!firstError.empty()) std::fprintf(stderr, "first failure: %s\n", firstError.c_str());
      report(seconds, count, failed);
    } else if (mode == "dump") {
      if (argc < 3) return usage();
      uint32_t table = static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 10));
      std::size_t n = 0;
      double start = now();
      nl.routes().forEach(RouteFilter().setTable(table).setFamily(IpAddress::Family::v4),
                          [&](const RouteInfo& r) { n += r.dst ? 1 : 0; }, [&] { n = 0; });
      report(now() - start, n, 0);
    } else if (mode == "read") {
      if (argc < 4) return usage();
      RouteFilter filter = RouteFilter().setTable(static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 10)))
                               .setFamily(IpAddress::Family::v4);
      std::string how = argv[3];
      std::size_t n = 0;
      uint64_t checksum = 0;
      auto v4 = [](const std::optional<IpAddress>& a) {
        uint32_t x = 0;
        if (a && a->isV4()) std::memcpy(&x, a->bytes().data(), 4);
        return uint64_t{x};
      };
      double start = now();
      if (how == "views") {
        nl.routes().forEach(filter, [&](const RouteView& r) {
          auto dst = r.dst();
          checksum += v4(dst ? std::optional(dst->address()) : std::nullopt) + v4(r.gateway()) + r.devIndex() +
                      r.metric().value_or(0) + r.table() + (dst ? dst->length() : 0);
          ++n;
        }, [&] { n = 0, checksum = 0; });
      } else {
        nl.routes().forEach(filter, [&](const RouteInfo& r) {
          checksum += v4(r.dst ? std::optional(r.dst->address()) : std::nullopt) + v4(r.gateway) + r.devIndex() +
                      r.metric.value_or(0) + r.tableOrMain() + (r.dst ? r.dst->length() : 0);
          ++n;
        }, [&] { n = 0, checksum = 0; });
      }
      double seconds = now() - start;
      std::fprintf(stderr, "checksum %llu\n", static_cast<unsigned long long>(checksum));
      report(seconds, n, 0);
    } else if (mode == "routes-dev" || mode == "routes-all") {
      RouteFilter f;
      f.setFamily(IpAddress::Family::v4);
      if (mode == "routes-dev") f.setDev(argv[2]);
      std::size_t n = 0;
      double start = now();
      nl.routes().forEach(f, [&](const RouteInfo&) { ++n; });
      report(now() - start, n, 0);
    } else if (mode == "addrs-dev" || mode == "addrs-all") {
      AddrFilter f;
      if (mode == "addrs-dev") f.setDev(argv[2]);
      std::size_t n = 0;
      double start = now();
      nl.addresses().forEach(f, [&](const AddrInfo&) { ++n; });
      report(now() - start, n, 0);
    } else {
      return usage();
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
