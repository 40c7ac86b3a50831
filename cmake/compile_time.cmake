# What keeps a cold build short: CI builds the project twice (Release, then ASan+UBSan) on a
# 2-core machine, and the sanitizer build was its longest phase (docs/testing.md, "CI time").

# fastlink_test_code(TARGET): a gtest binary's own sources. In the ASan+UBSan build they are
# compiled without instrumentation and still linked with the sanitizer runtime: the sanitizers
# are there to check the library and the CLI that the tests drive, and instrumenting gtest's
# and gmock's templates doubled the compile time of every test file (27 s against 13 s for
# tests/unit/mock_link_api_test.cpp at -O0 -g1, user CPU on this machine).
# Without instrumentation the compiler does not define __SANITIZE_ADDRESS__ in test code: a test
# that must know it runs in the sanitizer build (to skip an RSS bound, say) tests
# FASTLINK_SANITIZER_BUILD instead.
#
# In every build the test binaries' own sources are compiled at -O0 (after the build type's -O3,
# so it wins): what the tests check is the library and the CLI, which keep the build type's
# optimisation; gtest's macros at -O3 made a test source take 1.4 to 2.7 times as long to compile
# (tests/unit/link_decode_test.cpp: 16.3 s of CPU at -O3, 6.1 s at -O0; docs/testing.md, "CI
# time"). The tests' run time is the kernel's and the processes': it does not change.
function(fastlink_test_code target)
  target_compile_options(${target} PRIVATE -O0)
  if(FASTLINK_SANITIZE)
    target_compile_options(${target} PRIVATE -fno-sanitize=all)
    target_compile_definitions(${target} PRIVATE FASTLINK_SANITIZER_BUILD=1)
  endif()
endfunction()
