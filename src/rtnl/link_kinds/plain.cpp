// Kinds without options of their own: created and reported by name only.
#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {
namespace {

void keepAll(const nlattr* data, LinkInfo& link) { keepUnknown(core::AttrTable::ofNest(data, 0), {}, link.unknownKindData); }

}  // namespace

const LinkKindCodec kDummyKind{.kind = "dummy", .decodeData = keepAll};
const LinkKindCodec kIfbKind{.kind = "ifb", .decodeData = keepAll};
const LinkKindCodec kWireguardKind{.kind = "wireguard", .decodeData = keepAll};

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(plain, &kDummyKind, &kIfbKind, &kWireguardKind)
