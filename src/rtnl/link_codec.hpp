// LinkInfo <-> RTM_NEWLINK/RTM_GETLINK/RTM_DELLINK messages.
#pragma once

#include <linux/netlink.h>

#include "core/message.hpp"
#include "fastlink/link.hpp"
#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {

/// What the message is for; decides which fields are allowed.
enum class LinkEncodeMode { Create, Change, Group };

/// Validates `link` for `mode` and writes its header and attributes. Throws Error(EINVAL) on bad
/// input before anything is sent.
/// `device`, when given, names the device a Change applies to (ifindex, or IFLA_IFNAME) instead
/// of link.index / link.name; link.name then means a rename.
void encodeLink(core::MessageWriter& writer, const LinkInfo& link, LinkEncodeMode mode, KeepAlive& keep,
                const Ifref* device = nullptr);

/// Decodes one RTM_NEWLINK message (from a get or a dump).
LinkInfo decodeLink(const nlmsghdr* message, bool withStats);

/// The kernel's operstate names, as `ip link` prints them.
std::string operStateName(uint8_t state);

/// A short iproute2-style description of a link request, for error messages.
std::string describeLink(const char* verb, const LinkInfo& link);

}  // namespace fastlink::rtnl
