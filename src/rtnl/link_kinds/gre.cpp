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

constexpr TunnelAttrTypes kTypes{IFLA_GRE_LOCAL, IFLA_GRE_REMOTE, IFLA_GRE_TTL, IFLA_GRE_TOS, IFLA_GRE_PMTUDISC, "gre",
                                 " must be an IPv4 address (ip6gre is another kind)"};

uint16_t flags(const std::optional<uint32_t>& key, const std::optional<bool>& csum, const std::optional<bool>& seq) {
  return static_cast<uint16_t>((key ? kFlagKey : 0) | (csum.value_or(false) ? kFlagCsum : 0) | (seq.value_or(false) ? kFlagSeq : 0));
}

void encodeData(core::MessageWriter& w, const LinkInfo& link, KeepAlive&) {
  const GreInfo& g = *link.kindOptions<GreInfo>();
  if (g.dev) w.putU32(IFLA_GRE_LINK, requireIndex(*g.dev, "gre dev"));
  if (g.ikey || g.icsum || g.iseq) w.putBe16(IFLA_GRE_IFLAGS, flags(g.ikey, g.icsum, g.iseq));
  if (g.okey || g.ocsum || g.oseq) w.putBe16(IFLA_GRE_OFLAGS, flags(g.okey, g.ocsum, g.oseq));
  if (g.ikey) w.putU32(IFLA_GRE_IKEY, htonl(*g.ikey));
  if (g.okey) w.putU32(IFLA_GRE_OKEY, htonl(*g.okey));
  encodeTunnel(w, g, kTypes);
}

void decodeData(const nlattr* data, LinkInfo& link) {
  KindAttrs d(data, IFLA_GRE_MAX);
  GreInfo g;
  d.device(IFLA_GRE_LINK, g.dev);
  uint16_t iflags = 0, oflags = 0;
  if (auto* a = d.take(IFLA_GRE_IFLAGS)) iflags = core::readBe16(a), g.icsum = (iflags & kFlagCsum) != 0, g.iseq = (iflags & kFlagSeq) != 0;
  if (auto* a = d.take(IFLA_GRE_OFLAGS)) oflags = core::readBe16(a), g.ocsum = (oflags & kFlagCsum) != 0, g.oseq = (oflags & kFlagSeq) != 0;
  // The kernel always reports both keys (0 without GRE_KEY); only a flagged key is a key.
  if (auto* a = d.take(IFLA_GRE_IKEY); a && (iflags & kFlagKey)) g.ikey = ntohl(core::readU32(a));
  if (auto* a = d.take(IFLA_GRE_OKEY); a && (oflags & kFlagKey)) g.okey = ntohl(core::readU32(a));
  decodeTunnel(d, g, kTypes);
  d.keepRest(link);
  link.setKindOptions(g);
}

}  // namespace

const LinkKindCodec kGreKind{.kind = "gre", .options = "gre", .optionsType = &typeid(GreInfo), .hasData = slotHas<GreInfo>,
                             .encodeData = encodeData, .decodeData = decodeData, .deviceRefs = slotDeviceRef<GreInfo>};
const LinkKindCodec kGretapKind{.kind = "gretap", .options = "gre", .optionsType = &typeid(GreInfo), .hasData = slotHas<GreInfo>,
                                .encodeData = encodeData, .decodeData = decodeData, .deviceRefs = slotDeviceRef<GreInfo>};

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(gre, &kGreKind, &kGretapKind)
