// vti and vti6: IPsec virtual tunnel interfaces over IPv4 and IPv6 (IFLA_VTI_*), one options
// struct (VtiInfo), the shared tunnel rows of tunnelFields (no ttl: vti has none) and the keys,
// which are in network byte order on the wire.
#include <linux/if_link.h>
#include <linux/if_tunnel.h>

#include "fastlink/error.hpp"
#include "fastlink/link_kinds/vti.hpp"
#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {
namespace {

constexpr TunnelAttrs kAttrs{.link = IFLA_VTI_LINK, .local = IFLA_VTI_LOCAL, .remote = IFLA_VTI_REMOTE,
                             .fwmark = IFLA_VTI_FWMARK};
constexpr auto kKeys = std::array{be32Field<IFLA_VTI_IKEY, &VtiInfo::ikey>(), be32Field<IFLA_VTI_OKEY, &VtiInfo::okey>()};
constexpr auto kFields = tunnelFields<VtiInfo, kAttrs, 4, nullptr>("vti dev", kKeys);
constexpr auto kFields6 = tunnelFields<VtiInfo, kAttrs, 16, nullptr>("vti6 dev", kKeys);

template <bool kV6>
void encodeData(core::MessageWriter& w, const LinkInfo& link, KeepAlive&) {
  const VtiInfo& o = *link.kindOptions<VtiInfo>();
  checkEndpoints(o, kV6, kV6 ? "vti6" : "vti",
                 kV6 ? " must be an IPv6 address (vti is the IPv4 kind)" : " must be an IPv4 address (vti6 is the IPv6 kind)");
  (kV6 ? kFields6 : kFields).encode(w, o);
}

}  // namespace

constexpr LinkKindCodec kVtiKind = slotKind<VtiInfo>("vti", "vti", encodeData<false>, decodeSlot<kFields>);
constexpr LinkKindCodec kVti6Kind = slotKind<VtiInfo>("vti6", "vti", encodeData<true>, decodeSlot<kFields6>);

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(vti, &kVtiKind, &kVti6Kind)
