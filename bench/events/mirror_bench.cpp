// StateMirror at scale: time to start (subscribe + dump) and to resynchronise, memory per object
// (the mirror's own estimate and the process's resident memory), and the cost of a change the
// kernel makes silently (a nexthop group's member deleted under its routes). Run by
// bench/events/run in a scratch namespace that already holds the links, routes and nexthops.
#include <fastlink/fastlink.hpp>
#include <fastlink/mirror.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <fstream>

namespace {

constexpr uint32_t kMemberToDelete = 2;  // of group 100, which bench/events/run makes

long residentBytes() {
  std::ifstream f("/proc/self/statm");
  long size = 0, resident = 0;
  f >> size >> resident;
  return resident * sysconf(_SC_PAGESIZE);
}

double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

int main() {
  fastlink::Netlink nl;
  fastlink::MirrorOptions options;
  options.addresses = options.neighbours = false;  // links + routes, as the target says
  long before = residentBytes();
  auto t0 = std::chrono::steady_clock::now();
  fastlink::StateMirror mirror(nl, options);
  double start = secondsSince(t0);
  std::size_t links = mirror.count(fastlink::ObjectKind::Link), routes = mirror.count(fastlink::ObjectKind::Route);
  long after = residentBytes();
  auto t1 = std::chrono::steady_clock::now();
  std::size_t reported = mirror.resync();
  double resync = secondsSince(t1);
  auto s = mirror.stats();
  // A group member deleted: the kernel changes every route over the group (bench/events/run
  // puts them in a table of their own) without a route notification; the mirror reads that
  // table again. Timed from the request to the end of the process() that reported them.
  auto t2 = std::chrono::steady_clock::now();
  nl.nexthops().del(kMemberToDelete);
  std::size_t changed = 0;
  while (changed == 0) changed = mirror.wait({}, std::chrono::milliseconds(1000));
  double memberLoss = secondsSince(t2);
  // A device with 10 routes deleted among 1.1M (bench/events/run makes it): the kernel drops
  // them without a word, the mirror finds them itself.
  auto t3 = std::chrono::steady_clock::now();
  nl.links().del("dva");
  std::size_t linkEvents = 0;
  double deviceGone = 0;  // until the last event (the wait that finds nothing more is not counted)
  for (;;) {
    std::size_t n = mirror.wait({}, std::chrono::milliseconds(200));
    if (n == 0 && linkEvents > 0) break;
    linkEvents += n;
    if (n) deviceGone = secondsSince(t3);
  }
  fmt::print("{{\"links\":{},\"routes\":{},\"start_s\":{:.3f},\"resync_s\":{:.3f},\"resync_events\":{},"
             "\"estimated_bytes_per_object\":{:.0f},\"rss_bytes_per_object\":{:.0f},"
             "\"group_member_deleted_s\":{:.3f},\"routes_changed\":{},\"tables_read_again\":{},"
             "\"device_deleted_s\":{:.3f},\"device_deleted_events\":{}}}\n",
             links, routes, start, resync, reported,
             double(s.bytes) / double(s.objects), double(after - before) / double(s.objects), memberLoss, changed,
             mirror.stats().tableRereads, deviceGone, linkEvents);
  return 0;
}
