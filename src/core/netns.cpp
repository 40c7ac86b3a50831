#include "fastlink/netns.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "core/netns_guard.hpp"
#include "fastlink/error.hpp"

namespace fastlink {

Netns Netns::named(std::string name) { return Netns(Kind::Name, std::move(name), -1, 0); }
Netns Netns::path(std::string path) { return Netns(Kind::Path, std::move(path), -1, 0); }
Netns Netns::fd(int fd) { return Netns(Kind::Fd, {}, fd, 0); }
Netns Netns::pid(pid_t pid) { return Netns(Kind::Pid, {}, -1, pid); }

std::string Netns::toString() const {
  switch (kind_) {
    case Kind::Name: return text_;
    case Kind::Path: return text_;
    case Kind::Fd: return "fd " + std::to_string(fd_);
    case Kind::Pid: return "pid " + std::to_string(pid_);
  }
  return {};
}

std::shared_ptr<NetnsHandle> NetnsHandle::open(const Netns& ns) {
  if (ns.kind() == Netns::Kind::Fd) return std::shared_ptr<NetnsHandle>(new NetnsHandle(ns.rawFd(), false, 0));
  if (ns.kind() == Netns::Kind::Pid) return std::shared_ptr<NetnsHandle>(new NetnsHandle(-1, false, ns.rawPid()));
  std::string path = ns.kind() == Netns::Kind::Name ? "/run/netns/" + ns.text() : ns.text();
  if (ns.kind() == Netns::Kind::Name && (ns.text().empty() || ns.text().find('/') != std::string::npos))
    throw Error::invalidArgument("netns", "invalid network namespace name \"" + ns.text() + "\"");
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    throw Error(std::error_code(err, std::generic_category()), "open network namespace " + ns.toString(),
                "cannot open network namespace \"" + ns.toString() + "\": " + std::generic_category().message(err));
  }
  return std::shared_ptr<NetnsHandle>(new NetnsHandle(fd, true, 0));
}

NetnsHandle::~NetnsHandle() {
  if (owned_ && fd_ >= 0) ::close(fd_);
}

namespace {

// Any socket reports the cookie of the namespace it was created in.
uint64_t cookieOfThisThreadsNamespace() {
  int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw Error(std::error_code(errno, std::generic_category()), "socket(AF_UNIX) for the namespace cookie");
  uint64_t cookie = 0;
  socklen_t len = sizeof cookie;
  int rc = ::getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len);
  int err = errno;
  ::close(fd);
  if (rc != 0)
    throw Error(std::error_code(err, std::generic_category()), "getsockopt SO_NETNS_COOKIE", "the kernel has no namespace cookies (needs 5.14 or later)");
  return cookie;
}

}  // namespace

uint64_t netnsCookie(const std::optional<Netns>& ns) {
  if (!ns) return cookieOfThisThreadsNamespace();
  core::NetnsGuard inside(*ns);
  return cookieOfThisThreadsNamespace();
}

}  // namespace fastlink

namespace fastlink::core {
namespace {

[[noreturn]] void throwErrno(const std::string& operation, int err) {
  throw Error(std::error_code(err, std::generic_category()), operation);
}

}  // namespace

NetnsGuard::NetnsGuard(const Netns& target) {
  auto handle = NetnsHandle::open(target);
  int targetFd = handle->fd();
  int pidFd = -1;
  if (target.kind() == Netns::Kind::Pid) {
    pidFd = ::open(("/proc/" + std::to_string(handle->pid()) + "/ns/net").c_str(), O_RDONLY | O_CLOEXEC);
    if (pidFd < 0) throwErrno("open network namespace of pid " + std::to_string(handle->pid()), errno);
    targetFd = pidFd;
  }
  original_ = ::open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
  if (original_ < 0) {
    int err = errno;
    if (pidFd >= 0) ::close(pidFd);
    throwErrno("open current network namespace", err);
  }
  int rc = setns(targetFd, CLONE_NEWNET);
  int err = errno;
  if (pidFd >= 0) ::close(pidFd);
  if (rc < 0) {
    ::close(original_);
    throw Error(std::error_code(err, std::generic_category()), "enter network namespace " + target.toString());
  }
}

NetnsGuard::~NetnsGuard() {
  // Returning cannot fail with a valid fd of our own namespace; if it somehow did, staying in
  // the wrong namespace silently would be worse than stopping.
  if (setns(original_, CLONE_NEWNET) < 0) std::abort();
  ::close(original_);
}

}  // namespace fastlink::core
