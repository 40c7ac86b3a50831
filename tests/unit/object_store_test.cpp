// The StateMirror's store (src/events/object_store.hpp): objects found by key in order, a
// message grown past its block moved without losing its place, blocks given back reused, large
// objects on the heap. (The mirror's behaviour on top of it: EventsTest, EventsGolden.)
#include "events/object_store.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace fastlink::events
