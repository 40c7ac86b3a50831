// ipip and sit: IPv4 and IPv6 over IPv4 (IFLA_IPTUN_*). The kernel also reports the protocol,
// fwmark, encapsulation (and sit's flags / 6rd prefixes): those stay in unknownKindData.
#include <linux/if_link.h>
#include <linux/if_tunnel.h>

#include "fastlink/link_kinds/ipip.hpp"
#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {
namespace {

constexpr TunnelAttrs kAttrs{IFLA_IPTUN_LINK, IFLA_IPTUN_LOCAL, IFLA_IPTUN_REMOTE, IFLA_IPTUN_TTL, IFLA_IPTUN_TOS, IFLA_IPTUN_PMTUDISC};
constexpr auto kFields = tunnelFields<IpTunnelInfo, kAttrs>("tunnel dev");

void encodeData(core::MessageWriter& w, const LinkInfo& link, KeepAlive&) {
  const IpTunnelInfo& o = *link.kindOptions<IpTunnelInfo>();
  checkIpv4Endpoints(o, "ip tunnel", " must be an IPv4 address");
  kFields.encode(w, o);
}

}  // namespace

const LinkKindCodec kIpipKind{.kind = "ipip", .options = "ipip", .optionsType = &typeid(IpTunnelInfo), .hasData = slotHas<IpTunnelInfo>,
                              .encodeData = encodeData, .decodeData = decodeSlot<kFields>, .deviceRefs = slotDeviceRef<IpTunnelInfo>};
const LinkKindCodec kSitKind{.kind = "sit", .options = "ipip", .optionsType = &typeid(IpTunnelInfo), .hasData = slotHas<IpTunnelInfo>,
                             .encodeData = encodeData, .decodeData = decodeSlot<kFields>, .deviceRefs = slotDeviceRef<IpTunnelInfo>};

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(ipip, &kIpipKind, &kSitKind)
