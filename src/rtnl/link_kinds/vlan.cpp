#include <linux/if_link.h>

#include "rtnl/codec_helpers.hpp"
#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {
namespace {

bool hasData(const LinkInfo& link) { return link.vlan.has_value(); }

void encodeData(core::MessageWriter& w, const LinkInfo& link, KeepAlive&) {
  const VlanInfo& v = *link.vlan;
  if (v.id) {
    if (*v.id >= 4095) throw Error::invalidArgument("vlan", "vlan id must be 0-4094");
    w.putU16(IFLA_VLAN_ID, *v.id);
  }
  if (v.protocol) w.putBe16(IFLA_VLAN_PROTOCOL, static_cast<uint16_t>(*v.protocol));
  if (v.flags) putStruct(w, IFLA_VLAN_FLAGS, ifla_vlan_flags{*v.flags, v.flagsMask});
}

void decodeData(const nlattr* data, LinkInfo& link) {
  KindAttrs d(data, IFLA_VLAN_MAX);
  VlanInfo v;
  d.read(IFLA_VLAN_ID, v.id);
  d.readBe16(IFLA_VLAN_PROTOCOL, v.protocol);
  if (const nlattr* f = d.take(IFLA_VLAN_FLAGS)) {
    auto flags = readStruct<ifla_vlan_flags>(f);
    v.flags = flags.flags;
    v.flagsMask = flags.mask;
  }
  d.keepRest(link);
  link.vlan = v;
}

bool hasOptions(const LinkInfo& link) { return link.vlan.has_value(); }

}  // namespace

const LinkKindCodec kVlanKind{.kind = "vlan", .options = "vlan", .hasFieldOptions = hasOptions, .hasData = hasData,
                              .encodeData = encodeData, .decodeData = decodeData};

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(vlan, &kVlanKind)
