// libFuzzer harness for the -batch file reader (cli/kit/batch.cpp) through its entry point
// runBatchFile(Context&, path): the input is written to a file and read as a batch. The Context
// points at a network namespace that does not exist, so a file that passes validation fails when
// the socket is opened: nothing is ever sent. Errors are printed and returned as exit statuses;
// an exception escaping other than UsageError / fastlink::Error is a crash.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "kit/command.hpp"

namespace {

const std::string& batchPath() {
  // Never destroyed: the atexit cleanup is registered before the string's own destructor would
  // be, so it runs after it.
  static const std::string& path = *new std::string([] {
    // tmpfs: on ext4, rewriting a file through truncation makes close() start its writeback
    // (auto_da_alloc), which held this harness at a few hundred executions a second.
    char shm[] = "/dev/shm/fastlink-fuzz-batch-XXXXXX";
    char tmp[] = "/tmp/fastlink-fuzz-batch-XXXXXX";
    char* pattern = shm;
    int fd = mkstemp(shm);
    if (fd < 0) fd = mkstemp(pattern = tmp);
    if (fd < 0) std::abort();
    close(fd);
    std::string p = pattern;
    std::atexit([] { std::remove(batchPath().c_str()); });
    return p;
  }());
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fastlink::cli;
  if (size > 65536) return 0;
  FILE* f = std::fopen(batchPath().c_str(), "wb");
  if (!f) std::abort();
  if (size > 0) std::fwrite(data, 1, size, f);
  std::fclose(f);
  GlobalOptions options;
  options.netns = "fastlink-fuzz-no-such-namespace";
  options.force = (size & 1) != 0;  // both -force (keep going) and stop-at-first-error
  Context ctx(options);
  try {
    int status = runBatchFile(ctx, batchPath());
    if (status != kExitOk && status != kExitBadValue && status != kExitFailed && status != kExitUsage) __builtin_trap();
  } catch (const UsageError&) {
  } catch (const fastlink::Error&) {
  }
  return 0;
}
