// Test support: the text of `ethtool -l` / `ethtool -g` parsed, the independent oracle for
// channels and rings (ethtool 6.1 has no JSON for them).
#pragma once

#include <map>
#include <sstream>
#include <string>
#include <utility>

namespace fastlink::test {

/// "Key:\tvalue" lines by section: {"max", "RX"} -> "4" (or "n/a") from "Pre-set maximums:",
/// {"cur", "RX"} from "Current hardware settings:".
inline std::map<std::pair<std::string, std::string>, std::string> parseEthtoolSections(const std::string& text) {
  std::map<std::pair<std::string, std::string>, std::string> out;
  std::istringstream in(text);
  std::string line, section;
  while (std::getline(in, line)) {
    if (line.starts_with("Pre-set")) section = "max";
    else if (line.starts_with("Current")) section = "cur";
    else if (auto colon = line.find(':'); colon != std::string::npos && !section.empty()) {
      std::string value = line.substr(colon + 1);
      value.erase(0, value.find_first_not_of("\t "));
      out[{section, line.substr(0, colon)}] = value;
    }
  }
  return out;
}

}  // namespace fastlink::test
