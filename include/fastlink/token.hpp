// IPv6 interface identifier tokens (IFLA_INET6_TOKEN): the fixed lower 64 bits a device gives
// the addresses it makes from router advertisements, as `ip token` lists, sets and deletes them.
//
//   fastlink::ITokenApi& tokens = nl.tokens();
//   for (const fastlink::TokenInfo& t : tokens.list()) ...   // t.ifindex, t.token
//   tokens.set(ifindex, fastlink::IpAddress::parse("::1a"));  // accept_ra must be on
//   tokens.clear(ifindex);                                    // back to ::
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "fastlink/request.hpp"
#include "fastlink/types.hpp"

namespace fastlink {

/// One device's IPv6 record as the AF_INET6 link dump reports it, reduced to the token.
struct TokenInfo {
  uint32_t ifindex = 0;
  uint32_t flags = 0;               ///< the device's IFF_* flags (ip skips loopback and NOARP ones)
  std::optional<IpAddress> token{};  ///< none: the kernel reported no token (no IPv6 token support)

  friend bool operator==(const TokenInfo&, const TokenInfo&) = default;
};

/// Builds token requests without sending them (golden tests, batches).
struct TokenRequests {
  /// RTM_SETLINK (family AF_INET6) with IFLA_AF_SPEC { AF_INET6 { IFLA_INET6_TOKEN } }; the
  /// kernel keeps the lower 64 bits. Throws Error(EINVAL) for an IPv4 address.
  /// Equivalent to: ip token set TOKEN dev DEV
  static Request set(uint32_t ifindex, const IpAddress& token);
  /// RTM_GETLINK of the AF_INET6 family (send it as a dump): every device's IPv6 record.
  /// Equivalent to: ip token list
  static Request list();
};

/// Decodes one RTM_NEWLINK message of the AF_INET6 family. Throws Error(Errc::malformed_reply)
/// when it is shorter than ifinfomsg or the token is shorter than 16 bytes.
TokenInfo decodeToken(const nlmsghdr* message);

/// The operations, mockable.
class ITokenApi {
 public:
  virtual ~ITokenApi() = default;
  /// Every device's token (loopback and NOARP devices included: `flags` tells them).
  /// Equivalent to: ip token list (which leaves out loopback and NOARP devices)
  virtual std::vector<TokenInfo> list() = 0;
  /// Equivalent to: ip token set TOKEN dev DEV
  virtual void set(uint32_t ifindex, const IpAddress& token) = 0;
  /// Sets the token back to :: (none).
  /// Equivalent to: ip token del dev DEV
  virtual void clear(uint32_t ifindex) = 0;
};

/// The tokens of the Netlink's namespace, over its rtnetlink socket.
class TokenApi final : public ITokenApi {
 public:
  std::vector<TokenInfo> list() override;
  void set(uint32_t ifindex, const IpAddress& token) override;
  void clear(uint32_t ifindex) override;

 private:
  friend class Netlink;  // built by its accessor on Netlink, the one way in
  explicit TokenApi(core::Engine& engine) : engine_(engine) {}
  core::Engine& engine_;
};

}  // namespace fastlink
