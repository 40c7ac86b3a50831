// `ntable` against ip (iproute2 6.1) in one namespace: the neighbour tables and each device's
// parameters as ip shows them (text, -o, -j, -j -p, -s with the config and counters, dev/name
// filters, `dev none`, -4/-6/-0, `ntbl` abbreviations), changes as ip reads them back, and ip's
// exit statuses for every failure it has. The kernel draws `reachable` anew now and then and the
// -s counters move with the table's timers: a read is retried until ip's and fastlink's agree
// or three tries differ. The tables are the kernel's, shared by every namespace, so their -s
// counters (lookups, hits, allocs, ...) and ages (last_flush, last_rand, in ms) also move with
// whatever the rest of the machine does between the two reads: those numbers are compared as
// present, not by value (the test failed under load with lookups moved between the reads).
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "cli/cli_fixture.hpp"

namespace fastlink::test {
namespace {

/// `text` with the values of the -s counters and ages replaced by "N" (text and JSON forms; the text
/// form prints last_flush and last_rand as the date now minus the age, which moves a second when the
/// two reads straddle one: the CI's sanitizer run failed on 04:37:18 against 04:37:17; -j prints
/// that date as a JSON string, "last_flush":"2026-11-26 22:10:44", which the pattern missed until
/// stop 37, when a loaded run failed on it).
std::string withoutMovingCounters(const std::string& text) {
  static const std::regex moving(
      R"re(((?:^|[ "])(?:allocs|destroys|hash_grows|res_failed|lookups|hits|rcv_probes_mcast|rcv_probes_ucast|)re"
      R"re(periodic_gc_runs|forced_gc_runs|table_fulls|entries|last_flush|last_rand|hash_rnd|proxy_qlen)"?:? ?"?)[0-9]+(?:-[0-9]+-[0-9]+ [0-9]+:[0-9]+:[0-9]+)?)re");
  return std::regex_replace(text, moving, "$1N");
}

/// `text` with each device's `reachable` (the time the kernel draws anew from base_reachable for the
/// whole table every 300 s) replaced by "N": a check that a refused change changed nothing must not
/// depend on whether the draw fell between its two reads (the CI's sanitizer run failed on ndisc_cache's
/// 30456 against 19804).
std::string withoutDrawnReachable(const std::string& text) {
  static const std::regex drawn(R"re(( reachable )[0-9]+)re");
  return std::regex_replace(text, drawn, "$1N");
}

class NtableCliTest : public CliTest {
 protected:
  void SetUp() override { ns.ip("link add v0 type veth peer name v1"); }
};

TEST_F(NtableCliTest, ShowPrintsWhatIpPrints) {
  ns.ip("ntable change name arp_cache dev v1 queue 50 app_probes 2");  // a value other than the defaults
  auto full = ns.exec("ip ntable show").out;
  for (const char* expected : {"inet arp_cache \n    thresh1 ", "inet6 ndisc_cache \n", "    dev v1 \n", " queue 50 \n",
                               "    app_probes 2 ucast_probes"})
    EXPECT_NE(full.find(expected), std::string::npos) << expected << " in\n" << full;
  auto stats = ns.exec("ip -s ntable show name arp_cache dev none").out;
  EXPECT_NE(stats.find("    config key_len 4 "), std::string::npos) << stats;
  EXPECT_NE(stats.find("        last_flush "), std::string::npos) << stats;
  EXPECT_NE(stats.find("    stats allocs "), std::string::npos) << stats;
  for (const char* line : {"ntable", "ntable show", "ntbl s", "ntable list dev v1", "ntable lst name ndisc_cache",
                           "-j ntable show", "-j -p ntable show dev v0", "-o ntable show dev v1", "-4 ntable show",
                           "-6 -j ntable show dev none", "-0 ntable show", "ntable show dev none name arp_cache",
                           "-s ntable show dev none", "-s -j ntable show name ndisc_cache", "-s -o ntable show dev none"}) {
    CommandResult mine, theirs;
    for (int attempt = 0; attempt < 3; ++attempt) {
      mine = cli(line);
      theirs = ns.exec(std::string("ip ") + line);
      if (withoutMovingCounters(mine.out) == withoutMovingCounters(theirs.out)) break;
    }
    ASSERT_EQ(theirs.status, 0) << line << ": " << theirs.err;
    EXPECT_EQ(mine.status, 0) << line << ": " << mine.err;
    EXPECT_EQ(withoutMovingCounters(mine.out), withoutMovingCounters(theirs.out)) << line;
  }
}

TEST_F(NtableCliTest, ChangeSetsWhatIpReadsBack) {
  auto r = cli("ntable change name arp_cache dev v0 queue 50 retrans 2000 base_reachable 20000 locktime 0");
  ASSERT_EQ(r.status, 0) << r.err;
  auto v0 = ns.exec("ip -4 ntable show dev v0").out;
  EXPECT_NE(v0.find(" base_reachable 20000 retrans 2000 \n"), std::string::npos) << v0;
  EXPECT_NE(v0.find(" queue 50 \n"), std::string::npos) << v0;
  EXPECT_NE(v0.find(" locktime 0 \n"), std::string::npos) << v0;
  EXPECT_EQ(ns.exec("ip -4 ntable show dev v1").out.find(" queue 50 "), std::string::npos);  // only v0's
  r = cli("-6 ntbl chg name ndisc_cache dev v1 gc_stale 1000 delay_probe 2000 ucast_probes 5 mcast_probes 6 "
          "anycast_delay 3000 proxy_delay 4000 proxy_queue 9");
  ASSERT_EQ(r.status, 0) << r.err;
  auto v1 = ns.exec("ip -6 ntable show dev v1").out;
  EXPECT_NE(v1.find("    gc_stale 1000 delay_probe 2000 queue 101 \n"), std::string::npos) << v1;
  EXPECT_NE(v1.find(" ucast_probes 5 mcast_probes 6 \n"), std::string::npos) << v1;
  EXPECT_NE(v1.find("    anycast_delay 3000 proxy_delay 4000 proxy_queue 9 "), std::string::npos) << v1;
  // The table's own parameters belong to the initial namespace: refused here, by ip too.
  r = cli("ntable change name arp_cache app_probes 1");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(ns.exec("ip ntable change name arp_cache app_probes 1").status, 2);
}

TEST_F(NtableCliTest, FailuresExitAsIpsAndChangeNothing) {
  std::string before = withoutDrawnReachable(ns.exec("ip ntable show dev v0").out);
  for (const char* line : {"ntable change name arp_cache thresh1 64", "ntable change name nosuch queue 1",
                           "ntable change queue 1", "ntable change name arp_cache", "ntable change name arp_cache queue x",
                           "ntable change name arp_cache bogus 1", "ntable change name arp_cache dev nosuch queue 1",
                           "ntable change name arp_cache name ndisc_cache queue 1", "ntable change name arp_cache queue",
                           "-0 ntable change name arp_cache dev v0 queue 1", "ntable show bogus", "ntable show dev nosuch",
                           "ntable frob", "ntable help"}) {
    auto mine = cli(line);
    auto theirs = ns.exec(std::string("ip ") + line);
    EXPECT_EQ(mine.status, theirs.status) << line << "\nfastlink: " << mine.err << "\nip: " << theirs.err;
    EXPECT_EQ(mine.out, theirs.out) << line;
    EXPECT_NE(mine.status, 0) << line;
    EXPECT_EQ(withoutDrawnReachable(ns.exec("ip ntable show dev v0").out), before) << line;
  }
  // The kernel's refusal of thresholds outside the initial namespace, and the command as typed.
  EXPECT_EQ(cli("ntable change name arp_cache thresh1 64").err,
            "Error: No such file or directory (ntable change name arp_cache thresh1 64)\n");
}

TEST_F(NtableCliTest, BatchLinesChange) {
  auto r = batch("ntable change name arp_cache dev v0 queue 40\nntable chg name arp_cache dev v1 queue 41\n");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(ns.exec("ip -4 ntable show dev v0").out.find(" queue 40 "), std::string::npos);
  EXPECT_NE(ns.exec("ip -4 ntable show dev v1").out.find(" queue 41 "), std::string::npos);
  r = batch("ntable change name arp_cache dev v0 queue 42\nntable change name nosuch queue 1\n");
  EXPECT_EQ(r.status, 1);  // the second line fails (ip -batch: 1)
  EXPECT_NE(ns.exec("ip -4 ntable show dev v0").out.find(" queue 42 "), std::string::npos);
  EXPECT_EQ(batch("ntable show\n").status, 255);  // reads are not batch lines
}

}  // namespace
}  // namespace fastlink::test
