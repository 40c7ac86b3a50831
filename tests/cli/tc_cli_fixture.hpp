// What the tc CLI suites share (tc_cli_test.cpp, tc_filter_cli_test.cpp): the real `tc` in the
// test's namespace as the oracle, and the byte-for-byte comparison of what both tools print.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "cli/cli_fixture.hpp"

namespace fastlink::test {

class TcCliFixture : public CliTest {
 protected:
  CommandResult tc(const std::string& args) const { return run("tc -n " + ns.name() + " " + args); }
  void ok(const std::string& args) {
    auto r = cli(args);
    ASSERT_EQ(r.status, 0) << args << ": " << r.err;
  }
  /// fastlink and tc print the same bytes for `object` (options before the object, e.g. "-s -j").
  void samePrint(const std::string& options, const std::string& object) {
    auto mine = cli(options + " tc " + object);
    auto theirs = tc(options + " " + object);
    ASSERT_EQ(theirs.status, 0) << theirs.err;
    ASSERT_EQ(mine.status, 0) << mine.err;
    EXPECT_EQ(mine.out, theirs.out) << "fastlink " << options << " tc " << object;
  }
};

}  // namespace fastlink::test
