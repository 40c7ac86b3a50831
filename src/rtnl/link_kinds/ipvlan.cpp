// ipvlan: slaves sharing the lower device's MAC (IFLA_IPVLAN_*). The lower device is IFLA_LINK.
#include <linux/if_link.h>

#include "fastlink/link_kinds/ipvlan.hpp"
#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {
namespace {

bool hasData(const LinkInfo& link) {
  const auto* o = link.kindOptions<IpvlanInfo>();
  return o && (o->mode || o->isolation);
}

void encodeData(core::MessageWriter& w, const LinkInfo& link, KeepAlive&) {
  const IpvlanInfo& o = *link.kindOptions<IpvlanInfo>();
  if (o.mode) {
    if (static_cast<uint16_t>(*o.mode) > IPVLAN_MODE_L3S) throw Error::invalidArgument("ipvlan", "unknown ipvlan mode");
    w.putU16(IFLA_IPVLAN_MODE, static_cast<uint16_t>(*o.mode));
  }
  if (o.isolation) {
    auto flags = static_cast<uint16_t>(*o.isolation);
    if (flags != 0 && flags != IPVLAN_F_PRIVATE && flags != IPVLAN_F_VEPA)
      throw Error::invalidArgument("ipvlan", "isolation must be one of bridge, private, vepa");
    w.putU16(IFLA_IPVLAN_FLAGS, flags);
  }
}

void decodeData(const nlattr* data, LinkInfo& link) {
  KindAttrs d(data, IFLA_IPVLAN_MAX);
  IpvlanInfo o;
  d.read(IFLA_IPVLAN_MODE, o.mode);
  // Flags other than one isolation mode (none today) stay raw rather than being misread.
  if (auto* a = d.peek(IFLA_IPVLAN_FLAGS)) {
    uint16_t flags = core::readU16(a);
    if (flags == 0 || flags == IPVLAN_F_PRIVATE || flags == IPVLAN_F_VEPA)
      o.isolation = static_cast<IpvlanIsolation>(flags), d.take(IFLA_IPVLAN_FLAGS);
  }
  d.keepRest(link);
  link.setKindOptions(o);
}

}  // namespace

const LinkKindCodec kIpvlanKind{.kind = "ipvlan", .options = "ipvlan", .optionsType = &typeid(IpvlanInfo),
                                .hasData = hasData, .encodeData = encodeData, .decodeData = decodeData};

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(ipvlan, &kIpvlanKind)
