// The names ip prints for numbers (scopes, routing tables, route protocols and types, device
// groups, link types), and ip's global options that change what is printed: -N[umeric] prints
// the numbers themselves (lib/rt_names.c's `numeric`), -r[esolve] prints host names for the
// addresses ip resolves (lib/utils.c's format_host), -M and -B (-family mpls|bridge) ask for
// families fastlink does not model. They are process-wide in ip (globals read by every printer,
// the monitor's included); so they are here, set once by main before a command runs (a field of
// GlobalOptions would recompile every CLI source for three listings).
#pragma once

#include <linux/rtnetlink.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "fastlink/netlink.hpp"
#include "fastlink/prefix.hpp"
#include "fastlink/raw.hpp"
#include "fastlink/route.hpp"

namespace fastlink::cli {

/// -M / -family mpls, -B / -family bridge: main lets them reach `link show` (which ignores
/// them, as ip's does), `address show|flush` and `route show|flush` (nothing of fastlink's is of
/// those families) and `rule show` (the kernel refuses the family), and refuses them otherwise.
enum class OtherFamily { None, Mpls, Bridge };

struct IpNameOptions {
  bool numeric = false;  ///< -N[umeric]
  bool resolve = false;  ///< -r[esolve]
  OtherFamily family = OtherFamily::None;
};
inline IpNameOptions ipNameOptions;

/// ip's rtnl_rtscope_n2a: "global", "link", ... or the number (-N: always the number).
inline std::string ipScopeName(Scope scope) {
  return ipNameOptions.numeric ? std::to_string(static_cast<unsigned>(scope)) : scopeName(scope);
}
/// rtnl_rttable_n2a: rt_tables' name ("main", "local") or the number.
inline std::string ipTableName(uint32_t table) {
  return ipNameOptions.numeric ? std::to_string(table) : RouteNames::system().tableName(table);
}
/// rtnl_rtprot_n2a: rt_protos' name ("kernel", "static") or the number.
inline std::string ipProtocolName(RouteProtocol protocol) {
  return ipNameOptions.numeric ? std::to_string(static_cast<unsigned>(protocol))
                               : RouteNames::system().protocolName(protocol);
}
/// rtnl_rtntype_n2a: "local", "broadcast", ... or the number.
inline std::string ipRouteTypeName(RouteType type) {
  return ipNameOptions.numeric ? std::to_string(static_cast<unsigned>(type)) : routeTypeName(type);
}
/// rtnl_group_n2a: group 0 is "default" (the only name fastlink knows), else the number.
inline std::string ipGroupName(uint32_t group) {
  return group == 0 && !ipNameOptions.numeric ? std::string("default") : std::to_string(group);
}

/// -r: the host name of `address` as ip's resolve_address finds it (the resolver's reverse
/// lookup: /etc/hosts, then DNS, as nsswitch.conf says), else the address as text. Without -r
/// the address as text.
inline std::string ipHostName(const IpAddress& address) {
  if (ipNameOptions.resolve) {
    char host[NI_MAXHOST];
    sockaddr_storage ss{};
    socklen_t length = 0;
    if (address.isV4()) {
      auto* sin = reinterpret_cast<sockaddr_in*>(&ss);
      sin->sin_family = AF_INET;
      std::memcpy(&sin->sin_addr, address.bytes().data(), 4);
      length = sizeof(sockaddr_in);
    } else {
      auto* sin6 = reinterpret_cast<sockaddr_in6*>(&ss);
      sin6->sin6_family = AF_INET6;
      std::memcpy(&sin6->sin6_addr, address.bytes().data(), 16);
      length = sizeof(sockaddr_in6);
    }
    if (getnameinfo(reinterpret_cast<const sockaddr*>(&ss), length, host, sizeof(host), nullptr, 0, NI_NAMEREQD) == 0)
      return host;
  }
  return address.toString();
}

/// -M, -B: how many messages of that family a dump of `type`
/// (RTM_GETROUTE, RTM_GETRULE) in that family returns, as ip's dump with preferred_family set
/// would print them.
/// fastlink decodes none of them: its callers print nothing for none and refuse otherwise. A
/// kernel error (a family it has no rules for: EAFNOSUPPORT) is thrown as fastlink::Error.
inline std::size_t otherFamilyDumpSize(Netlink& nl, uint16_t type) {
  RawMessage request;
  request.type = type;
  request.header.assign(sizeof(rtmsg), 0);  // rtmsg and fib_rule_hdr: the family first, 12 bytes
  const uint8_t af = ipNameOptions.family == OtherFamily::Mpls ? AF_MPLS : AF_BRIDGE;
  request.header[0] = af;
  std::size_t n = 0;
  // A family without a handler of its own falls back to the kernel's dump of every family
  // (rtnl_dump_all): ip keeps only the messages of its family, so does this count.
  nl.raw().dump(
      request, [&](const RawMessage& m) { n += !m.header.empty() && m.header[0] == af; }, "dump", std::nullopt,
      [&] { n = 0; });
  return n;
}

/// -M or -B was given.
inline bool isOtherFamily() { return ipNameOptions.family != OtherFamily::None; }
/// "MPLS" or "bridge".
inline const char* otherFamilyName() { return ipNameOptions.family == OtherFamily::Mpls ? "MPLS" : "bridge"; }

}  // namespace fastlink::cli
