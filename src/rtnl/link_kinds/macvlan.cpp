// macvlan and macvtap share their options (IFLA_MACVLAN_*).
#include <linux/if_link.h>

#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {
namespace {

// usedBcQueueLen is the kernel's answer, never sent.
constexpr FieldTable kFields({
    field<IFLA_MACVLAN_MODE, &MacvlanInfo::mode>(),
    field<IFLA_MACVLAN_BC_QUEUE_LEN, &MacvlanInfo::bcQueueLen>(),
    field<IFLA_MACVLAN_BC_QUEUE_LEN_USED, &MacvlanInfo::usedBcQueueLen, Wire::Reported>(),
});

bool hasData(const LinkInfo& link) { return link.macvlan && (link.macvlan->mode || link.macvlan->bcQueueLen); }

}  // namespace

const LinkKindCodec kMacvlanKind{.kind = "macvlan", .options = "macvlan", .hasFieldOptions = fieldHas<&LinkInfo::macvlan>, .hasData = hasData,
                                 .encodeData = encodeField<&LinkInfo::macvlan, kFields>, .decodeData = decodeField<&LinkInfo::macvlan, kFields>};
const LinkKindCodec kMacvtapKind{.kind = "macvtap", .options = "macvlan", .hasFieldOptions = fieldHas<&LinkInfo::macvlan>, .hasData = hasData,
                                 .encodeData = encodeField<&LinkInfo::macvlan, kFields>, .decodeData = decodeField<&LinkInfo::macvlan, kFields>};

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(macvlan, &kMacvlanKind, &kMacvtapKind)
