// `fastlink link show` with XDP programs attached, against `ip link show` on the same devices:
// the programs are attached by ip itself (independent of fastlink's attach), in each mode the
// host's veth offers (generic, driver, and ip's "xdp" which lets the kernel choose), and the
// XDP parts of text and JSON must be byte-identical to ip's. Multi-mode output (generic plus
// offload) needs a NIC with offload: tests/unit/xdp_show_test.cpp covers its layout.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/cli_fixture.hpp"

namespace fastlink::test {
namespace {

using ordered = nlohmann::ordered_json;

/// The lines of `text` that carry XDP output: every device's first line (mode word after the
/// mtu) and the prog/xdp lines. -d prints other detail lines fastlink does not match yet.
std::string xdpLines(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line))
    if (!line.empty() && (line[0] != ' ' || line.rfind("    prog/", 0) == 0)) out += line + "\n";
  return out;
}

/// Each device's "xdp" object (or null) in key order, as compact JSON text.
std::string xdpObjects(const std::string& json) {
  std::string out;
  for (const auto& link : ordered::parse(json)) out += (link.contains("xdp") ? link["xdp"].dump() : "null") + "\n";
  return out;
}

class LinkXdpCliTest : public CliTest {
 protected:
  const std::string count = std::string(build::bpfDir()) + "/xdp_count.o";
  const std::string drop = std::string(build::bpfDir()) + "/xdp_drop.o";
  void SetUp() override {
    ns.ip("link add x0 type veth peer name x1");
    ns.ip("link add x2 type veth peer name x3");
    ns.ip("link set x0 alias with-xdp");  // the prog line comes after the alias line, as in ip
  }
  CommandResult ipShow(const std::string& options) const { return run("ip -n " + ns.name() + " " + options + " link show"); }
  /// Compares fastlink with ip for `link show` with these options: whole output without -d,
  /// the XDP parts with -d.
  void expectSameAsIp(const std::string& options) const {
    SCOPED_TRACE("link show with options [" + options + "]");
    auto ip = ipShow(options);
    auto fl = cli(options + " link show");
    ASSERT_EQ(ip.status, 0) << ip.err;
    ASSERT_EQ(fl.status, 0) << fl.err;
    bool json = options.find("-j") != std::string::npos;
    bool details = options.find("-d") != std::string::npos;
    if (json) {
      EXPECT_EQ(xdpObjects(fl.out), xdpObjects(ip.out));
    } else {
      EXPECT_EQ(xdpLines(fl.out), xdpLines(ip.out));
    }
    if (!details) {
      EXPECT_EQ(fl.out, ip.out);
    }
  }
  void expectAllOutputsSameAsIp() const {
    for (const char* options : {"", "-d", "-j", "-d -j"}) expectSameAsIp(options);
  }
};

TEST_F(LinkXdpCliTest, EachModeAsIpShowsIt) {
  ns.ip("link set dev x0 xdpgeneric obj " + count + " sec xdp");
  ns.ip("link set dev x2 xdpdrv obj " + drop + " sec xdp");
  ns.ip("link set dev x3 xdp obj " + count + " sec xdp");  // the kernel picks the driver hook on veth
  auto fl = cli("link show dev x0");
  ASSERT_EQ(fl.status, 0) << fl.err;
  EXPECT_NE(fl.out.find(" mtu 1500 xdpgeneric qdisc "), std::string::npos) << fl.out;
  EXPECT_NE(fl.out.find("\n    alias with-xdp\n    prog/xdp id "), std::string::npos) << fl.out;
  EXPECT_NE(fl.out.find(" name xdp_count tag "), std::string::npos) << fl.out;
  expectAllOutputsSameAsIp();

  auto j = nlohmann::json::parse(cli("-j link show dev x2").out)[0];
  EXPECT_EQ(j["xdp"]["mode"], 1);  // XDP_ATTACHED_DRV
  EXPECT_EQ(j["xdp"]["prog"]["name"], "xdp_drop");
  EXPECT_EQ(j["xdp"]["prog"]["id"], ns.ipJson("link show dev x2")[0]["xdp"]["prog"]["id"]);
}

TEST_F(LinkXdpCliTest, DetachedProgramLeavesNoTrace) {
  ns.ip("link set dev x0 xdpgeneric obj " + count + " sec xdp");
  ASSERT_NE(cli("link show dev x0").out.find("prog/xdp"), std::string::npos);
  ns.ip("link set dev x0 xdpgeneric off");
  auto fl = cli("-d link show dev x0");
  EXPECT_EQ(fl.out.find("prog/"), std::string::npos) << fl.out;
  EXPECT_NE(fl.out.find(" mtu 1500 qdisc "), std::string::npos) << "no mode word: " << fl.out;
  EXPECT_EQ(cli("-j link show dev x0").out.find("\"xdp\""), std::string::npos);
  expectAllOutputsSameAsIp();
}

TEST_F(LinkXdpCliTest, WithoutBpfCapabilityOnlyTheIdLikeIp) {
  ns.ip("link set dev x0 xdpgeneric obj " + count + " sec xdp");
  // Reading a program by id needs CAP_SYS_ADMIN (or CAP_BPF); ip then prints the id alone.
  // setpriv runs after `ip netns exec` entered the namespace (which needs CAP_SYS_ADMIN).
  std::string drop = "setpriv --inh-caps=-sys_admin,-bpf --bounding-set=-sys_admin,-bpf ";
  if (run("command -v setpriv").status != 0) GTEST_SKIP() << "setpriv (util-linux) missing";
  for (const char* options : {"", "-d", "-j", "-d -j"}) {
    SCOPED_TRACE(options);
    auto ip = ns.exec(drop + "ip " + options + " link show dev x0");
    auto fl = ns.exec(drop + cliPath() + " " + options + " link show dev x0");
    ASSERT_EQ(ip.status, 0) << ip.err;
    ASSERT_EQ(fl.status, 0) << fl.err;
    if (std::string(options).find("-j") != std::string::npos) {
      EXPECT_EQ(xdpObjects(fl.out), xdpObjects(ip.out));
      EXPECT_NE(fl.out.find(R"("prog":{"id":)"), std::string::npos);
      EXPECT_EQ(fl.out.find("xdp_count"), std::string::npos) << "the name needs the capability";
    } else {
      EXPECT_EQ(xdpLines(fl.out), xdpLines(ip.out));
    }
  }
}

}  // namespace
}  // namespace fastlink::test
