// `fastlink -batch FILE`: validation before sending, stop/force/window semantics, name resolution.
#include <cstdio>
#include <fstream>
#include <random>
#include <regex>
#include <set>

#include "cli_fixture.hpp"

namespace fastlink::test {
namespace {

using nlohmann::json;

std::string bridges(int from, int to) {
  std::string s;
  for (int i = from; i <= to; ++i) s += "link add b" + std::to_string(i) + " type bridge\n";
  return s;
}

TEST_F(CliTest, BatchHappyPathHundredsOfLines) {
  std::string content = "# three hundred lines\n\n";
  for (int i = 0; i < 100; ++i) {
    std::string n = "b" + std::to_string(i);
    content += "link add " + n + " type bridge\n";
    content += "link set dev " + n + " mtu " + std::to_string(1300 + i) + "\n";
    content += "   link set " + n + " up   # indented, with a comment\n";
  }
  auto r = batch(content);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "");
  json links = ns.ipJson("link show type bridge");
  ASSERT_EQ(links.size(), 100u);
  for (const auto& l : links) {
    int i = std::stoi(l["ifname"].get<std::string>().substr(1));
    EXPECT_EQ(l["mtu"], 1300 + i);
    EXPECT_TRUE(hasFlag(l, "UP"));
  }
}

TEST_F(CliTest, BatchWithBadLineSendsNothing) {
  std::string content = bridges(1, 50) + "link set dev b1 mtu 99999999\n" + bridges(51, 60);
  std::string before = snapshot();
  auto r = batch(content);
  EXPECT_EQ(r.status, 255);
  EXPECT_NE(r.err.find("Error: mtu 99999999 out of range (68-65536) (line 51: link set dev b1 mtu 99999999)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(snapshot(), before);
}

TEST_F(CliTest, BatchEveryKindOfBadLineSendsNothing) {
  const std::pair<const char*, const char*> cases[] = {
      {"link add abcdefghijklmnop type bridge", "longer than 15 bytes"},
      {"link add a/b type bridge", "contains '/'"},
      {"link add x type nosuchkind", "unknown link type \"nosuchkind\""},
      {"link set dev b1 address zz:zz", "is not a MAC address"},
      {"link set dev b1 mtu abc", "mtu: \"abc\" is not a number"},
      {"link set dev b1 frob 1", "unknown keyword \"frob\""},
      {"link show", "cannot be used in a batch"},
      {"lnk add x type bridge", "unknown object \"lnk\""},
      {"link set dev b1 alias \"unterminated", "unterminated"},
  };
  for (const auto& [line, message] : cases) {
    std::string before = snapshot();
    auto r = batch(bridges(1, 3) + line + "\n" + bridges(4, 5));
    EXPECT_EQ(r.status, 255) << line;
    EXPECT_NE(r.err.find(message), std::string::npos) << line << ": " << r.err;
    EXPECT_NE(r.err.find("(line 4: "), std::string::npos) << line << ": " << r.err;
    EXPECT_EQ(snapshot(), before) << line;
  }
}

TEST_F(CliTest, BatchStopsAtFirstFailureWithoutForce) {
  auto r = batch("link add b1 type bridge\nlink add b2 type bridge\nlink add b1 type bridge\nlink add b3 type bridge\n"
                 "link add b4 type bridge\n");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("Error: File exists (line 3: link add b1 type bridge)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("2 lines applied, 1 failed, 2 not sent"), std::string::npos) << r.err;
  EXPECT_TRUE(ipHas("b1"));
  EXPECT_TRUE(ipHas("b2"));
  EXPECT_FALSE(ipHas("b3"));
  EXPECT_FALSE(ipHas("b4"));
}

TEST_F(CliTest, BatchForceContinuesAndReportsEveryFailure) {
  auto r = batch("link add b1 type bridge\nlink add b1 type bridge\nlink add b2 type bridge\n"
                 "link set dev nosuch mtu 1400\nlink add b3 type bridge\n",
                 "-force");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("Error: File exists (line 2: link add b1 type bridge)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Error: Cannot find device \"nosuch\" (line 4: link set dev nosuch mtu 1400)"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("3 lines applied, 2 failed, 0 not sent"), std::string::npos) << r.err;
  EXPECT_TRUE(ipHas("b2"));
  EXPECT_TRUE(ipHas("b3"));
}

TEST_F(CliTest, BatchWindowReportsInFlightLinesTruthfully) {
  // Line 10 fails. -window W sends the requests in windows of W (1-W, W+1-2W, ...): the lines of
  // line 10's window after it were already sent and applied; every later line was not sent.
  // Pinned for several window sizes, so a window that is not honoured fails.
  struct Case {
    int window;
    int lastApplied;  // 10 = nothing after line 10 was in flight
  };
  for (Case c : {Case{8, 16}, Case{3, 12}, Case{5, 10}, Case{16, 16}}) {
    SCOPED_TRACE("-window " + std::to_string(c.window));
    TestNetns fresh;
    std::string path = "/tmp/fastlink-cli-window-" + std::to_string(getpid()) + "-" + fresh.name();
    {
      std::ofstream f(path);
      f << bridges(1, 9) + "link add b1 type bridge\n" + bridges(11, 40);
    }
    auto r = run(cliPath() + " -n " + fresh.name() + " -window " + std::to_string(c.window) + " -batch " + path);
    std::remove(path.c_str());
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("Error: File exists (line 10: link add b1 type bridge)"), std::string::npos) << r.err;
    std::string note = c.lastApplied == 11 ? "Note: line 11 already in flight when line 10 failed, and applied"
                                           : "Note: lines 11-" + std::to_string(c.lastApplied) +
                                                 " already in flight when line 10 failed, and applied";
    EXPECT_EQ(r.err.find(c.lastApplied > 10 ? note : "Note:") != std::string::npos, c.lastApplied > 10) << r.err;
    EXPECT_NE(r.err.find("Not sent: line " + std::to_string(c.lastApplied + 1) + " and every later line (" +
                         std::to_string(40 - c.lastApplied) + " requests)"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find(std::to_string(c.lastApplied - 1) + " lines applied, 1 failed, " +
                         std::to_string(40 - c.lastApplied) + " not sent"),
              std::string::npos)
        << r.err;
    // What fastlink says is exactly what the kernel has.
    std::set<std::string> expected = {"b1"};
    for (int i = 2; i <= c.lastApplied; ++i)
      if (i != 10) expected.insert("b" + std::to_string(i));
    std::set<std::string> have;
    for (const auto& l : fresh.ipJson("link show type bridge")) have.insert(l["ifname"].get<std::string>());
    EXPECT_EQ(have, expected);
  }
}

TEST_F(CliTest, BatchReportsFileLinesNotRequestIndexesAroundCommentsAndBlankLines) {
  // Five lines that are not requests: request #10 is on line 13, and the lines in flight with
  // it (requests 11-16 with -window 8) are lines 15-20, one comment line further down.
  std::string content = "# header comment\n\n   # indented comment\n" + bridges(1, 9) + "link add b1 type bridge\n" +
                        "# a comment inside the window\n" + bridges(11, 12) + "\n" + bridges(13, 40);
  auto r = batch(content, "-window 8");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("Error: File exists (line 13: link add b1 type bridge)"), std::string::npos) << r.err;
  // Requests 11-16 are b11, b12 (lines 15-16), a blank line (17), b13-b16 (lines 18-21).
  EXPECT_NE(r.err.find("Note: lines 15-16, 18-21 already in flight when line 13 failed, and applied"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("Not sent: line 22 and every later line (24 requests)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("15 lines applied, 1 failed, 24 not sent"), std::string::npos) << r.err;
  std::set<std::string> have, expected;
  for (const auto& l : ns.ipJson("link show type bridge")) have.insert(l["ifname"].get<std::string>());
  for (int i = 1; i <= 16; ++i)
    if (i != 10) expected.insert("b" + std::to_string(i));
  EXPECT_EQ(have, expected);
}

TEST_F(CliTest, BatchResolvesNamesCreatedEarlierInTheBatch) {
  auto r = batch(
      "link add br0 type bridge\n"
      "link add v0 type veth peer name v1\n"
      "link set dev v0 master br0 up\n"    // br0 was created two lines earlier: flush, then look up
      "link set dev v1 name uplink\n"      // rename needs v1's index (created in this batch)
      "link set dev uplink master br0\n"
      "link del br0\n"
      "link add br0 type bridge\n"         // same name, new ifindex
      "link set dev v0 master br0\n"
      "link add vx0 type vxlan id 5 remote 192.0.2.2 dstport 4789 dev uplink\n");
  ASSERT_EQ(r.status, 0) << r.err;
  int br0 = ipLink("br0")["ifindex"];
  EXPECT_EQ(ipLink("v0")["master"], "br0");
  EXPECT_TRUE(hasFlag(ipLink("v0"), "UP"));
  EXPECT_FALSE(ipHas("v1"));
  EXPECT_FALSE(ipLink("uplink").contains("master"));  // its bridge was deleted with the old br0
  EXPECT_EQ(ipLink("vx0")["linkinfo"]["info_data"]["link"], "uplink");
  EXPECT_GT(br0, 0);
}

TEST_F(CliTest, BatchEnslavesToExistingBridgeAndReportsMissingMaster) {
  ns.ip("link add br0 type bridge");
  ns.ip("link add v0 type veth peer name v1");
  auto r = batch("link set v0 master br0\nlink set v1 master nosuch\nlink set v1 up\n");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("Cannot find device \"nosuch\" (line 2: link set v1 master nosuch)"), std::string::npos) << r.err;
  EXPECT_EQ(ipLink("v0")["master"], "br0");
  EXPECT_FALSE(hasFlag(ipLink("v1"), "UP"));  // line 3 not sent
}

TEST_F(CliTest, BatchSplitsWordsAtAnyRunOfBlanks) {
  // A batch line is split 16 bytes at a time (kit/args.cpp): words of 1-15 bytes and runs of
  // 1-17 blanks (spaces, tabs, a CR) put word starts and ends at every offset of a block and
  // words across two blocks; each line must read as if single spaces separated its words.
  const std::string blanks[] = {" ", "\t", "  ", " \t ", std::string(15, ' '), std::string(16, ' '), std::string(17, '\t'), " \r "};
  std::string content;
  for (int i = 0; i < 48; ++i) {
    std::string n = "w" + std::string(static_cast<std::size_t>(i % 12), 'a') + std::to_string(i);
    auto b = [&](int k) { return blanks[static_cast<std::size_t>(i + k) % 8]; };
    content += "link add " + n + " type bridge\n";
    content += (i % 2 ? b(0) : "") + "link" + b(1) + "set" + b(2) + "dev" + b(3) + n + b(4) + "mtu" + b(5) + std::to_string(1300 + i) +
               (i % 3 ? b(6) : "") + (i % 4 == 0 ? "\r" : "") + "\n";
  }
  auto r = batch(content);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  for (int i = 0; i < 48; ++i) {
    std::string n = "w" + std::string(static_cast<std::size_t>(i % 12), 'a') + std::to_string(i);
    EXPECT_EQ(ipLink(n)["mtu"], 1300 + i) << n;
  }
}

TEST_F(CliTest, BatchLinesReuseOneArgsAndForgetTheLineBefore) {
  // Every line's words are read into one Args (kit/args.cpp assignLine, no allocation per line):
  // a word of the line before, quoted (owned) or asked for as a string, must never answer for
  // the same position of the next line, whatever mix of quoted and plain lines.
  auto r = batch("link add \"qa0\" type bridge\nlink add qb0 type bridge\nlink add qc0 type bridge\n"
                 "link set dev \"qb0\" mtu 1400\nlink set dev qc0 mtu 1300\nlink set dev 'qa0' mtu 1280\n");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(ipLink("qa0")["mtu"], 1280);
  EXPECT_EQ(ipLink("qb0")["mtu"], 1400);
  EXPECT_EQ(ipLink("qc0")["mtu"], 1300);
}

TEST_F(CliTest, BatchCommentsBlankLinesAndStdin) {
  std::string content = "\n# only comments and blanks\n   \n\t\n";
  auto r = batch(content);
  EXPECT_EQ(r.status, 0) << r.err;
  std::string path = "/tmp/fastlink-cli-stdin-" + ns.name();
  {
    std::ofstream f(path);
    f << "# from stdin\nlink add s0 type bridge # trailing\n\nlink set s0 alias \"a # not a comment\"\n";
  }
  r = run("cat " + path + " | " + cliPath() + " -n " + ns.name() + " -batch -");
  std::remove(path.c_str());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(ipLink("s0")["ifalias"], "a # not a comment");
}

TEST_F(CliTest, BatchGroupLines) {
  auto r = batch("link add g1 group 3 type bridge\nlink add g2 group 3 type bridge\nlink add keep type bridge\n"
                 "link set group 3 mtu 1280 up\n");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(ipLink("g1")["mtu"], 1280);
  EXPECT_EQ(ipLink("g2")["mtu"], 1280);
  EXPECT_EQ(ipLink("keep")["mtu"], 1500);
  r = batch("link del group 3\nlink add g1 type bridge\n");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(ipHas("g2"));
  EXPECT_TRUE(ipHas("g1"));
  EXPECT_TRUE(ipHas("keep"));
}

TEST_F(CliTest, BatchMillionLineValidationUsesBoundedMemory) {
  // 1,000,000 valid lines and a bad last line: everything is parsed and encoded, nothing sent,
  // and the process never holds the batch in memory.
  // The sanitizer build cannot measure the memory (below) and validates a line ~100 times slower
  // (148 s for the million, CI's longest test, docs/testing.md "CI time"): it checks the rest with
  // 50,000 lines (1.5 MB, still many reads of the file), in ~7 s.
  const int valid = build::sanitizerBuild() ? 50000 : 1000000;
  std::string path = "/tmp/fastlink-cli-million-" + ns.name();
  {
    std::ofstream f(path);
    for (int i = 0; i < valid; ++i) f << "link set dev b" << (i % 1000) << " mtu " << (1280 + i % 7000) << " up\n";
    f << "link set dev b1 mtu nope\n";
  }
  std::string before = snapshot();
  bool haveTime = access("/usr/bin/time", X_OK) == 0;  // GNU time reports the peak RSS
  auto r = run((haveTime ? "/usr/bin/time -f 'maxrss_kb=%M' " : "") + cliPath() + " -n " + ns.name() + " -batch " + path);
  std::remove(path.c_str());
  EXPECT_EQ(r.status, 255);
  EXPECT_NE(r.err.find("(line " + std::to_string(valid + 1) + ": link set dev b1 mtu nope)"), std::string::npos) << r.err;
  EXPECT_EQ(snapshot(), before);
  if (!haveTime) GTEST_SKIP() << "no /usr/bin/time to measure the peak RSS; the rest was checked";
  // ASan's shadow memory and free-list quarantine make RSS meaningless (~380 MB here).
  if (build::sanitizerBuild())
    GTEST_SKIP() << "sanitizer build: AddressSanitizer makes the RSS meaningless; the Release build checks the bound";
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.err, m, std::regex(R"(maxrss_kb=(\d+))"))) << r.err;
  EXPECT_LT(std::stol(m[1]), 32 * 1024) << "max RSS in KiB";
}

TEST_F(CliTest, BatchOfUnlikeLinesGoesThroughTheSpoolsFileAndSendsEveryLine) {
  // The spool keeps each line as its difference from the one before; lines with nothing in common
  // (a random 250-character alias each) cost their whole text and request, ~560 bytes: 40,000 are
  // ~22 MB, past its 16 MiB in memory, so most are read back from its temporary file. Every
  // 10,000th names a device that does not exist: -force reports exactly those, each with its
  // whole text; every other line is applied (each device ends with its last alias, as ip shows).
  ASSERT_EQ(cli("link add s0 type bridge").status, 0);
  ASSERT_EQ(cli("link add s1 type bridge").status, 0);
  std::mt19937 random(33);
  const std::string chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::string content, last[2];
  std::vector<std::string> missing;
  for (int line = 1; line <= 40000; ++line) {
    std::string alias(250, ' ');
    for (char& c : alias) c = chars[random() % chars.size()];
    std::string text = "link set dev ";
    if (line % 10000 == 0) {
      text += "nosuch" + std::to_string(line) + " alias " + alias;
      missing.push_back("Error: Cannot find device \"nosuch" + std::to_string(line) + "\" (line " + std::to_string(line) + ": " + text + ")");
    } else {
      text += "s" + std::to_string(line % 2) + " alias " + alias;
      last[line % 2] = alias;
    }
    content += text + "\n";
  }
  auto r = batch(content, "-force");
  EXPECT_EQ(r.status, 1);
  for (const std::string& m : missing) EXPECT_NE(r.err.find(m), std::string::npos) << m.substr(0, 60) << "...: " << r.err.substr(0, 2000);
  EXPECT_NE(r.err.find("39996 lines applied, 4 failed, 0 not sent"), std::string::npos) << r.err.substr(0, 2000);
  EXPECT_EQ(ipLink("s0")["ifalias"], last[0]);
  EXPECT_EQ(ipLink("s1")["ifalias"], last[1]);
}

std::string routeLine(int i, int table = 100) {
  return "route add 20." + std::to_string(i >> 8) + "." + std::to_string(i & 255) + ".0/24 via 10.0.0.2 table " +
         std::to_string(table) + "\n";
}

std::set<std::string> routeDsts(const TestNetns& ns, int table) {
  std::set<std::string> out;
  for (const auto& r : ns.ipJson("route show table " + std::to_string(table))) out.insert(r["dst"].get<std::string>());
  return out;
}

TEST_F(RoutedCliTest, BatchDefaultStopsAtAFailureInTheMiddleOfTenThousandPipelinedRoutes) {
  // Line 5000 repeats line 10 (File exists). The route adds are pipelined, so lines after 5000
  // reach the kernel before its answer; they must be undone: afterwards the table holds exactly
  // lines 1-4999, and the summary accounts for every line.
  std::string content;
  for (int i = 1; i <= 10000; ++i) content += i == 5000 ? routeLine(10) : routeLine(i);
  auto r = batch(content);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("Error: File exists (line 5000: route add 20.0.10.0/24 via 10.0.0.2 table 100)"),
            std::string::npos)
      << r.err;
  std::set<std::string> expected;
  for (int i = 1; i < 5000; ++i) expected.insert("20." + std::to_string(i >> 8) + "." + std::to_string(i & 255) + ".0/24");
  EXPECT_EQ(routeDsts(ns, 100), expected);
  // "4999 lines applied, 1 failed, N not sent, U undone": N + U = 5000 (nothing refused here).
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.err, m, std::regex(R"((\d+) lines applied, (\d+) failed, (\d+) not sent(, (\d+) undone)?)")))
      << r.err;
  EXPECT_EQ(m[1], "4999");
  EXPECT_EQ(m[2], "1");
  int notSent = std::stoi(m[3]), undone = m[5].matched ? std::stoi(m[5]) : 0;
  EXPECT_EQ(notSent + undone, 5000) << r.err;
  if (undone) {
    EXPECT_NE(r.err.find("Undone: lines 5001-" + std::to_string(5000 + undone) + " (sent with line 5000"), std::string::npos)
        << r.err;
  }
  EXPECT_NE(r.err.find("Not sent: line " + std::to_string(5001 + undone) + " and every later line"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("Note:"), std::string::npos) << r.err;
}

TEST_F(RoutedCliTest, BatchDefaultUndoesAddressesNeighboursAndRoutesButSendsOtherLinesAlone) {
  // Addresses, neighbours and routes (exact undo) mixed with a `link set` (none: sent alone).
  // The route on line 9 needs the address of line 1 (its gateway is only reachable through it);
  // line 10 fails (no route to 10.77.0.9). Lines 1-9 stay, everything after is gone or unsent.
  std::string content =
      "addr add 10.50.0.1/24 dev v0\n"
      "addr add 2001:db8:50::1/64 dev v0 nodad\n"
      "neigh add 10.0.0.50 lladdr 02:00:00:00:00:50 dev v0\n"
      "link set dev v1 mtu 1400\n"
      "route add 10.60.0.0/16 via 10.50.0.2\n"
      "route add 2001:db8:60::/48 via 2001:db8:50::2\n"
      "neigh add 10.0.0.51 lladdr 02:00:00:00:00:51 dev v0\n"
      "addr add 10.51.0.1/24 dev v1\n"
      "route add 10.61.0.0/16 via 10.50.0.3\n"
      "route add 10.62.0.0/16 via 10.77.0.9\n"
      "addr add 10.52.0.1/24 dev v0\n"
      "neigh add 10.0.0.52 lladdr 02:00:00:00:00:52 dev v0\n"
      "route add 10.63.0.0/16 via 10.50.0.4\n"
      "link set dev v1 mtu 1300\n"
      "route add 10.64.0.0/16 via 10.50.0.5\n";
  auto r = batch(content);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("(line 10: route add 10.62.0.0/16 via 10.77.0.9)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("9 lines applied, 1 failed"), std::string::npos) << r.err;
  std::set<std::string> v4, v6, neigh;
  for (const auto& a : ns.ipJson("-4 addr show"))
    for (const auto& i : a["addr_info"])
      if (i.contains("local")) v4.insert(i["local"].get<std::string>());
  for (const auto& a : ns.ipJson("-6 addr show scope global"))
    for (const auto& i : a["addr_info"])  // ip -j prints {} for addresses filtered out
      if (i.contains("local")) v6.insert(i["local"].get<std::string>());
  for (const auto& n : ns.ipJson("neigh show dev v0")) neigh.insert(n["dst"].get<std::string>());
  EXPECT_EQ(v4, (std::set<std::string>{"127.0.0.1", "10.0.0.1", "10.0.1.1", "10.50.0.1", "10.51.0.1"}));
  EXPECT_EQ(v6, (std::set<std::string>{"2001:db8:50::1"}));
  EXPECT_EQ(neigh, (std::set<std::string>{"10.0.0.50", "10.0.0.51"}));
  std::set<std::string> routes;
  for (const auto& x : ns.ipJson("route show")) routes.insert(x["dst"].get<std::string>());
  EXPECT_TRUE(routes.count("10.60.0.0/16") && routes.count("10.61.0.0/16")) << r.out;
  for (const char* gone : {"10.62.0.0/16", "10.63.0.0/16", "10.64.0.0/16", "10.52.0.0/24"}) EXPECT_FALSE(routes.count(gone)) << gone;
  EXPECT_EQ(ipLink("v1")["mtu"], 1400);
}

TEST_F(RoutedCliTest, BatchForcePipelinesEverythingAndKeepsTheRest) {
  std::string content;
  for (int i = 1; i <= 2000; ++i) content += i == 1000 ? routeLine(10) : routeLine(i);
  auto r = batch(content, "-force");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("1999 lines applied, 1 failed, 0 not sent"), std::string::npos) << r.err;
  EXPECT_EQ(routeDsts(ns, 100).size(), 1999u);
}

}  // namespace
}  // namespace fastlink::test
