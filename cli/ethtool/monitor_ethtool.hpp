// `fastlink monitor ethtool [dev DEV]`: the ethtool family's notifications (channels, rings,
// features, coalescing) as `ethtool --monitor` prints them, or one JSON object per line.
#pragma once

#include <optional>
#include <string>

#include "kit/command.hpp"

namespace fastlink {
class Netlink;
}

namespace fastlink::cli {

/// Runs until stdout is closed (exit 0) or the subscription fails (an Error, thrown). `dev`
/// limits the output to one device. Equivalent to: ethtool --monitor
int monitorEthtool(Netlink& netlink, const GlobalOptions& global, const std::optional<std::string>& dev);

}  // namespace fastlink::cli
