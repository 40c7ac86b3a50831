#include "rtnl/addr_codec.hpp"

#include <sys/socket.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>

#include <cstring>

#include "rtnl/codec_helpers.hpp"

namespace fastlink::rtnl {
namespace {

uint8_t familyOf(IpAddress::Family f) { return f == IpAddress::Family::v4 ? AF_INET : AF_INET6; }

// iproute2's default_scope(): loopback addresses are host scope, IPv6 link-local link scope.
Scope defaultScope(const IpAddress& a) {
  auto b = a.bytes();
  if (a.isV4()) return b[0] == 127 ? Scope::Host : Scope::Universe;
  static const uint8_t kLoopback[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  if (std::memcmp(b.data(), kLoopback, 16) == 0) return Scope::Host;
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) return Scope::Link;
  return Scope::Universe;
}

std::string describe(const char* verb, const AddrInfo& a) {
  std::string s = std::string("address ") + verb + " " + (a.address ? a.address->toStringWithLength() : "?");
  if (a.dev) s += " dev " + (a.dev->isName() ? a.dev->name() : std::to_string(a.dev->index()));
  return s;
}

}  // namespace

Request encodeAddr(const AddrInfo& a, AddrVerb verb) {
  static const char* const kVerbs[] = {"add", "replace", "del"};
  std::string operation = describe(kVerbs[static_cast<int>(verb)], a);
  auto bad = [&](const std::string& why) { return Error::invalidArgument(operation, why); };
  if (!a.address) throw bad("an address is required (ADDR/LEN)");
  if (!a.dev) throw bad("a device is required (dev D)");
  const Prefix& p = *a.address;
  bool del = verb == AddrVerb::Del;
  if (a.peer && a.peer->family() != p.family()) throw bad("peer " + a.peer->toString() + " is of another family");
  if (a.broadcast && !p.isV4()) throw bad("broadcast addresses exist only for IPv4");
  if (a.broadcast && !a.broadcast->isV4()) throw bad("broadcast " + a.broadcast->toString() + " is not IPv4");
  if (a.label && !p.isV4()) throw bad("labels exist only for IPv4 addresses");
  if (a.label && (a.label->empty() || a.label->size() > 15)) throw bad("a label has 1-15 characters");
  uint32_t valid = a.validLifetime.value_or(kLifetimeForever);
  uint32_t preferred = a.preferredLifetime.value_or(kLifetimeForever);
  bool lifetimes = !del && (a.validLifetime || a.preferredLifetime);
  if (lifetimes && valid == 0) throw bad("valid_lft is zero");
  if (lifetimes && preferred > valid) throw bad("preferred_lft is greater than valid_lft");

  uint16_t flags = verb == AddrVerb::Add ? NLM_F_CREATE | NLM_F_EXCL : verb == AddrVerb::Replace ? NLM_F_CREATE | NLM_F_REPLACE : 0;
  core::MessageWriter w(del ? RTM_DELADDR : RTM_NEWADDR, flags);
  auto& ifa = w.putHeader<ifaddrmsg>();
  ifa.ifa_family = familyOf(p.family());
  ifa.ifa_prefixlen = p.length();
  uint32_t addrFlags = a.flags.value_or(0);
  ifa.ifa_flags = del ? 0 : static_cast<uint8_t>(addrFlags & 0xff);
  ifa.ifa_scope = static_cast<uint8_t>(a.scope.value_or(del ? Scope::Universe : defaultScope(p.address())));
  ifa.ifa_index = requireIndex(*a.dev, "dev");
  w.putBytes(IFA_LOCAL, p.address().bytes());
  w.putBytes(IFA_ADDRESS, a.peer ? a.peer->bytes() : p.address().bytes());
  if (a.broadcast) w.putBytes(IFA_BROADCAST, a.broadcast->bytes());
  if (a.label) w.putString(IFA_LABEL, *a.label);
  if (lifetimes) {
    ifa_cacheinfo ci{};
    ci.ifa_prefered = preferred;
    ci.ifa_valid = valid;
    w.putBytes(IFA_CACHEINFO, {reinterpret_cast<const uint8_t*>(&ci), sizeof ci});
  }
  if (a.flags && !del) w.putU32(IFA_FLAGS, addrFlags);
  return w.toRequest(std::move(operation));
}

void encodeAddrDump(core::MessageWriter& w, const AddrFilter& filter, uint32_t ifindex) {
  auto& ifa = w.putHeader<ifaddrmsg>();
  ifa.ifa_family = filter.family ? familyOf(*filter.family) : AF_UNSPEC;
  ifa.ifa_index = ifindex;
}

bool isIpAddr(const nlmsghdr* m) {
  const auto* ifa = core::messageHeader<ifaddrmsg>(m);
  return m->nlmsg_type == RTM_NEWADDR && ifa && (ifa->ifa_family == AF_INET || ifa->ifa_family == AF_INET6);
}

AddrInfo decodeAddr(const nlmsghdr* m) {
  const auto* ifa = core::messageHeader<ifaddrmsg>(m);
  if (!ifa) throw Error(make_error_code(Errc::malformed_reply), "decode address", "short address message");
  std::size_t width = ifa->ifa_family == AF_INET ? 4 : 16;
  auto addr = [&](const nlattr* at) {
    auto b = core::readBytes(at);
    if (b.size() < width) throw Error(make_error_code(Errc::malformed_reply), "decode address", "address attribute too short");
    return IpAddress::fromBytes(b.first(width));
  };
  AddrInfo a;
  a.dev = Ifref(ifa->ifa_index);
  a.scope = static_cast<Scope>(ifa->ifa_scope);
  a.flags = ifa->ifa_flags;
  std::optional<IpAddress> local, address;
  core::AttrTable t = core::AttrTable::ofMessage(m, sizeof(ifaddrmsg), IFA_MAX);
  for (const nlattr* at : t.all()) {
    switch (core::attrType(at)) {
      case IFA_LOCAL: local = addr(at); break;
      case IFA_ADDRESS: address = addr(at); break;
      case IFA_BROADCAST: a.broadcast = addr(at); break;
      case IFA_ANYCAST: a.anycast = addr(at); break;
      case IFA_LABEL: a.label = core::readString(at); break;
      case IFA_FLAGS: a.flags = core::readU32(at); break;
      case IFA_CACHEINFO: {
        ifa_cacheinfo ci{};
        auto b = core::readBytes(at);
        std::memcpy(&ci, b.data(), std::min(b.size(), sizeof ci));
        a.preferredLifetime = ci.ifa_prefered;
        a.validLifetime = ci.ifa_valid;
        break;
      }
      default: a.unknown.append(core::attrType(at), core::readBytes(at));
    }
  }
  // IFA_LOCAL is the interface's address; IFA_ADDRESS is the peer when it differs from it.
  if (local) {
    a.address = Prefix(*local, ifa->ifa_prefixlen);
    if (address && !(*address == *local)) a.peer = address;
  } else if (address) {
    a.address = Prefix(*address, ifa->ifa_prefixlen);
  }
  return a;
}

bool addrMatches(const AddrInfo& a, const AddrFilter& f, uint32_t ifindex) {
  if (ifindex && a.devIndex() != ifindex) return false;
  if (f.family && (!a.address || a.address->family() != *f.family)) return false;
  if (f.scope && a.scope != f.scope) return false;
  if (f.label && a.label != f.label) return false;
  return true;
}

}  // namespace fastlink::rtnl
