// FdbInfo <-> RTM_NEWNEIGH/RTM_DELNEIGH/RTM_GETNEIGH messages of family AF_BRIDGE.
#pragma once

#include <linux/netlink.h>

#include <string>

#include "fastlink/fdb.hpp"
#include "rtnl/codec_helpers.hpp"

namespace fastlink::rtnl {

/// Validates and encodes an Add, Append, Replace or Del request. `dev` and `via` must be
/// ifindexes. Throws Error(EINVAL) on bad input before anything is sent.
Request encodeFdb(const FdbInfo& entry, Verb verb);

/// Writes an fdb dump request filtered in the kernel: port in the header, bridge in NDA_MASTER.
void encodeFdbDump(core::MessageWriter& writer, uint32_t bridge, uint32_t dev);

/// Decodes one RTM_NEWNEIGH message of family AF_BRIDGE.
FdbInfo decodeFdb(const nlmsghdr* message);

}  // namespace fastlink::rtnl
