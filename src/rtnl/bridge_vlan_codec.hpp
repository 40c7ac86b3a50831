// BridgeVlanInfo <-> RTM_SETLINK/RTM_DELLINK (PF_BRIDGE, IFLA_AF_SPEC) and the VLAN dump.
#pragma once

#include <linux/netlink.h>

#include <string>
#include <vector>

#include "fastlink/bridge_vlan.hpp"
#include "rtnl/codec_helpers.hpp"

namespace fastlink::rtnl {

/// Validates and encodes an Add (RTM_SETLINK) or Del (RTM_DELLINK): ifinfomsg and IFLA_AF_SPEC.
/// `dev` must be an ifindex. Throws Error(EINVAL) on bad input before anything is sent.
Request encodeBridgeVlan(const BridgeVlanInfo& vlan, Verb verb);

/// Writes the dump request: RTM_GETLINK, PF_BRIDGE, IFLA_EXT_MASK with RTEXT_FILTER_BRVLAN(_COMPRESSED).
void encodeBridgeVlanDump(core::MessageWriter& writer, bool compressed);

/// Decodes the VLANs of one RTM_NEWLINK (family AF_BRIDGE) message, ranges joined.
std::vector<BridgeVlanInfo> decodeBridgeVlans(const nlmsghdr* message);

}  // namespace fastlink::rtnl
