// `fastlink tc filter` and `fastlink tc actions` against iproute2 6.1's `tc`: filters fastlink
// adds are printed by tc and by fastlink, byte for byte the same (text and -j); deletes and
// batches checked with tc as the oracle. The host has u32, bpf and mirred; the other classifiers and
// actions (cls_flower, cls_matchall, cls_fw, cls_basic, act_gact, act_mpls, act_pedit, ...) run in
// the VM.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <regex>
#include <string>

#include "cli/tc_cli_fixture.hpp"

namespace fastlink::test {
namespace {

class TcFilterCli : public TcCliFixture {
 protected:
  void SetUp() override {
    ns.ip("link add v0 type veth peer name v1");
    ns.ip("link set v0 up");
    ns.ip("link set v1 up");
    ASSERT_EQ(tc("qdisc add dev v0 clsact").status, 0);
  }
  /// True when the kernel has the module (probed by tc itself with `probe`); else the test is
  /// skipped in the accepted form, or fails in the VM where the module is required.
  bool kernelHas(const char* module, const std::string& probe) {
    if (tc(probe).status == 0) return true;
    if (std::getenv("FASTLINK_REQUIRE_KINDS")) ADD_FAILURE() << "the VM kernel lacks " << module;
    return false;
  }
  /// samePrint of a `-s` listing but for the actions' ages ("installed 3 sec used 3 sec",
  /// "installed":3,"last_used":3): the two tools read them a moment apart, a second may tick.
  void samePrintButAges(const std::string& options, const std::string& object) {
    static const std::regex ages(R"((installed|used|"installed"|"last_used")( |:)[0-9]+)");
    auto mine = cli(options + " tc " + object);
    auto theirs = tc(options + " " + object);
    ASSERT_EQ(theirs.status, 0) << theirs.err;
    ASSERT_EQ(mine.status, 0) << mine.err;
    ASSERT_NE(theirs.out.find("installed"), std::string::npos) << theirs.out;
    EXPECT_EQ(std::regex_replace(mine.out, ages, "$1$2N"), std::regex_replace(theirs.out, ages, "$1$2N"))
        << "fastlink " << options << " tc " << object;
  }
};

TEST_F(TcFilterCli, U32AndMirredOutputMatchesTc) {
  ok("tc filter add dev v0 ingress protocol ip pref 10 u32 match ip dst 10.0.0.1/32 match ip sport 80 0xffff "
     "action mirred egress redirect dev v1");
  ok("tc filter add dev v0 ingress protocol ip pref 10 u32 match ip src 192.168.0.0/16 match ip protocol 17 0xff "
     "action mirred ingress mirror dev v1 pipe action mirred egress redirect dev v1");
  ok("tc filter add dev v0 egress protocol all pref 20 chain 3 u32 match u32 0x00000800 0x0000ffff at 12 match u8 6 0xff at 9");
  ok("tc qdisc add dev v1 root handle 1: htb");
  ok("tc filter add dev v1 parent 1: protocol ip prio 1 u32 match ip dst 10.9.0.0/24 flowid 1:10");
  ok("tc filter add dev v1 parent 1: protocol ip prio 1 handle 800::7 u32 match u16 0x1234 0xffff at 2 classid 1:20");
  for (const char* options : {"", "-j"}) {
    samePrint(options, "filter show dev v0 ingress");
    samePrint(options, "filter show dev v0 egress");
    samePrint(options, "filter show dev v0 egress chain 3");
    samePrint(options, "filter show dev v1 parent 1:");
    samePrint(options, "filter show dev v1 parent 1: pref 1");
    samePrint(options, "filter show dev v1 parent 1: protocol ip");
  }
  // The kernel holds what tc would have sent: keys packed as tc packs them.
  auto text = tc("filter show dev v0 egress").out;
  EXPECT_NE(text.find("match 00060000/00ff0000 at 8"), std::string::npos) << text;  // u8 6 at 9: the word at 8
  EXPECT_NE(text.find("match 00000800/0000ffff at 12"), std::string::npos) << text;
}

TEST_F(TcFilterCli, U32KeysReadAsTcReadsThem) {
  // tc reads a key's mask in base 16 with or without "0x" and its "at OFFSET" as optional (0):
  // iproute2's own testsuite writes `u32 match u32 0 0` (tests/tc/pedit.t). The same words go to
  // fastlink on v0 and to tc on v1; tc prints both devices' filters (hence the same keys).
  ASSERT_EQ(tc("qdisc add dev v1 clsact").status, 0);
  const char* keys[] = {"match u32 0 0", "match u32 0x0800 ffff at 12", "match u16 0x1234 ff00 at 2",
                        "match u8 0x16 10 at 9", "match ip protocol 1 ff", "match ip dport 22 ffff"};
  int pref = 1;
  for (const char* key : keys) {
    std::string words = "ingress pref " + std::to_string(pref++) + " protocol ip u32 " + key;
    ok("tc filter add dev v0 " + words);
    ASSERT_EQ(tc("filter add dev v1 " + words).status, 0) << words;
  }
  auto mine = tc("filter show dev v0 ingress");
  auto theirs = tc("filter show dev v1 ingress");
  ASSERT_EQ(theirs.status, 0) << theirs.err;
  ASSERT_NE(theirs.out.find("match 00100000/00100000 at 8"), std::string::npos) << theirs.out;  // u8 0x16 10 at 9
  EXPECT_EQ(mine.out, theirs.out);
}

TEST_F(TcFilterCli, SharedBlockMirredDirectionsAndStatsLikeTc) {
  ok("tc filter add dev v0 ingress protocol ip pref 10 u32 match ip dst 10.0.0.1/32 action mirred egress mirror dev v1 "
     "action mirred ingress redirect dev v1");
  ok("tc filter add dev v0 egress protocol ip pref 11 u32 match ip dst 10.0.0.2/32 action mirred ingress mirror dev v1");
  // A shared block: listed by the block, tc leaves the block out as it leaves out the device.
  ASSERT_EQ(tc("qdisc add dev v1 ingress_block 22 clsact").status, 0);
  ok("tc filter add block 22 protocol ip pref 3 u32 match ip src 10.3.0.0/16 action mirred egress redirect dev v0");
  for (const char* options : {"", "-j"}) {
    samePrint(options, "filter show block 22");
    samePrint(options, "filter show dev v1 ingress");
    samePrint(options, "filter show dev v0 ingress");
  }
  for (const char* options : {"-s", "-s -j"}) {
    samePrintButAges(options, "filter show dev v0 ingress");
    samePrintButAges(options, "filter show dev v0 egress");
    samePrintButAges(options, "filter show block 22");
  }
}

TEST_F(TcFilterCli, ReplaceChangeAndDelLikeTc) {
  ok("tc filter add dev v0 ingress protocol ip pref 5 handle 800::1 u32 match ip dst 10.0.0.1/32 flowid 1:1");
  // The kernel keeps a u32 rule's selector on replace/change (u32_init_knode copies it) and takes
  // the new classid: what tc's own replace does too.
  ok("tc filter replace dev v0 ingress protocol ip pref 5 handle 800::1 u32 match ip dst 10.0.0.2/32 flowid 1:2");
  auto shown = tc("filter show dev v0 ingress").out;
  EXPECT_NE(shown.find("*flowid 1:2"), std::string::npos) << shown;
  ok("tc filter change dev v0 ingress protocol ip pref 5 handle 800::1 u32 match ip dst 10.0.0.3/32 flowid 1:3");
  EXPECT_NE(tc("filter show dev v0 ingress").out.find("*flowid 1:3"), std::string::npos);
  // Adding the same handle again is refused by the kernel (exit 2, as tc) and changes nothing.
  auto again = cli("tc filter add dev v0 ingress protocol ip pref 5 handle 800::1 u32 match ip dst 10.0.0.4/32");
  EXPECT_EQ(again.status, 2) << again.err;
  EXPECT_EQ(tc("filter show dev v0 ingress").out.find("0a000004"), std::string::npos);
  ok("tc filter del dev v0 ingress pref 5");
  EXPECT_EQ(tc("filter show dev v0 ingress").out, "");
}

TEST_F(TcFilterCli, BatchAddsFiltersAndNamesTheFailingLine) {
  std::string lines;
  for (int i = 1; i <= 30; ++i)
    lines += "tc filter add dev v0 ingress protocol ip pref 7 handle 800::" + std::to_string(i) + " u32 match ip dst 10.0.1." +
             std::to_string(i) + "/32 action mirred egress redirect dev v1\n";
  // Two mirred actions naming two devices: each gets its own device's index, in order (the
  // encoder resolves the names of the line where they lie, docs/BENCHMARKS.md "tc filters").
  lines += "tc filter add dev v0 ingress protocol ip pref 8 u32 match ip dst 10.0.3.1/32 action mirred ingress mirror dev lo pipe "
           "action mirred egress redirect dev v1\n";
  lines += "tc filter add dev v0 ingress protocol ip pref 7 handle 800::1 u32 match ip dst 10.0.2.1/32\n";  // exists
  auto r = batch(lines);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("line 32"), std::string::npos) << r.err;
  auto two = tc("filter show dev v0 ingress pref 8").out;
  auto mirror = two.find("mirred (Ingress Mirror to device lo) pipe");
  auto redirect = two.find("mirred (Egress Redirect to device v1) stolen");
  EXPECT_TRUE(mirror != std::string::npos && redirect != std::string::npos && mirror < redirect) << two;
  auto json = tc("-j filter show dev v0 ingress").out;
  std::size_t count = 0;
  for (auto at = json.find("\"kind\":\"mirred\""); at != std::string::npos; at = json.find("\"kind\":\"mirred\"", at + 1)) count++;
  EXPECT_EQ(count, 32u);  // 30 + the two of pref 8
}

TEST_F(TcFilterCli, BpfObjectFileLoadedAndPrintedLikeTc) {
  const std::string obj = std::string(build::bpfDir()) + "/cls_mark.o";
  ok("tc filter add dev v0 ingress bpf obj " + obj + " sec classifier da");
  ASSERT_EQ(tc("filter add dev v0 egress pref 3 bpf obj " + obj + " da classid 1:2").status, 0);
  // In a batch: each line's program stays open until its request has gone out.
  auto r = batch("tc filter add dev v0 egress pref 4 bpf object-file " + obj + " direct-action classid 1:2\n" +
                 "tc filter add dev v0 egress pref 5 bpf obj " + obj + " section classifier\n");
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* options : {"", "-j"}) {
    samePrint(options, "filter show dev v0 ingress");
    samePrint(options, "filter show dev v0 egress");
  }
  // What fastlink sent is what tc sends: tc's own filter (pref 3) and fastlink's (pref 4) read alike.
  auto egress = tc("filter show dev v0 egress").out;
  EXPECT_NE(egress.find("pref 4 bpf chain 0 handle 0x1 flowid 1:2 cls_mark.o:[classifier] direct-action not_in_hw id"),
            std::string::npos) << egress;
  EXPECT_NE(egress.find("pref 5 bpf chain 0 handle 0x1 cls_mark.o:[classifier] not_in_hw id"), std::string::npos) << egress;
  // An XDP program is not a classifier: refused before anything is sent.
  auto xdp = cli("tc filter add dev v0 ingress pref 9 bpf obj " + std::string(build::bpfDir()) + "/xdp_drop.o sec xdp");
  EXPECT_NE(xdp.status, 0);
  EXPECT_NE(xdp.err.find("is not a tc classifier"), std::string::npos) << xdp.err;
  EXPECT_EQ(tc("filter show dev v0 ingress pref 9").out, "");
}

TEST_F(TcFilterCli, StandaloneMirredActionsLikeTc) {
  ok("tc actions add action mirred egress mirror dev v1 index 7");
  ok("tc actions add action mirred egress redirect dev v1 index 8");
  for (const char* options : {"", "-j"}) {
    samePrint(options, "actions show action mirred");
    // get: the named actions in the order asked, numbered from 1, under "total acts 0".
    samePrint(options, "actions get action mirred index 8 action mirred index 7");
  }
  samePrintButAges("-s", "actions get action mirred index 7");
  // A missing index: the kernel's extack and exit 2 (tc 6.1 exits 255 here).
  auto missing = cli("tc actions get action mirred index 9");
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("TC action with specified index not found (actions get action mirred)"), std::string::npos)
      << missing.err;
  ok("tc actions del action mirred index 7 action mirred index 8");
  EXPECT_EQ(tc("actions show action mirred").out.find("index 7"), std::string::npos);
  // flush: the kind's whole table, one request (also a batch line).
  ok("tc actions add action mirred egress mirror dev v1 index 7");
  auto r = batch("tc actions add action mirred egress redirect dev v1 index 8\ntc actions flush action mirred\n");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(tc("actions show action mirred").out.find("action order"), std::string::npos) << tc("actions show action mirred").out;
  // While a filter holds one of them the kernel refuses the flush (EPERM) and deletes none, as for tc.
  ok("tc filter add dev v0 ingress pref 1 u32 match u32 0 0 at 0 action mirred egress redirect dev v1");
  ok("tc actions add action mirred egress mirror dev v1 index 9");
  auto refused = cli("tc actions flush action mirred");
  EXPECT_EQ(refused.status, 2) << refused.err;
  EXPECT_NE(refused.err.find("Operation not permitted (actions flush action mirred)"), std::string::npos) << refused.err;
  EXPECT_NE(tc("actions show action mirred").out.find("index 9"), std::string::npos);
}

TEST_F(TcFilterCli, OtherClassifiersAndActionsMatchTc) {
  // The host kernel lacks these (FACTS.md); the VM loads them (tests/vm/modules.list).
  if (!kernelHas("cls_matchall", "filter add dev v0 egress pref 99 matchall action mirred egress mirror dev v1")) {
    GTEST_SKIP() << "kernel lacks module 'cls_matchall': runs in the VM (tests/vm)";
  }
  ASSERT_TRUE(kernelHas("act_gact", "actions add action drop index 99"));
  ok("tc filter add dev v0 ingress pref 1 matchall skip_hw action gact drop");
  ok("tc filter add dev v0 ingress protocol ip pref 2 flower ip_proto tcp dst_ip 10.1.0.0/16 dst_port 443 "
     "action skbedit mark 7 pipe action vlan push id 100 priority 3");
  ok("tc filter add dev v0 ingress protocol ip pref 3 flower src_ip 10.2.0.1 action csum ip4h tcp");
  ok("tc filter add dev v0 ingress protocol ip pref 4 flower dst_mac 02:00:00:00:00:01 action tunnel_key set "
     "src_ip 192.0.2.1 dst_ip 192.0.2.2 id 42 dst_port 4789");
  ok("tc filter add dev v0 ingress pref 5 matchall action police rate 1mbit burst 10k conform-exceed drop/pass");
  ok("tc filter add dev v0 ingress pref 6 matchall action goto chain 4");
  ok("tc filter add dev v0 egress protocol 802.1Q pref 7 flower vlan_id 10 vlan_prio 2 action vlan pop action skbedit "
     "queue_mapping 3 priority 1:2 ptype host");
  ok("tc filter add dev v0 egress protocol ipv6 pref 8 flower ip_proto udp src_ip 2001:db8::1 dst_ip 2001:db8:1::/64 "
     "src_port 53 action vlan modify id 200 pass action tunnel_key unset");
  ok("tc qdisc add dev v1 root handle 1: htb");
  ok("tc filter add dev v1 parent 1: pref 1 handle 5 fw classid 1:5");
  ok("tc filter add dev v1 parent 1: pref 2 basic classid 1:6 action pass");
  for (const char* options : {"", "-j"}) {
    samePrint(options, "filter show dev v0 ingress");
    samePrint(options, "filter show dev v0 egress");
    samePrint(options, "actions show action gact");
  }
  samePrint("", "filter show dev v1 parent 1:");
  // Pinned difference: tc 6.1 prints fw's options with fprintf, so its -j output is not JSON
  // ("options":{handle 0x5 classid 1:5 }); fastlink prints the same fields as JSON.
  auto theirs = tc("-j filter show dev v1 parent 1:");
  EXPECT_NE(theirs.out.find("{handle 0x5 classid 1:5 }"), std::string::npos) << "tc's fw JSON changed: " << theirs.out;
  auto mine = nlohmann::json::parse(cli("-j tc filter show dev v1 parent 1:").out);
  ASSERT_EQ(mine.size(), 4u) << mine.dump();
  EXPECT_EQ(mine[1]["kind"], "fw");
  EXPECT_EQ(mine[1]["options"]["handle"], "0x5") << mine.dump();
  EXPECT_EQ(mine[1]["options"]["classid"], "1:5") << mine.dump();
  EXPECT_EQ(mine[3]["options"]["flowid"], "1:6") << mine.dump();
}

/// The same filter lines given to fastlink (on v0) and to tc (on v1), each on a fresh ingress
/// hook: tc prints both devices' filters alike (what fastlink sent is what tc sends), and fastlink
/// prints v0's as tc does, in text and -j.
class TcFilterKindsCli : public TcFilterCli {
 protected:
  void sameAsTc(const std::vector<std::string>& lines) {
    for (const char* dev : {"v0", "v1"}) {
      (void)tc(std::string("qdisc del dev ") + dev + " ingress");
      (void)tc(std::string("qdisc del dev ") + dev + " clsact");
      ASSERT_EQ(tc(std::string("qdisc add dev ") + dev + " ingress").status, 0);
    }
    for (const std::string& line : lines) {
      ok("tc filter add dev v0 parent ffff: " + line);
      auto theirs = tc("filter add dev v1 parent ffff: " + line);
      ASSERT_EQ(theirs.status, 0) << line << ": " << theirs.err;
    }
    // Action indexes are per namespace, shared by both devices' filters: compared as "index N".
    static const std::regex index("index [0-9]+");
    auto mine = tc("filter show dev v0 parent ffff:");
    auto theirs = tc("filter show dev v1 parent ffff:");
    ASSERT_EQ(theirs.status, 0) << theirs.err;
    EXPECT_EQ(std::regex_replace(mine.out, index, "index N"), std::regex_replace(theirs.out, index, "index N"))
        << "tc's print of fastlink's filters (v0) and of tc's (v1)";
    for (const char* options : {"", "-j", "-s"}) {
      if (std::string(options) == "-s") samePrintButAges("-s", "filter show dev v0 parent ffff:");
      else samePrint(options, "filter show dev v0 parent ffff:");
    }
  }
};

TEST_F(TcFilterKindsCli, FlowerMplsKeysLikeTc) {
  if (!kernelHas("cls_flower", "filter add dev v0 egress pref 99 protocol ip flower ip_proto tcp")) {
    GTEST_SKIP() << "kernel lacks module 'cls_flower': runs in the VM (tests/vm)";
  }
  ASSERT_TRUE(kernelHas("act_gact", "actions add action drop index 99"));
  // iproute2's tests/tc/flower_mpls.t, every form in one list (distinct prefs).
  sameAsTc({"protocol mpls_uc pref 1 flower mpls_label 0 mpls_tc 0 mpls_bos 0 mpls_ttl 0 action drop",
            "protocol mpls_uc pref 2 flower mpls_label 1048575 mpls_tc 7 mpls_bos 1 mpls_ttl 255 action drop",
            "protocol mpls_uc pref 3 flower mpls lse depth 2 label 0 tc 0 bos 0 ttl 0 action drop",
            "protocol mpls_uc pref 4 flower mpls lse depth 2 label 1048575 tc 7 bos 1 ttl 255 action drop",
            "protocol mpls_uc pref 5 flower mpls lse depth 1 label 0 tc 0 bos 0 ttl 0 lse depth 2 label 1048575 tc 7 "
            "bos 1 ttl 255 action drop",
            // A depth-1-only list comes back as the first entry's keys (the kernel's dump).
            "protocol mpls_mc pref 6 flower mpls lse depth 1 label 16 ttl 3 action pass",
            "protocol mpls_uc pref 7 flower mpls_label 20 action pass"});
  auto shown = cli("tc filter show dev v0 parent ffff: pref 5");
  EXPECT_NE(shown.out.find("\n  mpls\n    lse depth 1 label 0 tc 0 bos 0 ttl 0\n    lse depth 2 label 1048575 tc 7 bos 1 ttl 255"),
            std::string::npos) << shown.out;
  // tc's own refusals, before anything is sent.
  auto mixed = cli("tc filter add dev v0 parent ffff: protocol mpls_uc pref 9 flower mpls_label 1 mpls lse depth 2 label 3");
  EXPECT_NE(mixed.status, 0);
  EXPECT_NE(mixed.err.find("not with mpls_label"), std::string::npos) << mixed.err;
  auto onIp = cli("tc filter add dev v0 parent ffff: protocol ip pref 9 flower mpls_label 1");
  EXPECT_NE(onIp.status, 0);
  EXPECT_NE(onIp.err.find("must be mpls_uc or mpls_mc"), std::string::npos) << onIp.err;
  EXPECT_EQ(tc("filter show dev v0 parent ffff: pref 9").out, "");
}

TEST_F(TcFilterKindsCli, MplsActionLikeTc) {
  if (!kernelHas("act_mpls", "actions add action mpls dec_ttl index 99")) {
    GTEST_SKIP() << "kernel lacks module 'act_mpls': runs in the VM (tests/vm)";
  }
  ASSERT_TRUE(kernelHas("cls_matchall", "filter add dev v0 egress pref 99 matchall action pass"));
  // tests/tc/mpls.t's five ops, and the fields and controls around them.
  sameAsTc({"protocol mpls_uc pref 1 matchall action mpls pop protocol ip",
            "protocol ip pref 2 matchall action mpls push protocol mpls_uc label 20 tc 3 bos 1 ttl 64",
            "pref 3 matchall action mpls mac_push protocol mpls_uc label 20 tc 3 bos 1 ttl 64",
            "protocol mpls_uc pref 4 matchall action mpls modify label 20 tc 3 ttl 64",
            "protocol mpls_uc pref 5 matchall action mpls dec_ttl",
            "protocol ip pref 6 matchall action mpls push label 0x10 drop action mpls modify bos 0 pass",
            "protocol mpls_mc pref 7 matchall action mpls pop protocol mpls_uc goto chain 3"});
  ok("tc actions add action mpls push protocol mpls_mc label 77 ttl 9 index 4000");
  for (const char* options : {"", "-j"}) samePrint(options, "actions get action mpls index 4000");
  for (const char* bad : {"mpls push tc 3", "mpls pop", "mpls dec_ttl label 3", "mpls push label 1048576", "mpls modify ttl 0",
                          "mpls push protocol ip label 3", "mpls pop push protocol ip"}) {
    auto r = cli(std::string("tc filter add dev v0 parent ffff: pref 9 matchall action ") + bad);
    EXPECT_NE(r.status, 0) << bad;
    EXPECT_FALSE(r.err.empty()) << bad;
  }
  EXPECT_EQ(tc("filter show dev v0 parent ffff: pref 9").out, "");
}

TEST_F(TcFilterKindsCli, PeditLikeTc) {
  if (!kernelHas("act_pedit", "actions add action pedit munge offset 0 u32 set 1 index 99")) {
    GTEST_SKIP() << "kernel lacks module 'act_pedit': runs in the VM (tests/vm)";
  }
  // tests/tc/pedit.t's munges (raw offsets of each width and position, the ip fields with each
  // command) and the extended ones it leaves out (ip6, tcp, udp, eth; add, decrement, retain).
  std::vector<std::string> lines;
  int pref = 1;
  auto add = [&](const std::string& munge) {
    lines.push_back("pref " + std::to_string(pref++) + " u32 match u32 0 0 action pedit " + munge);
  };
  for (const char* m : {"offset 12 u32 set 0x12345678", "offset 12 u16 set 0x1234", "offset 14 u16 set 0x1234",
                        "offset 12 u8 set 0x23", "offset 13 u8 set 0x23", "offset 15 u8 set 0x23", "offset 13 u8 invert",
                        "offset 13 u8 clear", "offset 13 u8 preserve", "offset -4 u32 set 7 retain 0xff00",
                        "offset 16 u32 at 0 0x0f 2 set 0xffffffff"})
    add(std::string("munge ") + m);
  for (const char* field : {"ihl", "src", "dst", "tos", "protocol", "nofrag", "firstfrag", "ce", "df", "mf", "dport", "sport",
                            "icmp_type", "icmp_code", "ttl", "dsfield", "precedence"}) {
    bool address = std::string(field) == "src" || std::string(field) == "dst";
    for (const char* cmd : {"set", "preserve", "invert", "clear"}) {
      std::string c = cmd;
      if (c == "set") c += address ? " 1.2.3.4" : " 0x23";
      add(std::string("munge ip ") + field + " " + c);
    }
  }
  add("munge ip src set 10.0.0.1 munge ip dst set 10.0.0.2 munge ip tos set 0x10 retain 0xf0 drop");
  add("ex munge ip ttl decrement munge ip6 hoplimit decrement pipe");
  add("ex munge ip6 src set 2001:db8::1 munge ip6 dst invert munge ip6 traffic_class set 0x2e munge ip6 flow_lbl set 0x12345");
  add("ex munge ip6 payload_len set 100 munge ip6 nexthdr set 17");
  add("ex munge tcp sport set 80 munge tcp dport add 1 munge tcp flags set 0x12 munge udp sport set 53 munge udp dport clear");
  add("ex munge eth dst set 02:00:00:00:00:01 munge eth src set 02:00:00:00:00:02 munge eth type set 0x86dd");
  add("ex munge ip src set 192.0.2.1 munge offset 4 u16 set 9 continue");
  sameAsTc(lines);
  auto text = cli("tc filter show dev v0 parent ffff: pref 1").out;
  EXPECT_NE(text.find("key #0  at 12: val 12345678 mask 00000000"), std::string::npos) << text;
  // Bad input: tc's refusals, nothing sent.
  for (const char* bad : {"munge offset 13 u32 set 1", "munge offset 15 u16 set 1", "munge ip tos set 0x100",
                          "munge ip6 src set 2001:db8::1", "munge tcp dport set 1", "munge ip ttl decrement",
                          "munge ip ttl add 1", "ex munge ip dport set 1", "munge ip src set 2001:db8::1",
                          "munge ip bogus set 1", "ex munge eth src set 02:00:00:00:00:01 retain 0xff", "", "munge offset 0 u64 set 1"}) {
    auto r = cli(std::string("tc filter add dev v0 parent ffff: pref 999 u32 match u32 0 0 action pedit ") + bad);
    EXPECT_NE(r.status, 0) << bad;
    EXPECT_FALSE(r.err.empty()) << bad;
  }
  EXPECT_EQ(tc("filter show dev v0 parent ffff: pref 999").out, "");
  // The standalone table.
  ok("tc actions add action pedit ex munge ip ttl set 3 index 4001");
  for (const char* options : {"", "-j"}) samePrint(options, "actions get action pedit index 4001");
}

}  // namespace
}  // namespace fastlink::test
