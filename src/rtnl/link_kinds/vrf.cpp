// vrf: its table (IFLA_VRF_*), and what a VRF reports about each of its ports
// (IFLA_VRF_PORT_* in a port's IFLA_INFO_SLAVE_DATA).
#include <linux/if_link.h>

#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {
namespace {

constexpr FieldTable kFields({field<IFLA_VRF_TABLE, &VrfInfo::table>()});
constexpr FieldTable kPortFields({field<IFLA_VRF_PORT_TABLE, &VrfPortInfo::table>()});

bool hasData(const LinkInfo& link) { return link.vrf && link.vrf->table; }

void encodeData(core::MessageWriter& w, const LinkInfo& link, KeepAlive&) { kFields.encode(w, *link.vrf); }

void decodeData(const nlattr* data, LinkInfo& link) { link.vrf = decodeKind(data, kFields, link.unknownKindData); }

bool hasOptions(const LinkInfo& link) { return link.vrf.has_value(); }

/// What a VRF reports about a port (vrf_fill_slave_info: its table); anything else stays raw
/// in slaveData.
void decodePortData(const nlattr* data, LinkInfo& link) { link.vrfPort = decodeKind(data, kPortFields, link.slaveData); }

}  // namespace

const LinkKindCodec kVrfKind{.kind = "vrf", .options = "vrf", .hasFieldOptions = hasOptions, .hasData = hasData,
                             .encodeData = encodeData, .decodeData = decodeData, .decodePortData = decodePortData};

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(vrf, &kVrfKind)
