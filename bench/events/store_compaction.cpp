// What a compaction of the StateMirror's store costs (src/events/object_store.hpp), without a
// kernel: N route-sized objects (44 bytes, as a blackhole route) received into the log as a dump
// would be (datagrams of 32 KiB, every message kept in place), then a share of them replaced by
// copies of another size (the old versions dead), until the log's rule asks for a compaction;
// that compaction is timed (CPU of the process: the walk of the index and the moves) and
// printed with the bytes it moved and freed:
//   store_compaction [OBJECTS] [PERCENT_REPLACED]      (defaults: 1000000 60)
//   objects N replaced R live_mib L dead_mib D mapped_mib M -> compaction cpu_s C moved_mib V mapped_mib M2
#include <linux/netlink.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "../bench_common.hpp"
#include "events/object_store.hpp"

namespace {

// Key: the 4-byte big-endian number after the header (fixed width: byte order is key order).
void keyOf(const nlmsghdr* m, std::string& key) { key.assign(static_cast<const char*>(NLMSG_DATA(m)), 4); }

void write(void* at, uint32_t i, std::size_t size) {
  auto* m = static_cast<nlmsghdr*>(at);
  std::memset(m, 0, size);
  m->nlmsg_len = static_cast<uint32_t>(size);
  uint32_t be = __builtin_bswap32(i);
  std::memcpy(NLMSG_DATA(m), &be, 4);
}

}  // namespace

int main(int argc, char** argv) {
  const uint32_t n = argc > 1 ? static_cast<uint32_t>(std::atol(argv[1])) : 1000000;
  const uint32_t percent = argc > 2 ? static_cast<uint32_t>(std::atol(argv[2])) : 60;
  fastlink::events::MessageLog log;
  fastlink::events::ObjectTable table(keyOf);
  constexpr std::size_t kSize = 44;
  fastlink::events::ObjectTable::iterator last;
  std::string lastKey;
  for (uint32_t i = 0; i < n;) {
    std::span<uint8_t> room = log.room(0);
    std::size_t at = 0;
    for (; i < n && at + kSize <= std::min<std::size_t>(room.size(), 32768); ++i, at += kSize) {
      write(room.data() + at, i, kSize);
      auto* m = log.keep(reinterpret_cast<nlmsghdr*>(room.data() + at));
      std::string key;
      keyOf(m, key);
      last = table.insert(table.locate(key, i ? &last : nullptr, lastKey).first, m);
      lastKey = key;
    }
    log.received(at);
  }
  // PERCENT of the objects replaced by versions of another size, in key order, stopping as soon
  // as the rule asks for a compaction.
  // (Passes over the table again, alternating the size, until it is due.)
  uint32_t replaced = 0;
  for (std::size_t size = 48; !log.shouldCompact(); size = size == 48 ? 44 : 48) {
    auto it = table.begin();
    for (uint32_t i = 0; i < n && !log.shouldCompact(); ++i, ++it) {
      if ((i * percent) % 100 >= percent) continue;
      nlmsghdr* copy = log.allocate(size);
      write(copy, i, size);
      log.release(*it);
      table.replace(it, copy);
      ++replaced;
    }
  }
  const double mib = 1024.0 * 1024.0;
  std::printf("objects %u replaced %u live_mib %.1f dead_mib %.1f mapped_mib %.1f", n, replaced, log.liveBytes() / mib,
              log.deadBytes() / mib, log.bytes() / mib);
  const double c0 = bench::cpuSeconds();
  bool ran = log.startCompaction();
  if (ran) {
    table.relocate(log);
    log.finishCompaction();
  }
  std::printf(" -> compaction%s cpu_s %.4f moved_mib %.1f mapped_mib %.1f\n", ran ? "" : " (not due)",
              bench::cpuSeconds() - c0, log.bytesMoved() / mib, log.bytes() / mib);
  return 0;
}
