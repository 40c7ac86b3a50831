// Subscription: a netlink socket joined to multicast groups, read in batches (recvmmsg), without
// blocking (process) or blocking until the first notification (wait).
#include "fastlink/subscription.hpp"

#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

#include "core/message_walk.hpp"
#include "core/socket.hpp"
#include "fastlink/error.hpp"

namespace fastlink {
namespace {

uint32_t rtnlGroup(NotificationGroup g) {
  static constexpr std::pair<NotificationGroup, uint32_t> kGroups[] = {
      {NotificationGroup::Link, RTNLGRP_LINK},           {NotificationGroup::Ipv4Addr, RTNLGRP_IPV4_IFADDR},
      {NotificationGroup::Ipv6Addr, RTNLGRP_IPV6_IFADDR}, {NotificationGroup::Ipv4Route, RTNLGRP_IPV4_ROUTE},
      {NotificationGroup::Ipv6Route, RTNLGRP_IPV6_ROUTE}, {NotificationGroup::Neigh, RTNLGRP_NEIGH},
      {NotificationGroup::Ipv4Rule, RTNLGRP_IPV4_RULE},   {NotificationGroup::Ipv6Rule, RTNLGRP_IPV6_RULE},
      {NotificationGroup::Nexthop, RTNLGRP_NEXTHOP},      {NotificationGroup::Tc, RTNLGRP_TC},
      {NotificationGroup::Ipv4Netconf, RTNLGRP_IPV4_NETCONF}, {NotificationGroup::Ipv6Netconf, RTNLGRP_IPV6_NETCONF},
      {NotificationGroup::Mdb, RTNLGRP_MDB}};
  for (const auto& [group, rtnl] : kGroups)
    if (group == g) return rtnl;
  throw Error::invalidArgument("subscribe", "unknown notification group");
}

}  // namespace

uint16_t Notification::type() const { return reinterpret_cast<const nlmsghdr*>(bytes.data())->nlmsg_type; }
uint16_t Notification::flags() const { return reinterpret_cast<const nlmsghdr*>(bytes.data())->nlmsg_flags; }

namespace {

// Datagrams read by one recvmmsg: many notifications per system call.
constexpr std::size_t kBatchDatagrams = 64;

// The state of the last recvmmsg, kept at the front of `buffer_` (the public header, and with
// it every includer, stays as it was): the slots' lengths, senders and nsids, and a cursor.
// `next`..`count` are the datagrams read but not delivered yet (a handler threw, or an
// oversize datagram was reported as an overflow that threw): the next process() starts there.
// The slots (kBatchDatagrams x slotSize bytes) follow it.
struct BatchState {
  std::size_t slotSize = 0;
  std::size_t growTo = 0;  // a datagram did not fit: slot size for the next read
  uint32_t count = 0;
  uint32_t next = 0;
  std::array<uint32_t, kBatchDatagrams> length;
  std::array<uint32_t, kBatchDatagrams> senderPortId;
  std::array<int32_t, kBatchDatagrams> nsid;  // -1: this socket's own namespace
};
static_assert(std::is_trivially_copyable_v<BatchState>);
constexpr std::size_t kStateBytes = (sizeof(BatchState) + 63) & ~std::size_t{63};

BatchState& stateOf(std::vector<uint8_t>& buffer) { return *std::launder(reinterpret_cast<BatchState*>(buffer.data())); }
uint8_t* slotOf(std::vector<uint8_t>& buffer, std::size_t i) {
  return buffer.data() + kStateBytes + i * stateOf(buffer).slotSize;
}

// One datagram buffer of 64 KiB per slot (4 MiB): notifications are far smaller, so it is
// rare that one does not fit (then it is lost like an overflow, and the slots grow).
void allocateSlots(std::vector<uint8_t>& buffer, std::size_t slotSize) {
  buffer.assign(kStateBytes + slotSize * kBatchDatagrams, 0);
  BatchState& b = *new (buffer.data()) BatchState{};
  b.slotSize = slotSize;
}

// The nsid the kernel attaches (SOL_NETLINK / NETLINK_LISTEN_ALL_NSID control message) to a
// notification from another namespace; -1 when absent or negative (our own namespace).
int32_t senderNsid(msghdr& msg) {
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_NETLINK || c->cmsg_type != NETLINK_LISTEN_ALL_NSID) continue;
    int32_t id = 0;
    std::memcpy(&id, CMSG_DATA(c), sizeof id);
    return id >= 0 ? id : -1;
  }
  return -1;
}

}  // namespace

Subscription::Subscription(int protocol, const std::optional<Netns>& netns, const SubscriptionOptions& options)
    : socket_(std::make_unique<core::NetlinkSocket>(protocol, netns, options.receiveBufferBytes)),
      allNamespaces_(options.allNamespaces) {
  allocateSlots(buffer_, core::kReceiveBufferSize);
  if (allNamespaces_) {
    int on = 1;
    if (setsockopt(socket_->fd(), SOL_NETLINK, NETLINK_LISTEN_ALL_NSID, &on, sizeof on) < 0)
      throw Error(std::error_code(errno, std::generic_category()), "setsockopt NETLINK_LISTEN_ALL_NSID");
  }
}

// Reads up to kBatchDatagrams queued datagrams into the slots (one recvmmsg); the first one's
// length when any came, std::nullopt when none was queued (or, blocking, a signal came first).
// Blocking: MSG_WAITFORONE sleeps until the first datagram, then takes what is queued without
// waiting for more, so one system call does what poll + a non-blocking read did.
std::optional<Subscription::Datagram> Subscription::receive(bool block) {
  // Many datagrams per system call: at 100,000 events a second one recvmsg per notification
  // made the system calls the monitor's main cost. No size peek: a datagram larger than its
  // slot is lost like an overflow, reported as one, and the slots grow before the next read.
  if (stateOf(buffer_).growTo > stateOf(buffer_).slotSize) allocateSlots(buffer_, stateOf(buffer_).growTo);
  BatchState& b = stateOf(buffer_);
  std::array<mmsghdr, kBatchDatagrams> headers{};
  std::array<iovec, kBatchDatagrams> iov{};
  std::array<sockaddr_nl, kBatchDatagrams> senders{};
  // Each datagram has its own control buffer: the nsid arrives per datagram.
  constexpr std::size_t kControl = CMSG_SPACE(sizeof(int32_t)) * 2;
  alignas(cmsghdr) std::array<std::array<char, kControl>, kBatchDatagrams> control;
  for (std::size_t i = 0; i < kBatchDatagrams; ++i) {
    iov[i] = iovec{slotOf(buffer_, i), b.slotSize};
    msghdr& msg = headers[i].msg_hdr;
    msg.msg_name = &senders[i];
    msg.msg_namelen = sizeof senders[i];
    msg.msg_iov = &iov[i];
    msg.msg_iovlen = 1;
    if (allNamespaces_) {
      msg.msg_control = control[i].data();
      msg.msg_controllen = control[i].size();
    }
  }
  for (;;) {
    // MSG_TRUNC: msg_len is the datagram's real length even when it did not fit.
    int n = recvmmsg(fd(), headers.data(), kBatchDatagrams, (block ? MSG_WAITFORONE : MSG_DONTWAIT) | MSG_TRUNC,
                     nullptr);
    if (n < 0) {
      if (errno == EINTR) {
        if (block) return std::nullopt;  // the caller may want to look at the signal
        continue;
      }
      if ((errno == EAGAIN || errno == EWOULDBLOCK) && block) {
        // The caller made fd() non-blocking (O_NONBLOCK wins over MSG_WAITFORONE): wait here.
        pollfd p{fd(), POLLIN, 0};
        if (::poll(&p, 1, -1) < 0 && errno != EINTR)
          throw Error(std::error_code(errno, std::generic_category()), "poll subscription");
        block = false;
        continue;
      }
      if (errno == EAGAIN || errno == EWOULDBLOCK) return std::nullopt;
      // The kernel reports a loss before the datagrams still queued (when it happens after the
      // first datagram of a batch, on the next call), so events and the gap stay in order.
      if (errno == ENOBUFS) throw Error(make_error_code(Errc::receive_overflow), "recvmmsg");
      throw Error(std::error_code(errno, std::generic_category()), "recvmmsg");
    }
    b.count = static_cast<uint32_t>(n);
    b.next = 0;
    for (int i = 0; i < n; ++i) {
      b.length[i] = headers[i].msg_len;
      b.senderPortId[i] = senders[i].nl_pid;
      b.nsid[i] = allNamespaces_ ? senderNsid(headers[i].msg_hdr) : -1;
    }
    return Datagram{b.length[0], b.senderPortId[0], std::nullopt};
  }
}

Subscription::Subscription(Subscription&&) noexcept = default;
Subscription& Subscription::operator=(Subscription&&) noexcept = default;
Subscription::~Subscription() = default;

int Subscription::fd() const { return socket_->fd(); }

void Subscription::join(NotificationGroup group) { socket_->joinGroup(rtnlGroup(group)); }
void Subscription::joinGeneric(uint32_t groupId) { socket_->joinGroup(groupId); }

std::size_t Subscription::process(const Handlers& handlers) { return deliver(handlers, false); }

std::size_t Subscription::wait(const Handlers& handlers) { return deliver(handlers, true); }

std::size_t Subscription::deliver(const Handlers& handlers, bool block) {
  std::size_t delivered = 0;
  bool drained = false;
  for (;;) {
    try {
      if (stateOf(buffer_).next == stateOf(buffer_).count) {
        // A short batch means the queue was empty when it was read: what came later wakes the
        // caller's poll again, so one more recvmmsg (EAGAIN) would only cost a system call.
        // Only the first read of a blocking call may sleep (datagrams left from an earlier
        // call count as the first read: they are delivered without waiting).
        if (drained || !receive(block)) return delivered;
        block = false;
        drained = stateOf(buffer_).count < kBatchDatagrams;
      }
      block = false;
      while (stateOf(buffer_).next < stateOf(buffer_).count) {
        // The cursor moves before the handlers run: a handler that throws loses nothing after
        // its own datagram; the next process() resumes with the following one.
        BatchState& b = stateOf(buffer_);
        std::size_t slot = b.next++;
        if (b.length[slot] > b.slotSize) {
          b.growTo = std::max(b.growTo, (std::size_t{b.length[slot]} + 4095) & ~std::size_t{4095});
          throw Error(make_error_code(Errc::receive_overflow), "recvmmsg (a notification larger than the buffer)");
        }
        if (b.senderPortId[slot] != 0) continue;  // only the kernel sends notifications
        std::optional<int32_t> nsid;
        if (b.nsid[slot] >= 0) nsid = b.nsid[slot];
        const auto* m = reinterpret_cast<const nlmsghdr*>(slotOf(buffer_, slot));
        int remaining = static_cast<int>(b.length[slot]);
        for (; core::messageFits(m, remaining); m = mnl_nlmsg_next(m, &remaining)) {
          if (m->nlmsg_type == NLMSG_DONE || m->nlmsg_type == NLMSG_ERROR || m->nlmsg_type == NLMSG_NOOP) continue;
          ++delivered;
          if (handlers.onNotification)
            handlers.onNotification(Notification{{reinterpret_cast<const uint8_t*>(m), m->nlmsg_len}, nsid});
        }
      }
    } catch (const Error& e) {
      if (e.code() != Errc::receive_overflow) throw;
      // The kernel reports the loss once and the socket reads on; what is queued after the
      // gap is still delivered by the next call.
      ++overflows_;
      block = false;  // the overflow is news: the caller hears of it without another wait
      if (!handlers.onOverflow) throw;
      handlers.onOverflow();
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
