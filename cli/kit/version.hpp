// The version `fastlink -V` and `nmstatectl --version` print (its own header: a change of it
// recompiles two files, not every command).
#pragma once

namespace fastlink::cli {

constexpr const char* kVersionText = "fastlink 0.1.0";

}  // namespace fastlink::cli
