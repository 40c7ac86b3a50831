// Decoding the XDP part of an RTM_NEWLINK reply (shared by XdpApi and the link decoder).
#pragma once

#include <linux/netlink.h>

#include "fastlink/xdp.hpp"

namespace fastlink::xdp {

/// The IFLA_XDP nest of a link message as program ids per mode (all 0 when absent).
XdpStatus decodeStatus(const nlmsghdr* message);
/// The IFLA_XDP nest itself (what the link decoder puts in LinkInfo::xdp).
XdpStatus decodeStatusNest(const nlattr* nest);

}  // namespace fastlink::xdp
