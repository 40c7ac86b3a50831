// Runs a test's setup lines (`fastlink -n NS LINE` each, through the fixture's cli) in order
// and stops at the first that fails, named with its exit status and stderr: for tests that add
// a list of objects before comparing them with iproute2's view.
#pragma once

#include <initializer_list>

#include "cli_fixture.hpp"

namespace fastlink::test {

template <class Cli>
::testing::AssertionResult eachSucceeds(const Cli& cli, std::initializer_list<const char*> lines) {
  for (const char* line : lines) {
    CommandResult r = cli(line);
    if (r.status != 0) return ::testing::AssertionFailure() << line << ": exit " << r.status << ": " << r.err;
  }
  return ::testing::AssertionSuccess();
}

}  // namespace fastlink::test
