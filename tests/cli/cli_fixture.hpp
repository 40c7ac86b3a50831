// Shared fixture for CLI tests: runs the fastlink binary with `-n NS` in a fresh namespace and
// checks its work with iproute2 (`ip -j`), never with fastlink itself.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "support/build_paths.hpp"
#include "support/test_netns.hpp"
#include "support/wire_observer.hpp"

namespace fastlink::test {

inline std::string cliPath() {
  if (const char* env = std::getenv("FASTLINK_CLI"); env && *env) return env;
  return build::cliPath();
}

/// Quotes a word for /bin/sh.
inline std::string shellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

class CliTest : public ::testing::Test {
 protected:
  TestNetns ns;

  /// Runs `fastlink -n NS ARGS` (ARGS is shell text).
  CommandResult cli(const std::string& args) const { return run(cliPath() + " -n " + ns.name() + " " + args); }

  /// Runs `fastlink -n NS ARGS` with the wire observer preloaded (tests/support/wire_observer):
  /// `wire` receives what crossed the process's rtnetlink sockets, counted outside fastlink.
  CommandResult cliWire(const std::string& args, wire::Counts& wire) const {
    std::string log = "/tmp/fastlink-cli-wire-" + std::to_string(getpid()) + "-" + ns.name();
    std::remove(log.c_str());
    // ASan wants its runtime first in the library list; the observer does not need that.
    auto r = run("FASTLINK_WIRE_LOG=" + log + " LD_PRELOAD=" + shellQuote(wirePreloadPath()) +
                 " ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0\" " + cliPath() + " -n " +
                 ns.name() + " " + args);
    EXPECT_TRUE(wire::readWireLog(log, wire)) << "the preloaded observer wrote no " << log;
    std::remove(log.c_str());
    return r;
  }
  static std::string wirePreloadPath() {
    if (const char* env = std::getenv("FASTLINK_WIRE_PRELOAD"); env && *env) return env;
    return build::wirePreloadPath();
  }

  /// Writes `content` to a temporary file and runs `fastlink -n NS OPTIONS -batch FILE`.
  CommandResult batch(const std::string& content, const std::string& options = "") {
    std::string path = "/tmp/fastlink-cli-batch-" + std::to_string(getpid()) + "-" + ns.name();
    {
      std::ofstream f(path);
      f << content;
    }
    auto r = cli(options + " -batch " + path);
    std::remove(path.c_str());
    return r;
  }

  /// `ip -d -j link show dev NAME` as one object (empty object if missing).
  nlohmann::json ipLink(const std::string& name) const {
    auto r = run("ip -n " + ns.name() + " -d -j link show dev " + name);
    if (r.status != 0) return nlohmann::json::object();
    auto j = nlohmann::json::parse(r.out);
    return j.empty() ? nlohmann::json::object() : j[0];
  }
  bool ipHas(const std::string& name) const { return run("ip -n " + ns.name() + " link show dev " + name).status == 0; }
  /// Everything `ip` knows about the namespace's links, to prove that nothing changed.
  std::string snapshot() const { return ns.ip("-d -j link show"); }

  static bool hasFlag(const nlohmann::json& link, const std::string& flag) {
    for (const auto& f : link.value("flags", nlohmann::json::array()))
      if (f == flag) return true;
    return false;
  }
};

/// A namespace with a veth pair up and addressed (10.0.0.1/24 on v0, 10.0.1.1/24 on v1): the
/// starting point of the route and nexthop CLI tests.
class RoutedCliTest : public CliTest {
 protected:
  using json = nlohmann::json;
  void SetUp() override {
    ns.ip("link set lo up");
    ns.ip("link add v0 type veth peer name v1");
    ns.ip("link set v0 up");
    ns.ip("link set v1 up");
    ns.ip("addr add 10.0.0.1/24 dev v0");
    ns.ip("addr add 10.0.1.1/24 dev v1");
  }
  /// Runs the CLI, expects success, and parses its JSON output (null when it printed none).
  json ok(const std::string& args) {
    auto r = cli(args);
    EXPECT_EQ(r.status, 0) << args << "\n" << r.err;
    return r.out.empty() || r.out[0] != '[' ? json() : json::parse(r.out);
  }
};

}  // namespace fastlink::test
