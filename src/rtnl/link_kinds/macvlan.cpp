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

void encodeData(core::MessageWriter& w, const LinkInfo& link, KeepAlive&) { kFields.encode(w, *link.macvlan); }

void decodeData(const nlattr* data, LinkInfo& link) { link.macvlan = decodeKind(data, kFields, link.unknownKindData); }

bool hasOptions(const LinkInfo& link) { return link.macvlan.has_value(); }

}  // namespace

const LinkKindCodec kMacvlanKind{.kind = "macvlan", .options = "macvlan", .hasFieldOptions = hasOptions, .hasData = hasData,
                                 .encodeData = encodeData, .decodeData = decodeData};
const LinkKindCodec kMacvtapKind{.kind = "macvtap", .options = "macvlan", .hasFieldOptions = hasOptions, .hasData = hasData,
                                 .encodeData = encodeData, .decodeData = decodeData};

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(macvlan, &kMacvlanKind, &kMacvtapKind)
