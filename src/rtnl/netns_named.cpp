// Named network namespaces under /run/netns, as ip/ipnetns.c keeps them (its layout, its
// messages, so that a script sees ip's): files with a namespace bind-mounted on them.
#include "fastlink/netns_named.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstring>
#include <string>
#include <thread>

#include "fastlink/error.hpp"

namespace fastlink {
namespace {

std::string pathOf(const std::string& name) { return std::string(kNetnsRunDir) + "/" + name; }

[[noreturn]] void fail(int err, const std::string& operation, const std::string& message) {
  throw Error(std::error_code(err, std::generic_category()), operation,
              message + ": " + std::generic_category().message(err));
}

/// Names in a directory, "." and ".." left out; none when it cannot be opened (errno kept).
std::vector<std::string> entries(const char* path) {
  std::vector<std::string> names;
  DIR* dir = opendir(path);
  if (!dir) return names;
  while (dirent* e = readdir(dir))
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) names.emplace_back(e->d_name);
  closedir(dir);
  return names;
}

/// The directory exists and is a shared mount point. Done under an exclusive lock on the
/// directory: two ip or fastlink processes making it a mount point at once would stack bind
/// mounts of it (https://bugs.debian.org/949235 locked machines up at boot that way).
void prepareRunDir(const std::string& operation) {
  if (::mkdir(kNetnsRunDir, 0755) != 0 && errno != EEXIST)
    fail(errno, operation, std::string("mkdir ") + kNetnsRunDir + " failed");
  int lock = ::open(kNetnsRunDir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (lock < 0) fail(errno, operation, std::string("Cannot open netns runtime directory \"") + kNetnsRunDir + "\"");
  bool locked = ::flock(lock, LOCK_EX) == 0;  // as ip: go on without the lock if flock fails
  bool madeMountPoint = false;
  int err = 0;
  std::string what;
  while (::mount("", kNetnsRunDir, "none", MS_SHARED | MS_REC, nullptr) != 0) {
    // EINVAL: not a mount point yet. Make it one (a bind mount of itself), then try again.
    if (errno != EINVAL || madeMountPoint) {
      err = errno;
      what = std::string("mount --make-shared ") + kNetnsRunDir + " failed";
      break;
    }
    if (::mount(kNetnsRunDir, kNetnsRunDir, "none", MS_BIND | MS_REC, nullptr) != 0) {
      err = errno;
      what = std::string("mount --bind ") + kNetnsRunDir + " " + kNetnsRunDir + " failed";
      break;
    }
    madeMountPoint = true;
  }
  if (locked) ::flock(lock, LOCK_UN);
  ::close(lock);
  if (err) fail(err, operation, what);
}

/// Creates the file the namespace is bound to; EEXIST when the name is taken.
void createFile(const std::string& path, const std::string& operation) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
  if (fd < 0) fail(errno, operation, "Cannot create namespace file \"" + path + "\"");
  ::close(fd);
}

void checkName(const std::string& name, const std::string& operation) {
  if (!validNetnsName(name))
    throw Error::invalidArgument(operation, "Invalid netns name \"" + name + "\"");
}

/// The (device, inode) of a namespace file, which identifies the namespace.
bool sameNamespace(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

}  // namespace

bool validNetnsName(std::string_view name) {
  return !name.empty() && name.size() <= NAME_MAX && name.find('/') == std::string_view::npos && name != "." &&
         name != "..";
}

std::vector<std::string> listNamedNetns() { return entries(kNetnsRunDir); }

void addNamedNetns(const std::string& name) {
  std::string operation = "netns add " + name;
  checkName(name, operation);
  prepareRunDir(operation);
  std::string path = pathOf(name);
  createFile(path, operation);
  // A thread of our own enters the new namespace and binds it: the caller's threads (and the
  // sockets they open later) stay where they are, and nothing has to be restored on failure.
  int err = 0;
  std::string what;
  std::thread maker([&] {
    if (::unshare(CLONE_NEWNET) != 0) {
      err = errno;
      what = "Failed to create a new network namespace \"" + name + "\"";
      return;
    }
    if (::mount("/proc/thread-self/ns/net", path.c_str(), "none", MS_BIND, nullptr) != 0) {
      err = errno;
      what = "Bind /proc/self/ns/net -> " + path + " failed";
    }
  });
  maker.join();
  if (err) {
    ::umount2(path.c_str(), MNT_DETACH);
    ::unlink(path.c_str());
    fail(err, operation, what);
  }
}

void attachNamedNetns(const std::string& name, pid_t pid) {
  std::string operation = "netns attach " + name + " " + std::to_string(pid);
  checkName(name, operation);
  if (pid <= 0) throw Error::invalidArgument(operation, "Invalid PID: " + std::to_string(pid));
  prepareRunDir(operation);
  std::string path = pathOf(name);
  createFile(path, operation);
  std::string source = "/proc/" + std::to_string(pid) + "/ns/net";
  if (::mount(source.c_str(), path.c_str(), "none", MS_BIND, nullptr) != 0) {
    int err = errno;
    ::unlink(path.c_str());
    fail(err, operation, "Bind " + source + " -> " + path + " failed");
  }
}

void deleteNamedNetns(const std::string& name) {
  std::string operation = "netns delete " + name;
  checkName(name, operation);
  std::string path = pathOf(name);
  ::umount2(path.c_str(), MNT_DETACH);  // as ip: a file nothing is mounted on is removed too
  if (::unlink(path.c_str()) != 0) fail(errno, operation, "Cannot remove namespace file \"" + path + "\"");
}

std::optional<std::string> identifyNetns(pid_t pid) {
  std::string source = pid > 0 ? "/proc/" + std::to_string(pid) + "/ns/net" : "/proc/self/ns/net";
  std::string operation = "netns identify" + (pid > 0 ? " " + std::to_string(pid) : std::string());
  struct stat target {};
  if (::stat(source.c_str(), &target) != 0) fail(errno, operation, "Cannot open network namespace");
  std::optional<std::string> found;
  for (const std::string& name : entries(kNetnsRunDir)) {
    struct stat st {};
    if (::stat(pathOf(name).c_str(), &st) == 0 && sameNamespace(st, target)) found = name;  // the last wins, as in ip
  }
  return found;
}

std::vector<pid_t> netnsPids(const std::string& name) {
  std::string operation = "netns pids " + name;
  checkName(name, operation);
  struct stat target {};
  if (::stat(pathOf(name).c_str(), &target) != 0) fail(errno, operation, "Cannot open network namespace");
  std::vector<pid_t> pids;
  for (const std::string& entry : entries("/proc")) {
    if (entry.empty() || !std::all_of(entry.begin(), entry.end(), [](unsigned char c) { return std::isdigit(c) != 0; }))
      continue;
    struct stat st {};
    if (::stat(("/proc/" + entry + "/ns/net").c_str(), &st) == 0 && sameNamespace(st, target))
      pids.push_back(static_cast<pid_t>(std::stol(entry)));
  }
  return pids;
}

}  // namespace fastlink
