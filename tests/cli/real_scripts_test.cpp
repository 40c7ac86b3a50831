// Real-world scripts (issue 30, "Done when"): each shell script of tests/cli/scripts/ runs twice,
// in twin namespaces (`ip netns exec`), once as written (ip, tc, bridge) and once with fastlink
// substituted the way a user would do it: a PATH shim (`ip` -> `fastlink`, `tc` -> `fastlink tc`,
// `bridge` -> `fastlink`) and IP=fastlink, TC="fastlink tc" for scripts that use those. Compared:
// the exit status, stdout (normalised as the ip differential suite normalises it) and the
// resulting kernel state as ip reads it (tests/cli/twin_state.hpp), of the namespace and of the
// "container" namespaces a script uses ($C1, $C2: made by the harness, as a container runtime
// makes them). stderr is not compared (fastlink's error texts are its own, docs/CLI.md).
// A script's `# needs: KIND` (a link kind) or `# needs-qdisc: QDISC` skips it where the kernel
// lacks that; the VM runs it (tests/vm, --only-host-skips). `# tc-dev: DEV` adds tc's qdiscs and
// DEV's classes to the state compared.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_fixture.hpp"
#include "cli/twin_state.hpp"

namespace fastlink::test {
namespace {

struct Script {
  std::string name;  ///< file name without .sh
  std::string path;
  std::string text;
  std::string needsKind, needsQdisc;
  int containers = 0;  ///< how many of $C1, $C2 it uses
};

std::string headerValue(const std::string& text, const std::string& key) {
  auto at = text.find("\n# " + key + ": ");
  if (at == std::string::npos) return "";
  at += key.size() + 5;
  return text.substr(at, text.find('\n', at) - at);
}

std::vector<Script> loadScripts() {
  std::vector<Script> scripts;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(build::sourceDir()) + "/tests/cli/scripts")) {
    if (entry.path().extension() != ".sh") continue;
    Script s;
    s.name = entry.path().stem().string();
    s.path = entry.path().string();
    std::ifstream in(s.path);
    std::stringstream text;
    text << in.rdbuf();
    s.text = text.str();
    s.needsKind = headerValue(s.text, "needs");
    s.needsQdisc = headerValue(s.text, "needs-qdisc");
    s.containers = s.text.find("$C2") != std::string::npos ? 2 : s.text.find("$C1") != std::string::npos ? 1 : 0;
    scripts.push_back(std::move(s));
  }
  std::sort(scripts.begin(), scripts.end(), [](const Script& a, const Script& b) { return a.name < b.name; });
  return scripts;
}

void PrintTo(const Script& s, std::ostream* os) { *os << s.name << ".sh"; }

/// The PATH shim a user would write: a directory whose `ip`, `tc` and `bridge` run fastlink,
/// removed when the test binary exits.
struct ShimDir {
  std::string path = "/tmp/fastlink-shim-" + std::to_string(getpid());
  ShimDir() {
    std::filesystem::create_directories(path);
    for (auto [tool, args] : {std::pair{"ip", ""}, std::pair{"tc", " tc"}, std::pair{"bridge", ""}}) {
      std::string file = path + "/" + tool;
      std::ofstream(file) << "#!/bin/sh\nexec " << shellQuote(cliPath()) << args << " \"$@\"\n";
      chmod(file.c_str(), 0755);
    }
  }
  ~ShimDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

std::string shimDir() {
  static const ShimDir dir;
  return dir.path;
}

/// One side of the twins: the namespace the script runs in and its container namespaces.
struct Side {
  TestNetns ns;
  std::vector<std::unique_ptr<TestNetns>> containers;

  explicit Side(int count) {
    for (int i = 0; i < count; ++i) containers.push_back(std::make_unique<TestNetns>());
    // No duplicate address detection: IPv6 addresses would stay tentative for a time that
    // differs between the twins.
    for (const std::string& name : names())
      run("ip netns exec " + name +
          " sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0 >/dev/null");
  }
  std::vector<std::string> names() const {
    std::vector<std::string> all{ns.name()};
    for (const auto& c : containers) all.push_back(c->name());
    return all;
  }
  /// C1=..., C2=... for the script's environment.
  std::string containerEnv() const {
    std::string env;
    for (std::size_t i = 0; i < containers.size(); ++i) env += " C" + std::to_string(i + 1) + "=" + containers[i]->name();
    return env;
  }
  /// The container namespaces' names as C1, C2 (before the namespace's own name is normalised:
  /// every name has the same prefix).
  std::string withContainerNames(std::string text) const {
    std::vector<std::pair<std::string, std::string>> words;
    for (std::size_t i = 0; i < containers.size(); ++i) words.emplace_back(containers[i]->name(), "C" + std::to_string(i + 1));
    std::sort(words.begin(), words.end(), [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
    return replaceWords(std::move(text), words);
  }
  std::string output(const std::string& text, const LiteralMacs& literal) const {
    // A route's remaining lifetime is read when `route show` runs: the two twins run seconds apart
    // (more under the sanitizers or TCG: 7199sec against 7197sec was seen), so the count is left
    // out here; that it is printed, and where, is still compared.
    static const std::regex kExpires("expires [0-9]+sec");
    // A stacked device's operstate (a vlan's) follows its lower device through linkwatch, which
    // runs up to a second after `link set up`: UNKNOWN until then, UP after. Which of the two a
    // script's `link show` reads is the kernel's timing, not the tool's (seen under TCG: ip's
    // twin read UNKNOWN, fastlink's UP); any other state is still compared.
    static const std::regex kSettlingState(" state (UP|UNKNOWN) ");
    std::string out = std::regex_replace(normalise(withContainerNames(text), ns.name(), literal), kExpires, "expires Nsec");
    return linkLocalRoutesSorted(std::regex_replace(out, kSettlingState, " state UP|UNKNOWN "));
  }
  /// The kernel adds each device's fe80::/64 route when the device gets its carrier, which veth
  /// pairs report through linkwatch's work queue: in what order the devices of one script get
  /// theirs is the kernel's timing (ipv6-router.sh's `route show` listed lan1's before lan0's in
  /// one twin and after it in the other). A run of adjacent `fe80::/64 ...` lines is compared
  /// as a set; every line and its place in the listing still are.
  static std::string linkLocalRoutesSorted(const std::string& text) {
    std::vector<std::string> lines;
    for (std::size_t at = 0; at < text.size();) {
      std::size_t end = text.find('\n', at);
      end = end == std::string::npos ? text.size() : end + 1;
      lines.push_back(text.substr(at, end - at));
      at = end;
    }
    auto isLinkLocal = [](const std::string& l) { return l.starts_with("fe80::/64 "); };
    for (auto run = lines.begin(); run != lines.end();) {
      if (!isLinkLocal(*run)) {
        ++run;
        continue;
      }
      auto end = std::find_if_not(run, lines.end(), isLinkLocal);
      std::sort(run, end);
      run = end;
    }
    std::string sorted;
    for (const std::string& l : lines) sorted += l;
    return sorted;
  }
  std::string state(const LiteralMacs& literal, const std::string& tcDev) const {
    std::string all;
    for (const std::string& name : names()) settle(name);
    all += "== the script's namespace\n" + withContainerNames(stateOf(ns.name(), literal, tcDev));
    for (std::size_t i = 0; i < containers.size(); ++i)
      all += "== C" + std::to_string(i + 1) + "\n" + stateOf(containers[i]->name(), literal, "");
    // The same linkwatch timing as output()'s kSettlingState, in the state dump's JSON (vlan_trunk
    // failed on it in the VM: ip's twin UP, fastlink's UNKNOWN).
    static const std::regex kSettlingJson(R"re("operstate":"(UP|UNKNOWN)")re");
    return std::regex_replace(all, kSettlingJson, R"re("operstate":"UP|UNKNOWN")re");
  }
};

const std::vector<Script>& allScripts() {
  static const std::vector<Script> scripts = loadScripts();
  return scripts;
}

class RealScript : public ::testing::TestWithParam<Script> {};

TEST_P(RealScript, SameResultWithFastlink) {
  const Script& s = GetParam();
  if (!s.needsKind.empty()) FASTLINK_REQUIRE_KIND(s.needsKind);
  if (!s.needsQdisc.empty() && !kernelHasQdisc(s.needsQdisc))
    GTEST_SKIP() << "kernel lacks qdisc '" << s.needsQdisc << "': runs in the VM (tests/vm)";
  Side ipSide(s.containers), flSide(s.containers);
  // /bin/sh by path: in the VM a `sh` found through PATH may be busybox's, which runs its own
  // ip and tc applets in preference to PATH (tests/vm/build-initramfs).
  std::string script = shellQuote(s.path);
  CommandResult ip = run("ip netns exec " + ipSide.ns.name() + " env IP=ip TC=tc" + ipSide.containerEnv() + " /bin/sh " + script +
                         " </dev/null");
  CommandResult fl = run("ip netns exec " + flSide.ns.name() + " env PATH=" + shellQuote(shimDir()) + ":\"$PATH\" IP=" +
                         shellQuote(cliPath()) + " TC=" + shellQuote(cliPath() + " tc") + flSide.containerEnv() + " /bin/sh " +
                         script + " </dev/null");
  const LiteralMacs literal = literalMacsOf({s.text});
  SCOPED_TRACE(s.name + ".sh\nip's stderr:\n" + ip.err + "fastlink's stderr:\n" + fl.err);
  EXPECT_EQ(ip.status, 0) << "the script fails with ip itself";
  EXPECT_EQ(ip.status, fl.status) << "exit status (first: ip, second: fastlink)";
  EXPECT_EQ(ipSide.output(ip.out, literal), flSide.output(fl.out, literal)) << "stdout (first: ip, second: fastlink)";
  const std::string tcDev = headerValue(s.text, "tc-dev");
  EXPECT_EQ(ipSide.state(literal, tcDev), flSide.state(literal, tcDev)) << "kernel state (first: ip, second: fastlink)";
}

std::string scriptName(const ::testing::TestParamInfo<Script>& info) {
  std::string name;
  for (char ch : info.param.name) name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Scripts, RealScript, ::testing::ValuesIn(allScripts()), scriptName);

// The issue asks for ten scripts.
TEST(RealScripts, TenOfThem) { EXPECT_GE(allScripts().size(), 10u); }

}  // namespace
}  // namespace fastlink::test
