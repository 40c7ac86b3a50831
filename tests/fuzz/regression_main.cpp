// Runs a fuzz harness over every file of a seed corpus directory: the gcc build's stand-in
// for libFuzzer, registered as a ctest so every build replays the seeds (and past crashes).
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
// The view harnesses dump each seed under every filter here, under two when fuzzing
// (fuzz_view_dump.hpp's `chosen`).
extern "C" const int fastlink_fuzz_every_filter = 1;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
    return 2;
  }
  std::size_t count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(argv[1])) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    static const uint8_t kEmpty = 0;  // like libFuzzer: an empty input still has a valid pointer
    LLVMFuzzerTestOneInput(bytes.empty() ? &kEmpty : bytes.data(), bytes.size());
    ++count;
  }
  std::printf("%zu inputs from %s\n", count, argv[1]);
  return count == 0 ? 1 : 0;  // an empty corpus means the seeds went missing
}
