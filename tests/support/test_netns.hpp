// Test support: a throwaway named network namespace per test, and `ip -j` as the oracle.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace fastlink::test {

/// Result of running a shell command.
struct CommandResult {
  int status = -1;  ///< exit status, or -1 if it did not exit normally
  std::string out;  ///< stdout
  std::string err;  ///< stderr
};

/// Runs `command` with /bin/sh and captures stdout and stderr.
CommandResult run(const std::string& command);

/// A fresh network namespace (`ip netns add`), deleted when the object goes away, also when the
/// test fails. The whole test run additionally happens inside `unshare --net --mount` (see
/// scripts/test), so even a crashed test cannot leave a namespace on the host.
class TestNetns {
 public:
  TestNetns();
  ~TestNetns();
  TestNetns(const TestNetns&) = delete;
  TestNetns& operator=(const TestNetns&) = delete;

  const std::string& name() const { return name_; }
  /// Runs `ip -n NS <args>`; fails the test on a non-zero exit.
  std::string ip(const std::string& args) const;
  /// Runs `ip -n NS -j <args>` and parses the JSON output.
  nlohmann::json ipJson(const std::string& args) const;
  /// Runs `ip -n NS -batch` over `lines` (one ip process for many objects); fails the test on
  /// a non-zero exit.
  void ipBatch(const std::vector<std::string>& lines) const;
  /// Runs a command inside the namespace (`ip netns exec NS sh -c ...`).
  CommandResult exec(const std::string& command) const;
  /// Reads /sys/class/net/DEV/FILE as seen from inside the namespace.
  std::string sysfs(const std::string& dev, const std::string& file) const;

 private:
  std::string name_;
};

/// iproute2 6.1 prints `{}` for every device its `group G` filter drops (`ip -j link show group
/// 10`); the oracle removes those empty objects from a top-level array.
nlohmann::json dropEmptyObjects(nlohmann::json j);

/// True when the kernel can create links of `kind` (probed once in a scratch namespace).
bool kernelHasKind(const std::string& kind);

/// Names of kinds the environment says must be present (FASTLINK_REQUIRE_KINDS=dummy,vlan,...):
/// in the VM the kernel has them, so a skip would hide a real failure.
bool kindRequired(const std::string& kind);

}  // namespace fastlink::test

/// Skips the test with a visible reason when the kernel lacks a link kind, unless the
/// environment requires the kind (then it fails instead).
#define FASTLINK_REQUIRE_KIND(kind)                                                                      \
  do {                                                                                                   \
    if (!::fastlink::test::kernelHasKind(kind)) {                                                        \
      if (::fastlink::test::kindRequired(kind)) FAIL() << "kernel lacks link kind '" << kind << "' but FASTLINK_REQUIRE_KINDS requires it"; \
      GTEST_SKIP() << "kernel lacks link kind '" << kind << "': covered by unit tests here, runs for real in the VM (tests/vm)"; \
    }                                                                                                    \
  } while (0)
