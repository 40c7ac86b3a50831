// cli/kit/name_table.hpp: the batch reader's name -> index table (open addressing over inline
// interface names, a node map for longer ones).
#include <gtest/gtest.h>

#include <string>

#include "cli/kit/name_table.hpp"

namespace fastlink::cli {
namespace {

TEST(NameTableTest, EveryNameFindsItsOwnEntryAcrossGrowth) {
  NameTable table;  // no reserve: grows from 16 slots through several rehashes
  for (uint32_t i = 0; i < 5000; ++i) {
    auto [value, inserted] = table.findOrInsert("tq" + std::to_string(i));
    ASSERT_TRUE(inserted) << i;
    ASSERT_FALSE(value->has_value());
    *value = i + 1;
  }
  for (uint32_t i = 0; i < 5000; ++i) {
    auto [value, inserted] = table.findOrInsert("tq" + std::to_string(i));
    ASSERT_FALSE(inserted) << i;
    ASSERT_EQ(value->value_or(0), i + 1) << i;
  }
}

TEST(NameTableTest, APrefixIsAnotherName) {
  NameTable table;
  table.reserve(4);
  *table.findOrInsert("eth1").first = 7;
  auto [value, inserted] = table.findOrInsert("eth10");
  EXPECT_TRUE(inserted);
  *value = 8;
  EXPECT_EQ(table.findOrInsert("eth1").first->value_or(0), 7u);
  EXPECT_TRUE(table.findOrInsert("eth").second);
}

TEST(NameTableTest, NamesOfFifteenBytesStayInlineAndLongerOnesStillWork) {
  NameTable table;
  std::string fifteen(15, 'a'), sixteen(16, 'a'), altname(100, 'b');
  *table.findOrInsert(fifteen).first = 1;
  *table.findOrInsert(sixteen).first = 2;
  *table.findOrInsert(altname).first = 3;
  EXPECT_EQ(table.findOrInsert(fifteen).first->value_or(0), 1u);
  EXPECT_EQ(table.findOrInsert(sixteen).first->value_or(0), 2u);
  EXPECT_EQ(table.findOrInsert(altname).first->value_or(0), 3u);
  EXPECT_FALSE(table.findOrInsert(altname).second);
}

TEST(NameTableTest, ANameWithoutADeviceIsRememberedAsAbsent) {
  NameTable table;
  EXPECT_TRUE(table.findOrInsert("nosuch").second);  // left std::nullopt: looked up, not there
  auto [value, inserted] = table.findOrInsert("nosuch");
  EXPECT_FALSE(inserted);
  EXPECT_FALSE(value->has_value());
}

}  // namespace
}  // namespace fastlink::cli
