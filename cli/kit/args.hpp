// Word-level parsing shared by every object command: a cursor over the words of one command
// line, keyword matching, and value parsers whose errors name the keyword they belong to.
//
// iproute2's grammar is positional keywords ("mtu 9000 up master br0"), not flags, so a generic
// option parser (CLI11, getopt) does not fit it: the words are walked by hand, like iproute2's
// NEXT_ARG()/matches() idiom, but every error is thrown instead of printed and exited on.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <optional>
#include <string>
#include <cstddef>
#include <utility>
#include <string_view>
#include <vector>

#include "fastlink/types.hpp"

namespace fastlink::cli {

/// Bad command-line or batch-line input, detected before anything was sent (exit status 255).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A value ip refuses with exit status 1 rather than a usage error's 255: an address or prefix
/// that does not parse, or of the family -4/-6 excludes (docs/CLI.md, "Exit statuses").
class BadValueError : public UsageError {
 public:
  using UsageError::UsageError;
};

/// Splits a batch line into words like a shell would for simple cases: whitespace separates,
/// "double" or 'single' quotes group, backslash escapes, and an unquoted '#' starting a word
/// comments out the rest of the line. Throws UsageError on an unterminated quote.
std::vector<std::string> splitWords(std::string_view line);

/// A cursor over the words of one command ("link set dev v0 mtu 9000").
///
/// The words are views: into the strings it owns (a command line), or into a batch line
/// (Args::ofLine: no std::string per word; 100,000 tc filter lines spent a sixth of their parse
/// building them, docs/BENCHMARKS.md). The *View accessors read them as they lie; peek(), next()
/// and value() return a std::string made on first request of that word, living as long as the
/// Args.
class Args {
 public:
  explicit Args(std::vector<std::string> words);
  /// The words of `line` by splitWords' rules, as views into `line` when it has no quote,
  /// backslash or comment (else owned). `line` must outlive the Args.
  static Args ofLine(std::string_view line);
  /// This Args becomes ofLine(line), keeping its storage: a batch reads every line into one
  /// Args, so a line's words cost no allocation (issue 33). Strings and views handed out for
  /// the previous line are invalid afterwards.
  void assignLine(std::string_view line);
  Args(Args&&) = default;
  Args& operator=(Args&&) = default;
  Args(const Args&) = delete;  // views into the owned strings would point into the source
  Args& operator=(const Args&) = delete;

  bool done() const { return pos_ >= words_.size(); }
  /// The current word ("" when done).
  const std::string& peek() const;
  std::string_view peekView() const { return done() ? std::string_view() : words_[pos_]; }
  /// Consumes and returns the current word ("" when done). The reference lives as long as the
  /// Args.
  const std::string& next();
  std::string_view nextView() { return done() ? std::string_view() : words_[pos_++]; }
  /// Consumes the value that must follow `keyword`; throws UsageError naming the keyword.
  const std::string& value(std::string_view keyword);
  std::string_view valueView(std::string_view keyword) {
    if (done()) missingValue(keyword);
    return words_[pos_++];
  }
  /// Consumes the current word if it equals `keyword`.
  bool accept(std::string_view keyword) {
    if (done() || words_[pos_] != keyword) return false;
    ++pos_;
    return true;
  }
  /// Consumes the current word if it equals any of `keywords`.
  bool acceptAny(std::initializer_list<std::string_view> keywords);
  /// Consumes `keyword` (sets `field` true) or `no` + `keyword` (sets it false): ip's [no]X switches.
  bool acceptSwitch(std::string_view keyword, std::optional<bool>& field);
  /// Consumes the current word if `words` names it, returning its value: keyword tables
  /// (`nodad` -> AddrFlag::Nodad) instead of one accept per keyword.
  template <class V, std::size_t N>
  std::optional<V> acceptFrom(const std::pair<std::string_view, V> (&words)[N]) {
    for (const auto& [word, value] : words)
      if (accept(word)) return value;
    return std::nullopt;
  }
  /// The cursor, and a return to it: a look-ahead on the words themselves (an Args cannot be
  /// copied).
  std::size_t position() const { return pos_; }
  void rewind(std::size_t position) { pos_ = position; }
  /// Replaces word `i` by `word`, which must outlive the Args (a name from a static table): a
  /// batch line's abbreviated object or verb (`a add` -> `address add`).
  void replace(std::size_t i, std::string_view word);

  /// The whole command as typed, for messages.
  std::string text() const;
  /// Throws UsageError: `unknown keyword "W" in "TEXT" (word N; CONTEXT)`, for the current word.
  [[noreturn]] void unknown(std::string_view context) const;

 private:
  struct LineTag {
    explicit LineTag() = default;  // `Args({})` still means no words
  };
  explicit Args(LineTag) {}
  const std::string& stringAt(std::size_t i) const;
  [[noreturn]] void missingValue(std::string_view keyword) const;

  std::vector<std::string> owned_;       ///< the words, when the Args owns them
  std::vector<std::string_view> words_;  ///< into owned_ or the line
  mutable std::vector<std::string> made_;  ///< words of a line asked for as strings ("" until then)
  std::size_t pos_ = 0;
};

/// Parses a decimal (or 0x hex) integer in [min, max]; errors name the keyword:
/// `mtu: "abc" is not a number`, `vlan id: 5000 is out of range (0-4094)`.
uint64_t parseInteger(std::string_view text, std::string_view keyword, uint64_t min, uint64_t max);
uint32_t parseU32(std::string_view text, std::string_view keyword, uint32_t min = 0, uint32_t max = UINT32_MAX);
/// "0"/"1" (also "off"/"on") as a boolean.
bool parseBool01(std::string_view text, std::string_view keyword);
/// "on" or "off" only (ip's parse_on_off: link flags, vlan flags), as a boolean.
bool parseOnOff(std::string_view text, std::string_view keyword);
MacAddress parseMac(std::string_view text, std::string_view keyword);
IpAddress parseIp(std::string_view text, std::string_view keyword);
/// An interface name the kernel will accept (1-15 bytes, no '/', ':' or whitespace).
std::string parseIfname(std::string_view text, std::string_view keyword);

}  // namespace fastlink::cli
