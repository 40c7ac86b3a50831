// AddrInfo <-> RTM_NEWADDR/RTM_DELADDR/RTM_GETADDR messages.
#pragma once

#include <linux/rtnetlink.h>

#include "fastlink/addr.hpp"
#include "rtnl/codec_helpers.hpp"

namespace fastlink::rtnl {

/// Validates and encodes an address request (Add, Replace, Del). Throws Error(EINVAL) on bad input.
Request encodeAddr(const AddrInfo& addr, Verb verb);
/// The dump request: family and ifindex in the header (the kernel filters on both).
void encodeAddrDump(core::MessageWriter& writer, const AddrFilter& filter, uint32_t ifindex);
/// True for RTM_NEWADDR messages of IPv4/IPv6.
inline bool isIpAddr(const nlmsghdr* m) { return m->nlmsg_type == RTM_NEWADDR && hasFamily(m, kIpFamilies); }
AddrInfo decodeAddr(const nlmsghdr* message);

}  // namespace fastlink::rtnl
