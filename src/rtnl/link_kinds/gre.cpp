// gre and gretap: GRE over IPv4 (IFLA_GRE_*); keys and flags: rtnl/gre_keys.hpp.
#include <arpa/inet.h>
#include <linux/if_link.h>
#include <linux/if_tunnel.h>

#include "fastlink/link_kinds/gre.hpp"
#include "rtnl/gre_keys.hpp"
#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {
namespace {

constexpr FieldTable kFields({
    field<IFLA_GRE_LINK, &GreInfo::dev, Wire::Device>("gre dev"),
    gre::kIflagsRow<GreInfo>,
    gre::kOflagsRow<GreInfo>,
    gre::kIkeyRow<GreInfo>,
    gre::kOkeyRow<GreInfo>,
    addressField<IFLA_GRE_LOCAL, &GreInfo::local, 4>(),
    addressField<IFLA_GRE_REMOTE, &GreInfo::remote, 4>(),
    field<IFLA_GRE_TTL, &GreInfo::ttl>(),
    field<IFLA_GRE_TOS, &GreInfo::tos>(),
    field<IFLA_GRE_PMTUDISC, &GreInfo::pmtudisc>(),
});

void encodeData(core::MessageWriter& w, const LinkInfo& link, KeepAlive&) {
  const GreInfo& g = *link.kindOptions<GreInfo>();
  checkIpv4Endpoints(g, "gre", " must be an IPv4 address (ip6gre is another kind)");
  kFields.encode(w, g);
}

void decodeData(const nlattr* data, LinkInfo& link) {
  GreInfo g;
  gre::KeyReader keys;
  kFields.decodeAll(core::nestPayload(data), g, kKindContext, keys, link.unknownKindData);
  keys.apply(g);
  link.setKindOptions(g);
}

}  // namespace

const LinkKindCodec kGreKind{.kind = "gre", .options = "gre", .optionsType = &typeid(GreInfo), .hasData = slotHas<GreInfo>,
                             .encodeData = encodeData, .decodeData = decodeData, .deviceRefs = slotDeviceRef<GreInfo>};
const LinkKindCodec kGretapKind{.kind = "gretap", .options = "gre", .optionsType = &typeid(GreInfo), .hasData = slotHas<GreInfo>,
                                .encodeData = encodeData, .decodeData = decodeData, .deviceRefs = slotDeviceRef<GreInfo>};

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(gre, &kGreKind, &kGretapKind)
