// The StateMirror's store (src/events/object_store.hpp): objects found by key in order, a
// message grown past its block moved without losing its place, blocks given back reused, large
// objects on the heap. (The mirror's behaviour on top of it: EventsTest, EventsGolden.)
#include "events/object_store.hpp"

#include "events/canonical.hpp"

// AddressSanitizer's runtime, linked into the sanitizer build only (null elsewhere).
extern "C" int __asan_address_is_poisoned(void const volatile* address) __attribute__((weak));

#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace fastlink::events {
namespace {

std::vector<std::string> keys(const ObjectTable& table) {
  std::vector<std::string> out;
  for (const StoredObject* o : table) out.emplace_back(o->key());
  return out;
}

ObjectTable::iterator put(ObjectTable& table, const std::string& key, const std::string& message,
                          const ObjectTable::iterator* after = nullptr) {
  auto [at, found] = table.locate(key, after);
  EXPECT_FALSE(found) << key;
  auto it = table.insert(at, key, message.size());
  std::memcpy((*it)->messageData(), message.data(), message.size());
  return it;
}

TEST(ObjectStoreTest, LocatesByKeyWithAndWithoutTheDumpOrderHint) {
  BlockArena arena;
  ObjectTable table(arena);
  // In order, each after the last (a dump), then out of order with a wrong hint.
  ObjectTable::iterator last = put(table, "b", "B");
  last = put(table, "d", "D", &last);
  last = put(table, "f", "F", &last);
  put(table, "a", "A", &last);  // the hint is past it: found by a descent
  put(table, "e", "E");
  ObjectTable::iterator b = table.find("b");
  put(table, "c", "C", &b);  // right after the hint, before its successor
  EXPECT_EQ(keys(table), (std::vector<std::string>{"a", "b", "c", "d", "e", "f"}));
  auto [at, found] = table.locate("d", &b);
  EXPECT_TRUE(found);
  EXPECT_EQ((*at)->message(), "D");
  ObjectTable::iterator c = table.find("c");
  auto [next, there] = table.locate("d", &c);  // the hint's successor is the key itself
  EXPECT_TRUE(there);
  EXPECT_EQ((*next)->key(), "d");
  EXPECT_EQ(table.lowerBound("cz") == table.find("d"), true);
}

TEST(ObjectStoreTest, AGrownMessageMovesAndKeepsItsPlaceKeyAndGeneration) {
  BlockArena arena;
  ObjectTable table(arena);
  put(table, "k1", "one");
  ObjectTable::iterator it = put(table, "k2", "two");
  put(table, "k3", "three");
  (*it)->generation = 7;
  StoredObject* before = *it;
  // Shorter: in place.
  it = table.resize(it, 2);
  EXPECT_EQ(*it, before);
  EXPECT_EQ((*it)->message(), "tw");
  // Longer than its block: moved, the old block free for the next object of its size.
  std::string longer(200, 'x');
  it = table.resize(it, longer.size());
  std::memcpy((*it)->messageData(), longer.data(), longer.size());
  EXPECT_NE(*it, before);
  EXPECT_EQ((*it)->key(), "k2");
  EXPECT_EQ((*it)->generation, 7u);
  EXPECT_EQ((*it)->message(), longer);
  EXPECT_EQ(keys(table), (std::vector<std::string>{"k1", "k2", "k3"}));
  EXPECT_EQ(table.find("k2"), it);
  ObjectTable::iterator again = put(table, "k0", "two");  // k2's first block's size
  EXPECT_EQ(*again, before);
}

TEST(ObjectStoreTest, ReleasedBlocksAreReusedAndLargeObjectsComeFromTheHeap) {
  BlockArena arena;
  ObjectTable table(arena);
  for (int i = 0; i < 1000; ++i) put(table, "key" + std::to_string(1000 + i), std::string(40, 'm'));
  std::size_t held = arena.bytes();
  EXPECT_GE(held, 1000 * (sizeof(StoredObject) + 40));
  // Half of them gone and stored again: no more memory.
  for (int i = 0; i < 1000; i += 2) {
    StoredObject* o = table.extract(table.find("key" + std::to_string(1000 + i)));
    table.release(o);
  }
  EXPECT_EQ(table.size(), 500u);
  for (int i = 0; i < 1000; i += 2) put(table, "key" + std::to_string(1000 + i), std::string(40, 'n'));
  EXPECT_EQ(arena.bytes(), held);
  // A message larger than the arena's largest block: the heap's, counted, freed with it.
  put(table, "large", std::string(3 * BlockArena::kLargest, 'L'));
  EXPECT_GE(arena.bytes(), held + 3 * BlockArena::kLargest);
  ObjectTable::iterator large = table.find("large");
  EXPECT_EQ((*large)->message(), std::string(3 * BlockArena::kLargest, 'L'));
  table.release(table.extract(large));
  EXPECT_EQ(arena.bytes(), held);
}


// The index's blocks (ObjectTable::kPerBlock pointers each) against a std::map, the oracle: a
// dump's run in order (appends, full blocks starting new ones), runs in front of a block and in
// the middle of one (splits), random inserts and extracts walking on with the next position, and
// a hint made stale by later inserts. After every phase the order, find() and lowerBound()
// agree with the map's, and every message is its key's.
TEST(ObjectStoreTest, TheFlatIndexKeepsKeyOrderThroughSplitsAndExtractsAgainstAMap) {
  BlockArena arena;
  ObjectTable table(arena);
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
      ASSERT_EQ((*it)->key(), k);
      ASSERT_EQ((*it)->message(), m);
      ++it;
    }
    EXPECT_EQ(it, table.end());
    for (const auto& [k, m] : oracle) {
      auto found = table.find(k);
      ASSERT_NE(found, table.end()) << k;
      ASSERT_EQ((*found)->key(), k);
      std::string before = k.substr(0, k.size() - 1);  // a prefix: lower bound of a range
      auto lb = table.lowerBound(before);
      auto olb = oracle.lower_bound(before);
      ASSERT_EQ((*lb)->key(), olb->first) << before;
    }
    EXPECT_EQ(table.find("r9999999x"), table.end());
    EXPECT_EQ(table.lowerBound("s"), table.end());
  };
  auto add = [&](const std::string& k, const ObjectTable::iterator* hint) {
    auto [at, found] = table.locate(k, hint);
    EXPECT_EQ(found, oracle.count(k) == 1) << k;
    if (found) return at;
    std::string m = "m" + k;
    auto it = table.insert(at, k, m.size());
    std::memcpy((*it)->messageData(), m.data(), m.size());
    oracle.emplace(k, m);
    return it;
  };
  // A dump in order: even keys 0..9998, each after the one before (~10 blocks).
  ObjectTable::iterator last;
  for (int i = 0; i < 10000; i += 2) last = add(key(i), i ? &last : nullptr);
  check("a dump in order");
  // A run in front of everything (before the first block's first key), then one in the middle
  // of full blocks (odd keys 3001..4999, in order, each after the one before).
  for (int i = 0; i < 1; ++i) last = add("a" + key(i), nullptr);
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
      StoredObject* o = table.extract(it, &next);
      auto after = oracle.upper_bound(key(i));
      if (after == oracle.end()) EXPECT_EQ(next, table.end());
      else EXPECT_EQ((*next)->key(), after->first);
      table.release(o);
      oracle.erase(key(i));
    }
  }
  check("random inserts and extracts");
  // A range swept as the mirror sweeps: every other key of 2000..5999 extracted while walking.
  for (auto it = table.lowerBound(key(2000)); it != table.end() && (*it)->key() < key(6000);) {
    std::string k((*it)->key());
    if (std::stoi(k.substr(1)) % 4 == 0) {
      table.release(table.extract(it, &it));
      oracle.erase(k);
    } else {
      ++it;
    }
  }
  check("a sweep");
  // Everything extracted: no block left.
  while (table.begin() != table.end()) table.release(table.extract(table.begin()));
  oracle.clear();
  check("empty");
  EXPECT_EQ(table.indexBytes() > 0, true);
}

// The sanitizer build catches an object read after its release: the arena poisons what it takes
// back (a read of it by the library, here setLinkdown's, dies) and unpoisons a block it hands out
// again. The test sources are compiled as in the Release build (for ccache), so ASan's runtime
// is asked through its interface, present only in the sanitizer build's binary. Without it the
// test checks what the Release build can: the released block is the one handed out again, whole
// and usable (run_gtest accepts no skip for "needs the sanitizer build").
TEST(ObjectStoreTest, AnObjectReadAfterItsReleaseIsCaughtInTheSanitizerBuild) {
  const bool asan = __asan_address_is_poisoned != nullptr;
  const std::string route(32, '\0');  // as long as a route message's headers
  if (asan) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    auto readAfterRelease = [&] {
      BlockArena arena;
      ObjectTable table(arena);
      put(table, "k1", route);
      StoredObject* o = table.extract(table.find("k1"));
      table.release(o);
      setLinkdown({o->messageData(), route.size()}, true);
    };
    EXPECT_DEATH(readAfterRelease(), "use-after-poison");
  } else {
    std::cout << "no ASan runtime (Release build): checking the block's reuse only\n";
  }
  BlockArena arena;
  ObjectTable table(arena);
  put(table, "k1", route);
  StoredObject* o = *table.find("k1");
  if (asan) {
    EXPECT_FALSE(__asan_address_is_poisoned(o->messageData()));
  }
  table.release(table.extract(table.find("k1")));
  if (asan) {
    EXPECT_TRUE(__asan_address_is_poisoned(o->messageData()));
  }
  put(table, "k2", route);  // the same block again
  EXPECT_EQ(*table.find("k2"), o);
  if (asan) {
    EXPECT_FALSE(__asan_address_is_poisoned(o->messageData()));
  }
  EXPECT_FALSE(setLinkdown({o->messageData(), route.size()}, false));
}

}  // namespace
}  // namespace fastlink::events
