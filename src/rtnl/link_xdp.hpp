// Decoding the XDP part of an RTM_NEWLINK reply (shared by the link decoder, the link view and
// XdpApi::status in src/xdp/, which builds on rtnl).
#pragma once

#include <linux/netlink.h>

#include "fastlink/xdp_status.hpp"

namespace fastlink::rtnl {

/// The IFLA_XDP nest of a link message as program ids per mode (all 0 when absent).
XdpStatus decodeXdpStatus(const nlmsghdr* message);
/// The IFLA_XDP nest itself (what the link decoder puts in LinkInfo::xdp).
XdpStatus decodeXdpStatusNest(const nlattr* nest);

}  // namespace fastlink::rtnl
