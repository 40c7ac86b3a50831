#include "output.hpp"

#include "writer.hpp"

namespace fastlink::cli {

JsonArrayWriter::JsonArrayWriter(std::FILE* out, bool pretty) : out_(out), pretty_(pretty) { write("["); }

JsonArrayWriter::JsonArrayWriter(OutBuffer& out, bool pretty) : buffer_(&out), pretty_(pretty) { write("["); }

void JsonArrayWriter::write(std::string_view text) {
  if (buffer_) buffer_->put(text);
  else std::fwrite(text.data(), 1, text.size(), out_);
}

void JsonArrayWriter::restartDump() {
  buffer_->restartDump();
  first_ = true;
  write("[");
}

JsonArrayWriter::~JsonArrayWriter() { finish(); }

void JsonArrayWriter::add(const nlohmann::ordered_json& element) {
  std::string text = pretty_ ? element.dump(4) : element.dump();
  if (pretty_) {
    // Indent the element one level inside the array.
    std::string indented = "    ";
    for (char c : text) {
      indented += c;
      if (c == '\n') indented += "    ";
    }
    text = std::move(indented);
  }
  write(first_ ? (pretty_ ? "\n" : "") : (pretty_ ? ",\n" : ","));
  write(text);
  first_ = false;
  if (buffer_) buffer_->endRecord();
}

void JsonArrayWriter::finish() {
  if (finished_) return;
  finished_ = true;
  write(pretty_ && !first_ ? "\n]\n" : "]\n");
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
