// Subscriptions: kernel notifications (multicast groups) on a socket of their own, read from
// the caller's own poll/epoll loop.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "fastlink/netns.hpp"

namespace fastlink {

namespace core {
class NetlinkSocket;
}

/// rtnetlink multicast groups, by what they announce.
enum class NotificationGroup {
  Link,         ///< links appear, change, disappear (like `ip monitor link`)
  Ipv4Addr,     ///< IPv4 addresses
  Ipv6Addr,     ///< IPv6 addresses
  Ipv4Route,    ///< IPv4 routes
  Ipv6Route,    ///< IPv6 routes
  Neigh,        ///< neighbours (ARP/NDP) and fdb entries
  Ipv4Rule,     ///< IPv4 policy rules
  Ipv6Rule,     ///< IPv6 policy rules
  Nexthop,      ///< nexthop objects
  Tc,           ///< qdiscs, classes, filters
  Ipv4Netconf,  ///< IPv4 per-device settings
  Ipv6Netconf,  ///< IPv6 per-device settings
  Mdb,          ///< bridge multicast database
};

/// One notification as the kernel sent it: a whole netlink message (header first). Decode it
/// with RawMessage::parse (fastlink/raw.hpp) or an object decoder; valid during the callback.
struct Notification {
  std::span<const uint8_t> bytes;
  /// With SubscriptionOptions::allNamespaces: the sender namespace's id as this socket's
  /// namespace knows it (`ip netns list-id`); unset for this socket's own namespace.
  std::optional<int32_t> nsid;
  uint16_t type() const;
  uint16_t flags() const;
};

struct SubscriptionOptions {
  /// Socket receive buffer: how many notifications may queue before the kernel drops some
  /// (an overflow). Busy tables want more.
  int receiveBufferBytes = 4 * 1024 * 1024;
  /// Also receive the notifications of every namespace that has an id in this socket's
  /// namespace (like `ip monitor all-nsid`); each carries its Notification::nsid.
  bool allNamespaces = false;
};

/// A socket joined to multicast groups (see Netlink::subscribe). It never shares the request
/// socket, so notifications never mix into replies. No thread is started: poll `fd()` for
/// input and call `process()`, or call `wait()`.
///
/// Overflow: when notifications came faster than they were read, the kernel dropped some and
/// says so once (ENOBUFS). `process()` then calls `onOverflow` (or, without one, throws
/// Error(Errc::receive_overflow)) and the subscription stays usable: the caller resynchronises
/// (dumps the tables it mirrors) and keeps reading.
class Subscription {
 public:
  struct Handlers {
    std::function<void(const Notification&)> onNotification;
    std::function<void()> onOverflow;
  };

  Subscription(Subscription&&) noexcept;
  Subscription& operator=(Subscription&&) noexcept;
  ~Subscription();

  /// The file descriptor to poll for input (POLLIN).
  int fd() const;
  /// Joins one more group.
  void join(NotificationGroup group);
  /// Joins a generic netlink multicast group by id (resolved at run time from the family).
  void joinGeneric(uint32_t groupId);
  /// Delivers every notification already queued, without blocking. Returns how many.
  std::size_t process(const Handlers& handlers);
  /// Waits up to `timeout` for a notification, then delivers what is queued. Returns how many.
  std::size_t wait(const Handlers& handlers, std::chrono::milliseconds timeout);
  /// Waits without a time limit, then delivers what is queued: one system call per wake-up (a
  /// blocking receive instead of poll + receive), for a loop that only reads notifications.
  /// Returns how many; 0 when a signal interrupted the wait (or only an overflow was reported).
  std::size_t wait(const Handlers& handlers);
  /// Overflows seen so far.
  uint64_t overflows() const { return overflows_; }

 private:
  friend class Netlink;
  Subscription(int protocol, const std::optional<Netns>& netns, const SubscriptionOptions& options);

  /// One datagram (grown when larger), with the sender's nsid when listening to all namespaces.
  struct Datagram {
    std::size_t length = 0;
    uint32_t senderPortId = 0;
    std::optional<int32_t> nsid;
  };
  std::optional<Datagram> receive(bool block);
  std::size_t deliver(const Handlers& handlers, bool block);

  std::unique_ptr<core::NetlinkSocket> socket_;
  std::vector<uint8_t> buffer_;
  bool allNamespaces_ = false;
  uint64_t overflows_ = 0;
};

}  // namespace fastlink
