// Network namespace references: where a socket works, or where a link is moved.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <sys/types.h>

namespace fastlink {

/// Refers to a network namespace by name (under /run/netns), by path, by an open fd, or by pid.
class Netns {
 public:
  enum class Kind { Name, Path, Fd, Pid };

  static Netns named(std::string name);  ///< like `ip -n NAME`
  static Netns path(std::string path);   ///< e.g. /proc/123/ns/net
  static Netns fd(int fd);               ///< borrowed: the caller keeps it open
  static Netns pid(pid_t pid);

  Kind kind() const { return kind_; }
  const std::string& text() const { return text_; }
  int rawFd() const { return fd_; }
  pid_t rawPid() const { return pid_; }
  std::string toString() const;

  friend bool operator==(const Netns& a, const Netns& b) {
    return a.kind_ == b.kind_ && a.text_ == b.text_ && a.fd_ == b.fd_ && a.pid_ == b.pid_;
  }

 private:
  Netns(Kind kind, std::string text, int fd, pid_t pid) : kind_(kind), text_(std::move(text)), fd_(fd), pid_(pid) {}
  Kind kind_;
  std::string text_;
  int fd_ = -1;
  pid_t pid_ = 0;
};

/// The namespace's cookie (SO_NETNS_COOKIE, kernel 5.14+): unique for the machine's uptime and
/// never given to another namespace, unlike its inode number, which the kernel reuses as soon as
/// the namespace is freed. Empty `ns` = the calling thread's namespace.
uint64_t netnsCookie(const std::optional<Netns>& ns = std::nullopt);

/// An open namespace file descriptor (closed on destruction).
class NetnsHandle {
 public:
  /// Opens the namespace; throws fastlink::Error if it does not exist. For Kind::Fd the fd is
  /// borrowed, for Kind::Pid no fd is opened (pid() is set instead).
  static std::shared_ptr<NetnsHandle> open(const Netns& ns);
  ~NetnsHandle();
  NetnsHandle(const NetnsHandle&) = delete;
  NetnsHandle& operator=(const NetnsHandle&) = delete;

  int fd() const { return fd_; }
  pid_t pid() const { return pid_; }

 private:
  NetnsHandle(int fd, bool owned, pid_t pid) : fd_(fd), owned_(owned), pid_(pid) {}
  int fd_;
  bool owned_;
  pid_t pid_;
};

}  // namespace fastlink
