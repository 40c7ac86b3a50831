// Shell completion from the CLI's own grammar (see complete.hpp for the protocol).
#include "kit/complete.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "kit/command.hpp"
#include "rtnl/link_kind.hpp"
#include "kit/output.hpp"
#include "rtnl/tc_filter.hpp"
#include "kit/usage_grammar.hpp"

namespace fastlink::cli {
namespace {

using Type = GrammarNode::Type;

/// Keywords whose value is a device name whatever the placeholder is called (`dev NAME`,
/// `iif STRING`, `vrf NAME`).
bool isDeviceKeyword(std::string_view w) {
  return w == "dev" || w == "master" || w == "link" || w == "iif" || w == "oif" || w == "vrf" || w == "br" ||
         w == "brport";
}

/// What may come next: keywords, and kinds of values to list.
struct Candidates {
  std::set<std::string> words;
  bool devices = false;
  bool netns = false;
  bool files = false;
  bool linkKinds = false;

  void merge(const Candidates& o) {
    words.insert(o.words.begin(), o.words.end());
    devices |= o.devices;
    netns |= o.netns;
    files |= o.files;
    linkKinds |= o.linkKinds;
  }
};

/// The last keyword of a node that ends in one (`dev` of `[dev]`), for `[dev] NAME`.
const GrammarNode* lastWord(const GrammarNode& n) {
  if (n.isWord()) return &n;
  if ((n.type == Type::Sequence || n.type == Type::Optional) && !n.children.empty()) return lastWord(n.children.back());
  return nullptr;
}

/// The keywords of a path step (`show`, `{ add | del }`, `[ -s ]`), or nullopt when it holds a
/// value or more than one word per alternative.
std::optional<std::set<std::string>> literals(const GrammarNode& n) {
  if (n.isWord()) return n.isPlaceholder() ? std::nullopt : std::optional(std::set<std::string>{n.word});
  if (n.type == Type::Optional || (n.type == Type::Sequence && n.children.size() == 1)) return literals(n.children[0]);
  if (n.type != Type::Choice) return std::nullopt;
  std::set<std::string> out;
  for (const auto& alt : n.children) {
    auto l = literals(alt);
    if (!l) return std::nullopt;
    out.merge(*l);
  }
  return out;
}

/// An exact match, or (`exact` false) an abbreviation as iproute2 takes them (`sh` for show).
bool matchesTyped(const std::set<std::string>& words, std::string_view typed, bool exact) {
  if (exact) return words.contains(std::string(typed));
  return std::any_of(words.begin(), words.end(), [&](const std::string& w) { return !typed.empty() && w.starts_with(typed); });
}

/// The grammar of one object (or of the global options) with the queries completion needs.
class Grammar {
 public:
  explicit Grammar(UsageGrammar g) : g_(std::move(g)) {}

  const UsageGrammar& usage() const { return g_; }
  void addFragment(GrammarNode n) { fragments_.push_back(std::move(n)); }

  /// First words of `nodes[from..]` (a sequence); returns whether all of it may be left out.
  bool firstOfSequence(const std::vector<GrammarNode>& nodes, std::size_t from, const GrammarNode* prev,
                       Candidates& out, int depth = 0) const {
    for (std::size_t i = from; i < nodes.size(); ++i) {
      if (!first(nodes[i], prev, out, depth)) return false;
      prev = &nodes[i];
    }
    return true;
  }

  /// Every keyword under `n` and the definitions it names.
  /// Values of a keyword (`threaded on|off`, `nud STATE`) are left out: they are offered after
  /// their keyword only.
  void keywords(const GrammarNode& n, Candidates& out, std::set<std::string>& seen) const {
    if (n.isWord()) {
      if (!n.isPlaceholder()) out.words.insert(n.word);
      else if (const GrammarNode* def = definition(n.word); def && seen.insert(n.word).second) keywords(*def, out, seen);
      return;
    }
    const GrammarNode* prev = nullptr;
    for (const auto& c : n.children) {
      bool isValue = n.type == Type::Sequence && prev && prev->isWord() && !prev->isPlaceholder() &&
                     (c.isPlaceholder() || c.type == Type::Choice);
      if (!isValue) keywords(c, out, seen);
      prev = &c;
    }
  }

  /// The definitions reachable from `n` (for follow()).
  void reachableDefinitions(const GrammarNode& n, std::vector<const GrammarNode*>& out, std::set<std::string>& seen) const {
    if (n.isPlaceholder()) {
      if (const GrammarNode* def = definition(n.word); def && seen.insert(n.word).second) {
        out.push_back(def);
        reachableDefinitions(*def, out, seen);
      }
      return;
    }
    for (const auto& c : n.children) reachableDefinitions(c, out, seen);
  }

  /// What follows `keyword` wherever it appears under `roots`; sets `optional` when some
  /// occurrence may be followed by nothing in particular. False: the word is no keyword there.
  bool follow(std::string_view keyword, const std::vector<const GrammarNode*>& roots, Candidates& out, bool& optional) const {
    bool found = false;
    for (const GrammarNode* root : roots) found |= followIn(*root, keyword, out, optional);
    return found;
  }

  const std::vector<GrammarNode>& fragments() const { return fragments_; }

 private:
  const GrammarNode* definition(std::string_view name) const {
    auto it = g_.definitions.find(name);
    return it == g_.definitions.end() ? nullptr : &it->second;
  }

  bool first(const GrammarNode& n, const GrammarNode* prev, Candidates& out, int depth) const {
    if (depth > 16) return true;  // a definition naming itself
    switch (n.type) {
      case Type::Word:
        if (!n.isPlaceholder()) out.words.insert(n.word);
        else return placeholder(n, prev, out, depth);
        return false;
      case Type::Sequence:
        return firstOfSequence(n.children, 0, prev, out, depth);
      case Type::Optional:
        for (const auto& c : n.children) first(c, prev, out, depth);
        return true;
      case Type::Choice: {
        bool nullable = false;
        for (const auto& c : n.children) nullable |= first(c, prev, out, depth);
        return nullable;
      }
    }
    return false;
  }

  /// A value the user types: list what can be listed.
  bool placeholder(const GrammarNode& n, const GrammarNode* prev, Candidates& out, int depth) const {
    const GrammarNode* before = prev ? lastWord(*prev) : nullptr;
    std::string_view after = before && !before->isPlaceholder() ? std::string_view(before->word) : std::string_view();
    const std::string& w = n.word;
    if (w == "DEV" || w == "PHYS_DEV" || w == "BRIDGE" || isDeviceKeyword(after)) out.devices = true;
    else if (w == "NETNS" || w == "NETNSNAME" || w == "NS" || after == "netns") out.netns = true;
    else if (w == "FILE") out.files = true;
    else if (const GrammarNode* def = definition(w)) return firstOfDefinition(w, *def, out, depth);
    else if (w == "KIND") out.linkKinds = true;
    return false;
  }

  /// A definition's first words, computed once per definition (definitions name each other: a
  /// usage text could otherwise make the expansion exponential); a definition that names itself
  /// adds nothing more.
  bool firstOfDefinition(const std::string& name, const GrammarNode& def, Candidates& out, int depth) const {
    if (auto cached = firstCache_.find(name); cached != firstCache_.end()) {
      out.merge(cached->second.first);
      return cached->second.second;
    }
    if (!expanding_.insert(name).second) return false;
    Candidates own;
    bool nullable = first(def, nullptr, own, depth + 1);
    expanding_.erase(name);
    out.merge(own);
    firstCache_.emplace(name, std::pair{std::move(own), nullable});
    return nullable;
  }

  bool followIn(const GrammarNode& n, std::string_view keyword, Candidates& out, bool& optional) const {
    bool found = false;
    for (std::size_t i = 0; i < n.children.size(); ++i) {
      const GrammarNode& c = n.children[i];
      auto l = n.type == Type::Sequence ? literals(c) : std::nullopt;
      if (l && l->contains(std::string(keyword))) {  // `dev DEV`, `[dev] NAME`, `-n[etns] NETNS`
        found = true;
        if (firstOfSequence(n.children, i + 1, &c, out)) optional = true;
      } else {
        found |= followIn(c, keyword, out, optional);
      }
    }
    return found;
  }

  UsageGrammar g_;
  std::vector<GrammarNode> fragments_;  ///< link kind options
  mutable std::map<std::string, std::pair<Candidates, bool>, std::less<>> firstCache_;
  mutable std::set<std::string, std::less<>> expanding_;
};

/// Where the typed words stand in one form: in its leading keywords (the path: verbs, `[ -s ]`),
/// or past them, among its arguments.
struct FormMatch {
  const GrammarNode* form = nullptr;
  std::size_t pathLength = 0;
  std::set<std::size_t> states{0};  ///< path positions reached
  bool inArguments = false;
  std::vector<std::string> arguments;  ///< the typed words past the path
};

std::size_t pathLength(const GrammarNode& form) {
  std::size_t n = 0;
  while (n < form.children.size() && literals(form.children[n])) ++n;
  return n;
}

/// Path: a verb (a required step) took the word; OptionalPath: only an optional step (`[dev]`).
enum class Step { Rejected, Path, OptionalPath, Arguments, NewArguments };

/// Advances `m` over one typed word.
Step advanceOver(FormMatch& m, std::string_view word, bool exact) {
  if (m.inArguments) return Step::Arguments;
  std::set<std::size_t> next;
  bool pastPath = false;
  bool required = false;
  for (std::size_t s : m.states) {
    for (std::size_t i = s;; ++i) {
      if (i == m.pathLength) {
        pastPath = true;
        break;
      }
      const GrammarNode& step = m.form->children[i];
      if (matchesTyped(*literals(step), word, exact)) {
        next.insert(i + 1);
        required |= step.type != Type::Optional;
      }
      if (step.type != Type::Optional) break;
    }
  }
  if (!next.empty()) {
    m.states = std::move(next);
    return required ? Step::Path : Step::OptionalPath;
  }
  if (!pastPath) return Step::Rejected;
  m.inArguments = true;
  m.arguments.clear();
  return Step::NewArguments;
}

/// The first words of `form` from `pos` on; when all of them may be left out and `andKeywords`,
/// every keyword of the rest of the form too.
void addFrom(const Grammar& g, const GrammarNode& form, std::size_t pos, bool andKeywords, Candidates& out) {
  const GrammarNode* prev = pos > 0 ? &form.children[pos - 1] : nullptr;
  if (!g.firstOfSequence(form.children, pos, prev, out) || !andKeywords) return;
  std::set<std::string> seen;
  for (std::size_t i = pos; i < form.children.size(); ++i) g.keywords(form.children[i], out, seen);
}

/// Candidates while the typed words are still in the path of `m`.
void addPathCandidates(const Grammar& g, const FormMatch& m, bool firstWord, Candidates& out) {
  for (std::size_t s : m.states) {
    for (std::size_t i = s;; ++i) {
      if (i == m.pathLength) {
        // `fastlink link <TAB>` offers the verbs, not also `show`'s arguments; a form without
        // verbs (`tune DEV`, `monitor [ OBJECT ]`) offers its first words.
        if (m.pathLength == 0 || !firstWord) addFrom(g, *m.form, m.pathLength, !firstWord, out);
        break;
      }
      const GrammarNode& step = m.form->children[i];
      out.words.merge(*literals(step));
      if (step.type != Type::Optional) break;
    }
  }
}

/// The position in `m`'s form after its arguments, when they are plain keywords and values in
/// order (`wg setconf DEV FILE`, `tune DEV [ ... ]`); nullopt when the position is not plain.
std::optional<std::size_t> positionAfterArguments(const Grammar& g, const FormMatch& m) {
  std::size_t pos = m.pathLength;
  for (const auto& word : m.arguments) {
    if (pos >= m.form->children.size()) return std::nullopt;
    const GrammarNode& c = m.form->children[pos];
    if (!c.isWord() || (c.isPlaceholder() && g.usage().definitions.contains(c.word)) ||
        (!c.isPlaceholder() && c.word != word))
      return std::nullopt;
    ++pos;
  }
  return pos;
}

/// Candidates among the arguments of the forms in `matches`: what comes next where the
/// arguments are plain positional words, else the values of the keyword just typed, else every
/// keyword the forms (and the kind options) take.
void addArgumentCandidates(const Grammar& g, const std::vector<const FormMatch*>& matches, std::string_view previous,
                           Candidates& out) {
  std::vector<const FormMatch*> others;
  for (const FormMatch* m : matches) {
    if (auto pos = positionAfterArguments(g, *m)) addFrom(g, *m->form, *pos, true, out);
    else others.push_back(m);
  }
  if (others.empty()) return;
  std::vector<GrammarNode> rests;
  for (const FormMatch* m : others)
    rests.push_back({Type::Sequence, {}, {m->form->children.begin() + static_cast<std::ptrdiff_t>(m->pathLength), m->form->children.end()}});
  std::vector<const GrammarNode*> roots;
  std::set<std::string> seen;
  for (const auto& r : rests) roots.push_back(&r);
  for (const auto& f : g.fragments()) roots.push_back(&f);
  std::size_t direct = roots.size();
  for (std::size_t i = 0; i < direct; ++i) g.reachableDefinitions(*roots[i], roots, seen);
  bool optional = false;
  Candidates values;
  if (g.follow(previous, roots, values, optional) && !optional) {
    out.merge(values);
    return;
  }
  out.merge(values);
  seen.clear();
  for (std::size_t i = 0; i < direct; ++i) g.keywords(*roots[i], out, seen);
}

/// The options of the kind named after `type` on the line (`link add v0 type vxlan ...`).
void addKindOptions(Grammar& g, const std::vector<std::string>& typed) {
  for (std::size_t i = 0; i + 1 < typed.size(); ++i) {
    if (typed[i] != "type") continue;
    const CliLinkKind* kind = findCliLinkKind(typed[i + 1]);
    if (!kind) continue;
    std::string_view usage = kind->usage;  // "vxlan:   id VNI | ..."
    std::size_t colon = usage.find(": ");
    if (colon != std::string_view::npos) g.addFragment(parseGrammar(usage.substr(colon + 1)));
  }
}

/// The usage a command's words follow: a command's own, or for `tc filter` / `tc chain` /
/// `tc actions` the one of their own (tc's usage only points at it: its KIND := lists qdiscs, not
/// classifiers).
std::string_view usageOf(const ObjectCommand& command, const std::vector<std::string>& typed) {
  if (command.name == "tc")
    for (const auto& w : typed) {
      if (w == "filter" || w == "chain" || w == "actions") return kTcFilterUsage;
      if (!w.starts_with("-")) break;  // `tc -s -j filter show ...`
    }
  return command.usage;
}

Candidates objectCandidates(const ObjectCommand& command, const std::vector<std::string>& typed) {
  std::vector<std::string> objectWords(command.aliases.begin(), command.aliases.end());
  objectWords.emplace_back(command.name);
  Grammar g(parseUsage(usageOf(command, typed), objectWords));
  addKindOptions(g, typed);
  std::vector<FormMatch> matches;
  for (const auto& form : g.usage().forms) matches.push_back({&form, pathLength(form), {0}, false, {}});
  for (const auto& word : typed) {
    // A word that is a verb of some form is not an argument of a form whose verb is optional
    // (`route add` is no `route [ show ] SELECTOR`).
    bool exact = std::any_of(matches.begin(), matches.end(), [&](const FormMatch& m) {
      FormMatch copy = m;
      Step step = advanceOver(copy, word, true);
      return step == Step::Path || step == Step::OptionalPath;
    });
    std::vector<std::pair<FormMatch, Step>> stepped;
    bool someVerb = false;
    for (auto& m : matches) {
      Step step = advanceOver(m, word, exact);
      if (m.inArguments) m.arguments.push_back(word);
      someVerb |= step == Step::Path;
      if (step != Step::Rejected) stepped.emplace_back(std::move(m), step);
    }
    matches.clear();
    for (auto& [m, step] : stepped)
      if (!(someVerb && step == Step::NewArguments)) matches.push_back(std::move(m));
  }
  Candidates out;
  if (typed.empty()) out.words.insert("help");
  std::vector<const FormMatch*> inArguments;
  for (const auto& m : matches) {
    if (m.inArguments) inArguments.push_back(&m);
    else addPathCandidates(g, m, typed.empty(), out);
  }
  if (!inArguments.empty()) addArgumentCandidates(g, inArguments, typed.back(), out);
  return out;
}

std::vector<std::string> deviceNames(const std::optional<std::string>& netns) {
  std::vector<std::string> names;
  try {
    GlobalOptions options;
    options.netns = netns;
    Context ctx(options);
    for (const auto& link : ctx.netlink().links().list())
      if (link.name) names.push_back(*link.name);
  } catch (const std::exception&) {
    // No access to the namespace (not root) or no such namespace: nothing to offer.
  }
  return names;
}

std::vector<std::string> netnsNames() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/run/netns", ec)) names.push_back(entry.path().filename());
  return names;
}

/// `0-255`, `1-256` (a value's range in a definition) is nothing to type as is.
bool isNumberRange(std::string_view w) {
  std::size_t dash = w.find('-');
  auto digits = [](std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  return dash != std::string_view::npos && digits(w.substr(0, dash)) && digits(w.substr(dash + 1));
}

}  // namespace

std::vector<std::string> completionCandidates(const std::vector<std::string>& words, std::string_view mainUsage) {
  if (words.empty()) return {};
  const std::string& current = words.back();
  std::vector<std::string> typed(words.begin(), words.end() - 1);
  // The global options (`-j`, `-n NETNS`) as a grammar, from `fastlink help`'s OPTIONS := line.
  Grammar global(parseUsage(mainUsage, {}));
  std::vector<const GrammarNode*> optionRoots;
  if (auto it = global.usage().definitions.find("OPTIONS"); it != global.usage().definitions.end())
    optionRoots.push_back(&it->second);

  // The global options before the object; `-n NETNS` says where device names come from.
  std::optional<std::string> netns;
  std::size_t i = 0;
  Candidates out;
  bool optionValue = false;
  for (; i < typed.size() && typed[i].starts_with("-"); ++i) {
    std::string option = typed[i].starts_with("--") ? typed[i].substr(1) : typed[i];
    Candidates value;
    bool optional = false;
    if (!global.follow(option, optionRoots, value, optional)) {
      // An option `fastlink help` does not list (`-rcvbuf BYTES`): a following word that is no
      // object is taken as its value.
      if (i + 1 < typed.size() && !typed[i + 1].starts_with("-") &&
          !findCommand(typed[i + 1]) && typed[i + 1] != "help")
        ++i;
      continue;
    }
    if (optional) continue;
    if (i + 1 == typed.size()) {  // completing the option's value
      out = value;
      optionValue = true;
      break;
    }
    if (value.netns) netns = typed[i + 1];
    ++i;
  }
  if (optionValue) {
    // `out` holds the value's candidates
  } else if (i == typed.size()) {
    if (current.starts_with("-")) {
      std::set<std::string> seen;
      for (const GrammarNode* r : optionRoots) global.keywords(*r, out, seen);
    } else {
      for (const auto& c : allCommands()) out.words.emplace(c.name);
      out.words.insert("help");
    }
  } else if (i < typed.size()) {
    const ObjectCommand* command = findCommand(typed[i]);
    if (!command) return {};
    out = objectCandidates(*command, std::vector<std::string>(typed.begin() + static_cast<std::ptrdiff_t>(i) + 1, typed.end()));
  }

  if (out.devices)
    for (auto& name : deviceNames(netns)) out.words.insert(std::move(name));
  if (out.netns)
    for (auto& name : netnsNames()) out.words.insert(std::move(name));
  if (out.linkKinds)
    for (auto& k : knownLinkKinds()) out.words.insert(std::move(k));
  std::vector<std::string> result;
  if (out.files) result.emplace_back(":files");
  for (const auto& w : out.words)
    if (w.starts_with(current) && !isNumberRange(w)) result.push_back(w);
  return result;
}

int runHelpComplete(Args& args, std::string_view mainUsage) {
  std::vector<std::string> words;
  while (!args.done()) words.push_back(args.next());
  std::string text;
  for (const auto& w : completionCandidates(words, mainUsage)) text += w + "\n";
  std::fputs(text.c_str(), stdout);
  return kExitOk;
}

}  // namespace fastlink::cli
