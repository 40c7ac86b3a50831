// nsid messages (RTM_NEWNSID, RTM_DELNSID) as typed values, apart from the socket so that the
// golden tests and the fuzz harness (tests/fuzz/fuzz_decode_nsid.cpp) can feed them any bytes.
#pragma once

#include <linux/netlink.h>

#include "fastlink/netns_ids.hpp"

namespace fastlink::rtnl {

/// An RTM_NEWNSID (a get's answer, a dump part, a notification) or RTM_DELNSID message.
/// Throws Error(Errc::malformed_reply) when it is shorter than its rtgenmsg, lacks NETNSA_NSID,
/// or an id is shorter than 4 bytes.
NsidInfo decodeNsid(const nlmsghdr* message);

}  // namespace fastlink::rtnl
