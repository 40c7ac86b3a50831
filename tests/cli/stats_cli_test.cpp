// `fastlink stats set` checked with ip 6.1's own reading of the offload statistics (`ip -j stats
// show ... subgroup hw_stats_info`), and a `stats set` line of a -batch file run at its turn.
#include "cli_fixture.hpp"

namespace fastlink::test {
namespace {

using nlohmann::json;

class StatsCliTest : public CliTest {
 protected:
  /// ip's `request` flag of v0's L3 offload statistics.
  bool l3Requested() const {
    json shown = ns.ipJson("stats show dev v0 group offload subgroup hw_stats_info");
    EXPECT_EQ(shown.size(), 1u) << shown.dump();
    return shown.at(0).at("info").at("l3_stats").at("request").get<bool>();
  }
};

TEST_F(StatsCliTest, SetL3StatsAsIpReadsIt) {
  ASSERT_EQ(run("ip -n " + ns.name() + " link add v0 type veth peer name v1").status, 0);
  ASSERT_FALSE(l3Requested());
  auto on = cli("stats set dev v0 l3_stats on");
  ASSERT_EQ(on.status, 0) << on.err;
  EXPECT_TRUE(l3Requested());
  // The text fastlink prints for it is ip's (the differential suite compares the rest).
  EXPECT_EQ(cli("stats show dev v0 group offload subgroup l3_stats").out,
            ns.ip("stats show dev v0 group offload subgroup l3_stats"));
  auto off = cli("stats set dev v0 l3_stats off");
  ASSERT_EQ(off.status, 0) << off.err;
  EXPECT_FALSE(l3Requested());
  // A -batch file: each set line at its turn; the last one wins.
  auto r = batch("stats set dev v0 l3_stats on\nstats set dev v0 l3_stats off\nstats set dev v0 l3_stats on\n");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(l3Requested());
  // A bad line sends nothing: the first line is not run either.
  auto bad = batch("stats set dev v0 l3_stats off\nstats set dev v0 l3_stats maybe\n");
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.err.find("maybe"), std::string::npos) << bad.err;
  EXPECT_TRUE(l3Requested()) << "a bad batch line let the batch send";
}

}  // namespace
}  // namespace fastlink::test
