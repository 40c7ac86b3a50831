// The -batch reader's spool (cli/kit/batch.cpp): every line's record (number, text, device,
// encoded request) kept from pass 1, which validates the whole file, to pass 2, which sends it.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "args.hpp"  // UsageError

namespace fastlink::cli {

/// Spooled records held in memory up to this size, the rest in a temporary file (a
/// 1,000,000-line batch stays under 32 MiB of RSS: BatchMillionLineValidationUsesBoundedMemory).
constexpr std::size_t kSpoolMemory = 16u << 20;
/// The buffer of the batch file and of the spool's file: glibc's setvbuf ignores a size given
/// without a buffer, and its default 4 KiB made 100,000 lines ~10,000 read calls. Each of its
/// pages is faulted in once: 256 KiB reads 100,000 u32 lines in 46 reads and 64 faults (1 MiB:
/// 16 and 256).
constexpr std::size_t kFileBuffer = 256u << 10;

/// One line of the file after pass 1. Views: into pass 1's line and request when appended,
/// into the spool when read back (valid until the next record is read).
struct Record {
  enum class Kind : uint8_t { Encoded, Deferred };
  Kind kind = Kind::Encoded;
  bool undoable = false;  ///< Request::hasExactUndo()
  std::size_t line = 0;
  std::string_view text;
  std::string_view device;  ///< PreparedRequest::device ("" when none), for "Cannot find device"
  std::span<const uint8_t> bytes;  ///< the encoded request (Encoded only)
};

/// Records in file order: appended in pass 1, read back once in pass 2.
///
/// Each record is stored as its difference from the one before (issue 33): a batch's lines
/// mostly differ from the previous line in a few bytes (an address, a priority), and so do
/// their requests. Whole, 100,000 u32 filter lines were ~27 MiB of records, past the memory
/// bound into the file, and under qemu TCG each page faulted in (5,800 against the raw floor's
/// 200) and each byte written to the file and read back is paid in system time. As differences
/// they are ~10 bytes each, ~1 MiB. A record: the line number's step, the kind, the text and the
/// request each as (bytes kept from the start of the previous one's, bytes kept from its end,
/// the new middle), and the device when it changed; numbers as LEB128 varints.
class Spool {
 public:
  /// `memory`: the bytes of records held in memory before they go to the file (tests spill
  /// small spools with a small one). Address space only: pages are faulted in as records fill
  /// them, never copied to a larger block.
  explicit Spool(std::size_t memory = kSpoolMemory) : memoryBound_(memory) { memory_.reserve(memory + kFileBuffer); }
  ~Spool() {
    if (file_) std::fclose(file_);
  }

  void append(const Record& r) {
    putNumber(r.line - last_.line);
    bool sameDevice = r.device == last_.device;
    memory_.push_back(static_cast<char>(static_cast<unsigned>(r.kind) | (r.undoable ? 2 : 0) | (sameDevice ? 4 : 0)));
    putDifference(last_.text, r.text);
    if (!sameDevice) {
      putNumber(r.device.size());
      memory_.append(r.device);
      last_.device.assign(r.device);
    }
    putDifference(last_.bytes, {reinterpret_cast<const char*>(r.bytes.data()), r.bytes.size()});
    last_.line = r.line;
    ++count_;
    if (memory_.size() >= (file_ ? kFileBuffer : memoryBound_)) spill();
  }
  std::size_t size() const { return count_; }
  /// Bytes of records held in memory (all of them until the spool spills to its file).
  std::size_t memoryBytes() const { return memory_.size(); }
  bool spilled() const { return file_ != nullptr; }

  void startReading() {
    last_.line = 0;
    last_.text.clear();
    last_.device.clear();
    last_.bytes.clear();
    if (file_) {
      if (!memory_.empty()) spill();
      std::string().swap(memory_);
      if (std::fflush(file_) != 0 || std::fseek(file_, 0, SEEK_SET) != 0) failed("read back");
    }
  }
  /// The next record, or false at the end.
  bool next(Record& r) {
    if (atEnd()) return false;
    last_.line += takeNumber();
    auto flags = static_cast<unsigned>(takeByte());
    takeDifference(last_.text);
    if (!(flags & 4)) {
      last_.device.resize(takeNumber());
      take(last_.device.data(), last_.device.size());
    }
    takeDifference(last_.bytes);
    r.line = last_.line;
    r.kind = static_cast<Record::Kind>(flags & 1);
    r.undoable = flags & 2;
    r.text = last_.text;
    r.device = last_.device;
    r.bytes = {reinterpret_cast<const uint8_t*>(last_.bytes.data()), last_.bytes.size()};
    return true;
  }

 private:
  void putNumber(std::size_t n) {
    for (; n >= 0x80; n >>= 7) memory_.push_back(static_cast<char>(n | 0x80));
    memory_.push_back(static_cast<char>(n));
  }
  /// How many bytes `a` and `b` share from their starts (at most `most`), 8 bytes a compare.
  static std::size_t sharedHead(const char* a, const char* b, std::size_t most) {
    std::size_t n = 0;
    for (uint64_t x, y; n + 8 <= most; n += 8) {
      std::memcpy(&x, a + n, 8);
      std::memcpy(&y, b + n, 8);
      if (x != y) return n + static_cast<std::size_t>(__builtin_ctzll(x ^ y)) / 8;  // little-endian
    }
    while (n < most && a[n] == b[n]) ++n;
    return n;
  }
  /// The same from the ends: `a` and `b` point past their last bytes.
  static std::size_t sharedTail(const char* a, const char* b, std::size_t most) {
    std::size_t n = 0;
    for (uint64_t x, y; n + 8 <= most; n += 8) {
      std::memcpy(&x, a - n - 8, 8);
      std::memcpy(&y, b - n - 8, 8);
      if (x != y) return n + static_cast<std::size_t>(__builtin_clzll(x ^ y)) / 8;
    }
    while (n < most && a[-1 - static_cast<std::ptrdiff_t>(n)] == b[-1 - static_cast<std::ptrdiff_t>(n)]) ++n;
    return n;
  }
  /// `now` as the bytes it shares with the start and the end of `before`, and what lies between.
  void putDifference(std::string& before, std::string_view now) {
    std::size_t head = sharedHead(before.data(), now.data(), std::min(before.size(), now.size()));
    std::size_t tail =
        sharedTail(before.data() + before.size(), now.data() + now.size(), std::min(before.size(), now.size()) - head);
    putNumber(head);
    putNumber(tail);
    putNumber(now.size() - head - tail);
    memory_.append(now.substr(head, now.size() - head - tail));
    before.assign(now);
  }
  /// Turns `value` (the previous record's) into this record's, in place.
  void takeDifference(std::string& value) {
    std::size_t head = takeNumber(), tail = takeNumber(), middle = takeNumber();
    std::size_t size = head + middle + tail, was = value.size();
    if (size > was) value.resize(size);
    std::memmove(value.data() + head + middle, value.data() + was - tail, tail);
    value.resize(size);
    take(value.data() + head, middle);
  }

  bool atEnd() {
    if (!file_) return readAt_ == memory_.size();
    int c = getc_unlocked(file_);
    if (c != EOF) return ungetc(c, file_), false;
    if (std::ferror(file_)) failed("read back");
    return true;
  }
  /// The next byte of a record (in memory_, or in file_ after a spill).
  unsigned takeByte() {
    if (!file_) return static_cast<unsigned char>(memory_[readAt_++]);
    int c = getc_unlocked(file_);
    if (c == EOF) endedEarly();
    return static_cast<unsigned>(c);
  }
  std::size_t takeNumber() {
    std::size_t n = 0;
    for (unsigned shift = 0;; shift += 7) {
      unsigned byte = takeByte();
      n |= std::size_t{byte & 0x7fu} << shift;
      if (byte < 0x80) return n;
    }
  }
  void take(char* to, std::size_t n) {
    if (file_) {
      if (n && std::fread(to, 1, n, file_) != n) endedEarly();
      return;
    }
    std::memcpy(to, memory_.data() + readAt_, n);
    readAt_ += n;
  }

  /// Moves the records in memory to the file (created on first use) and empties the memory.
  void spill() {
    if (!file_) {
      file_ = std::tmpfile();
      if (!file_) failed("create");
      buffer_ = std::make_unique_for_overwrite<char[]>(kFileBuffer);
      std::setvbuf(file_, buffer_.get(), _IOFBF, kFileBuffer);
    }
    if (std::fwrite(memory_.data(), 1, memory_.size(), file_) != memory_.size()) failed("write");
    memory_.clear();
  }
  [[noreturn]] void endedEarly() {
    if (!std::ferror(file_)) errno = EIO;  // cut short: the file holds less than was written
    failed("read back");
  }
  [[noreturn]] static void failed(const char* what) {
    throw UsageError(fmt::format("cannot {} the batch's temporary file: {}", what, std::strerror(errno)));
  }

  /// The record last appended (pass 1) or read (pass 2): what the next one is a difference of.
  struct {
    std::size_t line = 0;
    std::string text, device, bytes;
  } last_;
  std::size_t memoryBound_;
  std::string memory_;  ///< records not yet in file_
  std::size_t readAt_ = 0;
  std::unique_ptr<char[]> buffer_;  ///< file_'s stdio buffer (~Spool closes file_ before it is freed)
  std::FILE* file_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace fastlink::cli
