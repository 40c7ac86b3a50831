// xfrm: IPsec interfaces (IFLA_XFRM_*). The kernel reports the link (0: none) and the if_id
// always, the collect-metadata flag when set.
#include <linux/if_link.h>

#include "fastlink/link_kinds/xfrm.hpp"
#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {
namespace {

// The order iproute2 sends them in.
constexpr FieldTable kFields({
    field<IFLA_XFRM_IF_ID, &XfrmInfo::ifId>(),
    field<IFLA_XFRM_COLLECT_METADATA, &XfrmInfo::external, Wire::Flag>(),
    field<IFLA_XFRM_LINK, &XfrmInfo::dev, Wire::Device>("xfrm dev"),
});

void encodeData(core::MessageWriter& w, const LinkInfo& link, KeepAlive&) {
  const XfrmInfo& x = *link.kindOptions<XfrmInfo>();
  if (x.ifId && *x.ifId == 0) throw Error::invalidArgument("xfrm", "if_id must be nonzero");
  if (x.external == true && (x.ifId || x.dev)) throw Error::invalidArgument("xfrm", "external takes neither if_id nor dev");
  kFields.encode(w, x);
}

}  // namespace

constexpr LinkKindCodec kXfrmKind = slotKind<XfrmInfo>("xfrm", "xfrm", encodeData, decodeSlot<kFields>);

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(xfrm, &kXfrmKind)
