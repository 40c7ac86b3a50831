// What the steer and tune commands share: CPU list syntax and the -n namespace's sysfs (tuntap
// show reads that sysfs too).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fastlink {
class Error;
}

namespace fastlink::cli {

/// "0-3,6" or "none" to CPU numbers; UsageError on other text.
std::vector<unsigned> parseCpuList(const std::string& text, std::string_view keyword);
/// A library error as "REASON (OPERATION)"; a device missing from the namespace's sysfs reads
/// `Cannot find device "DEV"`, as in every other command.
std::string failureText(const Error& e, const std::string& dev);
/// CPU numbers as "0-3,6" ("none" when empty).
std::string cpuListText(const std::vector<unsigned>& cpus);
/// With -n NS: a private mount namespace with NS's sysfs on /sys, like `ip netns exec`.
void enterSysfsOf(const std::optional<std::string>& netns);

}  // namespace fastlink::cli
