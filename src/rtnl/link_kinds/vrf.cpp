// vrf: its table (IFLA_VRF_*), and what a VRF reports about each of its ports
// (IFLA_VRF_PORT_* in a port's IFLA_INFO_SLAVE_DATA).
#include <linux/if_link.h>

#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {
namespace {

bool hasData(const LinkInfo& link) { return link.vrf && link.vrf->table; }

void encodeData(core::MessageWriter& w, const LinkInfo& link, KeepAlive&) { w.putU32(IFLA_VRF_TABLE, *link.vrf->table); }

void decodeData(const nlattr* data, LinkInfo& link) {
  KindAttrs d(data, IFLA_VRF_MAX);
  VrfInfo v;
  d.read(IFLA_VRF_TABLE, v.table);
  d.keepRest(link);
  link.vrf = v;
}

bool hasOptions(const LinkInfo& link) { return link.vrf.has_value(); }

/// What a VRF reports about a port (vrf_fill_slave_info: its table); anything else stays raw
/// in slaveData.
void decodePortData(const nlattr* data, LinkInfo& link) {
  KindAttrs d(data, IFLA_VRF_PORT_MAX);
  VrfPortInfo p;
  d.read(IFLA_VRF_PORT_TABLE, p.table);
  d.keepRest(link.slaveData);
  link.vrfPort = p;
}

}  // namespace

const LinkKindCodec kVrfKind{.kind = "vrf", .options = "vrf", .hasFieldOptions = hasOptions, .hasData = hasData,
                             .encodeData = encodeData, .decodeData = decodeData, .decodePortData = decodePortData};

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(vrf, &kVrfKind)
