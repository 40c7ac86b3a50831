// FieldOut's streaming back end (see fields.hpp): the same one-call-per-field vocabulary, written
// straight into the dump's OutBuffer (text) or its JsonOut, so a listing of a million routes
// builds no string and no JSON value per field. Text is words separated by single spaces (ip's
// lines); a label carries its own trailing space ("via "), a raw text() carries none (a line
// break, "sec" after a number).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "kit/writer.hpp"

namespace fastlink::cli {

/// A value as text, straight into the buffer.
inline void putText(OutBuffer& out, std::string_view s) { out.put(s); }
inline void putText(OutBuffer& out, const IpAddress& ip) { out.putIp(ip); }
inline void putText(OutBuffer& out, const Prefix& p) { out.putPrefix(p); }
inline void putText(OutBuffer& out, const MacAddress& mac) { out.putMac(mac); }
template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
void putText(OutBuffer& out, T v) {
  if constexpr (std::is_signed_v<T>) out.putInt(v);
  else out.putUint(v);
}

/// A value as JSON (JsonOut's types, and a MAC as its string).
template <class T>
void putJson(JsonOut& j, const T& v) {
  if constexpr (std::is_same_v<T, MacAddress>) j.rawValue().put('"').putMac(v).put('"');
  else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> && std::is_unsigned_v<T>)
    j.value(static_cast<uint64_t>(v));
  else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) j.value(static_cast<int64_t>(v));
  else j.value(v);
}

/// The output is chosen at compile time (a printer is a template over StreamText and StreamJson,
/// instantiated once for each): a dump of a million routes pays no per-field branch on it.
template <bool kJson>
class StreamFieldOut {
 public:
  /// Writes text lines into `text`.
  explicit StreamFieldOut(OutBuffer& text) requires(!kJson) : out_(&text) {}
  /// Writes JSON elements through `json`; `opened`: each record into an object the caller opens
  /// and closes (the monitor writes its event's own keys first), which begin() and end() leave.
  explicit StreamFieldOut(JsonOut& json, bool opened = false) requires kJson
      : out_(&json.buffer()), json_(&json), opened_(opened) {}

  static constexpr bool isJson() { return kJson; }

  /// Starts a record: a JSON object; in text, a line whose first word takes no space before it.
  StreamFieldOut& begin() {
    if constexpr (kJson) {
      if (!opened_) json_->beginObject();
    } else {
      spaced_ = false;
    }
    return *this;
  }
  /// Ends the record: `}` / a line break; lets the buffer write out.
  void end() {
    if constexpr (kJson) {
      if (opened_) return;
      json_->endObject();
      json_->endElement();
    } else {
      out_->put('\n');
      out_->endRecord();
    }
  }

  /// `"key": value` in JSON, the word `label` + value in text ("via 10.0.0.1"; label "" for a
  /// bare value).
  template <std::size_t N, class T>
  StreamFieldOut& any(const char (&key)[N], std::string_view label, const T& value) {
    if constexpr (kJson) putJson(json_->key(key), value);
    else putText(word(label), value);
    return *this;
  }
  /// The same field, shown differently: `jsonValue` in JSON, `label` + `textValue` in text.
  template <std::size_t N, class J, class T>
  StreamFieldOut& any(const char (&key)[N], const J& jsonValue, std::string_view label, const T& textValue) {
    if constexpr (kJson) putJson(json_->key(key), jsonValue);
    else putText(word(label), textValue);
    return *this;
  }
  /// A device: its name, or its index when the name is unknown (`name` null), as ip prints it
  /// (a JSON string either way), written without building a string.
  template <std::size_t N>
  StreamFieldOut& device(const char (&key)[N], std::string_view label, const std::string* name, uint32_t index) {
    if (name) return any(key, label, std::string_view(*name));
    if constexpr (kJson) json_->key(key).rawValue().put('"').putUint(index).put('"');
    else word(label).putUint(index);
    return *this;
  }
  /// A word that is there or not, as ip's print_null: `"key": null` in JSON, `word` in text.
  template <std::size_t N>
  StreamFieldOut& null(const char (&key)[N], std::string_view text) {
    if constexpr (kJson) json_->key(key).rawValue().put("null");
    else word(text);
    return *this;
  }

  /// A list of words: `"key": [ ... ]` in JSON (written also when empty), each item() a word in text.
  template <std::size_t N>
  StreamFieldOut& beginList(const char (&key)[N]) {
    if constexpr (kJson) json_->key(key).beginArray();
    return *this;
  }
  StreamFieldOut& item(std::string_view w) {
    if constexpr (kJson) json_->value(w);
    else word(w);
    return *this;
  }
  StreamFieldOut& endList() {
    if constexpr (kJson) json_->endArray();
    return *this;
  }
  /// Records nested in a JSON list (`"key": [ {...},{...} ]`); inline in the text's line.
  template <std::size_t N>
  StreamFieldOut& beginObjects(const char (&key)[N]) { return beginList(key); }
  StreamFieldOut& beginObject() {
    if constexpr (kJson) json_->beginObject();
    return *this;
  }
  StreamFieldOut& endObject() {
    if constexpr (kJson) json_->endObject();
    return *this;
  }
  StreamFieldOut& endObjects() { return endList(); }

  /// In JSON only.
  template <std::size_t N, class T>
  StreamFieldOut& json(const char (&key)[N], const T& value) {
    if constexpr (kJson) putJson(json_->key(key), value);
    return *this;
  }
  /// In text only: a word (a space before it unless it starts the line).
  StreamFieldOut& textWord(std::string_view w) {
    if constexpr (!kJson) word(w);
    return *this;
  }
  /// In text only: `s` as is, no space before it (a line break, a unit after a number).
  StreamFieldOut& text(std::string_view s) {
    if constexpr (!kJson) {
      out_->put(s);
      spaced_ = true;
    }
    return *this;
  }
 private:
  OutBuffer& word(std::string_view w) {
    if (spaced_) out_->put(' ');
    spaced_ = true;
    return out_->put(w);
  }

  OutBuffer* out_;
  JsonOut* json_ = nullptr;
  bool opened_ = false;
  bool spaced_ = false;  ///< text: a word is on the line, the next one takes a space
};

using StreamText = StreamFieldOut<false>;
using StreamJson = StreamFieldOut<true>;

}  // namespace fastlink::cli
