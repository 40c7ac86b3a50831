// ipip and sit: IPv4 and IPv6 over IPv4 (IFLA_IPTUN_*). The kernel also reports the protocol,
// fwmark, encapsulation (and sit's flags / 6rd prefixes): those stay in unknownKindData.
#include <linux/if_link.h>
#include <linux/if_tunnel.h>

#include "fastlink/link_kinds/ipip.hpp"
#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {
namespace {

constexpr FieldTable kFields({
    field<IFLA_IPTUN_LINK, &IpTunnelInfo::dev, Wire::Device>("tunnel dev"),
    addressField<IFLA_IPTUN_LOCAL, &IpTunnelInfo::local, 4>(),
    addressField<IFLA_IPTUN_REMOTE, &IpTunnelInfo::remote, 4>(),
    field<IFLA_IPTUN_TTL, &IpTunnelInfo::ttl>(),
    field<IFLA_IPTUN_TOS, &IpTunnelInfo::tos>(),
    field<IFLA_IPTUN_PMTUDISC, &IpTunnelInfo::pmtudisc>(),
});

void encodeData(core::MessageWriter& w, const LinkInfo& link, KeepAlive&) {
  const IpTunnelInfo& o = *link.kindOptions<IpTunnelInfo>();
  checkIpv4Endpoints(o, "ip tunnel", " must be an IPv4 address");
  kFields.encode(w, o);
}

void decodeData(const nlattr* data, LinkInfo& link) { link.setKindOptions(decodeKind(data, kFields, link.unknownKindData)); }

}  // namespace

const LinkKindCodec kIpipKind{.kind = "ipip", .options = "ipip", .optionsType = &typeid(IpTunnelInfo), .hasData = slotHas<IpTunnelInfo>,
                              .encodeData = encodeData, .decodeData = decodeData, .deviceRefs = slotDeviceRef<IpTunnelInfo>};
const LinkKindCodec kSitKind{.kind = "sit", .options = "ipip", .optionsType = &typeid(IpTunnelInfo), .hasData = slotHas<IpTunnelInfo>,
                             .encodeData = encodeData, .decodeData = decodeData, .deviceRefs = slotDeviceRef<IpTunnelInfo>};

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(ipip, &kIpipKind, &kSitKind)
