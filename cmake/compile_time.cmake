# What keeps a cold build short: CI builds the project twice (Release, then ASan+UBSan) on a
# 2-core machine, and the sanitizer build was its longest phase (docs/testing.md, "CI time").

# fastlink_test_code(TARGET): a gtest binary's own sources. They are compiled at -O0, without
# the sanitizers and with the same command line in every build:
# - -O0: what the tests check is the library and the CLI, which keep the build type's optimisation;
#   gtest's macros at -O3 made a test source take 1.4 to 2.7 times as long to compile
#   (tests/unit/link_decode_test.cpp: 16.3 s of CPU at -O3, 6.1 s at -O0).
# - No instrumentation in the ASan+UBSan build (the binaries are still linked with the sanitizer
#   runtime): the sanitizers are there to check the library and the CLI that the tests drive, and
#   instrumenting gtest's and gmock's templates doubled the compile time of every test file.
# - One command line: the target's options are replaced by the warnings and -O0 (no sanitizer
#   flags, no -g1), and the sanitizer build has the Release build's type (scripts/build), so a
#   test source compiles to the same object in both builds and the sanitizer build, run after the
#   Release build, takes it from ccache: the ~150 test sources were half of its compile time
#   (docs/testing.md, "CI time"). What differs between the builds (paths into the build
#   directory, which build it is) is in one source of its own: tests/support/build_paths.hpp; a
#   test that must know it runs in the sanitizer build (to skip an RSS bound, say) asks
#   build::sanitizerBuild().
function(fastlink_test_code target)
  set_property(TARGET ${target} PROPERTY COMPILE_OPTIONS ${FASTLINK_WARNING_OPTIONS} -O0)
endfunction()
