// MPTCP endpoints and limits of the kernel's path manager over the `mptcp_pm` generic netlink
// family (Linux 5.7+): the addresses MPTCP connections announce or open subflows from, and how
// many of each a connection may use; what `ip mptcp endpoint` and `ip mptcp limits` show and set.
//
//   fastlink::IMptcpApi& mptcp = nl.mptcp();
//   for (const fastlink::MptcpEndpoint& e : mptcp.endpoints()) ...   // e.address, e.id, e.flags
//   mptcp.addEndpoint({.address = fastlink::IpAddress::parse("10.0.0.1"), .flags = fastlink::kMptcpSubflow});
//   fastlink::MptcpLimits l = mptcp.limits();                          // l.subflows, l.addAddrAccepted
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "fastlink/genl.hpp"
#include "fastlink/request.hpp"
#include "fastlink/types.hpp"

namespace fastlink {

/// Endpoint flags (MPTCP_PM_ADDR_FLAG_*), the words `ip mptcp endpoint` uses for them.
inline constexpr uint32_t kMptcpSignal = 1u << 0;    ///< `signal`: announced to the peer (ADD_ADDR)
inline constexpr uint32_t kMptcpSubflow = 1u << 1;   ///< `subflow`: subflows are opened from it
inline constexpr uint32_t kMptcpBackup = 1u << 2;    ///< `backup`: its subflows are backups
inline constexpr uint32_t kMptcpFullmesh = 1u << 3;  ///< `fullmesh`: a subflow to every peer address
inline constexpr uint32_t kMptcpImplicit = 1u << 4;  ///< `implicit`: made by the kernel, not configured

/// One endpoint of the in-kernel path manager.
struct MptcpEndpoint {
  IpAddress address;
  uint8_t id = 0;                  ///< 1-255; 0 in addEndpoint: the kernel picks the next free id
  std::optional<uint16_t> port{};  ///< `port NR` (signal endpoints: a listener on that port)
  uint32_t flags = 0;              ///< kMptcp* bits
  std::optional<int32_t> ifindex{};  ///< `dev NAME`: subflows from it leave through that device

  friend bool operator==(const MptcpEndpoint&, const MptcpEndpoint&) = default;
};

/// How many additional subflows a connection may open, and how many addresses announced by the
/// peer it accepts. Unset fields: not reported (reading) or left as they are (setting).
struct MptcpLimits {
  std::optional<uint32_t> addAddrAccepted{};  ///< `add_addr_accepted N`
  std::optional<uint32_t> subflows{};         ///< `subflows N`

  friend bool operator==(const MptcpLimits&, const MptcpLimits&) = default;
};

/// Builds mptcp_pm requests without sending them (golden tests, batches): pure encoding for a
/// resolved family (MptcpApi::family()).
struct MptcpRequests {
  /// Equivalent to: ip mptcp endpoint show (send it as a dump)
  static Request listEndpoints(const GenlFamily& family);
  /// Equivalent to: ip mptcp endpoint show id ID
  static Request getEndpoint(const GenlFamily& family, uint8_t id);
  /// Equivalent to: ip mptcp endpoint add ADDRESS [ dev NAME ] [ id ID ] [ port NR ] [ FLAG-LIST ]
  /// (the device as an ifindex). Throws Error(EINVAL) for flags beyond the known ones.
  static Request addEndpoint(const GenlFamily& family, const MptcpEndpoint& endpoint);
  /// Equivalent to: ip mptcp endpoint delete id ID
  static Request deleteEndpoint(const GenlFamily& family, uint8_t id);
  /// Equivalent to: ip mptcp endpoint flush
  static Request flushEndpoints(const GenlFamily& family);
  /// Equivalent to: ip mptcp limits show
  static Request getLimits(const GenlFamily& family);
  /// Equivalent to: ip mptcp limits set [ subflows N ] [ add_addr_accepted N ]. Throws
  /// Error(EINVAL) when neither is given.
  static Request setLimits(const GenlFamily& family, const MptcpLimits& limits);
};

/// The path manager's endpoints and limits, as an interface so that users can mock them.
class IMptcpApi {
 public:
  virtual ~IMptcpApi() = default;
  /// Every endpoint, in the kernel's order (by id). Equivalent to: ip mptcp endpoint show
  virtual std::vector<MptcpEndpoint> endpoints() = 0;
  /// One endpoint; Error(ENOENT) with the kernel's "address not found" when there is none.
  /// Equivalent to: ip mptcp endpoint show id ID
  virtual MptcpEndpoint endpoint(uint8_t id) = 0;
  /// Equivalent to: ip mptcp endpoint add ...
  virtual void addEndpoint(const MptcpEndpoint& endpoint) = 0;
  /// Equivalent to: ip mptcp endpoint delete id ID
  virtual void deleteEndpoint(uint8_t id) = 0;
  /// Removes every endpoint. Equivalent to: ip mptcp endpoint flush
  virtual void flushEndpoints() = 0;
  /// Equivalent to: ip mptcp limits show
  virtual MptcpLimits limits() = 0;
  /// Equivalent to: ip mptcp limits set ...
  virtual void setLimits(const MptcpLimits& limits) = 0;
};

/// The mptcp_pm family over a Netlink's generic netlink socket: `nl.mptcp()`. A kernel without
/// MPTCP is Error(EOPNOTSUPP) "this kernel has no mptcp_pm generic netlink family (Linux 5.7+)".
class MptcpApi final : public IMptcpApi, public GenlFamilyApi {
 public:
  std::vector<MptcpEndpoint> endpoints() override;
  MptcpEndpoint endpoint(uint8_t id) override;
  void addEndpoint(const MptcpEndpoint& endpoint) override;
  void deleteEndpoint(uint8_t id) override;
  void flushEndpoints() override;
  MptcpLimits limits() override;
  void setLimits(const MptcpLimits& limits) override;

 private:
  friend class Netlink;  // built by its accessor on Netlink, the one way in
  MptcpApi(GenlApi& families, core::Engine& engine);
};

}  // namespace fastlink
