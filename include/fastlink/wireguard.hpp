// WireGuard devices: keys, peers, allowed IPs, and the API that reads and configures them over
// either backend (the kernel module over generic netlink, or a userspace implementation such as
// wireguard-go over its UAPI socket), chosen per device like wireguard-tools does.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fastlink/prefix.hpp"
#include "fastlink/types.hpp"

namespace fastlink {

class Netlink;

/// A Curve25519 key or a preshared key: 32 bytes. The bytes are wiped when the key goes away,
/// compared in constant time, and never appear in an error message (a bad key is described by
/// what is wrong with it, not by its text).
class WgKey {
 public:
  static constexpr std::size_t kSize = 32;
  /// Length of the base64 text of a key ("...=" , 44 characters).
  static constexpr std::size_t kBase64Length = 44;

  WgKey() = default;  ///< all zero (for a preshared key: "none")
  explicit WgKey(std::span<const uint8_t, kSize> bytes);
  WgKey(const WgKey& other) = default;
  WgKey& operator=(const WgKey& other) = default;
  ~WgKey();

  /// Parses the 44-character base64 form wg prints. Throws fastlink::Error (EINVAL) saying
  /// what is wrong ("not valid base64", "decodes to 31 bytes, a key is 32") without the text.
  static WgKey fromBase64(std::string_view text);
  /// Parses the 64-digit hex form of the UAPI protocol. Same error rules.
  static WgKey fromHex(std::string_view text);

  /// `wg genkey`: a random, clamped Curve25519 private key.
  static WgKey generatePrivate();
  /// `wg genpsk`: 32 random bytes.
  static WgKey generatePreshared();
  /// `wg pubkey`: the public key of this private key.
  WgKey publicKey() const;

  std::string toBase64() const;
  /// The same 44 characters written into `out` (no terminator, no allocation): for a caller
  /// printing many keys straight into its own buffer (which it wipes when the key is secret).
  void toBase64(std::span<char, kBase64Length> out) const;
  std::string toHex() const;
  /// True when every byte is zero (constant time). wg treats an all-zero key as "no key".
  bool isZero() const;

  std::span<const uint8_t, kSize> bytes() const& { return std::span<const uint8_t, kSize>(bytes_); }
  std::span<const uint8_t, kSize> bytes() const&& = delete;

  /// Constant-time comparison.
  friend bool operator==(const WgKey& a, const WgKey& b);

 private:
  std::array<uint8_t, kSize> bytes_{};
};

/// A peer's endpoint: an IPv4 or IPv6 address and a UDP port.
struct WgEndpoint {
  IpAddress address;
  uint16_t port = 0;

  /// Parses "1.2.3.4:51820" or "[2001:db8::1]:51820" (addresses only; names are resolved by the
  /// caller, the library does no DNS). Throws fastlink::Error (EINVAL), e.g. for a missing port.
  static WgEndpoint parse(std::string_view text);
  /// "1.2.3.4:51820", "[2001:db8::1]:51820".
  std::string toString() const;
  friend bool operator==(const WgEndpoint&, const WgEndpoint&) = default;
};

/// One allowed IP range of a peer. Host bits must be clear ("10.0.0.1/24" is refused), like
/// the kernel's allowed-IPs trie expects.
struct WgAllowedIp {
  Prefix prefix;

  WgAllowedIp() = default;
  explicit WgAllowedIp(Prefix p) : prefix(p) {}
  /// Parses "10.0.0.0/24", "fd00::/64", or an address alone (a /32 or /128). Throws
  /// fastlink::Error (EINVAL) for a bad prefix or set host bits.
  static WgAllowedIp parse(std::string_view text);
  /// Always with the length: "10.0.0.0/24", "10.0.0.1/32" (as wg prints).
  std::string toString() const { return prefix.toStringWithLength(); }
  friend bool operator==(const WgAllowedIp&, const WgAllowedIp&) = default;
};

/// Time of a peer's last handshake (seconds and nanoseconds since the epoch); zero = never.
struct WgTime {
  int64_t seconds = 0;
  int64_t nanoseconds = 0;
  bool never() const { return seconds == 0 && nanoseconds == 0; }
  friend bool operator==(const WgTime&, const WgTime&) = default;
};

/// A peer as read from a device, or as a change to apply (`set`). Unset fields are not sent.
struct WgPeer {
  WgKey publicKey;  ///< identifies the peer; always required
  std::optional<WgKey> presharedKey;  ///< an all-zero key removes the preshared key
  std::optional<WgEndpoint> endpoint;
  std::optional<uint16_t> persistentKeepalive;  ///< seconds; 0 turns it off
  std::vector<WgAllowedIp> allowedIps;

  // Flags of a change (set only).
  bool remove = false;             ///< remove this peer (wg set ... peer K remove)
  bool updateOnly = false;         ///< change the peer only if it exists, never create it
  bool replaceAllowedIps = false;  ///< allowedIps replace the peer's list instead of adding

  // Read-only (filled by get).
  std::optional<WgTime> lastHandshake;
  std::optional<uint64_t> rxBytes;
  std::optional<uint64_t> txBytes;
  std::optional<uint32_t> protocolVersion;

  WgPeer() = default;
  explicit WgPeer(WgKey key) : publicKey(key) {}
  WgPeer& setPublicKey(WgKey v) { publicKey = v; return *this; }
  WgPeer& setPresharedKey(WgKey v) { presharedKey = v; return *this; }
  WgPeer& setEndpoint(WgEndpoint v) { endpoint = v; return *this; }
  WgPeer& setPersistentKeepalive(uint16_t v) { persistentKeepalive = v; return *this; }
  WgPeer& addAllowedIp(WgAllowedIp v) { allowedIps.push_back(v); return *this; }
  WgPeer& setRemove(bool v = true) { remove = v; return *this; }
  WgPeer& setUpdateOnly(bool v = true) { updateOnly = v; return *this; }
  WgPeer& setReplaceAllowedIps(bool v = true) { replaceAllowedIps = v; return *this; }
};

/// A WireGuard device as read (`get`), or a change to apply (`set`). Unset fields are not sent.
struct WgDevice {
  std::string name;
  std::optional<uint32_t> index;  ///< read-only (kernel backend)
  std::optional<WgKey> privateKey;  ///< an all-zero key removes the private key
  std::optional<WgKey> publicKey;   ///< read-only: derived from the private key
  std::optional<uint16_t> listenPort;  ///< 0 picks a random port
  std::optional<uint32_t> fwmark;      ///< 0 removes the mark
  /// Set: the peers below replace every existing peer (wg setconf); without it they are
  /// added to or change the existing peers (wg addconf, wg set).
  bool replacePeers = false;
  std::vector<WgPeer> peers;

  WgDevice() = default;
  explicit WgDevice(std::string n) : name(std::move(n)) {}
  WgDevice& setName(std::string v) { name = std::move(v); return *this; }
  WgDevice& setPrivateKey(WgKey v) { privateKey = v; return *this; }
  WgDevice& setListenPort(uint16_t v) { listenPort = v; return *this; }
  WgDevice& setFwmark(uint32_t v) { fwmark = v; return *this; }
  WgDevice& setReplacePeers(bool v = true) { replacePeers = v; return *this; }
  WgDevice& addPeer(WgPeer v) { peers.push_back(std::move(v)); return *this; }
};

/// Which implementation serves a device.
enum class WgBackendKind { Kernel, Userspace };

/// The WireGuard devices of a Netlink's namespace (kernel) plus the userspace devices whose
/// UAPI sockets are in NetlinkOptions::wireguardSocketDirectory: `nl.wireguard()`. Like wireguard-tools, a device with a UAPI socket is
/// served by it; any other device must be a kernel "wireguard" link.
class WireGuardApi {
 public:
  virtual ~WireGuardApi() = default;
  /// Names of every WireGuard device, sorted. Equivalent to: wg show interfaces
  virtual std::vector<std::string> list() = 0;
  /// Equivalent to: wg show NAME dump (keys included; the caller decides what to show).
  virtual WgDevice get(const std::string& name) = 0;
  /// Applies a change; unset fields stay as they are. Equivalent to: wg set NAME ... /
  /// wg setconf (replacePeers) / wg addconf.
  virtual void set(const WgDevice& change) = 0;
  /// Which backend serves `name` (throws ENODEV if none does).
  virtual WgBackendKind backendOf(const std::string& name) = 0;
};

// ---- Configuration files (wg's format) -------------------------------------------------------

/// Parses a wg configuration file ([Interface] PrivateKey, ListenPort, FwMark; [Peer]
/// PublicKey, PresharedKey, AllowedIPs, Endpoint, PersistentKeepalive). wg-quick's keys
/// (Address, DNS, MTU, Table, PreUp, ...) are refused like wg does. Errors are
/// fastlink::Error (EINVAL) whose line() is the 1-based line; key material is never quoted.
/// The result has replacePeers unset; callers set it for `setconf`.
WgDevice parseWgConfig(std::string_view text, const std::string& deviceName = {});

/// The configuration as `wg showconf` prints it (includes the private and preshared keys).
std::string formatWgConfig(const WgDevice& device);

/// Parses the words after `wg set DEV` ("listen-port 51820 private-key FILE peer KEY ...").
/// Files named by private-key / preshared-key are read through `readKeyFile` (so the library
/// does no file I/O of its own choosing; "/dev/null" means "remove"). Throws fastlink::Error
/// (EINVAL).
WgDevice parseWgSetArgs(const std::vector<std::string>& words, const std::string& deviceName,
                        const std::function<std::string(const std::string& path)>& readKeyFile);

}  // namespace fastlink
