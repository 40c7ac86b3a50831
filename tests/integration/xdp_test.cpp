// XDP attach / replace / detach on a veth between two namespaces, with the BPF test programs
// of tests/bpf (built by clang at build time). Oracles: `ip -d -j link show` (the attached
// program's id and mode), `bpftool prog show id N`, the program's map read through the bpf
// syscall (libbpf's bpf_map_lookup_elem), and ping for the data path.
#include <bpf/bpf.h>
#include <gtest/gtest.h>

#include <fastlink/fastlink.hpp>
#include <fastlink/xdp.hpp>

#include "support/build_paths.hpp"
#include "support/test_netns.hpp"

namespace fastlink::test {
namespace {

const std::string kCount = std::string(build::bpfDir()) + "/xdp_count.o";
const std::string kDrop = std::string(build::bpfDir()) + "/xdp_drop.o";

uint64_t counter(const XdpProgram& prog, const std::string& map) {
  uint32_t key = 0;
  uint64_t value = 0;
  EXPECT_EQ(bpf_map_lookup_elem(prog.mapFd(map), &key, &value), 0);
  return value;
}

class XdpTest : public ::testing::Test {
 protected:
  TestNetns a, b;  // va in a, vb in b; programs run on vb (receive side of a's pings)
  std::unique_ptr<Netlink> nl;
  XdpApi* xdp = nullptr;

  void SetUp() override {
    a.ip("link add va type veth peer name vb netns " + b.name());
    a.ip("addr add 10.9.0.1/24 dev va");
    b.ip("addr add 10.9.0.2/24 dev vb");
    a.ip("link set va up");
    b.ip("link set vb up");
    // Permanent neighbours: no ARP. A drop program leaves an ARP entry FAILED after 3 s, which
    // fails the next pings, and a late ARP probe would be counted after a counter was read.
    std::string macA = a.ipJson("link show dev va")[0]["address"], macB = b.ipJson("link show dev vb")[0]["address"];
    a.ip("neigh replace 10.9.0.2 lladdr " + macB + " dev va nud permanent");
    b.ip("neigh replace 10.9.0.1 lladdr " + macA + " dev vb nud permanent");
    nl = std::make_unique<Netlink>(NetlinkOptions{.netns = Netns::named(b.name())});
    xdp = &nl->xdp();
  }
  /// `ip -d -j link show vb`'s "xdp" object: {"mode": 1|2|3, "prog": {"id": N}}, or null.
  nlohmann::json oracle() const {
    auto j = b.ipJson("-d link show dev vb")[0];
    return j.contains("xdp") ? j["xdp"] : nlohmann::json();
  }
  bool ping(int count = 3) const {
    return a.exec("ping -c " + std::to_string(count) + " -i 0.2 -W 1 10.9.0.2").status == 0;
  }
};

TEST_F(XdpTest, GenericProgramCountsTrafficAndDetachRestoresThePath) {
  auto count = XdpProgram::load(kCount, "xdp");
  EXPECT_EQ(count.name(), "xdp_count");
  ASSERT_EQ(counter(count, "packets"), 0u);
  xdp->attach("vb", count, {.mode = XdpMode::Generic});
  auto o = oracle();
  ASSERT_FALSE(o.is_null());
  EXPECT_EQ(o["mode"], 2);  // XDP_ATTACHED_SKB
  EXPECT_EQ(o["prog"]["id"], count.id());
  XdpStatus s = xdp->status("vb");
  EXPECT_EQ(s.progId, count.id());
  EXPECT_EQ(s.genericProgId, count.id());
  EXPECT_EQ(s.nativeProgId, 0u);
  auto tool = run("bpftool -j prog show id " + std::to_string(count.id()));
  ASSERT_EQ(tool.status, 0) << tool.err;
  EXPECT_EQ(nlohmann::json::parse(tool.out)["name"], "xdp_count");

  ASSERT_TRUE(ping(3));
  uint64_t seen = counter(count, "packets");
  EXPECT_GE(seen, 3u);  // the echo requests

  xdp->detach("vb");
  EXPECT_TRUE(oracle().is_null());
  EXPECT_FALSE(xdp->status("vb").attached());
  ASSERT_TRUE(ping(2));
  EXPECT_EQ(counter(count, "packets"), seen);  // traffic flows, no longer through the program
}

TEST_F(XdpTest, DropProgramCutsThePathUntilDetached) {
  auto drop = XdpProgram::load(kDrop);
  xdp->attach("vb", drop, {.mode = XdpMode::Generic});
  EXPECT_FALSE(ping(2));
  EXPECT_GE(counter(drop, "dropped"), 2u);
  xdp->detach("vb", {.mode = XdpMode::Generic});
  EXPECT_TRUE(ping(2));
}

TEST_F(XdpTest, NativeModeOnVethReportsItsMode) {
  auto count = XdpProgram::load(kCount);
  xdp->attach("vb", count, {.mode = XdpMode::Native});
  auto o = oracle();
  EXPECT_EQ(o["mode"], 1);  // XDP_ATTACHED_DRV
  EXPECT_EQ(xdp->status("vb").nativeProgId, count.id());
  ASSERT_TRUE(ping(3));
  EXPECT_GE(counter(count, "packets"), 3u);
  xdp->detach("vb");  // Auto: whatever is attached
  EXPECT_TRUE(oracle().is_null());
}

TEST_F(XdpTest, ReplaceIsGuardedByTheExpectedProgram) {
  auto first = XdpProgram::load(kCount);
  auto second = XdpProgram::load(kDrop);
  auto third = XdpProgram::load(kCount);
  xdp->attach("vb", first, {.mode = XdpMode::Generic});
  // Attaching over an attached program is refused: replacing is its own verb.
  try {
    xdp->attach("vb", second, {.mode = XdpMode::Generic});
    FAIL() << "attach over an attached program succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::device_or_resource_busy) << e.what();
  }
  EXPECT_EQ(oracle()["prog"]["id"], first.id());
  xdp->replace("vb", second, first, {.mode = XdpMode::Generic});
  EXPECT_EQ(oracle()["prog"]["id"], second.id());
  // `first` is no longer attached: a replace that expects it changes nothing.
  try {
    xdp->replace("vb", third, first, {.mode = XdpMode::Generic});
    FAIL() << "a replace with a stale expected program succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::file_exists) << e.what();
    EXPECT_FALSE(e.extack().empty());
  }
  EXPECT_EQ(oracle()["prog"]["id"], second.id());
  // The attached program can be named by its id (another process's program).
  auto attached = XdpProgram::fromId(xdp->status("vb").progId);
  xdp->replace("vb", third, attached, {.mode = XdpMode::Generic});
  EXPECT_EQ(oracle()["prog"]["id"], third.id());
  xdp->detach("vb");
}

// The link decoder carries IFLA_XDP: every LinkApi get/list reports the attached program, the
// same one `ip -j link show` names. Attached by ip (independent of XdpApi).
TEST_F(XdpTest, LinkInfoReportsTheAttachedProgramLikeIp) {
  EXPECT_EQ(nl->links().get("vb").xdp, XdpStatus{}) << "reported, nothing attached";
  b.ip("link set dev vb xdpgeneric obj " + kCount + " sec xdp");
  uint32_t id = oracle()["prog"]["id"];
  LinkInfo l = nl->links().get("vb");
  ASSERT_TRUE(l.xdp.has_value());
  EXPECT_EQ(*l.xdp, (XdpStatus{.genericProgId = id, .nativeProgId = 0, .offloadProgId = 0, .progId = id}));
  bool listed = false;
  for (const LinkInfo& each : nl->links().list())
    if (each.name == "vb") listed = each.xdp == l.xdp;
    else EXPECT_FALSE(each.xdp && each.xdp->attached()) << *each.name;
  EXPECT_TRUE(listed);
  b.ip("link set dev vb xdpgeneric off");
  b.ip("link set dev vb xdpdrv obj " + kDrop + " sec xdp");
  uint32_t native = oracle()["prog"]["id"];
  EXPECT_EQ(nl->links().get("vb").xdp->nativeProgId, native);
  EXPECT_EQ(nl->links().get("vb").xdp->genericProgId, 0u);
  b.ip("link set dev vb xdpdrv off");
  EXPECT_FALSE(nl->links().get("vb").xdp->attached());
}

// XdpProgram::info against bpftool's view of the same program.
TEST_F(XdpTest, ProgramInfoMatchesBpftool) {
  auto count = XdpProgram::load(kCount, "xdp");
  BpfProgramInfo info = XdpProgram::info(count.id());
  auto tool = run("bpftool -j prog show id " + std::to_string(count.id()));
  ASSERT_EQ(tool.status, 0) << tool.err;
  auto j = nlohmann::json::parse(tool.out);
  EXPECT_EQ(info.id, count.id());
  EXPECT_EQ(info.name, j["name"]);
  EXPECT_EQ(info.tag, j["tag"]);
  EXPECT_EQ(info.jited, j["jited"].get<bool>());
  EXPECT_EQ(info.createdByUid, j["uid"]);
  EXPECT_EQ(info.btfId, j.value("btf_id", 0u));
  EXPECT_GT(info.loadTime, 0u);
  try {
    XdpProgram::info(0xfffffff0u);
    FAIL() << "no program has this id";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::no_such_file_or_directory) << e.what();
  }
}

TEST_F(XdpTest, BadObjectsAreClearErrorsAndAttachNothing) {
  try {
    XdpProgram::load("/nonexistent/x.o");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::no_such_file_or_directory);
    EXPECT_NE(e.operation().find("/nonexistent/x.o"), std::string::npos);
  }
  try {
    XdpProgram::load(kCount, "nosuchsection");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::no_such_file_or_directory);
    EXPECT_NE(e.extack().find("xdp_count (section xdp)"), std::string::npos) << e.extack();
  }
  try {
    XdpProgram::fromId(0xfffffff0u);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::no_such_file_or_directory);
  }
  auto count = XdpProgram::load(kCount);
  EXPECT_THROW(xdp->attach("nosuchdev", count), Error);
  // Offload needs a NIC that runs BPF: veth refuses, nothing attached.
  EXPECT_THROW(xdp->attach("vb", count, {.mode = XdpMode::Offload}), Error);
  EXPECT_TRUE(oracle().is_null());
}

}  // namespace
}  // namespace fastlink::test
