// examples/readme_library.cpp, the README's "Library in 30 lines" (tested: examples/readme_test).
// As root: ip netns add blue && g++ -std=c++20 readme_library.cpp $(pkg-config --cflags --libs fastlink)
#include <fastlink/fastlink.hpp>

#include <cstdio>
#include <string>

using namespace fastlink;

int main() try {
  Netlink nl({.netns = Netns::named("blue")});           // like `ip -n blue`; owns the socket
  LinkApi& links = nl.links();

  links.add(LinkInfo("br0", "bridge").setMtu(9000).setAdmin(true));
  links.add(LinkInfo("v0", "veth").setVeth(VethInfo().setPeerName("v1")).setMaster("br0"));
  links.set("v0", LinkInfo().setAdmin(true).setGroup(10));   // ip link set dev v0 up group 10
  links.setGroup(10, LinkInfo().setMtu(1400));               // ip link set group 10 mtu 1400: ONE request

  for (const LinkInfo& l : links.list(LinkFilter().setKind("bridge")))  // filtered in the kernel
    std::printf("%s mtu %u\n", l.name->c_str(), *l.mtu);
  LinkInfo v0 = links.get("v0");                           // the master by index and by name
  std::printf("v0 master %u %s\n", v0.masterIndex(), v0.masterName.value_or("-").c_str());

  Batch batch;                                               // pipelined, per-request results
  for (int i = 0; i < 1000; ++i) batch.add(LinkRequests::set("v" + std::to_string(i), LinkInfo().setMtu(1400)));
  BatchResult r = nl.run(batch, {.onError = OnError::Continue});
  if (const Error* e = r.firstError()) std::fprintf(stderr, "failed: %s\n", e->what());
} catch (const Error& e) {                                   // e.code() == std::errc::..., e.extack()
  std::fprintf(stderr, "fastlink: %s\n", e.what());
  return 1;
}
// Prints (stdout, then stderr):
// br0 mtu 1400
// v0 master 2 br0
// failed: No such device (link set dev v2, request #3 of the batch)
