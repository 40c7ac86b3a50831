// The potential router list (PRL) of an ISATAP tunnel (a sit device in mode isatap, RFC 5214):
// the IPv4 addresses of the routers it may send router solicitations to, each marked default or
// not, as `ip tunnel prl` changes them. The kernel offers this list only through the sit
// driver's private ioctls (SIOCADDPRL, SIOCCHGPRL, SIOCDELPRL, SIOCGETPRL), no netlink message;
// they are made on the Netlink's rtnetlink socket, so they act in its namespace.
//
//   fastlink::IPrlApi& prl = nl.potentialRouters();
//   prl.add("isatap0", fastlink::IpAddress::parse("192.0.2.1"), true);   // prl-default
//   for (const fastlink::PotentialRouter& r : prl.list("isatap0")) ...  // r.address, r.isDefault
//   prl.remove("isatap0", fastlink::IpAddress::parse("192.0.2.1"));     // prl-delete
//
// A refused call throws fastlink::Error with the errno the driver returned and the request in
// ip's words ("ip tunnel prl prl-default 192.0.2.1 dev isatap0"): EEXIST for an address already
// listed, ENXIO for one that is not, EINVAL on the fallback device sit0 or for 0.0.0.0,
// EOPNOTSUPP on a device that is not a sit tunnel, ENODEV for a missing one.
#pragma once

#include <cstdint>
#include <vector>

#include "fastlink/types.hpp"

namespace fastlink {

namespace core {
class Engine;
}

/// One router of the list (struct ip_tunnel_prl).
struct PotentialRouter {
  IpAddress address;       ///< IPv4
  bool isDefault = false;  ///< PRL_DEFAULT: a default router (prl-default), else prl-nodefault
  friend bool operator==(const PotentialRouter&, const PotentialRouter&) = default;
};

/// The operations, mockable. `device` is a sit device's name or ifindex.
class IPrlApi {
 public:
  virtual ~IPrlApi() = default;
  /// Adds a router (SIOCADDPRL): EEXIST when it is listed already.
  /// Equivalent to: ip tunnel prl prl-default|prl-nodefault ADDR dev DEV
  virtual void add(const Ifref& device, const IpAddress& router, bool isDefault) = 0;
  /// Changes a listed router's default flag (SIOCCHGPRL): ENXIO when it is not listed.
  /// (ip has no word for it: its prl-default on a listed address fails with EEXIST.)
  virtual void change(const Ifref& device, const IpAddress& router, bool isDefault) = 0;
  /// Removes a router (SIOCDELPRL), or every router for 0.0.0.0: ENXIO when it is not listed.
  /// Equivalent to: ip tunnel prl prl-delete ADDR dev DEV
  virtual void remove(const Ifref& device, const IpAddress& router) = 0;
  /// The list, in the kernel's order (newest first) (SIOCGETPRL). ip has no command that shows it.
  virtual std::vector<PotentialRouter> list(const Ifref& device) = 0;
};

/// The PRL ioctls on the Netlink's rtnetlink socket; obtain it from Netlink::potentialRouters().
class PrlApi final : public IPrlApi {
 public:
  void add(const Ifref& device, const IpAddress& router, bool isDefault) override;
  void change(const Ifref& device, const IpAddress& router, bool isDefault) override;
  void remove(const Ifref& device, const IpAddress& router) override;
  std::vector<PotentialRouter> list(const Ifref& device) override;

 private:
  friend class Netlink;  // built by its accessor on Netlink, the one way in
  explicit PrlApi(core::Engine& engine) : engine_(engine) {}
  core::Engine& engine_;
};

}  // namespace fastlink
