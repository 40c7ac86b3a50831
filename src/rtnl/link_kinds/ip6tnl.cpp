// ip6tnl (IFLA_IPTUN_*) and ip6gre, ip6gretap (IFLA_GRE_*, keys: rtnl/gre_keys.hpp): tunnels
// over IPv6, one options struct (Ip6TunnelInfo), one table per attribute space. What the kernel
// also reports (fwmark, encapsulation, collect_metadata) stays in unknownKindData.
#include <linux/if_link.h>
#include <linux/if_tunnel.h>

#include "fastlink/error.hpp"
#include "fastlink/link_kinds/ip6tnl.hpp"
#include "rtnl/gre_keys.hpp"
#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {
namespace {

constexpr FieldTable kTnlFields({
    field<IFLA_IPTUN_LINK, &Ip6TunnelInfo::dev, Wire::Device>("ip6tnl dev"),
    addressField<IFLA_IPTUN_LOCAL, &Ip6TunnelInfo::local, 16>(),
    addressField<IFLA_IPTUN_REMOTE, &Ip6TunnelInfo::remote, 16>(),
    field<IFLA_IPTUN_TTL, &Ip6TunnelInfo::hoplimit>(),
    field<IFLA_IPTUN_ENCAP_LIMIT, &Ip6TunnelInfo::encapLimit>(),
    be32Field<IFLA_IPTUN_FLOWINFO, &Ip6TunnelInfo::flowinfo>(),
    field<IFLA_IPTUN_FLAGS, &Ip6TunnelInfo::flags>(),
    field<IFLA_IPTUN_PROTO, &Ip6TunnelInfo::proto>(),
});

constexpr FieldTable kGreFields({
    field<IFLA_GRE_LINK, &Ip6TunnelInfo::dev, Wire::Device>("ip6gre dev"),
    gre::kIflagsRow<Ip6TunnelInfo>,
    gre::kOflagsRow<Ip6TunnelInfo>,
    gre::kIkeyRow<Ip6TunnelInfo>,
    gre::kOkeyRow<Ip6TunnelInfo>,
    addressField<IFLA_GRE_LOCAL, &Ip6TunnelInfo::local, 16>(),
    addressField<IFLA_GRE_REMOTE, &Ip6TunnelInfo::remote, 16>(),
    field<IFLA_GRE_TTL, &Ip6TunnelInfo::hoplimit>(),
    field<IFLA_GRE_ENCAP_LIMIT, &Ip6TunnelInfo::encapLimit>(),
    be32Field<IFLA_GRE_FLOWINFO, &Ip6TunnelInfo::flowinfo>(),
    field<IFLA_GRE_FLAGS, &Ip6TunnelInfo::flags>(),
});

void checkIpv6Endpoints(const Ip6TunnelInfo& o, const char* kind) {
  for (auto [ip, what] : {std::pair{&o.local, "local"}, std::pair{&o.remote, "remote"}})
    if (*ip && (*ip)->isV4()) throw Error::invalidArgument(kind, what + std::string(" must be an IPv6 address"));
}

void encodeTnl(core::MessageWriter& w, const LinkInfo& link, KeepAlive&) {
  const Ip6TunnelInfo& o = *link.kindOptions<Ip6TunnelInfo>();
  checkIpv6Endpoints(o, "ip6tnl");
  if (o.ikey || o.okey || o.icsum || o.ocsum || o.iseq || o.oseq)
    throw Error::invalidArgument("ip6tnl", "keys, checksums and sequence numbers are GRE's (type ip6gre)");
  kTnlFields.encode(w, o);
}

void encodeGre(core::MessageWriter& w, const LinkInfo& link, KeepAlive&) {
  const Ip6TunnelInfo& o = *link.kindOptions<Ip6TunnelInfo>();
  checkIpv6Endpoints(o, "ip6gre");
  if (o.proto) throw Error::invalidArgument("ip6gre", "the inner protocol (mode) is ip6tnl's");
  kGreFields.encode(w, o);
}

void decodeTnl(const nlattr* data, LinkInfo& link) { link.setKindOptions(decodeKind(data, kTnlFields, link.unknownKindData)); }

void decodeGre(const nlattr* data, LinkInfo& link) {
  Ip6TunnelInfo o;
  gre::KeyReader keys;
  kGreFields.decodeAll(core::nestPayload(data), o, kKindContext, keys, link.unknownKindData);
  keys.apply(o);
  link.setKindOptions(o);
}

}  // namespace

const LinkKindCodec kIp6tnlKind{.kind = "ip6tnl", .options = "ip6tnl", .optionsType = &typeid(Ip6TunnelInfo),
                                .hasData = slotHas<Ip6TunnelInfo>, .encodeData = encodeTnl, .decodeData = decodeTnl,
                                .deviceRefs = slotDeviceRef<Ip6TunnelInfo>};
const LinkKindCodec kIp6greKind{.kind = "ip6gre", .options = "ip6tnl", .optionsType = &typeid(Ip6TunnelInfo),
                                .hasData = slotHas<Ip6TunnelInfo>, .encodeData = encodeGre, .decodeData = decodeGre,
                                .deviceRefs = slotDeviceRef<Ip6TunnelInfo>};
const LinkKindCodec kIp6gretapKind{.kind = "ip6gretap", .options = "ip6tnl", .optionsType = &typeid(Ip6TunnelInfo),
                                   .hasData = slotHas<Ip6TunnelInfo>, .encodeData = encodeGre, .decodeData = decodeGre,
                                   .deviceRefs = slotDeviceRef<Ip6TunnelInfo>};

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(ip6tnl, &kIp6tnlKind, &kIp6greKind, &kIp6gretapKind)
