// Builds an object API on an engine, for the library's own code (an API that uses another on the
// same socket: AddrApi reads a device name through LinkApi) and for unit tests (an API over a
// fake kernel). Applications reach every API through its accessor on Netlink; the constructors
// are private, with Netlink their friend, and this header is not installed.
#pragma once

#include <utility>

#include "fastlink/netlink.hpp"

namespace fastlink::core {

struct ApiAccess {
  template <class Api, class... Args>
  static Api make(Args&&... args) {
    return Netlink::make<Api>(std::forward<Args>(args)...);
  }
  /// The Netlink's rtnetlink engine, for the library's reads below RawApi: getLinkView hands out
  /// a view over the reply where the engine received it; StateMirror receives its dumps into its
  /// own store (Engine::dumpRuns with ReceiveMemory). Neither copies a message.
  static Engine& routeEngine(const Netlink& netlink) { return netlink.routeEngine(); }
};

}  // namespace fastlink::core
