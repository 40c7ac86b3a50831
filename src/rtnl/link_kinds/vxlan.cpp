#include <linux/if_link.h>

#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {
namespace {

/// The source port range (struct ifla_vxlan_port_range: two ports in network byte order); one
/// of another size stays raw.
void putPortRange(core::MessageWriter& w, const AttrField<VxlanInfo>&, const VxlanInfo& v) {
  if (!v.srcPortMin) return;
  const uint8_t range[4] = {static_cast<uint8_t>(*v.srcPortMin >> 8), static_cast<uint8_t>(*v.srcPortMin & 0xff),
                            static_cast<uint8_t>(*v.srcPortMax >> 8), static_cast<uint8_t>(*v.srcPortMax & 0xff)};
  w.putBytes(IFLA_VXLAN_PORT_RANGE, range);
}
bool getPortRange(const nlattr* a, VxlanInfo& v, const FieldContext&) {
  auto r = core::readBytes(a);
  if (r.size() != 4) return false;
  v.srcPortMin = static_cast<uint16_t>(r[0] << 8 | r[1]);
  v.srcPortMax = static_cast<uint16_t>(r[2] << 8 | r[3]);
  return true;
}

constexpr FieldTable kFields({
    field<IFLA_VXLAN_ID, &VxlanInfo::vni>(),
    addressField<IFLA_VXLAN_LOCAL, &VxlanInfo::local, 4>(),
    addressField<IFLA_VXLAN_LOCAL6, &VxlanInfo::local, 16>(),
    addressField<IFLA_VXLAN_GROUP, &VxlanInfo::remote, 4>(),
    addressField<IFLA_VXLAN_GROUP6, &VxlanInfo::remote, 16>(),
    field<IFLA_VXLAN_PORT, &VxlanInfo::dstPort, Wire::Be16>(),
    field<IFLA_VXLAN_LINK, &VxlanInfo::dev>("vxlan dev"),
    field<IFLA_VXLAN_LEARNING, &VxlanInfo::learning>(),
    field<IFLA_VXLAN_TTL, &VxlanInfo::ttl>(),
    field<IFLA_VXLAN_TOS, &VxlanInfo::tos>(),
    field<IFLA_VXLAN_AGEING, &VxlanInfo::ageing>(),
    AttrField<VxlanInfo>{IFLA_VXLAN_PORT_RANGE, putPortRange, getPortRange},
    field<IFLA_VXLAN_UDP_CSUM, &VxlanInfo::udpCsum>(),
    field<IFLA_VXLAN_UDP_ZERO_CSUM6_TX, &VxlanInfo::udp6ZeroCsumTx>(),
    field<IFLA_VXLAN_UDP_ZERO_CSUM6_RX, &VxlanInfo::udp6ZeroCsumRx>(),
    field<IFLA_VXLAN_DF, &VxlanInfo::df>(),
});

void check(const VxlanInfo& v) {
  auto invalid = [](const char* why) { return Error::invalidArgument("vxlan", why); };
  if (v.vni && *v.vni >= (1u << 24)) throw invalid("vni must be below 16777216");
  if (v.local && v.remote && v.local->family() != v.remote->family())
    throw invalid("local and remote/group must be of the same address family");
  if (v.srcPortMin.has_value() != v.srcPortMax.has_value())
    throw invalid("the source port range needs both its low and its high end");
  if (v.srcPortMin && *v.srcPortMin > *v.srcPortMax) throw invalid("source port range: low end above high end");
}

void encodeData(core::MessageWriter& w, const LinkInfo& link, KeepAlive&) {
  check(*link.vxlan);
  kFields.encode(w, *link.vxlan);
}

std::vector<Ifref*> deviceRefs(LinkInfo& link) {
  if (link.vxlan && link.vxlan->dev) return {&*link.vxlan->dev};
  return {};
}

}  // namespace

const LinkKindCodec kVxlanKind{.kind = "vxlan", .options = "vxlan", .hasFieldOptions = fieldHas<&LinkInfo::vxlan>, .hasData = fieldHas<&LinkInfo::vxlan>,
                               .encodeData = encodeData, .decodeData = decodeField<&LinkInfo::vxlan, kFields>, .deviceRefs = deviceRefs};

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(vxlan, &kVxlanKind)
