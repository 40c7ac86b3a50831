// How a Netlink opens its sockets.
#pragma once

#include <optional>
#include <string>

#include "fastlink/netns.hpp"

namespace fastlink {

struct NetlinkOptions {
  /// Work in this network namespace (like `ip -n NAME`); default: the caller's.
  std::optional<Netns> netns;
  /// Socket receive buffer; bounds how many requests a batch keeps in flight.
  int receiveBufferBytes = 32 * 1024 * 1024;
  /// How often an interrupted dump is restarted before Errc::dump_interrupted is reported.
  unsigned dumpRetries = 5;
  /// Where userspace WireGuard implementations put their UAPI sockets (NAME.sock), as wg looks
  /// for them: the devices nl.wireguard() finds besides the kernel's.
  std::string wireguardSocketDirectory = "/var/run/wireguard";
};

}  // namespace fastlink
