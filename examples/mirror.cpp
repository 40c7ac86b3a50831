// A StateMirror in the program's own poll() loop: prints the namespace's links and routes once,
// then every change, and repairs itself after lost notifications.
//
//   fastlink-mirror [-n NETNS] [seconds]
#include <fastlink/fastlink.hpp>
#include <fastlink/mirror.hpp>
#include <fmt/format.h>
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>

namespace {

std::string describe(const fastlink::Event& e) {
  if (auto* l = e.link()) return fmt::format("link {} (ifindex {}) mtu {}", l->name.value_or("?"), l->index.value_or(0), l->mtu.value_or(0));
  if (auto* r = e.route())
    return fmt::format("route {} table {}", r->dst ? r->dst->toString() : "default", r->table.value_or(0));
  if (auto* a = e.address()) return fmt::format("address {} on ifindex {}", a->address->toStringWithLength(), a->devIndex());
  if (auto* n = e.neighbour()) return fmt::format("neighbour {} on ifindex {}", n->dst->toString(), n->devIndex());
  return "?";
}

}  // namespace

int main(int argc, char** argv) {
  fastlink::NetlinkOptions options;
  int arg = 1;
  if (argc > 2 && std::string(argv[1]) == "-n") {
    options.netns = fastlink::Netns::named(argv[2]);
    arg = 3;
  }
  int seconds = arg < argc ? std::atoi(argv[arg]) : 10;
  try {
    fastlink::Netlink nl(options);
    fastlink::MirrorOptions what;
    what.neighbours = false;  // links, addresses and routes
    fastlink::StateMirror mirror(nl, what);
    fmt::print("{} links, {} addresses, {} routes\n", mirror.count(fastlink::ObjectKind::Link),
               mirror.count(fastlink::ObjectKind::Address), mirror.count(fastlink::ObjectKind::Route));
    mirror.forEachLink([](const fastlink::LinkInfo& l) { fmt::print("  {} mtu {}\n", l.name.value_or("?"), l.mtu.value_or(0)); });

    // The program's own loop: the mirror is one more fd among whatever else it polls.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    pollfd fds[1] = {{mirror.fd(), POLLIN, 0}};
    while (std::chrono::steady_clock::now() < deadline) {
      if (poll(fds, 1, 200) <= 0) continue;
      mirror.process([](const fastlink::Event& e) {
        fmt::print("{} {}\n", fastlink::eventActionName(e.action), describe(e));
      });
      std::fflush(stdout);
    }
    auto s = mirror.stats();
    fmt::print("{} notifications, {} overflows, {} resyncs, {} objects in {} bytes\n", s.notifications, s.overflows,
               s.resyncs, s.objects, s.bytes);
  } catch (const fastlink::Error& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
  return 0;
}
