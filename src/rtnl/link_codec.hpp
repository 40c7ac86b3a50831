// LinkInfo <-> RTM_NEWLINK/RTM_GETLINK/RTM_DELLINK messages.
#pragma once

#include <linux/netlink.h>

#include <functional>

#include "fastlink/link.hpp"
#include "fastlink/link_view.hpp"
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
const char* operStateWord(uint8_t state);
/// IFLA_LINKMODE as `ip link` prints it: "DORMANT" or "DEFAULT".
const char* linkModeWord(uint8_t mode);

// The pieces of a link's decoding outside the attribute table, shared by decodeLink and LinkView.
/// The last attribute of `type` in `payload` (a nest's), or nullptr.
const nlattr* lastAttr(std::span<const uint8_t> payload, uint16_t type);
/// IFLA_INFO_KIND / IFLA_INFO_SLAVE_KIND of an IFLA_LINKINFO nest.
std::optional<std::string> linkInfoString(const nlattr* linkinfo, uint16_t type);
/// An IFLA_LINKINFO nest into `link`: kind, slaveKind, the kind's options and the port data
/// (each by its kind's codec; what no codec decodes kept raw). decodeLink and linkKindInfo.
void decodeLinkInfoNest(const nlattr* nest, LinkInfo& link);
/// IFLA_AF_SPEC -> AF_INET6 -> IFLA_INET6_ADDR_GEN_MODE.
std::optional<Ipv6AddrGenMode> addrGenModeOf(const nlattr* afSpec);
/// IFLA_STATS64 (an older kernel's shorter struct is read as far as it goes).
LinkStats decodeStats(const nlattr* stats64);

/// forEachLink (fastlink/link_view.hpp) over an engine (the unit tests' fake kernel).
void forEachLinkView(core::Engine& engine, const LinkFilter& filter, const std::function<void(const LinkView&)>& each,
                     const std::function<void()>& restart);

/// A short iproute2-style description of a link request, for error messages.
std::string describeLink(const std::string& verb, const LinkInfo& link);

}  // namespace fastlink::rtnl
