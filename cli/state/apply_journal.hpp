// The journal of `fastlink apply` for the namespace a command runs in (state/apply_command.cpp), for
// the commands built on apply (state/nmstatectl_command.cpp).
#pragma once

#include <string>

#include "kit/command.hpp"
#include "fastlink/state.hpp"

namespace fastlink::cli {

/// The namespace's journal: under $FASTLINK_RUN_DIR (default /run/fastlink), one directory per
/// network namespace, named by the namespace's cookie (the same for `-n NAME` and for a process
/// inside it).
Checkpoint checkpointOf(const Context& ctx);
/// $FASTLINK_RUN_DIR, default /run/fastlink: the journals, and the parsed-document cache in
/// documents/ (a document is the same in every namespace).
std::string runDirectory();

}  // namespace fastlink::cli
