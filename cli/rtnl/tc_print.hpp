// `fastlink tc` output: qdiscs and classes as `tc` (iproute2 6.1) prints them, text and -j.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "fastlink/tc.hpp"

namespace fastlink::cli {

struct TcPrintOptions {
  bool stats = false;
  bool details = false;
  /// tc -iec: rates in powers of 1024 ("1Mibit").
  bool iec = false;
  /// The device name to print ("dev NAME"); empty when the listing was filtered by device,
  /// like tc, which then leaves it out.
  std::string devName;
};

/// One qdisc: its line, and with stats the " Sent ..." / " backlog ..." lines; ends in "\n".
std::string qdiscText(const QdiscInfo& q, const TcPrintOptions& o);
nlohmann::ordered_json qdiscJson(const QdiscInfo& q, const TcPrintOptions& o);
/// One class, likewise (with stats followed by a blank line for kinds with extended stats).
std::string classText(const ClassInfo& c, const TcPrintOptions& o);
nlohmann::ordered_json classJson(const ClassInfo& c, const TcPrintOptions& o);
/// A handle as tc's print_tc_classid prints it: "root", "none", ":2", "1:", "1:2".
std::string classidText(uint32_t handle);

}  // namespace fastlink::cli
