#include "kit/output.hpp"

#include <cstdint>
#include <vector>

#include "kit/writer.hpp"

namespace fastlink::cli {

namespace {

// The binary subtype that marks jsonNumberText() (any byte value of our own; no other binary
// value is ever put in a record).
constexpr std::uint64_t kNumberTextSubtype = 0x6e;

bool isNumberText(const nlohmann::ordered_json& v) {
  return v.is_binary() && v.get_binary().has_subtype() && v.get_binary().subtype() == kNumberTextSubtype;
}

void appendNumberText(std::string& out, const nlohmann::ordered_json& v) {
  const auto& bytes = v.get_binary();
  out.append(bytes.begin(), bytes.end());
}

/// Whether `v` holds a jsonNumberText() anywhere (then the compact form is written by
/// appendJson, else by nlohmann's faster dump()).
bool hasNumberText(const nlohmann::ordered_json& v) {
  if (v.is_binary()) return true;
  if (v.is_object() || v.is_array())
    for (const auto& member : v)
      if (hasNumberText(member)) return true;
  return false;
}

/// `v` with jsonNumberText() values as their text, laid out compact (as nlohmann's dump()
/// writes it) or, with `pretty`, as ip -j -p does (JsonOut's layout): an object's members one
/// per line, indented four spaces a level (an object at `depth` indents its members depth + 1
/// levels); an array's elements on the array's line, "[ a,b ]".
void appendJson(std::string& out, const nlohmann::ordered_json& v, bool pretty, int depth) {
  auto newline = [&](int level) {
    out += '\n';
    out.append(4 * static_cast<std::size_t>(level), ' ');
  };
  if (v.is_object()) {
    out += '{';
    bool first = true;
    for (const auto& [key, member] : v.items()) {
      if (!first) out += ',';
      first = false;
      if (pretty) newline(depth + 1);
      out += nlohmann::ordered_json(key).dump();
      out += pretty ? ": " : ":";
      appendJson(out, member, pretty, depth + 1);
    }
    if (pretty && !first) newline(depth);
    out += '}';
  } else if (v.is_array()) {
    out += pretty ? "[ " : "[";
    bool first = true;
    for (const auto& element : v) {
      if (!first) out += ',';
      first = false;
      appendJson(out, element, pretty, depth + 1);
    }
    out += pretty && !first ? " ]" : "]";
  } else if (isNumberText(v)) {
    appendNumberText(out, v);
  } else {
    out += v.dump();
  }
}

}  // namespace

nlohmann::ordered_json jsonNumberText(std::string_view text) {
  return nlohmann::ordered_json::binary(std::vector<std::uint8_t>(text.begin(), text.end()), kNumberTextSubtype);
}

JsonArrayWriter::JsonArrayWriter(std::FILE* out, bool pretty) : out_(out), pretty_(pretty) { write(pretty ? "[ " : "["); }

JsonArrayWriter::JsonArrayWriter(OutBuffer& out, bool pretty) : buffer_(&out), pretty_(pretty) {
  write(pretty ? "[ " : "[");
}

void JsonArrayWriter::write(std::string_view text) {
  if (buffer_) buffer_->put(text);
  else std::fwrite(text.data(), 1, text.size(), out_);
}

void JsonArrayWriter::restartDump() {
  buffer_->restartDump();
  first_ = true;
  write(pretty_ ? "[ " : "[");
}

JsonArrayWriter::~JsonArrayWriter() { finish(); }

void JsonArrayWriter::add(const nlohmann::ordered_json& element) {
  std::string text;
  if (pretty_ || hasNumberText(element)) appendJson(text, element, pretty_, 1);
  else text = element.dump();
  if (!first_) write(",");
  write(text);
  first_ = false;
  if (buffer_) buffer_->endRecord();
}

void JsonArrayWriter::finish() {
  if (finished_) return;
  finished_ = true;
  write(pretty_ && !first_ ? " ]\n" : "]\n");
  if (buffer_) buffer_->flush();
  else std::fflush(out_);
}

TextLine& TextLine::add(std::string_view word) {
  if (!text_.empty() && text_.back() != ' ') text_ += ' ';
  text_ += word;
  return *this;
}

TextLine& TextLine::add(std::string_view key, std::string_view value) {
  add(key);
  text_ += ' ';
  text_ += value;
  return *this;
}

TextLine& TextLine::add(std::string_view key, uint64_t value) { return add(key, std::to_string(value)); }

void printLine(const std::string& line) {
  std::fputs(line.c_str(), stdout);
  std::fputc('\n', stdout);
}

}  // namespace fastlink::cli
