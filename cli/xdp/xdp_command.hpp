// `link set dev X xdp...` lines (xdp_command.cpp), reached from link_command.cpp.
#pragma once

#include <optional>

#include "kit/args.hpp"
#include "kit/command.hpp"

namespace fastlink::cli {

/// If the line (after `link set`) is `[dev] NAME { xdp | xdpgeneric | xdpdrv | xdpoffload } ...`,
/// consumes it and returns its request (the object file is loaded and the attached program
/// read now, so a replace is guarded by the program seen here); otherwise leaves `args` alone
/// and returns nothing.
std::optional<PreparedRequest> prepareLinkSetXdp(Context& ctx, Args& args);

}  // namespace fastlink::cli
