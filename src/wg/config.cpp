// wg's configuration file format and `wg set` argument grammar, both to and from WgDevice.
//
// Errors name the line (Error::line) and the key, never a key's value: a config file holds the
// private key, and error messages end up in logs.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <string>

#include "fastlink/error.hpp"
#include "fastlink/wireguard.hpp"

namespace fastlink {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

uint64_t parseNumber(std::string_view text, std::string_view what, uint64_t max) {
  const std::string typed(text);
  uint64_t value = 0;
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
  }
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value > max)
    // No "what: " prefix: every caller puts the keyword (or the config key) in front already.
    throw Error::invalidArgument("parse " + std::string(what),
                                 "\"" + typed + "\" is not a number in 0-" + std::to_string(max));
  return value;
}

uint16_t parsePort(std::string_view text) { return static_cast<uint16_t>(parseNumber(text, "listen port", 65535)); }

uint32_t parseFwmark(std::string_view text) {
  if (lower(text) == "off") return 0;
  return static_cast<uint32_t>(parseNumber(text, "fwmark", UINT32_MAX));
}

uint16_t parseKeepalive(std::string_view text) {
  if (lower(text) == "off") return 0;
  return static_cast<uint16_t>(parseNumber(text, "persistent keepalive", 65535));
}

/// A comma-separated list; empty entries are skipped, so "" is the empty list.
void parseAllowedIps(std::string_view text, std::vector<WgAllowedIp>& out) {
  while (!text.empty()) {
    auto comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    if (!item.empty()) out.push_back(WgAllowedIp::parse(item));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
}

/// A config file's error, named by its line (Error::line).
[[noreturn]] void failAt(std::size_t line, const std::string& reason) {
  Error e = Error::invalidArgument("parse config", reason);
  e.setLine(line, "wg config");
  throw e;
}

}  // namespace

WgDevice parseWgConfig(std::string_view text, const std::string& deviceName) {
  WgDevice dev(deviceName);
  enum class Section { None, Interface, Peer } section = Section::None;
  bool peerHasKey = false;
  std::size_t peerLine = 0;
  std::size_t lineNo = 0;
  auto endPeer = [&] {
    if (section == Section::Peer && !peerHasKey) failAt(peerLine, "[Peer] section has no PublicKey");
  };
  for (std::size_t pos = 0; pos < text.size();) {
    auto nl = text.find('\n', pos);
    std::string_view raw = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    ++lineNo;
    // Like wg: a '#' starts a comment, and every whitespace character is ignored.
    std::string line;
    for (char c : raw) {
      if (c == '#') break;
      if (!std::isspace(static_cast<unsigned char>(c))) line += c;
    }
    if (line.empty()) continue;
    if (line.front() == '[') {
      std::string name = lower(line);
      endPeer();
      if (name == "[interface]") {
        section = Section::Interface;
      } else if (name == "[peer]") {
        section = Section::Peer;
        dev.peers.emplace_back();
        // A config file states a peer's whole list (wg does the same).
        dev.peers.back().replaceAllowedIps = true;
        peerHasKey = false;
        peerLine = lineNo;
      } else {
        failAt(lineNo, "unknown section " + line);
      }
      continue;
    }
    auto eq = line.find('=');
    if (eq == std::string::npos || eq == 0) failAt(lineNo, "expected KEY = VALUE");
    std::string key = line.substr(0, eq);
    std::string_view value = std::string_view(line).substr(eq + 1);
    std::string k = lower(key);
    try {
      if (section == Section::Interface && k == "privatekey") dev.privateKey = WgKey::fromBase64(value);
      else if (section == Section::Interface && k == "listenport") dev.listenPort = parsePort(value);
      else if (section == Section::Interface && k == "fwmark") dev.fwmark = parseFwmark(value);
      else if (section == Section::Peer && k == "publickey") {
        dev.peers.back().publicKey = WgKey::fromBase64(value);
        peerHasKey = true;
      } else if (section == Section::Peer && k == "presharedkey") dev.peers.back().presharedKey = WgKey::fromBase64(value);
      else if (section == Section::Peer && k == "allowedips") parseAllowedIps(value, dev.peers.back().allowedIps);
      else if (section == Section::Peer && k == "endpoint") dev.peers.back().endpoint = WgEndpoint::parse(value);
      else if (section == Section::Peer && k == "persistentkeepalive")
        dev.peers.back().persistentKeepalive = parseKeepalive(value);
      else
        failAt(lineNo, section == Section::None ? "\"" + key + "\" outside of a section"
                                                : "unknown key \"" + key + "\" in this section" +
                                                      (k == "address" || k == "dns" || k == "mtu" || k == "table"
                                                           ? " (a wg-quick key)"
                                                           : ""));
    } catch (const Error& e) {
      if (e.line()) throw;
      failAt(lineNo, key + ": " + e.reason());  // the key's name alone, never its value
    }
  }
  endPeer();
  return dev;
}

std::string formatWgConfig(const WgDevice& dev) {
  std::string out = "[Interface]\n";
  if (dev.listenPort && *dev.listenPort) out += "ListenPort = " + std::to_string(*dev.listenPort) + "\n";
  if (dev.fwmark && *dev.fwmark) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%x", *dev.fwmark);
    out += std::string("FwMark = ") + buf + "\n";
  }
  if (dev.privateKey && !dev.privateKey->isZero()) out += "PrivateKey = " + dev.privateKey->toBase64() + "\n";
  // wg ends the [Interface] section with a blank line, and puts one between peers only.
  out += "\n";
  for (const WgPeer& p : dev.peers) {
    if (&p != &dev.peers.front()) out += "\n";
    out += "[Peer]\nPublicKey = " + p.publicKey.toBase64() + "\n";
    if (p.presharedKey && !p.presharedKey->isZero()) out += "PresharedKey = " + p.presharedKey->toBase64() + "\n";
    if (!p.allowedIps.empty()) {
      out += "AllowedIPs = ";
      for (std::size_t i = 0; i < p.allowedIps.size(); ++i) out += (i ? ", " : "") + p.allowedIps[i].toString();
      out += "\n";
    }
    if (p.endpoint) out += "Endpoint = " + p.endpoint->toString() + "\n";
    if (p.persistentKeepalive && *p.persistentKeepalive)
      out += "PersistentKeepalive = " + std::to_string(*p.persistentKeepalive) + "\n";
  }
  return out;
}

WgDevice parseWgSetArgs(const std::vector<std::string>& words, const std::string& deviceName,
                        const std::function<std::string(const std::string& path)>& readKeyFile) {
  WgDevice dev(deviceName);
  // A key file holds base64 text (whitespace around it ignored); an empty file means "no key",
  // as `wg set ... private-key /dev/null` removes the key.
  auto keyFromFile = [&](const std::string& path, std::string_view what) {
    std::string text = readKeyFile(path);
    std::string trimmed;
    for (char c : text)
      if (!std::isspace(static_cast<unsigned char>(c))) trimmed += c;
    std::fill(text.begin(), text.end(), '\0');
    if (trimmed.empty()) return WgKey();
    try {
      WgKey k = WgKey::fromBase64(trimmed);
      std::fill(trimmed.begin(), trimmed.end(), '\0');
      return k;
    } catch (const Error& e) {
      std::fill(trimmed.begin(), trimmed.end(), '\0');
      throw Error::invalidArgument("wg set", std::string(what) + " file \"" + path + "\": " + e.reason());
    }
  };
  // The word after keyword i: its value, which the loop then steps over.
  std::size_t i = 0;
  auto need = [&](std::string_view keyword) -> const std::string& {
    if (i + 1 >= words.size()) throw Error::invalidArgument("wg set", "\"" + std::string(keyword) + "\" needs a value");
    return words[++i];
  };
  auto wrap = [&](std::string_view keyword, auto&& f) {
    try {
      f();
    } catch (const Error& e) {
      throw Error::invalidArgument("wg set", std::string(keyword) + ": " + e.reason());
    }
  };
  WgPeer* peer = nullptr;
  for (; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (!peer && w == "listen-port") {
      wrap(w, [&] { dev.listenPort = parsePort(need(w)); });
    } else if (!peer && w == "fwmark") {
      wrap(w, [&] { dev.fwmark = parseFwmark(need(w)); });
    } else if (!peer && w == "private-key") {
      dev.privateKey = keyFromFile(need(w), w);
    } else if (w == "peer") {
      dev.peers.emplace_back();
      peer = &dev.peers.back();
      wrap(w, [&] { peer->publicKey = WgKey::fromBase64(need(w)); });
    } else if (peer && w == "remove") {
      peer->remove = true;
    } else if (peer && w == "update-only") {
      peer->updateOnly = true;
    } else if (peer && w == "preshared-key") {
      peer->presharedKey = keyFromFile(need(w), w);
    } else if (peer && w == "endpoint") {
      wrap(w, [&] { peer->endpoint = WgEndpoint::parse(need(w)); });
    } else if (peer && w == "persistent-keepalive") {
      wrap(w, [&] { peer->persistentKeepalive = parseKeepalive(need(w)); });
    } else if (peer && w == "allowed-ips") {
      // wg set replaces the peer's list with the one given ("" clears it).
      wrap(w, [&] {
        std::vector<WgAllowedIp> ips;
        parseAllowedIps(need(w), ips);
        peer->allowedIps = std::move(ips);
        peer->replaceAllowedIps = true;
      });
    } else {
      throw Error::invalidArgument("wg set", "unknown keyword \"" + w + "\"" +
                                                 (peer ? " for a peer" : " (peer options follow \"peer KEY\")"));
    }
  }
  return dev;
}

}  // namespace fastlink
