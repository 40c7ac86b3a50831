// LinkInfo <-> RTM_NEWLINK/RTM_GETLINK/RTM_DELLINK messages.
#pragma once

#include <linux/netlink.h>

#include "fastlink/link.hpp"
#include "rtnl/codec_helpers.hpp"
#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {

/// Validates `link` for `verb` and writes its header and attributes. Throws Error(EINVAL) on bad
/// input before anything is sent. Add and Replace create; Set changes `device` (ifindex, or
/// IFLA_IFNAME) instead of link.index / link.name, link.name then meaning a rename; a Set
/// without a device changes a whole group (the caller adds IFLA_GROUP).
void encodeLink(core::MessageWriter& writer, const LinkInfo& link, Verb verb, KeepAlive& keep,
                const Ifref* device = nullptr);

/// Decodes one RTM_NEWLINK message (from a get or a dump).
LinkInfo decodeLink(const nlmsghdr* message, bool withStats);

/// The kernel's operstate names, as `ip link` prints them.
std::string operStateName(uint8_t state);

/// A short iproute2-style description of a link request, for error messages.
std::string describeLink(const std::string& verb, const LinkInfo& link);

}  // namespace fastlink::rtnl
