// fastlink::Error: what() shapes, codes comparable with std::errc, the fastlink category.
#include <gtest/gtest.h>

#include <cerrno>
#include <set>
#include <string_view>

#include "fastlink/error.hpp"
#include "fastlink/request.hpp"

namespace fastlink {
namespace {

std::string errnoText(int e) { return std::generic_category().message(e); }

// what() is the reason and the operation, ready for an application's log line: no "Error: " of
// its own (the CLI prints that; an application's "failed: Error: ..." doubled it up).
TEST(Error, WhatIsTheReasonWithTheOperation) {
  Error e(std::make_error_code(std::errc::no_such_device), "link set dev v0");
  EXPECT_EQ(std::string(e.what()), errnoText(ENODEV) + " (link set dev v0)");
  EXPECT_FALSE(std::string_view(e.what()).starts_with("Error"));
  EXPECT_EQ(e.reason(), errnoText(ENODEV));
  EXPECT_TRUE(e.code() == std::errc::no_such_device);
  EXPECT_FALSE(e.code() == std::errc::file_exists);
}

TEST(Error, ExtackReplacesTheErrnoText) {
  Error e(std::make_error_code(std::errc::invalid_argument), "link add x type foo", "Unknown device type", 20u);
  EXPECT_STREQ(e.what(), "Unknown device type (link add x type foo)");
  EXPECT_EQ(e.reason(), "Unknown device type");
  EXPECT_EQ(e.extackOffset(), 20u);
  EXPECT_EQ(e.code(), std::errc::invalid_argument);
}

TEST(Error, WithoutOperation) {
  Error e(std::make_error_code(std::errc::permission_denied), "");
  EXPECT_EQ(std::string(e.what()), errnoText(EACCES));
}

TEST(Error, BatchIndexIsOneBasedInTheText) {
  Error e(std::make_error_code(std::errc::file_exists), "link add v0 type veth");
  e.setBatchIndex(4);
  EXPECT_EQ(e.batchIndex(), 4u);
  EXPECT_EQ(std::string(e.what()), errnoText(EEXIST) + " (link add v0 type veth, request #5 of the batch)");
}

TEST(Error, LineReplacesTheOperation) {
  Error e(std::make_error_code(std::errc::invalid_argument), "link set dev v0", "MTU too big");
  e.setBatchIndex(16).setLine(17, "link set dev v0 mtu 99999");
  EXPECT_STREQ(e.what(), "MTU too big (line 17: link set dev v0 mtu 99999)");
  EXPECT_EQ(e.line(), 17u);
  EXPECT_EQ(e.lineText(), "link set dev v0 mtu 99999");
  EXPECT_EQ(e.batchIndex(), 16u);
  EXPECT_EQ(e.operation(), "link set dev v0");
}

TEST(Error, InvalidArgumentCarriesTheReason) {
  Error e = Error::invalidArgument("link", "mtu 1 out of range");
  EXPECT_EQ(e.code(), std::errc::invalid_argument);
  EXPECT_EQ(e.extack(), "mtu 1 out of range");
  EXPECT_STREQ(e.what(), "mtu 1 out of range (link)");
  EXPECT_FALSE(e.extackOffset().has_value());
}

TEST(Error, CatchableAsSystemError) {
  try {
    throw Error(std::make_error_code(std::errc::no_such_device), "link del dev x");
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), std::errc::no_such_device);
    EXPECT_NE(std::string(e.what()).find("(link del dev x)"), std::string::npos);
  }
}

TEST(Errc, HasItsOwnCategory) {
  std::error_code ec = Errc::dump_interrupted;  // implicit via is_error_code_enum
  EXPECT_EQ(&ec.category(), &errorCategory());
  EXPECT_STREQ(ec.category().name(), "fastlink");
  EXPECT_EQ(ec.message(), "dump interrupted: the kernel's table kept changing");
  EXPECT_NE(ec, std::make_error_code(std::errc::interrupted));
  EXPECT_NE(ec, std::error_code(1, std::generic_category()));  // same value, other category
  EXPECT_EQ(ec, make_error_code(Errc::dump_interrupted));
}

TEST(Errc, EveryValueHasADistinctMessage) {
  std::set<std::string> messages;
  for (Errc e : {Errc::dump_interrupted, Errc::truncated_reply, Errc::receive_overflow, Errc::malformed_reply,
                 Errc::not_sent}) {
    std::string m = make_error_code(e).message();
    EXPECT_NE(m, "unknown fastlink error");
    messages.insert(m);
  }
  EXPECT_EQ(messages.size(), 5u);
  EXPECT_EQ(std::error_code(99, errorCategory()).message(), "unknown fastlink error");
}

TEST(Errc, ErrorWithAFastlinkCode) {
  Error e(make_error_code(Errc::dump_interrupted), "link show");
  EXPECT_EQ(e.code(), Errc::dump_interrupted);
  EXPECT_STREQ(e.what(), "dump interrupted: the kernel's table kept changing (link show)");
}

TEST(BatchResult, FirstErrorIsTheFirstFailure) {
  BatchResult r;
  EXPECT_EQ(r.firstError(), nullptr);
  r.results.push_back({RequestStatus::Applied, std::nullopt});
  r.results.push_back({RequestStatus::NotSent, Error(make_error_code(Errc::not_sent), "a")});
  r.results.push_back({RequestStatus::Failed, Error(std::make_error_code(std::errc::file_exists), "b")});
  r.results.push_back({RequestStatus::Failed, Error(std::make_error_code(std::errc::no_such_device), "c")});
  ASSERT_NE(r.firstError(), nullptr);
  EXPECT_EQ(r.firstError()->operation(), "b");
}

}  // namespace
}  // namespace fastlink
