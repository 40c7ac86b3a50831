// ipip and sit: IPv4 and IPv6 over IPv4 (IFLA_IPTUN_*). The kernel also reports the protocol,
// fwmark, encapsulation (and sit's flags / 6rd prefixes): those stay in unknownKindData.
#include <linux/if_link.h>
#include <linux/if_tunnel.h>

#include "fastlink/link_kinds/ipip.hpp"
#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {
namespace {

constexpr TunnelAttrTypes kTypes{IFLA_IPTUN_LOCAL, IFLA_IPTUN_REMOTE, IFLA_IPTUN_TTL, IFLA_IPTUN_TOS, IFLA_IPTUN_PMTUDISC,
                                 "ip tunnel", " must be an IPv4 address"};

void encodeData(core::MessageWriter& w, const LinkInfo& link, KeepAlive&) {
  const IpTunnelInfo& o = *link.kindOptions<IpTunnelInfo>();
  if (o.dev) w.putU32(IFLA_IPTUN_LINK, requireIndex(*o.dev, "tunnel dev"));
  encodeTunnel(w, o, kTypes);
}

void decodeData(const nlattr* data, LinkInfo& link) {
  KindAttrs d(data, IFLA_IPTUN_MAX);
  IpTunnelInfo o;
  d.device(IFLA_IPTUN_LINK, o.dev);
  decodeTunnel(d, o, kTypes);
  d.keepRest(link);
  link.setKindOptions(o);
}

}  // namespace

const LinkKindCodec kIpipKind{.kind = "ipip", .options = "ipip", .optionsType = &typeid(IpTunnelInfo), .hasData = slotHas<IpTunnelInfo>,
                              .encodeData = encodeData, .decodeData = decodeData, .deviceRefs = slotDeviceRef<IpTunnelInfo>};
const LinkKindCodec kSitKind{.kind = "sit", .options = "ipip", .optionsType = &typeid(IpTunnelInfo), .hasData = slotHas<IpTunnelInfo>,
                             .encodeData = encodeData, .decodeData = decodeData, .deviceRefs = slotDeviceRef<IpTunnelInfo>};

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(ipip, &kIpipKind, &kSitKind)
