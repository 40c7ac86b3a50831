#include "core/whole_file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

#include "fastlink/error.hpp"

namespace fastlink::core {
namespace {

[[noreturn]] void fail(const std::string& operation, const char* call, const std::string& file) {
  throw Error(std::error_code(errno, std::generic_category()), operation + ": " + call + " " + file);
}

void syncDirectoryOf(const std::string& path, const std::string& operation) {
  std::string directory = path.substr(0, path.rfind('/') == std::string::npos ? 0 : path.rfind('/'));
  if (directory.empty()) directory = path.front() == '/' ? "/" : ".";
  Fd dir{::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (dir.fd < 0 || ::fsync(dir.fd) != 0) fail(operation, "fsync", directory);
}

}  // namespace

std::optional<std::string> readWholeFile(const std::string& path) {
  Fd file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) return std::nullopt;
  std::string text;
  char block[4096];
  for (;;) {
    ssize_t n = ::read(file.fd, block, sizeof block);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) return text;
    text.append(block, static_cast<std::size_t>(n));
  }
}

std::vector<std::string> directoryEntries(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") out.push_back(name);
  }
  ::closedir(d);
  return out;
}

void makeDirectories(const std::string& path, const std::string& operation) {
  for (std::size_t at = 0; at != std::string::npos;) {
    at = path.find('/', at + 1);
    std::string part = path.substr(0, at);
    if (::mkdir(part.c_str(), 0700) != 0 && errno != EEXIST) fail(operation, "mkdir", part);
  }
}

void replaceWholeFile(const std::string& path, const std::string& text, const std::string& operation, Durability durability) {
  std::string temporary = path + ".new";
  {
    Fd file{::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)};
    if (file.fd < 0) fail(operation, "open", temporary);
    for (std::size_t done = 0; done < text.size();) {
      ssize_t n = ::write(file.fd, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        int err = errno;
        ::unlink(temporary.c_str());
        errno = err;
        fail(operation, "write", temporary);
      }
      done += static_cast<std::size_t>(n);
    }
    if (durability == Durability::Synced && ::fsync(file.fd) != 0) fail(operation, "fsync", temporary);
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) fail(operation, "rename", temporary);
  if (durability == Durability::Synced) syncDirectoryOf(path, operation);
}

}  // namespace fastlink::core
