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

bool hasData(const LinkInfo& link) { return link.kindOptions<GreInfo>() != nullptr; }

void putEndpoint(core::MessageWriter& w, uint16_t type, const IpAddress& ip, const char* what) {
  if (!ip.isV4()) throw Error::invalidArgument("gre", std::string(what) + " must be an IPv4 address (ip6gre is another kind)");
  w.putBytes(type, ip.bytes());
}

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
  if (g.local) putEndpoint(w, IFLA_GRE_LOCAL, *g.local, "local");
  if (g.remote) putEndpoint(w, IFLA_GRE_REMOTE, *g.remote, "remote");
  if (g.ttl) w.putU8(IFLA_GRE_TTL, *g.ttl);
  if (g.tos) w.putU8(IFLA_GRE_TOS, *g.tos);
  if (g.pmtudisc) w.putU8(IFLA_GRE_PMTUDISC, *g.pmtudisc ? 1 : 0);
}

void decodeData(const nlattr* data, LinkInfo& link) {
  core::AttrTable t = core::AttrTable::ofNest(data, IFLA_GRE_MAX);
  GreInfo g;
  std::vector<uint16_t> known;
  auto take = [&](uint16_t type) {
    const nlattr* a = t.get(type);
    if (a) known.push_back(type);
    return a;
  };
  auto endpoint = [&](uint16_t type) -> std::optional<IpAddress> {
    const nlattr* a = t.get(type);
    if (!a || core::readBytes(a).size() != 4) return std::nullopt;
    known.push_back(type);
    return IpAddress::fromBytes(core::readBytes(a));
  };
  if (auto* a = take(IFLA_GRE_LINK); a && core::readU32(a) != 0) g.dev = Ifref(core::readU32(a));
  uint16_t iflags = 0, oflags = 0;
  if (auto* a = take(IFLA_GRE_IFLAGS)) iflags = core::readBe16(a), g.icsum = (iflags & kFlagCsum) != 0, g.iseq = (iflags & kFlagSeq) != 0;
  if (auto* a = take(IFLA_GRE_OFLAGS)) oflags = core::readBe16(a), g.ocsum = (oflags & kFlagCsum) != 0, g.oseq = (oflags & kFlagSeq) != 0;
  // The kernel always reports both keys (0 without GRE_KEY); only a flagged key is a key.
  if (auto* a = take(IFLA_GRE_IKEY); a && (iflags & kFlagKey)) g.ikey = ntohl(core::readU32(a));
  if (auto* a = take(IFLA_GRE_OKEY); a && (oflags & kFlagKey)) g.okey = ntohl(core::readU32(a));
  if (auto ip = endpoint(IFLA_GRE_LOCAL)) g.local = ip;
  if (auto ip = endpoint(IFLA_GRE_REMOTE)) g.remote = ip;
  if (auto* a = take(IFLA_GRE_TTL)) g.ttl = core::readU8(a);
  if (auto* a = take(IFLA_GRE_TOS)) g.tos = core::readU8(a);
  if (auto* a = take(IFLA_GRE_PMTUDISC)) g.pmtudisc = core::readU8(a) != 0;
  keepUnknown(t, known, link.unknownKindData);
  link.setKindOptions(g);
}

std::vector<Ifref*> deviceRefs(LinkInfo& link) {
  auto* g = link.kindOptions<GreInfo>();
  if (g && g->dev) return {&*g->dev};
  return {};
}

}  // namespace

const LinkKindCodec kGreKind{.kind = "gre", .options = "gre", .optionsType = &typeid(GreInfo), .hasData = hasData,
                             .encodeData = encodeData, .decodeData = decodeData, .deviceRefs = deviceRefs};
const LinkKindCodec kGretapKind{.kind = "gretap", .options = "gre", .optionsType = &typeid(GreInfo), .hasData = hasData,
                                .encodeData = encodeData, .decodeData = decodeData, .deviceRefs = deviceRefs};

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(gre, &kGreKind, &kGretapKind)
