// `fastlink link show`: text like `ip link show`, JSON like `ip -j link show`.
#pragma once

#include <nlohmann/json.hpp>

#include "args.hpp"
#include "command.hpp"
#include "output.hpp"

namespace fastlink::cli {

/// Runs `link show [[dev] NAME] [type KIND] [master DEV] [group G] [up]`; returns the exit status.
int showLinks(Context& ctx, Args& args);

}  // namespace fastlink::cli
