// ip's id -> name tables in /etc/iproute2 that `route show` and `rule show` print by (a route's or
// rule's tos, a route's realms).
#pragma once

#include <array>
#include <cstdio>
#include <string>

#include "kit/ip_names.hpp"

namespace fastlink::cli {

/// An id -> name table of iproute2's in /etc/iproute2 (rt_dsfield, rt_realms), read as ip's
/// rtnl_tab_initialize reads it: `ID NAME` lines, the id hex (0x..) or decimal, `#` comments; a
/// line of another shape ends the reading (ip: "Database ... is corrupted"), over ip's defaults.
inline std::array<std::string, 256> readIpIdNames(const char* file, const char* zero) {
  std::array<std::string, 256> names;
  names[0] = zero;
  if (std::FILE* f = std::fopen(file, "r")) {
    char line[512], name[512];
    while (std::fgets(line, sizeof line, f)) {
      const char* p = line;
      while (*p == ' ' || *p == '\t') ++p;
      if (*p == '#' || *p == '\n' || *p == 0) continue;
      unsigned hex = 0;
      int dec = 0;
      if (std::sscanf(p, "0x%x %511s", &hex, name) == 2) {
        if (hex < 256) names[hex] = name;
      } else if (std::sscanf(p, "%d %511s", &dec, name) == 2) {
        if (dec >= 0 && dec < 256) names[static_cast<std::size_t>(dec)] = name;
      } else {
        break;
      }
    }
    std::fclose(f);
  }
  return names;
}

/// ip's rtnl_dsfield_n2a: a route's or rule's tos by its rt_dsfield name ("AF11"), else
/// `0x%02x`; -N: the number.
inline std::string ipDsfieldName(uint8_t tos) {
  static const std::array<std::string, 256> names = readIpIdNames("/etc/iproute2/rt_dsfield", "0");
  if (!ipNameOptions.numeric && !names[tos].empty()) return names[tos];
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02x", tos);
  return hex;
}

/// ip's rtnl_rtrealm_n2a: a realm by its rt_realms name ("cosmos"), else its number; -N: the number.
inline std::string ipRealmName(uint32_t realm) {
  static const std::array<std::string, 256> names = readIpIdNames("/etc/iproute2/rt_realms", "unknown");
  if (!ipNameOptions.numeric && realm < 256 && !names[realm].empty()) return names[realm];
  return std::to_string(realm);
}

}  // namespace fastlink::cli
