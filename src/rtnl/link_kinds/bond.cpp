// bond: its options (IFLA_BOND_*), and what a bond reports about each of its ports
// (IFLA_BOND_SLAVE_* in a port's IFLA_INFO_SLAVE_DATA).
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

/// The port's permanent address, any length a MacAddress holds (6 for Ethernet, 20 for
/// InfiniBand); an empty or longer one is left unread, so it stays raw.
void readPermanentAddress(KindAttrs& d, std::optional<MacAddress>& field) {
  const nlattr* a = d.peek(IFLA_BOND_SLAVE_PERM_HWADDR);
  if (!a) return;
  auto bytes = core::readBytes(a);
  if (bytes.empty() || bytes.size() > MacAddress::kMaxLength) return;
  field = MacAddress(core::readBytes(d.take(IFLA_BOND_SLAVE_PERM_HWADDR)));
}

/// The partner's LACP state: 8 bits the kernel sends as a u16 (nla_put_u16), read by its size
/// so both forms give the same value on any byte order.
void readPartnerState(KindAttrs& d, std::optional<uint8_t>& field) {
  const nlattr* a = d.take(IFLA_BOND_SLAVE_AD_PARTNER_OPER_PORT_STATE);
  if (!a) return;
  field = core::readBytes(a).size() >= 2 ? static_cast<uint8_t>(core::readU16(a)) : core::readU8(a);
}

/// What a bond reports about a port (bond_fill_slave_info; see BondPortInfo in link.hpp). What
/// newer kernels add after IFLA_BOND_SLAVE_PRIO (the actor port priority, churn states; ip 6.1
/// prints none of them) stays raw in slaveData.
void decodePortData(const nlattr* data, LinkInfo& link) {
  KindAttrs d(data, IFLA_BOND_SLAVE_MAX);
  BondPortInfo p;
  d.read(IFLA_BOND_SLAVE_STATE, p.state);
  d.read(IFLA_BOND_SLAVE_MII_STATUS, p.miiStatus);
  d.read(IFLA_BOND_SLAVE_LINK_FAILURE_COUNT, p.linkFailureCount);
  readPermanentAddress(d, p.permanentAddress);
  d.read(IFLA_BOND_SLAVE_QUEUE_ID, p.queueId);
  d.read(IFLA_BOND_SLAVE_PRIO, p.priority);
  d.read(IFLA_BOND_SLAVE_AD_AGGREGATOR_ID, p.aggregatorId);
  d.read(IFLA_BOND_SLAVE_AD_ACTOR_OPER_PORT_STATE, p.actorOperPortState);
  readPartnerState(d, p.partnerOperPortState);
  d.keepRest(link.slaveData);
  link.bondPort = p;
}

}  // namespace

const LinkKindCodec kBondKind{.kind = "bond", .options = "bond", .hasFieldOptions = hasOptions, .hasData = hasData,
                              .encodeData = encodeData, .decodeData = decodeData, .decodePortData = decodePortData};

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(bond, &kBondKind)
