// fastlink's side of the scale benchmarks, and the setup/cleanup helpers of bench/run.
// Prints one JSON line (bench_common.hpp); measured times include constructing the Netlink
// (opening the socket).
//
//   fastlink_bench mtu stopwait|batch|group PREFIX COUNT MTU GROUP
//        stopwait: LinkApi::set per interface; batch: Netlink::run, OnError::Continue;
//        group: one LinkApi::setGroup(GROUP) request (the devices were put in GROUP at setup)
//   fastlink_bench create-veth PREFIX PAIRS        Netlink::run of LinkRequests::add, pipelined
//   fastlink_bench list userfilter|kind|kind-skipstats|all|all-stats
//        userfilter: full dump, bridges picked in user space; kind: LinkFilter.kind = bridge;
//        kind-skipstats: plus kernelSkipStats; all / all-stats: full dump without/with stats
//   fastlink_bench read6 views|foreach|list        every link's name, index, mtu, flags, kind and
//        master (the checksum raw_floor read6 prints): forEachLink views, forEach, or list()
//   fastlink_bench setup-veth PREFIX PAIRS GROUP up|down    (setup, not measured)
//   fastlink_bench setup-bridges PREFIX COUNT               (setup, not measured)
//   fastlink_bench cleanup     delete every device but lo: one group, one del-group request
#include <fastlink/fastlink.hpp>
#include <fastlink/link_view.hpp>

#include <cstdio>
#include <string>

#include "bench_common.hpp"

using namespace fastlink;

namespace {

constexpr uint32_t kCleanupGroup = 4242;

BatchOptions pipelined() {
  BatchOptions o;
  o.onError = OnError::Continue;
  return o;
}

int finish(double t0, std::size_t ops, const BatchResult& r, Netlink& nl) {
  double t = bench::now() - t0;
  if (const Error* e = r.firstError()) std::fprintf(stderr, "fastlink_bench: %s\n", e->what());
  bench::report(t, ops, r.failed + r.notSent, nl.counters().bytesReceived);
  return r.ok() ? 0 : 1;
}

Batch vethBatch(const std::string& prefix, std::size_t pairs, std::optional<uint32_t> group) {
  auto list = bench::names(prefix, 2 * pairs);
  Batch b;
  for (std::size_t i = 0; i < pairs; ++i) {
    LinkInfo l(list[2 * i], "veth");
    l.setVeth(VethInfo().setPeerName(list[2 * i + 1]));
    if (group) l.setGroup(*group);
    b.add(LinkRequests::add(l));
  }
  return b;
}

}  // namespace

int main(int argc, char** argv) try {
  std::string cmd = argc > 1 ? argv[1] : "";
  if (cmd == "mtu" && argc == 7) {
    std::string mode = argv[2];
    auto list = bench::names(argv[3], std::stoul(argv[4]));
    uint32_t mtu = static_cast<uint32_t>(std::stoul(argv[5]));
    uint32_t group = static_cast<uint32_t>(std::stoul(argv[6]));
    double t0 = bench::now();
    Netlink nl;
    if (mode == "stopwait") {
      std::size_t failed = 0;
      for (const auto& n : list) {
        try {
          nl.links().set(Ifref(n), LinkInfo().setMtu(mtu));
        } catch (const Error& e) {
          if (!failed++) std::fprintf(stderr, "fastlink_bench: %s\n", e.what());
        }
      }
      bench::report(bench::now() - t0, list.size(), failed, nl.counters().bytesReceived);
      return failed ? 1 : 0;
    }
    if (mode == "batch") {
      Batch b;
      for (const auto& n : list) b.add(LinkRequests::set(Ifref(n), LinkInfo().setMtu(mtu)));
      return finish(t0, list.size(), nl.run(b, pipelined()), nl);
    }
    if (mode == "group") {
      nl.links().setGroup(group, LinkInfo().setMtu(mtu));
      bench::report(bench::now() - t0, 1, 0, nl.counters().bytesReceived);
      return 0;
    }
  }
  if (cmd == "create-veth" && argc == 4) {
    Batch b = vethBatch(argv[2], std::stoul(argv[3]), std::nullopt);  // encoding is timed too
    double t0 = bench::now();
    Netlink nl;
    return finish(t0, b.size(), nl.run(b, pipelined()), nl);
  }
  if (cmd == "read6" && argc == 3) {
    // Issue 29's library target: name, index, mtu, flags, kind and master of every link, as
    // views (forEachLink), decoded objects streamed (forEach) or listed (list).
    std::string mode = argv[2];
    double t0 = bench::now();
    Netlink nl;
    std::size_t count = 0;
    uint64_t sum = 0;
    auto fold = [&](uint32_t index, uint32_t flags, uint32_t mtu, uint32_t master, std::size_t name, std::size_t kind) {
      ++count;
      sum += index + flags + mtu + master + name + kind;
    };
    auto readInfo = [&](const LinkInfo& l) {
      fold(l.index.value_or(0), l.flags.value_or(0), l.mtu.value_or(0), l.masterIndex(), l.name ? l.name->size() : 0,
           l.kind ? l.kind->size() : 0);
    };
    if (mode == "views") {
      forEachLink(nl, {}, [&](const LinkView& l) {
        auto name = l.name();
        auto kind = l.kind();
        fold(l.index(), l.flags(), l.mtu().value_or(0), l.masterIndex(), name ? name->size() : 0, kind ? kind->size() : 0);
      });
    } else if (mode == "foreach") {
      nl.links().forEach({}, readInfo);
    } else {
      for (const auto& l : nl.links().list()) readInfo(l);
    }
    bench::report(bench::now() - t0, count, 0, nl.counters().bytesReceived, {std::to_string(sum)});
    return 0;
  }
  if (cmd == "list" && argc == 3) {
    std::string mode = argv[2];
    LinkFilter f;
    if (mode == "kind" || mode == "kind-skipstats") f.setKind("bridge");
    if (mode == "kind-skipstats") f.setKernelSkipStats(true);
    if (mode == "all-stats") f.setWithStats(true);
    double t0 = bench::now();
    Netlink nl;
    std::vector<LinkInfo> links = nl.links().list(f);
    std::vector<std::string> found;
    if (mode == "userfilter") {
      for (const auto& l : links)
        if (l.kind == "bridge") found.push_back(*l.name);
    } else if (mode == "kind" || mode == "kind-skipstats") {
      for (const auto& l : links) found.push_back(*l.name);
    }
    double t = bench::now() - t0;
    if (mode == "all" || mode == "all-stats") {
      // Proves the stats were decoded (or not): count links that carry them.
      std::size_t withStats = 0;
      for (const auto& l : links) withStats += l.stats.has_value();
      found = {std::to_string(links.size()), std::to_string(withStats)};
    }
    bench::report(t, links.size(), 0, nl.counters().bytesReceived, found);
    return 0;
  }
  if (cmd == "setup-veth" && argc == 6) {
    Netlink nl;
    std::size_t pairs = std::stoul(argv[3]);
    BatchResult r = nl.run(vethBatch(argv[2], pairs, static_cast<uint32_t>(std::stoul(argv[4]))), pipelined());
    if (r.ok()) {
      // The peer does not inherit IFLA_GROUP: put every device in the group, and up if asked.
      bool up = std::string(argv[5]) == "up";
      Batch b;
      for (const auto& n : bench::names(argv[2], 2 * pairs)) {
        LinkInfo change;
        change.setGroup(static_cast<uint32_t>(std::stoul(argv[4])));
        if (up) change.setAdmin(true);
        b.add(LinkRequests::set(Ifref(n), change));
      }
      r = nl.run(b, pipelined());
    }
    return finish(0, pairs, r, nl);
  }
  if (cmd == "setup-bridges" && argc == 4) {
    Netlink nl;
    Batch b;
    for (const auto& n : bench::names(argv[2], std::stoul(argv[3]))) b.add(LinkRequests::add(LinkInfo(n, "bridge")));
    return finish(0, b.size(), nl.run(b, pipelined()), nl);
  }
  if (cmd == "cleanup" && argc == 2) {
    // One `del group` request unregisters every device at once (a single RCU grace period),
    // where one del per device would wait for one each.
    Netlink nl;
    Batch b;
    for (const auto& l : nl.links().list())
      if (l.name != "lo") b.add(LinkRequests::set(Ifref(*l.index), LinkInfo().setGroup(kCleanupGroup)));
    BatchResult r = nl.run(b, pipelined());
    if (!b.empty()) nl.links().delGroup(kCleanupGroup);
    return finish(0, b.size(), r, nl);
  }
  std::fprintf(stderr, "usage: see the comment at the top of bench/fastlink_bench.cpp\n");
  return 2;
} catch (const std::exception& e) {
  std::fprintf(stderr, "fastlink_bench: %s\n", e.what());
  return 1;
}
