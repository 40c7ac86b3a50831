// Builds requests without opening a socket: proves headers, library and dependencies install,
// and that link kinds registered by file survive linking the static archive into a user's program.
// Usage: consumer KIND... (tests/install/run passes every kind the sources register).
#include <fastlink/fastlink.hpp>
#include <fastlink/link_kinds/geneve.hpp>

#include <algorithm>
#include <cstdio>

int main(int argc, char** argv) {
  auto request = fastlink::LinkRequests::set("v0", fastlink::LinkInfo().setMtu(9000));
  std::printf("%s: %zu bytes\n", request.operation().c_str(), request.bytes().size());
  if (request.bytes().empty()) return 1;
  // Nothing here names a kind file: the library's index must have kept them all.
  auto kinds = fastlink::knownLinkKinds();
  if (argc < 2) {
    std::printf("usage: consumer KIND... (the link kinds the library must know)\n");
    return 1;
  }
  for (int i = 1; i < argc; ++i) {
    const char* kind = argv[i];
    if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) {
      std::printf("link kind %s missing from knownLinkKinds()\n", kind);
      return 1;
    }
  }
  auto geneve = fastlink::LinkRequests::add(
      fastlink::LinkInfo("gn0", "geneve").setKindOptions(fastlink::GeneveInfo().setVni(42)));
  std::printf("%s: %zu bytes, %zu link kinds\n", geneve.operation().c_str(), geneve.bytes().size(), kinds.size());
  // The geneve codec ran: its IFLA_INFO_DATA carries the VNI (42 as a little-endian u32).
  const auto& b = geneve.bytes();
  const uint8_t vni[] = {8, 0, 1, 0, 42, 0, 0, 0};  // nlattr{len 8, IFLA_GENEVE_ID} + 42
  return std::search(b.begin(), b.end(), std::begin(vni), std::end(vni)) != b.end() ? 0 : 1;
}
