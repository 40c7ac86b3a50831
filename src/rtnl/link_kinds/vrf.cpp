#include <linux/if_link.h>

#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {
namespace {

bool hasData(const LinkInfo& link) { return link.vrf && link.vrf->table; }

void encodeData(core::MessageWriter& w, const LinkInfo& link, KeepAlive&) { w.putU32(IFLA_VRF_TABLE, *link.vrf->table); }

void decodeData(const nlattr* data, LinkInfo& link) {
  core::AttrTable t = core::AttrTable::ofNest(data, IFLA_VRF_MAX);
  VrfInfo v;
  if (auto* a = t.get(IFLA_VRF_TABLE)) v.table = core::readU32(a);
  keepUnknown(t, {IFLA_VRF_TABLE}, link.unknownKindData);
  link.vrf = v;
}

bool hasOptions(const LinkInfo& link) { return link.vrf.has_value(); }

}  // namespace

const LinkKindCodec kVrfKind{.kind = "vrf", .options = "vrf", .hasFieldOptions = hasOptions, .hasData = hasData,
                             .encodeData = encodeData, .decodeData = decodeData};

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(vrf, &kVrfKind)
