// GRE's keys and flag bits (IFLA_GRE_IFLAGS/OFLAGS/IKEY/OKEY), shared by the kinds whose options
// carry them (gre and gretap over IPv4, ip6gre and ip6gretap over IPv6): the same attributes in
// the same attribute space. Keys and flags are in network byte order on the wire; a key means
// something only with GRE_KEY in its direction's flags, which may come after it.
#pragma once

#include <arpa/inet.h>
#include <linux/if_link.h>
#include <linux/if_tunnel.h>

#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl::gre {

// The GRE header flag bits, host order (if_tunnel.h defines them already swapped).
inline const uint16_t kFlagCsum = ntohs(GRE_CSUM);
inline const uint16_t kFlagKey = ntohs(GRE_KEY);
inline const uint16_t kFlagSeq = ntohs(GRE_SEQ);

inline uint16_t flags(const std::optional<uint32_t>& key, const std::optional<bool>& csum, const std::optional<bool>& seq) {
  return static_cast<uint16_t>((key ? kFlagKey : 0) | (csum.value_or(false) ? kFlagCsum : 0) | (seq.value_or(false) ? kFlagSeq : 0));
}

// The rows write the flags and keys; decoding them is `KeyReader`'s (see the file comment).
/// A direction's flags: written when it has a key, checksums or sequence numbers.
template <class Info, uint16_t kType, auto kKey, auto kCsum, auto kSeq>
void putFlags(core::MessageWriter& w, const AttrField<Info>&, const Info& g) {
  if (g.*kKey || g.*kCsum || g.*kSeq) w.putBe16(kType, flags(g.*kKey, g.*kCsum, g.*kSeq));
}

/// The four rows, in iproute2's order (after IFLA_GRE_LINK); a key is written as be32Field writes.
template <class Info>
constexpr AttrField<Info> kIflagsRow{IFLA_GRE_IFLAGS, putFlags<Info, IFLA_GRE_IFLAGS, &Info::ikey, &Info::icsum, &Info::iseq>};
template <class Info>
constexpr AttrField<Info> kOflagsRow{IFLA_GRE_OFLAGS, putFlags<Info, IFLA_GRE_OFLAGS, &Info::okey, &Info::ocsum, &Info::oseq>};
template <class Info>
constexpr AttrField<Info> kIkeyRow{IFLA_GRE_IKEY, be32Field<IFLA_GRE_IKEY, &Info::ikey>().put};
template <class Info>
constexpr AttrField<Info> kOkeyRow{IFLA_GRE_OKEY, be32Field<IFLA_GRE_OKEY, &Info::okey>().put};

/// Collects the flags and keys while the table decodes the rest (its `other` hook), then sets
/// them on the options.
struct KeyReader {
  std::optional<uint16_t> iflags, oflags;
  std::optional<uint32_t> ikey, okey;

  bool operator()(const nlattr* a) {
    switch (core::attrType(a)) {
      case IFLA_GRE_IFLAGS: return (iflags = core::readBe16(a), true);
      case IFLA_GRE_OFLAGS: return (oflags = core::readBe16(a), true);
      case IFLA_GRE_IKEY: return (ikey = ntohl(core::readU32(a)), true);
      case IFLA_GRE_OKEY: return (okey = ntohl(core::readU32(a)), true);
      default: return false;
    }
  }

  template <class Info>
  void apply(Info& g) const {
    if (iflags) g.icsum = (*iflags & kFlagCsum) != 0, g.iseq = (*iflags & kFlagSeq) != 0;
    if (oflags) g.ocsum = (*oflags & kFlagCsum) != 0, g.oseq = (*oflags & kFlagSeq) != 0;
    // The kernel always reports both keys (0 without GRE_KEY); only a flagged key is a key.
    if (ikey && iflags.value_or(0) & kFlagKey) g.ikey = ikey;
    if (okey && oflags.value_or(0) & kFlagKey) g.okey = okey;
  }
};

/// A GRE kind's options (gre/gretap, ip6gre/ip6gretap): the table's rows, then the keys and
/// flags the rows leave to KeyReader; what neither knows stays in `rest`.
template <class Info, class Fields>
Info decodeWithKeys(const nlattr* data, const Fields& fields, RawAttributes& rest) {
  Info g;
  KeyReader keys;
  fields.decodeAll(core::nestPayload(data), g, kKindContext, keys, rest);
  keys.apply(g);
  return g;
}

}  // namespace fastlink::rtnl::gre
