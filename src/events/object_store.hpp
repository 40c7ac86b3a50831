// The StateMirror's store: each mirrored object is one block holding its book-keeping, its key and
// its stored (canonical) message, carved from large chunks; the objects of a kind are ordered by
// key in a flat index of pointers whose blocks come from the same chunks. A sync of a million
// routes made three heap allocations per route (tree node, key string, message string) and
// touched ~290 bytes each; here it makes none (a chunk per ~9,000 routes) and touches ~120.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <iterator>
#include <span>
#include <string_view>
#include <vector>

namespace fastlink::events {

/// Blocks of sizes rounded to 8 bytes, from chunks, each size with a free list of the blocks given
/// back (reused by the next block of that size). Larger blocks come from the heap. Chunks start
/// at 64 KiB and double up to 1 MiB, each faulted in by its mmap (MAP_POPULATE: a fault per
/// page on first touch was a fifth of a sync's own time). Nothing goes back to the system before the arena
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

/// One mirrored object. Its key and message follow it in the same block (the message 8-aligned,
/// as the nlmsghdr it is read as). The block has room for the message rounded up to 8 bytes, so
/// a changed message of the same rounded size is written over the old one. 32 bytes of
/// book-keeping: a blackhole route's block is 112 bytes (its key 32, its message 44), and that
/// memory of a million routes, faulted in and cleared by the kernel, is a good part of a sync's
/// own cost.
struct StoredObject {
  uint32_t generation = 0;
  // Single-path routes: the output device, family and type, and the object's place in that
  // device's list (threaded through the objects, which never move while stored).
  uint32_t device = 0;
  StoredObject* previousOnDevice = nullptr;
  StoredObject* nextOnDevice = nullptr;
  uint32_t messageSize = 0;
  uint16_t keySize = 0;
  uint8_t family = 0;
  uint8_t routeType = 0;

  static std::size_t messageOffset(std::size_t keySize) { return BlockArena::rounded(sizeof(StoredObject) + keySize); }
  static std::size_t blockSizeFor(std::size_t keySize, std::size_t messageSize) {
    return messageOffset(keySize) + BlockArena::rounded(messageSize);
  }
  std::size_t blockSize() const { return blockSizeFor(keySize, messageSize); }

  std::string_view key() const { return {reinterpret_cast<const char*>(this + 1), keySize}; }
  char* messageData() { return reinterpret_cast<char*>(this) + messageOffset(keySize); }
  const char* messageData() const { return reinterpret_cast<const char*>(this) + messageOffset(keySize); }
  std::string_view message() const { return {messageData(), messageSize}; }
  std::span<const uint8_t> messageBytes() const { return {reinterpret_cast<const uint8_t*>(messageData()), messageSize}; }
};
static_assert(sizeof(StoredObject) == 32, "the book-keeping of each of a million objects");

/// The objects of one kind in key order: a flat index of 8-byte pointers in blocks of up to
/// kPerBlock (4 KiB each, from the arena), each block in order and the blocks in order. (It
/// replaces a std::set, whose 40-byte node per object, rebalancing and pointer-chasing successor
/// were a fifth of a sync's own user time.) A key is found by a binary search over the blocks'
/// last keys, then within its block. A dump's objects come in key order and go right after the
/// one before (locate()'s hint); a full block then starts a new one instead of splitting, so
/// blocks filled in order stay full.
///
/// Iterators are positions (block, index): an insert or extract in the table shifts the ones
/// after it (extract gives the next position, insert the new object's). The objects themselves
/// never move except by resize().
class ObjectTable {
  struct Block;

 public:
  static constexpr std::size_t kPerBlock = BlockArena::kLargest / sizeof(void*) - 1;

  class iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = StoredObject*;
    using difference_type = std::ptrdiff_t;
    using pointer = StoredObject* const*;
    using reference = StoredObject* const&;

    iterator() = default;
    reference operator*() const;
    iterator& operator++();
    iterator operator++(int) {
      iterator was = *this;
      ++*this;
      return was;
    }
    bool operator==(const iterator& o) const { return block_ == o.block_ && at_ == o.at_; }

   private:
    friend class ObjectTable;
    iterator(const ObjectTable* t, std::size_t block, std::size_t at)
        : table_(t), block_(block), at_(static_cast<uint32_t>(at)) {}
    const ObjectTable* table_ = nullptr;
    std::size_t block_ = 0;  // blocks_.size() at the end
    uint32_t at_ = 0;
  };
  using const_iterator = iterator;

  explicit ObjectTable(BlockArena& arena) : arena_(&arena) {}
  ~ObjectTable();
  ObjectTable(const ObjectTable&) = delete;
  ObjectTable& operator=(const ObjectTable&) = delete;

  std::size_t size() const { return size_; }
  iterator begin() const { return {this, 0, 0}; }
  iterator end() const { return {this, blocks_.size(), 0}; }
  iterator find(std::string_view key) const;
  /// The first object whose key is not less than `key`.
  iterator lowerBound(std::string_view key) const;

  /// Where `key` is or would go: (position, found). `after`, if set, is the object stored just
  /// before by the same dump: a dump comes mostly in key order, so the key usually goes right
  /// after it (two comparisons instead of a search over keys spread over memory). The hint is
  /// taken only where the keys around it prove it right: a stale one costs a search, never order.
  std::pair<iterator, bool> locate(std::string_view key, const iterator* after = nullptr) const;
  /// A new object of `key` with room for `messageSize` bytes, stored before `position` (from
  /// locate(), nothing inserted or extracted since); its message is left for the caller to
  /// write. Returns its position.
  iterator insert(iterator position, std::string_view key, std::size_t messageSize);
  /// `it`'s message resized to `messageSize` bytes (contents left for the caller): in place when
  /// its block's size stays, else the object moves to another block (book-keeping and key
  /// carried over; the caller relinks the device list). Its position stays: returns `it`.
  iterator resize(iterator it, std::size_t messageSize);
  /// Takes `it` out of the index; the object stays readable until release(). `next`, if given,
  /// receives the position of the object that followed it.
  StoredObject* extract(iterator it, iterator* next = nullptr);
  void release(StoredObject* o);

  /// Heap bytes of the index (the list of its blocks; the blocks are the arena's).
  std::size_t indexBytes() const { return blocks_.capacity() * sizeof(Block*); }

 private:
  struct Block {
    std::size_t count;
    StoredObject* objects[kPerBlock];
  };

  StoredObject* allocate(std::string_view key, std::size_t messageSize);
  Block* newBlock();
  /// The first block whose last key is not less than `key` (blocks_.size(): none).
  std::size_t blockFor(std::string_view key) const;
  std::string_view lastKey(std::size_t block) const {
    const Block* b = blocks_[block];
    return b->objects[b->count - 1]->key();
  }

  BlockArena* arena_;
  std::vector<Block*> blocks_;  // never an empty one
  std::size_t size_ = 0;
  std::size_t largeObjects_ = 0;  // blocks of the heap's (freed one by one when the table dies)
};

inline ObjectTable::iterator::reference ObjectTable::iterator::operator*() const {
  return table_->blocks_[block_]->objects[at_];
}

inline ObjectTable::iterator& ObjectTable::iterator::operator++() {
  if (++at_ == table_->blocks_[block_]->count) {
    ++block_;
    at_ = 0;
  }
  return *this;
}

}  // namespace fastlink::events
