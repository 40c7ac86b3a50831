// ipvlan: slaves sharing the lower device's MAC (IFLA_IPVLAN_*). The lower device is IFLA_LINK.
#include <linux/if_link.h>

#include "fastlink/link_kinds/ipvlan.hpp"
#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {
namespace {

// Flags other than one isolation mode (none today) stay raw rather than being misread.
constexpr FieldTable kFields({
    field<IFLA_IPVLAN_MODE, &IpvlanInfo::mode>(),
    knownValueField<IFLA_IPVLAN_FLAGS, &IpvlanInfo::isolation, 0, IPVLAN_F_PRIVATE, IPVLAN_F_VEPA>(),
});

bool hasData(const LinkInfo& link) {
  const auto* o = link.kindOptions<IpvlanInfo>();
  return o && (o->mode || o->isolation);
}

void encodeData(core::MessageWriter& w, const LinkInfo& link, KeepAlive&) {
  const IpvlanInfo& o = *link.kindOptions<IpvlanInfo>();
  if (o.mode && static_cast<uint16_t>(*o.mode) > IPVLAN_MODE_L3S) throw Error::invalidArgument("ipvlan", "unknown ipvlan mode");
  if (auto flags = static_cast<uint16_t>(o.isolation.value_or(IpvlanIsolation::Bridge));
      flags != 0 && flags != IPVLAN_F_PRIVATE && flags != IPVLAN_F_VEPA)
    throw Error::invalidArgument("ipvlan", "isolation must be one of bridge, private, vepa");
  kFields.encode(w, o);
}

}  // namespace

constexpr LinkKindCodec kIpvlanKind = slotKind<IpvlanInfo>("ipvlan", "ipvlan", encodeData, decodeSlot<kFields>, hasData);

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(ipvlan, &kIpvlanKind)
