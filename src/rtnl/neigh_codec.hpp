// NeighInfo <-> RTM_NEWNEIGH/RTM_DELNEIGH/RTM_GETNEIGH messages (families AF_INET, AF_INET6).
#pragma once

#include <linux/neighbour.h>
#include <linux/netlink.h>

#include <string>

#include "fastlink/neigh.hpp"
#include "rtnl/codec_helpers.hpp"

namespace fastlink::rtnl {

/// Validates and encodes an Add, Replace, Set (`ip neigh change`) or Del request. `dev` must be
/// an ifindex. Throws Error(EINVAL) on bad input before anything is sent.
Request encodeNeigh(const NeighInfo& neigh, Verb verb);

/// Writes an RTM_GETNEIGH get request (ndmsg + NDA_DST), valid under strict checking.
void encodeNeighGet(core::MessageWriter& writer, const IpAddress& dst, uint32_t ifindex, bool proxy);

/// Writes a dump request filtered in the kernel: family, NTF_PROXY, NDA_IFINDEX, NDA_MASTER.
void encodeNeighDump(core::MessageWriter& writer, std::optional<IpAddress::Family> family, uint32_t ifindex,
                     uint32_t master, bool proxy);

/// The ndmsg that starts every neighbour-table message (neighbours, and fdb entries of AF_BRIDGE).
ndmsg& putNdmsg(core::MessageWriter& writer, uint8_t family, uint32_t ifindex);

/// The ages in NDA_CACHEINFO, or std::nullopt for any other attribute.
std::optional<nda_cacheinfo> readCacheinfo(const nlattr* attr, const char* what);

/// Decodes one RTM_NEWNEIGH message of family AF_INET or AF_INET6.
NeighInfo decodeNeigh(const nlmsghdr* message);

}  // namespace fastlink::rtnl
