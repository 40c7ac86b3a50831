// NexthopInfo <-> RTM_NEWNEXTHOP/RTM_DELNEXTHOP/RTM_GETNEXTHOP messages.
#pragma once

#include <linux/netlink.h>

#include "fastlink/nexthop.hpp"
#include "rtnl/codec_helpers.hpp"

namespace fastlink::rtnl {

/// Validates and encodes an Add, Replace or Del (by id) request. Devices must be ifindexes.
Request encodeNexthop(const NexthopInfo& nexthop, Verb verb);
/// RTM_GETNEXTHOP for one id.
void encodeNexthopGet(core::MessageWriter& writer, uint32_t id);
/// The dump request with the kernel filters (oif: resolved ifindex of filter.dev, 0 = none).
void encodeNexthopDump(core::MessageWriter& writer, const NexthopFilter& filter, uint32_t oif);
/// Decodes one RTM_NEWNEXTHOP message.
NexthopInfo decodeNexthop(const nlmsghdr* message);

}  // namespace fastlink::rtnl
