// Subscription: a netlink socket joined to multicast groups, read without blocking.
#include "fastlink/subscription.hpp"

#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "core/message_walk.hpp"
#include "core/socket.hpp"
#include "fastlink/error.hpp"

namespace fastlink {
namespace {

uint32_t rtnlGroup(NotificationGroup g) {
  switch (g) {
    case NotificationGroup::Link: return RTNLGRP_LINK;
    case NotificationGroup::Ipv4Addr: return RTNLGRP_IPV4_IFADDR;
    case NotificationGroup::Ipv6Addr: return RTNLGRP_IPV6_IFADDR;
    case NotificationGroup::Ipv4Route: return RTNLGRP_IPV4_ROUTE;
    case NotificationGroup::Ipv6Route: return RTNLGRP_IPV6_ROUTE;
    case NotificationGroup::Neigh: return RTNLGRP_NEIGH;
    case NotificationGroup::Ipv4Rule: return RTNLGRP_IPV4_RULE;
    case NotificationGroup::Ipv6Rule: return RTNLGRP_IPV6_RULE;
    case NotificationGroup::Nexthop: return RTNLGRP_NEXTHOP;
    case NotificationGroup::Tc: return RTNLGRP_TC;
    case NotificationGroup::Ipv4Netconf: return RTNLGRP_IPV4_NETCONF;
    case NotificationGroup::Ipv6Netconf: return RTNLGRP_IPV6_NETCONF;
    case NotificationGroup::Mdb: return RTNLGRP_MDB;
  }
  throw Error::invalidArgument("subscribe", "unknown notification group");
}

}  // namespace

uint16_t Notification::type() const { return reinterpret_cast<const nlmsghdr*>(bytes.data())->nlmsg_type; }
uint16_t Notification::flags() const { return reinterpret_cast<const nlmsghdr*>(bytes.data())->nlmsg_flags; }

Subscription::Subscription(int protocol, const std::optional<Netns>& netns, const SubscriptionOptions& options)
    : socket_(std::make_unique<core::NetlinkSocket>(protocol, netns, options.receiveBufferBytes)),
      buffer_(core::kReceiveBufferSize),
      allNamespaces_(options.allNamespaces) {
  if (allNamespaces_) {
    int on = 1;
    if (setsockopt(socket_->fd(), SOL_NETLINK, NETLINK_LISTEN_ALL_NSID, &on, sizeof on) < 0)
      throw Error(std::error_code(errno, std::generic_category()), "setsockopt NETLINK_LISTEN_ALL_NSID");
  }
}

namespace {

// The nsid the kernel attaches (SOL_NETLINK / NETLINK_LISTEN_ALL_NSID control message) to a
// notification from another namespace; absent or negative for our own.
std::optional<int32_t> senderNsid(msghdr& msg) {
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_NETLINK || c->cmsg_type != NETLINK_LISTEN_ALL_NSID) continue;
    int32_t id = 0;
    std::memcpy(&id, CMSG_DATA(c), sizeof id);
    if (id >= 0) return id;
  }
  return std::nullopt;
}

}  // namespace

std::optional<Subscription::Datagram> Subscription::receive() {
  // One recvmsg per datagram (no size peek: notifications are far smaller than the buffer, and
  // at 100,000 events a second the peek doubled the system calls). A datagram that did not fit
  // is lost like an overflow, and reported as one; the buffer grows for the next.
  for (;;) {
    sockaddr_nl sender{};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int32_t)) * 2];
    iovec iov{buffer_.data(), buffer_.size()};
    msghdr msg{};
    msg.msg_name = &sender;
    msg.msg_namelen = sizeof sender;
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    if (allNamespaces_) {
      // The nsid arrives as a control message (NETLINK_LISTEN_ALL_NSID).
      msg.msg_control = control;
      msg.msg_controllen = sizeof control;
    }
    ssize_t n = recvmsg(fd(), &msg, MSG_DONTWAIT | MSG_TRUNC);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return std::nullopt;
      if (errno == ENOBUFS) throw Error(make_error_code(Errc::receive_overflow), "recvmsg");
      throw Error(std::error_code(errno, std::generic_category()), "recvmsg");
    }
    if (static_cast<std::size_t>(n) > buffer_.size()) {
      buffer_.resize((static_cast<std::size_t>(n) + 4095) & ~std::size_t{4095});
      throw Error(make_error_code(Errc::receive_overflow), "recvmsg (a notification larger than the buffer)");
    }
    return Datagram{static_cast<std::size_t>(n), sender.nl_pid, allNamespaces_ ? senderNsid(msg) : std::nullopt};
  }
}

Subscription::Subscription(Subscription&&) noexcept = default;
Subscription& Subscription::operator=(Subscription&&) noexcept = default;
Subscription::~Subscription() = default;

int Subscription::fd() const { return socket_->fd(); }

void Subscription::join(NotificationGroup group) { socket_->joinGroup(rtnlGroup(group)); }
void Subscription::joinGeneric(uint32_t groupId) { socket_->joinGroup(groupId); }

std::size_t Subscription::process(const Handlers& handlers) {
  std::size_t delivered = 0;
  for (;;) {
    std::optional<Datagram> r;
    try {
      r = receive();
    } catch (const Error& e) {
      if (e.code() != Errc::receive_overflow) throw;
      // The kernel reports the loss once and the socket reads on; what is queued after the
      // gap is still delivered by the next call.
      ++overflows_;
      if (!handlers.onOverflow) throw;
      handlers.onOverflow();
      continue;
    }
    if (!r) return delivered;
    if (r->senderPortId != 0) continue;  // only the kernel sends notifications
    const auto* m = reinterpret_cast<const nlmsghdr*>(buffer_.data());
    int remaining = static_cast<int>(r->length);
    for (; core::messageFits(m, remaining); m = mnl_nlmsg_next(m, &remaining)) {
      if (m->nlmsg_type == NLMSG_DONE || m->nlmsg_type == NLMSG_ERROR || m->nlmsg_type == NLMSG_NOOP) continue;
      ++delivered;
      if (handlers.onNotification)
        handlers.onNotification(Notification{{reinterpret_cast<const uint8_t*>(m), m->nlmsg_len}, r->nsid});
    }
  }
}

std::size_t Subscription::wait(const Handlers& handlers, std::chrono::milliseconds timeout) {
  pollfd p{fd(), POLLIN, 0};
  int rc;
  do {
    rc = ::poll(&p, 1, static_cast<int>(timeout.count()));
  } while (rc < 0 && errno == EINTR);
  if (rc < 0) throw Error(std::error_code(errno, std::generic_category()), "poll subscription");
  return process(handlers);
}

}  // namespace fastlink
