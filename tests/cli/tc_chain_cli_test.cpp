// `fastlink tc chain` (add, del, get, show, -batch) and chain events in `fastlink monitor`,
// against iproute2 6.1's `tc` and `tc monitor`. The host's kernel has no classifier that takes a
// chain template (flower does, in the VM): FlowerTemplatesLikeTc runs there.
#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>
#include <string>

#include "cli/tc_cli_fixture.hpp"

namespace fastlink::test {
namespace {

class TcChainCli : public TcCliFixture {
 protected:
  void SetUp() override {
    ns.ip("link add va type veth peer name vb");
    ASSERT_EQ(tc("qdisc add dev va clsact").status, 0);
    ASSERT_EQ(tc("qdisc add dev vb ingress_block 22 clsact").status, 0);
  }
};

TEST_F(TcChainCli, AddGetShowDelLikeTc) {
  // Chains made by `chain add` (ingress, egress, a shared block) and one a filter made.
  ok("tc chain add dev va ingress chain 5");
  ok("tc chain add dev va egress chain 3");
  ok("tc chain add block 22 chain 4");
  ok("tc filter add dev va ingress pref 3 chain 9 u32 match ip src 1.2.3.4");
  for (const char* options : {"", "-j"}) {
    samePrint(options, "chain show dev va ingress");
    samePrint(options, "chain show dev va egress");
    samePrint(options, "chain show dev va ingress chain 9");
    samePrint(options, "chain show block 22");
    samePrint(options, "chain get dev va ingress chain 5");
  }
  // tc 6.1 refuses `chain get block N` without a parent ("Must specify filter parent"), which a
  // shared block does not have; fastlink asks the kernel, and prints the chain as tc's show does.
  EXPECT_EQ(cli("tc chain get block 22 chain 4").out, "chain chain 4 \n");
  EXPECT_EQ(tc("chain show dev va ingress").out, "chain parent ffff: chain 5 \nchain parent ffff: chain 9 \n");

  // The kernel's refusals reach the user as tc's do (exit 2, the extack text).
  auto again = cli("tc chain add dev va ingress chain 5");
  EXPECT_EQ(again.status, 2);
  EXPECT_NE(again.err.find("Filter chain already exists"), std::string::npos) << again.err;
  auto missing = cli("tc chain get dev va ingress chain 55");
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("Cannot find specified filter chain"), std::string::npos) << missing.err;
  EXPECT_NE(cli("tc chain add dev va ingress pref 3 chain 6").status, 0);  // a chain has no pref
  EXPECT_EQ(tc("chain show dev va ingress").out.find("chain 6"), std::string::npos);

  ok("tc chain del dev va ingress chain 5");
  ok("tc chain del block 22 chain 4");
  EXPECT_EQ(tc("chain show dev va ingress").out, "chain parent ffff: chain 9 \n");
  EXPECT_EQ(tc("chain show block 22").out, "");
  auto gone = cli("tc chain del dev va ingress chain 5");
  EXPECT_EQ(gone.status, 2) << gone.err;

  // A batch adds and deletes chains like single commands.
  auto b = batch("tc chain add dev va ingress chain 11\ntc chain add dev va egress chain 12\n"
                 "tc chain add block 22 chain 13\ntc chain del dev va egress chain 3\n");
  ASSERT_EQ(b.status, 0) << b.err;
  EXPECT_EQ(tc("chain show dev va ingress").out, "chain parent ffff: chain 9 \nchain parent ffff: chain 11 \n");
  EXPECT_EQ(tc("chain show dev va egress").out, "chain parent ffff: chain 12 \n");
  EXPECT_EQ(tc("chain show block 22").out, "chain chain 13 \n");
}

// A chain template: the key mask every filter of the chain must fit (flower only). One added by
// fastlink, one by tc; both listed alike, a fitting filter accepted and one that does not fit
// refused by the kernel for both tools. Needs cls_flower: the VM (the host's kernel lacks it).
TEST_F(TcChainCli, FlowerTemplatesLikeTc) {
  if (tc("chain add dev va egress chain 8 protocol ip flower ip_proto tcp").status != 0) {
    if (std::getenv("FASTLINK_REQUIRE_KINDS")) FAIL() << "the VM kernel lacks cls_flower";
    GTEST_SKIP() << "kernel lacks module 'cls_flower': runs in the VM (tests/vm)";
  }
  ok("tc chain add dev va ingress chain 7 protocol ip flower dst_ip 192.168.0.0/16");
  // A filter must use the template's mask exactly (/16 here), its own address.
  ok("tc filter add dev va ingress protocol ip pref 1 chain 7 flower dst_ip 10.1.0.0/16 classid 1:1");
  for (const char* options : {"", "-j"}) {
    samePrint(options, "chain show dev va ingress");
    samePrint(options, "chain show dev va egress");
    samePrint(options, "chain get dev va ingress chain 7");
    samePrint(options, "filter show dev va ingress chain 7");
  }
  EXPECT_NE(tc("chain get dev va ingress chain 7").out.find("dst_ip 192.168.0.0/16"), std::string::npos)
      << "the template reached the kernel: " << tc("chain get dev va ingress chain 7").out;
  // Keys outside the template's mask: the kernel refuses them (exit 2, its extack), as for tc.
  auto unfit = cli("tc filter add dev va ingress protocol ip pref 2 chain 7 flower src_ip 10.0.0.1 classid 1:2");
  auto theirs = tc("filter add dev va ingress protocol ip pref 2 chain 7 flower src_ip 10.0.0.1 classid 1:2");
  EXPECT_EQ(unfit.status, 2) << unfit.err;
  EXPECT_EQ(theirs.status, 2) << theirs.err;
  EXPECT_NE(unfit.err.find("Mask does not fit the template"), std::string::npos) << unfit.err;
  EXPECT_EQ(tc("filter show dev va ingress chain 7 pref 2").out, "");
  // Deleting the chain takes its filters and its template with it.
  ok("tc chain del dev va ingress chain 7");
  EXPECT_EQ(tc("chain show dev va ingress").out, "");
  EXPECT_EQ(tc("filter show dev va ingress").out, "");
}

TEST_F(TcChainCli, EventsEqualTcMonitor) {
  // `fastlink monitor chain` prints what `tc monitor` prints for chains ("added chain ...",
  // "deleted chain ..."), -j nests the chain as `tc -j chain show` writes it. No fixed sleep:
  // chain 99 is added and deleted until all three monitors have printed it (they listen), and
  // the last change's line is waited for; the probe's lines are left out of the comparison.
  std::string a = "/tmp/fastlink-mon-chain-" + ns.name(), b = a + "-fl", c = a + "-json", tc = "tc -n " + ns.name() + " ";
  std::string waitAll = "t=0; until grep -qs 'chain 99' " + a + " && grep -qs 'chain 99' " + b + " && grep -qs '\"chain\":99' " + c +
                        "; do t=$((t+1)); [ $t -gt 400 ] && { echo 'monitors never listened' >&2; break; }; " + tc +
                        "chain add dev va ingress chain 99; " + tc + "chain del dev va ingress chain 99; sleep 0.05; done; ";
  std::string lastSeen = "t=0; until grep -qs 'chain 4 ' " + a + " && grep -qs 'chain 4 ' " + b + " && grep -qs '\"chain\":4}' " + c +
                         "; do t=$((t+1)); [ $t -gt 400 ] && { echo 'last event never seen' >&2; break; }; sleep 0.05; done; ";
  std::string script = tc + "monitor >" + a + " 2>&1 & A=$!; " + cliPath() + " -n " + ns.name() + " monitor chain >" + b +
                       " 2>&1 & B=$!; " + cliPath() + " -n " + ns.name() + " -j monitor tc >" + c + " 2>&1 & C=$!; " +
                       waitAll + tc + "chain add dev va ingress chain 5; " + tc + "chain add dev va egress chain 3; " + tc +
                       "chain del dev va ingress chain 5; " + tc + "chain add block 22 chain 4; " + lastSeen +
                       "kill $A $B $C; wait";
  auto r = run("sh -c " + shellQuote(script));
  EXPECT_EQ(r.err, "");
  std::string theirs = run("cat " + a).out, mine = run("cat " + b).out, jsonText = run("cat " + c).out;
  run("rm -f " + a + " " + b + " " + c);
  auto withoutProbe = [](const std::string& text) {
    std::string kept, l;
    std::istringstream in(text);
    while (std::getline(in, l))
      if (l.find("chain 99") == std::string::npos && l.find("\"chain\":99") == std::string::npos) kept += l + "\n";
    return kept;
  };
  EXPECT_EQ(withoutProbe(mine), withoutProbe(theirs)) << "tc monitor:\n" << theirs << "\nfastlink:\n" << mine;
  EXPECT_EQ(withoutProbe(theirs),
            "added chain dev va parent ffff: chain 5 \nadded chain dev va parent ffff: chain 3 \n"
            "deleted chain dev va parent ffff: chain 5 \nadded chain block 22 chain 4 \n");
  EXPECT_EQ(withoutProbe(jsonText),
            "{\"event\":\"new\",\"object\":\"chain\",\"chain\":{\"dev\":\"va\",\"parent\":\"ffff:\",\"chain\":5}}\n"
            "{\"event\":\"new\",\"object\":\"chain\",\"chain\":{\"dev\":\"va\",\"parent\":\"ffff:\",\"chain\":3}}\n"
            "{\"event\":\"deleted\",\"object\":\"chain\",\"chain\":{\"dev\":\"va\",\"parent\":\"ffff:\",\"chain\":5}}\n"
            "{\"event\":\"new\",\"object\":\"chain\",\"chain\":{\"block\":22,\"chain\":4}}\n");
}

}  // namespace
}  // namespace fastlink::test
