// cli/kit/spool.hpp: the -batch reader's spool keeps each record as its difference from the one
// before, in memory up to a bound and then in a temporary file; every record must read back
// exactly as appended on both paths.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "cli/kit/spool.hpp"

namespace fastlink::cli {
namespace {

struct Line {
  Record::Kind kind = Record::Kind::Encoded;
  bool undoable = false;
  std::size_t line = 0;
  std::string text, device, bytes;
};

/// Lines like a batch's: mostly the previous one with a few bytes changed, inserted or removed,
/// sometimes unrelated, empty, or (rarely) 70,000 bytes long (lengths past two varint bytes); devices kept,
/// changed or none; deferred lines without a request.
std::vector<Line> batchLikeLines(std::size_t count, uint32_t seed) {
  std::mt19937 random(seed);
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(random() % n); };
  auto noise = [&](std::size_t n) {
    std::string s(n, '\0');
    for (char& c : s) c = static_cast<char>(random());
    return s;
  };
  std::vector<Line> lines;
  Line l{.text = "tc filter add dev v0 ingress pref 1 u32 match ip dst 10.0.0.1/32 action drop", .device = "v0", .bytes = noise(160)};
  for (std::size_t i = 0; i < count; ++i) {
    l.line += 1 + (pick(10) == 0 ? pick(1000) : 0);
    for (std::string* v : {&l.text, &l.bytes}) {
      switch (pick(12)) {
        case 0: *v = noise(pick(300)); break;
        case 1: v->clear(); break;
        case 2: *v = noise(pick(8) == 0 ? 70000 : 200); break;
        case 3: v->insert(pick(v->size() + 1), noise(1 + pick(20))); break;
        case 4: if (!v->empty()) v->erase(pick(v->size()), 1 + pick(20)); break;
        default:
          for (std::size_t k = pick(4); k-- && !v->empty();) (*v)[pick(v->size())] = static_cast<char>(random());
      }
    }
    if (pick(8) == 0) l.device = pick(3) == 0 ? "" : "dev" + std::to_string(pick(50));
    l.kind = pick(10) == 0 ? Record::Kind::Deferred : Record::Kind::Encoded;
    l.undoable = pick(2) == 0;
    Line appended = l;
    if (l.kind == Record::Kind::Deferred) appended.bytes.clear();
    lines.push_back(appended);
  }
  return lines;
}

void appendAll(Spool& spool, const std::vector<Line>& lines) {
  for (const Line& l : lines)
    spool.append(Record{l.kind, l.undoable, l.line, l.text, l.device,
                        {reinterpret_cast<const uint8_t*>(l.bytes.data()), l.bytes.size()}});
}

/// "" when equal, else where they part (a 70,000-byte value printed whole would drown the report).
std::string difference(std::string_view got, std::string_view want) {
  if (got == want) return "";
  std::size_t at = 0;
  while (at < got.size() && at < want.size() && got[at] == want[at]) ++at;
  return "read back " + std::to_string(got.size()) + " bytes, appended " + std::to_string(want.size()) + ", first difference at byte " +
         std::to_string(at);
}

void expectReadBack(Spool& spool, const std::vector<Line>& lines) {
  ASSERT_EQ(spool.size(), lines.size());
  spool.startReading();
  Record r;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    ASSERT_TRUE(spool.next(r)) << "record " << i << " of " << lines.size() << " missing";
    const Line& l = lines[i];
    ASSERT_EQ(r.line, l.line) << "record " << i;
    ASSERT_EQ(r.kind, l.kind) << "record " << i;
    ASSERT_EQ(r.undoable, l.undoable) << "record " << i;
    ASSERT_EQ(difference(r.text, l.text), "") << "text of record " << i;
    ASSERT_EQ(r.device, l.device) << "record " << i;
    ASSERT_EQ(difference({reinterpret_cast<const char*>(r.bytes.data()), r.bytes.size()}, l.bytes), "") << "request of record " << i;
  }
  EXPECT_FALSE(spool.next(r)) << "a record after the last one appended";
}

TEST(SpoolTest, RecordsReadBackAsAppendedFromMemory) {
  std::vector<Line> lines = batchLikeLines(3000, 1);
  Spool spool;
  appendAll(spool, lines);
  ASSERT_FALSE(spool.spilled());
  expectReadBack(spool, lines);
}

TEST(SpoolTest, RecordsReadBackAsAppendedFromTheFileAfterASpill) {
  // Bounds from one byte (every record goes to the file as it is appended) to past a record.
  for (std::size_t bound : {1u, 100u, 4096u, 1u << 20}) {
    SCOPED_TRACE("memory bound " + std::to_string(bound));
    std::vector<Line> lines = batchLikeLines(3000, static_cast<uint32_t>(bound));
    Spool spool(bound);
    appendAll(spool, lines);
    ASSERT_TRUE(spool.spilled());
    expectReadBack(spool, lines);
  }
}

TEST(SpoolTest, AnEmptySpoolReadsNothing) {
  for (std::size_t bound : {std::size_t{1}, kSpoolMemory}) {
    Spool spool(bound);
    spool.startReading();
    Record r;
    EXPECT_FALSE(spool.next(r));
  }
}

TEST(SpoolTest, BatchLinesDifferingInAnAddressStayInMemory) {
  // bench/tc_filter_bench.sh's 100,000 lines: whole, their records were ~27 MiB, past the
  // memory bound into the file; as differences from the line before they cost ~15 bytes each.
  Spool spool;
  std::string bytes(172, '\x11');
  std::vector<Line> lines;
  for (uint32_t k = 0; k < 100000; ++k) {
    std::string address = "10." + std::to_string(k >> 16 & 255) + "." + std::to_string(k >> 8 & 255) + "." + std::to_string(k & 255);
    std::string text = "tc filter add dev v0 ingress protocol ip pref " + std::to_string(1 + k / 2000) + " u32 match ip dst " + address +
                       "/32 action mirred egress redirect dev v1";
    uint32_t info = (1 + k / 2000) << 16 | 8;  // tcmsg's priority and protocol, the key's address
    std::memcpy(bytes.data() + 32, &info, sizeof info);
    std::memcpy(bytes.data() + 96, &k, sizeof k);
    lines.push_back(Line{.line = k + 1, .text = text, .device = "v0", .bytes = bytes});
  }
  appendAll(spool, lines);
  EXPECT_FALSE(spool.spilled());
  EXPECT_LT(spool.memoryBytes(), 100000u * 16) << "bytes for 100,000 records";
  expectReadBack(spool, lines);
}

}  // namespace
}  // namespace fastlink::cli
