// The files fastlink keeps on disk (tune's snapshots, apply's journal) are written whole:
// a reader, or the next fastlink after a crash, sees the old version or the new one.
#pragma once

#include <string>

namespace fastlink::core {

/// `mkdir -p` with mode 0700; errors are named "OPERATION: mkdir PART".
void makeDirectories(const std::string& path, const std::string& operation);

enum class Durability {
  Volatile,  ///< temporary file + rename: never half a file (enough on a tmpfs such as /run)
  Synced,    ///< and fsync of the file and its directory: a crash cannot lose it either
};

/// Replaces `path` with `text` (through `path.new`, then rename); errors are named
/// "OPERATION: open|write|fsync|rename FILE".
void replaceWholeFile(const std::string& path, const std::string& text, const std::string& operation, Durability durability);

}  // namespace fastlink::core
