#include "kit/args.hpp"
#include "kit/arg_errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "fastlink/error.hpp"

namespace fastlink::cli {

namespace {

#if !defined(__SSE2__)
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
#endif

/// The common line, without quotes, escapes or comments: words are cut out whole instead of
/// built a character at a time (a -batch file of a million lines goes through here). Returns
/// false (words unspecified) at the first quote, backslash or '#'.
bool splitPlainWords(std::string_view line, std::vector<std::string_view>& words) {
  words.clear();
  const char* base = line.data();
  const std::size_t n = line.size();
#if defined(__SSE2__)
  // 16 bytes at a time: a byte-table loop cost ~11 instructions a byte, a fifth of a tc filter
  // line's parse (callgrind, issue 33). Each block gives two bit masks (blanks, specials); a word
  // starts or ends where the "not blank" bit changes from the byte before.
  const __m128i space = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t'), cr = _mm_set1_epi8('\r'), lf = _mm_set1_epi8('\n');
  const __m128i dquote = _mm_set1_epi8('"'), squote = _mm_set1_epi8('\''), backslash = _mm_set1_epi8('\\'), hash = _mm_set1_epi8('#');
  bool inWord = false;
  std::size_t start = 0;
  for (std::size_t at = 0; at < n; at += 16) {
    const std::size_t left = n - at;
    __m128i v;
    unsigned valid = 0xFFFF;
    if (left >= 16) {
      v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(base + at));
    } else {
      alignas(16) char tail[16] = {};  // the line's last bytes, zero after them (a word byte, masked off)
      std::memcpy(tail, base + at, left);
      v = _mm_load_si128(reinterpret_cast<const __m128i*>(tail));
      valid = (1u << left) - 1;
    }
    auto is = [&v](__m128i c) { return _mm_cmpeq_epi8(v, c); };
    unsigned special = static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(is(dquote), is(squote)), _mm_or_si128(is(backslash), is(hash)))));
    if (special & valid) return false;
    unsigned blank = static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(is(space), is(tab)), _mm_or_si128(is(cr), is(lf)))));
    unsigned word = ~blank & valid;
    // Bit i: byte i differs from byte i-1 in being a word byte. Past the line's end nothing is a
    // word byte: a word running into it ends there.
    unsigned edges = (word ^ (word << 1 | (inWord ? 1u : 0u))) & 0xFFFF;
    while (edges) {
      unsigned i = static_cast<unsigned>(__builtin_ctz(edges));
      edges &= edges - 1;
      if (word >> i & 1u) {
        start = at + i;
        inWord = true;
      } else {
        words.emplace_back(base + start, at + i - start);
        inWord = false;
      }
    }
  }
  if (inWord) words.emplace_back(base + start, n - start);
#else
  const char* p = base;
  const char* end = p + n;
  while (p < end) {
    uint8_t c = kWord;
    while (p < end && (c = classOf(*p)) == kBlank) ++p;
    const char* start = p;
    while (p < end && (c = classOf(*p)) == kWord) ++p;
    if (p < end && c == kSpecial) return false;
    if (p > start) words.emplace_back(start, static_cast<std::size_t>(p - start));
  }
#endif
  return true;
}

/// Quotes, escapes and comments: each word built a character at a time.
std::vector<std::string> splitQuotedWords(std::string_view line) {
  std::vector<std::string> words;
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

}  // namespace

std::vector<std::string> splitWords(std::string_view line) {
  std::vector<std::string_view> views;
  views.reserve(24);
  if (splitPlainWords(line, views)) return {views.begin(), views.end()};
  return splitQuotedWords(line);
}

Args::Args(std::vector<std::string> words) : owned_(std::move(words)) {
  // Views into owned_'s strings: a move of the Args moves owned_'s buffer, not its strings.
  words_.assign(owned_.begin(), owned_.end());
}

Args Args::ofLine(std::string_view line) {
  Args args{LineTag{}};
  args.assignLine(line);
  return args;
}

void Args::assignLine(std::string_view line) {
  pos_ = 0;
  owned_.clear();
  made_.clear();
  if (words_.capacity() < 24) words_.reserve(24);  // one allocation for a long tc filter line's words
  if (!splitPlainWords(line, words_)) {
    owned_ = splitQuotedWords(line);
    words_.assign(owned_.begin(), owned_.end());
  }
}

const std::string& Args::stringAt(std::size_t i) const {
  if (!owned_.empty()) return owned_[i];
  // A line's words are never empty (splitPlainWords cuts none): an empty string is one not made yet.
  if (made_.empty()) made_.resize(words_.size());
  if (made_[i].empty()) made_[i].assign(words_[i]);
  return made_[i];
}

void Args::replace(std::size_t i, std::string_view word) {
  words_.at(i) = word;
  if (!owned_.empty()) owned_[i].assign(word), words_[i] = owned_[i];
  else if (!made_.empty()) made_[i].clear();
}

const std::string& Args::peek() const {
  static const std::string kEmpty;
  return done() ? kEmpty : stringAt(pos_);
}

const std::string& Args::next() { return done() ? peek() : stringAt(pos_++); }

void Args::missingValue(std::string_view keyword) const {
  throw MissingValueError(fmt::format("\"{}\" needs a value (in \"{}\")", keyword, text()));
}

const std::string& Args::value(std::string_view keyword) {
  if (done()) missingValue(keyword);
  return stringAt(pos_++);
}

bool Args::acceptAny(std::initializer_list<std::string_view> keywords) {
  // Sizes first, then the bytes inline: string_view's == called compare() per keyword, ~110
  // instructions of each -batch line's object words (issue 33).
  std::string_view word = peekView();
  for (std::string_view k : keywords) {
    if (k.size() == word.size() && __builtin_memcmp(k.data(), word.data(), k.size()) == 0) {
      ++pos_;
      return true;
    }
  }
  return false;
}

bool Args::acceptSwitch(std::string_view keyword, std::optional<bool>& field) {
  std::string_view word = peekView();
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
  throw UsageError(fmt::format("unknown keyword \"{}\" in \"{}\" (word {}; {})", peekView(), text(), pos_ + 1, context));
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
