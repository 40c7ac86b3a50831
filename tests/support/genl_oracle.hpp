// Test support: iproute2's `genl ctrl list` / `genl ctrl get name NAME` text, parsed — the
// independent oracle for generic netlink families (genl has no JSON output).
//
// Its layout (genl/ctrl.c in iproute2 6.1), one block per family:
//   \nName: nlctrl\n
//   \tID: 0x10  Version: 0x2  header size: 0  max attribs: 0 \n
//   \tcommands supported: \n
//   \t\t#1:  ID-0x3 \n\t\tCapabilities (0xe):\n \t\t  can doit; can dumpit; has policy\n\n   (caps: version >= 2 only)
//   \tmulticast groups:\n
//   \t\t#1:  ID-0x10  name: notify \n
#pragma once

#include <cstdint>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace fastlink::test {

struct OracleOp {
  uint32_t id = 0;
  std::optional<uint32_t> flags;  ///< only where genl prints "Capabilities"
};

struct OracleGroup {
  std::string name;
  uint32_t id = 0;
};

struct OracleFamily {
  std::string name;
  uint32_t id = 0;
  uint32_t version = 0;
  uint32_t headerSize = 0;
  uint32_t maxAttr = 0;
  std::vector<OracleOp> ops;
  std::vector<OracleGroup> groups;
};

inline uint32_t oracleNumber(const std::string& line, const std::string& key, int base) {
  auto at = line.find(key);
  if (at == std::string::npos) throw std::runtime_error("genl oracle: no \"" + key + "\" in: " + line);
  return static_cast<uint32_t>(std::stoul(line.substr(at + key.size()), nullptr, base));
}

/// Parses genl's text; throws std::runtime_error on a line it does not understand, so a change
/// of genl's format fails the test instead of comparing nothing.
inline std::vector<OracleFamily> parseGenlCtrl(const std::string& text) {
  std::vector<OracleFamily> out;
  std::istringstream in(text);
  std::string line;
  enum { None, Ops, Groups } section = None;
  while (std::getline(in, line)) {
    std::string trimmed = line;
    trimmed.erase(0, trimmed.find_first_not_of(" \t"));
    if (trimmed.empty()) continue;
    if (trimmed.rfind("Name: ", 0) == 0) {
      out.emplace_back().name = trimmed.substr(6);
      section = None;
    } else if (out.empty()) {
      throw std::runtime_error("genl oracle: text before the first family: " + line);
    } else if (trimmed.rfind("ID: 0x", 0) == 0) {
      OracleFamily& f = out.back();
      f.id = oracleNumber(trimmed, "ID: 0x", 16);
      f.version = oracleNumber(trimmed, "Version: 0x", 16);
      f.headerSize = oracleNumber(trimmed, "header size: ", 10);
      f.maxAttr = oracleNumber(trimmed, "max attribs: ", 10);
    } else if (trimmed.rfind("commands supported:", 0) == 0) {
      section = Ops;
    } else if (trimmed.rfind("multicast groups:", 0) == 0) {
      section = Groups;
    } else if (trimmed.rfind("Capabilities (0x", 0) == 0 && section == Ops && !out.back().ops.empty()) {
      out.back().ops.back().flags = oracleNumber(trimmed, "Capabilities (0x", 16);
    } else if (section == Ops && trimmed[0] == '#') {
      out.back().ops.push_back({oracleNumber(trimmed, "ID-0x", 16), std::nullopt});
    } else if (section == Groups && trimmed[0] == '#') {
      auto at = trimmed.find("name: ");
      if (at == std::string::npos) throw std::runtime_error("genl oracle: group without name: " + line);
      std::string name = trimmed.substr(at + 6);
      name.erase(name.find_last_not_of(' ') + 1);
      out.back().groups.push_back({name, oracleNumber(trimmed, "ID-0x", 16)});
    } else if (section == Ops && (trimmed.find("can ") != std::string::npos || trimmed.find("has policy") != std::string::npos ||
                                  trimmed.find("permission") != std::string::npos)) {
      // the capability words under "Capabilities (0x..)": the number already says it all
    } else {
      throw std::runtime_error("genl oracle: unexpected line: " + line);
    }
  }
  return out;
}

}  // namespace fastlink::test
