// FdbInfo <-> RTM_NEWNEIGH/RTM_DELNEIGH/RTM_GETNEIGH messages of family AF_BRIDGE.
#pragma once

#include <linux/netlink.h>

#include <string>

#include "core/message.hpp"
#include "fastlink/fdb.hpp"

namespace fastlink::rtnl {

enum class FdbEncodeMode { Add, Append, Replace, Del };

/// Validates `entry` and writes its ndmsg and attributes. `dev` and `via` must be ifindexes.
/// Throws Error(EINVAL) on bad input before anything is sent.
void encodeFdb(core::MessageWriter& writer, const FdbInfo& entry, FdbEncodeMode mode);

/// Writes an fdb dump request filtered in the kernel: port in the header, bridge in NDA_MASTER.
void encodeFdbDump(core::MessageWriter& writer, uint32_t bridge, uint32_t dev);

/// Decodes one RTM_NEWNEIGH message of family AF_BRIDGE.
FdbInfo decodeFdb(const nlmsghdr* message);

/// "fdb add aa:bb:cc:dd:ee:ff dev 3 master static vlan 10" for error messages.
std::string describeFdb(const char* verb, const FdbInfo& entry);

}  // namespace fastlink::rtnl
