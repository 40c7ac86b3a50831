#include <linux/if_link.h>

#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {
namespace {

bool hasData(const LinkInfo& link) { return link.vxlan.has_value(); }

void encodeData(core::MessageWriter& w, const LinkInfo& link, KeepAlive&) {
  const VxlanInfo& v = *link.vxlan;
  if (v.vni) {
    if (*v.vni >= (1u << 24)) throw Error::invalidArgument("vxlan", "vni must be below 16777216");
    w.putU32(IFLA_VXLAN_ID, *v.vni);
  }
  if (v.local) w.putBytes(v.local->isV4() ? IFLA_VXLAN_LOCAL : IFLA_VXLAN_LOCAL6, v.local->bytes());
  if (v.remote) w.putBytes(v.remote->isV4() ? IFLA_VXLAN_GROUP : IFLA_VXLAN_GROUP6, v.remote->bytes());
  if (v.local && v.remote && v.local->family() != v.remote->family())
    throw Error::invalidArgument("vxlan", "local and remote/group must be of the same address family");
  if (v.dstPort) w.putBe16(IFLA_VXLAN_PORT, *v.dstPort);
  if (v.dev) w.putU32(IFLA_VXLAN_LINK, requireIndex(*v.dev, "vxlan dev"));
  putOption(w, IFLA_VXLAN_LEARNING, v.learning);
  putOption(w, IFLA_VXLAN_TTL, v.ttl);
  putOption(w, IFLA_VXLAN_TOS, v.tos);
  putOption(w, IFLA_VXLAN_AGEING, v.ageing);
  if (v.srcPortMin.has_value() != v.srcPortMax.has_value())
    throw Error::invalidArgument("vxlan", "the source port range needs both its low and its high end");
  if (v.srcPortMin) {
    if (*v.srcPortMin > *v.srcPortMax) throw Error::invalidArgument("vxlan", "source port range: low end above high end");
    // struct ifla_vxlan_port_range: two ports in network byte order.
    const uint8_t range[4] = {static_cast<uint8_t>(*v.srcPortMin >> 8), static_cast<uint8_t>(*v.srcPortMin & 0xff),
                              static_cast<uint8_t>(*v.srcPortMax >> 8), static_cast<uint8_t>(*v.srcPortMax & 0xff)};
    w.putBytes(IFLA_VXLAN_PORT_RANGE, range);
  }
  putOption(w, IFLA_VXLAN_UDP_CSUM, v.udpCsum);
  putOption(w, IFLA_VXLAN_UDP_ZERO_CSUM6_TX, v.udp6ZeroCsumTx);
  putOption(w, IFLA_VXLAN_UDP_ZERO_CSUM6_RX, v.udp6ZeroCsumRx);
  putOption(w, IFLA_VXLAN_DF, v.df);
}

void decodeData(const nlattr* data, LinkInfo& link) {
  KindAttrs d(data, IFLA_VXLAN_MAX);
  VxlanInfo v;
  d.read(IFLA_VXLAN_ID, v.vni);
  d.address(IFLA_VXLAN_LOCAL, 4, v.local);
  d.address(IFLA_VXLAN_LOCAL6, 16, v.local);
  d.address(IFLA_VXLAN_GROUP, 4, v.remote);
  d.address(IFLA_VXLAN_GROUP6, 16, v.remote);
  d.readBe16(IFLA_VXLAN_PORT, v.dstPort);
  if (auto* a = d.take(IFLA_VXLAN_LINK)) v.dev = Ifref(core::readU32(a));
  d.read(IFLA_VXLAN_LEARNING, v.learning);
  d.read(IFLA_VXLAN_TTL, v.ttl);
  d.read(IFLA_VXLAN_TOS, v.tos);
  d.read(IFLA_VXLAN_AGEING, v.ageing);
  if (auto* a = d.peek(IFLA_VXLAN_PORT_RANGE); a && core::readBytes(a).size() == 4) {
    auto r = core::readBytes(d.take(IFLA_VXLAN_PORT_RANGE));
    v.srcPortMin = static_cast<uint16_t>(r[0] << 8 | r[1]);
    v.srcPortMax = static_cast<uint16_t>(r[2] << 8 | r[3]);
  }
  d.read(IFLA_VXLAN_UDP_CSUM, v.udpCsum);
  d.read(IFLA_VXLAN_UDP_ZERO_CSUM6_TX, v.udp6ZeroCsumTx);
  d.read(IFLA_VXLAN_UDP_ZERO_CSUM6_RX, v.udp6ZeroCsumRx);
  d.read(IFLA_VXLAN_DF, v.df);
  d.keepRest(link);
  link.vxlan = v;
}

bool hasOptions(const LinkInfo& link) { return link.vxlan.has_value(); }

std::vector<Ifref*> deviceRefs(LinkInfo& link) {
  if (link.vxlan && link.vxlan->dev) return {&*link.vxlan->dev};
  return {};
}

}  // namespace

const LinkKindCodec kVxlanKind{.kind = "vxlan", .options = "vxlan", .hasFieldOptions = hasOptions, .hasData = hasData,
                               .encodeData = encodeData, .decodeData = decodeData, .deviceRefs = deviceRefs};

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(vxlan, &kVxlanKind)
