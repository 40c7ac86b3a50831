// The seam under the engine: what it needs from a netlink socket. NetlinkSocket is the real
// one; tests/unit/support/fake_kernel.hpp scripts the kernel's answers so the pipeline can be
// tested without root.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace fastlink::core {

/// What one receive found.
struct Received {
  std::size_t length = 0;     ///< the datagram's full length
  uint32_t senderPortId = 0;  ///< 0 = the kernel
  /// The datagram is larger than the buffer given and was left queued: grow to `length` and
  /// receive again. (Nothing is ever cut off.)
  bool tooLarge = false;
};

class Transport {
 public:
  virtual ~Transport() = default;

  virtual uint32_t portId() const = 0;
  /// The file descriptor to poll; -1 when there is none (a fake).
  virtual int fd() const = 0;
  /// The socket's receive buffer in bytes (bounds how much a batch keeps in flight).
  virtual int receiveBufferBytes() const = 0;

  /// Sends `bytes` (one or more messages) in one sendmsg. Throws Error on failure.
  virtual void send(std::span<const uint8_t> bytes) = 0;
  /// Receives one datagram into `buffer`, waiting for one unless `wait` is false (then an empty
  /// queue throws Error(EAGAIN)). Throws Error: ENOBUFS as Errc::receive_overflow (the socket
  /// stays usable), anything else with its errno.
  virtual Received receive(std::span<uint8_t> buffer, bool wait = true) = 0;
};

}  // namespace fastlink::core
