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

}  // namespace

const LinkKindCodec kVrfKind{.kind = "vrf", .options = "vrf", .hasFieldOptions = hasOptions, .hasData = hasData,
                             .encodeData = encodeData, .decodeData = decodeData};

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(vrf, &kVrfKind)
