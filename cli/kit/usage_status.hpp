// `OBJECT help` as ip answers it.
#pragma once

#include <string>

namespace fastlink::cli {

/// `OBJECT help` as ip's usage() answers it: the usage on stderr, status 255 (every object of
/// ip 6.1 but `stats`, whose help exits 0; bridge's fdb and vlan too). Returns the status.
/// runObject and runShowOnly (kit/command.hpp) answer `help` with it.
int printUsage(const std::string& usage);

}  // namespace fastlink::cli
