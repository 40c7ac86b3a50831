// The text forms of `fastlink wg show` and `showconf`, byte for byte as wireguard-tools' `wg`
// prints them (without its terminal colours: fastlink never colours), written straight into the
// CLI's buffered writer: keys are base64-encoded into a stack buffer (wiped after use), numbers
// and addresses are written without a temporary string, so a device with 20,000 peers costs
// no allocation per peer.
#pragma once

#include <optional>
#include <string_view>

#include "fastlink/wireguard.hpp"
#include "kit/writer.hpp"

namespace fastlink::cli {

/// The FIELD of `wg show DEV FIELD`.
enum class WgField {
  PublicKey,
  PrivateKey,
  ListenPort,
  Fwmark,
  Peers,
  PresharedKeys,
  Endpoints,
  AllowedIps,
  LatestHandshakes,
  Transfer,
  PersistentKeepalive,
  Dump,
};

/// "public-key" ... "dump"; nullopt for anything else.
std::optional<WgField> parseWgField(std::string_view word);

/// `wg show DEV`: the device block, peers in the order given (wg sorts them by latest handshake
/// first; the caller does). `blankLineBefore` separates it from the previous device.
void printWgPretty(OutBuffer& out, const WgDevice& device, bool blankLineBefore);

/// `wg show DEV FIELD`; with `withName` (`wg show all FIELD`) every line starts with the device
/// name and a tab.
void printWgField(OutBuffer& out, const WgDevice& device, WgField field, bool withName);

/// `wg showconf DEV` (private and preshared keys included, as wg prints them).
void printWgConfig(OutBuffer& out, const WgDevice& device);

}  // namespace fastlink::cli
