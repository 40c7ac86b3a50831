// WireGuard through the userspace backend (wireguard-go: the host kernel has no wireguard
// module), checked with wireguard-tools' `wg` as the oracle, and a real tunnel between two
// namespaces configured by fastlink alone.
#include <gtest/gtest.h>

#include <fastlink/fastlink.hpp>
#include <fastlink/wireguard.hpp>

#include <chrono>
#include <fstream>
#include <thread>

#include "support/settled.hpp"
#include "support/test_netns.hpp"
#include "support/wireguard_go.hpp"

namespace fastlink::test {
namespace {

WgKey fromWg(const std::string& text) { return WgKey::fromBase64(text); }

class WireGuardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    FASTLINK_REQUIRE_WIREGUARD_GO();
    go = std::make_unique<WireguardGo>(ns, uniqueWgName());
  }

  TestNetns ns;
  std::unique_ptr<WireguardGo> go;
  Netlink nl{NetlinkOptions{.netns = Netns::named(ns.name())}};
  WireGuardApi* wg = &nl.wireguard();
  const WireguardGo& dev() const { return *go; }

  /// Runs `wg ARGS` in the namespace and expects success.
  std::string wgCmd(const std::string& args) {
    auto r = ns.exec("wg " + args);
    EXPECT_EQ(r.status, 0) << "wg " << args << ": " << r.err;
    return r.out;
  }
};

TEST_F(WireGuardTest, WhatFastlinkSetsWgShows) {
  WgKey priv = WgKey::generatePrivate();
  WgKey peerKey = WgKey::generatePrivate().publicKey();
  WgKey psk = WgKey::generatePreshared();
  WgKey peer2 = WgKey::generatePrivate().publicKey();
  WgDevice change(dev().name());
  change.setPrivateKey(priv).setListenPort(51000).setFwmark(0x42);
  change.addPeer(WgPeer(peerKey)
                     .setPresharedKey(psk)
                     .setEndpoint(WgEndpoint::parse("[2001:db8::1]:51820"))
                     .addAllowedIp(WgAllowedIp::parse("10.1.0.0/16"))
                     .addAllowedIp(WgAllowedIp::parse("fd00:1::/64")));
  change.addPeer(WgPeer(peer2).setEndpoint(WgEndpoint::parse("192.0.2.7:9")).addAllowedIp(WgAllowedIp::parse("10.2.0.1/32")));
  wg->set(change);

  WgDump d = wgDump(ns, dev().name());
  ASSERT_EQ(d.device.size(), 4u);
  EXPECT_EQ(d.device[0], priv.toBase64());
  EXPECT_EQ(d.device[1], priv.publicKey().toBase64());
  EXPECT_EQ(d.device[2], "51000");
  EXPECT_EQ(d.device[3], "0x42");
  ASSERT_EQ(d.peers.size(), 2u);
  auto p = d.peers.at(peerKey.toBase64());
  EXPECT_EQ(p[0], psk.toBase64());
  EXPECT_EQ(p[1], "[2001:db8::1]:51820");
  EXPECT_EQ(p[2], "10.1.0.0/16,fd00:1::/64");
  EXPECT_EQ(p[6], "off");
  auto q = d.peers.at(peer2.toBase64());
  EXPECT_EQ(q[0], "(none)");
  EXPECT_EQ(q[1], "192.0.2.7:9");
  EXPECT_EQ(q[2], "10.2.0.1/32");
}

TEST_F(WireGuardTest, WhatWgSetsFastlinkReads) {
  std::string priv = wgCmd("genkey");
  priv.pop_back();
  std::string pub = ns.exec("echo " + priv + " | wg pubkey").out;
  pub.pop_back();
  std::string peer = ns.exec("wg genkey | wg pubkey").out;
  peer.pop_back();
  std::string path = "/tmp/fastlink-wg-key-" + dev().name();
  {
    std::ofstream f(path);
    f << priv << "\n";
  }
  wgCmd("set " + dev().name() + " private-key " + path + " listen-port 51001 fwmark 7 peer " + peer +
        " endpoint 192.0.2.1:1234 allowed-ips 10.9.0.0/24,fd00::/120 persistent-keepalive 0");
  std::remove(path.c_str());

  WgDevice d = wg->get(dev().name());
  EXPECT_EQ(d.name, dev().name());
  EXPECT_EQ(d.privateKey, fromWg(priv));
  EXPECT_EQ(d.publicKey, fromWg(pub));
  EXPECT_EQ(d.listenPort, 51001);
  EXPECT_EQ(d.fwmark, 7u);
  ASSERT_EQ(d.peers.size(), 1u);
  EXPECT_EQ(d.peers[0].publicKey, fromWg(peer));
  ASSERT_TRUE(d.peers[0].endpoint);
  EXPECT_EQ(d.peers[0].endpoint->toString(), "192.0.2.1:1234");
  ASSERT_EQ(d.peers[0].allowedIps.size(), 2u);
  EXPECT_EQ(d.peers[0].allowedIps[0].toString(), "10.9.0.0/24");
  EXPECT_EQ(d.peers[0].allowedIps[1].toString(), "fd00::/120");
  EXPECT_EQ(d.peers[0].persistentKeepalive.value_or(99), 0);
  EXPECT_EQ(d.peers[0].lastHandshake.value_or(WgTime{1, 1}), WgTime{});
  EXPECT_EQ(d.peers[0].protocolVersion, 1u);
  EXPECT_EQ(wg->backendOf(dev().name()), WgBackendKind::Userspace);
}

TEST_F(WireGuardTest, SetFlagsReplaceRemoveUpdateOnlyAndAllowedIps) {
  WgKey a = WgKey::generatePrivate().publicKey(), b = WgKey::generatePrivate().publicKey(),
        c = WgKey::generatePrivate().publicKey();
  WgDevice first(dev().name());
  first.addPeer(WgPeer(a).addAllowedIp(WgAllowedIp::parse("10.0.1.0/24")));
  first.addPeer(WgPeer(b).addAllowedIp(WgAllowedIp::parse("10.0.2.0/24")));
  wg->set(first);
  ASSERT_EQ(wgDump(ns, dev().name()).peers.size(), 2u);

  // Adding allowed IPs, then replacing them.
  wg->set(WgDevice(dev().name()).addPeer(WgPeer(a).addAllowedIp(WgAllowedIp::parse("10.0.3.0/24"))));
  EXPECT_EQ(wgDump(ns, dev().name()).peers.at(a.toBase64())[2], "10.0.1.0/24,10.0.3.0/24");
  wg->set(WgDevice(dev().name()).addPeer(WgPeer(a).setReplaceAllowedIps().addAllowedIp(WgAllowedIp::parse("10.0.4.0/24"))));
  EXPECT_EQ(wgDump(ns, dev().name()).peers.at(a.toBase64())[2], "10.0.4.0/24");

  // update-only does not create a peer, but changes an existing one.
  wg->set(WgDevice(dev().name()).addPeer(WgPeer(c).setUpdateOnly().setPersistentKeepalive(5)));
  EXPECT_EQ(wgDump(ns, dev().name()).peers.count(c.toBase64()), 0u);
  wg->set(WgDevice(dev().name()).addPeer(WgPeer(b).setUpdateOnly().setPersistentKeepalive(5)));
  EXPECT_EQ(wgDump(ns, dev().name()).peers.at(b.toBase64())[6], "5");

  // remove one peer, then replace all with c.
  wg->set(WgDevice(dev().name()).addPeer(WgPeer(a).setRemove()));
  auto d = wgDump(ns, dev().name());
  EXPECT_EQ(d.peers.size(), 1u);
  EXPECT_EQ(d.peers.count(b.toBase64()), 1u);
  wg->set(WgDevice(dev().name()).setReplacePeers().addPeer(WgPeer(c)));
  d = wgDump(ns, dev().name());
  ASSERT_EQ(d.peers.size(), 1u);
  EXPECT_EQ(d.peers.count(c.toBase64()), 1u);
}

TEST_F(WireGuardTest, BadInputIsRefusedAndChangesNothing) {
  WgKey a = WgKey::generatePrivate().publicKey();
  wg->set(WgDevice(dev().name()).setListenPort(51002).addPeer(WgPeer(a).addAllowedIp(WgAllowedIp::parse("10.0.0.0/24"))));
  std::string before = wgCmd("show " + dev().name() + " dump");

  WgPeer hostBits(a);
  hostBits.allowedIps.emplace_back(Prefix::parse("10.0.5.1/24"));  // bypasses WgAllowedIp::parse
  try {
    wg->set(WgDevice(dev().name()).setListenPort(51003).addPeer(hostBits));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("host bits"), std::string::npos) << e.what();
  }
  try {
    wg->set(WgDevice("fwgnosuch0").setListenPort(1));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::no_such_device) << e.what();
  }
  ns.ip("link add v0 type veth peer name v1");
  try {
    wg->get("v0");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::operation_not_supported) << e.what();
    EXPECT_NE(std::string(e.what()).find("not a WireGuard device"), std::string::npos) << e.what();
  }
  EXPECT_EQ(wgCmd("show " + dev().name() + " dump"), before);
}

TEST_F(WireGuardTest, ListFindsWireGuardDevicesOnly) {
  ns.ip("link add v0 type veth peer name v1");
  auto names = wg->list();
  EXPECT_NE(std::find(names.begin(), names.end(), dev().name()), names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "v0"), names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "lo"), names.end());
  // The oracle: wg show interfaces lists the same device.
  EXPECT_NE(wgCmd("show interfaces").find(dev().name()), std::string::npos);
}

// Two namespaces joined by a veth; a WireGuard device in each (wireguard-go on the host, the
// kernel module in the VM); keys, ports and peers set by fastlink alone; addresses by ip. A ping
// goes through the tunnel, and the transfer counters fastlink reads match `wg show dump`.
void pingThroughATunnelConfiguredByFastlink(TestNetns& left, TestNetns& right, const std::string& nameA,
                                            const std::string& nameB, WgBackendKind backend) {
  Netlink nlA{NetlinkOptions{.netns = Netns::named(left.name())}};
  Netlink nlB{NetlinkOptions{.netns = Netns::named(right.name())}};
  WireGuardApi *wgA = &nlA.wireguard(), *wgB = &nlB.wireguard();
  ASSERT_EQ(wgA->backendOf(nameA), backend);
  ASSERT_EQ(wgB->backendOf(nameB), backend);
  WgKey keyA = WgKey::generatePrivate(), keyB = WgKey::generatePrivate(), psk = WgKey::generatePreshared();
  wgA->set(WgDevice(nameA).setPrivateKey(keyA).setListenPort(51100).addPeer(
      WgPeer(keyB.publicKey()).setPresharedKey(psk).setEndpoint(WgEndpoint::parse("192.168.77.2:51101"))
          .addAllowedIp(WgAllowedIp::parse("10.77.0.2/32"))));
  wgB->set(WgDevice(nameB).setPrivateKey(keyB).setListenPort(51101).addPeer(
      WgPeer(keyA.publicKey()).setPresharedKey(psk).setEndpoint(WgEndpoint::parse("192.168.77.1:51100"))
          .addAllowedIp(WgAllowedIp::parse("10.77.0.1/32"))));
  left.ip("addr add 10.77.0.1/24 dev " + nameA);
  left.ip("link set " + nameA + " up");
  right.ip("addr add 10.77.0.2/24 dev " + nameB);
  right.ip("link set " + nameB + " up");

  // The first handshake can take ~2 s, and a lost initiation is sent again only 5 s later
  // (REKEY_TIMEOUT): 20 s for wireguard-go on a loaded machine, or the VM's emulated CPUs.
  bool pinged = waitUntil([&] { return left.exec("ping -c 1 -W 1 10.77.0.2 >/dev/null").status == 0; },
                          std::chrono::seconds(20));
  ASSERT_TRUE(pinged) << "no ping through the tunnel in 20 s";
  ASSERT_EQ(left.exec("ping -c 3 -i 0.2 -W 1 10.77.0.2 >/dev/null").status, 0);

  WgDevice readA = wgA->get(nameA);
  ASSERT_EQ(readA.peers.size(), 1u);
  const WgPeer& peer = readA.peers[0];
  EXPECT_GT(peer.rxBytes.value_or(0), 0u);
  EXPECT_GT(peer.txBytes.value_or(0), 0u);
  ASSERT_TRUE(peer.lastHandshake);
  EXPECT_GT(peer.lastHandshake->seconds, 0);
  // Handshake time and counters against `wg show dump`, read until no keepalive or handshake
  // retry moved them across fastlink's read; then they match exactly.
  auto [mine, oracle] = settledReads(
      [&] {
        WgDevice d = wgA->get(nameA);
        const WgPeer& p = d.peers.at(0);
        return std::vector<std::string>{p.lastHandshake ? std::to_string(p.lastHandshake->seconds) : "none",
                                        std::to_string(p.rxBytes.value_or(0)), std::to_string(p.txBytes.value_or(0))};
      },
      [&] {
        auto o = wgDump(left, nameA).peers.at(keyB.publicKey().toBase64());
        return std::vector<std::string>{o[3], o[4], o[5]};
      });
  EXPECT_EQ(mine, oracle);
}

void joinByVeth(TestNetns& left, TestNetns& right) {
  left.ip("link add wgv0 type veth peer name wgv1 netns " + right.name());
  left.ip("addr add 192.168.77.1/24 dev wgv0");
  left.ip("link set wgv0 up");
  right.ip("addr add 192.168.77.2/24 dev wgv1");
  right.ip("link set wgv1 up");
}

TEST(WireGuardTunnel, PingThroughATunnelConfiguredByFastlink) {
  FASTLINK_REQUIRE_WIREGUARD_GO();
  TestNetns left, right;
  joinByVeth(left, right);
  WireguardGo a(left, uniqueWgName()), b(right, uniqueWgName());
  pingThroughATunnelConfiguredByFastlink(left, right, a.name(), b.name(), WgBackendKind::Userspace);
}

// The same tunnel over the kernel module (generic netlink): runs in the VM (tests/vm).
TEST(WireGuardTunnel, PingThroughAKernelTunnelConfiguredByFastlink) {
  FASTLINK_REQUIRE_KIND("wireguard");
  TestNetns left, right;
  joinByVeth(left, right);
  left.ip("link add wgk0 type wireguard");
  right.ip("link add wgk1 type wireguard");
  pingThroughATunnelConfiguredByFastlink(left, right, "wgk0", "wgk1", WgBackendKind::Kernel);
}

}  // namespace
}  // namespace fastlink::test
