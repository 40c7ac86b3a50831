// `fastlink tc filter ...` and `fastlink tc actions ...` (tc_filter_command.cpp), reached from
// the tc command's dispatch (tc_command.cpp).
#pragma once

#include "kit/args.hpp"
#include "kit/command.hpp"

namespace fastlink::cli {

extern const char* const kTcFilterUsage;

/// `tc filter { add | replace | change | del | show } ...` (words after "filter").
int runTcFilter(Context& ctx, Args& args);
/// One batch line `tc filter { add | replace | change | del } ...`.
PreparedRequest prepareTcFilter(Args& args);
/// `tc chain { add | del | get | show } ...` (words after "chain").
int runTcChain(Context& ctx, Args& args);
/// One batch line `tc chain { add | del } ...`.
PreparedRequest prepareTcChain(Args& args);
/// `tc actions { add | del | show } ...` (words after "actions").
int runTcActions(Context& ctx, Args& args);
PreparedRequest prepareTcActions(Args& args);

}  // namespace fastlink::cli
