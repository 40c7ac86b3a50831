// libFuzzer harness for shell completion (cli/kit/complete.cpp, cli/kit/usage_grammar.cpp). The input is
// used twice: as a usage text for the grammar reader (brackets, bars, definitions in any state of
// balance), and as a command line being completed (`fastlink help-complete WORDS ""`), split into
// words the way a batch line is. Device names would come from a namespace that does not exist
// (a `-n` of the input is dropped), so nothing is read from a real one.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kit/args.hpp"
#include "kit/complete.hpp"
#include "kit/usage_grammar.hpp"

namespace {

constexpr std::string_view kMainUsage =
    "Usage: fastlink [ OPTIONS ] OBJECT { COMMAND | help }\n"
    "       OPTIONS := { -j[son] | -p[retty] | -n[etns] NETNS | -batch FILE | -window N }\n";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fastlink::cli;
  if (size > 4096) return 0;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)parseUsage(text, {"fastlink", "x"});
  try {
    std::vector<std::string> words{"-n", "fastlink-fuzz-no-such-namespace"};
    for (auto& w : splitWords(text))
      if (w != "-n" && w != "-netns" && w != "--netns") words.push_back(std::move(w));
    words.emplace_back("");
    (void)completionCandidates(words, kMainUsage);
  } catch (const UsageError&) {  // an unterminated quote in splitWords
  }
  return 0;
}
