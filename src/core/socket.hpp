// RAII netlink socket over libmnl, optionally opened inside another network namespace.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "fastlink/netns.hpp"

struct mnl_socket;

namespace fastlink::core {

/// One datagram as received, with the sender's port id (0 = the kernel).
struct Datagram {
  std::span<const uint8_t> bytes;
  uint32_t senderPortId = 0;
};

class NetlinkSocket {
 public:
  /// Opens and binds a socket of `protocol` (NETLINK_ROUTE, NETLINK_GENERIC) with extended
  /// ACKs, capped ACKs and strict checking, inside `netns` if given.
  NetlinkSocket(int protocol, const std::optional<Netns>& netns, int receiveBufferBytes);
  ~NetlinkSocket();
  NetlinkSocket(const NetlinkSocket&) = delete;
  NetlinkSocket& operator=(const NetlinkSocket&) = delete;

  uint32_t portId() const { return portId_; }
  int fd() const;
  int receiveBufferBytes() const { return receiveBufferBytes_; }

  /// Sends the buffer in one sendmsg (it may hold many messages). Throws Error on failure.
  void send(std::span<const uint8_t> bytes);
  /// Receives one datagram into the socket's buffer (valid until the next receive).
  /// Throws Error: ENOBUFS as Errc::receive_overflow, MSG_TRUNC as Errc::truncated_reply.
  Datagram receive();

 private:
  mnl_socket* socket_ = nullptr;
  uint32_t portId_ = 0;
  int receiveBufferBytes_ = 0;
  std::unique_ptr<uint8_t[]> receiveBuffer_;
};

/// Size of the receive buffer: one datagram of a dump is at most 32 KiB (the kernel caps it), a
/// single reply with many VFs can be larger.
inline constexpr std::size_t kReceiveBufferSize = 256 * 1024;

}  // namespace fastlink::core
