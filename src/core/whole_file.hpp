// The files fastlink keeps on disk (tune's snapshots, apply's journal) are written whole:
// a reader, or the next fastlink after a crash, sees the old version or the new one. Files are
// read whole too (sysfs and procfs values, /proc/PID/stat).
#pragma once

#include <unistd.h>

#include <cerrno>
#include <optional>
#include <string>
#include <vector>

namespace fastlink::core {

/// A file descriptor closed when it goes out of scope.
struct Fd {
  explicit Fd(int descriptor) : fd(descriptor) {}
  ~Fd() {
    int err = errno;  // closing keeps why the last call failed, for the caller to report
    if (fd >= 0) ::close(fd);
    errno = err;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int fd;
};

/// The whole file, read in blocks (a sysfs or procfs file has no size to stat first); nullopt,
/// with errno saying why, when it cannot be opened or read.
std::optional<std::string> readWholeFile(const std::string& path);

/// The names in directory `dir` ("." and ".." left out); none when it cannot be read.
std::vector<std::string> directoryEntries(const std::string& dir);

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
