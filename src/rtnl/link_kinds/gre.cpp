// gre and gretap: GRE over IPv4 (IFLA_GRE_*); keys and flags: rtnl/gre_keys.hpp.
#include <arpa/inet.h>
#include <linux/if_link.h>
#include <linux/if_tunnel.h>

#include "fastlink/link_kinds/gre.hpp"
#include "rtnl/gre_keys.hpp"
#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {
namespace {

constexpr TunnelAttrs kAttrs{.link = IFLA_GRE_LINK, .local = IFLA_GRE_LOCAL, .remote = IFLA_GRE_REMOTE, .ttl = IFLA_GRE_TTL,
                             .tos = IFLA_GRE_TOS, .pmtudisc = IFLA_GRE_PMTUDISC, .fwmark = IFLA_GRE_FWMARK,
                             .encapType = IFLA_GRE_ENCAP_TYPE, .collectMetadata = IFLA_GRE_COLLECT_METADATA};
constexpr auto kFields = tunnelFields<GreInfo, kAttrs>(
    "gre dev", std::array{gre::kIflagsRow<GreInfo>, gre::kOflagsRow<GreInfo>, gre::kIkeyRow<GreInfo>, gre::kOkeyRow<GreInfo>});

void encodeData(core::MessageWriter& w, const LinkInfo& link, KeepAlive&) {
  const GreInfo& g = *link.kindOptions<GreInfo>();
  checkEndpoints(g, false, "gre", " must be an IPv4 address (ip6gre is another kind)");
  kFields.encode(w, g);
}

void decodeData(const nlattr* data, LinkInfo& link) {
  link.setKindOptions(gre::decodeWithKeys<GreInfo>(data, kFields, link.unknownKindData));
}

}  // namespace

constexpr LinkKindCodec kGreKind = slotKind<GreInfo>("gre", "gre", encodeData, decodeData);
constexpr LinkKindCodec kGretapKind = slotKind<GreInfo>("gretap", "gre", encodeData, decodeData);

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(gre, &kGreKind, &kGretapKind)
