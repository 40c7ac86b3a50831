// The StateMirror's store: each mirrored object is its canonical message, kept where it lies in
// 1 MiB chunks the store owns. A dump is received straight into a chunk (MessageLog is the
// engine's ReceiveMemory), so a route the mirror keeps whole stays where the kernel wrote it:
// nothing copied after recvmsg, no block of its own, no stored key. The objects of a kind are
// ordered by key in a flat index of 8-byte pointers whose keys are derived from the messages
// when compared. A million blackhole routes cost ~52 bytes each (the 44-byte message, its index
// entry), against ~120 when each was copied into a block with its key and book-keeping.
#pragma once

#include <linux/netlink.h>

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/engine.hpp"

namespace fastlink::events {

/// A stored object's book-keeping lives in the header fields its canonical form zeroes (the
/// canonical header is the length and the type, nothing else; readers of stored messages look
/// at those only, and StateMirror::canonical() hands out copies with these zeroed again):
/// nlmsg_seq holds the generation of the last pass that saw it, nlmsg_pid its place in its
/// device's list (1-based; 0 when in none). 8 bytes each object needs and no longer pays for.
inline uint32_t& generationOf(nlmsghdr* m) { return m->nlmsg_seq; }
inline uint32_t& deviceSlotOf(nlmsghdr* m) { return m->nlmsg_pid; }
/// The bytes a stored message occupies (its length, 4-aligned as in a datagram).
inline std::size_t storedBytes(const nlmsghdr* m) { return NLMSG_ALIGN(m->nlmsg_len); }

/// Where the objects' bytes are: chunks of kChunk bytes, aligned to their size (an object's
/// chunk is its address rounded down), each filled from its start and never reused piecemeal.
/// Two chunks are being filled at a time: one receives a dump's datagrams (room()/received():
/// the part of a datagram up to its last kept message is used, the rest of the room is offered
/// again), the other takes copies (allocate(): a notification's object, a message the canonical
/// form rewrote). An object replaced or deleted leaves dead bytes (release()); so do the
/// messages of a used datagram that were not kept. compact() (with the index's help) moves the
/// live objects out of the chunks that are mostly dead and frees those chunks, which bounds
/// the memory to about twice the live bytes (see shouldCompact()).
class MessageLog final : public core::ReceiveMemory {
 public:
  static constexpr std::size_t kChunk = std::size_t{1} << 20;
  /// Compaction waits for this much dead memory at least (below it, it would run for little).
  static constexpr std::size_t kMinDead = std::size_t{8} << 20;
  /// Free chunks kept for reuse after a compaction (the rest go back to the system).
  static constexpr std::size_t kSpareChunks = 4;

  MessageLog() = default;
  ~MessageLog();
  MessageLog(const MessageLog&) = delete;
  MessageLog& operator=(const MessageLog&) = delete;

  // core::ReceiveMemory: a dump's datagrams.
  std::span<uint8_t> room(std::size_t atLeast) override;
  void received(std::size_t length) override;
  /// Whether `m` lies in the room of the datagram being handed out (then keep() may take it).
  bool inRoom(const void* m) const {
    auto* p = static_cast<const uint8_t*>(m);
    return p >= roomStart_ && p < roomEnd_;
  }
  /// `m`, a message in the current room (inRoom), is an object now: the datagram's room is used
  /// up to it at least. Returns it, writable. (Inline: a start keeps a million.)
  nlmsghdr* keep(const nlmsghdr* m) {
    assert(inRoom(m));
    auto* p = const_cast<uint8_t*>(reinterpret_cast<const uint8_t*>(m));  // the log's own memory
    const std::size_t n = storedBytes(m);
    keptEnd_ = std::max(keptEnd_, p + n);
    keptBytes_ += n;
    receiving_->live += n;
    live_ += n;
    return reinterpret_cast<nlmsghdr*>(p);
  }

  /// Room for a copied object of `size` bytes (a multiple of 4).
  nlmsghdr* allocate(std::size_t size);
  /// `m`'s bytes are dead (it was replaced or deleted). In the sanitizer build they are poisoned.
  void release(const nlmsghdr* m);

  /// Whether enough is dead to compact: more than the live bytes and than kMinDead. Between
  /// compactions the chunks then hold at most about twice the live bytes (plus kMinDead and the
  /// two chunks being filled).
  bool shouldCompact() const { return dead_ > live_ && dead_ > kMinDead; }
  /// Marks the chunks to empty: the most dead first, each at most 3/4 live, until what stays
  /// dead is at most half the live bytes. Returns whether any was marked. Then every stored
  /// object goes through relocate() once (the index's walk), every other pointer to one
  /// through forwarded(), and finishCompaction() frees the emptied chunks.
  bool startCompaction();
  /// Where `m` is now: moved to a chunk being filled if its chunk is being emptied (its old
  /// place then remembers the new one), else `m`.
  nlmsghdr* relocate(nlmsghdr* m);
  /// A pointer to an object relocate() saw, as it is now.
  nlmsghdr* forwarded(nlmsghdr* m) const;
  void finishCompaction();

  /// Bytes taken from the system (chunks mapped), live and dead bytes in them.
  std::size_t bytes() const { return mapped_; }
  std::size_t liveBytes() const { return live_; }
  std::size_t deadBytes() const { return dead_; }
  /// Compactions run and the bytes they moved.
  std::size_t compactions() const { return compactions_; }
  std::size_t bytesMoved() const { return moved_; }

 private:
  /// At the start of every chunk. A chunk larger than kChunk holds one object (or one
  /// datagram) larger than a chunk.
  struct Chunk {
    std::size_t size;  // bytes mapped, this header included
    std::size_t used;  // filled from the start (live and dead)
    std::size_t live;
    bool emptying;
  };
  static constexpr std::size_t kHeader = (sizeof(Chunk) + 15) & ~std::size_t{15};
  static Chunk* chunkOf(const void* p) {
    return reinterpret_cast<Chunk*>(reinterpret_cast<uintptr_t>(p) & ~(uintptr_t{kChunk} - 1));
  }
  static uint8_t* begin(Chunk* c) { return reinterpret_cast<uint8_t*>(c); }
  Chunk* newChunk(std::size_t atLeast);
  void retire(Chunk*& filling);  // the rest of a chunk being filled is dead: it is left
  void unmap(Chunk* c);

  std::vector<Chunk*> chunks_;  // every chunk in use, the two being filled included
  std::vector<Chunk*> spare_;   // emptied, kept for reuse
  Chunk* receiving_ = nullptr;
  Chunk* copying_ = nullptr;
  uint8_t* roomStart_ = nullptr;
  uint8_t* roomEnd_ = nullptr;
  std::vector<uint8_t> oversized_;  // a datagram larger than a chunk is received here
  uint8_t* keptEnd_ = nullptr;  // the end of the room's last kept message
  std::size_t keptBytes_ = 0;   // and the bytes kept in the room
  std::size_t mapped_ = 0, live_ = 0, dead_ = 0;
  std::size_t compactions_ = 0, moved_ = 0;
};

/// `a < b` in the keys' byte order (std::string_view's), inline and 8 bytes at a time as
/// big-endian words: a dump in order checks a million keys against the one before, which differ
/// within their first words (a library memcmp's branches were ~3% of a sync's start).
inline bool keyLess(std::string_view a, std::string_view b) {
  const std::size_t n = a.size() < b.size() ? a.size() : b.size();
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t x, y;
    std::memcpy(&x, a.data() + i, 8);
    std::memcpy(&y, b.data() + i, 8);
    if (x == y) continue;
    if constexpr (std::endian::native == std::endian::little) return __builtin_bswap64(x) < __builtin_bswap64(y);
    return x < y;
  }
  for (; i < n; ++i)
    if (a[i] != b[i]) return static_cast<uint8_t>(a[i]) < static_cast<uint8_t>(b[i]);
  return a.size() < b.size();
}

/// The key of a stored object, derived from its message (events::storedKey for the mirror's).
using KeyOf = void (*)(const nlmsghdr* stored, std::string& key);

/// The objects of one kind in key order: a flat index of 8-byte pointers in blocks of up to
/// kPerBlock (4 KiB each), each block in order and the blocks in order. A key is found by a
/// binary search over the blocks' last keys, then within its block, each key derived from its
/// message. A dump's objects come in key order and go right after the one before (locate()'s
/// hint, whose key the caller has): a full block then starts a new one instead of splitting,
/// so blocks filled in order stay full, and a dump in order compares no stored key at all.
///
/// Iterators are positions (block, index): an insert or extract in the table shifts the ones
/// after it (extract gives the next position, insert the new object's). A compaction moves the
/// objects, not their positions.
class ObjectTable {
  struct Block;

 public:
  static constexpr std::size_t kPerBlock = 4096 / sizeof(void*) - 1;

  class iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = nlmsghdr*;
    using difference_type = std::ptrdiff_t;
    using pointer = nlmsghdr* const*;
    using reference = nlmsghdr* const&;

    iterator() = default;
    reference operator*() const;
    iterator& operator++();
    iterator operator++(int) {
      iterator was = *this;
      ++*this;
      return was;
    }
    bool operator==(const iterator& o) const { return pos_ == o.pos_; }

   private:
    friend class ObjectTable;
    iterator(const ObjectTable* t, std::size_t block, std::size_t at)
        : table_(t), pos_(uint64_t{static_cast<uint32_t>(block)} << 32 | static_cast<uint32_t>(at)) {}
    uint32_t block() const { return static_cast<uint32_t>(pos_ >> 32); }  // blocks_.size() at the end
    uint32_t at() const { return static_cast<uint32_t>(pos_); }
    // 16 bytes, the position one word: passed and returned in registers, built without partial
    // stores. (At 24 bytes, and as two 4-byte halves, every insert() and upsert() went through
    // the stack, where reading it back whole after writing it in parts stalled store
    // forwarding: a tenth of a sync's start in a profile.)
    const ObjectTable* table_ = nullptr;
    uint64_t pos_ = 0;
  };
  using const_iterator = iterator;

  explicit ObjectTable(KeyOf keyOf) : keyOf_(keyOf) {}
  ~ObjectTable();
  ObjectTable(const ObjectTable&) = delete;
  ObjectTable& operator=(const ObjectTable&) = delete;

  std::size_t size() const { return size_; }
  iterator begin() const { return {this, 0, 0}; }
  iterator end() const { return {this, blocks_.size(), 0}; }
  iterator find(std::string_view key) const;
  /// The first object whose key is not less than `key`.
  iterator lowerBound(std::string_view key) const;
  /// `m`'s key (derived).
  std::string keyOf(const nlmsghdr* m) const {
    std::string key;
    keyOf_(m, key);
    return key;
  }
  /// Whether `m`'s key starts with `prefix`.
  bool keyStartsWith(const nlmsghdr* m, std::string_view prefix, std::string& scratch) const {
    if (prefix.empty()) return true;
    keyOf_(m, scratch);
    return std::string_view(scratch).substr(0, prefix.size()) == prefix;
  }

  /// The position after `after` if `after` is a position of this table now, else end().
  iterator successor(const iterator& after) const {
    if (!holds(after)) return end();
    iterator next = after;
    return ++next;
  }
  /// Where `key` is or would go: (position, found). `after`, if set, is the object stored just
  /// before by the same dump and `afterKey` its key: a dump comes mostly in key order, so the
  /// key usually goes right after it (found without comparing a stored key when it is the last
  /// one). The hint is taken only where the keys around it prove it right: a stale one costs a
  /// search, never order.
  std::pair<iterator, bool> locate(std::string_view key, const iterator* after = nullptr,
                                   std::string_view afterKey = {}) const {
    if (after && holds(*after) && afterKey < key) {
      iterator next = *after;
      if (++next == end()) return {next, false};  // a dump appending: no stored key compared
      return locateFrom(key, &next);
    }
    return locateFrom(key, nullptr);
  }
  /// `object` (its key derived from it) stored before `position` (from locate(), nothing
  /// inserted or extracted since). Returns its position.
  iterator insert(iterator position, nlmsghdr* object);
  /// insert() at end() (the caller knows `object`'s key is the largest), inline: a dump in
  /// order appends a million.
  iterator append(nlmsghdr* object) {
    if (blocks_.empty() || blocks_.back()->count == kPerBlock) return insert(end(), object);
    Block* b = blocks_.back();
    b->objects[b->count] = object;
    ++size_;
    return {this, blocks_.size() - 1, b->count++};
  }
  /// The object at `it` replaced by `object` of the same key (a new version).
  void replace(iterator it, nlmsghdr* object);
  /// Takes `it` out of the index (its bytes stay until the log's release()). `next`, if given,
  /// receives the position of the object that followed it.
  nlmsghdr* extract(iterator it, iterator* next = nullptr);
  /// Every object through `log.relocate()` (a compaction).
  void relocate(MessageLog& log);

  /// Bytes of the index (its blocks' slabs and the lists of blocks).
  std::size_t indexBytes() const {
    std::size_t bytes = (blocks_.capacity() + spareBlocks_.capacity()) * sizeof(Block*);
    for (const auto& slab : slabs_) bytes += slab.second;
    return bytes;
  }

 private:
  struct Block {
    std::size_t count;
    nlmsghdr* objects[kPerBlock];
  };
  static_assert(sizeof(Block) == 4096);

  /// A block from a slab (an emptied one is kept for reuse until the table goes).
  Block* newBlock();
  bool holds(const iterator& it) const { return it.block() < blocks_.size() && it.at() < blocks_[it.block()]->count; }
  /// locate() at `next` (the hint's successor, whose key is compared) or by a search.
  std::pair<iterator, bool> locateFrom(std::string_view key, const iterator* next) const;
  /// The first block whose last key is not less than `key` (blocks_.size(): none).
  std::size_t blockFor(std::string_view key, std::string& scratch) const;
  std::string_view derive(const nlmsghdr* m, std::string& scratch) const {
    keyOf_(m, scratch);
    return scratch;
  }

  KeyOf keyOf_;
  std::vector<Block*> blocks_;  // never an empty one
  std::vector<Block*> spareBlocks_;
  std::vector<std::pair<void*, std::size_t>> slabs_;  // (address, bytes)
  std::size_t blocksMapped_ = 0;
  std::size_t size_ = 0;
};

static_assert(sizeof(ObjectTable::iterator) == 16, "an index position travels in two registers");

inline ObjectTable::iterator::reference ObjectTable::iterator::operator*() const {
  return table_->blocks_[block()]->objects[at()];
}

inline ObjectTable::iterator& ObjectTable::iterator::operator++() {
  if (at() + 1 == table_->blocks_[block()]->count) pos_ = uint64_t{block() + 1u} << 32;
  else ++pos_;
  return *this;
}

}  // namespace fastlink::events
