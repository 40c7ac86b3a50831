// Builds a request without opening a socket: proves headers, library and dependencies install.
#include <fastlink/fastlink.hpp>

#include <cstdio>

int main() {
  auto request = fastlink::LinkRequests::set("v0", fastlink::LinkInfo().setMtu(9000));
  std::printf("%s: %zu bytes\n", request.operation().c_str(), request.bytes().size());
  return request.bytes().empty() ? 1 : 0;
}
