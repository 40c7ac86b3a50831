// ipip and sit: IPv4 and IPv6 over IPv4 (IFLA_IPTUN_*). The kernel also reports the protocol,
// fwmark, encapsulation (and sit's flags / 6rd prefixes): those stay in unknownKindData.
#include <linux/if_link.h>
#include <linux/if_tunnel.h>

#include "fastlink/link_kinds/ipip.hpp"
#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {
namespace {

bool hasData(const LinkInfo& link) { return link.kindOptions<IpTunnelInfo>() != nullptr; }

void putEndpoint(core::MessageWriter& w, uint16_t type, const IpAddress& ip, const char* what) {
  if (!ip.isV4()) throw Error::invalidArgument("ip tunnel", std::string(what) + " must be an IPv4 address");
  w.putBytes(type, ip.bytes());
}

void encodeData(core::MessageWriter& w, const LinkInfo& link, KeepAlive&) {
  const IpTunnelInfo& o = *link.kindOptions<IpTunnelInfo>();
  if (o.dev) w.putU32(IFLA_IPTUN_LINK, requireIndex(*o.dev, "tunnel dev"));
  if (o.local) putEndpoint(w, IFLA_IPTUN_LOCAL, *o.local, "local");
  if (o.remote) putEndpoint(w, IFLA_IPTUN_REMOTE, *o.remote, "remote");
  if (o.ttl) w.putU8(IFLA_IPTUN_TTL, *o.ttl);
  if (o.tos) w.putU8(IFLA_IPTUN_TOS, *o.tos);
  if (o.pmtudisc) w.putU8(IFLA_IPTUN_PMTUDISC, *o.pmtudisc ? 1 : 0);
}

void decodeData(const nlattr* data, LinkInfo& link) {
  core::AttrTable t = core::AttrTable::ofNest(data, IFLA_IPTUN_MAX);
  IpTunnelInfo o;
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
  if (auto* a = take(IFLA_IPTUN_LINK); a && core::readU32(a) != 0) o.dev = Ifref(core::readU32(a));
  if (auto ip = endpoint(IFLA_IPTUN_LOCAL)) o.local = ip;
  if (auto ip = endpoint(IFLA_IPTUN_REMOTE)) o.remote = ip;
  if (auto* a = take(IFLA_IPTUN_TTL)) o.ttl = core::readU8(a);
  if (auto* a = take(IFLA_IPTUN_TOS)) o.tos = core::readU8(a);
  if (auto* a = take(IFLA_IPTUN_PMTUDISC)) o.pmtudisc = core::readU8(a) != 0;
  keepUnknown(t, known, link.unknownKindData);
  link.setKindOptions(o);
}

std::vector<Ifref*> deviceRefs(LinkInfo& link) {
  auto* o = link.kindOptions<IpTunnelInfo>();
  if (o && o->dev) return {&*o->dev};
  return {};
}

}  // namespace

const LinkKindCodec kIpipKind{.kind = "ipip", .options = "ipip", .optionsType = &typeid(IpTunnelInfo), .hasData = hasData,
                              .encodeData = encodeData, .decodeData = decodeData, .deviceRefs = deviceRefs};
const LinkKindCodec kSitKind{.kind = "sit", .options = "ipip", .optionsType = &typeid(IpTunnelInfo), .hasData = hasData,
                             .encodeData = encodeData, .decodeData = decodeData, .deviceRefs = deviceRefs};

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(ipip, &kIpipKind, &kSitKind)
