// Canonical messages and keys of mirrored objects (see canonical.hpp).
#include "events/canonical.hpp"

#include <arpa/inet.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <bit>
#include <cstddef>
#include <cstring>
#include <span>

#include "core/message.hpp"
#include "rtnl/route_codec.hpp"

namespace fastlink::events {
namespace {

struct Attr {
  uint16_t type;
  std::span<const uint8_t> value;
};

// Calls visit(attr, whole TLV bytes) for each attribute after the family header.
template <class Visit>
void forEachAttr(const nlmsghdr* m, std::size_t familyHeader, Visit&& visit) {
  const auto* base = reinterpret_cast<const uint8_t*>(m);
  std::size_t off = NLMSG_HDRLEN + NLMSG_ALIGN(familyHeader);
  const std::size_t end = m->nlmsg_len;
  while (off + NLA_HDRLEN <= end) {
    nlattr a;
    std::memcpy(&a, base + off, sizeof a);
    if (a.nla_len < NLA_HDRLEN || off + a.nla_len > end) return;  // malformed: stop, keep what came before
    const std::size_t length = a.nla_len, aligned = NLA_ALIGN(length);
    visit(Attr{static_cast<uint16_t>(a.nla_type & NLA_TYPE_MASK),
               {base + off + NLA_HDRLEN, length - static_cast<std::size_t>(NLA_HDRLEN)}},
          std::span<const uint8_t>(base + off, aligned <= end - off ? aligned : length));
    off += aligned;
  }
}

// The family header of `m` (a copy: stored messages need not be aligned for it), std::nullopt
// when the message is too short to hold one.
template <class Header>
std::optional<Header> familyHeader(const nlmsghdr* m) {
  if (m->nlmsg_len < NLMSG_LENGTH(sizeof(Header))) return std::nullopt;
  Header h;
  std::memcpy(&h, NLMSG_DATA(m), sizeof h);
  return h;
}

void putU32be(std::string& s, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) s.push_back(static_cast<char>((v >> shift) & 0xff));
}

// An address padded to 16 bytes, so keys of both families have one layout.
void putAddress(std::string& s, std::span<const uint8_t> bytes) {
  char padded[16] = {};
  if (!bytes.empty()) std::memcpy(padded, bytes.data(), std::min<std::size_t>(bytes.size(), 16));  // an empty span may have no data
  s.append(padded, 16);
}

// A route key's fixed part (at most 69 bytes), built on the stack. Its addresses take their
// family's width (4 or 16 bytes): the family is the key's first byte, so keys of one family
// have one layout, and an IPv4 route's key is 33 bytes instead of 69 (a million of them are
// compared and stored by a sync).
// Writes a key's fixed part where it goes (the key string's own buffer, sized first): no byte
// by byte appends (a size check and a store per byte were a tenth of a sync's own time), no
// copy from a buffer of its own.
struct KeyBytes {
  uint8_t* bytes;
  std::size_t size = 0;  // bytes stored
  // Stored 8 bytes at a time, each word collected in a register first: a dump's keys are read
  // back 8 bytes at a time (keyLess, against the next route's), and a load spanning several
  // smaller stores cannot take their bytes before they reach the cache (store forwarding
  // fails). Written a byte or 4 at a time, that wait was a fifth of a start's quick way.
  uint64_t word = 0;  // the next bytes, the first most significant
  unsigned held = 0;  // (fewer than 8)
  void put8(uint8_t v) { putBe(v, 1); }
  void put32be(uint32_t v) { putBe(v, 4); }
  // Padded to Width (4 or 16).
  template <std::size_t Width>
  void putAddress(std::span<const uint8_t> address) {
    uint8_t padded[Width] = {};
    if (address.size() >= Width) std::memcpy(padded, address.data(), Width);
    else if (!address.empty()) std::memcpy(padded, address.data(), address.size());
    for (std::size_t at = 0; at < Width; at += 4) {
      uint32_t v;
      std::memcpy(&v, padded + at, 4);
      putBe(ntohl(v), 4);
    }
  }
  // The bytes held stored; returns the size written.
  std::size_t finish() {
    for (unsigned i = held; i-- > 0;) bytes[size++] = static_cast<uint8_t>(word >> (8 * i));
    word = held = 0;
    return size;
  }

 private:
  // `n` (1 to 4) bytes: `v`'s low ones, the most significant first.
  void putBe(uint32_t v, unsigned n) {
    if (held + n < 8) {
      word = word << (8 * n) | v;
      held += n;
      return;
    }
    const unsigned first = 8 - held, rest = n - first;  // (held >= 4: no shift by 64)
    uint64_t full = word << (8 * first) | v >> (8 * rest);
    if constexpr (std::endian::native == std::endian::little) full = __builtin_bswap64(full);
    std::memcpy(bytes + size, &full, 8);
    size += 8;
    word = v & ((uint64_t{1} << (8 * rest)) - 1);
    held = rest;
  }
};

// The message rebuilt: header normalised (a notification and a dump of the same object then
// compare equal), the family header as is (with `patch` applied), attributes except `drop`.
// A message whose attributes are well formed to its end, none of them dropped, is copied whole
// (the common case: an IPv4 route carries no cache info; a sync copies a million of them).
template <class Drop>
bool keptWhole(const nlmsghdr* m, std::size_t familyHeader, Drop drop) {
  bool keepsAll = NLMSG_ALIGN(familyHeader) == familyHeader;
  std::size_t walked = NLMSG_HDRLEN + familyHeader;
  forEachAttr(m, familyHeader, [&](const Attr& a, std::span<const uint8_t> tlv) {
    keepsAll = keepsAll && !drop(a.type);
    walked += NLA_ALIGN(tlv.size());
  });
  return keepsAll && walked >= m->nlmsg_len;
}

void normaliseHeader(std::string& out, uint16_t newType) {
  nlmsghdr h{};
  h.nlmsg_len = static_cast<uint32_t>(out.size());
  h.nlmsg_type = newType;
  std::memcpy(out.data(), &h, sizeof h);
}

std::string copyWhole(const nlmsghdr* m, uint16_t newType) {
  std::string out;
  out.reserve(NLMSG_ALIGN(m->nlmsg_len));
  out.assign(reinterpret_cast<const char*>(m), m->nlmsg_len);
  out.resize(NLMSG_ALIGN(out.size()), '\0');
  normaliseHeader(out, newType);
  return out;
}

template <class Drop, class Patch>
std::string rebuild(const nlmsghdr* m, uint16_t newType, std::size_t familyHeader, Drop drop, Patch patch) {
  std::string out;
  if (keptWhole(m, familyHeader, drop)) {
    out = copyWhole(m, newType);
    patch(out.data() + NLMSG_HDRLEN);
  } else {
    out.reserve(NLMSG_ALIGN(m->nlmsg_len));  // at most the message itself: one allocation
    out.resize(NLMSG_HDRLEN + NLMSG_ALIGN(familyHeader), '\0');
    std::memcpy(out.data() + NLMSG_HDRLEN, NLMSG_DATA(m), familyHeader);
    patch(out.data() + NLMSG_HDRLEN);
    // The kept attributes are copied a run at a time (a link's ~50 in a few copies instead of an
    // append and a pad each): within a message every attribute but the last is padded already.
    const uint8_t* run = nullptr;
    std::size_t runLength = 0;
    auto flush = [&] {
      out.append(reinterpret_cast<const char*>(run), runLength);
      out.resize(NLMSG_ALIGN(out.size()), '\0');
      runLength = 0;
    };
    forEachAttr(m, familyHeader, [&](const Attr& a, std::span<const uint8_t> tlv) {
      if (runLength && (drop(a.type) || run + runLength != tlv.data())) flush();
      if (drop(a.type)) return;
      if (!runLength) run = tlv.data();
      runLength += tlv.size();
    });
    if (runLength) flush();
    normaliseHeader(out, newType);
  }
  return out;
}

bool isIp(uint8_t family) { return family == AF_INET || family == AF_INET6; }

// The width of addresses in route keys (see KeyBytes).
std::size_t routeAddressWidth(uint8_t family) { return family == AF_INET ? 4 : 16; }

void linkKeyInto(uint32_t ifindex, std::string& key) {
  key.clear();
  putU32be(key, ifindex);
}

struct AddressFields {
  std::span<const uint8_t> local, address;
};

AddressFields readAddress(const nlmsghdr* m, const ifaddrmsg& ifa) {
  AddressFields f;
  forEachAttr(m, sizeof ifa, [&](const Attr& a, auto) {
    if (a.type == IFA_LOCAL) f.local = a.value;
    if (a.type == IFA_ADDRESS) f.address = a.value;
  });
  return f;
}

void addressKeyInto(const ifaddrmsg& ifa, const AddressFields& f, std::string& key) {
  linkKeyInto(ifa.ifa_index, key);
  key.push_back(static_cast<char>(ifa.ifa_family));
  key.push_back(static_cast<char>(ifa.ifa_prefixlen));
  putAddress(key, f.local.empty() ? f.address : f.local);
  putAddress(key, f.address);
}

void neighKeyInto(const nlmsghdr* m, const ndmsg& ndm, std::string& key) {
  std::span<const uint8_t> dst;
  forEachAttr(m, sizeof ndm, [&](const Attr& a, auto) {
    if (a.type == NDA_DST) dst = a.value;
  });
  linkKeyInto(static_cast<uint32_t>(ndm.ndm_ifindex), key);
  key.push_back(static_cast<char>(ndm.ndm_family));
  putAddress(key, dst);
}

void link(const nlmsghdr* m, Canonical& c) {
  const std::optional<ifinfomsg> header = familyHeader<ifinfomsg>(m);
  if (!header || header->ifi_family != AF_UNSPEC) return;  // bridge / IPv6 per-device parts
  const ifinfomsg& ifi = *header;
  c.valid = true;
  c.kind = ObjectKind::Link;
  c.deleted = m->nlmsg_type == RTM_DELLINK;
  c.ifindex = static_cast<uint32_t>(ifi.ifi_index);
  c.linkFlags = ifi.ifi_flags;
  linkKeyInto(c.ifindex, c.key);
  forEachAttr(m, sizeof ifi, [&](const Attr& a, auto) {
    if (a.type == IFLA_IFNAME && !a.value.empty())
      c.name.assign(reinterpret_cast<const char*>(a.value.data()), strnlen(reinterpret_cast<const char*>(a.value.data()), a.value.size()));
  });
  // Counters change without notifications; IFLA_AF_SPEC holds per-family state (IPv6 cache
  // timestamps) that does too; the others only exist in notifications.
  c.message = rebuild(
      m, RTM_NEWLINK, sizeof ifi,
      [](uint16_t t) {
        return t == IFLA_STATS || t == IFLA_STATS64 || t == IFLA_AF_SPEC || t == IFLA_EVENT || t == IFLA_NEW_NETNSID ||
               t == IFLA_IF_NETNSID || t == IFLA_NEW_IFINDEX;
      },
      [](char* family) { std::memset(family + offsetof(ifinfomsg, ifi_change), 0, sizeof(ifinfomsg::ifi_change)); });
}

void address(const nlmsghdr* m, Canonical& c) {
  const std::optional<ifaddrmsg> header = familyHeader<ifaddrmsg>(m);
  if (!header || !isIp(header->ifa_family)) return;
  const ifaddrmsg& ifa = *header;
  c.valid = true;
  c.kind = ObjectKind::Address;
  c.deleted = m->nlmsg_type == RTM_DELADDR;
  c.ifindex = ifa.ifa_index;
  c.family = ifa.ifa_family;
  AddressFields f = readAddress(m, ifa);
  if (ifa.ifa_family == AF_INET && f.local.size() == 4) std::memcpy(&c.ipv4Address, f.local.data(), 4);
  addressKeyInto(ifa, f, c.key);
  // IFA_CACHEINFO: lifetimes count down and timestamps move without notifications.
  c.message = rebuild(m, RTM_NEWADDR, sizeof ifa, [](uint16_t t) { return t == IFA_CACHEINFO; }, [](char*) {});
}

// RTA_MULTIPATH's bytes with every rtnh_flags byte zeroed, to `out` (the records up to a malformed
// one, as rtnl::forEachNexthop walks them; each record's attributes follow its rtnexthop).
void writePathsWithoutFlags(uint8_t* out, std::span<const uint8_t> multipath) {
  std::memcpy(out, multipath.data(), multipath.size());
  rtnl::forEachNexthop(multipath, [&](const rtnexthop&, std::span<const uint8_t> attrs) {
    out[attrs.data() - multipath.data() - sizeof(rtnexthop) + offsetof(rtnexthop, rtnh_flags)] = 0;
  });
}

// A route's key into `out` (routeKeySize bytes); returns its size. Its first 12 + 2 * Width
// bytes are the route's identity.
// The destination comes before its length: a dump walks each table's trie in address order,
// shorter prefixes of one address first, so a dump of a real table (prefixes of every length
// mixed) arrives in key order and each route goes right after the one before.
template <std::size_t Width>
std::size_t writeRouteKeyAs(const RouteMessage& r, uint8_t* out) {
  // The nexthop tells apart routes the kernel keeps side by side under one identity (IPv6
  // per-device routes such as fe80::/64, IPv4 `ip route append`). Over a nexthop object the
  // id is the nexthop: the paths shown with it follow the object and change in place. A
  // multipath route keeps its key while its paths' flags (linkdown, dead) change; IPv6 has one
  // multipath route per identity (its paths are siblings that come and go), so the paths
  // themselves are not in its key either.
  const bool pathsInKey = !r.nhid && !r.multipath.empty();
  KeyBytes bytes{out};
  bytes.put8(r.header.rtm_family);
  bytes.put32be(r.table);
  bytes.putAddress<Width>(r.dst);
  bytes.put8(r.header.rtm_dst_len);
  bytes.put8(r.header.rtm_tos);
  bytes.put32be(r.priority);
  bytes.put8(r.header.rtm_src_len);
  bytes.putAddress<Width>(r.src);
  bytes.put32be(r.nhid ? 0 : r.oif);
  bytes.put32be(r.nhid);
  if (!r.nhid) bytes.putAddress<Width>(r.gateway);
  if (pathsInKey) bytes.put8('M');
  const std::size_t size = bytes.finish();
  if (!pathsInKey || r.header.rtm_family != AF_INET) return size;
  writePathsWithoutFlags(out + size, r.multipath);
  return size + r.multipath.size();
}

}  // namespace

std::size_t routeKeySize(const RouteMessage& r) {
  const std::size_t width = routeAddressWidth(r.header.rtm_family);
  const bool pathsInKey = !r.nhid && !r.multipath.empty();
  const std::size_t paths = pathsInKey && r.header.rtm_family == AF_INET ? r.multipath.size() : 0;
  return 12 + 2 * width + 8 + (r.nhid ? 0 : width) + (pathsInKey ? 1 : 0) + paths;
}

std::size_t writeRouteKey(const RouteMessage& r, uint8_t* out) {
  return r.header.rtm_family == AF_INET ? writeRouteKeyAs<4>(r, out) : writeRouteKeyAs<16>(r, out);
}

namespace {

void route(const nlmsghdr* m, bool lazily, Canonical& c) {
  RouteMessage r;
  if (!readRouteMessage(m, r)) return;
  c.valid = true;
  c.kind = ObjectKind::Route;
  c.deleted = m->nlmsg_type == RTM_DELROUTE;
  c.replaces = (m->nlmsg_flags & NLM_F_REPLACE) != 0;
  c.identityLength = routeKey(r, c.key);
  c.nexthopId = r.nhid;
  // The routes the kernel makes for an address (proto kernel) go with it announced; only the
  // others' preferred source is of interest (their removal is silent on older kernels).
  c.ipv4Address = r.followedSource();
  rtnl::forEachNexthop(r.multipath, [&](const rtnexthop& path, std::span<const uint8_t>) {
    c.pathDevices.push_back(static_cast<uint32_t>(path.rtnh_ifindex));
  });
  c.table = r.table;
  c.family = r.header.rtm_family;
  c.routeType = r.header.rtm_type;
  c.routeDev = r.device();
  if (lazily && r.keptWhole) c.source = m;
  else c.message = rebuild(m, RTM_NEWROUTE, sizeof(rtmsg), volatileRouteAttribute, [](char*) {});
}

void neighbour(const nlmsghdr* m, Canonical& c) {
  const std::optional<ndmsg> header = familyHeader<ndmsg>(m);
  // fdb entries (AF_BRIDGE) and proxy entries are other tables, not in a plain dump.
  if (!header || !isIp(header->ndm_family) || (header->ndm_flags & NTF_PROXY)) return;
  const ndmsg& ndm = *header;
  // NOARP entries (multicast and broadcast mappings) are created by the kernel without a
  // notification (only their deletion is announced): they cannot be followed, so they are not
  // mirrored (`ip neigh show` hides them too).
  if (ndm.ndm_state & NUD_NOARP) return;
  c.valid = true;
  c.kind = ObjectKind::Neighbour;
  c.deleted = m->nlmsg_type == RTM_DELNEIGH;
  c.ifindex = static_cast<uint32_t>(ndm.ndm_ifindex);
  neighKeyInto(m, ndm, c.key);
  // Cache info (confirmed/used/updated times) and probe counts move without notifications.
  c.message = rebuild(m, RTM_NEWNEIGH, sizeof ndm, [](uint16_t t) { return t == NDA_CACHEINFO || t == NDA_PROBES; },
                      [](char*) {});
}

// `c` as a fresh Canonical, its strings' and vector's memory kept for the next message (field by
// field: assigning Canonical{} and moving the strings back cost a tenth of a sync's own time).
void reset(Canonical& c) {
  static_assert(sizeof(Canonical) == 3 * sizeof(std::string) + sizeof(std::vector<uint32_t>) + 56,
                "a field added to Canonical must be reset here");
  c.valid = c.deleted = c.replaces = false;
  c.kind = ObjectKind::Link;
  // (The key is not cleared: each kind writes it whole, a route's over the last one's bytes
  // when it has the same size; classify clears it when the message is not kept.)
  c.identityLength = 0;
  c.message.clear();
  c.source = nullptr;
  c.ifindex = c.linkFlags = c.routeDev = c.ipv4Address = c.nexthopId = c.table = 0;
  c.name.clear();
  c.pathDevices.clear();
  c.family = c.routeType = 0;
}

void classify(const nlmsghdr* m, bool lazily, Canonical& c) {
  reset(c);
  switch (m->nlmsg_type) {
    case RTM_NEWLINK:
    case RTM_DELLINK: link(m, c); break;
    case RTM_NEWADDR:
    case RTM_DELADDR: address(m, c); break;
    case RTM_NEWROUTE:
    case RTM_DELROUTE: route(m, lazily, c); break;
    case RTM_NEWNEIGH:
    case RTM_DELNEIGH: neighbour(m, c); break;
    default: break;
  }
  if (!c.valid) c.key.clear();
}

}  // namespace

Canonical canonicalize(const nlmsghdr* m) {
  Canonical c;
  classify(m, false, c);
  return c;
}

Canonical canonicalizeLazily(const nlmsghdr* m) {
  Canonical c;
  classify(m, true, c);
  return c;
}

void canonicalizeLazily(const nlmsghdr* m, Canonical& into) { classify(m, true, into); }

std::size_t routeKey(const RouteMessage& r, std::string& key) {
  // (A dump's keys mostly have one size: the string, reused, is not written twice.)
  key.resize(routeKeySize(r));
  writeRouteKey(r, reinterpret_cast<uint8_t*>(key.data()));
  return 12 + 2 * routeAddressWidth(r.header.rtm_family);  // the identity (writeRouteKeyAs)
}

void storedKey(const nlmsghdr* m, std::string& key) {
  key.clear();
  switch (m->nlmsg_type) {
    case RTM_NEWLINK:
      if (const auto ifi = familyHeader<ifinfomsg>(m)) linkKeyInto(static_cast<uint32_t>(ifi->ifi_index), key);
      return;
    case RTM_NEWADDR:
      if (const auto ifa = familyHeader<ifaddrmsg>(m)) addressKeyInto(*ifa, readAddress(m, *ifa), key);
      return;
    case RTM_NEWROUTE: {
      if (RouteMessage r; readRouteMessage(m, r)) routeKey(r, key);
      return;
    }
    case RTM_NEWNEIGH:
      if (const auto ndm = familyHeader<ndmsg>(m)) neighKeyInto(m, *ndm, key);
      return;
    default: return;
  }
}

bool sameStoredForm(const Canonical& c, std::string_view stored) {
  // The stored header's length and type are the canonical ones; its other fields are the
  // mirror's book-keeping (events/object_store.hpp), so only the bytes after it are compared.
  if (!c.source)
    return stored.size() == c.message.size() && stored.size() >= NLMSG_HDRLEN &&
           std::memcmp(stored.data() + NLMSG_HDRLEN, c.message.data() + NLMSG_HDRLEN, stored.size() - NLMSG_HDRLEN) == 0;
  return sameStoredForm(c.source, stored);
}

bool sameStoredForm(const nlmsghdr* source, std::string_view stored) {
  // The stored form of a message kept whole: its bytes after the header, the header normalised
  // (its length is the stored size; the type is the kind's) and zero padding.
  const uint32_t length = source->nlmsg_len;
  return stored.size() == NLMSG_ALIGN(length) &&
         std::memcmp(stored.data() + NLMSG_HDRLEN, reinterpret_cast<const char*>(source) + NLMSG_HDRLEN,
                     length - NLMSG_HDRLEN) == 0;
}

std::size_t storedSize(const Canonical& c) { return c.source ? NLMSG_ALIGN(c.source->nlmsg_len) : c.message.size(); }

void writeStoredForm(const Canonical& c, char* out) {
  if (!c.source) {
    std::memcpy(out, c.message.data(), c.message.size());
    return;
  }
  // As copyWhole: the bytes, zero padding, the header normalised (routes only are kept lazily).
  const uint32_t length = c.source->nlmsg_len;
  std::memcpy(out, c.source, length);
  std::memset(out + length, 0, NLMSG_ALIGN(length) - length);
  nlmsghdr h{};
  h.nlmsg_len = static_cast<uint32_t>(NLMSG_ALIGN(length));
  h.nlmsg_type = RTM_NEWROUTE;
  std::memcpy(out, &h, sizeof h);
}

std::string takeMessage(Canonical& c) {
  if (!c.source) return std::move(c.message);
  std::string out(storedSize(c), '\0');
  writeStoredForm(c, out.data());
  return out;
}

bool setLinkdown(std::span<char> message, bool linkdown) {
  if (message.size() < NLMSG_LENGTH(sizeof(rtmsg))) return false;
  rtmsg rtm;
  std::memcpy(&rtm, message.data() + NLMSG_HDRLEN, sizeof rtm);
  uint32_t flags = linkdown ? (rtm.rtm_flags | RTNH_F_LINKDOWN) : (rtm.rtm_flags & ~RTNH_F_LINKDOWN);
  if (flags == rtm.rtm_flags) return false;
  rtm.rtm_flags = flags;
  std::memcpy(message.data() + NLMSG_HDRLEN, &rtm, sizeof rtm);
  return true;
}

uint32_t linkFlags(const nlmsghdr* m) {
  const std::optional<ifinfomsg> ifi = familyHeader<ifinfomsg>(m);
  return ifi ? ifi->ifi_flags : 0;
}

std::string linkKey(uint32_t ifindex) {
  std::string s;
  putU32be(s, ifindex);
  return s;
}

std::string routeLookupKey(uint32_t table, const Prefix& dst) {
  const uint8_t family = dst.address().isV4() ? AF_INET : AF_INET6;
  std::string s = routeTableKey(family, table);
  // The kernel omits RTA_DST for a default route (/0): the key holds zeros either way.
  std::span<const uint8_t> bytes = dst.address().bytes();
  std::size_t width = routeAddressWidth(family);
  if (dst.length() == 0) s.append(width, '\0');
  else s.append(reinterpret_cast<const char*>(bytes.data()), std::min(bytes.size(), width)).append(width - std::min(bytes.size(), width), '\0');
  s.push_back(static_cast<char>(dst.length()));
  return s;
}

std::string routeTableKey(uint8_t family, uint32_t table) {
  std::string s(1, static_cast<char>(family));
  putU32be(s, table);
  return s;
}

std::string neighKey(uint32_t ifindex, const IpAddress& dst) {
  std::string s = linkKey(ifindex);
  s.push_back(static_cast<char>(dst.isV4() ? AF_INET : AF_INET6));
  putAddress(s, dst.bytes());
  return s;
}

namespace {

template <class Header>
std::vector<uint8_t> dumpOf(uint16_t type, uint32_t extMask = 0) {
  core::MessageWriter w(type, 0);
  w.putHeader<Header>();
  if (extMask) w.putU32(IFLA_EXT_MASK, extMask);
  auto b = w.bytes();
  return {b.begin(), b.end()};
}

}  // namespace

std::vector<uint8_t> dumpRequest(ObjectKind kind) {
  switch (kind) {
    // Counters are not kept: do not fetch them.
    case ObjectKind::Link: return dumpOf<ifinfomsg>(RTM_GETLINK, RTEXT_FILTER_SKIP_STATS);
    case ObjectKind::Address: return dumpOf<ifaddrmsg>(RTM_GETADDR);
    case ObjectKind::Route: return dumpOf<rtmsg>(RTM_GETROUTE);
    case ObjectKind::Neighbour: return dumpOf<ndmsg>(RTM_GETNEIGH);
    default: return {};
  }
}

}  // namespace fastlink::events
