// BridgeVlanInfo <-> RTM_SETLINK/RTM_DELLINK (PF_BRIDGE, IFLA_AF_SPEC) and the VLAN dump.
#pragma once

#include <linux/netlink.h>

#include <string>
#include <vector>

#include "core/message.hpp"
#include "fastlink/bridge_vlan.hpp"

namespace fastlink::rtnl {

/// Validates `vlan` and writes the ifinfomsg and IFLA_AF_SPEC nest of an add (or a delete).
/// `dev` must be an ifindex. Throws Error(EINVAL) on bad input before anything is sent.
void encodeBridgeVlan(core::MessageWriter& writer, const BridgeVlanInfo& vlan, bool del);

/// Writes the dump request: RTM_GETLINK, PF_BRIDGE, IFLA_EXT_MASK with RTEXT_FILTER_BRVLAN(_COMPRESSED).
void encodeBridgeVlanDump(core::MessageWriter& writer, bool compressed);

/// Decodes the VLANs of one RTM_NEWLINK (family AF_BRIDGE) message, ranges joined.
std::vector<BridgeVlanInfo> decodeBridgeVlans(const nlmsghdr* message);

std::string describeBridgeVlan(const char* verb, const BridgeVlanInfo& vlan);

}  // namespace fastlink::rtnl
