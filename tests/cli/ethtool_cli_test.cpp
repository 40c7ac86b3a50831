// `fastlink ethtool` against the `ethtool` program (6.1) on a 4-queue veth pair: the text of
// -l and -k must be ethtool's byte for byte; changes are checked with ethtool and /sys.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <sstream>

#include "cli/cli_fixture.hpp"
#include "support/netdevsim.hpp"

namespace fastlink::test {
namespace {

class EthtoolCliTest : public CliTest {
 protected:
  void SetUp() override {
    if (ns.exec("command -v ethtool").status != 0) GTEST_SKIP() << "ethtool is not installed (scripts/setup)";
    ns.ip("link add e0 numtxqueues 4 numrxqueues 4 type veth peer name e1 numtxqueues 4 numrxqueues 4");
  }
  std::string ethtool(const std::string& args) const { return ns.exec("ethtool " + args).out; }
};

TEST_F(EthtoolCliTest, ShowTextIsEthtools) {
  auto l = cli("ethtool -l e0");
  EXPECT_EQ(l.status, 0) << l.err;
  EXPECT_EQ(l.out, ethtool("-l e0"));
  auto k = cli("ethtool -k e0");
  EXPECT_EQ(k.status, 0) << k.err;
  EXPECT_EQ(k.out, ethtool("-k e0"));
  // Other feature sets: the loopback (groups whose members are all fixed) and a bridge.
  ns.ip("link add br0 type bridge");
  for (const char* dev : {"lo", "br0", "e1"}) EXPECT_EQ(cli(std::string("ethtool -k ") + dev).out, ethtool(std::string("-k ") + dev)) << dev;
  // Long option names as ethtool spells them.
  EXPECT_EQ(cli("ethtool --show-channels e0").out, l.out);
}

// --json is ethtool 6.1's: its JSON for -k (and -a, -S with groups), byte for byte; the global
// -j is the same; where 6.1 has none (-l, -g, -c), a usage error as in 6.1.
TEST_F(EthtoolCliTest, JsonIsEthtoolsWhereEthtoolHasIt) {
  auto k = cli("ethtool --json -k e0");
  ASSERT_EQ(k.status, 0) << k.err;
  EXPECT_EQ(k.out, ethtool("--json -k e0"));
  auto f = nlohmann::json::parse(k.out)[0];
  EXPECT_EQ(f["tx-checksum-ipv4"]["fixed"], true);
  EXPECT_TRUE(f["tx-checksumming"]["fixed"].is_null());  // a legacy group's heading
  EXPECT_EQ(cli("-j ethtool -k e0").out, k.out);
  for (const char* option : {"-l", "-g", "-c"}) {
    auto r = cli(std::string("ethtool --json ") + option + " e0");
    EXPECT_EQ(r.status, 1) << option;
    EXPECT_EQ(r.out, "") << option;
    EXPECT_EQ(r.err, std::string("Error: ethtool ") + option + " has no JSON output (as in ethtool 6.1)\n");
    EXPECT_EQ(ns.exec(std::string("ethtool --json ") + option + " e0").status, 1) << option;
  }
}

TEST_F(EthtoolCliTest, SetChannelsAndFeatures) {
  auto r = cli("ethtool -L e0 rx 2 tx 1");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(ethtool("-l e0").find("Current hardware settings:\nRX:\t\t2\nTX:\t\t1\n"), std::string::npos);
  EXPECT_EQ(ns.exec("ls /sys/class/net/e0/queues | grep -c '^rx-'").out, "2\n");
  r = cli("ethtool -K e0 rx-gro-list on");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(ethtool("-k e0").find("rx-gro-list: on\n"), std::string::npos);
  // A legacy group name, as ethtool takes it: sg = every tx-scatter-gather* feature.
  r = cli("ethtool -K e0 sg off");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(ethtool("-k e0").find("\ttx-scatter-gather: off\n"), std::string::npos);
}

TEST_F(EthtoolCliTest, BadInputIsAClearErrorAndChangesNothing) {
  std::string channels = ethtool("-l e0"), features = ethtool("-k e0");
  auto r = cli("ethtool -L e0 rx 9");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "Error: requested channel count exceeds maximum\n");
  r = cli("ethtool -K e0 rx-gro-list on no-such-feature off");
  EXPECT_EQ(r.status, 92);  // ethtool's status for a refused -K
  EXPECT_EQ(r.err, "Error: bit name not found: \"no-such-feature\" is not a feature of e0 (see ethtool -k e0)\n");
  r = cli("ethtool -l nosuchdev");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("Error: "), std::string::npos);
  r = cli("ethtool -G e0 rx 128");
  EXPECT_EQ(r.status, 81);  // ethtool's status for a refused -G
  EXPECT_EQ(r.err, "Error: Operation not supported\n");
  // Usage errors are caught before anything is sent.
  EXPECT_EQ(cli("ethtool -L e0 rx many").status, 1);
  EXPECT_EQ(cli("ethtool -L e0").status, 1);
  EXPECT_EQ(cli("ethtool -K e0 rx-gro-list maybe").status, 1);
  EXPECT_EQ(cli("ethtool -X e0").status, 1);
  EXPECT_EQ(cli("ethtool").status, 1);
  EXPECT_EQ(cli("ethtool -l").status, 1);
  EXPECT_EQ(ethtool("-l e0"), channels);
  EXPECT_EQ(ethtool("-k e0"), features);
}

// -K's report when the kernel leaves features other than asked: the same commands, in the same
// order, by fastlink on e0 and by ethtool on g0 (a second, identical pair), must print the same
// stdout and stderr and exit the same: fixed features alone (none as asked: exit 1), with a
// changeable one (exit 0), legacy names whose change drags others along ("[not requested]"),
// a fixed feature with one already as asked (exit 0), a change with no surprise and a request
// already met (nothing printed).
TEST_F(EthtoolCliTest, FeatureChangesAreReportedLikeEthtool) {
  ns.ip("link add g0 numtxqueues 4 numrxqueues 4 type veth peer name g1 numtxqueues 4 numrxqueues 4");
  auto named = [](std::string text, const std::string& from, const std::string& to) {
    for (std::size_t at; (at = text.find(from)) != std::string::npos;) text.replace(at, from.size(), to);
    return text;
  };
  ASSERT_EQ(ethtool("-k e0"), named(ethtool("-k g0"), "g0", "e0"));
  for (const char* features : {"tx-checksum-ipv4 on", "tx-checksum-ipv4 on tx-checksum-ipv6 on", "tx-checksum-ipv4 on rx-gro-list on",
                               "tx-checksumming off", "tx-checksumming on", "sg off", "sg on",
                               "tx-checksum-ip-generic on tx-checksum-ipv4 on", "rx-gro-list on", "rx-gro-list on",
                               "rx-gro-list off rx-udp-gro-forwarding on"}) {
    auto mine = cli(std::string("ethtool -K e0 ") + features);
    auto theirs = ns.exec(std::string("ethtool -K g0 ") + features);
    EXPECT_EQ(mine.status, theirs.status) << features << "\n" << mine.err;
    EXPECT_EQ(mine.out, theirs.out) << features;
    EXPECT_EQ(mine.err, theirs.err) << features;
    EXPECT_EQ(ethtool("-k e0"), named(ethtool("-k g0"), "g0", "e0")) << features;
  }
}

// -S is the driver's counters as `ethtool -S` prints them, byte for byte (veth: its peer's
// ifindex and per-queue XDP counters); --all-groups the standard groups (empty on a veth).
TEST_F(EthtoolCliTest, StatisticsAreEthtools) {
  for (const char* dev : {"e0", "e1"}) {
    auto r = cli(std::string("ethtool -S ") + dev);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, ethtool(std::string("-S ") + dev)) << dev;
  }
  EXPECT_NE(cli("ethtool -S e0").out.find("\n     rx_queue_3_xdp_packets: 0\n"), std::string::npos);
  EXPECT_EQ(cli("ethtool --statistics e0").out, ethtool("-S e0"));
  auto all = cli("ethtool -S e0 --all-groups");
  EXPECT_EQ(all.status, 0) << all.err;
  EXPECT_EQ(all.out, ethtool("-S e0 --all-groups"));
  // JSON: only through netlink (the standard groups), as in ethtool 6.1.
  auto j = cli("-j ethtool -S e0 --all-groups");
  ASSERT_EQ(j.status, 0) << j.err;
  EXPECT_EQ(j.out, ethtool("--json -S e0 --all-groups"));
  EXPECT_EQ(cli("-j ethtool -S e0").status, ns.exec("ethtool --json -S e0").status);
  // No driver counters (the loopback): ethtool says "no stats available" and exits 94.
  auto lo = cli("ethtool -S lo");
  auto theirs = ns.exec("ethtool -S lo");
  EXPECT_EQ(lo.status, theirs.status);
  EXPECT_EQ(lo.err, "Error: no stats available\n");
  EXPECT_EQ(theirs.err, "no stats available\n");
}

// Scripts test ethtool's exit statuses, and ethtool has more than one for a failure: 1 for most,
// 81 for -G, 92 for -K, 96 for -S on a missing device. Each line is run by both, statuses compared.
TEST_F(EthtoolCliTest, FailuresExitWithEthtoolsStatus) {
  for (const char* line : {"-G nosuch rx 1", "-G e0 rx 100", "-K nosuch gro on", "-K e0 groo on", "-K e0 loopback on",
                           "-S nosuch", "-l nosuch", "-L nosuch rx 1", "-L e0 combined 4", "-k nosuch", "-g e0",
                           "-c nosuch", "-C e0 rx-usecs 1", "-L e0 bogus 1"}) {
    auto mine = cli(std::string("ethtool ") + line);
    auto theirs = ns.exec(std::string("ethtool ") + line);
    EXPECT_NE(theirs.status, 0) << line;
    EXPECT_EQ(mine.status, theirs.status) << "ethtool " << line << "\nfastlink: " << mine.err << "ethtool: " << theirs.err;
  }
}


// ethtool 6.1's everyday reads and link settings, case by case against ethtool itself in the same
// namespace: exit status and stdout byte for byte, stderr as ethtool's words in fastlink's `Error: `
// shape (ethtool's "netlink error: Operation not supported" is "Error: Operation not supported").
// A case may pin a deliberate difference in stderr alone (`flErr`: fastlink's exact text; status
// and stdout are still ethtool's): a missing device is fastlink's one `Cannot find device`
// message, a usage error fastlink's own words.
struct EthtoolCase {
  const char* args;
  const char* flErr = nullptr;
};

/// ethtool's stderr as fastlink words it: each line as `Error: LINE`, without ethtool's
/// "netlink error: " in front; a kernel's extack ("... (offset N)") stands alone, without the
/// errno line ethtool prints after it (fastlink prints the extack, or the errno text when the
/// kernel gave none).
std::string errorShape(const std::string& text) {
  std::string out;
  std::istringstream in(text);
  bool afterExtack = false;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("netlink error: ")) line = line.substr(15);
    if (afterExtack) {
      afterExtack = false;
      continue;
    }
    if (auto at = line.rfind(" (offset "); at != std::string::npos && line.ends_with(")")) {
      line.resize(at);
      afterExtack = true;
    }
    out += "Error: " + line + "\n";
  }
  return out;
}

class EthtoolDifferential : public EthtoolCliTest {
 protected:
  void SetUp() override {
    EthtoolCliTest::SetUp();
    if (IsSkipped()) return;
    ns.ip("link set e0 up");
    ns.ip("link set e1 up");
    ASSERT_EQ(ns.exec("ip tuntap add t0 mode tun").status, 0);
    ns.ip("link add br0 type bridge");
  }
  void compare(const EthtoolCase& c) {
    auto theirs = ns.exec(std::string("ethtool ") + c.args);
    auto mine = cli(std::string("ethtool ") + c.args);
    EXPECT_EQ(mine.status, theirs.status) << c.args << "\nfastlink: " << mine.err << "ethtool: " << theirs.err;
    EXPECT_EQ(mine.out, theirs.out) << c.args;
    EXPECT_EQ(mine.err, c.flErr ? std::string(c.flErr) : errorShape(theirs.err)) << c.args;
  }
};

TEST_F(EthtoolDifferential, EverydayReadsAreEthtools) {
  const EthtoolCase cases[] = {
      // ethtool DEV: link modes, link info, wake-on, message level, link state (each a part the
      // driver may lack: veth has no message level, lo nothing but the link state).
      {"e0"}, {"e1"}, {"t0"}, {"lo"}, {"br0"},
      {"-i e0"}, {"--driver e1"}, {"-i t0"}, {"-i lo"}, {"-i br0"},
      {"-T e0"}, {"--show-time-stamping t0"}, {"-T lo"}, {"-T br0"},
      {"-P e0"}, {"--show-permaddr t0"}, {"-P lo"},
      {"-a e0"}, {"--show-pause t0"}, {"-a lo"}, {"--json -a e0"}, {"--json -a lo"},
      // Missing devices: ethtool's status per option; fastlink's one message.
      {"nosuch", "Error: Cannot find device \"nosuch\"\n"},
      {"-i nosuch", "Error: Cannot find device \"nosuch\"\n"},
      {"-T nosuch", "Error: Cannot find device \"nosuch\"\n"},
      {"-P nosuch", "Error: Cannot find device \"nosuch\"\n"},
      {"-a nosuch", "Error: Cannot find device \"nosuch\"\n"},
      // Unexpected words and --json where ethtool 6.1 has none: status 1, fastlink's words.
      {"-a e0 extra", "Error: unknown keyword \"extra\" in \"ethtool -a e0 extra\" (word 4; ethtool -a takes only a device)\n"},
      {"-T e0 extra", "Error: unknown keyword \"extra\" in \"ethtool -T e0 extra\" (word 4; ethtool -T takes only a device)\n"},
      {"--json -i e0", "Error: ethtool -i has no JSON output (as in ethtool 6.1)\n"},
      {"--json -T e0", "Error: ethtool -T has no JSON output (as in ethtool 6.1)\n"},
  };
  for (const auto& c : cases) compare(c);
}

// --json where ethtool 6.1 has it (-a, -k, -S with groups: its JSON byte for byte, `[ ]` when the
// request fails) and nowhere else; -S's parameters; the flags before the option (-I, --debug).
TEST_F(EthtoolDifferential, JsonStatisticsAndFlagsAreEthtools) {
  const std::string noDev = "Error: Cannot find device \"nosuch\"\n";
  const EthtoolCase cases[] = {
      {"--json -k e0"}, {"--json -k lo"}, {"--json -k br0"}, {"--json -k t0"}, {"--json -k nosuch", noDev.c_str()},
      {"--json --show-features e1"},
      {"-S e0 --all-groups"}, {"--json -S e0 --all-groups"}, {"--json -S lo --all-groups"},
      {"-S e0 --groups eth-phy"}, {"--json -S e0 --groups eth-mac rmon"}, {"--json -S br0 --groups eth-ctrl"},
      {"--json -S nosuch --all-groups", noDev.c_str()},
      {"-I -a e0"}, {"--include-statistics -a t0"}, {"--json -I -a e0"}, {"--debug 0 -i e0"}, {"-I -k e0"},
      {"--version"},
      // Where ethtool 6.1 has no JSON, or -S's parameters are wrong: status 1, fastlink's words.
      {"--json -S e0", "Error: ethtool -S DEV has no JSON output without --all-groups or --groups (as in ethtool 6.1)\n"},
      {"--json -l e0", "Error: ethtool -l has no JSON output (as in ethtool 6.1)\n"},
      {"--json -g e0", "Error: ethtool -g has no JSON output (as in ethtool 6.1)\n"},
      {"--json -c e0", "Error: ethtool -c has no JSON output (as in ethtool 6.1)\n"},
      {"--json e0", "Error: ethtool DEV has no JSON output (as in ethtool 6.1)\n"},
      {"--json -s e0 speed 10", "Error: ethtool -s has no JSON output (as in ethtool 6.1)\n"},
      {"--json -K e0 gro on", "Error: ethtool -K has no JSON output (as in ethtool 6.1)\n"},
      {"--json -P e0", "Error: ethtool -P has no JSON output (as in ethtool 6.1)\n"},
      {"-S e0 extra", "Error: ethtool -S: unknown parameter \"extra\" (it takes --all-groups or --groups NAME...)\n"},
      {"-S e0 --all-groups extra", "Error: ethtool -S: unknown parameter \"extra\" (it takes --all-groups or --groups NAME...)\n"},
      {"-S e0 --groups", "Error: ethtool -S: --groups needs a group name (eth-phy, eth-mac, eth-ctrl, rmon, ...)\n"},
      {"-S e0 --all-groups --groups eth-mac",
       "Error: ethtool -S: duplicate parameter \"--groups\" (--all-groups and --groups are one parameter)\n"},
      {"-k e0 extra", "Error: unknown keyword \"extra\" in \"ethtool -k e0 extra\" (word 4; ethtool -k takes only a device)\n"},
      {"--debug x -k e0", "Error: --debug: \"x\" is not a number\n"},
      {"--bogus e0", "Error: ethtool option \"--bogus\" is not one of ethtool 6.1's (see fastlink ethtool help)\n"},
      {"-Z e0", "Error: ethtool option \"-Z\" is not one of ethtool 6.1's (see fastlink ethtool help)\n"},
  };
  for (const auto& c : cases) compare(c);
  // A group this kernel does not have: ethtool's kernel refusal (status 1), fastlink naming it.
  auto r = cli("ethtool -S e0 --groups bogus");
  EXPECT_EQ(r.status, ns.exec("ethtool -S e0 --groups bogus").status);
  EXPECT_TRUE(r.err.starts_with("Error: bit name not found: \"bogus\" is not a statistics group (this kernel's: eth-phy, eth-mac, eth-ctrl, rmon"))
      << r.err;
}

// Every option of ethtool 6.1's table (its -h) is fastlink's too or refused by name: the options
// fastlink does not implement exit 1 with one sentence naming the option, what it does and what
// fastlink covers, printing nothing on stdout; none is "not one of ethtool 6.1's".
TEST_F(EthtoolDifferential, EveryOptionOfEthtoolsTableIsKnown) {
  const std::pair<const char*, const char*> refused[] = {
      {"-d|--register-dump", "a register dump"}, {"-e|--eeprom-dump", "an EEPROM dump"},
      {"-E|--change-eeprom", "writing the EEPROM"}, {"-r|--negotiate", "restarting autonegotiation"},
      {"-p|--identify", "identifying the port (blinking)"}, {"-t|--test", "the adapter's self test"},
      {"--phy-statistics", "the PHY's statistics"},
      {"-n|-u|--show-nfc|--show-ntuple", "showing flow classification rules (fastlink steer covers ntuple rules)"},
      {"-N|-U|--config-nfc|--config-ntuple", "flow classification rules (fastlink steer covers ntuple rules)"},
      {"-x|--show-rxfh-indir|--show-rxfh", "showing the RSS indirection table and key"},
      {"-X|--set-rxfh-indir|--rxfh", "setting the RSS indirection table and key"}, {"-f|--flash", "flashing firmware"},
      {"-w|--get-dump", "the firmware dump"}, {"-W|--set-dump", "the firmware dump flag"},
      {"--show-priv-flags", "the driver's private flags"}, {"--set-priv-flags", "the driver's private flags"},
      {"-m|--dump-module-eeprom|--module-info", "the module EEPROM"}, {"--show-eee", "EEE settings"},
      {"--set-eee", "EEE settings"}, {"--set-phy-tunable", "PHY tunables"}, {"--get-phy-tunable", "PHY tunables"},
      {"--get-tunable", "tunables"}, {"--set-tunable", "tunables"}, {"--reset", "resetting components"},
      {"-Q|--per-queue", "per-queue commands"},
      {"--cable-test", "the cable test"}, {"--cable-test-tdr", "the cable test"},
      {"--show-module", "transceiver module settings"},
      {"--set-module", "transceiver module settings"},
  };
  const std::string help = ns.exec("ethtool -h").out;
  std::size_t spellings = 0;
  for (const auto& [names, what] : refused) {
    EXPECT_NE(help.find(std::string("] ") + names + " DEVNAME"), std::string::npos) << names << " is not in ethtool -h";
    std::istringstream in(names);
    for (std::string option; std::getline(in, option, '|'); ++spellings) {
      auto r = cli("ethtool " + option + " e0");
      EXPECT_EQ(r.status, 1) << option;
      EXPECT_EQ(r.out, "") << option;
      EXPECT_EQ(r.err, "Error: ethtool " + option + " (" + what +
                           ") is not supported by fastlink; it covers DEV, -s, -a, -A, -c, -C, -g, -G, -k, -K, -i, -S, "
                           "-T, -P, -l, -L, --show-fec, --set-fec, --show-tunnels (docs/cli/ethtool.md)\n")
          << option;
    }
  }
  EXPECT_EQ(spellings, 51u);
  // ethtool -h's own list, line by line ("ethtool [ FLAGS ] -x|--long DEVNAME"): each spelling
  // is one fastlink knows (the reads run, the sets stop at their missing parameters).
  std::istringstream lines(help);
  std::size_t options = 0;
  for (std::string line; std::getline(lines, line);) {
    auto at = line.find("ethtool [ FLAGS ] ");
    if (at == std::string::npos) continue;
    std::string names = line.substr(at + 18);
    names = names.substr(0, names.find(' '));
    if (names == "DEVNAME" || names.empty()) continue;
    ++options;
    std::istringstream in(names);
    for (std::string option; std::getline(in, option, '|');) {
      if (option == "-h" || option == "--help" || option == "--version") continue;
      auto r = cli("ethtool " + option + " lo");
      EXPECT_EQ(r.err.find("is not one of ethtool 6.1's"), std::string::npos) << option << ": " << r.err;
    }
  }
  EXPECT_EQ(options, 49u);  // ethtool 6.1's args[] less `ethtool DEV`
}

TEST_F(EthtoolDifferential, SetsAndTheirRefusalsAreEthtools) {
  // What the drivers refuse (veth has no link settings, pause or message level to set): ethtool's
  // "netlink error: Operation not supported", its statuses (-s 75, -A 76), nothing changed.
  std::string before = ethtool("e0");
  const EthtoolCase refusals[] = {
      {"-s e0 speed 100"}, {"-s e0 speed 100 duplex full autoneg off"}, {"-s e0 autoneg on"},
      {"-s e0 advertise 0x20"}, {"-s e0 wol g"}, {"-s e0 msglvl 1"}, {"-s e0 port tp"}, {"-s e0"},
      {"-A e0 rx on"}, {"--pause e0 autoneg off tx off"},
      {"-s nosuch speed 100", "Error: Cannot find device \"nosuch\"\n"},
      {"-A nosuch rx on", "Error: Cannot find device \"nosuch\"\n"},
      // advertise by the kernel's mode names, as ethtool 6.1 takes them (veth refuses the set).
      {"-s e0 advertise 10baseT/Half on"}, {"-s e0 advertise 10baseT/Half on 100baseT/Full off --"},
      {"-s e0 advertise 10baseT/Half on -- speed 10"}, {"-s e0 advertise 0x3/0xf"},
      {"-s e0 advertise 10baseT/Half", "Error: \"10baseT/Half\" needs a value (in \"ethtool -s e0 advertise 10baseT/Half\")\n"},
      {"-s e0 advertise 0x3 100baseT/Full on",
       "Error: unknown keyword \"100baseT/Full\" in \"ethtool -s e0 advertise 0x3 100baseT/Full on\" (word 6; ethtool -s takes: "
       "speed N, lanes N, duplex half|full, autoneg on|off, advertise HEX[/HEX] | advertise MODE on|off ... [--], port "
       "tp|aui|bnc|mii|fibre|da, mdix auto|on|off, phyad N, wol pumbagsfd|d|N, sopass XX:XX:XX:XX:XX:XX, msglvl N[/M] | "
       "msglvl TYPE on|off ... [--], master-slave preferred-master|preferred-slave|forced-master|forced-slave)\n"},
      {"-s e0 speed fast", "Error: speed: \"fast\" is not a number\n"},
      {"-s e0 duplex bogus", "Error: \"duplex\" takes half|full, not \"bogus\"\n"},
  };
  for (const auto& c : refusals) compare(c);
  EXPECT_EQ(ethtool("e0"), before);
  // tun sets its message level: the same request by both tools, from the same level (drv and
  // probe on), reads back the same.
  for (const char* level : {"msglvl 3", "msglvl 0x7fff", "msglvl drv off probe off", "msglvl link on", "msglvl 0",
                            "msglvl 0x10/0x30", "msglvl hw on wol on --"}) {
    ASSERT_EQ(ns.exec("ethtool -s t0 msglvl 3").status, 0);
    ASSERT_EQ(ns.exec(std::string("ethtool -s t0 ") + level).status, 0) << level;
    std::string theirs = ethtool("t0");
    ASSERT_EQ(ns.exec("ethtool -s t0 msglvl 3").status, 0);
    auto r = cli(std::string("ethtool -s t0 ") + level);
    EXPECT_EQ(r.status, 0) << level << ": " << r.err;
    EXPECT_EQ(ethtool("t0"), theirs) << level;
  }
}

// FEC and --show-tunnels on a driver without them (veth): ethtool 6.1's refusals, statuses (--show-fec 1, --set-fec
// 83) and `[ ]` for --json; --set-fec's grammar (one `encoding`, words to `--`) and its usage
// errors (status 1). An encoding fastlink does not know is refused before sending, with the
// status ethtool gets from the kernel's refusal (here EOPNOTSUPP comes first): pinned.
TEST_F(EthtoolDifferential, FecAndTunnelRefusalsAndGrammarAreEthtools) {
  const std::string noDev = "Error: Cannot find device \"nosuch\"\n";
  const EthtoolCase cases[] = {
      {"--show-fec e0"}, {"--json --show-fec e0"}, {"-I --show-fec e0"}, {"--json -I --show-fec t0"},
      {"--show-fec lo"}, {"--show-fec nosuch", noDev.c_str()}, {"--json --show-fec nosuch", noDev.c_str()},
      {"--set-fec e0 encoding rs"}, {"--set-fec e0 encoding auto off RS baser LLRS --"}, {"--set-fec e0 encoding --"},
      {"--set-fec e0 encoding rs --"}, {"--set-fec nosuch encoding off", noDev.c_str()},
      {"--show-fec e0 extra",
       "Error: unknown keyword \"extra\" in \"ethtool --show-fec e0 extra\" (word 4; ethtool --show-fec takes only a device)\n"},
      {"--set-fec e0", "Error: ethtool --set-fec: parameters missing (encoding auto|off|rs|baser|llrs ...)\n"},
      {"--set-fec e0 bogus", "Error: ethtool --set-fec: unknown parameter \"bogus\" (it takes encoding auto|off|rs|baser|llrs ...)\n"},
      {"--set-fec e0 encoding rs -- bogus",
       "Error: ethtool --set-fec: unknown parameter \"bogus\" (it takes encoding auto|off|rs|baser|llrs ...)\n"},
      {"--set-fec e0 encoding", "Error: ethtool --set-fec: no value for parameter \"encoding\"\n"},
      {"--set-fec e0 encoding rs -- encoding off", "Error: ethtool --set-fec: duplicate parameter \"encoding\"\n"},
      {"--set-fec e0 encoding rs bogus", "Error: ethtool --set-fec: \"bogus\" is not an FEC encoding (auto, off, rs, baser, llrs)\n"},
      {"--set-fec e0 encoding none", "Error: ethtool --set-fec: \"none\" is not an FEC encoding (auto, off, rs, baser, llrs)\n"},
      {"--json --set-fec e0 encoding rs", "Error: ethtool --set-fec has no JSON output (as in ethtool 6.1)\n"},
      {"--set-fec", "Error: ethtool --set-fec: a device name is required\n"},
      // --show-tunnels on a device without UDP tunnel offload: status 1, the kernel's extack (not
      // bound to an attribute, so ethtool prints it without an offset, then the errno line).
      {"--show-tunnels e0", "Error: device does not report tunnel offload info\n"},
      {"--show-tunnels lo", "Error: device does not report tunnel offload info\n"},
      {"--show-tunnels nosuch", noDev.c_str()},
      {"--show-tunnels e0 x",
       "Error: unknown keyword \"x\" in \"ethtool --show-tunnels e0 x\" (word 4; ethtool --show-tunnels takes only a device)\n"},
      {"--json --show-tunnels e0", "Error: ethtool --show-tunnels has no JSON output (as in ethtool 6.1)\n"},
  };
  for (const auto& c : cases) compare(c);
}

// netdevsim (VM only: tests/vm/run builds it for Debian's 6.1) is the one driver here with rings,
// coalescing, pause with statistics and settable channels: ethtool's reads of it, case by case
// against ethtool on the same device, and its sets done by each tool on a device of its own
// (fastlink on `mine`, ethtool on `theirs`), compared by what ethtool reads back after each.
class VmNetdevsimEthtool : public EthtoolDifferential {
 protected:
  std::unique_ptr<NetdevsimDevice> a, b;
  std::string mine, theirs;
  unsigned id = 0;  // netdevsim's device id of `mine`; `theirs` is id + 1
  void SetUp() override {
    if (!std::getenv("FASTLINK_VM")) GTEST_SKIP() << "VM only (tests/vm/run): netdevsim is built there for the VM's kernel";
    if (!NetdevsimDevice::available()) GTEST_SKIP() << "kernel lacks module 'netdevsim'";
    EthtoolDifferential::SetUp();
    id = 100 + static_cast<unsigned>(::getpid() % 800);
    // Each netdev appears as the kernel's first free ethN outside and is moved in under that
    // name: the first is renamed before the second comes (which has the same name).
    a = std::make_unique<NetdevsimDevice>(ns, id);
    ASSERT_FALSE(a->name().empty()) << "the first netdevsim device did not appear in the namespace";
    ns.ip("link set dev " + a->name() + " name nsimfl");
    b = std::make_unique<NetdevsimDevice>(ns, id + 1);
    ASSERT_FALSE(b->name().empty()) << "the second netdevsim device did not appear in the namespace";
    ns.ip("link set dev " + b->name() + " name nsimet");
    mine = "nsimfl";
    theirs = "nsimet";
  }
  /// `text` with the other device's name in place of `theirs`.
  std::string asMine(std::string text) const {
    for (std::size_t at; (at = text.find(theirs)) != std::string::npos;) text.replace(at, theirs.size(), mine);
    return text;
  }
};

TEST_F(VmNetdevsimEthtool, ReadsAreEthtools) {
  for (std::string option : {"", "-k", "--json -k", "-g", "-l", "-c", "-a", "-I -a", "-i", "-P", "-T", "-S", "-S --all-groups",
                             "--json -S --all-groups", "-S --groups eth-mac rmon"}) {
    // -S's parameters follow the device.
    auto s = option.find("-S");
    std::string args = s == std::string::npos ? option + " " + mine : option.substr(0, s + 2) + " " + mine + option.substr(s + 2);
    compare({args.c_str()});
  }
  // Pinned: ethtool 6.1's --json -a prints `true` for every pause flag the kernel sends (its
  // show_bool_val hands print_bool the attribute's address, netlink/netlink.h); fastlink prints
  // the values, which `ethtool -a`'s text shows (netdevsim: all off). The statistics nest -I
  // asks for is there, empty, in both.
  ASSERT_NE(ethtool("-a " + mine).find("Autonegotiate:\toff\nRX:\t\toff\nTX:\t\toff\n"), std::string::npos);
  const std::string pinned = "[ {\n        \"ifname\": \"nsimfl\",\n        \"autonegotiate\": false,\n        \"rx\": false,\n"
                             "        \"tx\": false";
  auto theirs = ns.exec("ethtool --json -I -a " + mine);
  auto r = cli("ethtool --json -I -a " + mine);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, pinned + ",\n        \"statistics\": {}\n    } ]\n");
  EXPECT_EQ(theirs.out, "[ {\n        \"ifname\": \"nsimfl\",\n        \"autonegotiate\": true,\n        \"rx\": true,\n"
                        "        \"tx\": true,\n        \"statistics\": {}\n    } ]\n");
  EXPECT_EQ(cli("ethtool --json -a " + mine).out, pinned + "\n    } ]\n");
}

TEST_F(VmNetdevsimEthtool, SetsAreEthtools) {
  const char* sets[] = {"-G DEV rx 512 tx 256", "-G DEV rx-mini 40 rx-jumbo 100", "-G DEV rx 5000",
                        "-C DEV rx-usecs 10 tx-frames 5 adaptive-rx on", "-C DEV stats-block-usecs 3 cqe-mode-rx on",
                        "-A DEV autoneg off rx on tx on", "-A DEV rx off", "-K DEV hw-tc-offload on", "-K DEV rx-gro-list on",
                        "-L DEV combined 2", "-L DEV combined 9", "-L DEV rx 1"};
  for (const char* line : sets) {
    auto on = [&](const std::string& dev) {
      std::string l = line;
      return l.replace(l.find("DEV"), 3, dev);
    };
    auto their = ns.exec("ethtool " + on(theirs));
    auto my = cli("ethtool " + on(mine));
    EXPECT_EQ(my.status, their.status) << line << "\nfastlink: " << my.err << "ethtool: " << their.err;
    EXPECT_EQ(my.out, asMine(their.out)) << line;
    EXPECT_EQ(my.err, errorShape(asMine(their.err))) << line;
    for (const char* read : {"-g", "-c", "-a", "-k", "-l"})
      EXPECT_EQ(ethtool(std::string(read) + " " + mine), asMine(ethtool(std::string(read) + " " + theirs))) << line << ": " << read;
  }
}

// FEC, which netdevsim keeps (it reports what was set, active: the highest encoding set): each
// --set-fec line by fastlink on `mine` and by ethtool on `theirs`, compared by status, output
// and what --show-fec (text and JSON, with and without -I) reads back on both; then failures
// netdevsim injects (its debugfs get_err/set_err) with ethtool's statuses and messages.
TEST_F(VmNetdevsimEthtool, FecIsEthtools) {
  for (std::string option : {"--show-fec", "--json --show-fec", "-I --show-fec", "--json -I --show-fec"})
    compare({(option + " " + mine).c_str()});
  struct Set {
    const char* words;
    const char* flErr = nullptr;  // fastlink's words where it refuses before sending (status: ethtool's)
  };
  const Set sets[] = {
      {"encoding auto"}, {"encoding off"}, {"encoding rs"}, {"encoding baser llrs"}, {"encoding auto rs"},
      {"encoding RS BaseR --"}, {"encoding LLRS off"}, {"encoding --"}, {"encoding auto"},
      {"encoding bogus", "Error: ethtool --set-fec: \"bogus\" is not an FEC encoding (auto, off, rs, baser, llrs)\n"},
      {"encoding tp", "Error: ethtool --set-fec: \"tp\" is not an FEC encoding (auto, off, rs, baser, llrs)\n"},
      {"encoding none", "Error: ethtool --set-fec: \"none\" is not an FEC encoding (auto, off, rs, baser, llrs)\n"},
  };
  for (const auto& set : sets) {
    SCOPED_TRACE(set.words);
    auto their = ns.exec("ethtool --set-fec " + theirs + " " + set.words);
    auto my = cli("ethtool --set-fec " + mine + " " + set.words);
    EXPECT_EQ(my.status, their.status) << "fastlink: " << my.err << "ethtool: " << their.err;
    EXPECT_EQ(my.out, asMine(their.out));
    EXPECT_EQ(my.err, set.flErr ? std::string(set.flErr) : errorShape(asMine(their.err)));
    for (const char* read : {"--show-fec", "--json --show-fec", "-I --show-fec", "--json -I --show-fec"}) {
      EXPECT_EQ(ethtool(std::string(read) + " " + mine), asMine(ethtool(std::string(read) + " " + theirs))) << read;
      compare({(std::string(read) + " " + mine).c_str()});
    }
  }
  // netdevsim's injected errors (debugfs, mounted here if the VM has not): the driver's errno
  // on a read (status 1, `[ ]` in JSON) and on a set (status 83).
  // debugfs is the machine's, not the namespace's: written from the test's own namespace.
  ASSERT_EQ(run("grep -q ' /sys/kernel/debug debugfs ' /proc/mounts || mount -t debugfs none /sys/kernel/debug").status, 0);
  const std::string dir = "/sys/kernel/debug/netdevsim/netdevsim" + std::to_string(id) + "/ports/0/ethtool/";
  ASSERT_EQ(run("echo 95 > " + dir + "get_err && echo 22 > " + dir + "set_err").status, 0);
  for (std::string line : {"--show-fec DEV", "--json --show-fec DEV", "--set-fec DEV encoding rs"}) {
    line.replace(line.find("DEV"), 3, mine);
    compare({line.c_str()});
  }
  ASSERT_EQ(run("echo 0 > " + dir + "get_err && echo 0 > " + dir + "set_err").status, 0);
}

// --show-tunnels on netdevsim, whose two UDP port tables (vxlan; geneve and vxlan-gpe) fill as
// tunnel devices in its namespace open their ports: ethtool's text on the same device, empty
// and with a VXLAN and a GENEVE port offloaded.
TEST_F(VmNetdevsimEthtool, TunnelOffloadIsEthtools) {
  compare({("--show-tunnels " + mine).c_str()});
  ASSERT_NE(ethtool("--show-tunnels " + mine).find("  UDP port table 0: \n    Size: "), std::string::npos) << ethtool("--show-tunnels " + mine);
  ns.ip("link set " + mine + " up");
  ns.ip("link add fl-vx type vxlan id 5 dstport 4789");
  ns.ip("link add fl-gn type geneve id 6 remote 192.0.2.9");
  ns.ip("link set fl-vx up");
  ns.ip("link set fl-gn up");
  compare({("--show-tunnels " + mine).c_str()});
  std::string shown = cli("ethtool --show-tunnels " + mine).out;
  EXPECT_NE(shown.find("        port 4789, vxlan\n"), std::string::npos) << shown;
  EXPECT_NE(shown.find("        port 6081, geneve\n"), std::string::npos) << shown;
}

}  // namespace
}  // namespace fastlink::test
