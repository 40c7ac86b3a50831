// The StateMirror's store (src/events/object_store.hpp): messages received into the log's chunks
// and kept where they arrived, copies, the flat index ordered by keys derived from the messages,
// and the compaction that moves live objects out of mostly dead chunks (bounded memory over a
// long run of changes, every object and every other pointer to one followed). (The mirror's
// behaviour on top of it: EventsTest, EventsGolden, MirrorPathsTest.)
#include "events/object_store.hpp"

#include "events/canonical.hpp"

// AddressSanitizer's runtime, linked into the sanitizer build only (null elsewhere).
extern "C" int __asan_address_is_poisoned(void const volatile* address) __attribute__((weak));

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace fastlink::events {
namespace {

// A test object: nlmsghdr, a u32 key length, the key, then a payload; padded to 4 bytes.
std::size_t objectSize(std::string_view key, std::string_view payload) {
  return NLMSG_ALIGN(NLMSG_HDRLEN + 4 + key.size() + payload.size());
}

void writeObject(void* at, std::string_view key, std::string_view payload) {
  auto* m = static_cast<nlmsghdr*>(at);
  std::memset(m, 0, objectSize(key, payload));
  m->nlmsg_len = static_cast<uint32_t>(objectSize(key, payload));
  uint32_t n = static_cast<uint32_t>(key.size());
  auto* body = static_cast<char*>(NLMSG_DATA(m));
  std::memcpy(body, &n, 4);
  std::memcpy(body + 4, key.data(), key.size());
  std::memcpy(body + 4 + key.size(), payload.data(), payload.size());
}

void testKey(const nlmsghdr* m, std::string& key) {
  uint32_t n;
  std::memcpy(&n, NLMSG_DATA(m), 4);
  key.assign(static_cast<const char*>(NLMSG_DATA(m)) + 4, n);
}

std::string payloadOf(const nlmsghdr* m, std::size_t size) {
  uint32_t n;
  std::memcpy(&n, NLMSG_DATA(m), 4);
  return std::string(static_cast<const char*>(NLMSG_DATA(m)) + 4 + n, size);
}

std::vector<std::string> keys(const ObjectTable& table) {
  std::vector<std::string> out;
  for (const nlmsghdr* o : table) out.push_back(table.keyOf(o));
  return out;
}

nlmsghdr* copy(MessageLog& log, std::string_view key, std::string_view payload) {
  nlmsghdr* m = log.allocate(objectSize(key, payload));
  writeObject(m, key, payload);
  return m;
}

ObjectTable::iterator put(MessageLog& log, ObjectTable& table, const std::string& key,
                          const ObjectTable::iterator* after = nullptr, std::string_view afterKey = {}) {
  auto [at, found] = table.locate(key, after, afterKey);
  EXPECT_FALSE(found) << key;
  return table.insert(at, copy(log, key, "p" + key));
}

TEST(ObjectStoreTest, LocatesByDerivedKeyWithAndWithoutTheDumpOrderHint) {
  MessageLog log;
  ObjectTable table(testKey);
  // In order, each after the last (a dump: the hint's key is the caller's), then out of order.
  ObjectTable::iterator last = put(log, table, "b");
  last = put(log, table, "d", &last, "b");
  last = put(log, table, "f", &last, "d");
  put(log, table, "a", &last, "f");  // the hint is past it: found by a search
  put(log, table, "e");
  ObjectTable::iterator b = table.find("b");
  put(log, table, "c", &b, "b");  // right after the hint, before its successor
  EXPECT_EQ(keys(table), (std::vector<std::string>{"a", "b", "c", "d", "e", "f"}));
  auto [at, found] = table.locate("d", &b, "b");
  EXPECT_TRUE(found);
  EXPECT_EQ(table.keyOf(*at), "d");
  ObjectTable::iterator c = table.find("c");
  auto [next, there] = table.locate("d", &c, "c");  // the hint's successor is the key itself
  EXPECT_TRUE(there);
  EXPECT_EQ(table.keyOf(*next), "d");
  EXPECT_EQ(table.successor(c), next);
  EXPECT_EQ(table.lowerBound("cz") == table.find("d"), true);
  std::string scratch;
  EXPECT_TRUE(table.keyStartsWith(*next, "", scratch));
  EXPECT_FALSE(table.keyStartsWith(*next, "e", scratch));
}

// A dump received into the log: the messages kept are where the "kernel" wrote them (no copy),
// the room after the last kept one is offered to the next datagram, a datagram nothing was kept
// of leaves its room to the next, and what was not kept before a kept one is dead from the start.
TEST(ObjectStoreTest, DatagramsAreReceivedIntoTheLogAndKeptWhereTheyArrived) {
  MessageLog log;
  std::span<uint8_t> room = log.room(0);
  ASSERT_GE(room.size(), 32768u);
  // Three messages: keep the first and the second, not the third.
  std::size_t at = 0;
  std::vector<nlmsghdr*> messages;
  for (const char* k : {"k1", "k2", "k3"}) {
    writeObject(room.data() + at, k, "payload");
    messages.push_back(reinterpret_cast<nlmsghdr*>(room.data() + at));
    at += objectSize(k, "payload");
  }
  EXPECT_TRUE(log.inRoom(messages[0]));
  EXPECT_EQ(log.keep(messages[0]), messages[0]);
  EXPECT_EQ(log.keep(messages[1]), messages[1]);
  log.received(at);
  EXPECT_FALSE(log.inRoom(messages[0]));  // the room is gone with the datagram
  EXPECT_EQ(log.liveBytes(), 2 * objectSize("k1", "payload"));
  // The next room starts after the second (8-aligned): the third's place is offered again.
  std::span<uint8_t> next = log.room(0);
  const auto end2 = reinterpret_cast<uintptr_t>(messages[1]) + objectSize("k2", "payload");
  EXPECT_EQ(reinterpret_cast<uintptr_t>(next.data()), (end2 + 7) & ~uintptr_t{7});
  // Nothing kept of this one: the same room again.
  writeObject(next.data(), "k4", "x");
  log.received(objectSize("k4", "x"));
  EXPECT_EQ(log.room(0).data(), next.data());
  // Kept after an unkept one: that one is dead.
  writeObject(next.data(), "k5", "x");
  auto* kept = reinterpret_cast<nlmsghdr*>(next.data() + objectSize("k5", "x"));
  writeObject(kept, "k6", "x");
  log.keep(kept);
  const std::size_t deadBefore = log.deadBytes();
  log.received(2 * objectSize("k5", "x"));
  EXPECT_EQ(log.deadBytes() - deadBefore, objectSize("k5", "x"));
  EXPECT_EQ(payloadOf(messages[0], 7), "payload");
  // A datagram larger than a chunk is received aside: nothing of it can be kept in place.
  std::span<uint8_t> large = log.room(MessageLog::kChunk + 1);
  EXPECT_GE(large.size(), MessageLog::kChunk + 1);
  EXPECT_FALSE(log.inRoom(large.data()));
  log.received(MessageLog::kChunk + 1);
  EXPECT_EQ(log.bytes(), MessageLog::kChunk);
}

// The index's blocks (ObjectTable::kPerBlock pointers each) against a std::map, the oracle: a
// dump's run in order (appends, full blocks starting new ones), runs in front of a block and in
// the middle of one (splits), random inserts and extracts walking on with the next position, and
// a hint made stale by later inserts. After every phase the order, find() and lowerBound()
// agree with the map's, and every message is its key's.
TEST(ObjectStoreTest, TheFlatIndexKeepsKeyOrderThroughSplitsAndExtractsAgainstAMap) {
  MessageLog log;
  ObjectTable table(testKey);
  std::map<std::string, std::string> oracle;
  auto key = [](int i) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "r%07d", i);
    return std::string(buf);
  };
  auto check = [&](const char* phase) {
    SCOPED_TRACE(phase);
    ASSERT_EQ(table.size(), oracle.size());
    auto it = table.begin();
    for (const auto& [k, m] : oracle) {
      ASSERT_NE(it, table.end());
      ASSERT_EQ(table.keyOf(*it), k);
      ASSERT_EQ(payloadOf(*it, m.size()), m);
      ++it;
    }
    EXPECT_EQ(it, table.end());
    for (const auto& [k, m] : oracle) {
      auto found = table.find(k);
      ASSERT_NE(found, table.end()) << k;
      ASSERT_EQ(table.keyOf(*found), k);
      std::string before = k.substr(0, k.size() - 1);  // a prefix: lower bound of a range
      auto lb = table.lowerBound(before);
      auto olb = oracle.lower_bound(before);
      ASSERT_EQ(table.keyOf(*lb), olb->first) << before;
    }
    EXPECT_EQ(table.find("r9999999x"), table.end());
    EXPECT_EQ(table.lowerBound("s"), table.end());
  };
  std::string lastKey;
  auto add = [&](const std::string& k, const ObjectTable::iterator* hint) {
    auto [at, found] = table.locate(k, hint, hint ? std::string_view(table.keyOf(**hint)) : std::string_view());
    EXPECT_EQ(found, oracle.count(k) == 1) << k;
    if (found) return at;
    std::string m = "m" + k;
    auto it = table.insert(at, copy(log, k, m));
    oracle.emplace(k, m);
    return it;
  };
  // A dump in order: even keys 0..9998, each after the one before (~10 blocks).
  ObjectTable::iterator last;
  for (int i = 0; i < 10000; i += 2) last = add(key(i), i ? &last : nullptr);
  check("a dump in order");
  // A run in front of everything (before the first block's first key), then one in the middle
  // of full blocks (odd keys 3001..4999, in order, each after the one before).
  last = add("a" + key(0), nullptr);
  for (int i = 3001; i < 5000; i += 2) last = add(key(i), &last);
  check("runs in front and in the middle");
  // The same keys again: found where the hint says.
  for (int i = 3001; i < 5000; i += 2) last = add(key(i), &last);
  // A stale hint: the position of an early key, after inserts before it shifted everything.
  ObjectTable::iterator stale = table.find(key(100));
  for (int i = 1; i < 100; i += 2) add(key(i), nullptr);
  add(key(7001), &stale);
  add(key(9999), &stale);
  check("a stale hint");
  // Random inserts and extracts; extracts walk on with the next position.
  std::mt19937 rng(29);
  for (int round = 0; round < 3000; ++round) {
    int i = static_cast<int>(rng() % 12000);
    if (rng() % 2) {
      add(key(i), nullptr);
    } else if (auto it = table.find(key(i)); it != table.end()) {
      ObjectTable::iterator next;
      nlmsghdr* o = table.extract(it, &next);
      auto after = oracle.upper_bound(key(i));
      if (after == oracle.end()) EXPECT_EQ(next, table.end());
      else EXPECT_EQ(table.keyOf(*next), after->first);
      log.release(o);
      oracle.erase(key(i));
    }
  }
  check("random inserts and extracts");
  // A range swept as the mirror sweeps: every other key of 2000..5999 extracted while walking.
  for (auto it = table.lowerBound(key(2000)); it != table.end() && table.keyOf(*it) < key(6000);) {
    std::string k = table.keyOf(*it);
    if (std::stoi(k.substr(1)) % 4 == 0) {
      log.release(table.extract(it, &it));
      oracle.erase(k);
    } else {
      ++it;
    }
  }
  check("a sweep");
  // Everything extracted: no block left.
  while (table.begin() != table.end()) log.release(table.extract(table.begin()));
  oracle.clear();
  check("empty");
}

// A dump in order appends (ObjectTable::append: no search; a new block when the last is full).
// The blocks come from slabs the table maps; those of an emptied table are taken again, not
// mapped anew.
TEST(ObjectStoreTest, AppendedObjectsKeepTheirOrderAndEmptiedBlocksAreReused) {
  MessageLog log;
  ObjectTable table(testKey);
  auto key = [](int i) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "r%07d", i);
    return std::string(buf);
  };
  auto fill = [&] {
    for (int i = 0; i < 5000; ++i) {
      auto it = table.append(copy(log, key(i), "m"));
      ASSERT_EQ(table.keyOf(*it), key(i));
    }
    ASSERT_EQ(table.size(), 5000u);
    int i = 0;
    for (const nlmsghdr* o : table) ASSERT_EQ(table.keyOf(o), key(i++));
    for (int j = 0; j < 5000; j += 7) ASSERT_NE(table.find(key(j)), table.end()) << key(j);
  };
  fill();
  const std::size_t bytes = table.indexBytes();
  EXPECT_GE(bytes, 5000 * sizeof(void*));
  while (table.begin() != table.end()) log.release(table.extract(table.begin()));
  fill();
  EXPECT_EQ(table.indexBytes(), bytes) << "the emptied table's blocks were not reused";
}

// keyLess (8 bytes at a time) is std::string_view's order: keys with bytes above 0x7f, equal
// words, one a prefix of the other, of every length around the word size.
TEST(ObjectStoreTest, KeyLessIsTheKeysByteOrder) {
  std::mt19937 rng(7);
  const char alphabet[] = {'\x00', '\x01', '\x7f', '\x80', '\xff'};
  std::vector<std::string> keys{""};
  for (int i = 0; i < 400; ++i) {
    std::string k(rng() % 40, '\0');
    for (char& c : k) c = alphabet[rng() % sizeof alphabet];
    keys.push_back(k);
    keys.push_back(k.substr(0, rng() % (k.size() + 1)));  // a prefix of it
  }
  for (const auto& a : keys)
    for (const auto& b : keys)
      ASSERT_EQ(keyLess(a, b), std::string_view(a) < std::string_view(b))
          << "'" << a.size() << " bytes' against '" << b.size() << " bytes'";
}

// A long run of changes (a mirror followed for days): objects received in place and copied,
// replaced by versions of other sizes and deleted at random, with a side list of pointers to some
// of them (as the mirror's lists of routes by device). The mirror's rule runs after every change
// (compact when shouldCompact()): the memory stays within twice the live bytes plus the slack
// the rule allows, the compactions run, and after each one every object, found by key or by the
// side list, is the oracle's.
TEST(ObjectStoreTest, CompactionBoundsTheMemoryOfALongRunOfChangesAndKeepsEveryObject) {
  MessageLog log;
  ObjectTable table(testKey);
  std::map<std::string, std::string> oracle;
  std::map<std::string, nlmsghdr*> side;  // pointers held besides the index
  std::mt19937 rng(35);
  auto key = [](uint32_t i) { return "obj" + std::to_string(100000 + i); };
  auto payload = [&](uint32_t i) { return std::string(8 + rng() % 120, static_cast<char>('a' + i % 26)); };
  auto compactIfDue = [&] {
    if (!log.startCompaction()) return false;
    table.relocate(log);
    for (auto& [k, p] : side) p = log.forwarded(p);
    log.finishCompaction();
    return true;
  };
  auto verify = [&](const char* when) {
    SCOPED_TRACE(when);
    ASSERT_EQ(table.size(), oracle.size());
    for (const auto& [k, m] : oracle) {
      auto it = table.find(k);
      ASSERT_NE(it, table.end()) << k;
      ASSERT_EQ(payloadOf(*it, m.size()), m) << k;
    }
    for (const auto& [k, p] : side) {
      ASSERT_EQ(*table.find(k), p) << k;
      std::string derived;
      testKey(p, derived);
      ASSERT_EQ(derived, k);
    }
  };
  // The start: 10,000 objects received as a dump, kept where they arrived.
  constexpr uint32_t kObjects = 10000;
  ObjectTable::iterator last;
  for (uint32_t i = 0; i < kObjects;) {
    std::span<uint8_t> room = log.room(0);
    std::size_t at = 0;
    for (; i < kObjects; ++i) {
      std::string k = key(i), p = payload(i);
      if (at + objectSize(k, p) > std::min<std::size_t>(room.size(), 32768)) break;
      writeObject(room.data() + at, k, p);
      auto* m = log.keep(reinterpret_cast<nlmsghdr*>(room.data() + at));
      last = table.insert(table.locate(k, i ? &last : nullptr, i ? key(i - 1) : "").first, m);
      oracle[k] = p;
      if (i % 7 == 0) side[k] = m;
      at += objectSize(k, p);
    }
    log.received(at);
  }
  verify("after the start");
  const std::size_t startBytes = log.bytes();
  std::size_t compactions = 0, peak = 0;
  // 250,000 changes: 25 times the objects, each replaced or deleted and added again.
  for (int change = 0; change < 250000; ++change) {
    uint32_t i = rng() % kObjects;
    std::string k = key(i);
    auto it = table.find(k);
    if (it == table.end()) {
      std::string p = payload(i);
      nlmsghdr* m = copy(log, k, p);
      table.insert(table.locate(k).first, m);
      oracle[k] = p;
    } else if (rng() % 4 == 0) {
      log.release(table.extract(it));
      oracle.erase(k);
      side.erase(k);
    } else {
      std::string p = payload(i);
      nlmsghdr* m = copy(log, k, p);
      log.release(*it);
      table.replace(it, m);
      oracle[k] = p;
      if (side.count(k)) side[k] = m;
    }
    if (compactIfDue()) {
      ++compactions;
      if (compactions % 10 == 1) verify("after a compaction");
    }
    peak = std::max(peak, log.bytes());
    // The bound: dead bytes beyond max(live, kMinDead) wait one change at most; the chunks'
    // headers and unused ends, the two being filled and the spare ones come on top.
    const std::size_t dead = std::max(log.liveBytes(), MessageLog::kMinDead) + 256;
    ASSERT_LE(log.deadBytes(), dead) << "change " << change << ", " << compactions << " compactions";
    ASSERT_LE(log.bytes(), log.liveBytes() + dead + (MessageLog::kSpareChunks + 3) * MessageLog::kChunk)
        << "change " << change << ", " << compactions << " compactions";
  }
  verify("at the end");
  EXPECT_GE(compactions, 2u);
  EXPECT_GT(log.bytesMoved(), 0u);
  EXPECT_GE(peak, startBytes);
  std::cout << "10,000 objects, 250,000 changes: " << compactions << " compactions moved " << log.bytesMoved()
            << " bytes; peak " << peak / 1024 << " KiB, live " << log.liveBytes() / 1024 << " KiB\n";
  // Everything deleted: a compaction gives the chunks back.
  while (table.begin() != table.end()) log.release(table.extract(table.begin()));
  side.clear();
  // (Below kMinDead of garbage nothing runs; the objects' bytes are all dead now.)
  if (log.deadBytes() > MessageLog::kMinDead) {
    EXPECT_TRUE(compactIfDue());
    EXPECT_LE(log.bytes(), (MessageLog::kSpareChunks + 2) * MessageLog::kChunk);
  }
}

// The sanitizer build catches an object read after its release and a pointer kept across a
// compaction (the chunk it pointed into is poisoned or gone). The test sources are compiled as
// in the Release build (for ccache), so ASan's runtime is asked through its interface, present
// only in the sanitizer build's binary. Without it the test checks what the Release build can:
// the released bytes are dead in the accounting, the moved object whole at its new place.
TEST(ObjectStoreTest, AnObjectReadAfterItsReleaseIsCaughtInTheSanitizerBuild) {
  const bool asan = __asan_address_is_poisoned != nullptr;
  if (asan) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    auto readAfterRelease = [&] {
      MessageLog log;
      ObjectTable table(testKey);
      put(log, table, "k1");
      nlmsghdr* o = table.extract(table.find("k1"));
      log.release(o);
      std::string key;
      testKey(o, key);
    };
    EXPECT_DEATH(readAfterRelease(), "use-after-poison");
  } else {
    std::cout << "no ASan runtime (Release build): checking the accounting and the move only\n";
  }
  MessageLog log;
  ObjectTable table(testKey);
  put(log, table, "k1");
  nlmsghdr* o = *table.find("k1");
  if (asan) {
    EXPECT_FALSE(__asan_address_is_poisoned(o));
  }
  const std::size_t live = log.liveBytes();
  log.release(table.extract(table.find("k1")));
  EXPECT_EQ(log.liveBytes(), 0u);
  EXPECT_EQ(log.deadBytes() >= live, true);
  if (asan) {
    EXPECT_TRUE(__asan_address_is_poisoned(o));
  }
  // A compaction moves a live object; its old place is no longer readable.
  std::vector<nlmsghdr*> doomed;
  for (int i = 0; i < 20000; ++i) doomed.push_back(copy(log, "d" + std::to_string(i), std::string(500, 'x')));
  put(log, table, "survivor");
  for (nlmsghdr* d : doomed) log.release(d);
  nlmsghdr* before = *table.find("survivor");
  ASSERT_TRUE(log.startCompaction());
  table.relocate(log);
  log.finishCompaction();
  nlmsghdr* after = *table.find("survivor");
  EXPECT_NE(after, before);
  EXPECT_EQ(table.keyOf(after), "survivor");
  EXPECT_EQ(payloadOf(after, 9), "psurvivor");
  // Its old chunk is either spare (poisoned) or back with the system (a read would fault).
  unsigned char resident;
  const bool mapped = ::mincore(reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(before) & ~uintptr_t{4095}), 4096,
                                &resident) == 0;
  if (asan && mapped) {
    EXPECT_TRUE(__asan_address_is_poisoned(before));
  }
}

// One attribute of a hand-built route message at `at` (advanced past it, aligned).
void putRouteAttr(std::vector<uint8_t>& m, std::size_t& at, uint16_t type, const std::vector<uint8_t>& value) {
  uint16_t len = static_cast<uint16_t>(4 + value.size());
  std::memcpy(m.data() + at, &len, 2);
  std::memcpy(m.data() + at + 2, &type, 2);
  std::memcpy(m.data() + at + 4, value.data(), value.size());
  at += NLA_ALIGN(len);
}

// What the mirror's index derives must be the key canonicalize gives: a route's stored form
// (received, header normalised) read back by storedKey, for IPv4 and IPv6, with a gateway and
// without one.
TEST(ObjectStoreTest, StoredKeyOfARouteIsItsCanonicalKey) {
  for (uint8_t family : {uint8_t{2}, uint8_t{10}}) {
    const std::size_t width = family == 2 ? 4 : 16;
    for (bool gateway : {false, true}) {
      std::vector<uint8_t> m(256, 0);
      auto* h = reinterpret_cast<nlmsghdr*>(m.data());
      h->nlmsg_type = 24;  // RTM_NEWROUTE
      h->nlmsg_flags = 2;  // NLM_F_MULTI, as dumped
      h->nlmsg_seq = 77;
      uint8_t* p = m.data() + NLMSG_HDRLEN;
      uint8_t rtm[12] = {family, static_cast<uint8_t>(width * 8 - 8), 0, 0, 254, 3, 0, 1, 0, 0, 0, 0};
      std::memcpy(p, rtm, sizeof rtm);
      std::size_t at = NLMSG_HDRLEN + sizeof rtm;
      auto attr = [&](uint16_t type, std::vector<uint8_t> value) { putRouteAttr(m, at, type, value); };
      attr(15, {100, 0, 0, 0});                       // RTA_TABLE
      attr(1, std::vector<uint8_t>(width, 0x0a));     // RTA_DST
      attr(6, {5, 0, 0, 0});                          // RTA_PRIORITY
      attr(4, {3, 0, 0, 0});                          // RTA_OIF
      if (gateway) attr(5, std::vector<uint8_t>(width, 0x0b));  // RTA_GATEWAY
      h->nlmsg_len = static_cast<uint32_t>(at);
      Canonical c = canonicalizeLazily(h);
      ASSERT_TRUE(c.valid);
      std::string stored = takeMessage(c);
      std::string key;
      storedKey(reinterpret_cast<const nlmsghdr*>(stored.data()), key);
      EXPECT_EQ(key, c.key) << "family " << int(family) << (gateway ? " with" : " without") << " a gateway";
      EXPECT_EQ(c.key.substr(0, 5 + width + 1).back(), static_cast<char>(width * 8 - 8));  // the length after the address
    }
  }
}


// A route's key byte by byte, as the layout says (family, table, destination padded to the
// family's width, its length, tos, metric, source length, source, output device, nexthop id,
// gateway unless over a nexthop object; the numbers big-endian): the key is written 8 bytes at a
// time from a word collected in a register, whose fields straddle the words differently for
// each width and with or without a gateway, a destination or a nexthop object.
TEST(ObjectStoreTest, RouteKeysAreWrittenByteForByteAsTheLayoutSays) {
  for (uint8_t family : {uint8_t{2}, uint8_t{10}}) {
    const std::size_t width = family == 2 ? 4 : 16;
    for (int shape = 0; shape < 3; ++shape) {  // 0: a gateway; 1: over nexthop 0x0a0b0c0d; 2: the default route
      const bool nexthop = shape == 1, defaultRoute = shape == 2;
      std::vector<uint8_t> m(256, 0);
      auto* h = reinterpret_cast<nlmsghdr*>(m.data());
      h->nlmsg_type = 24;  // RTM_NEWROUTE
      const uint8_t dstLen = defaultRoute ? 0 : static_cast<uint8_t>(width * 8 - 3);
      uint8_t rtm[12] = {family, dstLen, 7, 0x1c, 254, 3, 0, 1, 0, 0, 0, 0};  // src_len 7, tos 0x1c
      std::memcpy(m.data() + NLMSG_HDRLEN, rtm, sizeof rtm);
      std::size_t at = NLMSG_HDRLEN + sizeof rtm;
      auto attr = [&](uint16_t type, std::vector<uint8_t> value) { putRouteAttr(m, at, type, value); };
      std::vector<uint8_t> dst(width), src(width), gateway(width);
      for (std::size_t i = 0; i < width; ++i) {
        dst[i] = static_cast<uint8_t>(0x10 + i);
        src[i] = static_cast<uint8_t>(0x40 + i);
        gateway[i] = static_cast<uint8_t>(0x70 + i);
      }
      attr(15, {0x04, 0x03, 0x02, 0x01});  // RTA_TABLE 0x01020304
      if (!defaultRoute) attr(1, dst);     // RTA_DST
      attr(2, src);                        // RTA_SRC
      attr(6, {0x24, 0x23, 0x22, 0x21});   // RTA_PRIORITY 0x21222324
      attr(4, {0x34, 0x33, 0x32, 0x31});   // RTA_OIF 0x31323334
      if (nexthop) attr(30, {0x0d, 0x0c, 0x0b, 0x0a});  // RTA_NH_ID 0x0a0b0c0d
      else attr(5, gateway);                            // RTA_GATEWAY
      h->nlmsg_len = static_cast<uint32_t>(at);

      std::vector<uint8_t> want{family, 0x01, 0x02, 0x03, 0x04};
      if (defaultRoute) want.insert(want.end(), width, 0);
      else want.insert(want.end(), dst.begin(), dst.end());
      want.insert(want.end(), {dstLen, 0x1c, 0x21, 0x22, 0x23, 0x24, 7});
      want.insert(want.end(), src.begin(), src.end());
      if (nexthop) want.insert(want.end(), {0, 0, 0, 0, 0x0a, 0x0b, 0x0c, 0x0d});
      else want.insert(want.end(), {0x31, 0x32, 0x33, 0x34, 0, 0, 0, 0});
      if (!nexthop) want.insert(want.end(), gateway.begin(), gateway.end());

      Canonical c = canonicalize(h);
      ASSERT_TRUE(c.valid);
      EXPECT_EQ(std::vector<uint8_t>(c.key.begin(), c.key.end()), want)
          << "family " << int(family) << ", " << (nexthop ? "over a nexthop" : defaultRoute ? "the default route" : "a gateway");
      EXPECT_EQ(c.identityLength, 12 + 2 * width);
    }
  }
}

}  // namespace
}  // namespace fastlink::events
