#include "kit/writer.hpp"

#include <arpa/inet.h>

#include <array>
#include <cstdlib>
#include <new>

#include "fastlink/error.hpp"

namespace fastlink::cli {

OutBuffer::OutBuffer(std::FILE* out, std::size_t window) : out_(out), threshold_(window) {
  capacity_ = window + kChunk;
  data_ = static_cast<char*>(std::malloc(capacity_));
  if (!data_) throw std::bad_alloc();
}

OutBuffer::~OutBuffer() {
  flush();
  std::free(data_);
}

void OutBuffer::grow(std::size_t more) {
  // A record longer than the spare room: grow rather than split it (records are small).
  std::size_t capacity = std::max(capacity_ * 2, size_ + more);
  char* bigger = static_cast<char*>(std::realloc(data_, capacity));
  if (!bigger) throw std::bad_alloc();
  data_ = bigger;
  capacity_ = capacity;
}

void OutBuffer::drain() {
  if (size_ == 0) return;
  std::fwrite(data_, 1, size_, out_);
  size_ = 0;
  wrote_ = true;
  threshold_ = kChunk;  // past the restart window: write in chunks
}

void OutBuffer::flush() {
  drain();
  std::fflush(out_);
}

void OutBuffer::restartDump() {
  if (wrote_)
    throw Error(make_error_code(Errc::dump_interrupted), "dump",
                "Dump was interrupted and may be inconsistent (the part printed before could not be taken back)");
  size_ = 0;
}

OutBuffer& OutBuffer::putIp(const IpAddress& ip) {
  auto b = ip.bytes();
  if (ip.isV4()) {
    // Room for the longest quad first, then the digits in place: a million routes print two
    // addresses each, and four putUint calls with their checks were ~4% of `-j route show`.
    if (capacity_ - size_ < kIpv4Room) grow(kIpv4Room);
    size_ = static_cast<std::size_t>(writeIpv4(data_ + size_, b.data()) - data_);
    return *this;
  }
  char text[INET6_ADDRSTRLEN];
  inet_ntop(AF_INET6, b.data(), text, sizeof text);
  return put(std::string_view(text));
}

OutBuffer& OutBuffer::putHexBytes(std::span<const uint8_t> bytes) {
  // Straight into the buffer, a byte's two digits and the separator after it one 4-byte store
  // from a table (the 4th byte is overwritten by the next), the last separator dropped: `link
  // show` prints two addresses per device (a digit at a time, 120 instructions a MAC).
  static constexpr auto kHexPairs = [] {
    constexpr char kHex[] = "0123456789abcdef";
    std::array<std::array<char, 4>, 256> table{};
    for (unsigned b = 0; b < 256; ++b) table[b] = {kHex[b >> 4], kHex[b & 15], ':', ':'};
    return table;
  }();
  if (bytes.empty()) return *this;
  if (capacity_ - size_ < bytes.size() * 3 + 1) grow(bytes.size() * 3 + 1);
  char* at = data_ + size_;
  for (uint8_t b : bytes) {
    std::memcpy(at, kHexPairs[b].data(), 4);
    at += 3;
  }
  size_ = static_cast<std::size_t>(at - 1 - data_);
  return *this;
}

OutBuffer& OutBuffer::putPrefix(const Prefix& prefix) {
  putIp(prefix.address());
  if (!prefix.isHost()) put('/').putUint(prefix.length());
  return *this;
}

OutBuffer& OutBuffer::putJsonString(std::string_view s) {
  // Most strings (device names, qdiscs) need no escape: copied as they are checked, in place.
  if (capacity_ - size_ < s.size() + 2) grow(s.size() + 2);
  char* p = data_ + size_;
  *p++ = '"';
  std::size_t clean = 0;
  for (; clean < s.size() && !detail::kJsonEscaped[static_cast<unsigned char>(s[clean])]; ++clean) p[clean] = s[clean];
  if (clean == s.size()) {
    p[clean] = '"';
    size_ += s.size() + 2;
    return *this;
  }
  size_ += 1 + clean;
  return putJsonEscaped(s, clean);
}

OutBuffer& OutBuffer::putJsonEscaped(std::string_view s, std::size_t start) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (std::size_t i = start; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    put(s.substr(start, i - start));
    start = i + 1;
    switch (c) {
      case '"': put("\\\""); break;
      case '\\': put("\\\\"); break;
      case '\b': put("\\b"); break;
      case '\f': put("\\f"); break;
      case '\n': put("\\n"); break;
      case '\r': put("\\r"); break;
      case '\t': put("\\t"); break;
      default: put("\\u00").put(kHex[c >> 4]).put(kHex[c & 15]);
    }
  }
  put(s.substr(start));
  return put('"');
}

// -p lays JSON out as ip's json_writer does: an object's members one per line, indented four
// spaces a level; an array's elements on the array's line, "[ a,b ]", so objects in an array
// read "[ {", "},{", "} ]".
JsonOut::JsonOut(OutBuffer& out, bool pretty, Layout layout)
    : out_(out), pretty_(pretty && layout == Layout::Array), lines_(layout == Layout::Lines) {
  if (!lines_) out_.put(pretty_ ? "[ " : "[");
  depth_ = 1;  // the elements' members are indented two levels, as ip's are
  first_[1] = true;
}

void JsonOut::restartDump() {
  out_.restartDump();
  if (!lines_) out_.put(pretty_ ? "[ " : "[");
  depth_ = 1;
  first_[1] = true;
  afterKey_ = false;
}

JsonOut::~JsonOut() { finish(); }

void JsonOut::finish() {
  if (finished_) return;
  finished_ = true;
  if (!lines_) out_.put(pretty_ && !first_[1] ? " ]\n" : "]\n");
  out_.flush();
}

void JsonOut::newline() {
  out_.put('\n');
  for (int i = 0; i < depth_; ++i) out_.put("    ");
}

void JsonOut::beforeValue() {
  if (afterKey_) {
    afterKey_ = false;
    return;
  }
  if (!first_[depth_]) out_.put(',');  // an array's element: on the same line
  first_[depth_] = false;
}

JsonOut& JsonOut::beginObject() {
  beforeValue();
  out_.put('{');
  first_[++depth_] = true;
  return *this;
}

JsonOut& JsonOut::endObject() {
  bool empty = first_[depth_];
  --depth_;
  if (pretty_ && !empty) newline();
  out_.put('}');
  return *this;
}

JsonOut& JsonOut::beginArray() {
  beforeValue();
  out_.put(pretty_ ? "[ " : "[");
  first_[++depth_] = true;
  return *this;
}

JsonOut& JsonOut::endArray() {
  bool empty = first_[depth_];
  --depth_;
  if (pretty_ && !empty) out_.put(' ');
  out_.put(']');
  return *this;
}

JsonOut& JsonOut::key(std::string_view k) {
  bool first = first_[depth_];
  first_[depth_] = false;
  afterKey_ = true;
  if (!first) out_.put(',');
  if (pretty_) newline();  // an object's member: on its own line
  out_.putJsonString(k);
  out_.put(pretty_ ? ": " : ":");
  return *this;
}

JsonOut& JsonOut::value(std::string_view s) {
  beforeValue();
  out_.putJsonString(s);
  return *this;
}

JsonOut& JsonOut::value(uint64_t v) {
  beforeValue();
  out_.putUint(v);
  return *this;
}

JsonOut& JsonOut::valueInt(int64_t v) {
  beforeValue();
  out_.putInt(v);
  return *this;
}

JsonOut& JsonOut::value(bool v) {
  beforeValue();
  out_.put(v ? "true" : "false");
  return *this;
}

JsonOut& JsonOut::value(const IpAddress& ip) {
  beforeValue();
  out_.put('"').putIp(ip).put('"');
  return *this;
}

JsonOut& JsonOut::value(const Prefix& p) {
  beforeValue();
  out_.put('"').putPrefix(p).put('"');
  return *this;
}

}  // namespace fastlink::cli
