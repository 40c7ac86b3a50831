// Output helpers shared by every object command: a streaming JSON array writer (one array per
// command, like `ip -j`), and small text helpers for iproute2-like lines.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>
#include <string_view>

namespace fastlink::cli {

class OutBuffer;

/// A JSON number written exactly as `text` (e.g. "0.00"): iproute2 prints some numbers with a
/// fixed number of decimals (a bridge's timers, "%i.%.2i"), which a double cannot carry through
/// nlohmann's printer ("0.0"). Held as a binary value with a subtype of its own; only
/// JsonArrayWriter knows it (anything else would print the bytes), so use it only in records
/// that JsonArrayWriter writes.
nlohmann::ordered_json jsonNumberText(std::string_view text);

/// Writes one JSON array to a stream, element by element, so a dump of 100,000 objects is
/// printed in constant memory. `-p` indents like `ip -j -p` (4 spaces). The closing bracket
/// is written by finish() or the destructor, so the output stays valid JSON also when an
/// error ends the listing early.
class JsonArrayWriter {
 public:
  JsonArrayWriter(std::FILE* out, bool pretty);
  /// Writes through `out` (see writer.hpp: buffered, with the dump-restart window).
  JsonArrayWriter(OutBuffer& out, bool pretty);
  ~JsonArrayWriter();
  JsonArrayWriter(const JsonArrayWriter&) = delete;
  JsonArrayWriter& operator=(const JsonArrayWriter&) = delete;

  void add(const nlohmann::ordered_json& element);
  /// The dump is restarted (NLM_F_DUMP_INTR): OutBuffer::restartDump() (which throws when part
  /// of the array was written already), then a new array. Only for the OutBuffer constructor.
  void restartDump();
  void finish();

 private:
  void write(std::string_view text);

  std::FILE* out_ = nullptr;
  OutBuffer* buffer_ = nullptr;
  bool pretty_;
  bool first_ = true;
  bool finished_ = false;
};

/// Builds one text line of `key value` pairs separated by single spaces.
class TextLine {
 public:
  explicit TextLine(std::string start = {}) : text_(std::move(start)) {}
  TextLine& add(std::string_view word);
  TextLine& add(std::string_view key, std::string_view value);
  TextLine& add(std::string_view key, uint64_t value);
  const std::string& str() const { return text_; }

 private:
  std::string text_;
};

/// Prints `line` and a newline to stdout.
void printLine(const std::string& line);

}  // namespace fastlink::cli
