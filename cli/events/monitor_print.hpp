// Printing events as `ip monitor` prints them (text), or as one JSON object per line.
#pragma once

#include <cstdint>
#include <string>

#include "fastlink/events.hpp"
#include "kit/command.hpp"
#include "kit/device_names.hpp"
#include "kit/netns_names.hpp"
#include "kit/writer.hpp"

namespace fastlink::cli {

/// Writes the event's text (without the [LINK]-style banner and nsid prefix), one or more lines,
/// each ending in '\n': a link by the printer of `link show` (printLinkEvent: ip's print_linkinfo
/// serves both `ip link show` and `ip monitor link`), the other objects formatted into `scratch`
/// by appendEventText. A link's nsid is printed as `link-netns NAME` where `netns` knows it.
/// `devFiltered` (`monitor ... dev DEV`): a route's and a neighbour's line leave the device out, as ip's.
void putEventText(OutBuffer& out, std::string& scratch, const Event& e, DeviceNames& names, NetnsNames& netns,
                  const GlobalOptions& options, bool devFiltered = false);
/// The text of an event that is no link's (tc's watch prints filter events so), appended to
/// `out`; a link event throws std::logic_error (it is putEventText's).
void appendEventText(std::string& out, const Event& e, DeviceNames& names, NetnsNames& netns, bool devFiltered = false);
/// Writes the event as one JSON object (the caller ends the element): "event", "object", the
/// fields of `fastlink -j OBJECT show`, and "nsid" when set.
void writeEventJson(JsonOut& json, const Event& e, DeviceNames& names, const GlobalOptions& options);

}  // namespace fastlink::cli
