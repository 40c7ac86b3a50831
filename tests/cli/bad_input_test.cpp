// The bad-input catalogue (issues 14 and 32): every row of tests/cli/bad_input_cases.tsv is a
// test. A row runs the CLI (`fastlink -n NS ...`), a -batch file, or a library call against one
// namespace (veth v0/v1 with 4 queues each, up and addressed; bridge br0; an htb qdisc 1: with
// class 1:10 on v1; a persistent tap0; a wireguard-go device; IPv6 off so nothing changes on
// its own), and checks the exact exit status / errno and the exact message, and that nothing
// changed: `ip -j` (links, addresses, routes of all tables, neighbours, rules, multicast rules), `tc` (qdiscs,
// classes), `ip -j tuntap show`, `wg show {wg} dump`, `ethtool -l/-k v0` and v0's steering and
// threaded files in /sys read the same before and after.
// The docs table (docs/testing.md) is written from the same file by scripts/bad-input-table.
//
// Expected messages are written by hand from what the tool fastlink imitates (ip, tc, ethtool,
// wg, genl, a write to sysfs) says for the same input, in fastlink's own `Error: ` shape; they are
// never recorded from fastlink. FASTLINK_BAD_INPUT_RECORD=FILE writes "id<TAB>status<TAB>message"
// of every row to FILE, to compare, not to copy.
//
// Placeholders in a cli row's input: {wg} is the wireguard-go device (its name is unique per run,
// since wireguard-go's socket directory is shared by every namespace), {bpf} the directory of the
// test BPF objects, {file:TEXT} a temporary file holding TEXT (with \n escapes). The output
// shows them the same way (a file as FILE).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_fixture.hpp"
#include "fastlink/fastlink.hpp"
#include "support/wireguard_go.hpp"

namespace fastlink::test {
namespace {

struct Case {
  std::string id, layer, input, status, message;
  std::string tool;  ///< what the imitated tool says for the same input (documentation only)
};

std::string unescape(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 == s.size()) {
      out += s[i];
      continue;
    }
    char c = s[++i];
    if (c == 'n') out += '\n';
    else if (c == 'r') out += '\r';
    else if (c == 't') out += '\t';
    else if (c == '0') out += '\0';
    else if (c == 'x' && i + 2 < s.size() + 1) out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16)), i += 2;
    else out += c;
  }
  return out;
}

/// The TSV form of a message: backslash, tab, newline and non-ASCII bytes escaped.
std::string escape(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (c < 0x20 || c >= 0x7f) {
      char b[5];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      out += b;
    } else out += static_cast<char>(c);
  }
  return out;
}

std::vector<Case> loadCases() {
  std::vector<Case> cases;
  std::ifstream in(std::string(build::sourceDir()) + "/tests/cli/bad_input_cases.tsv");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string part;
    while (std::getline(ss, part, '\t')) f.push_back(part);
    while (f.size() < 6) f.emplace_back();
    cases.push_back({f[0], f[1], f[2], f[3], f[4], f[5]});
  }
  return cases;
}

const char* errnoName(int e) {
  switch (e) {
    case EINVAL: return "EINVAL";
    case ENODEV: return "ENODEV";
    case ENOENT: return "ENOENT";
    case EEXIST: return "EEXIST";
    case ERANGE: return "ERANGE";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    case EPERM: return "EPERM";
    case EBUSY: return "EBUSY";
    default: return "other";
  }
}

struct Outcome {
  std::string status, message;
};

/// The objects docs/CLI.md's synopsis lists (`OBJECT  := link | address | ...`), sorted and
/// joined as fastlink's "unknown object" message lists them: the catalogue writes that list as
/// {objects}, so adding an object changes no row, and the message and the docs must agree.
std::string documentedObjects() {
  std::ifstream doc(std::string(build::sourceDir()) + "/docs/CLI.md");
  std::vector<std::string> objects;
  bool inList = false;
  for (std::string line; std::getline(doc, line);) {
    if (line.starts_with("OBJECT  :=")) inList = true, line.erase(0, 10);
    else if (!inList || !line.starts_with("   ")) {
      if (inList) break;
      continue;
    }
    std::istringstream words(line);
    for (std::string w; words >> w;)
      if (w != "|") objects.push_back(w);
  }
  std::sort(objects.begin(), objects.end());
  std::string joined;
  for (const std::string& o : objects) joined += (joined.empty() ? "" : ", ") + o;
  return joined;
}

/// Replaces every `from` in `text` with `to`.
void replaceAll(std::string& text, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (std::size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size()) text.replace(at, from.size(), to);
}

class BadInput : public ::testing::TestWithParam<Case> {
 protected:
  static TestNetns* ns_;
  static WireguardGo* wg_;
  /// The snapshot read after the previous row: the next row's "before" (the namespace is the
  /// suite's alone, so nothing changes between two rows). Half the snapshots, which are most of a
  /// row's time (~30 processes each; docs/testing.md "CI time"). A change a row makes late, after
  /// its own "after", still fails: the next row's comparison.
  static std::string lastSnapshot_;

  static void SetUpTestSuite() {
    ns_ = new TestNetns();
    ns_->exec("sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1");
    ns_->ip("link set lo up");
    // Four queues each, so that ethtool -L and steering rows have queues to name.
    ns_->ip("link add v0 numtxqueues 4 numrxqueues 4 type veth peer name v1 numtxqueues 4 numrxqueues 4");
    ns_->ip("link add br0 type bridge");
    ns_->ip("link set v0 up");
    ns_->ip("link set v1 up");
    ns_->ip("addr add 10.0.0.1/24 dev v0");
    ns_->ip("addr add 10.0.1.1/24 dev v1");
    ns_->ip("route add 10.7.0.0/16 via 10.0.0.2 table 100");
    ns_->ip("rule add from 10.7.0.0/16 table 100 priority 500");
    // Traffic control, tun/tap and WireGuard state for their rows to leave alone.
    ns_->exec("tc qdisc add dev v1 root handle 1: htb default 10");
    ns_->exec("tc class add dev v1 parent 1: classid 1:10 htb rate 1mbit");
    ns_->ip("tuntap add dev tap0 mode tap");
    if (haveWireguardGo()) wg_ = new WireguardGo(*ns_, uniqueWgName());
  }
  static void TearDownTestSuite() {
    lastSnapshot_.clear();
    delete wg_;
    wg_ = nullptr;
    run("ip -n " + ns_->name() + " link del br0");  // bridges before the namespace (FACTS.md)
    delete ns_;
    ns_ = nullptr;
  }

  static std::string snapshot() {
    std::string s;
    for (const char* what : {"-d link show", "addr show", "route show table all", "-6 route show table all",
                             "neigh show", "rule show", "-6 rule show", "mrule show", "-6 mrule show"})
      s += std::string(what) + ":" + run("ip -n " + ns_->name() + " -j " + what).out + "\n";
    // One `ip netns exec` (it mounts the namespace's /sys) for everything else. `tc -j class
    // show` prints text for htb classes (iproute2 6.1): text is as good an oracle here. `wg show
    // all` would also list other processes' wireguard-go devices (their sockets in
    // /var/run/wireguard are seen from every namespace): ours is named.
    auto r = ns_->exec(
        "for d in v0 v1 br0 tap0; do echo \"qdisc $d:\"; tc -j -d qdisc show dev $d; echo \"class $d:\"; tc -d class show dev $d; done;"
        " echo filter v1:; tc filter show dev v1;"  // the htb root's filters (tc-filter-* rows)
        " echo tuntap:; ip -j tuntap show 2>/dev/null; echo wg:; " +
        (wg_ ? "wg show " + wg_->name() + " dump;" : std::string("echo no wireguard-go;")) +
        " echo ethtool:; ethtool -l v0; ethtool -k v0;"
        " echo steering:; cd /sys/class/net/v0 && grep -H . threaded queues/*/rps_cpus queues/*/rps_flow_cnt queues/*/xps_cpus");
    return s + r.out + r.err;
  }

  static std::string cliPrefix() { return cliPath() + " -n " + ns_->name() + " "; }

  /// A cli row: the placeholders ({wg}, {bpf}, {file:TEXT}) put in, the command run, and the
  /// same placeholders put back into its stderr.
  static Outcome runCli(const std::string& input) {
    std::string command = input;
    std::string wgName = wg_ ? wg_->name() : "{wg}";
    replaceAll(command, "{wg}", wgName);
    replaceAll(command, "{bpf}", build::bpfDir());
    std::vector<std::string> files;
    for (std::size_t at; (at = command.find("{file:")) != std::string::npos;) {
      std::size_t end = command.find('}', at);
      std::string path = "/tmp/fastlink-bad-input-" + std::to_string(getpid()) + "-" + std::to_string(files.size());
      std::ofstream(path, std::ios::binary) << unescape(command.substr(at + 6, end - at - 6));
      command.replace(at, end + 1 - at, path);
      files.push_back(path);
    }
    // A row that would run on (a monitor that missed its error) fails instead of hanging the suite.
    auto r = run("timeout 20 " + cliPrefix() + command);
    std::string err = trimmed(r.err);
    for (const std::string& path : files) {
      std::remove(path.c_str());
      replaceAll(err, path, "FILE");
    }
    replaceAll(err, build::bpfDir(), "{bpf}");
    replaceAll(err, wgName, "{wg}");
    // The online CPUs differ between machines.
    err = std::regex_replace(err, std::regex(R"(\(online: [0-9,-]+\))"), "(online: ONLINE)");
    return {std::to_string(r.status), err};
  }

  static std::string trimmed(std::string s) {
    while (!s.empty() && s.back() == '\n') s.pop_back();
    return s;
  }

  static Outcome runBatch(const std::string& input) {
    std::string path = "/tmp/fastlink-bad-input-" + std::to_string(getpid());
    std::string prefix = cliPrefix();
    if (input == "@directory") {
      path += ".d";
      mkdir(path.c_str(), 0700);
    } else if (input == "@missing") {
      path += ".missing";
    } else {
      std::string content;
      if (input == "@binary") {
        uint32_t x = 12345;  // a fixed pseudo-random garbage file
        for (int i = 0; i < 4096; ++i) content += static_cast<char>((x = x * 1103515245 + 12345) >> 24);
      } else if (input == "@line10mb") {
        content = "link set v0 alias " + std::string(10 * 1024 * 1024, 'a') + "\n";
      } else if (input == "@unreadable") {
        content = "link set v0 up\n";
        // Root reads any file: the CLI runs as nobody for this row (file mode 000).
        prefix = "setpriv --reuid=65534 --regid=65534 --clear-groups " + prefix;
      } else {
        content = unescape(input);
      }
      std::ofstream(path, std::ios::binary) << content;
      if (input == "@unreadable") chmod(path.c_str(), 0);
    }
    auto r = run(prefix + "-batch " + path);
    if (input == "@directory") rmdir(path.c_str());
    else std::remove(path.c_str());
    // The file's name changes from run to run: the catalogue shows it as FILE.
    std::string err = trimmed(r.err);
    replaceAll(err, path, "FILE");
    return {std::to_string(r.status), err};
  }

  static Outcome runLib(const std::string& input) {
    std::size_t sp = input.find(' ');
    std::string op = input.substr(0, sp);
    std::string rest = sp == std::string::npos ? "" : input.substr(sp + 1);
    std::string a = rest.substr(0, rest.find(' '));
    std::string b = rest.find(' ') == std::string::npos ? "" : rest.substr(rest.find(' ') + 1);
    NetlinkOptions options;
    options.netns = Netns::named(ns_->name());
    try {
      if (op == "ifname") validateIfname(rest);
      else if (op == "mac") (void)MacAddress::parse(rest);
      else if (op == "ip") (void)IpAddress::parse(rest);
      else if (op == "prefix") (void)Prefix::parse(rest);
      else if (op == "table") (void)RouteNames::system().tableId(rest);
      else if (op == "netns") {
        NetlinkOptions other;
        other.netns = Netns::named(rest);
        Netlink nl(other);
        (void)nl.links().list();
      } else {
        Netlink nl(options);
        if (op == "linkadd") nl.links().add(LinkInfo(rest, "bridge"));
        else if (op == "linkdel") nl.links().del(Ifref(rest));
        else if (op == "linkmtu") nl.links().set(Ifref(a), LinkInfo().setMtu(static_cast<uint32_t>(std::stoul(b))));
        else if (op == "addradd") nl.addresses().add(AddrInfo().setDev(Ifref(a)).setAddress(Prefix::parse(b)));
        else if (op == "routeadd") nl.routes().add(RouteInfo(Prefix::parse(rest)).setDev(Ifref("v0")));
        else return {"bad-op", op};
      }
    } catch (const Error& e) {
      return {errnoName(e.code().value()), e.what()};
    }
    return {"0", ""};
  }
};

TestNetns* BadInput::ns_ = nullptr;
WireguardGo* BadInput::wg_ = nullptr;
std::string BadInput::lastSnapshot_;

TEST_P(BadInput, FailsClearlyAndChangesNothing) {
  const Case& c = GetParam();
  if (c.input.find("{wg}") != std::string::npos) FASTLINK_REQUIRE_WIREGUARD_GO();
  std::string before = lastSnapshot_.empty() ? snapshot() : lastSnapshot_;
  Outcome got = c.layer == "cli" ? runCli(c.input) : c.layer == "batch" ? runBatch(c.input) : runLib(c.input);
  std::string after = lastSnapshot_ = snapshot();
  replaceAll(got.message, "(known: " + documentedObjects() + ")", "(known: {objects})");
  if (const char* record = std::getenv("FASTLINK_BAD_INPUT_RECORD"))
    std::ofstream(record, std::ios::app) << c.id << '\t' << got.status << '\t' << escape(got.message) << '\n';
  EXPECT_EQ(got.status, c.status) << c.input;
  EXPECT_EQ(escape(got.message), c.message) << c.input;
  EXPECT_NE(got.status, "0") << "bad input accepted: " << c.input;
  EXPECT_EQ(before, after) << "the kernel's state changed: " << c.input;
  // A private key never reaches a message (wg echoes it): no piece of the key text in stderr.
  if (c.id.find("private-key") != std::string::npos) {
    std::smatch key;
    ASSERT_TRUE(std::regex_search(c.input, key, std::regex("[A-Za-z0-9+/!=]{40,}"))) << "no key text in " << c.input;
    EXPECT_EQ(got.message.find(key.str().substr(0, 12)), std::string::npos) << "the private key was echoed";
  }
}

std::string caseName(const ::testing::TestParamInfo<Case>& info) {
  std::string n;
  for (char ch : info.param.id) n += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Catalogue, BadInput, ::testing::ValuesIn(loadCases()), caseName);

}  // namespace
}  // namespace fastlink::test
