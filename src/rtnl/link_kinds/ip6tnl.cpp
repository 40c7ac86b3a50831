// ip6tnl (IFLA_IPTUN_*) and ip6gre, ip6gretap (IFLA_GRE_*, keys: rtnl/gre_keys.hpp): tunnels
// over IPv6, one options struct (Ip6TunnelInfo), one table per attribute space, both made by
// tunnelFields. ip6gre's ERSPAN attributes (reported for ip6erspan only) stay in unknownKindData.
#include <linux/if_link.h>
#include <linux/if_tunnel.h>

#include "fastlink/error.hpp"
#include "fastlink/link_kinds/ip6tnl.hpp"
#include "rtnl/gre_keys.hpp"
#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {
namespace {

// The same options under two attribute spaces; the shared rows are tunnelFields' (link_kind.hpp).
constexpr TunnelAttrs kTnlAttrs{.link = IFLA_IPTUN_LINK, .local = IFLA_IPTUN_LOCAL, .remote = IFLA_IPTUN_REMOTE,
                                .ttl = IFLA_IPTUN_TTL, .encapLimit = IFLA_IPTUN_ENCAP_LIMIT,
                                .flowinfo = IFLA_IPTUN_FLOWINFO, .flags = IFLA_IPTUN_FLAGS, .fwmark = IFLA_IPTUN_FWMARK,
                                .encapType = IFLA_IPTUN_ENCAP_TYPE, .collectMetadata = IFLA_IPTUN_COLLECT_METADATA};
constexpr TunnelAttrs kGreAttrs{.link = IFLA_GRE_LINK, .local = IFLA_GRE_LOCAL, .remote = IFLA_GRE_REMOTE,
                                .ttl = IFLA_GRE_TTL, .encapLimit = IFLA_GRE_ENCAP_LIMIT, .flowinfo = IFLA_GRE_FLOWINFO,
                                .flags = IFLA_GRE_FLAGS, .fwmark = IFLA_GRE_FWMARK, .encapType = IFLA_GRE_ENCAP_TYPE,
                                .collectMetadata = IFLA_GRE_COLLECT_METADATA};

constexpr auto kTnlFields = tunnelFields<Ip6TunnelInfo, kTnlAttrs, 16, &Ip6TunnelInfo::hoplimit>(
    "ip6tnl dev", std::array<AttrField<Ip6TunnelInfo>, 0>{},
    std::array{field<IFLA_IPTUN_PROTO, &Ip6TunnelInfo::proto>()});
constexpr auto kGreFields = tunnelFields<Ip6TunnelInfo, kGreAttrs, 16, &Ip6TunnelInfo::hoplimit>(
    "ip6gre dev", std::array{gre::kIflagsRow<Ip6TunnelInfo>, gre::kOflagsRow<Ip6TunnelInfo>, gre::kIkeyRow<Ip6TunnelInfo>,
                             gre::kOkeyRow<Ip6TunnelInfo>});

void encodeTnl(core::MessageWriter& w, const LinkInfo& link, KeepAlive&) {
  const Ip6TunnelInfo& o = *link.kindOptions<Ip6TunnelInfo>();
  checkEndpoints(o, true, "ip6tnl", " must be an IPv6 address");
  if (o.ikey || o.okey || o.icsum || o.ocsum || o.iseq || o.oseq)
    throw Error::invalidArgument("ip6tnl", "keys, checksums and sequence numbers are GRE's (type ip6gre)");
  kTnlFields.encode(w, o);
}

void encodeGre(core::MessageWriter& w, const LinkInfo& link, KeepAlive&) {
  const Ip6TunnelInfo& o = *link.kindOptions<Ip6TunnelInfo>();
  checkEndpoints(o, true, "ip6gre", " must be an IPv6 address");
  if (o.proto) throw Error::invalidArgument("ip6gre", "the inner protocol (mode) is ip6tnl's");
  kGreFields.encode(w, o);
}

void decodeTnl(const nlattr* data, LinkInfo& link) { link.setKindOptions(decodeKind(data, kTnlFields, link.unknownKindData)); }

void decodeGre(const nlattr* data, LinkInfo& link) {
  link.setKindOptions(gre::decodeWithKeys<Ip6TunnelInfo>(data, kGreFields, link.unknownKindData));
}

}  // namespace

constexpr LinkKindCodec kIp6tnlKind = slotKind<Ip6TunnelInfo>("ip6tnl", "ip6tnl", encodeTnl, decodeTnl);
constexpr LinkKindCodec kIp6greKind = slotKind<Ip6TunnelInfo>("ip6gre", "ip6tnl", encodeGre, decodeGre);
constexpr LinkKindCodec kIp6gretapKind = slotKind<Ip6TunnelInfo>("ip6gretap", "ip6tnl", encodeGre, decodeGre);

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(ip6tnl, &kIp6tnlKind, &kIp6greKind, &kIp6gretapKind)
