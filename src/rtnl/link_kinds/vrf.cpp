// vrf: its table (IFLA_VRF_*), and what a VRF reports about each of its ports
// (IFLA_VRF_PORT_* in a port's IFLA_INFO_SLAVE_DATA).
#include <linux/if_link.h>

#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {
namespace {

constexpr FieldTable kFields({field<IFLA_VRF_TABLE, &VrfInfo::table>()});
constexpr FieldTable kPortFields({field<IFLA_VRF_PORT_TABLE, &VrfPortInfo::table>()});

bool hasData(const LinkInfo& link) { return link.vrf && link.vrf->table; }

}  // namespace

const LinkKindCodec kVrfKind{.kind = "vrf", .options = "vrf", .hasFieldOptions = fieldHas<&LinkInfo::vrf>, .hasData = hasData,
                             .encodeData = encodeField<&LinkInfo::vrf, kFields>,
                             .decodeData = decodeField<&LinkInfo::vrf, kFields>,
                             // what a VRF reports about a port (vrf_fill_slave_info: its table)
                             .decodePortData = decodeField<&LinkInfo::vrfPort, kPortFields, &LinkInfo::slaveData>};

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(vrf, &kVrfKind)
