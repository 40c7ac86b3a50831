// Two reads of a LinkView beyond its accessors, in a header of their own (link_view.hpp is
// included wherever link.hpp is, so what only `show`-like callers need is kept out of it):
// a device's kind options decoded alone, and one device got by name or index as a view.
//
//   fastlink::getLinkView(nl, fastlink::Ifref("br0"), [&](const fastlink::LinkView& l) {
//     fastlink::LinkInfo kind = fastlink::linkKindInfo(l);  // kind, bridge options, port data
//   });
#pragma once

#include <functional>

#include "fastlink/link_view.hpp"

namespace fastlink {

/// What IFLA_LINKINFO says, decoded by the same kind codecs as toInfo(): kind, slaveKind, the
/// kind's options (vxlan, bridge, ...) and the port data its master reports; every other field
/// of the LinkInfo is left empty. A printer of the kind (`ip -d`) pays for this nest only, not
/// for the whole device.
LinkInfo linkKindInfo(const LinkView& view);

/// One RTM_GETLINK for `dev` (a name or an ifindex), its reply handed to `each` as a view (valid
/// during the call; counters included, as the kernel sends them to a get). Returns false when
/// there is no such device (ENODEV); any other failure throws, as LinkApi::get.
/// Equivalent to: ip link show dev DEV
bool getLinkView(Netlink& netlink, const Ifref& dev, const std::function<void(const LinkView&)>& each);

}  // namespace fastlink
