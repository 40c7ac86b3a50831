// The backends behind WireGuardApi, shaped like wireguard-tools' ipc layer: list, get, set.
// One is the kernel module (generic netlink, src/wg/wireguard_codec.*), the other the UAPI
// socket of a userspace implementation (wireguard-go). WireGuardApi picks one per device.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "fastlink/wireguard.hpp"

namespace fastlink::wg {

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::vector<std::string> list() = 0;
  virtual WgDevice get(const std::string& name) = 0;
  virtual void set(const WgDevice& change) = 0;
};

/// The UAPI (cross-platform userspace API) over DIR/NAME.sock.
class UapiBackend final : public Backend {
 public:
  /// `silence`: how long the daemon may neither answer nor use CPU before a request fails
  /// (see exchange()); tests shorten it.
  explicit UapiBackend(std::string directory, std::chrono::milliseconds silence = std::chrono::seconds(10))
      : directory_(std::move(directory)), silence_(silence) {}
  /// True when DIR/NAME.sock is a socket that accepts a connection (what wg checks).
  bool has(const std::string& name) const;
  std::vector<std::string> list() override;
  WgDevice get(const std::string& name) override;
  void set(const WgDevice& change) override;

 private:
  std::string socketPath(const std::string& name) const;
  /// Sends `request` and returns the reply up to and including its terminating blank line.
  std::string exchange(const std::string& name, const std::string& request, const std::string& operation) const;

  std::string directory_;
  std::chrono::milliseconds silence_;
};

// The protocol as pure functions (unit-tested without a socket).

/// "set=1\n" + key=value lines + "\n" for a change (keys in hex).
std::string uapiSetRequest(const WgDevice& change);
/// Parses a "get=1" reply into a device named `name`. Throws fastlink::Error with the reply's
/// errno when it is not 0, or Errc::malformed_reply; `operation` names what failed.
WgDevice uapiParseGet(std::string_view reply, const std::string& name, const std::string& operation);
/// The errno=N of a reply (throws Errc::malformed_reply when there is none).
int uapiErrno(std::string_view reply, const std::string& operation);

}  // namespace fastlink::wg
