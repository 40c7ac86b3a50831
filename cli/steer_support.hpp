// What the steer and tune commands share: CPU list syntax and the -n namespace's sysfs.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace fastlink::cli {

/// "0-3,6" or "none" to CPU numbers; UsageError on other text.
std::vector<unsigned> parseCpuList(const std::string& text);
/// CPU numbers as "0-3,6" ("none" when empty).
std::string cpuListText(const std::vector<unsigned>& cpus);
/// With -n NS: a private mount namespace with NS's sysfs on /sys, like `ip netns exec`.
void enterSysfsOf(const std::optional<std::string>& netns);

}  // namespace fastlink::cli
