// CPU lists and the -n namespace's sysfs for the steer and tune commands.
#include "steer/steer_support.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sched.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

#include "kit/args.hpp"
#include "fastlink/error.hpp"

namespace fastlink::cli {

std::vector<unsigned> parseCpuList(const std::string& text, std::string_view keyword) {
  std::vector<unsigned> cpus;
  if (text == "none") return cpus;
  // The message names the keyword and the whole list as typed (like the kernel's cpulist
  // parser, which refuses the whole write), not just the piece that failed.
  auto cpu = [&](const std::string& piece) {
    try {
      return parseU32(piece, "cpu", 0, 4095);
    } catch (const UsageError&) {
      throw UsageError(fmt::format("{}: \"{}\" is not a CPU list (like 0-3,6 or none; CPUs 0-4095)", keyword, text));
    }
  };
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    std::size_t dash = part.find('-');
    unsigned lo = cpu(part.substr(0, dash));
    unsigned hi = dash == std::string::npos ? lo : cpu(part.substr(dash + 1));
    if (hi < lo) throw UsageError(fmt::format("{}: CPU range \"{}\" goes backwards", keyword, part));
    for (unsigned c = lo; c <= hi; ++c) cpus.push_back(c);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return cpus;
}

std::string failureText(const Error& e, const std::string& dev) {
  // With -n NS the sysfs read is the namespace's own (enterSysfsOf), so ENODEV means the device
  // is not there, not that sysfs shows another namespace.
  std::string reason = e.code() == std::errc::no_such_device ? fmt::format("Cannot find device \"{}\"", dev) : e.reason();
  return reason + " (" + e.operation() + ")";
}

std::string cpuListText(const std::vector<unsigned>& cpus) {
  if (cpus.empty()) return "none";
  std::string s;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    s += (s.empty() ? "" : ",") + (i == j ? std::to_string(cpus[i]) : fmt::format("{}-{}", cpus[i], cpus[j]));
    i = j + 1;
  }
  return s;
}

/// With -n NS: a private mount namespace with NS's sysfs on /sys, like `ip netns exec`.
void enterSysfsOf(const std::optional<std::string>& netns) {
  if (!netns) return;
  auto fail = [&](const std::string& what) {
    throw Error(std::error_code(errno, std::generic_category()), "steer -n " + *netns, what);
  };
  if (::unshare(CLONE_NEWNS) != 0) fail("cannot make a private mount namespace");
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_SLAVE, nullptr) != 0) fail("cannot make mounts private");
  int fd = ::open(("/run/netns/" + *netns).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("cannot open network namespace \"" + *netns + "\"");
  int err = 0;
  // setns in a helper thread: this process's own sockets stay where they are.
  std::thread t([&] {
    if (::setns(fd, CLONE_NEWNET) != 0) err = errno;
    else if (::umount2("/sys", MNT_DETACH) != 0 && errno != EINVAL) err = errno;
    else if (::mount("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0) err = errno;
  });
  t.join();
  ::close(fd);
  if (err) {
    errno = err;
    fail("cannot mount the namespace's sysfs");
  }
}

}  // namespace fastlink::cli
