// Addresses: the codec (AddrInfo <-> RTM_NEWADDR/RTM_DELADDR/RTM_GETADDR), the request
// builders, and the kernel-backed AddrApi over the kit.
#include <sys/socket.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>

#include <cstring>

#include "fastlink/addr.hpp"
#include "fastlink/addr_view.hpp"
#include "fastlink/netlink.hpp"
#include "rtnl/addr_codec.hpp"
#include "core/api_access.hpp"
#include "core/attr_fields.hpp"
#include "rtnl/codec_helpers.hpp"
#include "rtnl/kit.hpp"
#include "rtnl/view_fields.hpp"

namespace fastlink::rtnl {
namespace {

// iproute2's default_scope(): loopback addresses are host scope, IPv6 link-local link scope.
Scope defaultScope(const IpAddress& a) {
  auto b = a.bytes();
  if (a.isV4()) return b[0] == 127 ? Scope::Host : Scope::Universe;
  static const uint8_t kLoopback[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  if (std::memcmp(b.data(), kLoopback, 16) == 0) return Scope::Host;
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) return Scope::Link;
  return Scope::Universe;
}

// The simple attributes; IFA_FLAGS is sent only by hand (never on a delete).
constexpr FieldTable kFields({
    field<IFA_BROADCAST, &AddrInfo::broadcast>(),
    field<IFA_LABEL, &AddrInfo::label>(),
    field<IFA_RT_PRIORITY, &AddrInfo::metric>(),
    field<IFA_ANYCAST, &AddrInfo::anycast, Wire::Reported>(),
    field<IFA_FLAGS, &AddrInfo::flags, Wire::Reported>(),
});

std::string describe(Verb verb, const AddrInfo& a) {
  std::string s = std::string("address ") + verbWord(verb) + " " + (a.address ? a.address->toStringWithLength() : "?");
  return a.dev ? s + " dev " + devWord(*a.dev) : s;
}

}  // namespace

Request encodeAddr(const AddrInfo& a, Verb verb) {
  auto bad = [&](const std::string& why) { return invalid(describe(verb, a), why); };
  if (!a.address) throw bad("an address is required (ADDR/LEN)");
  if (!a.dev) throw bad("a device is required (dev D)");
  const Prefix& p = *a.address;
  bool del = verb == Verb::Del;
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

  core::MessageWriter w(messageType(verb, RTM_NEWADDR), createFlags(verb));
  auto& ifa = w.putHeader<ifaddrmsg>();
  ifa.ifa_family = familyOf(p.family());
  ifa.ifa_prefixlen = p.length();
  uint32_t addrFlags = a.flags.value_or(0);
  ifa.ifa_flags = del ? 0 : static_cast<uint8_t>(addrFlags & 0xff);
  ifa.ifa_scope = static_cast<uint8_t>(a.scope.value_or(del ? Scope::Universe : defaultScope(p.address())));
  ifa.ifa_index = requireIndex(*a.dev, "dev");
  w.putBytes(IFA_LOCAL, p.address().bytes());
  w.putBytes(IFA_ADDRESS, a.peer ? a.peer->bytes() : p.address().bytes());
  kFields.encode(w, a);
  if (lifetimes) putStruct(w, IFA_CACHEINFO, ifa_cacheinfo{preferred, valid, 0, 0});
  if (a.flags && !del) w.putU32(IFA_FLAGS, addrFlags);
  return w.toRequest(lazily(verb, a, describe));
}

void encodeAddrDump(core::MessageWriter& w, const AddrFilter& filter, uint32_t ifindex) {
  auto& ifa = w.putHeader<ifaddrmsg>();
  ifa.ifa_family = filter.family ? familyOf(*filter.family) : AF_UNSPEC;
  ifa.ifa_index = ifindex;
}

namespace {
FieldContext addrContext(uint8_t family) { return {"decode address", family == AF_INET ? 4u : 16u}; }

// IFA_LOCAL is the interface's address; IFA_ADDRESS is the peer when it differs from it.
std::optional<Prefix> addressOf(const std::optional<IpAddress>& local, const std::optional<IpAddress>& address,
                                uint8_t length) {
  if (local) return Prefix(*local, length);
  if (address) return Prefix(*address, length);
  return std::nullopt;
}
std::optional<IpAddress> peerOf(const std::optional<IpAddress>& local, const std::optional<IpAddress>& address) {
  return local && address && !(*address == *local) ? address : std::nullopt;
}
}  // namespace

AddrInfo decodeAddr(const nlmsghdr* m) {
  const auto& ifa = headerOf<ifaddrmsg>(m, "address");
  FieldContext context = addrContext(ifa.ifa_family);
  auto addr = [&](const nlattr* at) { return readAddress(at, context.addressWidth, context.what); };
  AddrInfo a;
  a.dev = Ifref(ifa.ifa_index);
  a.scope = static_cast<Scope>(ifa.ifa_scope);
  a.flags = ifa.ifa_flags;
  std::optional<IpAddress> local, address;
  kFields.decodeAll(attrsOf(m, sizeof(ifaddrmsg)), a, context, [&](const nlattr* at) {
    switch (core::attrType(at)) {
      case IFA_LOCAL: local = addr(at); return true;
      case IFA_ADDRESS: address = addr(at); return true;
      case IFA_CACHEINFO: {
        auto ci = readStruct<ifa_cacheinfo>(at);
        a.preferredLifetime = ci.ifa_prefered, a.validLifetime = ci.ifa_valid;
        return true;
      }
    }
    return false;
  });
  a.address = addressOf(local, address, ifa.ifa_prefixlen);
  a.peer = peerOf(local, address);
  return a;
}

}  // namespace fastlink::rtnl

namespace fastlink {

// AddrView (fastlink/addr_view.hpp): the address's FieldTable rows read with the decoder's
// reader; IFA_LOCAL/IFA_ADDRESS and IFA_CACHEINFO with decodeAddr's rules.
AddrView::AddrView(std::span<const uint8_t> message)
    : attrs_(rtnl::checkedView<ifaddrmsg>(message, "decode address", "address"), sizeof(ifaddrmsg)) {}

namespace {
const ifaddrmsg& ifaOf(const AddrView& v) { return rtnl::viewHeader<ifaddrmsg>(v.message()); }

std::optional<IpAddress> viewAddress(const detail::AttrIndex<AddrView::kIndexedTypes>& attrs, uint16_t type,
                                     uint8_t family) {
  const auto* a = reinterpret_cast<const nlattr*>(attrs.find(type));
  if (!a) return std::nullopt;
  rtnl::FieldContext context = rtnl::addrContext(family);
  return rtnl::readAddress(a, context.addressWidth, context.what);
}

std::optional<uint32_t> cacheinfoField(const detail::AttrIndex<AddrView::kIndexedTypes>& attrs, uint32_t ifa_cacheinfo::*field) {
  const auto* a = reinterpret_cast<const nlattr*>(attrs.find(IFA_CACHEINFO));
  return a ? std::optional<uint32_t>(rtnl::readStruct<ifa_cacheinfo>(a).*field) : std::nullopt;
}
}  // namespace

template <auto kMember>
auto AddrView::read() const {
  return rtnl::viewField<rtnl::kFields, kMember>(attrs_, rtnl::addrContext(ifaOf(*this).ifa_family));
}

uint32_t AddrView::devIndex() const { return ifaOf(*this).ifa_index; }
Scope AddrView::scope() const { return static_cast<Scope>(ifaOf(*this).ifa_scope); }
uint32_t AddrView::flags() const { return read<&AddrInfo::flags>().value_or(ifaOf(*this).ifa_flags); }

std::optional<Prefix> AddrView::address() const {
  const ifaddrmsg& ifa = ifaOf(*this);
  return rtnl::addressOf(viewAddress(attrs_, IFA_LOCAL, ifa.ifa_family), viewAddress(attrs_, IFA_ADDRESS, ifa.ifa_family),
                         ifa.ifa_prefixlen);
}

std::optional<IpAddress> AddrView::peer() const {
  uint8_t family = ifaOf(*this).ifa_family;
  return rtnl::peerOf(viewAddress(attrs_, IFA_LOCAL, family), viewAddress(attrs_, IFA_ADDRESS, family));
}

std::optional<IpAddress> AddrView::broadcast() const { return read<&AddrInfo::broadcast>(); }
std::optional<std::string_view> AddrView::label() const { return read<&AddrInfo::label>(); }
std::optional<uint32_t> AddrView::metric() const { return read<&AddrInfo::metric>(); }
std::optional<IpAddress> AddrView::anycast() const { return read<&AddrInfo::anycast>(); }

std::optional<uint32_t> AddrView::validLifetime() const { return cacheinfoField(attrs_, &ifa_cacheinfo::ifa_valid); }
std::optional<uint32_t> AddrView::preferredLifetime() const { return cacheinfoField(attrs_, &ifa_cacheinfo::ifa_prefered); }

AddrInfo AddrView::toInfo() const { return rtnl::decodeAddr(reinterpret_cast<const nlmsghdr*>(message().data())); }

namespace {

struct Traits : rtnl::Object<AddrInfo, AddrFilter, RTM_NEWADDR, rtnl::kIpFamilies> {
  static constexpr const char* kNoun = "address";
  static void encodeDump(core::MessageWriter& w, const Filter& f, const rtnl::Indexes& ix) { rtnl::encodeAddrDump(w, f, ix.dev); }
  static void decode(const nlmsghdr* m, Info& out, const Filter&) { out = rtnl::decodeAddr(m); }
  static bool matches(const Info& a, const Filter& f, const rtnl::Indexes& ix) {
    return (!ix.dev || a.devIndex() == ix.dev) && (!f.family || (a.address && a.address->family() == *f.family)) &&
           (!f.scope || a.scope == f.scope) && (!f.label || a.label == f.label);
  }
  using View = AddrView;
  static bool matchesView(const AddrView& a, const Filter& f, const rtnl::Indexes& ix) {
    if ((ix.dev && a.devIndex() != ix.dev) || (f.scope && a.scope() != f.scope)) return false;
    if (f.family) {
      auto address = a.address();
      if (!address || address->family() != *f.family) return false;
    }
    return !f.label || a.label() == std::string_view(*f.label);
  }
};

}  // namespace

AddrApi& Netlink::addresses() { return lazy(addresses_); }

Request AddrRequests::add(const AddrInfo& addr) { return rtnl::encodeAddr(addr, rtnl::Verb::Add); }
Request AddrRequests::replace(const AddrInfo& addr) { return rtnl::encodeAddr(addr, rtnl::Verb::Replace); }
Request AddrRequests::del(const AddrInfo& addr) { return rtnl::encodeAddr(addr, rtnl::Verb::Del); }

const AddrInfo& AddrApi::checkLabel(const AddrInfo& addr) {
  if (addr.dev && addr.label) {
    // iproute2's rule: a label starts with the device's name ("v0:web" on v0).
    std::string name = addr.dev->isName() ? addr.dev->name() : core::ApiAccess::make<LinkApi>(engine_).get(*addr.dev).name.value_or("");
    if (addr.label->compare(0, name.size(), name) != 0)
      throw Error::invalidArgument("address", "label \"" + *addr.label + "\" must begin with the device name \"" + name + "\"");
  }
  return addr;
}

void AddrApi::add(const AddrInfo& addr) { rtnl::apply<Traits>(engine_, checkLabel(addr), AddrRequests::add); }
void AddrApi::replace(const AddrInfo& addr) { rtnl::apply<Traits>(engine_, checkLabel(addr), AddrRequests::replace); }
void AddrApi::del(const AddrInfo& addr) { rtnl::apply<Traits>(engine_, checkLabel(addr), AddrRequests::del); }

FASTLINK_RTNL_LIST_API(AddrApi, Traits)
FASTLINK_RTNL_VIEW_API(AddrApi, Traits, forEachAddr, addresses)

std::size_t AddrApi::flush(const AddrFilter& filter) {
  auto key = [](const AddrInfo& a) {
    AddrInfo k(*a.address, *a.dev);
    if (a.peer) k.setPeer(*a.peer);
    return std::optional(k);
  };
  // Deleting a primary IPv4 address also deletes its secondaries: those are gone already.
  return rtnl::flush<Traits>(engine_, filter, key, AddrRequests::del, {std::errc::address_not_available});
}

}  // namespace fastlink
