// The ip differential suite (issue 12 item 5): every case of tests/cli/differential/commands.txt
// runs the same command with `ip -n A` and `fastlink -n B` in twin namespaces prepared by the
// same `ip` setup lines, then the `tc ` ones with tc (a command that starts with `tc `: `tc -n A
// ...` and `fastlink -n B tc ...`),
// then compares what the case asks for:
//   exit   the exit status, which must be ip's (always; docs/CLI.md "Exit statuses")
//   state  `ip -d -j link show`, `ip -j addr show`, `ip -j [-6] route show table all`, neigh,
//          `ip -j [-6] rule show`, `ip -j [-6] mrule show`, `ip -j nexthop show` of both
//          namespaces afterwards, read by ip, normalised (the MACs the kernel chose, the
//          link-local addresses made from them, timers; a MAC written in the case is kept)
//   text   stdout byte for byte after the same normalisation
//   json   stdout parsed as JSON, compared as values (key order is checked by `text`)
// A case marked `known: REASON` is a deliberate difference. It pins what each tool does: exit
// status (`ip-status:`, `fastlink-status:`), stdout and stderr line by line (`ip-out:`,
// `fastlink-out:`, `ip-err:`, `fastlink-err:`; none = empty), all normalised; any other result of
// either tool fails, and so do pins that no longer differ (the mark is stale). `state`, if
// compared, must still be equal. Each known case has its row, with the same reason, in
// docs/CLI.md's table of deliberate differences (`IpDifferentialSuite.KnownCasesAreTheDocumentedOnes`).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_fixture.hpp"
#include "cli/twin_state.hpp"

namespace fastlink::test {
namespace {

using json = nlohmann::json;

struct DiffCase {
  std::string name;
  int line = 0;  ///< where the case starts in commands.txt
  std::vector<std::string> setup;
  std::string command;
  std::set<std::string> compare;  ///< state, text, json (exit is always compared)
  std::string known;              ///< non-empty: a deliberate difference, and why
  std::string needs;              ///< a link kind the kernel must have, or `qdisc KIND`
  /// `order: any`: stdout's lines (text) or top-level array elements (json) are compared as
  /// multisets, for output in the kernel's hash order (neighbours) or an order the twins' timing
  /// decides (two fe80::/64 routes), which differs between the twin namespaces.
  bool anyOrder = false;
  /// What a known case pins for one tool, as the suite normalises it.
  struct Pinned {
    std::optional<int> status;
    std::string out, err;  ///< lines, each ending in a newline
  };
  Pinned ipPin, flPin;  ///< only in known cases
};

/// One tool's result as a known case pins it, written as the case file's lines (a failure prints
/// it this way so that a deliberate change can be pasted back).
std::string asPinLines(const std::string& tool, int status, const std::string& out, const std::string& err) {
  std::string lines = tool + "-status: " + std::to_string(status) + "\n";
  auto add = [&](const char* key, const std::string& text) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines += tool + "-" + key + (line.empty() ? ":" : ": ") + line + "\n";
    if (!text.empty() && text.back() != '\n') lines += "(no newline at the end of " + tool + "'s std" + key + ")\n";
  };
  add("out", out);
  add("err", err);
  return lines;
}

/// Reads commands.txt: blocks separated by blank lines; `name:`, `setup:` (repeatable), `run:`,
/// `compare:`, `known:`, `needs:`, `order: any`, and for a known case the pins `ip-status:`, `fastlink-status:`,
/// `ip-out:`, `fastlink-out:`, `ip-err:`, `fastlink-err:` (the last four repeatable, one per line
/// of output; a bare `fastlink-out:` is an empty line); `#` starts a comment line.
std::vector<DiffCase> loadCases() {
  auto path = std::string(build::sourceDir()) + "/tests/cli/differential/commands.txt";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::vector<DiffCase> cases;
  DiffCase current;
  bool open = false;
  bool pinned = false;  // the open case has a pin line
  auto finish = [&] {
    if (open) {
      auto where = "commands.txt:" + std::to_string(current.line) + " (" + current.name + "): ";
      if (current.command.empty()) throw std::runtime_error(where + "no run: line");
      if (current.known.empty() && pinned) throw std::runtime_error(where + "pins an output but is not known:");
      if (!current.known.empty() && (!current.ipPin.status || !current.flPin.status))
        throw std::runtime_error(where + "a known: case pins ip-status: and fastlink-status:");
      cases.push_back(std::move(current));
    }
    current = DiffCase{};
    open = false;
    pinned = false;
  };
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty()) {
      finish();
      continue;
    }
    if (line[0] == '#') continue;
    auto colon = line.find(": ");
    if (colon == std::string::npos && line.back() == ':') colon = line.size() - 1;  // `fastlink-out:`: an empty line
    if (colon == std::string::npos) throw std::runtime_error("commands.txt:" + std::to_string(number) + ": no key");
    std::string key = line.substr(0, colon), value = line.substr(std::min(colon + 2, line.size()));
    if (!open) {
      open = true;
      current.line = number;
    }
    if (key == "name") current.name = value;
    else if (key == "setup") current.setup.push_back(value);
    else if (key == "run") current.command = value;
    else if (key == "known") current.known = value;
    else if (key == "needs") current.needs = value;
    else if (key == "order") {
      if (value != "any") throw std::runtime_error("commands.txt:" + std::to_string(number) + ": order: takes only any");
      current.anyOrder = true;
    }
    else if (auto dash = key.find('-'); dash != std::string::npos && (key.starts_with("ip-") || key.starts_with("fastlink-"))) {
      DiffCase::Pinned& pin = key.starts_with("ip-") ? current.ipPin : current.flPin;
      std::string what = key.substr(dash + 1);
      pinned = true;
      if (what == "status") pin.status = std::stoi(value);
      else if (what == "out") pin.out += value + "\n";
      else if (what == "err") pin.err += value + "\n";
      else throw std::runtime_error("commands.txt:" + std::to_string(number) + ": unknown key " + key);
    } else if (key == "compare") {
      std::istringstream words(value);
      for (std::string w; words >> w;) {
        if (w != "exit" && w != "state" && w != "text" && w != "json")
          throw std::runtime_error("commands.txt:" + std::to_string(number) + ": unknown comparison " + w);
        if (w != "exit") current.compare.insert(w);
      }
    } else {
      throw std::runtime_error("commands.txt:" + std::to_string(number) + ": unknown key " + key);
    }
  }
  finish();
  std::set<std::string> names;
  for (const auto& c : cases)
    if (c.name.empty() || !names.insert(c.name).second)
      throw std::runtime_error("commands.txt:" + std::to_string(c.line) + ": missing or duplicate name");
  return cases;
}

/// A case's setup and run lines, where its own MACs are written.
std::vector<std::string> linesOf(const DiffCase& c) {
  std::vector<std::string> lines = c.setup;
  lines.push_back(c.command);
  return lines;
}

/// gtest prints a failing parameter with this (not as bytes).
void PrintTo(const DiffCase& c, std::ostream* os) { *os << c.name << " (commands.txt:" << c.line << ")"; }

const std::vector<DiffCase>& allCases() {
  static const std::vector<DiffCase> cases = loadCases();
  return cases;
}

/// A namespace as the suite wants it: no duplicate address detection (else IPv6 addresses are
/// `tentative` for a time that differs between the twins), loopback up, then the setup lines.
/// Setup lines that start with `tc ` (qdiscs and classes a tc case works on) are run with
/// `tc -n NS` after the ip lines (one ip batch), in their order.
void prepare(const TestNetns& ns, const DiffCase& c) {
  run("ip netns exec " + ns.name() +
      " sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0 >/dev/null");
  std::vector<std::string> ipLines, tcLines;
  for (const auto& line : c.setup) (line.starts_with("tc ") ? tcLines : ipLines).push_back(line);
  if (!ipLines.empty()) ns.ipBatch(ipLines);
  for (const auto& line : tcLines) {
    CommandResult r = run("tc -n " + ns.name() + " " + line.substr(3) + " </dev/null");
    EXPECT_EQ(r.status, 0) << "setup line \"" << line << "\": " << r.err;
  }
  settle(ns.name());
}

std::string withNs(const std::string& tool, const TestNetns& ns, const std::string& command) {
  return tool + " -n " + ns.name() + " " + command + " </dev/null";
}

/// The reference side of a case: `ip -n A COMMAND`, or for a case whose command starts with `tc `
/// tc's own (`tc -n A qdisc show`), against `fastlink -n B tc qdisc show`.
std::string referenceCommand(const TestNetns& ns, const std::string& command) {
  if (command.starts_with("tc ")) return withNs("tc", ns, command.substr(3));
  return withNs("ip", ns, command);
}

class IpDifferential : public ::testing::TestWithParam<DiffCase> {};

TEST_P(IpDifferential, SameAsIp) {
  const DiffCase& c = GetParam();
  if (c.needs.starts_with("qdisc ")) {
    // fq_codel, fq, netem: the host's kernel lacks them, the VM's has them (a skip there fails).
    std::string qdisc = c.needs.substr(6);
    if (!kernelHasQdisc(qdisc)) {
      if (std::getenv("FASTLINK_REQUIRE_KINDS")) FAIL() << "the VM kernel lacks qdisc " << qdisc;
      GTEST_SKIP() << "kernel lacks qdisc '" << qdisc << "': runs in the VM (tests/vm)";
    }
  } else if (!c.needs.empty()) {
    FASTLINK_REQUIRE_KIND(c.needs);
  }
  SCOPED_TRACE("commands.txt:" + std::to_string(c.line) + " (" + c.name + "): " + c.command);
  TestNetns ipNs, flNs;
  prepare(ipNs, c);
  prepare(flNs, c);
  CommandResult ip = run(referenceCommand(ipNs, c.command));
  CommandResult fl = run(withNs(cliPath(), flNs, c.command));
  const LiteralMacs literal = literalMacsOf(linesOf(c));
  auto ipNormal = [&](const std::string& text) { return normalise(text, ipNs.name(), literal); };
  auto flNormal = [&](const std::string& text) { return normalise(text, flNs.name(), literal); };

  // Each comparison: what ip gave, what fastlink gave.
  std::vector<std::tuple<std::string, std::string, std::string>> aspects;
  // The exit status; a crash (status -1) never equals anything.
  auto outcome = [](const CommandResult& r) {
    return r.status >= 0 ? "status " + std::to_string(r.status) : "crash " + r.err;
  };
  if (c.known.empty()) {
    aspects.emplace_back("exit", outcome(ip), outcome(fl));
    if (c.compare.count("text")) {
      auto text = [&](const std::string& out) { return c.anyOrder ? sortedLines(out) : out; };
      aspects.emplace_back("text", text(ipNormal(ip.out)), text(flNormal(fl.out)));
    }
    if (c.compare.count("json")) {
      auto parse = [&](const std::string& text) {
        if (text.find_first_not_of(" \n") == std::string::npos) return std::string("(no output)");
        try {
          json value = json::parse(text);
          if (c.anyOrder && value.is_array()) std::sort(value.begin(), value.end());
          return value.dump(1);  // std::map keys: order-independent comparison
        } catch (const std::exception& e) {
          return "(not JSON: " + std::string(e.what()) + ")\n" + text;
        }
      };
      aspects.emplace_back("json", parse(ipNormal(ip.out)), parse(flNormal(fl.out)));
    }
  } else {
    // A known difference: each tool's status, stdout and stderr are what the case pins, exactly.
    auto pinned = [](const std::string& tool, const DiffCase::Pinned& pin) {
      return asPinLines(tool, *pin.status, pin.out, pin.err);
    };
    std::string ipGot = asPinLines("ip", ip.status, ipNormal(ip.out), ipNormal(ip.err));
    std::string flGot = asPinLines("fastlink", fl.status, flNormal(fl.out), flNormal(fl.err));
    EXPECT_EQ(pinned("ip", c.ipPin), ipGot) << "ip no longer does what this known case pins (first: the pins, "
                                               "second: what ip did, as pin lines)";
    EXPECT_EQ(pinned("fastlink", c.flPin), flGot)
        << "fastlink no longer does what this known case pins (first: the pins, second: what fastlink did, as pin "
           "lines): if the change is meant, update the pins and docs/CLI.md";
    // The exit status is compared exactly in every other case, so a known case may differ in it
    // alone (fastlink refuses before sending, 255, where ip lets the kernel refuse, 2).
    bool sameOutcome = *c.ipPin.status == *c.flPin.status;
    EXPECT_FALSE(sameOutcome && c.ipPin.out == c.flPin.out)
        << "marked as a known difference (" << c.known
        << ") but the pins say fastlink behaves as ip: remove the known: and pin lines";
  }
  if (c.compare.count("state")) {
    settle(ipNs.name());
    settle(flNs.name());
    std::string tcDev = c.command.starts_with("tc ") ? "v0" : "";
    aspects.emplace_back("state", stateOf(ipNs.name(), literal, tcDev), stateOf(flNs.name(), literal, tcDev));
  }
  for (const auto& [aspect, ipSide, flSide] : aspects)
    EXPECT_EQ(ipSide, flSide) << aspect << " differs (first: ip, second: fastlink)\nip stderr: " << ip.err
                              << "fastlink stderr: " << fl.err;
}

std::string caseName(const ::testing::TestParamInfo<DiffCase>& info) {
  std::string name;
  for (char ch : info.param.name) name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Commands, IpDifferential, ::testing::ValuesIn(allCases()), caseName);

// The issue asks for at least 150 compatible commands; known differences do not count.
TEST(IpDifferentialSuite, HasAtLeast150CompatibleCases) {
  std::size_t compatible = 0, known = 0;
  for (const auto& c : allCases()) (c.known.empty() ? compatible : known)++;
  std::printf("ip differential suite: %zu compatible cases, %zu known differences\n", compatible, known);
  EXPECT_GE(compatible, 150u);
}

// The normaliser keeps what a case wrote and numbers what the kernel chose: a MAC of the case, in
// any case of letters, with its bridge id and its EUI-64 link-local address, stays; a random MAC,
// the bridge id and the link-local address made from it are numbered.
TEST(IpDifferentialSuite, NormalisationKeepsTheCaseMacsOnly) {
  DiffCase c;
  c.setup = {"link add br0 address 02:00:00:00:00:0A type bridge"};
  c.command = "neigh add 10.0.0.2 lladdr 02:00:00:00:00:0b dev br0";
  const LiteralMacs literal = literalMacsOf(linesOf(c));
  EXPECT_EQ(normalise("link/ether 02:00:00:00:00:0a brd ff:ff:ff:ff:ff:ff\n"
                      "lladdr 02:00:00:00:00:0b 5a:11:22:33:44:55\n"
                      "bridge_id 8000.2:0:0:0:0:a designated_root 8000.5a:11:22:33:44:55\n"
                      "inet6 fe80::ff:fe00:a/64 inet6 fe80::5811:22ff:fe33:4455/64\n",
                      "ns-x", literal),
            "link/ether 02:00:00:00:00:0a brd MAC1\n"
            "lladdr 02:00:00:00:00:0b MAC2\n"
            "bridge_id 8000.2:0:0:0:0:a designated_root BRID1\n"
            "inet6 fe80::ff:fe00:a/64 inet6 LL1/64\n");
}

// docs/CLI.md lists every deliberate difference with its reason, in a table whose header starts
// `| known case |`: one row per known: case, `| \`NAME\` | REASON |`, REASON as the known: line
// says it. A known case without its row, a row without its case, or a reason that differs fails.
TEST(IpDifferentialSuite, KnownCasesAreTheDocumentedOnes) {
  std::map<std::string, std::string> cases, documented;
  for (const auto& c : allCases())
    if (!c.known.empty()) cases[c.name] = c.known;
  auto docPath = std::string(build::sourceDir()) + "/docs/CLI.md";
  std::ifstream doc(docPath);
  ASSERT_TRUE(doc) << "cannot read " << docPath;
  bool inTable = false, tableSeen = false;
  static const std::regex row("\\| `([^`]+)` \\| (.*) \\|");
  for (std::string line; std::getline(doc, line);) {
    if (line.starts_with("| known case |")) {
      inTable = tableSeen = true;
      continue;
    }
    if (!inTable || line.starts_with("|---")) continue;
    std::smatch m;
    if (!std::regex_match(line, m, row)) {
      inTable = false;
      continue;
    }
    EXPECT_TRUE(documented.emplace(m[1], m[2]).second) << "docs/CLI.md lists " << m[1] << " twice";
  }
  ASSERT_TRUE(tableSeen) << "docs/CLI.md has no table headed `| known case | ...`";
  EXPECT_EQ(cases, documented) << "first: the known: cases of commands.txt (name, reason), second: docs/CLI.md's rows";
}

}  // namespace
}  // namespace fastlink::test
