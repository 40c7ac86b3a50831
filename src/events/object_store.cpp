// The StateMirror's store (see object_store.hpp).
#include "events/object_store.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cassert>
#include <new>

#include "core/asan_poison.hpp"

namespace fastlink::events {

namespace {

// The sanitizer build sees the chunks as the heap's: a chunk is poisoned when mapped, the room
// of a datagram unpoisoned while it is received and handed out, a copy's bytes when allocated;
// an object's bytes are poisoned again when released, a chunk's when it is emptied. So an object
// read after its release (a stale pointer in a device's list, a view kept past an erase or a
// compaction) is reported where it is read. No-ops without AddressSanitizer.
using core::poison;
using core::unpoison;

std::size_t roundUp(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

}  // namespace

MessageLog::~MessageLog() {
  for (Chunk* c : chunks_) unmap(c);
  for (Chunk* c : spare_) unmap(c);
}

void MessageLog::unmap(Chunk* c) {
  const std::size_t size = c->size;
  unpoison(c, size);  // (the addresses may be mapped again, for anything)
  mapped_ -= size;
  ::munmap(c, size);
}

MessageLog::Chunk* MessageLog::newChunk(std::size_t atLeast) {
  const std::size_t size = roundUp(atLeast + kHeader, kChunk);
  Chunk* c = nullptr;
  if (size == kChunk && !spare_.empty()) {
    c = spare_.back();
    spare_.pop_back();
  } else {
    // Aligned to kChunk (an object's chunk is its address rounded down): a reservation one
    // chunk larger, the aligned part mapped over it and faulted in by the one call
    // (MAP_POPULATE: cheaper than a fault per page as the kernel writes a dump into it), the
    // rest unmapped.
    void* reserved = ::mmap(nullptr, size + kChunk, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (reserved == MAP_FAILED) throw std::bad_alloc();
    const auto start = reinterpret_cast<uintptr_t>(reserved);
    const uintptr_t aligned = roundUp(start, kChunk);
    void* p = ::mmap(reinterpret_cast<void*>(aligned), size, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED) {
      ::munmap(reserved, size + kChunk);
      throw std::bad_alloc();
    }
    if (aligned > start) ::munmap(reserved, aligned - start);
    if (start + kChunk > aligned) ::munmap(reinterpret_cast<void*>(aligned + size), start + kChunk - aligned);
    c = static_cast<Chunk*>(p);
    mapped_ += size;
    poison(begin(c) + kHeader, size - kHeader);
  }
  *c = Chunk{size, kHeader, 0, false};
  chunks_.push_back(c);
  return c;
}

void MessageLog::retire(Chunk*& filling) {
  if (!filling) return;
  dead_ += filling->size - filling->used;
  filling->used = filling->size;
  filling = nullptr;
}

std::span<uint8_t> MessageLog::room(std::size_t atLeast) {
  // A room handed out and never reported received (the receive failed, or the engine asks
  // again with the datagram's length): what was kept of it stays.
  if (roomStart_) received(0);
  // (Less than this left: not worth a receive that will most likely ask again.)
  constexpr std::size_t kSmallest = 4096;
  if (atLeast + kHeader > kChunk) {
    // Larger than a chunk (a datagram of a device with very many VFs): received aside, and
    // whatever of it is kept is copied (inRoom() says no).
    roomStart_ = roomEnd_ = keptEnd_ = nullptr;
    oversized_.resize(roundUp(atLeast, 4096));
    return oversized_;
  }
  if (!receiving_ || receiving_->size - receiving_->used < std::max(atLeast, kSmallest)) {
    retire(receiving_);
    receiving_ = newChunk(kChunk - kHeader);
  }
  roomStart_ = keptEnd_ = begin(receiving_) + receiving_->used;
  roomEnd_ = begin(receiving_) + receiving_->size;
  keptBytes_ = 0;
  unpoison(roomStart_, roomEnd_ - roomStart_);
  return {roomStart_, roomEnd_};
}

void MessageLog::received([[maybe_unused]] std::size_t length) {
  if (!roomStart_) return;  // an oversized datagram, received aside
  // The room is used up to the datagram's last kept message (8-aligned); its other messages
  // before that are dead from the start. A datagram nothing was kept of (a resync that found
  // its routes unchanged) leaves the room to the next one.
  const std::size_t used = roundUp(static_cast<std::size_t>(keptEnd_ - begin(receiving_)), 8);
  dead_ += used - receiving_->used - keptBytes_;
  receiving_->used = used;
  poison(begin(receiving_) + used, receiving_->size - used);
  roomStart_ = roomEnd_ = keptEnd_ = nullptr;
  keptBytes_ = 0;
}

nlmsghdr* MessageLog::allocate(std::size_t size) {
  Chunk* c;
  if (size + kHeader > kChunk) {
    c = newChunk(size);  // one object larger than a chunk: a chunk of its own
  } else {
    if (!copying_ || copying_->size - copying_->used < size) {
      retire(copying_);
      copying_ = newChunk(kChunk - kHeader);
    }
    c = copying_;
  }
  uint8_t* p = begin(c) + c->used;
  c->used += roundUp(size, 8);
  dead_ += roundUp(size, 8) - size;
  c->live += size;
  live_ += size;
  unpoison(p, size);
  return reinterpret_cast<nlmsghdr*>(p);
}

void MessageLog::release(const nlmsghdr* m) {
  Chunk* c = chunkOf(m);
  const std::size_t n = storedBytes(m);
  c->live -= n;
  live_ -= n;
  dead_ += n;
  poison(m, n);
  if (c->size > kChunk && c->live == 0) {
    // An object larger than a chunk had it alone: it goes back to the system now.
    dead_ -= c->used - kHeader;
    chunks_.erase(std::find(chunks_.begin(), chunks_.end(), c));
    unmap(c);
  }
}

bool MessageLog::startCompaction() {
  if (!shouldCompact()) return false;
  if (roomStart_) received(0);  // (never while a datagram is handed out: a room left over)
  // The chunks being filled can be emptied too: their rest counts as dead, new ones start.
  retire(receiving_);
  retire(copying_);
  std::vector<Chunk*> candidates;
  for (Chunk* c : chunks_)
    if (c->size == kChunk && c->live * 4 <= (c->size - kHeader) * 3) candidates.push_back(c);
  std::sort(candidates.begin(), candidates.end(), [](const Chunk* a, const Chunk* b) { return a->live < b->live; });
  std::size_t deadLeft = dead_;
  bool any = false;
  for (Chunk* c : candidates) {
    if (deadLeft <= live_ / 2) break;
    c->emptying = true;
    deadLeft -= c->used - kHeader - c->live;
    any = true;
  }
  return any;
}

nlmsghdr* MessageLog::relocate(nlmsghdr* m) {
  Chunk* c = chunkOf(m);
  if (!c->emptying) return m;
  const std::size_t n = storedBytes(m);
  nlmsghdr* to = allocate(n);
  std::memcpy(to, m, n);
  c->live -= n;  // (the copy is live where it went: allocate() counted it)
  live_ -= n;
  dead_ += n;  // until finishCompaction() drops the chunk
  moved_ += n;
  // Its old place says where it went (over the book-keeping, which the copy carries).
  std::memcpy(&m->nlmsg_seq, &to, sizeof to);
  return to;
}

nlmsghdr* MessageLog::forwarded(nlmsghdr* m) const {
  if (!chunkOf(m)->emptying) return m;
  nlmsghdr* to;
  std::memcpy(&to, &m->nlmsg_seq, sizeof to);
  return to;
}

void MessageLog::finishCompaction() {
  std::size_t kept = 0;
  for (Chunk* c : chunks_) {
    if (!c->emptying) {
      chunks_[kept++] = c;
      continue;
    }
    assert(c->live == 0);  // every object in it was relocated
    dead_ -= c->used - kHeader;
    if (spare_.size() < kSpareChunks) {
      poison(begin(c) + kHeader, c->size - kHeader);  // (its header stays readable: unmap() reads it)
      spare_.push_back(c);
    } else {
      unmap(c);
    }
  }
  chunks_.resize(kept);
  ++compactions_;
}

ObjectTable::~ObjectTable() {
  for (auto [slab, size] : slabs_) ::munmap(slab, size);
}

ObjectTable::Block* ObjectTable::newBlock() {
  if (spareBlocks_.empty()) {
    // A slab of blocks mapped and faulted in by the one call (MAP_POPULATE, as the log's
    // chunks): a million routes' index is ~2,000 blocks, each a page fault of its own when it
    // came from the heap. Slabs double from 4 blocks to 64 (a small table maps little).
    const std::size_t count = slabs_.empty() ? 4 : std::min<std::size_t>(64, 2 * (slabs_.back().second / sizeof(Block)));
    void* slab = ::mmap(nullptr, count * sizeof(Block), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (slab == MAP_FAILED) throw std::bad_alloc();
    slabs_.emplace_back(slab, count * sizeof(Block));
    blocksMapped_ += count;
    spareBlocks_.reserve(blocksMapped_);  // room for every block: a block given back never allocates
    for (std::size_t i = count; i-- > 0;) spareBlocks_.push_back(static_cast<Block*>(slab) + i);
  }
  Block* b = spareBlocks_.back();
  spareBlocks_.pop_back();
  b->count = 0;
  return b;
}

std::size_t ObjectTable::blockFor(std::string_view key, std::string& scratch) const {
  std::size_t lo = 0, hi = blocks_.size();
  while (lo < hi) {
    std::size_t mid = lo + (hi - lo) / 2;
    const Block* b = blocks_[mid];
    if (derive(b->objects[b->count - 1], scratch) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

ObjectTable::iterator ObjectTable::lowerBound(std::string_view key) const {
  std::string scratch;
  std::size_t block = blockFor(key, scratch);
  if (block == blocks_.size()) return end();
  const Block* b = blocks_[block];
  std::size_t lo = 0, hi = b->count - 1;  // the last key is not less than `key`
  while (lo < hi) {
    std::size_t mid = lo + (hi - lo) / 2;
    if (derive(b->objects[mid], scratch) < key) lo = mid + 1;
    else hi = mid;
  }
  return {this, block, lo};
}

ObjectTable::iterator ObjectTable::find(std::string_view key) const {
  iterator it = lowerBound(key);
  std::string scratch;
  return it != end() && derive(*it, scratch) == key ? it : end();
}

std::pair<ObjectTable::iterator, bool> ObjectTable::locateFrom(std::string_view key, const iterator* next) const {
  std::string scratch;
  if (next) {
    int order = key.compare(derive(**next, scratch));
    if (order <= 0) return {*next, order == 0};
  }
  iterator it = lowerBound(key);
  return {it, it != end() && derive(*it, scratch) == key};
}

ObjectTable::iterator ObjectTable::insert(iterator position, nlmsghdr* object) {
  std::size_t block = position.block(), at = position.at();
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
      std::memcpy(fresh->objects, b->objects + split, fresh->count * sizeof(nlmsghdr*));
      b->count = split;
      blocks_.insert(blocks_.begin() + static_cast<std::ptrdiff_t>(block) + 1, fresh);
      if (at > split) {
        ++block;
        at -= split;
        b = fresh;
      }
    }
  }
  if (at < b->count) std::memmove(b->objects + at + 1, b->objects + at, (b->count - at) * sizeof(nlmsghdr*));
  b->objects[at] = object;
  ++b->count;
  ++size_;
  return {this, block, at};
}

void ObjectTable::replace(iterator it, nlmsghdr* object) { blocks_[it.block()]->objects[it.at()] = object; }

nlmsghdr* ObjectTable::extract(iterator it, iterator* next) {
  Block* b = blocks_[it.block()];
  nlmsghdr* o = b->objects[it.at()];
  --b->count;
  --size_;
  std::memmove(b->objects + it.at(), b->objects + it.at() + 1, (b->count - it.at()) * sizeof(nlmsghdr*));
  if (b->count == 0) {
    blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(it.block()));
    spareBlocks_.push_back(b);
    if (next) *next = {this, it.block(), 0};
    return o;
  }
  if (next) *next = it.at() == b->count ? iterator{this, it.block() + 1, 0} : it;
  return o;
}

void ObjectTable::relocate(MessageLog& log) {
  for (Block* b : blocks_)
    for (std::size_t i = 0; i < b->count; ++i) b->objects[i] = log.relocate(b->objects[i]);
}

}  // namespace fastlink::events
