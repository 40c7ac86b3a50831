#include "kit/args.hpp"
#include "kit/arg_errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>

#include "fastlink/error.hpp"

namespace fastlink::cli {

namespace {

/// One class per byte: splitting a line looks each byte up once instead of comparing it with
/// eight characters (a -batch file of 100,000 tc filters spent a seventh of its parse here).
enum CharClass : uint8_t { kWord = 0, kBlank = 1, kSpecial = 2 };
constexpr std::array<uint8_t, 256> kCharClass = [] {
  std::array<uint8_t, 256> t{};
  for (unsigned char c : {' ', '\t', '\r', '\n'}) t[c] = kBlank;
  for (unsigned char c : {'"', '\'', '\\', '#'}) t[c] = kSpecial;
  return t;
}();
uint8_t classOf(char c) { return kCharClass[static_cast<unsigned char>(c)]; }

/// The common line, without quotes, escapes or comments: words are cut out whole instead of
/// built a character at a time (a -batch file of a million lines goes through here). Returns
/// false (words unspecified) at the first quote, backslash or '#'.
bool splitPlainWords(std::string_view line, std::vector<std::string>& words) {
  words.reserve(24);
  std::size_t i = 0, n = line.size();
  while (i < n) {
    uint8_t c = kWord;
    while (i < n && (c = classOf(line[i])) == kBlank) ++i;
    std::size_t start = i;
    while (i < n && (c = classOf(line[i])) == kWord) ++i;
    if (i < n && c == kSpecial) return false;
    if (i > start) words.emplace_back(line.data() + start, i - start);
  }
  return true;
}

}  // namespace

std::vector<std::string> splitWords(std::string_view line) {
  std::vector<std::string> words;
  if (splitPlainWords(line, words)) return words;
  words.clear();
  std::string word;
  bool inWord = false;
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quote) {
      if (c == quote) quote = 0;
      else if (c == '\\' && quote == '"' && i + 1 < line.size()) word += line[++i];
      else word += c;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      if (inWord) words.push_back(std::move(word)), word.clear(), inWord = false;
      continue;
    }
    if (c == '#' && !inWord) break;
    inWord = true;
    if (c == '"' || c == '\'') quote = c;
    else if (c == '\\' && i + 1 < line.size()) word += line[++i];
    else word += c;
  }
  if (quote) throw UsageError(fmt::format("unterminated {} quote", quote));
  if (inWord) words.push_back(std::move(word));
  return words;
}

const std::string& Args::peek() const {
  static const std::string kEmpty;
  return done() ? kEmpty : words_[pos_];
}

const std::string& Args::next() { return done() ? peek() : words_[pos_++]; }

const std::string& Args::value(std::string_view keyword) {
  if (done()) throw MissingValueError(fmt::format("\"{}\" needs a value (in \"{}\")", keyword, text()));
  return words_[pos_++];
}

bool Args::accept(std::string_view keyword) {
  if (done() || words_[pos_] != keyword) return false;
  ++pos_;
  return true;
}

bool Args::acceptAny(std::initializer_list<std::string_view> keywords) {
  for (auto k : keywords)
    if (accept(k)) return true;
  return false;
}

bool Args::acceptSwitch(std::string_view keyword, std::optional<bool>& field) {
  const std::string& word = peek();
  bool negated = word.size() == keyword.size() + 2 && word.starts_with("no") && word.ends_with(keyword);
  if (word != keyword && !negated) return false;
  field = !negated;
  ++pos_;
  return true;
}

std::string Args::text() const {
  std::string s;
  for (const auto& w : words_) {
    if (!s.empty()) s += ' ';
    s += w;
  }
  return s;
}

void Args::unknown(std::string_view context) const {
  throw UsageError(fmt::format("unknown keyword \"{}\" in \"{}\" (word {}; {})", peek(), text(), pos_ + 1, context));
}

uint64_t parseInteger(std::string_view text, std::string_view keyword, uint64_t min, uint64_t max) {
  int base = 10;
  std::string_view digits = text;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) base = 16, digits.remove_prefix(2);
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
  if (digits.empty() || ec == std::errc::invalid_argument || end != digits.data() + digits.size())
    throw UsageError(fmt::format("{}: \"{}\" is not a number", keyword, text));
  if (ec == std::errc::result_out_of_range || v < min || v > max)
    throw UsageError(fmt::format("{}: {} is out of range ({}-{})", keyword, text, min, max));
  return v;
}

uint32_t parseU32(std::string_view text, std::string_view keyword, uint32_t min, uint32_t max) {
  return static_cast<uint32_t>(parseInteger(text, keyword, min, max));
}

bool parseBool01(std::string_view text, std::string_view keyword) {
  if (text == "1" || text == "on") return true;
  if (text == "0" || text == "off") return false;
  throw UsageError(fmt::format("{}: expected 0 or 1, got \"{}\"", keyword, text));
}

bool parseOnOff(std::string_view text, std::string_view keyword) {
  if (text != "on" && text != "off") throw UsageError(fmt::format("{}: \"{}\" is not on or off", keyword, text));
  return text == "on";
}

MacAddress parseMac(std::string_view text, std::string_view keyword) {
  try {
    return MacAddress::parse(text);
  } catch (const Error&) {
    throw UsageError(fmt::format("{}: \"{}\" is not a MAC address (expected aa:bb:cc:dd:ee:ff)", keyword, text));
  }
}

IpAddress parseIp(std::string_view text, std::string_view keyword) {
  try {
    return IpAddress::parse(text);
  } catch (const Error&) {
    throw BadValueError(fmt::format("{}: \"{}\" is not an IPv4 or IPv6 address", keyword, text));
  }
}

std::string parseIfname(std::string_view text, std::string_view keyword) {
  try {
    validateIfname(text);
  } catch (const Error& e) {
    throw UsageError(fmt::format("{}: {}", keyword, e.reason()));
  }
  return std::string(text);
}

}  // namespace fastlink::cli
