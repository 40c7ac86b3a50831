// The one way a command reports a failed request (kept out of command.hpp, which every command
// includes, so that the few files that report failures are all that depend on it).
#pragma once

#include <string_view>

#include "fastlink/error.hpp"

namespace fastlink::cli {

/// Prints `Error: <reason> (<operation>)` on stderr, the reason being the kernel's extack, else
/// the errno text, `Cannot find device "DEVICE"` for ENODEV when `device` names the request's
/// device; returns ip's exit status for it (exitStatusOf: 1 for ENODEV, else 2). A command that
/// keeps its own tool's statuses ignores the return value.
int reportFailure(const Error& error, std::string_view device = {});

}  // namespace fastlink::cli
