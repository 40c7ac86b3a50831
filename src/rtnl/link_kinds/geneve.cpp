// geneve: a UDP overlay (RFC 8926), IFLA_GENEVE_*. The kernel reports the remote as
// IFLA_GENEVE_REMOTE or IFLA_GENEVE_REMOTE6, the port and flow label in network byte order.
#include <arpa/inet.h>
#include <linux/if_link.h>

#include "fastlink/link_kinds/geneve.hpp"
#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {
namespace {

Error invalid(const std::string& why) { return Error::invalidArgument("geneve", why); }

// The kernel reads IFLA_GENEVE_TTL only without IFLA_GENEVE_TTL_INHERIT, so "not inherited"
// goes without it when a ttl is given (a decoded link carries both).
void putTtlInherit(core::MessageWriter& w, const AttrField<GeneveInfo>&, const GeneveInfo& g) {
  if (g.ttlInherit && (*g.ttlInherit || !g.ttl)) w.putU8(IFLA_GENEVE_TTL_INHERIT, *g.ttlInherit ? 1 : 0);
}

constexpr FieldTable kFields({
    field<IFLA_GENEVE_ID, &GeneveInfo::vni>(),
    addressField<IFLA_GENEVE_REMOTE, &GeneveInfo::remote, 4>(),
    addressField<IFLA_GENEVE_REMOTE6, &GeneveInfo::remote, 16>(),
    be32Field<IFLA_GENEVE_LABEL, &GeneveInfo::flowLabel>(),
    field<IFLA_GENEVE_TTL, &GeneveInfo::ttl>(),
    AttrField<GeneveInfo>{IFLA_GENEVE_TTL_INHERIT, putTtlInherit, field<IFLA_GENEVE_TTL_INHERIT, &GeneveInfo::ttlInherit>().get},
    field<IFLA_GENEVE_TOS, &GeneveInfo::tos>(),
    field<IFLA_GENEVE_DF, &GeneveInfo::df>(),
    field<IFLA_GENEVE_PORT, &GeneveInfo::dstPort, Wire::Be16>(),
    field<IFLA_GENEVE_COLLECT_METADATA, &GeneveInfo::external, Wire::Flag>(),
    field<IFLA_GENEVE_UDP_CSUM, &GeneveInfo::udpCsum>(),
    field<IFLA_GENEVE_UDP_ZERO_CSUM6_TX, &GeneveInfo::udp6ZeroCsumTx>(),
    field<IFLA_GENEVE_UDP_ZERO_CSUM6_RX, &GeneveInfo::udp6ZeroCsumRx>(),
});

void check(const GeneveInfo& g) {
  if (g.vni && *g.vni >= (1u << 24)) throw invalid("vni must be below 16777216");
  if (g.remote && g.remote->isMulticast()) throw invalid("remote must be a unicast address");
  if (g.flowLabel && *g.flowLabel >= (1u << 20)) throw invalid("flow label must be below 1048576");
  if (g.df && static_cast<uint8_t>(*g.df) > GENEVE_DF_MAX) throw invalid("unknown df mode");
  if (g.external == true && (g.vni || g.remote)) throw invalid("external (collect metadata) takes neither id nor remote");
}

void encodeData(core::MessageWriter& w, const LinkInfo& link, KeepAlive&) {
  const GeneveInfo& g = *link.kindOptions<GeneveInfo>();
  check(g);
  kFields.encode(w, g);
}

}  // namespace

constexpr LinkKindCodec kGeneveKind = slotKind<GeneveInfo>("geneve", "geneve", encodeData, decodeSlot<kFields>);

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(geneve, &kGeneveKind)
