// Values shared by addresses and routes: Prefix, scopes, route types, and the iproute2 name
// files (rt_tables, rt_protos, rt_scopes) read by the library itself.
#include <dirent.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <fstream>
#include <mutex>

#include "fastlink/error.hpp"
#include "fastlink/prefix.hpp"
#include "fastlink/route.hpp"

namespace fastlink {
namespace {

std::optional<uint64_t> parseNumber(std::string_view text, uint64_t max) {
  if (text.empty()) return std::nullopt;
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) base = 16, text.remove_prefix(2);
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, base);
  if (ec != std::errc() || end != text.data() + text.size() || v > max) return std::nullopt;
  return v;
}

// One "NUMBER NAME" per line, '#' comments, as iproute2's rtnl_tab_initialize reads them.
void readNameFile(const std::string& path, uint64_t max, std::map<std::string, uint32_t, std::less<>>& byName,
                  std::map<uint32_t, std::string>& names) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::size_t at = line.find_first_not_of(" \t");
    if (at == std::string::npos || line[at] == '#') continue;
    std::size_t numEnd = line.find_first_of(" \t", at);
    if (numEnd == std::string::npos) continue;
    std::size_t nameAt = line.find_first_not_of(" \t", numEnd);
    if (nameAt == std::string::npos) continue;
    std::size_t nameEnd = line.find_first_of(" \t#", nameAt);
    std::string name = line.substr(nameAt, nameEnd == std::string::npos ? std::string::npos : nameEnd - nameAt);
    auto id = parseNumber(std::string_view(line).substr(at, numEnd - at), max);
    if (!id || name.empty()) continue;
    byName[name] = static_cast<uint32_t>(*id);
    names[static_cast<uint32_t>(*id)] = name;
  }
}

void readConfDir(const std::string& dir, uint64_t max, std::map<std::string, uint32_t, std::less<>>& byName,
                 std::map<uint32_t, std::string>& names) {
  DIR* d = opendir(dir.c_str());
  if (!d) return;
  std::vector<std::string> files;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n.size() > 5 && n.compare(n.size() - 5, 5, ".conf") == 0) files.push_back(n);
  }
  closedir(d);
  std::sort(files.begin(), files.end());
  for (const auto& f : files) readNameFile(dir + "/" + f, max, byName, names);
}

struct NamedValue {
  const char* name;
  uint32_t value;
};

constexpr NamedValue kBuiltinTables[] = {{"unspec", 0}, {"default", 253}, {"main", 254}, {"local", 255}};
constexpr NamedValue kBuiltinProtocols[] = {
    {"unspec", 0},   {"redirect", 1}, {"kernel", 2},   {"boot", 3},     {"static", 4},     {"gated", 8},
    {"ra", 9},       {"mrt", 10},     {"zebra", 11},   {"bird", 12},    {"dnrouted", 13},  {"xorp", 14},
    {"ntk", 15},     {"dhcp", 16},    {"keepalived", 18}, {"babel", 42}, {"openr", 99},    {"bgp", 186},
    {"isis", 187},   {"ospf", 188},   {"rip", 189},    {"eigrp", 192}};

constexpr const char* kRouteTypeNames[] = {"unspec",    "unicast",     "local",    "broadcast",
                                           "anycast",   "multicast",   "blackhole", "unreachable",
                                           "prohibit",  "throw",       "nat",       "xresolve"};

// The address with every bit after the first `length` cleared (or set).
IpAddress hostBits(const IpAddress& a, uint8_t length, bool set) {
  auto b = a.bytes();
  std::array<uint8_t, 16> out{};
  for (std::size_t i = 0; i < b.size(); ++i) {
    int bits = std::clamp(static_cast<int>(length) - static_cast<int>(i * 8), 0, 8);
    auto mask = static_cast<uint8_t>(bits == 0 ? 0 : 0xff << (8 - bits));
    out[i] = static_cast<uint8_t>(set ? (b[i] & mask) | ~mask : b[i] & mask);
  }
  return IpAddress::fromBytes({out.data(), b.size()});
}


}  // namespace

// ---- Prefix -------------------------------------------------------------------------------

void Prefix::tooLong(const IpAddress& address, uint8_t length) {
  throw Error::invalidArgument("prefix", "prefix length " + std::to_string(length) + " is longer than " +
                                             std::to_string(address.isV4() ? 32 : 128) + " for " + address.toString());
}

Prefix::Prefix(IpAddress address) : address_(address), length_(address.isV4() ? 32 : 128) {}

Prefix Prefix::parse(std::string_view text) {
  std::size_t slash = text.find('/');
  IpAddress a = IpAddress::parse(text.substr(0, slash));
  if (slash == std::string_view::npos) return Prefix(a);
  uint8_t max = a.isV4() ? 32 : 128;
  auto len = parseNumber(text.substr(slash + 1), 255);
  if (!len || text.substr(slash + 1).starts_with("0x"))
    throw Error::invalidArgument("prefix", "invalid prefix length in \"" + std::string(text) + "\"");
  if (*len > max)
    throw Error::invalidArgument("prefix", "invalid prefix \"" + std::string(text) + "\": length " +
                                               std::to_string(*len) + " is longer than " + std::to_string(max));
  return Prefix(a, static_cast<uint8_t>(*len));
}

Prefix Prefix::any(IpAddress::Family family) {
  std::array<uint8_t, 16> zero{};
  return Prefix(IpAddress::fromBytes({zero.data(), family == IpAddress::Family::v4 ? 4u : 16u}), 0);
}

bool Prefix::hasHostBits() const { return !(masked().address_ == address_); }

Prefix Prefix::masked() const { return Prefix(hostBits(address_, length_, false), length_); }
IpAddress Prefix::lastAddress() const { return hostBits(address_, length_, true); }

bool Prefix::contains(const IpAddress& a) const {
  if (a.family() != family()) return false;
  return Prefix(a, length_).masked() == masked();
}

std::string Prefix::toString() const { return isHost() ? address_.toString() : toStringWithLength(); }
std::string Prefix::toStringWithLength() const { return address_.toString() + "/" + std::to_string(length_); }

// ---- Scopes and route types -----------------------------------------------------------------

// The first name of a value is the one printed.
constexpr NamedValue kScopes[] = {{"global", 0}, {"universe", 0}, {"site", 200}, {"link", 253},
                                  {"host", 254}, {"nowhere", 255}};

std::string scopeName(Scope scope) {
  for (const auto& s : kScopes)
    if (s.value == static_cast<uint32_t>(scope)) return s.name;
  return std::to_string(static_cast<unsigned>(scope));
}

Scope parseScope(std::string_view text) {
  for (const auto& s : kScopes)
    if (text == s.name) return static_cast<Scope>(s.value);
  if (auto n = parseNumber(text, 255)) return static_cast<Scope>(*n);
  std::map<std::string, uint32_t, std::less<>> byName;
  std::map<uint32_t, std::string> names;
  readNameFile("/usr/share/iproute2/rt_scopes", 255, byName, names);
  readNameFile("/etc/iproute2/rt_scopes", 255, byName, names);
  if (auto it = byName.find(text); it != byName.end()) return static_cast<Scope>(it->second);
  throw Error::invalidArgument("scope", "unknown scope \"" + std::string(text) +
                                            "\" (expected global, site, link, host, nowhere or 0-255)");
}

std::string routeTypeName(RouteType type) {
  auto i = static_cast<std::size_t>(type);
  return i < std::size(kRouteTypeNames) ? kRouteTypeNames[i] : std::to_string(i);
}

RouteType parseRouteType(std::string_view text) {
  for (std::size_t i = 0; i < std::size(kRouteTypeNames); ++i)
    if (text == kRouteTypeNames[i]) return static_cast<RouteType>(i);
  throw Error::invalidArgument("route type", "unknown route type \"" + std::string(text) + "\"");
}

// ---- RouteNames -----------------------------------------------------------------------------

RouteNames::RouteNames(const std::vector<std::string>& configDirs) {
  for (const auto& t : kBuiltinTables) tablesByName_[t.name] = t.value, tableNames_[t.value] = t.name;
  for (const auto& p : kBuiltinProtocols) protocolsByName_[p.name] = p.value, protocolNames_[p.value] = p.name;
  for (const auto& dir : configDirs) {
    readNameFile(dir + "/rt_tables", UINT32_MAX, tablesByName_, tableNames_);
    readNameFile(dir + "/rt_protos", 255, protocolsByName_, protocolNames_);
  }
  for (const auto& dir : configDirs) {
    readConfDir(dir + "/rt_tables.d", UINT32_MAX, tablesByName_, tableNames_);
    readConfDir(dir + "/rt_protos.d", 255, protocolsByName_, protocolNames_);
  }
}

const RouteNames& RouteNames::system() {
  static const RouteNames names({"/usr/share/iproute2", "/etc/iproute2"});
  return names;
}

uint32_t RouteNames::tableId(std::string_view text) const {
  if (auto n = parseNumber(text, UINT32_MAX)) return static_cast<uint32_t>(*n);
  if (auto it = tablesByName_.find(text); it != tablesByName_.end()) return it->second;
  if (parseNumber(text, UINT64_MAX))  // a number, but not a table id: say so, not "unknown name"
    throw Error::invalidArgument("route table", "routing table " + std::string(text) + " is out of range (0-4294967295)");
  throw Error::invalidArgument("route table", "unknown routing table \"" + std::string(text) +
                                                  "\" (not a number, and not named in rt_tables or rt_tables.d/*.conf)");
}

std::string RouteNames::tableName(uint32_t id) const {
  auto it = tableNames_.find(id);
  return it == tableNames_.end() ? std::to_string(id) : it->second;
}

RouteProtocol RouteNames::protocol(std::string_view text) const {
  if (auto n = parseNumber(text, 255)) return static_cast<RouteProtocol>(*n);
  if (auto it = protocolsByName_.find(text); it != protocolsByName_.end()) return static_cast<RouteProtocol>(it->second);
  throw Error::invalidArgument("route protocol", "unknown route protocol \"" + std::string(text) +
                                                     "\" (not a number 0-255, and not named in rt_protos)");
}

std::string RouteNames::protocolName(RouteProtocol protocol) const {
  auto it = protocolNames_.find(static_cast<uint32_t>(protocol));
  return it == protocolNames_.end() ? std::to_string(static_cast<unsigned>(protocol)) : it->second;
}

}  // namespace fastlink
