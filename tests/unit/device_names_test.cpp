// The CLI's ifindex -> name cache (cli/kit/device_names.cpp): devices by ifindex in chunks,
// indexes past the dense range in a map, lookups of unknown devices, and names that stay where
// they are as more devices are added (printers hold them while naming the next).
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "kit/device_names.hpp"

namespace fastlink::cli {
namespace {

TEST(DeviceNames, RemembersDevicesByIndexDenseAndSparse) {
  DeviceNames names;
  names.remember(1, "lo", 0x9);
  names.remember(300, "v300", 0x1003);         // another chunk
  names.remember(1u << 20, "far", 0x1);        // past the dense range: the map
  names.remember(4'000'000'000u, "farther", 0);
  EXPECT_EQ(names.nameOrIndex(1), "lo");
  EXPECT_EQ(names.nameOrIndex(300), "v300");
  EXPECT_EQ(names.nameOrIndex(1u << 20), "far");
  EXPECT_EQ(names.nameOrIndex(4'000'000'000u), "farther");
  EXPECT_EQ(names.flags(300), 0x1003u);
  EXPECT_EQ(names.flags(1u << 20), 0x1u);
  // Unknown: in a chunk that exists, in one that does not, past the dense range.
  for (uint32_t index : {2u, 299u, 301u, 5000u, (1u << 20) - 1, (1u << 20) + 1}) {
    EXPECT_FALSE(names.knows(index)) << index;
    EXPECT_EQ(names.find(index), nullptr) << index;
    EXPECT_EQ(names.flags(index), 0u) << index;
    EXPECT_EQ(names.nameOrIndex(index), std::to_string(index));
  }
  // A device renamed (a link event) keeps one entry.
  names.remember(300, "renamed", 0x1);
  EXPECT_EQ(names.nameOrIndex(300), "renamed");
  names.clear();
  EXPECT_FALSE(names.knows(1));
  EXPECT_FALSE(names.knows(1u << 20));
}

TEST(DeviceNames, NamesStayWhereTheyAreAsDevicesAreAdded) {
  DeviceNames names;
  names.remember(7, "first", 0);
  names.remember(2'000'000, "sparse", 0);
  const std::string* first = names.find(7);
  const std::string* sparse = names.find(2'000'000);
  for (uint32_t i = 1; i <= 20'000; ++i) names.remember(i == 7 ? 20'001 : i, "d" + std::to_string(i), 0);
  for (uint32_t i = 2'000'001; i <= 2'001'000; ++i) names.remember(i, "s", 0);
  ASSERT_EQ(names.find(7), first) << "device 7's name moved as devices were added";
  EXPECT_EQ(*first, "first");
  ASSERT_EQ(names.find(2'000'000), sparse) << "a sparse device's name moved as devices were added";
  EXPECT_EQ(names.nameOrIndex(19'999), "d19999");
}

TEST(DeviceNames, UnknownDevicesAreLookedUpOnce) {
  std::vector<uint32_t> asked;
  DeviceNames names([&](uint32_t index) -> std::optional<LinkInfo> {
    asked.push_back(index);
    if (index != 42) return std::nullopt;
    LinkInfo l;
    l.name = "found";
    l.flags = 0x41;
    return l;
  });
  EXPECT_EQ(names.name(42), "found");
  EXPECT_EQ(names.flags(42), 0x41u);
  EXPECT_EQ(names.name(43), "if43");  // ip's word for a device it cannot name
  EXPECT_EQ(names.name(42), "found");
  EXPECT_EQ(names.name(43), "if43");
  EXPECT_EQ(asked, (std::vector<uint32_t>{42, 43}));
  LinkInfo event;
  event.index = 5'000'000;
  event.name = "event";
  event.flags = 0x1;
  names.remember(event);
  EXPECT_EQ(names.name(5'000'000), "event");
  EXPECT_EQ(asked.size(), 2u);
}

}  // namespace
}  // namespace fastlink::cli
