// An object read whole by one dump (addrlabel, mroute, ntable, token, nsid, stats: objects the
// kit's filtered list does not serve): every reply of the object's message type decoded, the list
// started over when the kernel restarts an interrupted dump.
#pragma once

#include <linux/netlink.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "core/engine.hpp"
#include "fastlink/error.hpp"
#include "fastlink/request.hpp"

namespace fastlink::rtnl {

/// A fixed struct attribute (ndt_stats, rta_mfc_stats) copied out (its payload is only 4-byte
/// aligned); one shorter than the struct is a malformed reply of `operation`, saying `why`.
template <class T>
T readWhole(const nlattr* a, const char* operation, const char* why) {
  auto bytes = core::readBytes(a);
  if (bytes.size() < sizeof(T)) throw Error(make_error_code(Errc::malformed_reply), operation, why);
  T v;
  std::memcpy(&v, bytes.data(), sizeof v);
  return v;
}

/// `keep`, when given, also passes over replies of the type that are not the object's.
template <class Info>
std::vector<Info> dumpAll(core::Engine& engine, const Request& request, uint16_t type, Info (*decode)(const nlmsghdr*),
                          bool (*keep)(const nlmsghdr*) = nullptr) {
  std::vector<Info> out;
  engine.dump(
      request.bytes(), request.operation(),
      [&](const nlmsghdr* m) {
        if (m->nlmsg_type == type && (!keep || keep(m))) out.push_back(decode(m));
      },
      [&] { out.clear(); });
  return out;
}

}  // namespace fastlink::rtnl
