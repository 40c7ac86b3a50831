// gre and gretap: GRE over IPv4 (IFLA_GRE_*). Keys, flags and the flag bits are in network
// byte order on the wire; a key is only meaningful with GRE_KEY in its direction's flags.
#include <arpa/inet.h>
#include <linux/if_link.h>
#include <linux/if_tunnel.h>

#include "fastlink/link_kinds/gre.hpp"
#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {
namespace {

// The GRE header flag bits, host order (if_tunnel.h defines them already swapped).
const uint16_t kFlagCsum = ntohs(GRE_CSUM);
const uint16_t kFlagKey = ntohs(GRE_KEY);
const uint16_t kFlagSeq = ntohs(GRE_SEQ);

uint16_t flags(const std::optional<uint32_t>& key, const std::optional<bool>& csum, const std::optional<bool>& seq) {
  return static_cast<uint16_t>((key ? kFlagKey : 0) | (csum.value_or(false) ? kFlagCsum : 0) | (seq.value_or(false) ? kFlagSeq : 0));
}

// The flags and keys are written by the table and read by decodeData (a key means something
// only with GRE_KEY in its direction's flags, which may come after it).
void putIflags(core::MessageWriter& w, const AttrField<GreInfo>&, const GreInfo& g) {
  if (g.ikey || g.icsum || g.iseq) w.putBe16(IFLA_GRE_IFLAGS, flags(g.ikey, g.icsum, g.iseq));
}
void putOflags(core::MessageWriter& w, const AttrField<GreInfo>&, const GreInfo& g) {
  if (g.okey || g.ocsum || g.oseq) w.putBe16(IFLA_GRE_OFLAGS, flags(g.okey, g.ocsum, g.oseq));
}
void putIkey(core::MessageWriter& w, const AttrField<GreInfo>&, const GreInfo& g) {
  if (g.ikey) w.putU32(IFLA_GRE_IKEY, htonl(*g.ikey));
}
void putOkey(core::MessageWriter& w, const AttrField<GreInfo>&, const GreInfo& g) {
  if (g.okey) w.putU32(IFLA_GRE_OKEY, htonl(*g.okey));
}

constexpr TunnelAttrs kAttrs{IFLA_GRE_LINK, IFLA_GRE_LOCAL, IFLA_GRE_REMOTE, IFLA_GRE_TTL, IFLA_GRE_TOS, IFLA_GRE_PMTUDISC};
constexpr auto kFields = tunnelFields<GreInfo, kAttrs>(
    "gre dev", std::array{AttrField<GreInfo>{IFLA_GRE_IFLAGS, putIflags}, AttrField<GreInfo>{IFLA_GRE_OFLAGS, putOflags},
                          AttrField<GreInfo>{IFLA_GRE_IKEY, putIkey}, AttrField<GreInfo>{IFLA_GRE_OKEY, putOkey}});

void encodeData(core::MessageWriter& w, const LinkInfo& link, KeepAlive&) {
  const GreInfo& g = *link.kindOptions<GreInfo>();
  checkIpv4Endpoints(g, "gre", " must be an IPv4 address (ip6gre is another kind)");
  kFields.encode(w, g);
}

void decodeData(const nlattr* data, LinkInfo& link) {
  GreInfo g;
  std::optional<uint16_t> iflags, oflags;
  std::optional<uint32_t> ikey, okey;
  auto flagsAndKeys = [&](const nlattr* a) {
    switch (core::attrType(a)) {
      case IFLA_GRE_IFLAGS: return (iflags = core::readBe16(a), true);
      case IFLA_GRE_OFLAGS: return (oflags = core::readBe16(a), true);
      case IFLA_GRE_IKEY: return (ikey = ntohl(core::readU32(a)), true);
      case IFLA_GRE_OKEY: return (okey = ntohl(core::readU32(a)), true);
      default: return false;
    }
  };
  kFields.decodeAll(core::nestPayload(data), g, kKindContext, flagsAndKeys, link.unknownKindData);
  if (iflags) g.icsum = (*iflags & kFlagCsum) != 0, g.iseq = (*iflags & kFlagSeq) != 0;
  if (oflags) g.ocsum = (*oflags & kFlagCsum) != 0, g.oseq = (*oflags & kFlagSeq) != 0;
  // The kernel always reports both keys (0 without GRE_KEY); only a flagged key is a key.
  if (ikey && iflags.value_or(0) & kFlagKey) g.ikey = ikey;
  if (okey && oflags.value_or(0) & kFlagKey) g.okey = okey;
  link.setKindOptions(g);
}

}  // namespace

const LinkKindCodec kGreKind{.kind = "gre", .options = "gre", .optionsType = &typeid(GreInfo), .hasData = slotHas<GreInfo>,
                             .encodeData = encodeData, .decodeData = decodeData, .deviceRefs = slotDeviceRef<GreInfo>};
const LinkKindCodec kGretapKind{.kind = "gretap", .options = "gre", .optionsType = &typeid(GreInfo), .hasData = slotHas<GreInfo>,
                                .encodeData = encodeData, .decodeData = decodeData, .deviceRefs = slotDeviceRef<GreInfo>};

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(gre, &kGreKind, &kGretapKind)
