#include "core/socket.hpp"

#include <fcntl.h>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>

#include "core/netns_guard.hpp"
#include "fastlink/error.hpp"

namespace fastlink::core {
namespace {

[[noreturn]] void throwErrno(const std::string& operation, int err = errno) {
  throw Error(std::error_code(err, std::generic_category()), operation);
}

// The *FORCE variant passes rmem_max/wmem_max but needs CAP_NET_ADMIN; the plain one without it.
void setBufferSize(int fd, int force, int plain, int bytes) {
  if (setsockopt(fd, SOL_SOCKET, force, &bytes, sizeof bytes) < 0 &&
      setsockopt(fd, SOL_SOCKET, plain, &bytes, sizeof bytes) < 0)
    throwErrno("setsockopt");
}

mnl_socket* openSocket(int protocol, const std::optional<Netns>& netns) {
  std::optional<NetnsGuard> guard;
  if (netns) guard.emplace(*netns);
  mnl_socket* s = mnl_socket_open2(protocol, SOCK_CLOEXEC);
  if (!s) throwErrno("open netlink socket");
  return s;
}

}  // namespace

std::optional<uint32_t> interfaceIndex(int fd, const std::string& name) {
  ifreq request{};
  if (name.size() >= sizeof request.ifr_name) return std::nullopt;
  name.copy(request.ifr_name, name.size());
  if (ioctl(fd, SIOCGIFINDEX, &request) == 0) return static_cast<uint32_t>(request.ifr_ifindex);
  if (errno == ENODEV) return 0u;
  return std::nullopt;
}

std::optional<std::string> interfaceName(int fd, uint32_t index) {
  ifreq request{};
  request.ifr_ifindex = static_cast<int>(index);
  if (ioctl(fd, SIOCGIFNAME, &request) != 0) return std::nullopt;
  return std::string(request.ifr_name, strnlen(request.ifr_name, sizeof request.ifr_name));
}

NetlinkSocket::NetlinkSocket(int protocol, const std::optional<Netns>& netns, int receiveBufferBytes)
    : socket_(openSocket(protocol, netns)) {
  std::unique_ptr<mnl_socket, int (*)(mnl_socket*)> owner(socket_, mnl_socket_close);
  int fd = mnl_socket_get_fd(socket_);
  int on = 1;
  // Extended ACKs carry the kernel's message; capped ACKs do not echo our request back;
  // strict checking makes the kernel filter dumps instead of ignoring what it does not check.
  if (mnl_socket_setsockopt(socket_, NETLINK_EXT_ACK, &on, sizeof on) < 0) throwErrno("setsockopt NETLINK_EXT_ACK");
  if (mnl_socket_setsockopt(socket_, NETLINK_CAP_ACK, &on, sizeof on) < 0) throwErrno("setsockopt NETLINK_CAP_ACK");
  if (mnl_socket_setsockopt(socket_, NETLINK_GET_STRICT_CHK, &on, sizeof on) < 0)
    throwErrno("setsockopt NETLINK_GET_STRICT_CHK");
  setBufferSize(fd, SO_RCVBUFFORCE, SO_RCVBUF, receiveBufferBytes);
  setBufferSize(fd, SO_SNDBUFFORCE, SO_SNDBUF, 4 * 1024 * 1024);
  socklen_t len = sizeof receiveBufferBytes_;  // the kernel reports twice the size asked (bookkeeping)
  getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receiveBufferBytes_, &len);
  if (mnl_socket_bind(socket_, 0, MNL_SOCKET_AUTOPID) < 0) throwErrno("bind netlink socket");
  portId_ = mnl_socket_get_portid(socket_);
  owner.release();
}

NetlinkSocket::~NetlinkSocket() {
  if (socket_) mnl_socket_close(socket_);
}

int NetlinkSocket::fd() const { return mnl_socket_get_fd(socket_); }

void NetlinkSocket::send(std::span<const uint8_t> bytes) {
  for (;;) {
    ssize_t n = mnl_socket_sendto(socket_, bytes.data(), bytes.size());
    if (n >= 0) return;
    if (errno != EINTR) throwErrno("sendmsg");
  }
}

Received NetlinkSocket::receive(std::span<uint8_t> buffer, ReceiveMode mode) {
  sockaddr_nl sender{};
  iovec iov{buffer.data(), buffer.size()};
  msghdr msg{};
  msg.msg_name = &sender;
  msg.msg_namelen = sizeof sender;
  bool peek = mode == ReceiveMode::Whole;
  const int noWait = mode == ReceiveMode::StraightIfQueued ? MSG_DONTWAIT : 0;
  for (;;) {
    // The peek copies nothing (no iovec); with MSG_TRUNC both reads return the real length.
    msg.msg_iov = peek ? nullptr : &iov;
    msg.msg_iovlen = peek ? 0 : 1;
    ssize_t n = recvmsg(fd(), &msg, MSG_TRUNC | noWait | (peek ? MSG_PEEK : 0));
    if (n < 0) {
      if (errno == EINTR) continue;
      if (noWait && (errno == EAGAIN || errno == EWOULDBLOCK)) return Received{.none = true};
      if (errno == ENOBUFS) throw Error(make_error_code(Errc::receive_overflow), "recvmsg");
      throwErrno("recvmsg");
    }
    Received r{static_cast<std::size_t>(n), sender.nl_pid, static_cast<std::size_t>(n) > buffer.size()};
    if (!peek && r.tooLarge && mode == ReceiveMode::Whole)  // another reader took the peeked one
      throw Error(make_error_code(Errc::truncated_reply), "recvmsg");
    if (!peek || r.tooLarge) return r;
    peek = false;
  }
}

void NetlinkSocket::joinGroup(uint32_t group) {
  if (setsockopt(fd(), SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &group, sizeof group) < 0)
    throwErrno("join netlink group " + std::to_string(group));
}

}  // namespace fastlink::core
