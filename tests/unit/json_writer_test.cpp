// The CLI's output writer (cli/kit/writer.*): numbers, JSON strings and link-layer addresses as
// the listings print them, checked against the plain formatting they replace (std::to_string,
// a byte-at-a-time escape, "%02x:"), at the edges of each fast path.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "cli/kit/writer.hpp"

namespace fastlink::cli {
namespace {

/// What `write` puts into an OutBuffer, read back through a memory stream.
template <class Write>
std::string written(Write write) {
  char* data = nullptr;
  std::size_t size = 0;
  std::FILE* stream = open_memstream(&data, &size);
  {
    OutBuffer out(stream);
    write(out);
  }  // the destructor flushes
  std::fclose(stream);
  std::string text(data, size);
  std::free(data);
  return text;
}

TEST(JsonWriter, DecimalNumbersAtEveryDigitCount) {
  std::vector<uint64_t> values = {0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 65535, 1500, 4294967295u,
                                  std::numeric_limits<uint64_t>::max(), std::numeric_limits<uint64_t>::max() - 1};
  for (uint64_t p = 10; p < std::numeric_limits<uint64_t>::max() / 10; p *= 10) values.insert(values.end(), {p - 1, p, p + 1});
  for (uint64_t v : values) EXPECT_EQ(written([&](OutBuffer& o) { o.putUint(v); }), std::to_string(v));
  EXPECT_EQ(written([](OutBuffer& o) { o.putInt(-1).put(' ').putInt(std::numeric_limits<int64_t>::min()); }),
            "-1 -9223372036854775808");
}

TEST(JsonWriter, StringsEscapedWhereverTheEscapeIs) {
  EXPECT_EQ(written([](OutBuffer& o) { o.putJsonString(""); }), R"("")");
  EXPECT_EQ(written([](OutBuffer& o) { o.putJsonString("veth0"); }), R"("veth0")");
  EXPECT_EQ(written([](OutBuffer& o) { o.putJsonString("\"up\"link"); }), R"("\"up\"link")");
  EXPECT_EQ(written([](OutBuffer& o) { o.putJsonString("a\\b"); }), R"("a\\b")");
  EXPECT_EQ(written([](OutBuffer& o) { o.putJsonString("tab\t"); }), R"("tab\t")");
  EXPECT_EQ(written([](OutBuffer& o) { o.putJsonString(std::string_view("\x01x\x1f\n\r\b\f", 7)); }),
            R"("\u0001x\u001f\n\r\b\f")");
  // Bytes from 0x7f up are copied as they are (UTF-8 passes through), as ip's json_writer does.
  EXPECT_EQ(written([](OutBuffer& o) { o.putJsonString("caf\xc3\xa9\x7f"); }), "\"caf\xc3\xa9\x7f\"");
  EXPECT_EQ(written([](OutBuffer& o) { o.putQuoted("BROADCAST"); }), R"("BROADCAST")");
}

TEST(JsonWriter, LinkLayerAddressesOfAnyLength) {
  const uint8_t mac[] = {0x02, 0x00, 0xab, 0xcd, 0xef, 0x10};
  EXPECT_EQ(written([&](OutBuffer& o) { o.putHexBytes(mac); }), "02:00:ab:cd:ef:10");
  EXPECT_EQ(written([&](OutBuffer& o) { o.putHexBytes(std::span<const uint8_t>(mac, 1)).put('|'); }), "02|");
  EXPECT_EQ(written([&](OutBuffer& o) { o.put('<').putHexBytes({}).put('>'); }), "<>");
  EXPECT_EQ(written([&](OutBuffer& o) { o.putMac(MacAddress(std::span<const uint8_t>(mac))); }), "02:00:ab:cd:ef:10");
}

TEST(JsonWriter, ARecordLargerThanTheBufferGrowsIt) {
  std::string name(OutBuffer::kRestartWindow + 3 * OutBuffer::kChunk, 'x');
  std::string text = written([&](OutBuffer& o) { o.putJsonString(name).putUint(12345678901234567890u); });
  EXPECT_EQ(text, '"' + name + '"' + "12345678901234567890");
}

}  // namespace
}  // namespace fastlink::cli
