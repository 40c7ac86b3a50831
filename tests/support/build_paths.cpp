#include "support/build_paths.hpp"

namespace fastlink::test::build {

const char* cliPath() {
#ifdef FASTLINK_CLI_PATH
  return FASTLINK_CLI_PATH;
#else
  return "";  // a test binary without the CLI (the integration suite) never asks
#endif
}

const char* wirePreloadPath() { return FASTLINK_WIRE_PRELOAD_PATH; }

const char* bpfDir() { return FASTLINK_BPF_DIR; }

const char* sourceDir() { return FASTLINK_SOURCE_DIR; }

bool sanitizerBuild() {
#ifdef FASTLINK_SANITIZER_BUILD
  return true;
#else
  return false;
#endif
}

}  // namespace fastlink::test::build
