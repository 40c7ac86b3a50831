#include "support/test_netns.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

namespace fastlink::test {

CommandResult run(const std::string& command) {
  char errPath[] = "/tmp/fastlink-test-stderr-XXXXXX";
  int errFd = mkstemp(errPath);
  if (errFd >= 0) close(errFd);
  std::string full = command + " 2>" + errPath;
  CommandResult r;
  FILE* p = popen(full.c_str(), "r");
  if (!p) return r;
  std::array<char, 65536> buf;
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  std::ifstream e(errPath);
  std::stringstream ss;
  ss << e.rdbuf();
  r.err = ss.str();
  unlink(errPath);
  return r;
}

namespace {
std::atomic<int> counter{0};
}

nlohmann::json dropEmptyObjects(nlohmann::json j) {
  if (!j.is_array()) return j;
  nlohmann::json out = nlohmann::json::array();
  for (auto& e : j)
    if (!(e.is_object() && e.empty())) out.push_back(std::move(e));
  return out;
}

TestNetns::TestNetns() {
  name_ = "fltest-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
  auto r = run("ip netns add " + name_);
  if (r.status != 0) throw std::runtime_error("ip netns add " + name_ + " failed: " + r.err);
  run("ip -n " + name_ + " link set lo up");
}

TestNetns::~TestNetns() { run("ip netns del " + name_); }

std::string TestNetns::ip(const std::string& args) const {
  auto r = run("ip -n " + name_ + " " + args);
  EXPECT_EQ(r.status, 0) << "ip " << args << ": " << r.err;
  return r.out;
}

nlohmann::json TestNetns::ipJson(const std::string& args) const {
  auto r = run("ip -n " + name_ + " -j " + args);
  EXPECT_EQ(r.status, 0) << "ip -j " << args << ": " << r.err;
  if (r.out.find_first_not_of(" \n") == std::string::npos) return nlohmann::json::array();
  return dropEmptyObjects(nlohmann::json::parse(r.out));
}

void TestNetns::ipBatch(const std::vector<std::string>& lines) const {
  std::string path = "/tmp/fastlink-test-batch-" + std::to_string(getpid()) + "-" + name_;
  {
    std::ofstream f(path);
    for (const auto& l : lines) f << l << "\n";
  }
  auto r = run("ip -n " + name_ + " -batch " + path);
  std::remove(path.c_str());
  EXPECT_EQ(r.status, 0) << "ip -batch: " << r.err;
}

CommandResult TestNetns::exec(const std::string& command) const {
  return run("ip netns exec " + name_ + " sh -c '" + command + "'");
}

std::string TestNetns::sysfs(const std::string& dev, const std::string& file) const {
  // `ip netns exec` remounts /sys for the namespace, so this reads the namespace's view.
  auto r = exec("cat /sys/class/net/" + dev + "/" + file);
  std::string out = r.out;
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

bool kernelHasKind(const std::string& kind) {
  static std::map<std::string, bool> cache;
  if (auto it = cache.find(kind); it != cache.end()) return it->second;
  // Asked of the kernel, not of a list of kinds (so a new kind needs no line here): a device of
  // a kind with no options either is created or is refused for what it lacks ("Required
  // attributes not provided", EINVAL), unless the kernel has no such kind even after trying to
  // load its module: then, and only then, it answers EOPNOTSUPP "Unknown device type".
  TestNetns ns;
  CommandResult r = run("ip -n " + ns.name() + " link add probe0 type " + kind);
  bool ok = r.status == 0 || (r.err.find("Unknown device type") == std::string::npos &&
                              r.err.find("Operation not supported") == std::string::npos);
  cache[kind] = ok;
  return ok;
}

bool kindRequired(const std::string& kind) {
  const char* env = std::getenv("FASTLINK_REQUIRE_KINDS");
  if (!env) return false;
  std::stringstream ss(env);
  std::string item;
  while (std::getline(ss, item, ','))
    if (item == kind) return true;
  return false;
}

}  // namespace fastlink::test
