#include <linux/if_link.h>

#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {
namespace {

bool hasData(const LinkInfo& link) { return link.bond && (link.bond->mode || link.bond->miimon); }

void encodeData(core::MessageWriter& w, const LinkInfo& link, KeepAlive&) {
  const BondInfo& b = *link.bond;
  putOption(w, IFLA_BOND_MODE, b.mode);
  putOption(w, IFLA_BOND_MIIMON, b.miimon);
}

void decodeData(const nlattr* data, LinkInfo& link) {
  KindAttrs d(data, IFLA_BOND_MAX);
  BondInfo b;
  d.read(IFLA_BOND_MODE, b.mode);
  d.read(IFLA_BOND_MIIMON, b.miimon);
  d.keepRest(link);
  link.bond = b;
}

bool hasOptions(const LinkInfo& link) { return link.bond.has_value(); }

}  // namespace

const LinkKindCodec kBondKind{.kind = "bond", .options = "bond", .hasFieldOptions = hasOptions, .hasData = hasData,
                              .encodeData = encodeData, .decodeData = decodeData};

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(bond, &kBondKind)
