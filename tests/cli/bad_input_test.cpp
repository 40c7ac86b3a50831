// The bad-input catalogue (issue 14): every row of tests/cli/bad_input_cases.tsv is a test. A
// row runs the CLI (`fastlink -n NS ...`), a -batch file, or a library call against one
// namespace (veth v0/v1 up and addressed, bridge br0, IPv6 off so nothing changes on its own),
// and checks the exact exit status / errno and the exact message, and that `ip -j` sees the
// same links, addresses, routes (all tables), neighbours and rules before and after.
// The docs table (docs/testing.md) is written from the same file by scripts/bad-input-table.
//
// FASTLINK_BAD_INPUT_RECORD=FILE: also write "id<TAB>status<TAB>message" of every row to FILE
// (how new rows get their expected values: run, read them, keep those that are right).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_fixture.hpp"
#include "fastlink/fastlink.hpp"

namespace fastlink::test {
namespace {

struct Case {
  std::string id, layer, input, status, message;
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
  std::ifstream in(FASTLINK_BAD_INPUT_TSV);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string part;
    while (std::getline(ss, part, '\t')) f.push_back(part);
    while (f.size() < 5) f.emplace_back();
    cases.push_back({f[0], f[1], f[2], f[3], f[4]});
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

class BadInput : public ::testing::TestWithParam<Case> {
 protected:
  static TestNetns* ns_;

  static void SetUpTestSuite() {
    ns_ = new TestNetns();
    ns_->exec("sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1");
    ns_->ip("link set lo up");
    ns_->ip("link add v0 type veth peer name v1");
    ns_->ip("link add br0 type bridge");
    ns_->ip("link set v0 up");
    ns_->ip("link set v1 up");
    ns_->ip("addr add 10.0.0.1/24 dev v0");
    ns_->ip("addr add 10.0.1.1/24 dev v1");
    ns_->ip("route add 10.7.0.0/16 via 10.0.0.2 table 100");
    ns_->ip("rule add from 10.7.0.0/16 table 100 priority 500");
  }
  static void TearDownTestSuite() {
    run("ip -n " + ns_->name() + " link del br0");  // bridges before the namespace (FACTS.md)
    delete ns_;
    ns_ = nullptr;
  }

  static std::string snapshot() {
    std::string s;
    for (const char* what : {"-d link show", "addr show", "route show table all", "-6 route show table all",
                             "neigh show", "rule show", "-6 rule show"})
      s += std::string(what) + ":" + run("ip -n " + ns_->name() + " -j " + what).out + "\n";
    return s;
  }

  static std::string cliPrefix() { return cliPath() + " -n " + ns_->name() + " "; }

  static Outcome runCli(const std::string& input) {
    auto r = run(cliPrefix() + input);
    return {std::to_string(r.status), trimmed(r.err)};
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
    for (std::size_t at; (at = err.find(path)) != std::string::npos;) err.replace(at, path.size(), "FILE");
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

TEST_P(BadInput, FailsClearlyAndChangesNothing) {
  const Case& c = GetParam();
  std::string before = snapshot();
  Outcome got = c.layer == "cli" ? runCli(c.input) : c.layer == "batch" ? runBatch(c.input) : runLib(c.input);
  std::string after = snapshot();
  if (const char* record = std::getenv("FASTLINK_BAD_INPUT_RECORD"))
    std::ofstream(record, std::ios::app) << c.id << '\t' << got.status << '\t' << escape(got.message) << '\n';
  EXPECT_EQ(got.status, c.status) << c.input;
  EXPECT_EQ(escape(got.message), c.message) << c.input;
  EXPECT_NE(got.status, "0") << "bad input accepted: " << c.input;
  EXPECT_EQ(before, after) << "the kernel's state changed: " << c.input;
}

std::string caseName(const ::testing::TestParamInfo<Case>& info) {
  std::string n;
  for (char ch : info.param.id) n += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Catalogue, BadInput, ::testing::ValuesIn(loadCases()), caseName);

}  // namespace
}  // namespace fastlink::test
