// Hand-laid family headers for address, route and nexthop golden tests (on top of golden.hpp).
//   rtmsg    = family:u8 dst_len:u8 src_len:u8 tos:u8 table:u8 protocol:u8 scope:u8 type:u8 flags:u32
//   ifaddrmsg = family:u8 prefixlen:u8 flags:u8 scope:u8 index:u32
//   nhmsg    = family:u8 scope:u8 protocol:u8 resvd:u8 flags:u32
//   rtnexthop = len:u16 flags:u8 hops:u8 ifindex:s32, then attributes
#pragma once

#include <initializer_list>

#include "unit/golden.hpp"

namespace fastlink::test {

struct Rtmsg {
  uint8_t family = 0, dstLen = 0, srcLen = 0, tos = 0, table = 0, protocol = 0, scope = 0, type = 0;
  uint32_t flags = 0;
  Bytes bytes() const {
    Bytes b = {family, dstLen, srcLen, tos, table, protocol, scope, type};
    appendLe32(b, flags);
    return b;
  }
};

struct Ifaddrmsg {
  uint8_t family = 0, prefixlen = 0, flags = 0, scope = 0;
  uint32_t index = 0;
  Bytes bytes() const {
    Bytes b = {family, prefixlen, flags, scope};
    appendLe32(b, index);
    return b;
  }
};

struct Nhmsg {
  uint8_t family = 0, scope = 0, protocol = 0;
  uint32_t flags = 0;
  Bytes bytes() const {
    Bytes b = {family, scope, protocol, 0};
    appendLe32(b, flags);
    return b;
  }
};

/// Header + attributes as one message.
template <class Header>
Bytes familyMessage(uint16_t type, uint16_t flags, const Header& header, const Attrs& attrs = {}, uint32_t seq = 0,
                    uint32_t pid = 0) {
  Bytes payload = header.bytes();
  payload.insert(payload.end(), attrs.bytes().begin(), attrs.bytes().end());
  return netlinkMessage(type, flags, payload, seq, pid);
}

/// One rtnexthop of an RTA_MULTIPATH payload.
inline Bytes rtnexthop(uint8_t flags, uint8_t hops, int32_t ifindex, const Attrs& attrs = {}) {
  Bytes b;
  appendLe16(b, static_cast<uint16_t>(8 + attrs.size()));
  b.push_back(flags);
  b.push_back(hops);
  appendLe32(b, static_cast<uint32_t>(ifindex));
  b.insert(b.end(), attrs.bytes().begin(), attrs.bytes().end());
  return b;
}

inline Bytes concat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

inline Bytes v4(uint8_t a, uint8_t b, uint8_t c, uint8_t d) { return {a, b, c, d}; }

}  // namespace fastlink::test
