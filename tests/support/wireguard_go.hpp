// Test support for WireGuard on a host without the kernel module: a wireguard-go device in a
// test namespace, started in the foreground (so its pid is ours to stop), and `wg show dump`
// parsed as the oracle. wireguard-go's socket directory (/var/run/wireguard) is shared by
// every namespace, so each device gets a name unique to this process.
#pragma once

#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <chrono>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "support/settled.hpp"
#include "support/test_netns.hpp"

extern char** environ;

namespace fastlink::test {

inline bool haveWireguardGo() {
  static const bool found = run("command -v wireguard-go >/dev/null").status == 0;
  return found;
}

/// wireguard-go is installed by scripts/setup, so on a host it must be there; the VM image
/// (tests/vm) has no Go programs, and there the kernel backend's own test covers WireGuard
/// (FASTLINK_REQUIRE_KINDS is only set in the VM).
#define FASTLINK_REQUIRE_WIREGUARD_GO()                                                                      \
  do {                                                                                                       \
    if (!::fastlink::test::haveWireguardGo()) {                                                              \
      if (!std::getenv("FASTLINK_REQUIRE_KINDS")) FAIL() << "wireguard-go is missing: run scripts/setup";    \
      GTEST_SKIP() << "no wireguard-go in the VM image: kernel WireGuard runs in WireGuardKernelVm";         \
    }                                                                                                        \
  } while (0)

/// "fwg<pid><n>": at most 15 bytes, unique per process and call.
inline std::string uniqueWgName() {
  static std::atomic<int> n{0};
  return "fwg" + std::to_string(getpid() % 1000000) + "x" + std::to_string(n++ % 100);
}

/// One wireguard-go device inside `ns`, stopped (SIGTERM, by pid) when this goes away.
class WireguardGo {
 public:
  WireguardGo(const TestNetns& ns, std::string name) : name_(std::move(name)) {
    std::vector<std::string> args = {"ip", "netns", "exec", ns.name(), "wireguard-go", "-f", name_};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> env = {"WG_I_PREFER_BUGGY_USERSPACE_TO_POLISHED_KMOD=1", "LOG_LEVEL=error"};
    for (char** e = environ; *e; ++e) env.emplace_back(*e);
    std::vector<char*> envp;
    for (auto& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    // `ip netns exec` execs the program itself, so this pid is wireguard-go's.
    int rc = posix_spawnp(&pid_, "ip", &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) throw std::runtime_error("cannot start wireguard-go");
    std::string sock = "/var/run/wireguard/" + name_ + ".sock";
    // Ready when the socket accepts a connection: wireguard-go binds (the file appears) before
    // it listens, and a test that came in between found the device's UAPI refusing it (the
    // backend then took the device for a kernel one: "is not a WireGuard device"). 20 s: a Go
    // daemon starting on a loaded CI machine beside the sanitizer build (it took over 5 s there).
    bool exited = false;
    bool ready = waitUntil(
        [&] {
          int status = 0;
          exited = waitpid(pid_, &status, WNOHANG) == pid_;
          return exited || accepts(sock);
        },
        std::chrono::seconds(20), std::chrono::milliseconds(10));
    if (exited) {
      pid_ = -1;
      throw std::runtime_error("wireguard-go " + name_ + " exited at start");
    }
    if (ready) return;
    stop();
    throw std::runtime_error("wireguard-go " + name_ + " made no socket in 20 s");
  }
  ~WireguardGo() { stop(); }

  static bool accepts(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode)) return false;
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path.size() >= sizeof addr.sun_path) return ::close(fd), false;
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    ::close(fd);
    return ok;
  }
  WireguardGo(const WireguardGo&) = delete;
  WireguardGo& operator=(const WireguardGo&) = delete;

  const std::string& name() const { return name_; }

 private:
  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    int status = 0;
    for (int i = 0; i < 300 && waitpid(pid_, &status, WNOHANG) == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (waitpid(pid_, &status, WNOHANG) == 0) {
      ::kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
    }
    pid_ = -1;
  }

  std::string name_;
  pid_t pid_ = -1;
};

/// `wg show DEV dump`, parsed: the device line and one line per peer, keyed by public key.
struct WgDump {
  std::vector<std::string> device;  // private, public, port, fwmark
  std::map<std::string, std::vector<std::string>> peers;  // key -> psk, endpoint, ips, hs, rx, tx, keepalive
};

inline std::vector<std::string> splitTabs(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string item;
  while (std::getline(ss, item, '\t')) out.push_back(item);
  return out;
}

inline WgDump wgDump(const TestNetns& ns, const std::string& dev) {
  CommandResult r = ns.exec("wg show " + dev + " dump");
  EXPECT_EQ(r.status, 0) << r.err;
  WgDump d;
  std::stringstream ss(r.out);
  std::string line;
  bool first = true;
  while (std::getline(ss, line)) {
    auto f = splitTabs(line);
    if (first) {
      d.device = f;
      first = false;
    } else if (!f.empty()) {
      d.peers[f[0]] = std::vector<std::string>(f.begin() + 1, f.end());
    }
  }
  return d;
}

}  // namespace fastlink::test
