// Twin namespaces compared through ip's eyes: see twin_state.hpp.
#include "cli/twin_state.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <regex>
#include <sstream>
#include <thread>

#include "support/test_netns.hpp"

namespace fastlink::test {

using json = nlohmann::json;

namespace {

/// Replaces every match of `pattern` (its sub-match `group`: 0, the whole match) by PREFIX<n>,
/// numbering distinct matches in order of first appearance: two outputs that differ only in
/// random MACs normalise to the same text. A match in `keep` stays as it is.
std::string numberMatches(const std::string& text, const std::regex& pattern, const std::string& prefix,
                          const std::set<std::string>& keep, int group = 0) {
  std::map<std::string, int> seen;
  std::string out;
  auto last = text.cbegin();
  for (std::sregex_iterator it(text.begin(), text.end(), pattern), end; it != end; ++it) {
    const std::string value = (*it)[group].str();
    if (keep.count(value)) continue;
    out.append(last, text.cbegin() + it->position(group));
    auto [pos, added] = seen.emplace(value, static_cast<int>(seen.size()) + 1);
    out += prefix + std::to_string(pos->second);
    last = text.cbegin() + it->position(group) + it->length(group);
  }
  out.append(last, text.cend());
  return out;
}

}  // namespace

LiteralMacs literalMacsOf(const std::vector<std::string>& lines) {
  static const std::regex mac("([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}");
  LiteralMacs literal;
  for (const auto& line : lines)
    for (std::sregex_iterator it(line.begin(), line.end(), mac), end; it != end; ++it) {
      std::string text = it->str();
      std::transform(text.begin(), text.end(), text.begin(), [](unsigned char ch) { return std::tolower(ch); });
      literal.macs.insert(text);
      unsigned b[6];
      std::sscanf(text.c_str(), "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]);
      char shortForm[18];
      std::snprintf(shortForm, sizeof shortForm, "%x:%x:%x:%x:%x:%x", b[0], b[1], b[2], b[3], b[4], b[5]);
      literal.bridgeIdMacs.insert(shortForm);
      in6_addr eui{};  // fe80::/64 + the MAC with the universal/local bit flipped and ff:fe inserted
      const unsigned char bytes[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, static_cast<unsigned char>(b[0] ^ 0x02),
                                       static_cast<unsigned char>(b[1]), static_cast<unsigned char>(b[2]), 0xff, 0xfe,
                                       static_cast<unsigned char>(b[3]), static_cast<unsigned char>(b[4]),
                                       static_cast<unsigned char>(b[5])};
      std::memcpy(&eui, bytes, sizeof bytes);
      char address[INET6_ADDRSTRLEN];
      literal.linkLocals.insert(inet_ntop(AF_INET6, &eui, address, sizeof address));
    }
  return literal;
}

std::string normalise(std::string text, const std::string& nsName, const LiteralMacs& literal) {
  static const std::regex trailing("[ \\t]+\n");
  text = std::regex_replace(text, trailing, "\n");
  static const std::regex mac("([0-9a-f]{2}:){5}[0-9a-f]{2}");
  static const std::regex linkLocal("fe80::[0-9a-f:]+");
  // A bridge's timers and its ports' (hold, message_age, forward_delay) tick between the twins.
  // Text pads them to a width ("%4i"), so the blanks before one change when it crosses 100 s
  // between the twins: they are normalised with it.
  static const std::regex timer("((hello|tcn|topology_change|gc|hold|message_age|forward_delay)_timer\"?:?)\\s*[0-9.]+");
  for (std::size_t at; (at = text.find(nsName)) != std::string::npos;) text.replace(at, nsName.size(), "NS");
  // Bridge ids print the MAC without leading zeros ("8000.6:9a:..."): numbered apart.
  static const std::regex bridgeId("[0-9a-f]{4}\\.(([0-9a-f]{1,2}:){5}[0-9a-f]{1,2})");
  std::set<std::string> literalBridgeIds;
  for (const auto& m : literal.bridgeIdMacs)  // any priority: a bridge id is PRIO.MAC
    for (std::sregex_iterator it(text.begin(), text.end(), bridgeId), end; it != end; ++it)
      if ((*it)[1] == m) literalBridgeIds.insert(it->str());
  text = numberMatches(text, bridgeId, "BRID", literalBridgeIds);
  text = numberMatches(text, linkLocal, "LL", literal.linkLocals);
  text = numberMatches(text, mac, "MAC", literal.macs);
  // An IPv6 tunnel's permanent address is random (the kernel's eth_random_addr) and ip prints it
  // as an IPv6 address (ll_addr_n2a for tunnel6 and gre6): numbered apart.
  static const std::regex tunnelPerm("permaddr(\":\"| )([0-9a-f]{0,4}:[0-9a-f:]*)");
  text = numberMatches(text, tunnelPerm, "PERM", {}, 2);
  return std::regex_replace(text, timer, "$01 0");  // $01: the name (and JSON's `":`), then " 0"
}

std::string stateOf(const std::string& nsName, const LiteralMacs& literal, const std::string& tcDev) {
  std::string out;
  // tc's qdiscs and the device's classes as tc prints them (its -j prints htb classes as text).
  if (!tcDev.empty())
    for (const std::string& dump : {std::string("-d qdisc show"), "-d class show dev " + tcDev})
      out += "== tc " + dump + "\n" + run("tc -n " + nsName + " " + dump).out + "\n";
  for (const char* dump : {"-d -j link show", "-j addr show", "-j route show table all", "-j -6 route show table all",
                           "-j neigh show", "-j rule show", "-j -6 rule show", "-j nexthop show",
                           "-j addrlabel list", "-j token list", "-j mrule show", "-j -6 mrule show"}) {
    auto r = run("ip -n " + nsName + " " + dump);
    out += std::string("== ip ") + dump + "\n" + r.out + "\n";
  }
  // Lifetimes count down: an address's finite valid/preferred lifetime and its prefix route's
  // `expires` are read a moment apart in the twins (forever, 4294967295, stays as it is).
  static const std::regex lifetime("\"(valid_life_time|preferred_life_time|expires)\":([0-9]+)");
  std::string counted;
  auto last = out.cbegin();
  for (std::sregex_iterator it(out.begin(), out.end(), lifetime), end; it != end; ++it) {
    counted.append(last, out.cbegin() + it->position());
    counted += (*it)[2] == "4294967295" ? it->str() : "\"" + (*it)[1].str() + "\":\"counting\"";
    last = out.cbegin() + it->position() + it->length();
  }
  counted.append(last, out.cend());
  out = std::move(counted);
  // The kernel's state is a set: routes of two devices brought up together may be listed in
  // either order, so each dump's elements are compared sorted (after the MACs were numbered).
  std::istringstream lines(normalise(out, nsName, literal));
  std::string sorted;
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line[0] == '[') {
      std::vector<std::string> elements;
      for (const auto& e : json::parse(line)) elements.push_back(e.dump());
      std::sort(elements.begin(), elements.end());
      for (const auto& e : elements) sorted += e + "\n";
    } else {
      sorted += line + "\n";
    }
  }
  return sorted;
}

namespace {

/// Whether the device `link` names as its lower one (ip's "link": a veth peer, a vlan's parent)
/// has carrier, in the same `ip -j link show` output.
bool lowerHasCarrier(const std::string& dump, const json& link) {
  std::string lower = link.value("link", "");
  for (const auto& other : json::parse(dump))
    if (other.value("ifname", "") == lower)
      for (const auto& f : other.value("flags", json::array()))
        if (f == "LOWER_UP") return true;
  return false;
}

}  // namespace

// Operational states are set by the kernel's linkwatch work, up to a second after the change
// that causes them (the work is global and rate limited).
void settle(const std::string& nsName) {
  for (int attempt = 0; attempt < 40; ++attempt) {
    auto r = run("ip -n " + nsName + " -j link show");
    bool settled = true;
    if (r.status == 0 && !r.out.empty()) {
      for (const auto& link : json::parse(r.out)) {
        std::set<std::string> flags;
        for (const auto& f : link.value("flags", json::array())) flags.insert(f.get<std::string>());
        std::string state = link.value("operstate", "");
        bool up = flags.count("UP") > 0, carrier = flags.count("LOWER_UP") > 0;
        if (up && carrier && state != "UP" && state != "UNKNOWN") settled = false;
        // Until linkwatch ran, a device just set up without carrier still reads UNKNOWN, or
        // DOWN; one with a lower device (a veth peer, a vlan's parent) that lacks carrier too
        // ends LOWERLAYERDOWN (the kernel's default_operstate), so DOWN is not final for it.
        if (up && !carrier && (state == "UP" || state == "UNKNOWN")) settled = false;
        if (up && !carrier && state == "DOWN" && link.contains("link") && !lowerHasCarrier(r.out, link))
          settled = false;
        if (!up && state != "DOWN" && state != "UNKNOWN") settled = false;
      }
    }
    // IPv6 addresses stay tentative until addrconf has seen the carrier (after linkwatch), even
    // without duplicate address detection.
    if (settled) settled = run("ip -n " + nsName + " -j addr show").out.find("\"tentative\"") == std::string::npos;
    if (settled) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

bool kernelHasQdisc(const std::string& qdisc) {
  static std::map<std::string, bool> cache;
  if (auto it = cache.find(qdisc); it != cache.end()) return it->second;
  TestNetns ns;
  return cache[qdisc] = run("tc -n " + ns.name() + " qdisc add dev lo root " + qdisc).status == 0;
}

std::string replaceWords(std::string text, const std::vector<std::pair<std::string, std::string>>& words) {
  for (const auto& [from, to] : words)
    for (std::size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size()) text.replace(at, from.size(), to);
  return text;
}

std::string sortedLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const auto& line : lines) out += line + "\n";
  return out;
}

}  // namespace fastlink::test
