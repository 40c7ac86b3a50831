// Helpers shared by every rtnetlink codec: keeping unknown attributes, namespaces, ifindexes.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "core/message.hpp"
#include "fastlink/netns.hpp"
#include "fastlink/raw_attributes.hpp"
#include "fastlink/types.hpp"

namespace fastlink::rtnl {

/// Things an encoder must keep alive until the request is sent (open namespace fds).
using KeepAlive = std::vector<std::shared_ptr<const void>>;

/// Writes IFLA_NET_NS_FD / IFLA_NET_NS_PID for moving a device (or a veth peer) to `ns`.
void encodeNetns(core::MessageWriter& writer, const Netns& ns, KeepAlive& keep);

/// Keeps every attribute of a nest that the decoder did not consume.
void keepUnknown(const core::AttrTable& table, const std::vector<uint16_t>& known, RawAttributes& out);

/// The ifindex of an Ifref that must already be resolved; throws Error(EINVAL) for a name.
uint32_t requireIndex(const Ifref& ref, std::string_view what);

}  // namespace fastlink::rtnl
