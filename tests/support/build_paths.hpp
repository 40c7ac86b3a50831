// What differs between the Release and the ASan+UBSan build for the test sources: paths into the
// build directory and which build it is. They are compiled in one small source per build
// (build_paths.cpp, its own library in tests/CMakeLists.txt), so that every other test source
// compiles with the same command line in both builds and the sanitizer build takes its objects
// from ccache instead of compiling them a second time (docs/testing.md, "CI time").
#pragma once

namespace fastlink::test::build {

/// The fastlink command of this build (tests use cliPath(), which FASTLINK_CLI overrides).
const char* cliPath();
/// The wire observer as a preload library (tests/support/wire_observer.cpp).
const char* wirePreloadPath();
/// The directory of the BPF test programs (tests/bpf): xdp_count.o, xdp_drop.o, cls_mark.o.
const char* bpfDir();
/// The source tree (the project's root), for the test data the CLI suite reads: kept here and
/// not in a define of every CLI test source, so those compile to the same command in every
/// checkout and ccache (base_dir) shares their objects between worktrees.
const char* sourceDir();
/// True in the ASan+UBSan build (FASTLINK_SANITIZE): the test sources are compiled without
/// instrumentation, so they cannot test __SANITIZE_ADDRESS__ themselves.
bool sanitizerBuild();

}  // namespace fastlink::test::build
