// RAII netlink socket over libmnl, optionally opened inside another network namespace.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "core/transport.hpp"
#include "fastlink/netns.hpp"

struct mnl_socket;

namespace fastlink::core {

/// The ifindex of device `name` in the network namespace of socket `fd`, by SIOCGIFINDEX on that
/// socket: the kernel hands a socket ioctl its family does not know to dev_ioctl in the socket's
/// own namespace, so the netlink socket answers for the namespace it was opened in. One system
/// call and a hash lookup (names and altnames, like RTM_GETLINK by IFLA_IFNAME), where
/// RTM_GETLINK has the kernel fill a ~1 KB RTM_NEWLINK: about 3x cheaper per name.
/// Returns 0 when there is no such device, std::nullopt when the ioctl is not answered (any
/// other errno): the caller then asks with RTM_GETLINK. `name` must be a valid ifname.
std::optional<uint32_t> interfaceIndex(int fd, const std::string& name);
/// The name of device `index` in the namespace of socket `fd` (SIOCGIFNAME, the reverse of
/// interfaceIndex); std::nullopt when there is none or the ioctl is not answered.
std::optional<std::string> interfaceName(int fd, uint32_t index);

class NetlinkSocket final : public Transport {
 public:
  /// Opens and binds a socket of `protocol` (NETLINK_ROUTE, NETLINK_GENERIC) with extended
  /// ACKs, capped ACKs and strict checking, inside `netns` if given.
  NetlinkSocket(int protocol, const std::optional<Netns>& netns, int receiveBufferBytes);
  ~NetlinkSocket();
  NetlinkSocket(const NetlinkSocket&) = delete;
  NetlinkSocket& operator=(const NetlinkSocket&) = delete;

  uint32_t portId() const override { return portId_; }
  int fd() const override;
  int receiveBufferBytes() const override { return receiveBufferBytes_; }

  /// Sends the buffer in one sendmsg (it may hold many messages). Throws Error on failure.
  void send(std::span<const uint8_t> bytes) override;
  Received receive(std::span<uint8_t> buffer, ReceiveMode mode) override;

  /// Joins a multicast group (RTNLGRP_*, or a generic netlink group id).
  void joinGroup(uint32_t group);

 private:
  mnl_socket* socket_ = nullptr;
  uint32_t portId_ = 0;
  int receiveBufferBytes_ = 0;
};

/// Initial size of the engine's receive buffer. A single reply with many VFs can be larger; the
/// buffer then grows.
inline constexpr std::size_t kReceiveBufferSize = 64 * 1024;
/// The most a dump datagram holds, unless the dump sets min_dump_alloc (rtnetlink does for links:
/// its largest device's message, which grows with VFs and altnames): net/netlink/af_netlink.c
/// (6.1 to 6.18) sizes it max(max_recvmsg_len, min_dump_alloc, NLMSG_GOODSIZE), and
/// max_recvmsg_len, the largest buffer the socket read with, is capped at SKB_WITH_OVERHEAD(32K).
inline constexpr std::size_t kDumpDatagramBound = 32 * 1024;

}  // namespace fastlink::core
