// The link's attribute table, shared by the owning codec (link_codec.cpp) and LinkView
// (link_view.cpp): each simple attribute is declared once, here.
#pragma once

#include <linux/if_link.h>

#include "fastlink/link.hpp"
#include "core/attr_fields.hpp"
#include "rtnl/codec_helpers.hpp"

namespace fastlink::rtnl {

/// IFLA_AF_SPEC's one member a request sets: AF_INET6 -> IFLA_INET6_ADDR_GEN_MODE (`addrgenmode`),
/// as ip nests it. Decoded, the mode is read and the nest kept raw as well (its other members,
/// IPv4's devconf and IPv6's flags and counters, are not decoded).
void putAddrGenMode(core::MessageWriter& writer, const AttrField<LinkInfo>& row, const LinkInfo& link);
bool getAddrGenMode(const nlattr* afSpec, LinkInfo& link, const FieldContext& context);

// The simple attributes, in the order iproute2 sends them (after IFLA_IFNAME, which names
// either the device or its new name; before the namespace and IFLA_LINKINFO).
inline constexpr FieldTable kLinkFields({
    field<IFLA_MTU, &LinkInfo::mtu>(),
    field<IFLA_ADDRESS, &LinkInfo::address>(),
    field<IFLA_BROADCAST, &LinkInfo::broadcast>(),
    field<IFLA_GROUP, &LinkInfo::group>(),
    field<IFLA_MASTER, &LinkInfo::master>("master"),
    field<IFLA_TXQLEN, &LinkInfo::txqlen>(),
    field<IFLA_IFALIAS, &LinkInfo::alias>(),
    field<IFLA_NUM_TX_QUEUES, &LinkInfo::numTxQueues>(),
    field<IFLA_NUM_RX_QUEUES, &LinkInfo::numRxQueues>(),
    field<IFLA_LINK, &LinkInfo::parent>("parent link"),
    field<IFLA_GSO_MAX_SIZE, &LinkInfo::gsoMaxSize>(),
    field<IFLA_GSO_MAX_SEGS, &LinkInfo::gsoMaxSegs>(),
    field<IFLA_GRO_MAX_SIZE, &LinkInfo::groMaxSize>(),
    AttrField<LinkInfo>{IFLA_AF_SPEC, putAddrGenMode, getAddrGenMode},
    field<IFLA_IFNAME, &LinkInfo::name, Wire::Reported>(),
    field<IFLA_CARRIER, &LinkInfo::carrier, Wire::Reported>(),
    field<IFLA_PROMISCUITY, &LinkInfo::promiscuity, Wire::Reported>(),
    field<IFLA_MIN_MTU, &LinkInfo::minMtu, Wire::Reported>(),
    field<IFLA_MAX_MTU, &LinkInfo::maxMtu, Wire::Reported>(),
    field<IFLA_QDISC, &LinkInfo::qdisc, Wire::Reported>(),
    field<IFLA_LINK_NETNSID, &LinkInfo::linkNetnsId, Wire::Reported>(),
    field<IFLA_ALLMULTI, &LinkInfo::allmulti, Wire::Reported>(),
    field<IFLA_CARRIER_CHANGES, &LinkInfo::carrierChanges, Wire::Reported>(),
    field<IFLA_TSO_MAX_SIZE, &LinkInfo::tsoMaxSize, Wire::Reported>(),
    field<IFLA_TSO_MAX_SEGS, &LinkInfo::tsoMaxSegs, Wire::Reported>(),
});

}  // namespace fastlink::rtnl
