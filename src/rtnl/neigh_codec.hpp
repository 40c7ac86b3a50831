// NeighInfo <-> RTM_NEWNEIGH/RTM_DELNEIGH/RTM_GETNEIGH messages (families AF_INET, AF_INET6).
#pragma once

#include <linux/netlink.h>

#include <string>

#include "core/message.hpp"
#include "fastlink/neigh.hpp"

namespace fastlink::rtnl {

/// What a neighbour message is for; decides the header defaults and what is allowed.
enum class NeighEncodeMode { Add, Replace, Change, Del };

/// Validates `neigh` and writes its ndmsg and attributes. `dev` must be an ifindex. Throws
/// Error(EINVAL) on bad input before anything is sent.
void encodeNeigh(core::MessageWriter& writer, const NeighInfo& neigh, NeighEncodeMode mode);

/// Writes an RTM_GETNEIGH get request (ndmsg + NDA_DST), valid under strict checking.
void encodeNeighGet(core::MessageWriter& writer, const IpAddress& dst, uint32_t ifindex, bool proxy);

/// Writes a dump request filtered in the kernel: family, NTF_PROXY, NDA_IFINDEX, NDA_MASTER.
void encodeNeighDump(core::MessageWriter& writer, std::optional<IpAddress::Family> family, uint32_t ifindex,
                     uint32_t master, bool proxy);

/// Decodes one RTM_NEWNEIGH message of family AF_INET or AF_INET6.
NeighInfo decodeNeigh(const nlmsghdr* message);

/// "neigh add 10.0.0.2 dev ifindex 3 ..." for error messages.
std::string describeNeigh(const char* verb, const NeighInfo& neigh);

/// The ndmsg family of an IP family.
uint8_t neighFamily(IpAddress::Family family);

}  // namespace fastlink::rtnl
