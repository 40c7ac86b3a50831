#include <linux/if_link.h>

#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {
namespace {

bool hasData(const LinkInfo& link) { return link.bond && (link.bond->mode || link.bond->miimon); }

void encodeData(core::MessageWriter& w, const LinkInfo& link, KeepAlive&) {
  const BondInfo& b = *link.bond;
  if (b.mode) w.putU8(IFLA_BOND_MODE, static_cast<uint8_t>(*b.mode));
  if (b.miimon) w.putU32(IFLA_BOND_MIIMON, *b.miimon);
}

void decodeData(const nlattr* data, LinkInfo& link) {
  core::AttrTable t = core::AttrTable::ofNest(data, IFLA_BOND_MAX);
  BondInfo b;
  if (auto* a = t.get(IFLA_BOND_MODE)) b.mode = static_cast<BondMode>(core::readU8(a));
  if (auto* a = t.get(IFLA_BOND_MIIMON)) b.miimon = core::readU32(a);
  keepUnknown(t, {IFLA_BOND_MODE, IFLA_BOND_MIIMON}, link.unknownKindData);
  link.bond = b;
}

bool hasOptions(const LinkInfo& link) { return link.bond.has_value(); }

}  // namespace

const LinkKindCodec kBondKind{.kind = "bond", .options = "bond", .hasFieldOptions = hasOptions, .hasData = hasData,
                              .encodeData = encodeData, .decodeData = decodeData};

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(bond, &kBondKind)
