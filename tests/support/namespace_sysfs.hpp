// A sysfs of a test namespace mounted on a temporary directory (sysfs shows the namespace of
// whoever mounts it), for library calls that take a sysfs root (SteeringApi, TuneApi).
#pragma once

#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <unistd.h>

#include <stdexcept>
#include <string>
#include <thread>

namespace fastlink::test {

/// A sysfs of namespace `ns` mounted on a temporary directory: mounted from a thread that
/// joined the namespace (setns moves only that thread), unmounted when the object goes.
class NamespaceSysfs {
 public:
  explicit NamespaceSysfs(const std::string& ns) {
    char tmpl[] = "/tmp/fastlink-sysfs-XXXXXX";
    if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
    dir_ = tmpl;
    int rc = -1;
    std::thread t([&] {
      int fd = ::open(("/run/netns/" + ns).c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) return;
      if (::setns(fd, CLONE_NEWNET) == 0) rc = ::mount("sysfs", dir_.c_str(), "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr);
      ::close(fd);
    });
    t.join();
    if (rc != 0) {
      ::rmdir(dir_.c_str());
      throw std::runtime_error("cannot mount the namespace's sysfs");
    }
  }
  ~NamespaceSysfs() {
    ::umount2(dir_.c_str(), MNT_DETACH);
    ::rmdir(dir_.c_str());
  }
  const std::string& root() const { return dir_; }

 private:
  std::string dir_;
};

}  // namespace fastlink::test
