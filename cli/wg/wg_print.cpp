#include "wg/wg_print.hpp"

#include <array>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <utility>

namespace fastlink::cli {
namespace {

constexpr std::pair<std::string_view, WgField> kFieldNames[] = {
    {"public-key", WgField::PublicKey},
    {"private-key", WgField::PrivateKey},
    {"listen-port", WgField::ListenPort},
    {"fwmark", WgField::Fwmark},
    {"peers", WgField::Peers},
    {"preshared-keys", WgField::PresharedKeys},
    {"endpoints", WgField::Endpoints},
    {"allowed-ips", WgField::AllowedIps},
    {"latest-handshakes", WgField::LatestHandshakes},
    {"transfer", WgField::Transfer},
    {"persistent-keepalive", WgField::PersistentKeepalive},
    {"dump", WgField::Dump},
};

/// wg treats an all-zero key as no key (the kernel reports zeros for an unset one).
bool present(const std::optional<WgKey>& key) { return key && !key->isZero(); }

OutBuffer& putKey(OutBuffer& out, const WgKey& key) {
  std::array<char, WgKey::kBase64Length> text;
  key.toBase64(text);
  out.put(std::string_view(text.data(), text.size()));
  // The stack copy of a private or preshared key must not outlive the print (the output
  // buffer itself holds it only until it is written).
  explicit_bzero(text.data(), text.size());
  return out;
}

OutBuffer& putKeyOrNone(OutBuffer& out, const std::optional<WgKey>& key) {
  return present(key) ? putKey(out, *key) : out.put("(none)");
}

/// wg's "0x%x".
OutBuffer& putHex(OutBuffer& out, uint32_t v) {
  static constexpr char kDigits[] = "0123456789abcdef";
  char text[8];
  int n = 0;
  do {
    text[n++] = kDigits[v & 15];
    v >>= 4;
  } while (v);
  out.put("0x");
  while (n) out.put(text[--n]);
  return out;
}

OutBuffer& putFwmark(OutBuffer& out, const std::optional<uint32_t>& mark) {
  return mark.value_or(0) ? putHex(out, *mark) : out.put("off");
}

/// "192.0.2.1:51820", "[2001:db8::1]:51820" (wg brackets every IPv6 host).
OutBuffer& putEndpoint(OutBuffer& out, const WgEndpoint& e) {
  if (e.address.isV4()) out.putIp(e.address);
  else out.put('[').putIp(e.address).put(']');
  return out.put(':').putUint(e.port);
}

OutBuffer& putEndpointOrNone(OutBuffer& out, const std::optional<WgEndpoint>& e) {
  return e ? putEndpoint(out, *e) : out.put("(none)");
}

/// Always with the length, also /32 and /128 (unlike iproute2's putPrefix).
OutBuffer& putAllowedIps(OutBuffer& out, const WgPeer& p, std::string_view separator) {
  if (p.allowedIps.empty()) return out.put("(none)");
  bool first = true;
  for (const WgAllowedIp& ip : p.allowedIps) {
    if (!first) out.put(separator);
    first = false;
    out.putIp(ip.prefix.address()).put('/').putUint(ip.prefix.length());
  }
  return out;
}

/// wg prints the seconds as unsigned.
uint64_t handshakeSeconds(const WgPeer& p) { return p.lastHandshake ? static_cast<uint64_t>(p.lastHandshake->seconds) : 0; }

OutBuffer& putKeepalive(OutBuffer& out, const WgPeer& p) {
  return p.persistentKeepalive.value_or(0) ? out.putUint(*p.persistentKeepalive) : out.put("off");
}

/// "1 minute, 5 seconds", like wg.
OutBuffer& putDuration(OutBuffer& out, uint64_t left) {
  static constexpr std::pair<uint64_t, std::string_view> kUnits[] = {
      {365ull * 24 * 3600, "year"}, {24 * 3600, "day"}, {3600, "hour"}, {60, "minute"}, {1, "second"}};
  bool first = true;
  for (auto [size, name] : kUnits) {
    uint64_t n = left / size;
    left %= size;
    if (!n) continue;
    if (!first) out.put(", ");
    first = false;
    out.putUint(n).put(' ').put(name);
    if (n != 1) out.put('s');
  }
  return out;
}

OutBuffer& putAgo(OutBuffer& out, uint64_t seconds) {
  auto now = static_cast<uint64_t>(std::time(nullptr));
  if (now == seconds) return out.put("Now");
  if (now < seconds) return out.put("(System clock wound backward; connection problems may ensue.)");
  return putDuration(out, now - seconds).put(" ago");
}

/// "512 B", "1.50 KiB", ... with printf's rounding (what wg uses).
OutBuffer& putBytes(OutBuffer& out, uint64_t b) {
  static constexpr std::string_view kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
  if (b < 1024) return out.putUint(b).put(" B");
  double value = static_cast<double>(b) / 1024;
  std::size_t unit = 0;
  for (uint64_t limit = 1024ull * 1024; unit + 1 < std::size(kUnits) && b >= limit; limit *= 1024) {
    value /= 1024;
    ++unit;
  }
  char text[64];
  int n = std::snprintf(text, sizeof text, "%.2f ", value);
  return out.put(std::string_view(text, static_cast<std::size_t>(n))).put(kUnits[unit]);
}

void putPrettyPeer(OutBuffer& out, const WgPeer& p) {
  putKey(out.put("\npeer: "), p.publicKey).put('\n');
  if (present(p.presharedKey)) out.put("  preshared key: (hidden)\n");
  if (p.endpoint) putEndpoint(out.put("  endpoint: "), *p.endpoint).put('\n');
  putAllowedIps(out.put("  allowed ips: "), p, ", ").put('\n');
  if (uint64_t seen = handshakeSeconds(p)) putAgo(out.put("  latest handshake: "), seen).put('\n');
  uint64_t rx = p.rxBytes.value_or(0), tx = p.txBytes.value_or(0);
  if (rx || tx) {
    putBytes(out.put("  transfer: "), rx).put(" received, ");
    putBytes(out, tx).put(" sent\n");
  }
  if (p.persistentKeepalive.value_or(0))
    putDuration(out.put("  persistent keepalive: every "), *p.persistentKeepalive).put('\n');
}

void putDumpPeer(OutBuffer& out, const WgPeer& p) {
  putKey(out, p.publicKey).put('\t');
  putKeyOrNone(out, p.presharedKey).put('\t');
  putEndpointOrNone(out, p.endpoint).put('\t');
  putAllowedIps(out, p, ",").put('\t');
  out.putUint(handshakeSeconds(p)).put('\t');
  out.putUint(p.rxBytes.value_or(0)).put('\t').putUint(p.txBytes.value_or(0)).put('\t');
  putKeepalive(out, p).put('\n');
}

/// One line per peer: its public key, a tab, then what `field` shows of it.
void putPeerValue(OutBuffer& out, const WgPeer& p, WgField field) {
  putKey(out, p.publicKey);
  if (field == WgField::Peers) {
    out.put('\n');
    return;
  }
  out.put('\t');
  switch (field) {
    case WgField::PresharedKeys: putKeyOrNone(out, p.presharedKey); break;
    case WgField::Endpoints: putEndpointOrNone(out, p.endpoint); break;
    case WgField::AllowedIps: putAllowedIps(out, p, " "); break;
    case WgField::LatestHandshakes: out.putUint(handshakeSeconds(p)); break;
    case WgField::Transfer: out.putUint(p.rxBytes.value_or(0)).put('\t').putUint(p.txBytes.value_or(0)); break;
    case WgField::PersistentKeepalive: putKeepalive(out, p); break;
    default: break;  // device fields are printed by printWgField
  }
  out.put('\n');
}

}  // namespace

std::optional<WgField> parseWgField(std::string_view word) {
  for (auto [name, field] : kFieldNames)
    if (name == word) return field;
  return std::nullopt;
}

void printWgPretty(OutBuffer& out, const WgDevice& d, bool blankLineBefore) {
  if (blankLineBefore) out.put('\n');
  out.put("interface: ").put(d.name).put('\n');
  if (present(d.publicKey)) putKey(out.put("  public key: "), *d.publicKey).put('\n');
  if (present(d.privateKey)) out.put("  private key: (hidden)\n");
  if (d.listenPort.value_or(0)) out.put("  listening port: ").putUint(*d.listenPort).put('\n');
  if (d.fwmark.value_or(0)) putHex(out.put("  fwmark: "), *d.fwmark).put('\n');
  for (const WgPeer& p : d.peers) {
    putPrettyPeer(out, p);
    out.endRecord();
  }
  out.endRecord();
}

void printWgField(OutBuffer& out, const WgDevice& d, WgField field, bool withName) {
  auto prefix = [&]() -> OutBuffer& { return withName ? out.put(d.name).put('\t') : out; };
  switch (field) {
    case WgField::PublicKey: putKeyOrNone(prefix(), d.publicKey).put('\n'); break;
    case WgField::PrivateKey: putKeyOrNone(prefix(), d.privateKey).put('\n'); break;
    case WgField::ListenPort: prefix().putUint(d.listenPort.value_or(0)).put('\n'); break;
    case WgField::Fwmark: putFwmark(prefix(), d.fwmark).put('\n'); break;
    case WgField::Dump:
      putKeyOrNone(prefix(), d.privateKey).put('\t');
      putKeyOrNone(out, d.publicKey).put('\t').putUint(d.listenPort.value_or(0)).put('\t');
      putFwmark(out, d.fwmark).put('\n');
      for (const WgPeer& p : d.peers) {
        putDumpPeer(prefix(), p);
        out.endRecord();
      }
      break;
    default: {
      // wg 1.0.20210914 names the device once, before the first peer, for `endpoints` alone
      // (the other lines of `show all endpoints` start with a key; with no peer the name and
      // tab end without a newline). Kept byte for byte: scripts parse what wg prints.
      const bool once = field == WgField::Endpoints;
      if (once && withName) out.put(d.name).put('\t');
      for (const WgPeer& p : d.peers) {
        putPeerValue(once ? out : prefix(), p, field);
        out.endRecord();
      }
    }
  }
  out.endRecord();
}

void printWgConfig(OutBuffer& out, const WgDevice& d) {
  out.put("[Interface]\n");
  if (d.listenPort.value_or(0)) out.put("ListenPort = ").putUint(*d.listenPort).put('\n');
  if (d.fwmark.value_or(0)) putHex(out.put("FwMark = "), *d.fwmark).put('\n');
  if (present(d.privateKey)) putKey(out.put("PrivateKey = "), *d.privateKey).put('\n');
  // wg ends the [Interface] section with a blank line, and puts one between peers only.
  out.put('\n');
  bool first = true;
  for (const WgPeer& p : d.peers) {
    if (!first) out.put('\n');
    first = false;
    putKey(out.put("[Peer]\nPublicKey = "), p.publicKey).put('\n');
    if (present(p.presharedKey)) putKey(out.put("PresharedKey = "), *p.presharedKey).put('\n');
    if (!p.allowedIps.empty()) putAllowedIps(out.put("AllowedIPs = "), p, ", ").put('\n');
    if (p.endpoint) putEndpoint(out.put("Endpoint = "), *p.endpoint).put('\n');
    if (p.persistentKeepalive.value_or(0)) out.put("PersistentKeepalive = ").putUint(*p.persistentKeepalive).put('\n');
    out.endRecord();
  }
  out.endRecord();
}

}  // namespace fastlink::cli
