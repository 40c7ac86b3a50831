// The kernel WireGuard family's messages (generic netlink "wireguard", linux/wireguard.h), as
// pure functions: no socket, no family lookup. The family id is a parameter, so the requests
// can be built (and golden-tested) before the id is resolved at run time.
#pragma once

#include <linux/netlink.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fastlink/request.hpp"
#include "fastlink/wireguard.hpp"

namespace fastlink::wg {

/// Bytes per WG_CMD_SET_DEVICE message. wireguard-tools cuts at its socket buffer size (a page,
/// 4 KiB); the kernel takes any size, but small messages keep each one's work under RTNL short.
constexpr std::size_t kWgMessageBudget = 4096;

/// WG_CMD_SET_DEVICE as a sequence of messages, each at most `budget` bytes. The device's own
/// attributes go in the first; peers follow in order, and when a message fills up the current
/// peer continues in the next one (its public key again, the rest of its allowed IPs) without
/// WGPEER_F_REPLACE_ALLOWEDIPS, so the kernel adds to what the first part replaced.
/// Throws fastlink::Error (EINVAL) for values the kernel would refuse, or a budget too small
/// for one peer with one allowed IP.
std::vector<Request> encodeWgSetDevice(uint16_t familyId, const WgDevice& change,
                                       std::size_t budget = kWgMessageBudget);

/// WG_CMD_GET_DEVICE dump request for one device by name.
Request encodeWgGetDevice(uint16_t familyId, const std::string& name);

/// Folds the messages of a WG_CMD_GET_DEVICE dump into one device: a peer whose allowed IPs
/// were split across messages (it starts the next message with the same public key) becomes
/// one WgPeer again. Throws Error(Errc::malformed_reply) for attributes of the wrong size.
class WgDeviceFolder {
 public:
  void add(const nlmsghdr* message);
  const WgDevice& device() const { return device_; }
  WgDevice take() { return std::move(device_); }

 private:
  WgDevice device_;
};

}  // namespace fastlink::wg
