// The libnl3 peer: the same work done the way a libnl-route-3 user does it (one request, wait
// for its ACK, next request). Prints one JSON line (bench_common.hpp); the time includes
// allocating and connecting the socket.
//
//   libnl_peer mtu PREFIX COUNT MTU       rtnl_link_change per interface (ifindex resolved first)
//   libnl_peer create-veth PREFIX PAIRS   rtnl_link_add of a veth (peer PREFIX{2i+1}) per pair
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <netlink/route/link/veth.h>
#include <netlink/socket.h>

#include <string>

#include "bench_common.hpp"

namespace {

nl_sock* connect() {
  nl_sock* sk = nl_socket_alloc();
  if (!sk || nl_connect(sk, NETLINK_ROUTE) < 0) throw std::runtime_error("nl_connect");
  return sk;
}

}  // namespace

int main(int argc, char** argv) try {
  std::string cmd = argc > 1 ? argv[1] : "";
  if (cmd == "mtu" && argc == 5) {
    auto list = bench::names(argv[2], std::stoul(argv[3]));
    auto idx = bench::indexes(list);
    unsigned mtu = static_cast<unsigned>(std::stoul(argv[4]));
    double t0 = bench::now();
    nl_sock* sk = connect();
    std::size_t failed = 0;
    for (int i : idx) {
      rtnl_link* orig = rtnl_link_alloc();
      rtnl_link_set_ifindex(orig, i);
      rtnl_link* change = rtnl_link_alloc();
      rtnl_link_set_mtu(change, mtu);
      if (rtnl_link_change(sk, orig, change, 0) < 0) ++failed;
      rtnl_link_put(change);
      rtnl_link_put(orig);
    }
    nl_socket_free(sk);
    bench::report(bench::now() - t0, idx.size(), failed);
    return failed ? 1 : 0;
  }
  if (cmd == "create-veth" && argc == 4) {
    std::size_t pairs = std::stoul(argv[3]);
    auto list = bench::names(argv[2], 2 * pairs);
    double t0 = bench::now();
    nl_sock* sk = connect();
    std::size_t failed = 0;
    for (std::size_t i = 0; i < pairs; ++i) {
      rtnl_link* link = rtnl_link_veth_alloc();
      rtnl_link_set_name(link, list[2 * i].c_str());
      rtnl_link_set_name(rtnl_link_veth_get_peer(link), list[2 * i + 1].c_str());
      if (rtnl_link_add(sk, link, NLM_F_CREATE | NLM_F_EXCL) < 0) ++failed;
      rtnl_link_veth_release(link);
    }
    nl_socket_free(sk);
    bench::report(bench::now() - t0, pairs, failed);
    return failed ? 1 : 0;
  }
  std::fprintf(stderr, "usage: libnl_peer mtu PREFIX COUNT MTU | create-veth PREFIX PAIRS\n");
  return 2;
} catch (const std::exception& e) {
  std::fprintf(stderr, "libnl_peer: %s\n", e.what());
  return 1;
}
