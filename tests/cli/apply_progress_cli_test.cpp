// The progress line of `fastlink apply` (issue 26): on a terminal, `fastlink: N/M steps` on
// standard error while a plan is sent, erased before the plan's steps are printed; nothing when
// standard error is not a terminal. The terminal is a pseudo-terminal from script(1); the second
// the line waits for is shortened by FASTLINK_TEST_PROGRESS_AFTER_MS (docs/testing.md).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "cli/cli_fixture.hpp"

namespace fastlink::test {
namespace {

class ApplyProgressCli : public CliTest {
 protected:
  void SetUp() override {
    journals_ = "/tmp/fastlink-journal-" + std::to_string(getpid()) + "-" + ns.name();
    document_ = "/tmp/fastlink-apply-progress-" + std::to_string(getpid()) + "-" + ns.name() + ".yaml";
    std::ofstream(document_) << "interfaces:\n"
                                "  - {name: pa0, type: veth, state: up, veth: {peer: pb0}}\n"
                                "  - {name: pa1, type: veth, state: up, mtu: 1400, veth: {peer: pb1}}\n";
  }
  void TearDown() override {
    std::remove(document_.c_str());
    run("rm -rf " + shellQuote(journals_));
  }
  /// `fastlink -n NS apply DOCUMENT` with the progress shown from the first answer.
  std::string applyCommand() const {
    return "FASTLINK_RUN_DIR=" + shellQuote(journals_) + " FASTLINK_TEST_PROGRESS_AFTER_MS=0 " + cliPath() + " -n " + ns.name() +
           " apply " + document_;
  }

  std::string journals_;
  std::string document_;
};

TEST_F(ApplyProgressCli, ShownOnATerminalAndErasedBeforeThePlanNotShownOtherwise) {
  // Not a terminal: no progress, the plan alone.
  std::string check = cli("apply --check " + document_).out;
  std::size_t steps = 0;
  for (char c : check) steps += c == '\n';
  ASSERT_GE(steps, 2u) << check;
  auto r = run(applyCommand() + " 2>&1");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, check) << "progress on a standard error that is not a terminal";
  ns.ip("link del pa0");
  ns.ip("link del pa1");
  run("rm -rf " + shellQuote(journals_));

  // On a pseudo-terminal (script(1) runs the command there and copies what it shows).
  r = run("script -qec " + shellQuote(applyCommand()) + " /dev/null");
  ASSERT_EQ(r.status, 0) << r.out;
  std::string first = "\rfastlink: 1/" + std::to_string(steps) + " steps";
  std::size_t shown = r.out.find(first);
  ASSERT_NE(shown, std::string::npos) << "no progress line in: " << r.out;
  std::size_t erased = r.out.find("\r\033[K", shown);
  std::size_t plan = r.out.find("+ interface");
  ASSERT_NE(erased, std::string::npos) << "the progress line is not erased: " << r.out;
  EXPECT_LT(erased, plan) << "the plan is printed over the progress line: " << r.out;
}

}  // namespace
}  // namespace fastlink::test
