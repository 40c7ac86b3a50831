// File access for steering settings (see sysfs_file.hpp).
#include "steer/sysfs_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <system_error>

#include "core/whole_file.hpp"

namespace fastlink::steer {

Error fileError(int err, const std::string& operation, const std::string& why) {
  return Error(std::error_code(err, std::generic_category()), operation, why);
}

Error noDevice(const std::string& operation, const std::string& device) {
  return fileError(ENODEV, operation, "no device \"" + device + "\" in this sysfs (sysfs shows the namespace that mounted it)");
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

std::string readFile(const std::string& path) {
  std::optional<std::string> text = core::readWholeFile(path);
  if (!text) throw fileError(errno, "cat " + path);
  while (!text->empty() && (text->back() == '\n' || text->back() == ' ')) text->pop_back();
  return std::move(*text);
}

// O_TRUNC as the shell's `>` does (the test tree uses regular files). One write() of the whole value: sysfs stores take the value in one call and report the
// kernel's refusal (EINVAL, EIO when no CPU of a mask is usable) as the write's errno.
void writeFile(const std::string& path, const std::string& value) {
  std::string op = "echo " + value + " > " + path;
  core::Fd file{::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC)};
  if (file.fd < 0) throw fileError(errno, op);
  ssize_t n = ::write(file.fd, value.data(), value.size());
  if (n < 0) throw fileError(errno, op);
  if (static_cast<std::size_t>(n) != value.size()) throw fileError(EIO, op, "short write");
}

std::string cpuList(const std::vector<unsigned>& cpus) {
  if (cpus.empty()) return "none";
  std::string s;
  for (unsigned c : cpus) s += (s.empty() ? "" : ",") + std::to_string(c);
  return s;
}

std::vector<unsigned> parseCpuList(const std::string& text, const std::string& path) {
  std::vector<unsigned> cpus;
  if (text.empty()) return cpus;
  std::size_t start = 0;
  for (;;) {
    std::size_t comma = text.find(',', start);
    std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    std::size_t dash = part.find('-');
    try {
      std::size_t used = 0;
      unsigned lo = static_cast<unsigned>(std::stoul(part.substr(0, dash), &used));
      unsigned hi = dash == std::string::npos ? lo : static_cast<unsigned>(std::stoul(part.substr(dash + 1)));
      if (hi < lo || hi > 65535) throw std::out_of_range("range");
      for (unsigned c = lo; c <= hi; ++c) cpus.push_back(c);
    } catch (const std::exception&) {
      throw Error(make_error_code(Errc::malformed_reply), "cat " + path, "not a CPU list: \"" + text + "\"");
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return cpus;
}

}  // namespace fastlink::steer
