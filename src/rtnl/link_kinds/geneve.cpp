// geneve: a UDP overlay (RFC 8926), IFLA_GENEVE_*. The kernel reports the remote as
// IFLA_GENEVE_REMOTE or IFLA_GENEVE_REMOTE6, the port and flow label in network byte order.
#include <arpa/inet.h>
#include <linux/if_link.h>

#include "fastlink/link_kinds/geneve.hpp"
#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {
namespace {

Error invalid(const std::string& why) { return Error::invalidArgument("geneve", why); }

bool hasData(const LinkInfo& link) { return link.kindOptions<GeneveInfo>() != nullptr; }

void encodeData(core::MessageWriter& w, const LinkInfo& link, KeepAlive&) {
  const GeneveInfo& g = *link.kindOptions<GeneveInfo>();
  if (g.vni) {
    if (*g.vni >= (1u << 24)) throw invalid("vni must be below 16777216");
    w.putU32(IFLA_GENEVE_ID, *g.vni);
  }
  if (g.remote) {
    if (g.remote->isMulticast()) throw invalid("remote must be a unicast address");
    w.putBytes(g.remote->isV4() ? IFLA_GENEVE_REMOTE : IFLA_GENEVE_REMOTE6, g.remote->bytes());
  }
  if (g.flowLabel) {
    if (*g.flowLabel >= (1u << 20)) throw invalid("flow label must be below 1048576");
    w.putU32(IFLA_GENEVE_LABEL, htonl(*g.flowLabel));
  }
  putOption(w, IFLA_GENEVE_TTL, g.ttl);
  // The kernel reads IFLA_GENEVE_TTL only without IFLA_GENEVE_TTL_INHERIT, so "not inherited"
  // goes without it when a ttl is given (a decoded link carries both).
  if (g.ttlInherit && (*g.ttlInherit || !g.ttl)) w.putU8(IFLA_GENEVE_TTL_INHERIT, *g.ttlInherit ? 1 : 0);
  putOption(w, IFLA_GENEVE_TOS, g.tos);
  if (g.df) {
    if (static_cast<uint8_t>(*g.df) > GENEVE_DF_MAX) throw invalid("unknown df mode");
    w.putU8(IFLA_GENEVE_DF, static_cast<uint8_t>(*g.df));
  }
  if (g.dstPort) w.putBe16(IFLA_GENEVE_PORT, *g.dstPort);
  if (g.external && *g.external) {
    if (g.vni || g.remote) throw invalid("external (collect metadata) takes neither id nor remote");
    w.putFlag(IFLA_GENEVE_COLLECT_METADATA);
  }
  putOption(w, IFLA_GENEVE_UDP_CSUM, g.udpCsum);
  putOption(w, IFLA_GENEVE_UDP_ZERO_CSUM6_TX, g.udp6ZeroCsumTx);
  putOption(w, IFLA_GENEVE_UDP_ZERO_CSUM6_RX, g.udp6ZeroCsumRx);
}

void decodeData(const nlattr* data, LinkInfo& link) {
  KindAttrs d(data, IFLA_GENEVE_MAX);
  GeneveInfo g;
  d.read(IFLA_GENEVE_ID, g.vni);
  d.address(IFLA_GENEVE_REMOTE, 4, g.remote);
  d.address(IFLA_GENEVE_REMOTE6, 16, g.remote);
  d.read(IFLA_GENEVE_TTL, g.ttl);
  d.read(IFLA_GENEVE_TTL_INHERIT, g.ttlInherit);
  d.read(IFLA_GENEVE_TOS, g.tos);
  d.read(IFLA_GENEVE_DF, g.df);
  if (auto* a = d.take(IFLA_GENEVE_LABEL)) g.flowLabel = ntohl(core::readU32(a));
  d.readBe16(IFLA_GENEVE_PORT, g.dstPort);
  if (d.take(IFLA_GENEVE_COLLECT_METADATA)) g.external = true;
  d.read(IFLA_GENEVE_UDP_CSUM, g.udpCsum);
  d.read(IFLA_GENEVE_UDP_ZERO_CSUM6_TX, g.udp6ZeroCsumTx);
  d.read(IFLA_GENEVE_UDP_ZERO_CSUM6_RX, g.udp6ZeroCsumRx);
  d.keepRest(link);
  link.setKindOptions(g);
}

}  // namespace

const LinkKindCodec kGeneveKind{.kind = "geneve", .options = "geneve", .optionsType = &typeid(GeneveInfo),
                                .hasData = hasData, .encodeData = encodeData, .decodeData = decodeData};

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(geneve, &kGeneveKind)
