// The mptcp_pm family's replies as typed values, apart from the socket so that the golden tests
// and the fuzz harness (tests/fuzz/fuzz_decode_mptcp.cpp) can feed them any bytes.
#pragma once

#include <linux/netlink.h>

#include "fastlink/mptcp.hpp"

namespace fastlink::mptcp {

/// A MPTCP_PM_CMD_GET_ADDR reply (one endpoint per message, as a dump part or a `do`'s answer).
/// Throws Error(Errc::malformed_reply) when the message has no address nest, or an attribute is
/// shorter than its type or an address of neither 4 nor 16 bytes.
MptcpEndpoint decodeEndpoint(const nlmsghdr* message);
/// A MPTCP_PM_CMD_GET_LIMITS reply: the limits the kernel sent are set.
MptcpLimits decodeLimits(const nlmsghdr* message);

}  // namespace fastlink::mptcp
