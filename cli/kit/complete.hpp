// `fastlink help-complete WORD...`: the words that may follow, for the bash completion script
// (completions/fastlink.bash). Hidden from `fastlink help`; documented in docs/CLI.md ("Shell").
//
// WORDS are the command line after `fastlink` up to the cursor, the last one being the word
// under completion (possibly ""). Prints one candidate per line, those starting with that word;
// a line `:files` asks the shell to complete file names. Objects, verbs and options come from the
// registered objects' usage texts (usage_grammar.hpp), link kinds and their options from the kind
// registry, device names from the kernel (in the namespace of a `-n NETNS` on the line), namespace
// names from /run/netns. Never fails: what it cannot list it leaves out.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kit/args.hpp"

namespace fastlink::cli {

/// The hidden object word.
constexpr std::string_view kHelpCompleteWord = "help-complete";

/// The candidates for the last of `words` (see above), sorted, without duplicates. `mainUsage`
/// is the text of `fastlink help` (its OPTIONS := line gives the global options).
std::vector<std::string> completionCandidates(const std::vector<std::string>& words, std::string_view mainUsage);

/// Runs `fastlink help-complete` (the words after it in `args`); prints; returns 0.
int runHelpComplete(Args& args, std::string_view mainUsage);

}  // namespace fastlink::cli
