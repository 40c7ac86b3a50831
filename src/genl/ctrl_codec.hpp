// The controller family ("nlctrl", fixed id GENL_ID_CTRL): CTRL_CMD_GETFAMILY requests and the
// CTRL_CMD_NEWFAMILY replies that describe a family.
#pragma once

#include <linux/netlink.h>

#include <optional>
#include <string_view>

#include "core/message.hpp"
#include "fastlink/genl.hpp"

namespace fastlink::genl {

/// The controller itself: its id is fixed, so it needs no lookup.
const GenlFamily& controllerFamily();

/// CTRL_CMD_GETFAMILY for one family by name (`genl ctrl get name NAME`).
Request encodeGetFamily(std::string_view name);
/// CTRL_CMD_GETFAMILY without a name, to be sent as a dump (`genl ctrl list`).
Request encodeListFamilies();

/// A CTRL_CMD_NEWFAMILY message as GenlFamilyInfo; std::nullopt for any other message (the
/// controller also sends policy and notification messages on the same socket).
/// Throws Error(Errc::malformed_reply) when an attribute is shorter than its type.
std::optional<GenlFamilyInfo> decodeFamily(const nlmsghdr* message);

}  // namespace fastlink::genl
