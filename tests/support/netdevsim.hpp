// Test support: a netdevsim device (a software NIC with rings and coalescing, which veth lacks)
// moved into a test namespace. Debian's kernels are built without the module; tests/vm/run
// builds it for the VM's kernel, so tests that need it skip on the host and run in the VM.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include "support/settled.hpp"
#include "support/test_netns.hpp"

namespace fastlink::test {

class NetdevsimDevice {
 public:
  static bool available() { return std::filesystem::exists("/sys/bus/netdevsim"); }

  /// Creates device `id` (one port, 4 queues) and moves its netdev into `ns`. name() is empty
  /// when it did not appear or could not be moved (the test fails on that).
  NetdevsimDevice(const TestNetns& ns, unsigned id) : id_(id) {
    std::ofstream("/sys/bus/netdevsim/new_device") << id_ << " 1 4";
    std::string dir = "/sys/bus/netdevsim/devices/netdevsim" + std::to_string(id_) + "/net";
    std::string found;
    // The netdev appears a little after the device (much later under the VM's TCG emulation).
    waitUntil([&] {
      std::error_code error;
      for (const auto& e : std::filesystem::directory_iterator(dir, error)) found = e.path().filename();
      return !found.empty();
    });
    if (!found.empty() && run("ip link set dev " + found + " netns " + ns.name()).status == 0) name_ = found;
  }
  ~NetdevsimDevice() { std::ofstream("/sys/bus/netdevsim/del_device") << id_; }
  NetdevsimDevice(const NetdevsimDevice&) = delete;
  NetdevsimDevice& operator=(const NetdevsimDevice&) = delete;

  const std::string& name() const { return name_; }

 private:
  unsigned id_;
  std::string name_;
};

}  // namespace fastlink::test
