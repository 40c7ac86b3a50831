// bond: its options (IFLA_BOND_*), and what a bond reports about each of its ports
// (IFLA_BOND_SLAVE_* in a port's IFLA_INFO_SLAVE_DATA).
#include <linux/if_link.h>

#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {
namespace {

constexpr FieldTable kFields({
    field<IFLA_BOND_MODE, &BondInfo::mode>(),
    field<IFLA_BOND_MIIMON, &BondInfo::miimon>(),
});

/// The port's permanent address, any length a MacAddress holds (6 for Ethernet, 20 for
/// InfiniBand); an empty or longer one stays raw.
bool getPermanentAddress(const nlattr* a, BondPortInfo& p, const FieldContext&) {
  auto bytes = core::readBytes(a);
  if (bytes.empty() || bytes.size() > MacAddress::kMaxLength) return false;
  p.permanentAddress = MacAddress(bytes);
  return true;
}
/// The partner's LACP state: 8 bits the kernel sends as a u16 (nla_put_u16), read by its size
/// so both forms give the same value on any byte order.
bool getPartnerState(const nlattr* a, BondPortInfo& p, const FieldContext&) {
  p.partnerOperPortState = core::readBytes(a).size() >= 2 ? static_cast<uint8_t>(core::readU16(a)) : core::readU8(a);
  return true;
}

/// What a bond reports about a port (bond_fill_slave_info; see BondPortInfo in link.hpp). What
/// newer kernels add after IFLA_BOND_SLAVE_PRIO (the actor port priority, churn states; ip 6.1
/// prints none of them) stays raw in slaveData.
constexpr FieldTable kPortFields({
    field<IFLA_BOND_SLAVE_STATE, &BondPortInfo::state, Wire::Reported>(),
    field<IFLA_BOND_SLAVE_MII_STATUS, &BondPortInfo::miiStatus, Wire::Reported>(),
    field<IFLA_BOND_SLAVE_LINK_FAILURE_COUNT, &BondPortInfo::linkFailureCount, Wire::Reported>(),
    AttrField<BondPortInfo>{IFLA_BOND_SLAVE_PERM_HWADDR, nullptr, getPermanentAddress},
    field<IFLA_BOND_SLAVE_QUEUE_ID, &BondPortInfo::queueId, Wire::Reported>(),
    field<IFLA_BOND_SLAVE_PRIO, &BondPortInfo::priority, Wire::Reported>(),
    field<IFLA_BOND_SLAVE_AD_AGGREGATOR_ID, &BondPortInfo::aggregatorId, Wire::Reported>(),
    field<IFLA_BOND_SLAVE_AD_ACTOR_OPER_PORT_STATE, &BondPortInfo::actorOperPortState, Wire::Reported>(),
    AttrField<BondPortInfo>{IFLA_BOND_SLAVE_AD_PARTNER_OPER_PORT_STATE, nullptr, getPartnerState},
});

bool hasData(const LinkInfo& link) { return link.bond && (link.bond->mode || link.bond->miimon); }

}  // namespace

const LinkKindCodec kBondKind{.kind = "bond", .options = "bond", .hasFieldOptions = fieldHas<&LinkInfo::bond>, .hasData = hasData,
                              .encodeData = encodeField<&LinkInfo::bond, kFields>,
                              .decodeData = decodeField<&LinkInfo::bond, kFields>,
                              .decodePortData = decodeField<&LinkInfo::bondPort, kPortFields, &LinkInfo::slaveData>};

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(bond, &kBondKind)
