// The CLI's start-up: a short command used to spend more time in the dynamic loader than in its own
// work (docs/BENCHMARKS.md, "CLI start-up"), so the binary links everything but libc and libmnl
// statically. A new dependency of the library (libbpf did this once) silently brings the shared
// libraries back; this test notices.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>

#include "cli/cli_fixture.hpp"

namespace fastlink::test {
namespace {

std::set<std::string> neededLibraries(const std::string& binary) {
  auto r = run("readelf -d " + shellQuote(binary));
  EXPECT_EQ(r.status, 0) << r.err;
  std::set<std::string> needed;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    auto open = line.find("(NEEDED)");
    if (open == std::string::npos) continue;
    auto from = line.find('[', open), to = line.find(']', open);
    if (from != std::string::npos && to != std::string::npos) needed.insert(line.substr(from + 1, to - from - 1));
  }
  return needed;
}

TEST(CliStartup, BinaryLoadsOnlyLibcAndLibmnl) {
  if (build::sanitizerBuild())
    GTEST_SKIP() << "sanitizer build: it links the sanitizer runtimes (the Release build checks this)";
  if (run("command -v readelf >/dev/null").status != 0) GTEST_SKIP() << "readelf (binutils) is not installed here";
  // Not libm: its two uses (rounding tc times) are written out (rtnl::roundToUnsigned).
  std::set<std::string> allowed = {"libc.so.6", "libmnl.so.0", "ld-linux-x86-64.so.2"};
  auto needed = neededLibraries(cliPath());
  ASSERT_FALSE(needed.empty()) << "readelf found no NEEDED entries in " << cliPath();
  for (const auto& lib : needed) EXPECT_TRUE(allowed.count(lib)) << cliPath() << " needs " << lib << " at start-up";
}

TEST(CliStartup, NoIostreamInitialisationAtStartUp) {
  // A translation unit that includes <iostream> gets a static std::ios_base::Init, which builds
  // the standard streams and the C++ locale in every process start (~50 K instructions of a
  // `link show type bridge`; std::ifstream still builds its locale when one is opened). The CLI
  // uses no std::cout/cerr. yaml-cpp's archive (the state component's emitter) includes
  // <iostream> in its objects; the executable links their Init to an empty function
  // (cli/kit/no_standard_streams.cpp; the next test). Our own objects (the CLI's, the core's,
  // the state component's) must not bring one either.
  if (build::sanitizerBuild())
    GTEST_SKIP() << "sanitizer build: it links the sanitizer runtimes (the Release build checks this)";
  if (run("command -v nm >/dev/null").status != 0) GTEST_SKIP() << "nm (binutils) is not installed here";
  std::string cli = cliPath();
  std::string buildDir = cli.substr(0, cli.rfind("/cli/"));
  std::string dirs = shellQuote(buildDir + "/cli/CMakeFiles/fastlink_cli_objects.dir") + " " +
                     shellQuote(buildDir + "/CMakeFiles/fastlink_core.dir") + " " +
                     shellQuote(buildDir + "/CMakeFiles/fastlink_state.dir");
  auto count = run("find " + dirs + " -name '*.o' | wc -l");
  ASSERT_GT(std::stoi(count.out), 50) << "the CLI's and the core library's objects were not found under " << buildDir;
  auto r = run("find " + dirs + " -name '*.o' | while read -r f; do nm -u \"$f\" | grep -q _ZNSt8ios_base4InitC1Ev && echo \"$f\"; done");
  EXPECT_EQ(r.out, "") << "these objects initialise iostreams at start-up (they include <iostream>)";
}

TEST(CliStartup, StandardStreamsAreNeverBuilt) {
  // The executable links std::ios_base::Init's constructor to an empty one, so std::cin, cout,
  // cerr, clog (and the wide ones) are never constructed. Their definitions are linked in only
  // when something in the executable names one, and that code would use an unconstructed stream:
  // none may be in the binary.
  if (build::sanitizerBuild())
    GTEST_SKIP() << "sanitizer build: it links the sanitizer runtimes (the Release build checks this)";
  if (run("command -v nm >/dev/null").status != 0) GTEST_SKIP() << "nm (binutils) is not installed here";
  auto wrapped = run("nm " + shellQuote(cliPath()) + " | grep -c ' T __wrap__ZNSt8ios_base4InitC1Ev$'");
  ASSERT_EQ(wrapped.out, "1\n") << cliPath() << " does not link std::ios_base::Init to kit/no_standard_streams.cpp";
  auto r = run("nm -C " + shellQuote(cliPath()) +
               " | grep -E ' [BDbd] std::(cin|cout|cerr|clog|wcin|wcout|wcerr|wclog)$'");
  EXPECT_EQ(r.out, "") << "standard streams in " << cliPath()
                       << ": something in the CLI (or a library it links) uses one, and it is never constructed";
}

}  // namespace
}  // namespace fastlink::test
