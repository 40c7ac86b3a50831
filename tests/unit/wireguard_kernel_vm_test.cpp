// The kernel WireGuard backend against the real module (runs in the VM, tests/vm; skipped on a
// host without the module unless FASTLINK_REQUIRE_KINDS lists "wireguard"), through the public
// WireGuardApi, which resolves the "wireguard" generic netlink family itself. It lives with the
// unit tests because it also checks the split with src/genl's encoder.
// The oracle is wireguard-tools' `wg`. Everything happens in a namespace of its own.
#include <gtest/gtest.h>
#include <linux/genetlink.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

#include "core/engine.hpp"
#include "core/message.hpp"
#include "fastlink/error.hpp"
#include "fastlink/genl.hpp"
#include "fastlink/netlink.hpp"
#include "fastlink/wireguard.hpp"
#include "wg/wireguard_codec.hpp"
#include "wg/wireguard_kernel.hpp"

namespace fastlink {
namespace {

std::string sh(const std::string& command, int* status = nullptr) {
  std::string out;
  FILE* p = popen((command + " 2>/dev/null").c_str(), "r");
  if (!p) return out;
  std::array<char, 4096> buf;
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  int st = pclose(p);
  if (status) *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return out;
}

bool wireguardRequired() {
  const char* env = std::getenv("FASTLINK_REQUIRE_KINDS");
  return env && (std::string(",") + env + ",").find(",wireguard,") != std::string::npos;
}

class WireGuardKernelVm : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root: it creates a network namespace";
    // The family is global: probe it before creating anything, so a host without the module
    // skips without touching even a namespace.
    Netlink probe;
    if (const GenlFamilyInfo* family = probe.families().find("wireguard")) family_ = family->id;
    if (family_ == 0) {
      if (wireguardRequired()) FAIL() << "no wireguard genl family but FASTLINK_REQUIRE_KINDS requires it";
      GTEST_SKIP() << "kernel lacks module 'wireguard': runs in the VM (tests/vm)";
    }
    ns_ = "fastlink-wgk-" + std::to_string(getpid());
    int status = -1;
    sh("ip netns add " + ns_, &status);
    ASSERT_EQ(status, 0) << "cannot create a namespace";
    created_ = true;
    sh("ip -n " + ns_ + " link add wg0 type wireguard", &status);
    ASSERT_EQ(status, 0) << "ip link add type wireguard failed";
    options_.netns = Netns::named(ns_);
    netlink_ = std::make_unique<Netlink>(options_);
    backend_ = &netlink_->wireguard();
  }
  void TearDown() override {
    if (created_) sh("ip netns del " + ns_);
  }
  std::string wg(const std::string& args) { return sh("ip netns exec " + ns_ + " wg " + args); }

  std::string ns_;
  bool created_ = false;
  NetlinkOptions options_;
  std::unique_ptr<Netlink> netlink_;
  uint16_t family_ = 0;
  WireGuardApi* backend_ = nullptr;  // the public API: picks the kernel backend for wg0
};

std::set<std::string> ipSet(const std::vector<WgAllowedIp>& ips) {
  std::set<std::string> out;
  for (const auto& ip : ips) out.insert(ip.toString());
  return out;
}

// 3 peers x 300 allowed IPs: the set is split into many 4 KiB messages (continuing peers), the
// dump comes back split too; `wg` and fastlink must both see everything.
TEST_F(WireGuardKernelVm, LargeSetSplitsAndGetFoldsAgreeWithWg) {
  WgKey priv = WgKey::generatePrivate();
  WgDevice d("wg0");
  d.setPrivateKey(priv).setListenPort(51820).setFwmark(9).setReplacePeers();
  std::vector<WgKey> keys;
  for (int p = 0; p < 3; ++p) {
    keys.push_back(WgKey::generatePrivate().publicKey());
    WgPeer peer(keys.back());
    peer.setReplaceAllowedIps().setEndpoint(WgEndpoint::parse("192.0.2." + std::to_string(p + 1) + ":5" + std::to_string(p)));
    if (p == 0) peer.setPresharedKey(WgKey::generatePreshared()).setPersistentKeepalive(25);
    for (int i = 0; i < 300; ++i)
      peer.addAllowedIp(WgAllowedIp::parse("10." + std::to_string(2 * p + i / 256) + "." + std::to_string(i % 256) + ".0/24"));
    peer.addAllowedIp(WgAllowedIp::parse("fd0" + std::to_string(p) + "::/64"));
    d.addPeer(peer);
  }
  EXPECT_GT(wg::encodeWgSetDevice(family_, d).size(), 3u);
  EXPECT_EQ(backend_->backendOf("wg0"), WgBackendKind::Kernel);
  backend_->set(d);

  // Oracle: wg show dump.
  std::stringstream dump(wg("show wg0 dump"));
  std::string line;
  std::getline(dump, line);
  EXPECT_EQ(line, priv.toBase64() + "\t" + priv.publicKey().toBase64() + "\t51820\t0x9");
  std::map<std::string, std::string> ipsByPeer;
  while (std::getline(dump, line)) {
    std::vector<std::string> f;
    std::stringstream ls(line);
    std::string item;
    while (std::getline(ls, item, '\t')) f.push_back(item);
    ASSERT_EQ(f.size(), 8u) << line;
    ipsByPeer[f[0]] = f[3];
  }
  ASSERT_EQ(ipsByPeer.size(), 3u);
  for (const auto& p : d.peers) {
    std::string ips = ipsByPeer.at(p.publicKey.toBase64());
    EXPECT_EQ(std::count(ips.begin(), ips.end(), ',') + 1, 301);
  }

  // Read back through the folder.
  WgDevice back = backend_->get("wg0");
  EXPECT_EQ(back.privateKey, priv);
  EXPECT_EQ(back.publicKey, priv.publicKey());
  EXPECT_EQ(back.listenPort, 51820);
  EXPECT_EQ(back.fwmark, 9u);
  ASSERT_EQ(back.peers.size(), 3u);
  for (const auto& p : d.peers) {
    auto it = std::find_if(back.peers.begin(), back.peers.end(), [&](const WgPeer& b) { return b.publicKey == p.publicKey; });
    ASSERT_NE(it, back.peers.end());
    EXPECT_EQ(ipSet(it->allowedIps), ipSet(p.allowedIps));
    EXPECT_EQ(it->endpoint, p.endpoint);
  }

  // update-only, remove, and what `wg set` changes is read back.
  backend_->set(WgDevice("wg0").addPeer(WgPeer(WgKey::generatePrivate().publicKey()).setUpdateOnly()));
  backend_->set(WgDevice("wg0").addPeer(WgPeer(keys[2]).setRemove()));
  wg("set wg0 listen-port 51999 peer " + keys[1].toBase64() + " allowed-ips 10.99.0.0/16");
  back = backend_->get("wg0");
  EXPECT_EQ(back.listenPort, 51999);
  ASSERT_EQ(back.peers.size(), 2u);
  for (const auto& p : back.peers)
    if (p.publicKey == keys[1]) {
      EXPECT_EQ(ipSet(p.allowedIps), std::set<std::string>{"10.99.0.0/16"});
    }
}

TEST_F(WireGuardKernelVm, KernelErrorsNameTheOperation) {
  sh("ip -n " + ns_ + " link add v0 type veth peer name v1");
  for (const char* dev : {"nosuch0", "v0"}) {
    try {
      backend_->get(dev);
      ADD_FAILURE() << "no error for " << dev;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("wg show ") + dev), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace fastlink
