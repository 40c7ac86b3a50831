// The CLI's output path for dumps: one buffered writer with hand-rolled number and address
// formatting (no iostream, no locale, no std::string per field), and a streaming JSON emitter on
// top of it that writes keys in the order they are given (ip's order), `-p` indented like
// nlohmann's dump(4) inside the array (what JsonArrayWriter prints).
//
// Restart window: a dump the kernel interrupts (NLM_F_DUMP_INTR) is restarted by the library
// after the first attempt has been streamed. Text already on stdout cannot be taken back, so
// the writer holds the first kRestartWindow bytes of output before writing any: a dump whose
// output fits there (every listing a person reads) is restarted invisibly and printed once,
// consistent. A bigger one was partly printed already: restartDump() then reports
// Errc::dump_interrupted and the command ends with `Error: Dump was interrupted and may be
// inconsistent` (ip's words) and exit status 1 (ip exits 0 after that warning; a script can
// tell). JSON stays a closed, valid array. See docs/CLI.md, "Output".
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "fastlink/prefix.hpp"
#include "fastlink/types.hpp"

namespace fastlink::cli {

namespace detail {
/// A byte value as decimal text: its `length` digits (4 bytes: one load and one store each).
struct OctetText {
  char digits[3];
  uint8_t length;
};
static_assert(sizeof(OctetText) == 4);
inline constexpr std::array<OctetText, 256> kOctetTexts = [] {
  std::array<OctetText, 256> table{};
  for (unsigned v = 0; v < 256; ++v) {
    OctetText& t = table[v];
    if (v >= 100) t.digits[t.length++] = static_cast<char>('0' + v / 100);
    if (v >= 10) t.digits[t.length++] = static_cast<char>('0' + v / 10 % 10);
    t.digits[t.length++] = static_cast<char>('0' + v % 10);
  }
  return table;
}();

/// The numbers 0-99 as two digits ("07"): decimal numbers are written two digits a step.
inline constexpr std::array<char, 200> kDigitPairs = [] {
  std::array<char, 200> table{};
  for (unsigned v = 0; v < 100; ++v) {
    table[2 * v] = static_cast<char>('0' + v / 10);
    table[2 * v + 1] = static_cast<char>('0' + v % 10);
  }
  return table;
}();

/// The bytes that JSON strings must escape (controls, '"', '\\'): one load a byte.
inline constexpr std::array<bool, 256> kJsonEscaped = [] {
  std::array<bool, 256> table{};
  for (unsigned c = 0; c < 0x20; ++c) table[c] = true;
  table['"'] = table['\\'] = true;
  return table;
}();
}  // namespace detail

/// Room writeDecimal needs: the 20 digits of 2^64-1.
inline constexpr std::size_t kDecimalRoom = 20;

/// Writes `v` in decimal at `out` (kDecimalRoom bytes of room) and returns its end: the digits
/// counted first, then written from the end two at a time (a listing prints numbers by the
/// ten thousand: ifindex, mtu, qlen of every device).
inline char* writeDecimal(char* out, uint64_t v) {
  std::size_t n = 1;
  for (uint64_t rest = v; rest >= 10; rest /= 10) ++n;
  char* end = out + n;
  char* at = end;
  while (v >= 100) {
    at -= 2;
    std::memcpy(at, &detail::kDigitPairs[2 * (v % 100)], 2);
    v /= 100;
  }
  if (v >= 10) {
    at -= 2;
    std::memcpy(at, &detail::kDigitPairs[2 * v], 2);
  } else {
    *--at = static_cast<char>('0' + v);
  }
  return end;
}

/// Room writeIpv4 needs at `out`: the quad is at most 15 characters, the byte after it is scratch.
inline constexpr std::size_t kIpv4Room = 16;

/// Writes an IPv4 address (4 bytes) as a dotted quad at `out` (kIpv4Room bytes of room) and
/// returns its end: by hand, since glibc's inet_ntop formats with sprintf (the monitor and `-j
/// route show` print one or two per object), and from a table of the 256 octets, since digit by
/// digit the quads were a fifth of `route show`'s instructions (callgrind, 50,000 routes via a
/// gateway: ~120 per address).
inline char* writeIpv4(char* out, const uint8_t* bytes) {
  for (std::size_t i = 0; i < 4; ++i) {
    const detail::OctetText& t = detail::kOctetTexts[bytes[i]];
    std::memcpy(out, &t, sizeof t);  // the digits, and the length byte as scratch
    out += t.length;
    *out++ = '.';
  }
  return out - 1;  // the last dot was scratch too
}

class OutBuffer {
 public:
  /// Output held before the first write (see the header comment), and the write size after it.
  static constexpr std::size_t kRestartWindow = 1 << 20;
  static constexpr std::size_t kChunk = 64 * 1024;

  explicit OutBuffer(std::FILE* out = stdout, std::size_t window = kRestartWindow);
  ~OutBuffer();
  OutBuffer(const OutBuffer&) = delete;
  OutBuffer& operator=(const OutBuffer&) = delete;

  OutBuffer& put(char c) {
    if (size_ == capacity_) grow(1);
    data_[size_++] = c;
    return *this;
  }
  OutBuffer& put(std::string_view s) {
    if (s.empty()) return *this;  // an empty view may carry no data pointer: memcpy must not see it
    if (capacity_ - size_ < s.size()) grow(s.size());
    std::memcpy(data_ + size_, s.data(), s.size());
    size_ += s.size();
    return *this;
  }
  OutBuffer& putUint(uint64_t v) {
    if (capacity_ - size_ < kDecimalRoom) grow(kDecimalRoom);
    size_ = static_cast<std::size_t>(writeDecimal(data_ + size_, v) - data_);
    return *this;
  }
  OutBuffer& putInt(int64_t v) { return v < 0 ? put('-').putUint(0 - static_cast<uint64_t>(v)) : putUint(static_cast<uint64_t>(v)); }
  /// 10.0.0.1 / 2001:db8::1 (RFC 5952, like inet_ntop).
  OutBuffer& putIp(const IpAddress& ip);
  /// 02:00:00:00:00:01 (lower-case hex, any length), like MacAddress::toString.
  OutBuffer& putMac(const MacAddress& mac) { return putHexBytes(mac.bytes()); }
  /// Bytes as lower-case hex pairs separated by ':' (a link-layer address of any length).
  OutBuffer& putHexBytes(std::span<const uint8_t> bytes);
  /// 10.0.0.0/24; a host prefix (/32, /128) without its length, like iproute2.
  OutBuffer& putPrefix(const Prefix& prefix);
  /// "text" with JSON escapes.
  OutBuffer& putJsonString(std::string_view s);
  /// "text" for text known to need no escape (fastlink's own words): one copy.
  OutBuffer& putQuoted(std::string_view s) {
    if (capacity_ - size_ < s.size() + 2) grow(s.size() + 2);
    char* p = data_ + size_;
    *p++ = '"';
    if (!s.empty()) std::memcpy(p, s.data(), s.size());
    p[s.size()] = '"';
    size_ += s.size() + 2;
    return *this;
  }
  /// `,"key":` (without the comma when `comma` is false) for a literal key, which needs no
  /// escaping: its length is a constant here, so the copy is a few fixed-size moves instead of a
  /// memcpy call (a million routes have ~6 keys each).
  template <std::size_t N>
  OutBuffer& putJsonKey(bool comma, const char (&key)[N]) {
    constexpr std::size_t length = N - 1;
    if (capacity_ - size_ < length + 4) grow(length + 4);
    char* p = data_ + size_;
    if (comma) *p++ = ',';
    *p++ = '"';
    std::memcpy(p, key, length);
    p += length;
    *p++ = '"';
    *p++ = ':';
    size_ = static_cast<std::size_t>(p - data_);
    return *this;
  }

  /// Ends a record (a line, an element): writes out when the buffer is past its threshold.
  void endRecord() {
    if (size_ >= threshold_) drain();
  }
  /// Drops a trailing space (printers that end every field with one, as conntrack's do).
  void trimTrailingSpace() {
    if (size_ && data_[size_ - 1] == ' ') --size_;
  }
  /// Bytes held now: a mark for joinLines() (valid until the next endRecord()).
  std::size_t held() const { return size_; }
  /// `ip -o`: every line break written since `mark`, except a last one, becomes `\`.
  void joinLines(std::size_t mark) {
    for (std::size_t i = mark; i + 1 < size_; ++i)
      if (data_[i] == '\n') data_[i] = '\\';
  }
  /// Writes everything out and flushes the stream.
  void flush();
  /// True once output has left the buffer: a restart would print it twice.
  bool wroteAny() const { return wrote_; }
  /// True once a write failed (e.g. EPIPE: the reader closed the pipe, SIGPIPE being ignored).
  bool failed() const { return std::ferror(out_) != 0; }
  /// The dump is about to be restarted: drops what this dump printed (still in the buffer) so it
  /// is printed once; throws Error(Errc::dump_interrupted) when part of it was written already.
  void restartDump();

 private:
  void grow(std::size_t more);
  /// The rest of putJsonString from `start`, the first byte to escape (the quote written).
  OutBuffer& putJsonEscaped(std::string_view s, std::size_t start);
  void drain();

  std::FILE* out_;
  char* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
  std::size_t threshold_;
  bool wrote_ = false;
};

/// Streaming JSON: `[` elements `]` with objects and arrays built by calls, keys in call order.
/// Compact like ip -j; with `pretty`, laid out like ip -j -p (and JsonArrayWriter's -p output).
class JsonOut {
 public:
  /// How the top-level elements are laid out: in one array (a show command's listing), or one
  /// compact element per line (JSON Lines: the monitor, whose output has no end to close).
  enum class Layout { Array, Lines };
  JsonOut(OutBuffer& out, bool pretty, Layout layout = Layout::Array);
  ~JsonOut();  ///< closes the top-level array if finish() was not called (an error ended the dump)
  JsonOut(const JsonOut&) = delete;
  JsonOut& operator=(const JsonOut&) = delete;

  JsonOut& beginObject();
  JsonOut& endObject();
  JsonOut& beginArray();
  JsonOut& endArray();
  /// Key of the next value in the current object. A literal key (the template below, every
  /// printer's case) is written without escaping in compact output.
  JsonOut& key(std::string_view k);
  template <std::size_t N>
  JsonOut& key(const char (&k)[N]) {
    if (pretty_) return key(std::string_view(k, N - 1));
    out_.putJsonKey(!first_[depth_], k);
    first_[depth_] = false;
    afterKey_ = true;
    return *this;
  }
  JsonOut& value(std::string_view s);
  JsonOut& value(const char* s) { return value(std::string_view(s)); }
  JsonOut& value(uint64_t v);
  JsonOut& value(uint32_t v) { return value(static_cast<uint64_t>(v)); }
  JsonOut& value(int v) { return valueInt(v); }
  JsonOut& value(int64_t v) { return valueInt(v); }
  JsonOut& value(bool v);
  JsonOut& value(const IpAddress& ip);
  JsonOut& value(const Prefix& p);
  template <class T>
  JsonOut& field(std::string_view k, const T& v) {
    return key(k).value(v);
  }
  template <std::size_t N, class T>
  JsonOut& field(const char (&k)[N], const T& v) {
    return key(k).value(v);
  }
  /// Starts a value the caller writes straight into the buffer (a complete JSON value).
  OutBuffer& rawValue() {
    beforeValue();
    return out_;
  }
  /// Ends one top-level element (lets the buffer write out).
  void endElement() {
    if (lines_) {
      out_.put('\n');
      first_[1] = true;  // the next line's element takes no comma
    }
    out_.endRecord();
  }
  /// OutBuffer::restartDump(), then starts the array again.
  void restartDump();
  /// Closes the top-level array and flushes.
  void finish();
  OutBuffer& buffer() { return out_; }

 private:
  JsonOut& valueInt(int64_t v);
  void beforeValue();
  void newline();

  OutBuffer& out_;
  bool pretty_;
  bool lines_;
  bool finished_ = false;
  int depth_ = 0;
  // Per nesting level (bounded: ip's JSON is a few levels deep): no element written yet.
  bool first_[32] = {};
  bool afterKey_ = false;
};

}  // namespace fastlink::cli
