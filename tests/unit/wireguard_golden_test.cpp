// Golden bytes for the kernel WireGuard codec (src/wg/wireguard_codec.*): WG_CMD_SET_DEVICE
// split across messages under a byte budget, WG_CMD_GET_DEVICE, and a dump folded back into
// one device. Expected bytes come from golden.hpp's hand layout; numbers from
// include/uapi/linux/wireguard.h are spelled out here on purpose (the test does not include it).
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "fastlink/error.hpp"
#include "fastlink/wireguard.hpp"
#include "wg/wireguard_codec.hpp"
#include "wg/wireguard_kernel.hpp"
#include "unit/golden.hpp"

namespace fastlink::test {
namespace {

constexpr uint16_t kFamily = 0x1d;  // any id: the codec takes it as a parameter
constexpr uint16_t kRequestAck = 0x0001 | 0x0004;
constexpr uint16_t kRequestDump = 0x0001 | 0x0300;
// enum wg_cmd / wgdevice_attribute / wgpeer_attribute / wgallowedip_attribute
constexpr uint8_t kCmdGet = 0, kCmdSet = 1;
constexpr uint16_t kDevIfindex = 1, kDevIfname = 2, kDevPrivateKey = 3, kDevPublicKey = 4, kDevFlags = 5,
                   kDevListenPort = 6, kDevFwmark = 7, kDevPeers = 8;
constexpr uint16_t kPeerPublicKey = 1, kPeerPresharedKey = 2, kPeerFlags = 3, kPeerEndpoint = 4, kPeerKeepalive = 5,
                   kPeerHandshake = 6, kPeerRx = 7, kPeerTx = 8, kPeerAllowedIps = 9, kPeerProtocol = 10;
constexpr uint16_t kIpFamily = 1, kIpAddr = 2, kIpCidr = 3;
constexpr uint32_t kReplacePeers = 1, kRemoveMe = 1, kReplaceAllowedIps = 2, kUpdateOnly = 4;

Bytes keyBytes(uint8_t seed) {
  Bytes b(32);
  for (int i = 0; i < 32; ++i) b[i] = static_cast<uint8_t>(seed + i);
  return b;
}
WgKey key(uint8_t seed) {
  Bytes b = keyBytes(seed);
  return WgKey(std::span<const uint8_t, 32>(b.data(), 32));
}

Bytes genl(uint8_t cmd) { return {cmd, 1, 0, 0}; }

Attrs allowedV4(uint8_t a, uint8_t b, uint8_t c, uint8_t d, uint8_t cidr) {
  return Attrs().u16(kIpFamily, 2).raw(kIpAddr, {a, b, c, d}).u8(kIpCidr, cidr);
}

Bytes sockaddrV4(uint8_t a, uint8_t b, uint8_t c, uint8_t d, uint16_t port) {
  Bytes s;
  appendLe16(s, 2);
  s.push_back(static_cast<uint8_t>(port >> 8));
  s.push_back(static_cast<uint8_t>(port));
  s.insert(s.end(), {a, b, c, d, 0, 0, 0, 0, 0, 0, 0, 0});
  return s;
}

Bytes sockaddrV6Loopback(uint16_t port) {
  Bytes s;
  appendLe16(s, 10);
  s.push_back(static_cast<uint8_t>(port >> 8));
  s.push_back(static_cast<uint8_t>(port));
  appendLe32(s, 0);  // flowinfo
  for (int i = 0; i < 15; ++i) s.push_back(0);
  s.push_back(1);
  appendLe32(s, 0);  // scope id
  return s;
}

TEST(WireGuardGolden, SetDeviceWithoutPeersIsOneMessage) {
  WgDevice d("wg0");
  d.setPrivateKey(key(1)).setListenPort(51820).setFwmark(0x42).setReplacePeers();
  auto requests = wg::encodeWgSetDevice(kFamily, d);
  ASSERT_EQ(requests.size(), 1u);
  Attrs a;
  a.str(kDevIfname, "wg0").raw(kDevPrivateKey, keyBytes(1)).u16(kDevListenPort, 51820).u32(kDevFwmark, 0x42)
      .u32(kDevFlags, kReplacePeers);
  EXPECT_TRUE(sameBytes(requests[0].bytes(), netlinkMessage(kFamily, kRequestAck, genl(kCmdSet), a)));
  EXPECT_EQ(requests[0].operation(), "wg set wg0");
}

TEST(WireGuardGolden, SetPeerWithEverything) {
  WgPeer p(key(2));
  p.setPresharedKey(key(3)).setEndpoint(WgEndpoint::parse("192.0.2.1:51820")).setPersistentKeepalive(25)
      .addAllowedIp(WgAllowedIp::parse("10.0.0.0/24")).setReplaceAllowedIps().setUpdateOnly();
  WgPeer gone(key(4));
  gone.setRemove();
  WgDevice d("wg0");
  d.addPeer(p).addPeer(gone);
  auto requests = wg::encodeWgSetDevice(kFamily, d);
  ASSERT_EQ(requests.size(), 1u);
  Attrs peer1;
  peer1.raw(kPeerPublicKey, keyBytes(2)).u32(kPeerFlags, kUpdateOnly | kReplaceAllowedIps)
      .raw(kPeerPresharedKey, keyBytes(3)).raw(kPeerEndpoint, sockaddrV4(192, 0, 2, 1, 51820)).u16(kPeerKeepalive, 25)
      .nest(kPeerAllowedIps, Attrs().nest(0, allowedV4(10, 0, 0, 0, 24)));
  Attrs peer2;
  peer2.raw(kPeerPublicKey, keyBytes(4)).u32(kPeerFlags, kRemoveMe);
  Attrs a;
  a.str(kDevIfname, "wg0").nest(kDevPeers, Attrs().nest(0, peer1).nest(0, peer2));
  EXPECT_TRUE(sameBytes(requests[0].bytes(), netlinkMessage(kFamily, kRequestAck, genl(kCmdSet), a)));
}

// Budget 148 bytes: header 20 + ifname 8 + peers nest 4 = 32 (+ 8 for the listen port in the
// first message only); the first part of the peer takes 4 + 36 (key) + 8 (flags) + 4 (allowed-IPs
// nest) = 52, each IPv4 allowed IP 28: two per message. A continuation carries the key and
// allowed IPs only (44 + 28n), and no REPLACE_ALLOWEDIPS. The third message (32 + 44 + 56 = 132)
// has no room for peer B (40), which starts the fourth.
TEST(WireGuardGolden, SplitsAPeersAllowedIpsAcrossMessagesAndContinuesTheSamePeer) {
  WgPeer a(key(5));
  a.setReplaceAllowedIps();
  for (uint8_t i = 0; i < 6; ++i) a.addAllowedIp(WgAllowedIp::parse("10.0.0." + std::to_string(i) + "/32"));
  WgPeer b(key(6));
  WgDevice d("wg0");
  d.setListenPort(1).addPeer(a).addPeer(b);  // listen port only in the first message (+8)
  auto requests = wg::encodeWgSetDevice(kFamily, d, 148);
  ASSERT_EQ(requests.size(), 4u);

  auto ips = [](uint8_t from, uint8_t to) {
    Attrs list;
    for (uint8_t i = from; i < to; ++i) list.nest(0, allowedV4(10, 0, 0, i, 32));
    return list;
  };
  Attrs first;
  first.str(kDevIfname, "wg0").u16(kDevListenPort, 1)
      .nest(kDevPeers, Attrs().nest(0, Attrs().raw(kPeerPublicKey, keyBytes(5)).u32(kPeerFlags, kReplaceAllowedIps)
                                         .nest(kPeerAllowedIps, ips(0, 2))));
  Attrs second;
  second.str(kDevIfname, "wg0")
      .nest(kDevPeers, Attrs().nest(0, Attrs().raw(kPeerPublicKey, keyBytes(5)).nest(kPeerAllowedIps, ips(2, 4))));
  Attrs third;
  third.str(kDevIfname, "wg0")
      .nest(kDevPeers, Attrs().nest(0, Attrs().raw(kPeerPublicKey, keyBytes(5)).nest(kPeerAllowedIps, ips(4, 6))));
  Attrs fourth;
  fourth.str(kDevIfname, "wg0").nest(kDevPeers, Attrs().nest(0, Attrs().raw(kPeerPublicKey, keyBytes(6))));
  EXPECT_TRUE(sameBytes(requests[0].bytes(), netlinkMessage(kFamily, kRequestAck, genl(kCmdSet), first)));
  EXPECT_TRUE(sameBytes(requests[1].bytes(), netlinkMessage(kFamily, kRequestAck, genl(kCmdSet), second)));
  EXPECT_TRUE(sameBytes(requests[2].bytes(), netlinkMessage(kFamily, kRequestAck, genl(kCmdSet), third)));
  EXPECT_TRUE(sameBytes(requests[3].bytes(), netlinkMessage(kFamily, kRequestAck, genl(kCmdSet), fourth)));
  for (const auto& r : requests) EXPECT_LE(r.bytes().size(), 148u);
}

TEST(WireGuardGolden, BudgetTooSmallForOnePeerIsAnError) {
  WgDevice d("wg0");
  d.addPeer(WgPeer(key(1)).addAllowedIp(WgAllowedIp::parse("10.0.0.0/8")));
  EXPECT_THROW(wg::encodeWgSetDevice(kFamily, d, 64), Error);
}

TEST(WireGuardGolden, HostBitsAreRefusedBeforeEncoding) {
  WgDevice d("wg0");
  WgPeer p(key(1));
  p.allowedIps.emplace_back(Prefix::parse("10.0.0.1/8"));
  d.addPeer(p);
  try {
    wg::encodeWgSetDevice(kFamily, d);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("host bits"), std::string::npos) << e.what();
  }
}

TEST(WireGuardGolden, GetDeviceIsADumpByName) {
  Request r = wg::encodeWgGetDevice(kFamily, "wg7");
  EXPECT_TRUE(sameBytes(r.bytes(), netlinkMessage(kFamily, kRequestDump, genl(kCmdGet), Attrs().str(kDevIfname, "wg7"))));
}

// A kernel dump where peer 2's allowed IPs did not fit: the next message starts with the same
// peer (key + rest of its allowed IPs). Kernel nests carry no NLA_F_NESTED.
TEST(WireGuardGolden, FoldsAPeerSplitAcrossDumpMessages) {
  Bytes handshake;
  appendLe64(handshake, 1700000000);
  appendLe64(handshake, 123);
  Attrs peerA;
  peerA.raw(kPeerPublicKey, keyBytes(2)).raw(kPeerPresharedKey, keyBytes(3))
      .raw(kPeerEndpoint, sockaddrV6Loopback(51820)).u16(kPeerKeepalive, 25).raw(kPeerHandshake, handshake)
      .u64(kPeerRx, 1000).u64(kPeerTx, 2000).u32(kPeerProtocol, 1)
      .nestNoFlag(kPeerAllowedIps, Attrs().nestNoFlag(0, allowedV4(10, 0, 0, 0, 24)));
  Attrs first;
  first.u32(kDevIfindex, 7).str(kDevIfname, "wg0").raw(kDevPrivateKey, keyBytes(1)).raw(kDevPublicKey, keyBytes(9))
      .u16(kDevListenPort, 51820).u32(kDevFwmark, 0).nestNoFlag(kDevPeers, Attrs().nestNoFlag(0, peerA));
  Bytes v6{0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  Attrs restOfA;
  restOfA.raw(kPeerPublicKey, keyBytes(2))
      .nestNoFlag(kPeerAllowedIps, Attrs().nestNoFlag(0, Attrs().u16(kIpFamily, 10).raw(kIpAddr, v6).u8(kIpCidr, 64)));
  Attrs second;
  second.u32(kDevIfindex, 7).str(kDevIfname, "wg0")
      .nestNoFlag(kDevPeers, Attrs().nestNoFlag(0, restOfA).nestNoFlag(0, Attrs().raw(kPeerPublicKey, keyBytes(4))));

  wg::WgDeviceFolder folder;
  for (const Attrs* a : {&first, &second}) {
    Bytes m = netlinkMessage(kFamily, 0x2, genl(kCmdGet), *a);
    AlignedMessage aligned(m);
    folder.add(aligned.as<nlmsghdr>());
  }
  WgDevice d = folder.take();
  EXPECT_EQ(d.name, "wg0");
  EXPECT_EQ(d.index, 7u);
  EXPECT_EQ(d.privateKey, key(1));
  EXPECT_EQ(d.publicKey, key(9));
  EXPECT_EQ(d.listenPort, 51820);
  EXPECT_EQ(d.fwmark, 0u);
  ASSERT_EQ(d.peers.size(), 2u);
  const WgPeer& a = d.peers[0];
  EXPECT_EQ(a.publicKey, key(2));
  EXPECT_EQ(a.presharedKey, key(3));
  ASSERT_TRUE(a.endpoint);
  EXPECT_EQ(a.endpoint->toString(), "[::1]:51820");
  EXPECT_EQ(a.persistentKeepalive, 25);
  EXPECT_EQ(a.lastHandshake, (WgTime{1700000000, 123}));
  EXPECT_EQ(a.rxBytes, 1000u);
  EXPECT_EQ(a.txBytes, 2000u);
  EXPECT_EQ(a.protocolVersion, 1u);
  ASSERT_EQ(a.allowedIps.size(), 2u);
  EXPECT_EQ(a.allowedIps[0].toString(), "10.0.0.0/24");
  EXPECT_EQ(a.allowedIps[1].toString(), "fd00::/64");
  EXPECT_EQ(d.peers[1].publicKey, key(4));
  EXPECT_TRUE(d.peers[1].allowedIps.empty());
}

TEST(WireGuardGolden, ShortKeyInADumpIsMalformed) {
  Attrs a;
  a.str(kDevIfname, "wg0").raw(kDevPrivateKey, {1, 2, 3});
  Bytes m = netlinkMessage(kFamily, 0x2, genl(kCmdGet), a);
  AlignedMessage aligned(m);
  wg::WgDeviceFolder folder;
  try {
    folder.add(aligned.as<nlmsghdr>());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), make_error_code(Errc::malformed_reply));
  }
}

// IPv6 on the way out: a sockaddr_in6 endpoint (28 bytes, flowinfo and scope id 0), an IPv6
// allowed IP (family 10, 16 address bytes), an all-zero preshared key (wg's "remove it") and a
// continuation-free peer whose only flag is REPLACE_ALLOWEDIPS; fwmark 0 and port 0 are sent.
TEST(WireGuardGolden, SetPeerOverIpv6WithZeroKeyAndZeroValues) {
  WgPeer p(key(7));
  p.setPresharedKey(WgKey()).setEndpoint(WgEndpoint::parse("[::1]:443")).setPersistentKeepalive(0)
      .addAllowedIp(WgAllowedIp::parse("fd00::/64")).addAllowedIp(WgAllowedIp::parse("10.1.0.0/16"))
      .setReplaceAllowedIps();
  WgDevice d("wg1");
  d.setPrivateKey(WgKey()).setListenPort(0).setFwmark(0).addPeer(p);
  auto requests = wg::encodeWgSetDevice(kFamily, d);
  ASSERT_EQ(requests.size(), 1u);
  Bytes v6{0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  Attrs ips;
  ips.nest(0, Attrs().u16(kIpFamily, 10).raw(kIpAddr, v6).u8(kIpCidr, 64)).nest(0, allowedV4(10, 1, 0, 0, 16));
  Attrs peer;
  peer.raw(kPeerPublicKey, keyBytes(7)).u32(kPeerFlags, kReplaceAllowedIps).raw(kPeerPresharedKey, Bytes(32, 0))
      .raw(kPeerEndpoint, sockaddrV6Loopback(443)).u16(kPeerKeepalive, 0).nest(kPeerAllowedIps, ips);
  Attrs a;
  a.str(kDevIfname, "wg1").raw(kDevPrivateKey, Bytes(32, 0)).u16(kDevListenPort, 0).u32(kDevFwmark, 0)
      .nest(kDevPeers, Attrs().nest(0, peer));
  EXPECT_TRUE(sameBytes(requests[0].bytes(), netlinkMessage(kFamily, kRequestAck, genl(kCmdSet), a)));
}

// A continuation keeps REMOVE_ME and UPDATE_ONLY (only REPLACE_ALLOWEDIPS is the first part's),
// and a message that fills up exactly at the budget is not split early.
TEST(WireGuardGolden, ContinuationKeepsRemoveAndUpdateOnlyAndFillsToTheBudget) {
  WgPeer a(key(8));
  a.setUpdateOnly().setReplaceAllowedIps().setEndpoint(WgEndpoint::parse("192.0.2.9:9"));
  for (uint8_t i = 0; i < 3; ++i) a.addAllowedIp(WgAllowedIp::parse("10.9.0." + std::to_string(i) + "/32"));
  WgDevice d("wg0");
  d.addPeer(a);
  // 32 (headers, ifname, peers nest) + 4 (peer) + 36 (key) + 8 (flags) + 20 (endpoint) + 4 (ips
  // nest) + 2 x 28 = 160: exactly two allowed IPs fit in the first message.
  auto requests = wg::encodeWgSetDevice(kFamily, d, 160);
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].bytes().size(), 160u);
  Attrs first;
  first.str(kDevIfname, "wg0").nest(
      kDevPeers, Attrs().nest(0, Attrs().raw(kPeerPublicKey, keyBytes(8)).u32(kPeerFlags, kUpdateOnly | kReplaceAllowedIps)
                                     .raw(kPeerEndpoint, sockaddrV4(192, 0, 2, 9, 9))
                                     .nest(kPeerAllowedIps, Attrs().nest(0, allowedV4(10, 9, 0, 0, 32))
                                                                .nest(0, allowedV4(10, 9, 0, 1, 32)))));
  Attrs second;
  second.str(kDevIfname, "wg0").nest(
      kDevPeers, Attrs().nest(0, Attrs().raw(kPeerPublicKey, keyBytes(8)).u32(kPeerFlags, kUpdateOnly)
                                     .nest(kPeerAllowedIps, Attrs().nest(0, allowedV4(10, 9, 0, 2, 32)))));
  EXPECT_TRUE(sameBytes(requests[0].bytes(), netlinkMessage(kFamily, kRequestAck, genl(kCmdSet), first)));
  EXPECT_TRUE(sameBytes(requests[1].bytes(), netlinkMessage(kFamily, kRequestAck, genl(kCmdSet), second)));
  // One byte less and the second allowed IP moves on.
  auto tighter = wg::encodeWgSetDevice(kFamily, d, 159);
  ASSERT_EQ(tighter.size(), 2u);
  EXPECT_EQ(tighter[0].bytes().size(), 132u);
}

// An IPv4 endpoint and a device whose attributes come in another order than the encoder's, with
// attributes of a newer kernel (device 99, peer 77) ignored.
TEST(WireGuardGolden, DecodesAnIpv4EndpointInAnyOrderAndIgnoresNewAttributes) {
  Attrs peer;
  peer.u64(kPeerTx, 5).raw(kPeerEndpoint, sockaddrV4(198, 51, 100, 7, 51820)).u32(77, 1)
      .raw(kPeerPublicKey, keyBytes(3));
  Attrs a;
  a.nestNoFlag(kDevPeers, Attrs().nestNoFlag(0, peer)).u32(99, 0xdead).u32(kDevFwmark, 9).str(kDevIfname, "wg3");
  AlignedMessage aligned(netlinkMessage(kFamily, 0x2, genl(kCmdGet), a));
  wg::WgDeviceFolder folder;
  folder.add(aligned.as<nlmsghdr>());
  WgDevice d = folder.take();
  EXPECT_EQ(d.name, "wg3");
  EXPECT_EQ(d.fwmark, 9u);
  EXPECT_FALSE(d.listenPort);
  EXPECT_FALSE(d.privateKey);
  ASSERT_EQ(d.peers.size(), 1u);
  EXPECT_EQ(d.peers[0].publicKey, key(3));
  ASSERT_TRUE(d.peers[0].endpoint);
  EXPECT_EQ(d.peers[0].endpoint->toString(), "198.51.100.7:51820");
  EXPECT_EQ(d.peers[0].txBytes, 5u);
  EXPECT_FALSE(d.peers[0].rxBytes);
  EXPECT_FALSE(d.peers[0].lastHandshake);
}

// Each malformed peer attribute is an Error(malformed_reply) that says what is wrong and never
// carries key bytes.
TEST(WireGuardGolden, MalformedPeerAttributesSayWhatIsWrong) {
  Bytes handshakeShort(8, 0);
  Bytes endpointUnknown{7, 0, 0, 1, 1, 2, 3, 4};
  struct Case {
    const char* name;
    Attrs peer;
    const char* says;
  };
  std::vector<Case> cases = {
      {"no public key", Attrs().u64(kPeerRx, 1), "peer without public key"},
      {"short preshared key", Attrs().raw(kPeerPublicKey, keyBytes(1)).raw(kPeerPresharedKey, {1, 2}), "preshared key is not 32 bytes"},
      {"short peer key", Attrs().raw(kPeerPublicKey, {0xaa, 0xbb}), "peer public key is not 32 bytes"},
      {"endpoint of 1 byte", Attrs().raw(kPeerPublicKey, keyBytes(1)).raw(kPeerEndpoint, {2}), "endpoint too short"},
      {"endpoint family 7", Attrs().raw(kPeerPublicKey, keyBytes(1)).raw(kPeerEndpoint, endpointUnknown),
       "endpoint of unknown family or short"},
      {"handshake of 8 bytes", Attrs().raw(kPeerPublicKey, keyBytes(1)).raw(kPeerHandshake, handshakeShort),
       "handshake time is not a timespec"},
      {"allowed IP without mask",
       Attrs().raw(kPeerPublicKey, keyBytes(1)).nestNoFlag(kPeerAllowedIps, Attrs().nestNoFlag(0, Attrs().u16(kIpFamily, 2).raw(kIpAddr, {1, 2, 3, 4}))),
       "allowed IP without family, address or mask"},
      {"allowed IP family 7",
       Attrs().raw(kPeerPublicKey, keyBytes(1)).nestNoFlag(kPeerAllowedIps, Attrs().nestNoFlag(0, Attrs().u16(kIpFamily, 7).raw(kIpAddr, {1, 2, 3, 4}).u8(kIpCidr, 8))),
       "allowed IP of unknown family or short"},
      {"allowed IP /33",
       Attrs().raw(kPeerPublicKey, keyBytes(1)).nestNoFlag(kPeerAllowedIps, Attrs().nestNoFlag(0, allowedV4(1, 2, 3, 4, 33))),
       "allowed IP mask beyond the address width"},
  };
  for (const Case& c : cases) {
    Attrs a;
    a.str(kDevIfname, "wg0").nestNoFlag(kDevPeers, Attrs().nestNoFlag(0, c.peer));
    AlignedMessage aligned(netlinkMessage(kFamily, 0x2, genl(kCmdGet), a));
    wg::WgDeviceFolder folder;
    try {
      folder.add(aligned.as<nlmsghdr>());
      ADD_FAILURE() << c.name << ": no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), make_error_code(Errc::malformed_reply)) << c.name;
      std::string what = e.what();
      EXPECT_NE(what.find(c.says), std::string::npos) << c.name << ": " << what;
      EXPECT_NE(what.find("decode wireguard device"), std::string::npos) << c.name << ": " << what;
    }
  }
}

// 3 peers with 1000 allowed IPs each, split at the default budget, folded back: the same device.
TEST(WireGuardGolden, LargeSetSplitsUnderBudgetAndFoldsBackToTheSamePeers) {
  WgDevice d("wg0");
  for (uint8_t p = 0; p < 3; ++p) {
    WgPeer peer(key(static_cast<uint8_t>(10 * p)));
    peer.setReplaceAllowedIps();
    for (int i = 0; i < 1000; ++i)
      peer.addAllowedIp(WgAllowedIp::parse("10." + std::to_string(p) + "." + std::to_string(i / 256) + "." +
                                           std::to_string(i % 256) + "/32"));
    d.addPeer(peer);
  }
  auto requests = wg::encodeWgSetDevice(kFamily, d);
  EXPECT_GT(requests.size(), 20u);
  wg::WgDeviceFolder folder;
  for (const auto& r : requests) {
    EXPECT_LE(r.bytes().size(), wg::kWgMessageBudget);
    AlignedMessage aligned(r.bytes());
    folder.add(aligned.as<nlmsghdr>());
  }
  WgDevice back = folder.take();
  ASSERT_EQ(back.peers.size(), 3u);
  for (std::size_t p = 0; p < 3; ++p) {
    EXPECT_EQ(back.peers[p].publicKey, d.peers[p].publicKey);
    EXPECT_EQ(back.peers[p].allowedIps, d.peers[p].allowedIps);
  }
}

}  // namespace
}  // namespace fastlink::test

// The kernel backend over a fake transport: what it sends and how it folds what comes back.

namespace fastlink::test {
namespace {

class FakeTransport final : public wg::WgKernelTransport {
 public:
  uint16_t familyId() override { return kFamily; }
  void execute(const Request& r) override {
    sent.emplace_back(r.bytes().begin(), r.bytes().end());
    operations.push_back(r.operation());
    if (failAt && sent.size() == *failAt) throw Error(std::make_error_code(std::errc::invalid_argument), r.operation());
  }
  void dump(const Request& r, const core::MessageHandler& onMessage, const std::function<void()>& onRestart) override {
    sent.emplace_back(r.bytes().begin(), r.bytes().end());
    for (std::size_t i = 0; i < replies.size(); ++i) {
      if (restartAfter && i == *restartAfter) {
        onRestart();
        for (std::size_t j = 0; j < i; ++j) deliver(replies[j], onMessage);
      }
      deliver(replies[i], onMessage);
    }
  }
  static void deliver(const Bytes& m, const core::MessageHandler& onMessage) {
    AlignedMessage aligned(m);
    onMessage(aligned.as<nlmsghdr>());
  }

  std::vector<Bytes> sent;
  std::vector<std::string> operations;
  std::vector<Bytes> replies;
  std::optional<std::size_t> failAt;
  std::optional<std::size_t> restartAfter;
};

class NoLinks final : public ILinkApi {
 public:
  void add(const LinkInfo&) override {}
  void del(const Ifref&) override {}
  void set(const Ifref&, const LinkInfo&) override {}
  void replace(const LinkInfo&) override {}
  LinkInfo get(const Ifref&, bool) override { return {}; }
  std::optional<LinkInfo> find(const Ifref&, bool) override { return std::nullopt; }
  std::vector<LinkInfo> list(const LinkFilter&) override {
    LinkInfo wg, veth;
    wg.name = "wg0", wg.kind = "wireguard";
    veth.name = "v0", veth.kind = "veth";  // a kernel without the module ignores the kind filter
    return {wg, veth};
  }
  void forEach(const LinkFilter&, const std::function<void(const LinkInfo&)>&, const std::function<void()>&) override {}
  void setGroup(uint32_t, const LinkInfo&) override {}
  void delGroup(uint32_t) override {}
};

TEST(WireGuardKernelBackend, SetSendsEveryMessageInOrderAndNamesTheOneThatFailed) {
  FakeTransport t;
  NoLinks links;
  wg::WgKernelBackend backend(t, links, 148);
  WgPeer a(key(5));
  for (uint8_t i = 0; i < 6; ++i) a.addAllowedIp(WgAllowedIp::parse("10.0.0." + std::to_string(i) + "/32"));
  WgDevice d("wg0");
  d.addPeer(a);
  auto expected = wg::encodeWgSetDevice(kFamily, d, 148);
  backend.set(d);
  ASSERT_EQ(t.sent.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_TRUE(sameBytes(t.sent[i], expected[i].bytes()));

  FakeTransport failing;
  failing.failAt = 2;
  wg::WgKernelBackend backend2(failing, links, 148);
  try {
    backend2.set(d);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.operation(), "wg set wg0 (message 2 of 3)");
  }
  EXPECT_EQ(failing.sent.size(), 2u);  // nothing after the refused message
  EXPECT_EQ(backend.list(), std::vector<std::string>{"wg0"});
}

TEST(WireGuardKernelBackend, GetFoldsSplitRepliesAndStartsOverOnARestartedDump) {
  Attrs first;
  first.str(kDevIfname, "wg0").u16(kDevListenPort, 7)
      .nestNoFlag(kDevPeers, Attrs().nestNoFlag(0, Attrs().raw(kPeerPublicKey, keyBytes(2)).nestNoFlag(
                                                       kPeerAllowedIps, Attrs().nestNoFlag(0, allowedV4(10, 0, 0, 0, 8)))));
  Attrs second;
  second.str(kDevIfname, "wg0")
      .nestNoFlag(kDevPeers, Attrs().nestNoFlag(0, Attrs().raw(kPeerPublicKey, keyBytes(2)).nestNoFlag(
                                                        kPeerAllowedIps, Attrs().nestNoFlag(0, allowedV4(11, 0, 0, 0, 8)))));
  for (std::optional<std::size_t> restart : {std::optional<std::size_t>(), std::optional<std::size_t>(1)}) {
    FakeTransport t;
    NoLinks links;
    t.replies = {netlinkMessage(kFamily, 0x2, genl(kCmdGet), first), netlinkMessage(kFamily, 0x2, genl(kCmdGet), second)};
    t.restartAfter = restart;
    wg::WgKernelBackend backend(t, links);
    WgDevice d = backend.get("wg0");
    EXPECT_TRUE(sameBytes(t.sent.at(0), wg::encodeWgGetDevice(kFamily, "wg0").bytes()));
    EXPECT_EQ(d.listenPort, 7);
    ASSERT_EQ(d.peers.size(), 1u);
    ASSERT_EQ(d.peers[0].allowedIps.size(), 2u);
    EXPECT_EQ(d.peers[0].allowedIps[1].toString(), "11.0.0.0/8");
  }
}

}  // namespace
}  // namespace fastlink::test
