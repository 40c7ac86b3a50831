// The StateMirror's store: each mirrored object is one block holding its book-keeping, its key and
// its stored (canonical) message, carved from large chunks; the objects of a kind are ordered by
// key in a tree whose nodes come from the same chunks. A sync of a million routes made three heap
// allocations per route (tree node, key string, message string) and touched ~290 bytes each;
// here it makes none (a chunk per ~5,000 routes) and touches ~200.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <memory>
#include <set>
#include <span>
#include <string_view>
#include <vector>

namespace fastlink::events {

/// Blocks of sizes rounded to 8 bytes, from chunks, each size with a free list of the blocks given
/// back (reused by the next block of that size). Larger blocks come from the heap. Chunks start
/// at 64 KiB and double up to 2 MiB, those aligned and backed by huge pages where the system
/// allows (THP "madvise"): a million routes then fault ~100 pages in instead of ~40,000 (the
/// faults were a fifth of a sync's own time). Nothing goes back to the system before the arena
/// dies: a mirror's tables grow back to their size after a mass delete (the next dump), so that
/// memory is kept for them.
class BlockArena {
 public:
  static constexpr std::size_t kGrain = 8;
  static constexpr std::size_t kLargest = 4096;  ///< larger blocks: operator new
  static constexpr std::size_t kFirstChunk = std::size_t{64} << 10;
  static constexpr std::size_t kHugeChunk = std::size_t{1} << 20;

  BlockArena() : free_(kLargest / kGrain + 1, nullptr) {}
  ~BlockArena();
  BlockArena(const BlockArena&) = delete;
  BlockArena& operator=(const BlockArena&) = delete;

  /// The size a block of `n` bytes really has (what release() must be given back).
  static std::size_t rounded(std::size_t n) { return (n + kGrain - 1) & ~(kGrain - 1); }

  void* allocate(std::size_t n);
  void release(void* p, std::size_t n);
  /// Bytes taken from the system (chunks and large blocks).
  std::size_t bytes() const { return chunkBytes_ + largeBytes_; }

 private:
  std::vector<void*> free_;  // per size class: a singly linked list through the blocks
  std::vector<std::pair<void*, std::size_t>> chunks_;  // (mmap'd region, its size)
  std::size_t chunkBytes_ = 0;
  std::byte* next_ = nullptr;
  std::size_t left_ = 0;
  std::size_t largeBytes_ = 0;
};

/// A std allocator over a BlockArena (the tree's nodes).
template <class T>
struct ArenaAllocator {
  using value_type = T;
  BlockArena* arena;
  explicit ArenaAllocator(BlockArena& a) : arena(&a) {}
  template <class U>
  ArenaAllocator(const ArenaAllocator<U>& other) : arena(other.arena) {}  // NOLINT: rebinding
  T* allocate(std::size_t n) { return static_cast<T*>(arena->allocate(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) { arena->release(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const ArenaAllocator<U>& other) const { return arena == other.arena; }
};

/// One mirrored object. Its key and message follow it in the same block (the message 8-aligned,
/// as the nlmsghdr it is read as); `room` is what the block has for the message, so a changed
/// message that fits is written over the old one.
struct StoredObject {
  uint32_t generation = 0;
  // Single-path routes: the output device, family and type, and the object's place in that
  // device's list (threaded through the objects, which never move while stored).
  uint32_t device = 0;
  StoredObject* previousOnDevice = nullptr;
  StoredObject* nextOnDevice = nullptr;
  uint32_t messageSize = 0;
  uint32_t room = 0;
  uint16_t keySize = 0;
  uint8_t family = 0;
  uint8_t routeType = 0;

  static std::size_t messageOffset(std::size_t keySize) { return BlockArena::rounded(sizeof(StoredObject) + keySize); }
  std::size_t blockSize() const { return messageOffset(keySize) + room; }

  std::string_view key() const { return {reinterpret_cast<const char*>(this + 1), keySize}; }
  char* messageData() { return reinterpret_cast<char*>(this) + messageOffset(keySize); }
  const char* messageData() const { return reinterpret_cast<const char*>(this) + messageOffset(keySize); }
  std::string_view message() const { return {messageData(), messageSize}; }
  std::span<const uint8_t> messageBytes() const { return {reinterpret_cast<const uint8_t*>(messageData()), messageSize}; }
};

/// Orders objects by key bytes; transparent, so a key or a key's prefix (a string_view) finds
/// its place or range.
struct KeyLess {
  using is_transparent = void;
  static std::string_view keyOf(const StoredObject* o) { return o->key(); }
  static std::string_view keyOf(std::string_view k) { return k; }
  template <class A, class B>
  bool operator()(const A& a, const B& b) const { return keyOf(a) < keyOf(b); }
};

/// The objects of one kind, by key.
class ObjectTable {
 public:
  using Index = std::set<StoredObject*, KeyLess, ArenaAllocator<StoredObject*>>;
  using iterator = Index::iterator;
  using const_iterator = Index::const_iterator;

  explicit ObjectTable(BlockArena& arena) : arena_(&arena), index_(KeyLess{}, ArenaAllocator<StoredObject*>(arena)) {}
  ~ObjectTable();
  ObjectTable(const ObjectTable&) = delete;
  ObjectTable& operator=(const ObjectTable&) = delete;

  std::size_t size() const { return index_.size(); }
  iterator begin() { return index_.begin(); }
  iterator end() { return index_.end(); }
  const_iterator begin() const { return index_.begin(); }
  const_iterator end() const { return index_.end(); }
  iterator find(std::string_view key) { return index_.find(key); }
  const_iterator find(std::string_view key) const { return index_.find(key); }
  iterator lowerBound(std::string_view key) { return index_.lower_bound(key); }
  const_iterator lowerBound(std::string_view key) const { return index_.lower_bound(key); }

  /// Where `key` is or would go: (position, found). `after`, if set, is the object stored just
  /// before by the same dump: a dump comes mostly in key order, so the key usually goes right
  /// after it (two comparisons instead of a descent over ~20 keys spread over memory).
  std::pair<iterator, bool> locate(std::string_view key, const iterator* after = nullptr);
  /// A new object of `key` with room for `messageSize` bytes, stored before `position` (from
  /// locate()); its message is left for the caller to write.
  iterator insert(iterator position, std::string_view key, std::size_t messageSize);
  /// `it`'s message resized to `messageSize` bytes (contents left for the caller): in place when
  /// it fits, else the object moves to a larger block (book-keeping and key carried over; the
  /// caller relinks the device list). Returns the object's iterator.
  iterator resize(iterator it, std::size_t messageSize);
  /// Takes `it` out of the index; the object stays readable until release().
  StoredObject* extract(iterator it);
  void release(StoredObject* o);

 private:
  StoredObject* allocate(std::string_view key, std::size_t messageSize);

  BlockArena* arena_;
  Index index_;
  std::size_t largeObjects_ = 0;  // blocks of the heap's (freed one by one when the table dies)
};

}  // namespace fastlink::events
