// One record written as text or as JSON by the same calls, like iproute2's print_*(PRINT_ANY,
// key, format, value): a printer names each field once, with its JSON key beside its text, and
// only the output the command prints is built. A field whose text and JSON disagree in order
// or content is written as a JSON-only and a text-only call at the places each belongs.
// Dumps that stream into the buffered writer use the streaming twin, StreamFieldOut
// (field_stream.hpp): the same vocabulary, nothing built per field.
#pragma once

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>

#include "kit/output.hpp"

namespace fastlink::cli {

class FieldOut {
 public:
  /// Writes text, appended to `text`.
  explicit FieldOut(std::string& text) : text_(&text) {}
  /// Writes JSON: every field is set in `json` (an object; a key set again keeps its place).
  explicit FieldOut(nlohmann::ordered_json& json) : json_(&json) {}

  bool isJson() const { return json_ != nullptr; }

  /// `"key": value` in JSON, `format` filled with `value` in text.
  template <class T>
  FieldOut& any(const char* key, fmt::format_string<const T&> format, const T& value) {
    if (json_) (*json_)[key] = value;
    else fmt::format_to(std::back_inserter(*text_), format, value);
    return *this;
  }
  /// The same field, shown differently: `jsonValue` in JSON, `format` with `textValue` in text
  /// (a rate in bytes per second that the text spells "10Mbit").
  template <class J, class T>
  FieldOut& any(const char* key, const J& jsonValue, fmt::format_string<const T&> format, const T& textValue) {
    if (json_) (*json_)[key] = jsonValue;
    else fmt::format_to(std::back_inserter(*text_), format, textValue);
    return *this;
  }
  /// A word that is there or not: `"key": true` in JSON, `word` in text.
  FieldOut& flag(const char* key, std::string_view word) {
    if (json_) (*json_)[key] = true;
    else text_->append(word);
    return *this;
  }
  /// In JSON only.
  template <class J>
  FieldOut& json(const char* key, J&& value) {
    if (json_) (*json_)[key] = std::forward<J>(value);
    return *this;
  }
  /// In text only.
  template <class... A>
  FieldOut& text(fmt::format_string<A...> format, A&&... args) {
    if (text_) fmt::format_to(std::back_inserter(*text_), format, std::forward<A>(args)...);
    return *this;
  }
  /// Fields grouped under `key` in JSON (`"key": {...}`, always written); inline in text.
  template <class Write>
  FieldOut& object(const char* key, Write&& write) {
    if (!json_) {
      write(*this);
      return *this;
    }
    nlohmann::ordered_json inner = nlohmann::ordered_json::object();
    FieldOut nested(inner);
    write(nested);
    (*json_)[key] = std::move(inner);
    return *this;
  }

 private:
  std::string* text_ = nullptr;
  nlohmann::ordered_json* json_ = nullptr;
};

/// The record that `write(FieldOut&)` writes, as text (Out = std::string) or as a JSON object
/// (Out = nlohmann::ordered_json).
template <class Out, class Write>
Out writeFields(Write&& write) {
  Out out;
  FieldOut fields(out);
  write(fields);
  return out;
}

/// A show command's records, one line of text each, or with `json` (-j) a JSON array of objects
/// (`pretty`: -p), on stdout: `write(FieldOut&, record)` names each field once for both.
template <class Records, class Write>
void printRecords(const Records& records, bool json, bool pretty, Write&& write) {
  if (json) {
    JsonArrayWriter out(stdout, pretty);
    for (const auto& r : records) out.add(writeFields<nlohmann::ordered_json>([&](FieldOut& f) { write(f, r); }));
    out.finish();
    return;
  }
  std::string text;
  FieldOut f(text);
  for (const auto& r : records) {
    write(f, r);
    text += '\n';
  }
  std::fputs(text.c_str(), stdout);
}

}  // namespace fastlink::cli
