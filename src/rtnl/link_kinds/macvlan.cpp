// macvlan and macvtap share their options (IFLA_MACVLAN_*).
#include <linux/if_link.h>

#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {
namespace {

bool hasData(const LinkInfo& link) { return link.macvlan && (link.macvlan->mode || link.macvlan->bcQueueLen); }

// usedBcQueueLen is the kernel's answer, never sent.
void encodeData(core::MessageWriter& w, const LinkInfo& link, KeepAlive&) {
  putOption(w, IFLA_MACVLAN_MODE, link.macvlan->mode);
  putOption(w, IFLA_MACVLAN_BC_QUEUE_LEN, link.macvlan->bcQueueLen);
}

void decodeData(const nlattr* data, LinkInfo& link) {
  KindAttrs d(data, IFLA_MACVLAN_MAX);
  MacvlanInfo m;
  d.read(IFLA_MACVLAN_MODE, m.mode);
  d.read(IFLA_MACVLAN_BC_QUEUE_LEN, m.bcQueueLen);
  d.read(IFLA_MACVLAN_BC_QUEUE_LEN_USED, m.usedBcQueueLen);
  d.keepRest(link);
  link.macvlan = m;
}

bool hasOptions(const LinkInfo& link) { return link.macvlan.has_value(); }

}  // namespace

const LinkKindCodec kMacvlanKind{.kind = "macvlan", .options = "macvlan", .hasFieldOptions = hasOptions, .hasData = hasData,
                                 .encodeData = encodeData, .decodeData = decodeData};
const LinkKindCodec kMacvtapKind{.kind = "macvtap", .options = "macvlan", .hasFieldOptions = hasOptions, .hasData = hasData,
                                 .encodeData = encodeData, .decodeData = decodeData};

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(macvlan, &kMacvlanKind, &kMacvtapKind)
