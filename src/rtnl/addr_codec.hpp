// AddrInfo <-> RTM_NEWADDR/RTM_DELADDR/RTM_GETADDR messages.
#pragma once

#include <linux/netlink.h>

#include "core/message.hpp"
#include "fastlink/addr.hpp"

namespace fastlink::rtnl {

enum class AddrVerb { Add, Replace, Del };

/// Validates and encodes an address request. Throws Error(EINVAL) on bad input.
Request encodeAddr(const AddrInfo& addr, AddrVerb verb);

/// The dump request: family and ifindex in the header (the kernel filters on both).
void encodeAddrDump(core::MessageWriter& writer, const AddrFilter& filter, uint32_t ifindex);

/// True for RTM_NEWADDR messages of IPv4/IPv6.
bool isIpAddr(const nlmsghdr* message);

/// Decodes one RTM_NEWADDR message.
AddrInfo decodeAddr(const nlmsghdr* message);

bool addrMatches(const AddrInfo& addr, const AddrFilter& filter, uint32_t ifindex);

}  // namespace fastlink::rtnl
