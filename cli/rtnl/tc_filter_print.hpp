// `fastlink tc filter show` / `tc actions show` output as tc (iproute2 6.1) prints it: text and
// -j, written by one printer that follows tc's print calls (a key printed in text, in JSON or in
// both), so that the two stay in step. tc's JSON repeats keys ("match" once per u32 key), which
// no JSON library writes: TcPrinter writes the text itself.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "fastlink/tc_filter.hpp"
#include "fastlink/xdp.hpp"

namespace fastlink::cli {

/// Emits either tc's text or its JSON (one array of objects, like `tc -j`).
class TcPrinter {
 public:
  explicit TcPrinter(bool json) : json_(json) {}
  bool json() const { return json_; }
  /// Text only.
  void text(const std::string& s);
  /// Both: `textForm` in text mode, `"key":jsonToken` in JSON (a ready token: number, quoted
  /// string, true).
  void any(const char* key, const std::string& textForm, const std::string& jsonToken);
  void anyString(const char* key, const std::string& textForm, const std::string& value);
  void jsonOnly(const char* key, const std::string& jsonToken);
  void nl();
  void openObject(const char* key = nullptr) { open(key, '{'); }
  void closeObject() { close('}'); }
  void openArray(const char* key) { open(key, '['); }
  void closeArray() { close(']'); }
  /// The output so far (text, or JSON inside the outer array); cleared.
  std::string take();
  static std::string quote(const std::string& s);

 private:
  void comma();
  void key(const char* k);
  void open(const char* k, char bracket);
  void close(char bracket);
  bool json_;
  std::string out_;
  std::vector<bool> first_;  ///< per open JSON container: nothing written in it yet
};

struct FilterPrintOptions {
  bool stats = false;
  /// A chain (tc chain show, chain events): "chain " where a filter prints "filter ".
  bool chainObject = false;
  /// What the listing was filtered by (tc leaves those fields out). The parent only where the
  /// object's equals it: a chain of clsact's `ingress` is reported with the qdisc's ffff:.
  std::optional<uint32_t> parentGiven;
  bool devGiven = false, blockGiven = false, prioGiven = false, protocolGiven = false, chainGiven = false;
  /// ifindex -> name (filter devices, mirred targets).
  std::function<std::string(uint32_t)> devName;
  /// A bpf filter's program by its id (name, tag, jited), as tc looks it up; unset or
  /// std::nullopt: only the id and the filter's tag are printed.
  std::function<std::optional<BpfProgramInfo>(uint32_t)> program;
  /// USER_HZ for the action timestamps (print_tm).
  uint32_t userHz = 100;
  /// tc -iec: rates in powers of 1024 (police's "rate 1Mibit").
  bool iec = false;
};

/// One filter message as tc's print_filter: "filter ... KIND chain N OPTIONS\n".
void printFilter(TcPrinter& p, const TcFilterInfo& f, const FilterPrintOptions& o);
/// A list of actions as tc_print_action (each "\n\taction order N: KIND ...").
void printActions(TcPrinter& p, const std::vector<TcAction>& actions, const FilterPrintOptions& o, bool bind);
/// tc's ll_proto_n2a / ll_proto_a2n for filter protocols.
std::string protocolName(uint16_t ethertype);
std::optional<uint16_t> parseProtocol(std::string_view word);

}  // namespace fastlink::cli
