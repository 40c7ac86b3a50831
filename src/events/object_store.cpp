// The StateMirror's store (see object_store.hpp).
#include "events/object_store.hpp"

#include <sys/mman.h>

#include <new>

#include "core/asan_poison.hpp"

namespace fastlink::events {

namespace {

// The sanitizer build sees the arena's blocks as the heap's: a chunk is poisoned when mapped, a
// block unpoisoned when handed out and poisoned again when given back, so an object read after
// its release (a stale pointer in a device's list, a view kept past an erase) is reported where
// it is read. No-ops without AddressSanitizer.
void poison([[maybe_unused]] void* p, [[maybe_unused]] std::size_t n) {
#ifdef FASTLINK_ASAN
  __asan_poison_memory_region(p, n);
#endif
}
void unpoison([[maybe_unused]] void* p, [[maybe_unused]] std::size_t n) {
#ifdef FASTLINK_ASAN
  __asan_unpoison_memory_region(p, n);
#endif
}

}  // namespace

void* BlockArena::allocate(std::size_t n) {
  n = rounded(n == 0 ? 1 : n);
  if (n > kLargest) {
    largeBytes_ += n;
    return ::operator new(n);
  }
  void*& head = free_[n / kGrain];
  if (head) {
    void* p = head;
    unpoison(p, n);
    std::memcpy(&head, p, sizeof head);  // the next free block of this size
    return p;
  }
  if (left_ < n) {
    // (What is left of the old chunk, less than one block, stays unused.)
    const std::size_t size = chunks_.empty() ? kFirstChunk : std::min(chunks_.back().second * 2, kHugeChunk);
    // Faulted in by the one call (MAP_POPULATE): cheaper than a fault per page on first touch.
    void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    auto* chunk = static_cast<std::byte*>(p);
    const std::size_t mapped = size;
    chunks_.emplace_back(chunk, mapped);
    poison(chunk, mapped);
    chunkBytes_ += mapped;
    next_ = chunk;
    left_ = size;
  }
  void* p = next_;
  next_ += n;
  left_ -= n;
  unpoison(p, n);
  return p;
}

BlockArena::~BlockArena() {
  for (auto [chunk, size] : chunks_) {
    unpoison(chunk, size);  // (the addresses may be mapped again, for anything)
    ::munmap(chunk, size);
  }
}

void BlockArena::release(void* p, std::size_t n) {
  n = rounded(n == 0 ? 1 : n);
  if (n > kLargest) {
    largeBytes_ -= n;
    ::operator delete(p);
    return;
  }
  void*& head = free_[n / kGrain];
  std::memcpy(p, &head, sizeof head);
  head = p;
  poison(p, n);
}

ObjectTable::~ObjectTable() {
  // The objects' blocks and the index's die with the arena; large ones are the heap's (a walk
  // only for them).
  if (largeObjects_)
    for (StoredObject* o : *this)
      if (o->blockSize() > BlockArena::kLargest) arena_->release(o, o->blockSize());
}

void ObjectTable::release(StoredObject* o) {
  if (o->blockSize() > BlockArena::kLargest) --largeObjects_;
  arena_->release(o, o->blockSize());
}

StoredObject* ObjectTable::allocate(std::string_view key, std::size_t messageSize) {
  const std::size_t size = StoredObject::blockSizeFor(key.size(), messageSize);
  if (size > BlockArena::kLargest) ++largeObjects_;
  auto* o = new (arena_->allocate(size)) StoredObject;
  o->keySize = static_cast<uint16_t>(key.size());
  o->messageSize = static_cast<uint32_t>(messageSize);
  std::memcpy(reinterpret_cast<char*>(o + 1), key.data(), key.size());
  return o;
}

ObjectTable::Block* ObjectTable::newBlock() {
  static_assert(sizeof(Block) <= BlockArena::kLargest, "an index block is one of the arena's");
  auto* b = static_cast<Block*>(arena_->allocate(sizeof(Block)));
  b->count = 0;
  return b;
}

std::size_t ObjectTable::blockFor(std::string_view key) const {
  std::size_t lo = 0, hi = blocks_.size();
  while (lo < hi) {
    std::size_t mid = lo + (hi - lo) / 2;
    if (lastKey(mid) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

ObjectTable::iterator ObjectTable::lowerBound(std::string_view key) const {
  std::size_t block = blockFor(key);
  if (block == blocks_.size()) return end();
  const Block* b = blocks_[block];
  std::size_t lo = 0, hi = b->count - 1;  // the last key is not less than `key`
  while (lo < hi) {
    std::size_t mid = lo + (hi - lo) / 2;
    if (b->objects[mid]->key() < key) lo = mid + 1;
    else hi = mid;
  }
  return {this, block, lo};
}

ObjectTable::iterator ObjectTable::find(std::string_view key) const {
  iterator it = lowerBound(key);
  return it != end() && (*it)->key() == key ? it : end();
}

std::pair<ObjectTable::iterator, bool> ObjectTable::locate(std::string_view key, const iterator* after) const {
  if (after && after->block_ < blocks_.size() && after->at_ < blocks_[after->block_]->count &&
      (**after)->key() < key) {
    iterator next = *after;
    ++next;
    if (next == end()) return {next, false};
    int order = key.compare((*next)->key());  // (one comparison of the bytes, not two)
    if (order <= 0) return {next, order == 0};
  }
  iterator it = lowerBound(key);
  return {it, it != end() && (*it)->key() == key};
}

ObjectTable::iterator ObjectTable::insert(iterator position, std::string_view key, std::size_t messageSize) {
  std::size_t block = position.block_, at = position.at_;
  if (block == blocks_.size()) {
    // At the end: after the last block's last object.
    if (blocks_.empty() || blocks_.back()->count == kPerBlock) {
      blocks_.push_back(newBlock());
    }
    block = blocks_.size() - 1;
    at = blocks_[block]->count;
  } else if (at == 0 && block > 0 && blocks_[block - 1]->count < kPerBlock) {
    // Before a block's first object: the end of the block before, if it has room (where
    // locate() puts a key that follows the last object of a block).
    --block;
    at = blocks_[block]->count;
  }
  Block* b = blocks_[block];
  if (b->count == kPerBlock) {
    // Full. Before its first object: a new block before it (a dump's run of keys going in
    // front of it fills that one, by the rule above). Else half of it moves to a new block
    // after it.
    Block* fresh = newBlock();
    if (at == 0) {
      blocks_.insert(blocks_.begin() + static_cast<std::ptrdiff_t>(block), fresh);
      b = fresh;
    } else {
      const std::size_t split = kPerBlock / 2;
      fresh->count = kPerBlock - split;
      std::memcpy(fresh->objects, b->objects + split, fresh->count * sizeof(StoredObject*));
      b->count = split;
      blocks_.insert(blocks_.begin() + static_cast<std::ptrdiff_t>(block) + 1, fresh);
      if (at > split) {
        ++block;
        at -= split;
        b = fresh;
      }
    }
  }
  StoredObject* o = allocate(key, messageSize);
  std::memmove(b->objects + at + 1, b->objects + at, (b->count - at) * sizeof(StoredObject*));
  b->objects[at] = o;
  ++b->count;
  ++size_;
  return {this, block, at};
}

ObjectTable::iterator ObjectTable::resize(iterator it, std::size_t messageSize) {
  StoredObject* old = *it;
  if (StoredObject::blockSizeFor(old->keySize, messageSize) == old->blockSize()) {
    old->messageSize = static_cast<uint32_t>(messageSize);
    return it;
  }
  StoredObject* moved = allocate(old->key(), messageSize);
  moved->generation = old->generation;  // (unlinked from its device's list: nothing points at it)
  blocks_[it.block_]->objects[it.at_] = moved;  // same key: same place
  release(old);
  return it;
}

StoredObject* ObjectTable::extract(iterator it, iterator* next) {
  Block* b = blocks_[it.block_];
  StoredObject* o = b->objects[it.at_];
  --b->count;
  --size_;
  std::memmove(b->objects + it.at_, b->objects + it.at_ + 1, (b->count - it.at_) * sizeof(StoredObject*));
  if (b->count == 0) {
    blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(it.block_));
    arena_->release(b, sizeof(Block));
    if (next) *next = {this, it.block_, 0};
    return o;
  }
  if (next) *next = it.at_ == b->count ? iterator{this, it.block_ + 1, 0} : it;
  return o;
}

}  // namespace fastlink::events
