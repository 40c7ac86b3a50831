// The grammar of a usage text, as `fastlink OBJECT help` prints it, read back for completion.
//
// The usage texts are the CLI's own statement of what it accepts; shell completion reads them
// instead of keeping a second, hand-written word list that would go stale. The notation is
// iproute2's: `{ a | b }` a choice, `[ x ]` optional, `UPPER` a value the user types, `lower` a
// keyword, `NAME := ...` a definition, `[no]udpcsum` / `-j[son]` / `on|off` word-internal
// variants, `(see ...)` a comment, `( a | b )` a group.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace fastlink::cli {

struct GrammarNode {
  enum class Type { Word, Sequence, Choice, Optional };
  Type type = Type::Sequence;
  std::string word;  ///< Word: a keyword ("mtu", "-j") or a placeholder ("DEV", "FILE")
  std::vector<GrammarNode> children;

  bool isWord() const { return type == Type::Word; }
  /// A placeholder starts with an upper-case letter (DEV, NAME, MAJ:MIN); anything else is typed
  /// as is (add, -4, 802.1Q, +).
  bool isPlaceholder() const;
};

/// The forms (one per `fastlink OBJECT ...` line, continuation lines included; the words up to
/// and including the object name dropped) and the definitions (`NAME := ...`) of a usage text.
struct UsageGrammar {
  std::vector<GrammarNode> forms;  ///< each a Sequence
  std::map<std::string, GrammarNode, std::less<>> definitions;
};

/// Reads `usage`; `objectWords` are the object's name and aliases (where a form's own words
/// start). Prose lines and comments are skipped.
UsageGrammar parseUsage(std::string_view usage, const std::vector<std::string>& objectWords);

/// One grammar fragment (a definition body, a kind's options line).
GrammarNode parseGrammar(std::string_view text);

}  // namespace fastlink::cli
