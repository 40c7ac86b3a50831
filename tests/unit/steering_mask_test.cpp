// CPU mask text as sysfs writes it (rps_cpus, xps_cpus): 32-bit hex words, highest first.
#include <gtest/gtest.h>

#include "fastlink/error.hpp"
#include "fastlink/steering.hpp"

namespace fastlink {
namespace {

TEST(CpuMask, ParsesTheKernelsText) {
  EXPECT_EQ(parseCpuMask("0"), (std::vector<unsigned>{}));
  EXPECT_EQ(parseCpuMask("3"), (std::vector<unsigned>{0, 1}));
  EXPECT_EQ(parseCpuMask("00000000,0000000f"), (std::vector<unsigned>{0, 1, 2, 3}));
  EXPECT_EQ(parseCpuMask("1,80000000"), (std::vector<unsigned>{31, 32}));
  EXPECT_EQ(parseCpuMask("A"), (std::vector<unsigned>{1, 3}));
}

TEST(CpuMask, FormatsWhatTheKernelParses) {
  EXPECT_EQ(formatCpuMask({}), "0");
  EXPECT_EQ(formatCpuMask({0, 1}), "3");
  EXPECT_EQ(formatCpuMask({31, 32}), "1,80000000");
  EXPECT_EQ(formatCpuMask({64}), "1,00000000,00000000");
  for (const std::vector<unsigned>& cpus : {std::vector<unsigned>{5, 40, 100}, std::vector<unsigned>{0}})
    EXPECT_EQ(parseCpuMask(formatCpuMask(cpus)), cpus);
}

TEST(CpuMask, RejectsWhatIsNotAMask) {
  for (const char* bad : {"", "g", "1,,2", "123456789", ",1", "0x3"}) {
    EXPECT_THROW(parseCpuMask(bad), Error) << bad;
  }
}

}  // namespace
}  // namespace fastlink
