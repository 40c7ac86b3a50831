// libFuzzer harness for the CLI argument grammar of every object. The input is one command line
// ("route add 10.0.0.0/8 via 10.0.0.1"), split into words the way a batch line is; the first
// word picks the object from the command registry (names and aliases).
// Batchable objects run `prepare` and then validateEncoding (the encoder with placeholder
// ifindexes); the others run their `run`. The Context points at a network namespace that does
// not exist, so a command that gets as far as opening its socket fails there: nothing is ever
// sent, whatever the input. Parse errors must be UsageError or fastlink::Error.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kit/command.hpp"

namespace {

fastlink::cli::Context makeContext() {
  fastlink::cli::GlobalOptions options;
  options.netns = "fastlink-fuzz-no-such-namespace";
  return fastlink::cli::Context(options);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fastlink::cli;
  if (size > 4096) return 0;
  std::string_view line(reinterpret_cast<const char*>(data), size);
  Context ctx = makeContext();
  try {
    std::vector<std::string> words = splitWords(line);
    if (words.empty()) return 0;
    const ObjectCommand* found = findCommand(words.front());
    if (!found) return 0;
    const ObjectCommand& command = *found;
    words.erase(words.begin());
    Args args(std::move(words));
    if (command.prepare) {
      PreparedRequest prepared = command.prepare(ctx, args);
      // A command line kept to run at its turn (PreparedRequest::run: netns's verbs) has no
      // encoder; -batch runs it then, and the harness runs nothing (it could start programs).
      if (!prepared.run) validateEncoding(prepared);
    } else if (line.find('/') == std::string_view::npos) {
      // No paths: `wg set ... private-key FILE` would read any file the input names.
      (void)command.run(ctx, args);
    }
  } catch (const UsageError&) {
  } catch (const fastlink::Error&) {
  }
  return 0;
}
