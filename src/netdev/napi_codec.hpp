// The netdev family's NAPI_GET reply (one NAPI instance per message) as NapiInfo, apart from the
// socket so that the fuzz harness (tests/fuzz/fuzz_decode_napi.cpp) can feed it any bytes.
#pragma once

#include <linux/netlink.h>

#include "fastlink/napi.hpp"

namespace fastlink::netdev {

/// A NETDEV_CMD_NAPI_GET reply message as NapiInfo: the attributes the kernel sent are set, the
/// others keep their defaults (`threaded` unset on kernels before 6.17).
/// Throws Error(Errc::malformed_reply) when the message or an attribute is shorter than its type.
NapiInfo decodeNapi(const nlmsghdr* message);

}  // namespace fastlink::netdev
