// The kernel WireGuard codec alone, no kernel: WG_CMD_SET_DEVICE of N peers cut at the default
// budget (encodeWgSetDevice) and those messages folded back (WgDeviceFolder, the dump reader), as
// process CPU time, median and best of R. For an A/B of a codec change: the same binary linked
// against two builds, run alternately (docs/BENCHMARKS.md, "WireGuard codec on tables").
//   build/bench/wg_codec_bench [N=20000] [R=15]
#include <time.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <linux/netlink.h>
#include "fastlink/wireguard.hpp"
#include "wg/wireguard_codec.hpp"
using namespace fastlink;
static double cpu() { timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec / 1e9; }
int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 20000, reps = argc > 2 ? atoi(argv[2]) : 15;
  WgDevice d("wg0");
  d.setPrivateKey(WgKey::generatePrivate()).setListenPort(51820).setReplacePeers();
  for (int i = 0; i < n; ++i) {
    WgPeer p(WgKey::generatePrivate().publicKey());
    p.setPersistentKeepalive(25).setReplaceAllowedIps();
    p.setEndpoint(WgEndpoint::parse(i % 2 ? "192.0.2." + std::to_string(i % 250 + 1) + ":51820" : "[2001:db8::" + std::to_string(i % 9000 + 1) + "]:51820"));
    p.addAllowedIp(WgAllowedIp::parse("10." + std::to_string(i / 65536) + "." + std::to_string(i / 256 % 256) + "." + std::to_string(i % 256) + "/32"));
    if (i % 2) p.addAllowedIp(WgAllowedIp::parse("fd00::" + std::to_string(i % 9000 + 1) + "/128"));
    d.addPeer(p);
  }
  std::vector<double> enc, dec;
  std::size_t peers = 0;
  for (int r = 0; r < reps; ++r) {
    double t0 = cpu();
    auto requests = wg::encodeWgSetDevice(0x1d, d);
    double t1 = cpu();
    wg::WgDeviceFolder folder;
    for (const auto& q : requests) folder.add(reinterpret_cast<const nlmsghdr*>(q.bytes().data()));
    double t2 = cpu();
    peers = folder.device().peers.size();
    enc.push_back(t1 - t0), dec.push_back(t2 - t1);
  }
  std::sort(enc.begin(), enc.end()), std::sort(dec.begin(), dec.end());
  std::printf("%d peers (%zu folded): encode median %.2f ms min %.2f; fold median %.2f ms min %.2f\n", n, peers,
              enc[reps / 2] * 1e3, enc[0] * 1e3, dec[reps / 2] * 1e3, dec[0] * 1e3);
}
