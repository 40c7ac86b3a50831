// Printing events as `ip monitor` prints them (text), or as one JSON object per line.
#pragma once

#include "fastlink/events.hpp"
#include "kit/command.hpp"
#include "kit/device_names.hpp"
#include "kit/netns_names.hpp"
#include "kit/writer.hpp"

namespace fastlink::cli {

/// Writes the event's text (without the [LINK]-style banner and nsid prefix), one or more lines,
/// each ending in '\n', by the printer of the object's show command, as ip's monitor prints each
/// with its show's (print_linkinfo, print_addrinfo, print_route, ...): a link as `link show`
/// (printLinkEvent), an address as `address show -o` (on two lines), a route as `route show
/// table all`, a neighbour, rule or nexthop as their show; tc's objects as `tc monitor` prints
/// them. A link's nsid is printed as `link-netns NAME` where `netns` knows it. `devFiltered`
/// (`monitor ... dev DEV`): a route's and a neighbour's line leave the device out, as ip's.
void putEventText(OutBuffer& out, const Event& e, DeviceNames& names, NetnsNames& netns, const GlobalOptions& options,
                  bool devFiltered = false);
/// Writes the event as one JSON object (the caller ends the element): "event", "object", the
/// fields of `fastlink -j OBJECT show`, and "nsid" when set.
void writeEventJson(JsonOut& json, const Event& e, DeviceNames& names, const GlobalOptions& options);

}  // namespace fastlink::cli
