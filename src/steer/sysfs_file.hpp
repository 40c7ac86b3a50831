// File access for steering settings in sysfs and procfs: whole-value reads and single-write
// stores, failures as fastlink::Error naming the shell equivalent.
#pragma once

#include <string>
#include <vector>

#include "fastlink/error.hpp"

namespace fastlink::steer {

Error fileError(int err, const std::string& operation, const std::string& why = {});
/// ENODEV for `operation`: DEV is not in this sysfs (which shows the namespace that mounted it).
Error noDevice(const std::string& operation, const std::string& device);
bool exists(const std::string& path);
/// The file's text without trailing newline/blanks; Error naming `cat PATH` on failure.
std::string readFile(const std::string& path);
/// One write() of the whole value; Error naming `echo VALUE > PATH` with the write's errno.
void writeFile(const std::string& path, const std::string& value);
/// "0,2,3" (or "none").
std::string cpuList(const std::vector<unsigned>& cpus);
/// "0-3,6" (the kernel's cpulist format) to CPU numbers; Error(EINVAL) on other text.
std::vector<unsigned> parseCpuList(const std::string& text, const std::string& path);

}  // namespace fastlink::steer
