// Moves the calling thread into a network namespace for the lifetime of the guard. Objects that
// belong to the namespace they were created in (netlink sockets, /dev/net/tun files) need it only
// while they are opened.
#pragma once

#include "fastlink/netns.hpp"

namespace fastlink::core {

class NetnsGuard {
 public:
  /// Enters `target`; throws fastlink::Error when it cannot be opened or entered.
  explicit NetnsGuard(const Netns& target);
  /// Returns to the namespace the thread was in.
  ~NetnsGuard();
  NetnsGuard(const NetnsGuard&) = delete;
  NetnsGuard& operator=(const NetnsGuard&) = delete;

 private:
  int original_ = -1;
};

}  // namespace fastlink::core
