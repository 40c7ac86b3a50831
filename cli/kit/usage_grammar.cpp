#include "kit/usage_grammar.hpp"

#include <algorithm>
#include <cctype>
#include <optional>

namespace fastlink::cli {
namespace {

using Type = GrammarNode::Type;

bool isWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' || c == '/';
}

bool isGrammarToken(std::string_view t) {
  return t == "[" || t == "]" || t == "{" || t == "}" || t == "(" || t == ")" || t == "|";
}

/// Index of the ']' matching the '[' at `open`, or npos.
std::size_t matchingBracket(std::string_view s, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < s.size(); ++i) {
    if (s[i] == '[') ++depth;
    else if (s[i] == ']' && --depth == 0) return i;
  }
  return std::string_view::npos;
}

std::vector<std::string_view> splitWhitespace(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    std::size_t start = i;
    while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i > start) out.push_back(text.substr(start, i - start));
  }
  return out;
}

/// Splits text into grammar tokens and words. Brackets inside a word (`[no]udpcsum`,
/// `MAJ:[MIN]`) stay in it; `(see docs/...)` comments (no space after the parenthesis) go.
std::vector<std::string> tokenize(std::string_view text) {
  std::vector<std::string> tokens;
  bool inComment = false;
  for (std::string_view chunk : splitWhitespace(text)) {
    if (inComment || (chunk.size() > 1 && chunk[0] == '(')) {
      inComment = chunk.back() != ')';
      continue;
    }
    while (!chunk.empty()) {
      char c = chunk.front();
      if (c == '{' || c == '(' || c == '|') {
        tokens.emplace_back(1, c);
      } else if (c == '[') {
        std::size_t close = matchingBracket(chunk, 0);
        if (close != std::string_view::npos && close + 1 < chunk.size() && isWordChar(chunk[close + 1])) break;
        tokens.emplace_back("[");
      } else {
        break;
      }
      chunk.remove_prefix(1);
    }
    std::vector<std::string> trailer;
    while (!chunk.empty()) {
      char c = chunk.back();
      if (c == ']' && std::count(chunk.begin(), chunk.end(), '[') >= std::count(chunk.begin(), chunk.end(), ']')) break;
      if (c != ']' && c != '}' && c != ')' && c != '|' && c != ',') break;
      trailer.emplace_back(1, c == ',' ? '|' : c);  // "bond, bridge, dummy": a list is a choice
      chunk.remove_suffix(1);
    }
    if (chunk.ends_with("...")) chunk.remove_suffix(3);
    if (!chunk.empty()) tokens.emplace_back(chunk);
    tokens.insert(tokens.end(), trailer.rbegin(), trailer.rend());
  }
  return tokens;
}

GrammarNode wordNode(std::string word) { return {Type::Word, std::move(word), {}}; }
GrammarNode nodeOf(Type type, std::vector<GrammarNode> children) { return {type, {}, std::move(children)}; }
GrammarNode sequenceOf(std::vector<GrammarNode> children) { return nodeOf(Type::Sequence, std::move(children)); }

/// The usage texts' words have one or two bracket groups; a word with many ("a[b|c][d|e]..."),
/// which only a malformed text holds, would expand to the product of its groups' sizes (the fuzzer
/// ran out of memory on one). Beyond this many variants the word is kept as written.
constexpr std::size_t kMaxWordVariants = 64;

/// How many variants expandBrackets(word) makes, counted up to a limit (then limit + 1).
std::size_t countBracketVariants(std::string_view word, std::size_t limit) {
  std::size_t count = 1;
  for (std::size_t open = word.find('['); open != std::string_view::npos; open = word.find('[', open)) {
    std::size_t close = matchingBracket(word, open);
    if (close == std::string_view::npos) break;
    std::string_view inner = word.substr(open + 1, close - open - 1);
    count *= 2 + static_cast<std::size_t>(std::count(inner.begin(), inner.end(), '|'));
    if (count > limit) return limit + 1;
    open = close + 1;
  }
  return count;
}

/// `[no]udpcsum` -> udpcsum, noudpcsum; `[i|o]csum` -> csum, icsum, ocsum; `-j[son]` -> -j, -json.
std::vector<std::string> expandBrackets(std::string_view word) {
  std::size_t open = word.find('[');
  if (open == std::string_view::npos) return {std::string(word)};
  std::size_t close = matchingBracket(word, open);
  if (close == std::string_view::npos) return {std::string(word)};
  std::vector<std::string> variants{""};
  std::string_view inner = word.substr(open + 1, close - open - 1);
  for (std::size_t start = 0;;) {
    std::size_t bar = inner.find('|', start);
    variants.emplace_back(inner.substr(start, bar == std::string_view::npos ? bar : bar - start));
    if (bar == std::string_view::npos) break;
    start = bar + 1;
  }
  std::vector<std::string> out;
  for (const auto& rest : expandBrackets(word.substr(close + 1)))
    for (const auto& v : variants) out.push_back(std::string(word.substr(0, open)) + v + rest);
  return out;
}

/// `TTL|inherit|auto` -> TTL, inherit, auto (bars outside brackets).
std::vector<std::string_view> splitTopLevelBars(std::string_view word) {
  std::vector<std::string_view> parts;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < word.size(); ++i) {
    if (word[i] == '[') ++depth;
    else if (word[i] == ']') --depth;
    else if (word[i] == '|' && depth == 0) {
      parts.push_back(word.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(word.substr(start));
  return parts;
}

/// One word of the text as a node: a Word, or a Choice of its variants.
GrammarNode expandWord(std::string_view word) {
  std::vector<std::string> variants;
  for (std::string_view part : splitTopLevelBars(word)) {
    if (part.empty()) continue;
    if (std::isupper(static_cast<unsigned char>(part[0])) || countBracketVariants(part, kMaxWordVariants) > kMaxWordVariants)
      variants.emplace_back(part);
    else
      for (auto& v : expandBrackets(part)) variants.push_back(std::move(v));
  }
  if (variants.size() == 1) return wordNode(std::move(variants[0]));
  std::vector<GrammarNode> choices;
  for (auto& v : variants) choices.push_back(sequenceOf({wordNode(std::move(v))}));
  return nodeOf(Type::Choice, std::move(choices));
}

bool isPlainLowercaseWord(std::string_view w) {
  return !w.empty() && std::all_of(w.begin(), w.end(), [](char c) { return c >= 'a' && c <= 'z'; });
}

/// Three plain lower-case words in a row are prose ("a name from rt_tables", "also the
/// namespaces"), not grammar: keywords are separated by brackets, bars or values.
template <typename Words>
bool looksLikeProse(const Words& words) {
  int run = 0;
  for (const auto& w : words) {
    run = isPlainLowercaseWord(w) ? run + 1 : 0;
    if (run >= 3) return true;
  }
  return false;
}

class Parser {
 public:
  /// `form`: the text is a form's (it followed `fastlink OBJECT`), so its own top-level words are
  /// grammar however many plain words run together (`tc actions flush action KIND`); only
  /// what is nested in it (`(fastlink tc filter help)`) may be prose.
  Parser(std::vector<std::string> tokens, bool form) : tokens_(std::move(tokens)), form_(form) {}

  /// Alternatives up to `closer` (or the end): a Sequence, or a Choice of Sequences.
  GrammarNode alternatives(std::string_view closer) {
    std::vector<GrammarNode> alts{sequenceOf({})};
    std::vector<std::vector<std::string>> altWords(1);
    while (pos_ < tokens_.size()) {
      const std::string& t = tokens_[pos_++];
      if (t == closer) break;
      if (t == "|") {
        alts.push_back(sequenceOf({}));
        altWords.emplace_back();
      } else if (t == "[") {
        alts.back().children.push_back(nodeOf(Type::Optional, {alternatives("]")}));
        altWords.back().emplace_back("[");
      } else if (t == "{" || t == "(") {
        alts.back().children.push_back(alternatives(t == "{" ? "}" : ")"));
        altWords.back().emplace_back(t);
      } else if (!isGrammarToken(t)) {
        alts.back().children.push_back(expandWord(t));
        altWords.back().push_back(t);
      }
    }
    std::vector<GrammarNode> kept;
    for (std::size_t i = 0; i < alts.size(); ++i)
      if (((form_ && closer.empty()) || !looksLikeProse(altWords[i])) && !alts[i].children.empty())
        kept.push_back(std::move(alts[i]));
    if (kept.size() == 1) return std::move(kept[0]);
    return nodeOf(Type::Choice, std::move(kept));
  }

 private:
  std::vector<std::string> tokens_;
  std::size_t pos_ = 0;
  bool form_;
};

std::string_view trimLeft(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  return s;
}

/// "OPTIONS" of "  htb class OPTIONS := rate RATE ...", or nullopt when the line is no definition.
std::optional<std::pair<std::string, std::string_view>> definitionLine(std::string_view line) {
  std::size_t def = line.find(":=");
  if (def == std::string_view::npos) return std::nullopt;
  auto nameWords = splitWhitespace(line.substr(0, def));
  if (nameWords.empty()) return std::nullopt;
  std::string_view name = nameWords.back();
  if (name.empty() || !std::isupper(static_cast<unsigned char>(name[0]))) return std::nullopt;
  return std::pair{std::string(name), line.substr(def + 2)};
}

/// The text of a form after its object word: "fastlink [ -t ] monitor [ all ]" -> "[ all ]".
std::optional<std::string_view> formAfterObject(std::string_view line, const std::vector<std::string>& objectWords) {
  line = trimLeft(line);
  if (line.starts_with("Usage:")) line = trimLeft(line.substr(6));
  if (!line.starts_with("fastlink ")) return std::nullopt;
  line.remove_prefix(9);
  for (std::string_view word : splitWhitespace(line))
    if (std::find(objectWords.begin(), objectWords.end(), word) != objectWords.end())
      return line.substr(static_cast<std::size_t>(word.data() + word.size() - line.data()));
  return std::nullopt;
}

}  // namespace

bool GrammarNode::isPlaceholder() const {
  return type == Type::Word && !word.empty() && std::isupper(static_cast<unsigned char>(word[0]));
}

GrammarNode parseGrammar(std::string_view text) { return Parser(tokenize(text), false).alternatives(""); }

UsageGrammar parseUsage(std::string_view usage, const std::vector<std::string>& objectWords) {
  // Entries (forms and definitions) with their continuation lines, then parsed.
  struct Entry {
    std::optional<std::string> definition;  ///< its name; nullopt: a form
    std::string text;
  };
  std::vector<Entry> entries;
  bool open = false;  // whether an indented line continues the last entry
  for (std::size_t start = 0; start <= usage.size();) {
    std::size_t end = usage.find('\n', start);
    if (end == std::string_view::npos) end = usage.size();
    std::string_view line = usage.substr(start, end - start);
    start = end + 1;
    if (auto form = formAfterObject(line, objectWords)) {
      entries.push_back({std::nullopt, std::string(*form)});
      open = true;
    } else if (auto def = definitionLine(line)) {
      entries.push_back({def->first, std::string(def->second)});
      open = true;
    } else if (open && !line.empty() && std::isspace(static_cast<unsigned char>(line[0])) &&
               !looksLikeProse(splitWhitespace(line))) {
      entries.back().text += " ";
      entries.back().text += line;
    } else {
      open = false;
    }
  }
  UsageGrammar grammar;
  for (const auto& e : entries) {
    GrammarNode node = Parser(tokenize(e.text), !e.definition).alternatives("");
    if (!e.definition) {
      grammar.forms.push_back(node.type == Type::Sequence ? std::move(node) : sequenceOf({std::move(node)}));
      continue;
    }
    auto [it, inserted] = grammar.definitions.try_emplace(*e.definition, node);
    if (!inserted)  // two definitions of one name ("htb class OPTIONS", ...): either
      it->second = nodeOf(Type::Choice, {std::move(it->second), std::move(node)});
  }
  return grammar;
}

}  // namespace fastlink::cli
