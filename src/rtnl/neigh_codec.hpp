// NeighInfo <-> RTM_NEWNEIGH/RTM_DELNEIGH/RTM_GETNEIGH messages (families AF_INET, AF_INET6).
#pragma once

#include <linux/neighbour.h>
#include <linux/netlink.h>

#include <string>

#include "fastlink/neigh.hpp"
#include "core/attr_fields.hpp"
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

/// What decoding a neighbour and an fdb entry share: the ndmsg (returned), the device, the NTF_*
/// bits, the attributes by `fields`, and NDA_CACHEINFO handed to `ages`. Errors name `noun`
/// ("short fdb message") or `what` ("decode fdb").
template <class Info, class Fields, std::size_t N, class Ages>
const ndmsg& decodeNdmsg(const nlmsghdr* message, const char* noun, const char* what, Info& out, const Fields& fields,
                         const FlagBit<Info> (&bits)[N], Ages&& ages) {
  const auto& ndm = headerOf<ndmsg>(message, noun);
  out.dev = Ifref(static_cast<uint32_t>(ndm.ndm_ifindex));
  out.flags = ndm.ndm_flags;
  decodeBits(ndm.ndm_flags, out, bits);
  fields.decodeAll(attrsOf(message, sizeof(ndmsg)), out, {what}, [&](const nlattr* a) {
    auto ci = readCacheinfo(a, what);
    if (ci) ages(*ci);
    return ci.has_value();
  });
  return ndm;
}

/// Decodes one RTM_NEWNEIGH message of family AF_INET or AF_INET6.
NeighInfo decodeNeigh(const nlmsghdr* message);

}  // namespace fastlink::rtnl
