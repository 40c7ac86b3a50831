#include <linux/if_link.h>

#include "rtnl/codec_helpers.hpp"
#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {
namespace {

/// The flags with the mask of the bits to change (ifla_vlan_flags); the kernel reports every bit.
void putFlags(core::MessageWriter& w, const AttrField<VlanInfo>&, const VlanInfo& v) {
  if (v.flags) putStruct(w, IFLA_VLAN_FLAGS, ifla_vlan_flags{*v.flags, v.flagsMask});
}
bool getFlags(const nlattr* a, VlanInfo& v, const FieldContext&) {
  auto flags = readStruct<ifla_vlan_flags>(a);
  v.flags = flags.flags;
  v.flagsMask = flags.mask;
  return true;
}

constexpr FieldTable kFields({
    field<IFLA_VLAN_ID, &VlanInfo::id>(),
    field<IFLA_VLAN_PROTOCOL, &VlanInfo::protocol, Wire::Be16>(),
    AttrField<VlanInfo>{IFLA_VLAN_FLAGS, putFlags, getFlags},
});

void encodeData(core::MessageWriter& w, const LinkInfo& link, KeepAlive&) {
  const VlanInfo& v = *link.vlan;
  if (v.id && *v.id >= 4095) throw Error::invalidArgument("vlan", "vlan id must be 0-4094");
  kFields.encode(w, v);
}

}  // namespace

const LinkKindCodec kVlanKind{.kind = "vlan", .options = "vlan", .hasFieldOptions = fieldHas<&LinkInfo::vlan>, .hasData = fieldHas<&LinkInfo::vlan>,
                              .encodeData = encodeData, .decodeData = decodeField<&LinkInfo::vlan, kFields>};

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(vlan, &kVlanKind)
