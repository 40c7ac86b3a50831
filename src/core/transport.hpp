// The seam under the engine: what it needs from a netlink socket. NetlinkSocket is the real
// one; tests/unit/support/fake_kernel.hpp scripts the kernel's answers so the pipeline can be
// tested without root.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace fastlink::core {

/// How a datagram is read. Whole: its size peeked first (MSG_PEEK|MSG_TRUNC, like iproute2's
/// rtnl_recvmsg), so one larger than the buffer stays queued. Straight: one recvmsg, which cuts
/// such a datagram off (lost). StraightIfQueued: Straight without waiting (Received::none).
enum class ReceiveMode { Whole, Straight, StraightIfQueued };

/// What one receive found.
struct Received {
  std::size_t length = 0;     ///< the datagram's full length
  uint32_t senderPortId = 0;  ///< 0 = the kernel
  /// The datagram is larger than the buffer given. Whole: it was left queued (grow to `length`
  /// and receive again). Straight: what fitted was written, the rest is lost.
  bool tooLarge = false;
  bool none = false;  ///< StraightIfQueued found nothing queued
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
  /// Receives one datagram into `buffer` as `mode` says. Throws Error: ENOBUFS as
  /// Errc::receive_overflow (the socket stays usable), anything else with its errno.
  virtual Received receive(std::span<uint8_t> buffer, ReceiveMode mode) = 0;
};

}  // namespace fastlink::core
