// The StateMirror's store (see object_store.hpp).
#include "events/object_store.hpp"

#include <sys/mman.h>

#include <new>

namespace fastlink::events {

void* BlockArena::allocate(std::size_t n) {
  n = rounded(n == 0 ? 1 : n);
  if (n > kLargest) {
    largeBytes_ += n;
    return ::operator new(n);
  }
  void*& head = free_[n / kGrain];
  if (head) {
    void* p = head;
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
    chunkBytes_ += mapped;
    next_ = chunk;
    left_ = size;
  }
  void* p = next_;
  next_ += n;
  left_ -= n;
  return p;
}

BlockArena::~BlockArena() {
  for (auto [chunk, size] : chunks_) ::munmap(chunk, size);
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
}

ObjectTable::~ObjectTable() {
  // The objects' blocks die with the arena; large ones are the heap's (a walk only for them).
  if (largeObjects_)
    for (StoredObject* o : index_)
      if (o->blockSize() > BlockArena::kLargest) release(o);
}

void ObjectTable::release(StoredObject* o) {
  if (o->blockSize() > BlockArena::kLargest) --largeObjects_;
  arena_->release(o, o->blockSize());
}

StoredObject* ObjectTable::allocate(std::string_view key, std::size_t messageSize) {
  const std::size_t room = BlockArena::rounded(messageSize);
  const std::size_t size = StoredObject::messageOffset(key.size()) + room;
  if (size > BlockArena::kLargest) ++largeObjects_;
  auto* o = new (arena_->allocate(size)) StoredObject;
  o->keySize = static_cast<uint16_t>(key.size());
  o->room = static_cast<uint32_t>(room);
  o->messageSize = static_cast<uint32_t>(messageSize);
  std::memcpy(reinterpret_cast<char*>(o + 1), key.data(), key.size());
  return o;
}

std::pair<ObjectTable::iterator, bool> ObjectTable::locate(std::string_view key, const iterator* after) {
  if (after && *after != index_.end() && (**after)->key() < key) {
    // (After the last object, end(): std::next would climb from the rightmost leaf to the root.)
    iterator next = *after == std::prev(index_.end()) ? index_.end() : std::next(*after);
    if (next == index_.end()) return {next, false};
    int order = key.compare((*next)->key());  // (one comparison of the bytes, not two)
    if (order <= 0) return {next, order == 0};
  }
  iterator it = index_.lower_bound(key);
  return {it, it != index_.end() && (*it)->key() == key};
}

ObjectTable::iterator ObjectTable::insert(iterator position, std::string_view key, std::size_t messageSize) {
  return index_.insert(position, allocate(key, messageSize));
}

ObjectTable::iterator ObjectTable::resize(iterator it, std::size_t messageSize) {
  StoredObject* old = *it;
  if (messageSize <= old->room) {
    old->messageSize = static_cast<uint32_t>(messageSize);
    return it;
  }
  StoredObject* moved = allocate(old->key(), messageSize);
  moved->generation = old->generation;  // (unlinked from its device's list: nothing points at it)
  // The node keeps its place: only the object it points to changes (same key, same order).
  iterator next = std::next(it);
  auto node = index_.extract(it);
  node.value() = moved;
  iterator at = index_.insert(next, std::move(node));
  release(old);
  return at;
}

StoredObject* ObjectTable::extract(iterator it) {
  StoredObject* o = *it;
  index_.erase(it);
  return o;
}

}  // namespace fastlink::events
