// `fastlink -batch FILE`: validation before sending, stop/force/window semantics, name resolution.
#include <regex>

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
  EXPECT_EQ(r.status, 2);
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
    EXPECT_EQ(r.status, 2) << line;
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
  // Line 10 fails; with -window 8 the lines sent with it were applied, the rest not sent.
  std::string content = bridges(1, 9) + "link add b1 type bridge\n" + bridges(11, 40);
  auto r = batch(content, "-window 8");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("(line 10: link add b1 type bridge)"), std::string::npos) << r.err;
  std::smatch m;
  std::regex note(R"(Note: lines? (\d+)(?:-(\d+))? already in flight when line 10 failed, and applied)");
  ASSERT_TRUE(std::regex_search(r.err, m, note)) << r.err;
  int firstApplied = std::stoi(m[1]);
  int lastApplied = m[2].matched ? std::stoi(m[2]) : firstApplied;
  EXPECT_EQ(firstApplied, 11);
  std::regex notSent(R"(Not sent: line (\d+) and every later line \((\d+) requests?\))");
  ASSERT_TRUE(std::regex_search(r.err, m, notSent)) << r.err;
  EXPECT_EQ(std::stoi(m[1]), lastApplied + 1);
  EXPECT_EQ(std::stoi(m[2]), 40 - lastApplied);
  // What fastlink says is exactly what the kernel has.
  for (int i = 1; i <= 40; ++i) {
    if (i == 10) continue;
    EXPECT_EQ(ipHas("b" + std::to_string(i)), i <= lastApplied) << "b" << i;
  }
  EXPECT_NE(r.err.find(std::to_string(lastApplied - 1) + " lines applied, 1 failed"), std::string::npos) << r.err;
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
  std::string path = "/tmp/fastlink-cli-million-" + ns.name();
  {
    std::ofstream f(path);
    for (int i = 0; i < 1000000; ++i) f << "link set dev b" << (i % 1000) << " mtu " << (1280 + i % 7000) << " up\n";
    f << "link set dev b1 mtu nope\n";
  }
  std::string before = snapshot();
  bool haveTime = access("/usr/bin/time", X_OK) == 0;  // GNU time reports the peak RSS
  auto r = run((haveTime ? "/usr/bin/time -f 'maxrss_kb=%M' " : "") + cliPath() + " -n " + ns.name() + " -batch " + path);
  std::remove(path.c_str());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("(line 1000001: link set dev b1 mtu nope)"), std::string::npos) << r.err;
  EXPECT_EQ(snapshot(), before);
  if (!haveTime) GTEST_SKIP() << "no /usr/bin/time to measure the peak RSS; the rest was checked";
#if defined(__SANITIZE_ADDRESS__)
  // ASan's shadow memory and free-list quarantine make RSS meaningless (~380 MB here).
  GTEST_SKIP() << "AddressSanitizer build: the peak-RSS bound is checked by the Release build";
#endif
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.err, m, std::regex(R"(maxrss_kb=(\d+))"))) << r.err;
  EXPECT_LT(std::stol(m[1]), 32 * 1024) << "max RSS in KiB";
}

}  // namespace
}  // namespace fastlink::test
