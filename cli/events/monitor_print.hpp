// Printing events as `ip monitor` prints them (text), or as one JSON object per line.
#pragma once

#include <cstdint>
#include <string>

#include "fastlink/events.hpp"
#include "kit/device_names.hpp"
#include "kit/netns_names.hpp"
#include "kit/writer.hpp"

namespace fastlink::cli {

/// Appends the event's text (without the [LINK]-style banner and nsid prefix), one or more
/// lines, each ending in '\n'. A link's nsid is printed as `link-netns NAME` where `netns` knows it.
void appendEventText(std::string& out, const Event& e, DeviceNames& names, NetnsNames& netns);
/// Writes the event as one JSON object (the caller ends the element): "event", "object", the
/// fields of `fastlink -j OBJECT show`, and "nsid" when set.
void writeEventJson(JsonOut& json, const Event& e, DeviceNames& names);

}  // namespace fastlink::cli
