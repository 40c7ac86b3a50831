// `fastlink wg` against wireguard-tools' `wg`, on a wireguard-go device (userspace backend, host
// and VM) and on a kernel device (generic netlink backend, VM): the same output for the same
// device, keys that `wg pubkey` agrees with, and bad input refused with nothing changed.
#include <gtest/gtest.h>

#include <fstream>

#include "cli/cli_fixture.hpp"
#include "fastlink/wireguard.hpp"
#include "support/wireguard_go.hpp"

namespace fastlink::test {
namespace {

class WgCliTest : public CliTest, public ::testing::WithParamInterface<WgBackendKind> {
 protected:
  void SetUp() override {
    if (GetParam() == WgBackendKind::Userspace) {
      FASTLINK_REQUIRE_WIREGUARD_GO();
      go = std::make_unique<WireguardGo>(ns, uniqueWgName());
      dev_.name_ = go->name();
    } else {
      FASTLINK_REQUIRE_KIND("wireguard");
      dev_.name_ = "fwgk0";
      ns.ip("link add " + dev_.name_ + " type wireguard");
    }
  }
  struct Device {
    std::string name_;
    const std::string& name() const { return name_; }
  };
  std::unique_ptr<WireguardGo> go;
  Device dev_;
  const Device& dev() const { return dev_; }

  std::string wg(const std::string& args) {
    auto r = ns.exec("wg " + args);
    EXPECT_EQ(r.status, 0) << "wg " << args << ": " << r.err;
    return r.out;
  }
  std::string ok(const std::string& args) {
    auto r = cli(args);
    EXPECT_EQ(r.status, 0) << args << "\n" << r.err;
    return r.out;
  }
  std::string file(const std::string& content) {
    std::string path = "/tmp/fastlink-wg-cli-" + dev().name() + "-" + std::to_string(files_++);
    std::ofstream(path) << content;
    paths_.push_back(path);
    return path;
  }
  void TearDown() override {
    for (const auto& p : paths_) std::remove(p.c_str());
  }
  std::string trimmed(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
  }

 private:
  int files_ = 0;
  std::vector<std::string> paths_;
};

TEST_P(WgCliTest, KeysAgreeWithWgPubkey) {
  std::string priv = trimmed(ok("wg genkey"));
  ASSERT_EQ(priv.size(), 44u);
  EXPECT_EQ(trimmed(ok("wg pubkey < " + file(priv + "\n"))), trimmed(run("echo " + priv + " | wg pubkey").out));
  std::string psk = trimmed(ok("wg genpsk"));
  EXPECT_EQ(psk.size(), 44u);
  EXPECT_NE(psk, trimmed(ok("wg genpsk")));
}

// One peer, so wireguard-go's (random) peer order cannot differ between the two tools.
TEST_P(WgCliTest, SetThenOutputMatchesWg) {
  std::string priv = trimmed(ok("wg genkey"));
  std::string peer = trimmed(run("wg genkey | wg pubkey").out);
  std::string psk = file(trimmed(ok("wg genpsk")));
  auto r = cli("wg set " + dev().name() + " private-key " + file(priv) + " listen-port 51200 fwmark 0x20 peer " + peer +
               " preshared-key " + psk + " endpoint [2001:db8::2]:51820 allowed-ips 10.5.0.0/16,fd05::/64");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(ok("wg showconf " + dev().name()), wg("showconf " + dev().name()));
  EXPECT_EQ(ok("wg show " + dev().name() + " dump"), wg("show " + dev().name() + " dump"));
  EXPECT_EQ(ok("wg show " + dev().name()), wg("show " + dev().name()));
  for (const char* field : {"public-key", "private-key", "listen-port", "fwmark", "peers", "preshared-keys", "endpoints",
                            "allowed-ips", "latest-handshakes", "transfer", "persistent-keepalive"})
    EXPECT_EQ(ok("wg show " + dev().name() + " " + field), wg("show " + dev().name() + " " + field)) << field;
  EXPECT_NE(ok("wg show all dump").find(dev().name() + "\t" + priv), std::string::npos);

  auto j = nlohmann::json::parse(ok("-j wg show " + dev().name()));
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["listen_port"], 51200);
  EXPECT_EQ(j[0]["peers"][0]["public_key"], peer);
  EXPECT_EQ(j[0]["peers"][0]["allowed_ips"], nlohmann::json({"10.5.0.0/16", "fd05::/64"}));
  EXPECT_FALSE(j[0].contains("private_key"));  // secrets only with dump
  EXPECT_EQ(ok("-j wg show " + dev().name()).find(priv), std::string::npos);
}

TEST_P(WgCliTest, WgSetThenFastlinkShowsTheSame) {
  std::string peer = trimmed(run("wg genkey | wg pubkey").out);
  wg("set " + dev().name() + " listen-port 51201 peer " + peer + " allowed-ips 10.6.0.0/24 persistent-keepalive 30");
  EXPECT_EQ(ok("wg show " + dev().name() + " dump"), wg("show " + dev().name() + " dump"));
  EXPECT_EQ(ok("wg show " + dev().name() + " persistent-keepalive"), peer + "\t30\n");
}

TEST_P(WgCliTest, ConfigFilesSetconfAddconfSyncconf) {
  std::string a = trimmed(run("wg genkey | wg pubkey").out), b = trimmed(run("wg genkey | wg pubkey").out);
  std::string priv = trimmed(ok("wg genkey"));
  std::string conf = "[Interface]\nListenPort = 51202\nPrivateKey = " + priv + "\n\n[Peer]\nPublicKey = " + a +
                     "\nAllowedIPs = 10.7.0.0/24\nEndpoint = 192.0.2.3:4\n";
  ASSERT_EQ(cli("wg setconf " + dev().name() + " " + file(conf)).status, 0);
  EXPECT_EQ(wg("showconf " + dev().name()), conf);
  ASSERT_EQ(cli("wg addconf " + dev().name() + " " + file("[Peer]\nPublicKey = " + b + "\n")).status, 0);
  EXPECT_EQ(wgDump(ns, dev().name()).peers.size(), 2u);
  ASSERT_EQ(cli("wg syncconf " + dev().name() + " " + file(conf)).status, 0);  // drops b
  EXPECT_EQ(wg("showconf " + dev().name()), conf);
}

TEST_P(WgCliTest, BadInputIsRefusedWithAClearErrorAndChangesNothing) {
  std::string peer = trimmed(run("wg genkey | wg pubkey").out);
  wg("set " + dev().name() + " listen-port 51203 peer " + peer + " allowed-ips 10.8.0.0/24");
  std::string before = wg("show " + dev().name() + " dump");
  std::string badKey = "dwdtCnMYpX08FsFyUbJmRd9ML4frwJkqsXf7pR25LC*=";
  struct Case {
    std::string args;
    int status;
    std::string message;
  };
  std::vector<Case> cases = {
      {"wg set " + dev().name() + " listen-port 1 peer " + badKey, 2, "valid base64"},
      {"wg set " + dev().name() + " listen-port 1 peer AAAA", 2, "44 characters"},
      {"wg set " + dev().name() + " listen-port 1 peer AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==", 2, "31 bytes"},
      {"wg set " + dev().name() + " listen-port 1 private-key " + file(badKey), 2, "valid base64"},
      {"wg set " + dev().name() + " listen-port 1 peer " + peer + " endpoint 192.0.2.1", 2, "no port"},
      {"wg set " + dev().name() + " listen-port 1 peer " + peer + " allowed-ips 10.8.0.1/24", 2, "host bits"},
      {"wg set fwgnosuch9 listen-port 1", 1, "Cannot find device"},
      {"wg setconf " + dev().name() + " " + file("[Interface]\nListenPort = 1\n[Peer]\nPublicKey = " + badKey + "\n"), 2,
       "line 4"},
  };
  ns.ip("link add v0 type veth peer name v1");
  cases.push_back({"wg set v0 listen-port 1", 1, "not a WireGuard device"});
  cases.push_back({"wg show v0", 1, "not a WireGuard device"});
  for (const auto& c : cases) {
    auto r = cli(c.args);
    EXPECT_EQ(r.status, c.status) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_EQ(r.err.find("dwdtCnMY"), std::string::npos) << "key text in the error: " << r.err;
  }
  EXPECT_EQ(wg("show " + dev().name() + " dump"), before);
}

INSTANTIATE_TEST_SUITE_P(Backends, WgCliTest, ::testing::Values(WgBackendKind::Userspace, WgBackendKind::Kernel),
                         [](const ::testing::TestParamInfo<WgBackendKind>& info) {
                           return info.param == WgBackendKind::Kernel ? "Kernel" : "Userspace";
                         });

}  // namespace
}  // namespace fastlink::test
