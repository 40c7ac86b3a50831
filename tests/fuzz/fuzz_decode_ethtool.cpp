// libFuzzer harness for the ethtool reply decoders (src/ethtool/ethtool_codec.cpp). The input is a
// message body (genlmsghdr + attributes); the harness puts an nlmsghdr in front, as the engine
// hands over a message that passed mnl_nlmsg_ok, and the genl command byte picks the decoder
// (the kernel's reply command numbers: 1 strset, 12 features, 16 rings, 18 channels,
// 20 coalesce, 29 tunnel info, 30 FEC, 33 stats; anything else tries them all). Every input is also decoded as a
// notification (decodeEthtoolEvent: 13 features, 17 rings, 19 channels, 21 coalesce).
#include <linux/netlink.h>
#include "fuzz_message.hpp"

#include <cstring>
#include <vector>

#include "fastlink/error.hpp"
#include "fastlink/ethtool_events.hpp"
#include "ethtool/ethtool_codec.hpp"

namespace {

template <class F>
void guarded(F f) {
  try {
    f();
  } catch (const fastlink::Error&) {
    // malformed input is reported as an Error: fine
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 65536) return 0;
  fastlink::fuzz::FuzzMessage message(data, size, 0x14);
  nlmsghdr* h = message.header();
  using namespace fastlink::genl;
  uint8_t cmd = size ? data[0] : 0;
  bool all = cmd != 1 && cmd != 12 && cmd != 16 && cmd != 18 && cmd != 20 && cmd != 29 && cmd != 30 && cmd != 33;
  std::vector<std::string> names;
  if (cmd == 1 || all) guarded([&] { names = decodeStringSet(h); });
  if (cmd == 12 || all) guarded([&] {
      auto f = decodeFeatures(h, names);
      volatile std::size_t sink = f.features.size();
      for (const auto& x : f.features) sink = sink + x.name.size() + x.fixed();
    });
  if (cmd == 16 || all) guarded([&] { (void)decodeRings(h); });
  if (cmd == 18 || all) guarded([&] { (void)decodeChannels(h); });
  if (cmd == 20 || all) guarded([&] { (void)decodeCoalesce(h); });
  if (cmd == 29 || all) guarded([&] {
      auto t = decodeTunnelInfo(h, names);
      volatile std::size_t sink = t.udpTables.size();
      (void)sink;
    });
  if (cmd == 30 || all) guarded([&] {
      auto f = decodeFec(h);
      volatile std::size_t sink = f.stats && f.stats->correctedBlocks ? f.stats->correctedBlocks->lanes.size() : 0;
      (void)sink;
    });
  if (cmd == 33 || all) guarded([&] {
      auto g = decodeStats(h);
      volatile std::size_t sink = g.size();
      (void)sink;
    });
  guarded([&] {
    fastlink::Notification n{std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(h), h->nlmsg_len), std::nullopt};
    auto e = fastlink::decodeEthtoolEvent(n, names);
    volatile std::size_t sink = e ? e->ifname.size() + e->ifindex : 0;
    (void)sink;
  });
  return 0;
}
