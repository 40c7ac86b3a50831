// `fastlink wg` against wireguard-tools' `wg`, on a wireguard-go device (userspace backend, host
// and VM) and on a kernel device (generic netlink backend, VM): the same output for the same
// device, keys that `wg pubkey` agrees with, and bad input refused with nothing changed.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

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
  /// A second WireGuard device in `right`, joined to dev() by a veth (192.168.78.0/24), tunnel
  /// addresses 10.78.0.1 (here) and 10.78.0.2 (there), and pinged through until the handshake
  /// is done. `leftPeerOptions` is added to this side's `wg set ... peer RIGHT` line.
  struct Tunnel {
    std::unique_ptr<WireguardGo> rightGo;
    std::string rightName = "fwgk1";
    std::string leftKey, leftPub, rightPub;
  };
  Tunnel connect(TestNetns& right, const std::string& leftPeerOptions) {
    Tunnel t;
    if (GetParam() == WgBackendKind::Userspace) {
      t.rightGo = std::make_unique<WireguardGo>(right, uniqueWgName());
      t.rightName = t.rightGo->name();
    } else {
      right.ip("link add " + t.rightName + " type wireguard");
    }
    ns.ip("link add fwgv0 type veth peer name fwgv1 netns " + right.name());
    ns.ip("addr add 192.168.78.1/24 dev fwgv0");
    ns.ip("link set fwgv0 up");
    right.ip("addr add 192.168.78.2/24 dev fwgv1");
    right.ip("link set fwgv1 up");
    t.leftKey = trimmed(ok("wg genkey"));
    std::string rightKey = trimmed(ok("wg genkey"));
    t.leftPub = trimmed(run("echo " + t.leftKey + " | wg pubkey").out);
    t.rightPub = trimmed(run("echo " + rightKey + " | wg pubkey").out);
    wg("set " + dev().name() + " private-key " + file(t.leftKey) + " listen-port 51310 peer " + t.rightPub +
       " endpoint 192.168.78.2:51311 allowed-ips 10.78.0.2/32" + leftPeerOptions);
    auto r = right.exec("wg set " + t.rightName + " private-key " + file(rightKey) + " listen-port 51311 peer " + t.leftPub +
                        " endpoint 192.168.78.1:51310 allowed-ips 10.78.0.1/32");
    EXPECT_EQ(r.status, 0) << r.err;
    ns.ip("addr add 10.78.0.1/24 dev " + dev().name());
    ns.ip("link set " + dev().name() + " up");
    right.ip("addr add 10.78.0.2/24 dev " + t.rightName);
    right.ip("link set " + t.rightName + " up");
    bool pinged = false;
    for (int i = 0; i < 10 && !pinged; ++i)  // the first handshake can take ~2 s
      pinged = ns.exec("ping -c 1 -W 1 10.78.0.2 >/dev/null").status == 0;
    EXPECT_TRUE(pinged) << "no ping through the tunnel";
    return t;
  }
  /// One peer's field from `wg show DEV FIELD` ("PEER\tVALUE" lines).
  std::string peerField(const std::string& field, const std::string& peer) {
    std::istringstream lines(wg("show " + dev().name() + " " + field));
    for (std::string line; std::getline(lines, line);)
      if (line.rfind(peer + "\t", 0) == 0) return line.substr(peer.size() + 1);
    return "(no such peer)";
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
  // `all` lists other tests' wireguard-go devices too (their sockets are global), so only this
  // device's part is compared: the name starts its endpoints block once (wg's quirk, see
  // docs/cli/wg.md), and every line of the other fields.
  for (const char* field : {"endpoints", "allowed-ips"}) {
    std::string part = dev().name() + "\t" + ok(std::string("wg show ") + dev().name() + " " + field);
    EXPECT_NE(wg(std::string("show all ") + field).find(part), std::string::npos) << field;
    EXPECT_NE(ok(std::string("wg show all ") + field).find(part), std::string::npos) << field;
  }

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
    bool wgRefusesToo = true;  ///< wg fails on it as well (the oracle for the status is run)
  };
  std::vector<Case> cases = {
      {"wg set " + dev().name() + " listen-port 1 peer " + badKey, 1, "valid base64"},
      {"wg set " + dev().name() + " listen-port 1 peer AAAA", 1, "44 characters"},
      {"wg set " + dev().name() + " listen-port 1 peer AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==", 1, "31 bytes"},
      {"wg set " + dev().name() + " listen-port 1 private-key " + file(badKey), 1, "valid base64"},
      {"wg set " + dev().name() + " listen-port 1 peer " + peer + " endpoint 192.0.2.1", 1, "no port"},
      // wg masks the host bits and applies it; fastlink refuses on purpose (not run through wg).
      {"wg set " + dev().name() + " listen-port 1 peer " + peer + " allowed-ips 10.8.0.1/24", 1, "host bits", false},
      {"wg set fwgnosuch9 listen-port 1", 1, "Cannot find device"},
      {"wg setconf " + dev().name() + " " + file("[Interface]\nListenPort = 1\n[Peer]\nPublicKey = " + badKey + "\n"), 1,
       "line 4"},
  };
  ns.ip("link add v0 type veth peer name v1");
  cases.push_back({"wg set v0 listen-port 1", 1, "not a WireGuard device"});
  cases.push_back({"wg show v0", 1, "not a WireGuard device"});
  for (const auto& c : cases) {
    auto r = cli(c.args);
    EXPECT_EQ(r.status, c.status) << c.args << "\n" << r.err;
    // wg itself exits 1 for every one of them (scripts test it): the oracle, not only the number.
    if (c.wgRefusesToo) {
      EXPECT_EQ(r.status, ns.exec(c.args).status) << c.args;
    }
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_EQ(r.err.find("dwdtCnMY"), std::string::npos) << "key text in the error: " << r.err;
  }
  EXPECT_EQ(wg("show " + dev().name() + " dump"), before);
}

/// Lines of `text`, sorted: wireguard-go lists its peers from a Go map, in a new random order
/// on every request, so two tools asking it can only agree line for line, not in order.
std::vector<std::string> sortedLines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string line; std::getline(ss, line);) out.push_back(line);
  std::sort(out.begin(), out.end());
  return out;
}

/// This device's lines of `show all FIELD` output that lists other devices too (sorted). For
/// `endpoints` wg names the device once, before its first peer (see docs/cli/wg.md): then the
/// block is the `peers` lines after the name.
std::vector<std::string> deviceLines(const std::string& all, const std::string& name, bool nameOnce, std::size_t peers) {
  std::vector<std::string> out;
  std::string start = name + "\t";
  if (nameOnce) {
    auto at = all.find(start);
    if (at == std::string::npos) return out;
    std::stringstream ss(all.substr(at + start.size()));
    for (std::string line; out.size() < peers && std::getline(ss, line);) out.push_back(line);
  } else {
    for (const std::string& line : sortedLines(all))
      if (line.starts_with(start)) out.push_back(line);
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// A config of `count` peers covering every shape a peer line can take: with and without a
/// preshared key, IPv4 / IPv6 / no endpoint, none, one or several allowed IPs (host routes
/// included, which wg prints with /32 and /128), keepalive on and off.
std::string manyPeersConfig(std::size_t count, const WgKey& privateKey) {
  std::string conf = "[Interface]\nListenPort = 51300\nFwMark = 0x1234\nPrivateKey = " + privateKey.toBase64() + "\n";
  for (std::size_t i = 0; i < count; ++i) {
    auto a = std::to_string(i / 250), b = std::to_string(i % 250);
    conf += "\n[Peer]\nPublicKey = " + WgKey::generatePrivate().publicKey().toBase64() + "\n";
    if (i % 3 == 0) conf += "PresharedKey = " + WgKey::generatePreshared().toBase64() + "\n";
    if (i % 5 != 4) {
      conf += "AllowedIPs = 10." + a + "." + b + ".0/24";
      if (i % 2) conf += ", fd00:" + a + ":" + b + "::/64, 172.16." + a + "." + b + "/32";
      if (i % 7 == 0) conf += ", fd01::" + std::to_string(i) + "/128";
      conf += "\n";
    }
    if (i % 4 == 1) conf += "Endpoint = 192.0." + a + "." + b + ":" + std::to_string(1000 + i) + "\n";
    else if (i % 4 == 2) conf += "Endpoint = [2001:db8:" + a + "::" + b + "]:" + std::to_string(40000 + i) + "\n";
    if (i % 6 == 5) conf += "PersistentKeepalive = " + std::to_string(1 + i % 3600) + "\n";
  }
  return conf;
}

// 2,000 peers set by `wg setconf` (the oracle): fastlink's dump, every field, the pretty
// listing and showconf equal wg's. The kernel lists peers in a stable order, so there the
// comparison is byte for byte; wireguard-go reorders them on every request (see sortedLines),
// so there each line must be byte-identical and the totals equal.
TEST_P(WgCliTest, ManyPeersPrintLikeWg) {
  constexpr std::size_t kPeers = 2000;
  // A device without peers first: wg still ends showconf's [Interface] section with a blank line.
  EXPECT_EQ(ok("wg showconf " + dev().name()), wg("showconf " + dev().name()));
  EXPECT_EQ(ok("wg show " + dev().name()), wg("show " + dev().name()));
  wg("setconf " + dev().name() + " " + file(manyPeersConfig(kPeers, WgKey::generatePrivate())));
  bool ordered = GetParam() == WgBackendKind::Kernel;
  auto same = [&](const std::string& args) {
    std::string mine = ok("wg " + args), theirs = wg(args);
    EXPECT_EQ(mine.size(), theirs.size()) << args;
    if (ordered) EXPECT_TRUE(mine == theirs) << args << ": outputs differ";
    else EXPECT_TRUE(sortedLines(mine) == sortedLines(theirs)) << args << ": lines differ";
    return mine;
  };
  std::string dump = same("show " + dev().name() + " dump");
  EXPECT_EQ(std::count(dump.begin(), dump.end(), '\n'), static_cast<long>(kPeers + 1));
  for (const char* field : {"public-key", "private-key", "listen-port", "fwmark", "peers", "preshared-keys", "endpoints",
                            "allowed-ips", "latest-handshakes", "transfer", "persistent-keepalive"})
    same(std::string("show ") + dev().name() + " " + field);
  if (ordered) {
    same("show all dump");
    same("show all endpoints");
  } else {  // `all` also lists every wireguard-go socket of the host, other tests' too
    for (const char* field : {"dump", "endpoints", "allowed-ips"}) {
      bool nameOnce = std::string_view(field) == "endpoints";
      std::size_t lines = kPeers + (nameOnce ? 0 : 1);
      auto mine = deviceLines(ok(std::string("wg show all ") + field), dev().name(), nameOnce, kPeers);
      auto theirs = deviceLines(wg(std::string("show all ") + field), dev().name(), nameOnce, kPeers);
      EXPECT_EQ(theirs.size(), field == std::string_view("dump") ? lines : kPeers) << field;
      EXPECT_TRUE(mine == theirs) << "show all " << field << ": lines differ";
    }
  }
  same("showconf " + dev().name());
  same("show " + dev().name());
}

// A live tunnel (this device and one in a second namespace, joined by a veth): after a ping the
// peer has a handshake time and transfer counters, which the listings print as "N seconds ago",
// "1.23 KiB" and raw numbers; those forms equal wg's too. The handshake's age may tick by a
// second between two processes, so fastlink's output must equal wg's from just before or just
// after it.
TEST_P(WgCliTest, LiveTunnelPrintsHandshakeAndTransferLikeWg) {
  TestNetns right;
  Tunnel t = connect(right, " persistent-keepalive 3725");
  ASSERT_FALSE(HasFailure());
  // Enough traffic for the counters to pass 1 KiB (the "KiB" form).
  ASSERT_EQ(ns.exec("ping -c 3 -i 0.2 -s 600 -W 1 10.78.0.2 >/dev/null").status, 0);

  // Let the handshake age past "Now", so the "N seconds ago" form is the one compared.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  for (const char* form : {"", " latest-handshakes", " transfer", " dump", " persistent-keepalive"}) {
    std::string args = "show " + dev().name() + form;
    std::string before = wg(args), mine = ok("wg " + args), after = wg(args);
    EXPECT_TRUE(mine == before || mine == after) << args << "\nfastlink:\n" << mine << "wg:\n" << before;
  }
  std::string pretty = ok("wg show " + dev().name());
  EXPECT_NE(pretty.find("  latest handshake: "), std::string::npos) << pretty;
  EXPECT_NE(pretty.find(" ago\n"), std::string::npos) << pretty;
  EXPECT_NE(pretty.find(" KiB received, "), std::string::npos) << pretty;
  EXPECT_NE(pretty.find("  persistent keepalive: every 1 hour, 2 minutes, 5 seconds\n"), std::string::npos) << pretty;
}

// syncconf changes one peer and leaves the others' sessions alone: after a handshake with the
// right side, a file that keeps that peer as it is and changes another peer's allowed IPs must
// leave the handshake time and the transfer counters (wg show) as they were. setconf would
// remove and re-add every peer: handshake 0, counters 0 (no traffic follows to redo it).
TEST_P(WgCliTest, SyncconfKeepsTheSessionsOfThePeersItDoesNotChange) {
  TestNetns right;
  Tunnel t = connect(right, "");
  ASSERT_FALSE(HasFailure());
  std::string other = trimmed(run("wg genkey | wg pubkey").out);
  wg("set " + dev().name() + " peer " + other + " allowed-ips 10.79.0.0/24");
  std::string handshake = peerField("latest-handshakes", t.rightPub), transfer = peerField("transfer", t.rightPub);
  ASSERT_NE(handshake, "0");
  ASSERT_NE(transfer.find('\t'), std::string::npos) << transfer;
  ASSERT_NE(transfer, "0\t0");
  std::string conf = "[Interface]\nPrivateKey = " + t.leftKey + "\nListenPort = 51310\n\n[Peer]\nPublicKey = " + t.rightPub +
                     "\nEndpoint = 192.168.78.2:51311\nAllowedIPs = 10.78.0.2/32\n\n[Peer]\nPublicKey = " + other +
                     "\nAllowedIPs = 10.80.0.0/24\n";
  auto r = cli("wg syncconf " + dev().name() + " " + file(conf));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(peerField("allowed-ips", other), "10.80.0.0/24");  // the change was made
  EXPECT_EQ(peerField("latest-handshakes", t.rightPub), handshake);
  // Counters only grow (a passive keepalive may still go out), never restart from 0.
  auto counters = [](const std::string& rxTx) {
    std::size_t tab = rxTx.find('\t');
    return std::pair{std::stoull(rxTx.substr(0, tab)), std::stoull(rxTx.substr(tab + 1))};
  };
  auto [rxBefore, txBefore] = counters(transfer);
  auto [rxAfter, txAfter] = counters(peerField("transfer", t.rightPub));
  EXPECT_GE(rxAfter, rxBefore);
  EXPECT_GE(txAfter, txBefore);
}

// setconf and syncconf state the whole device: a file without PrivateKey, ListenPort and FwMark
// resets them (wg's config_read_init sets all three for both verbs; addconf does not). The
// oracle is wg itself: the same verb, file and starting state give wg's dump. A listen port
// reset to 0 reads back 0 from the kernel (device down); wireguard-go binds a random port
// for 0, so there the port must only have left 51330.
TEST_P(WgCliTest, SetconfAndSyncconfResetWhatTheFileLeavesOut) {
  std::string key = trimmed(ok("wg genkey")), peer = trimmed(run("wg genkey | wg pubkey").out);
  std::string other = trimmed(run("wg genkey | wg pubkey").out);
  std::string start = file("[Interface]\nPrivateKey = " + key + "\nListenPort = 51330\nFwMark = 0x1234\n\n[Peer]\nPublicKey = " +
                           peer + "\nAllowedIPs = 10.81.0.0/24\n");
  std::string peersOnly = file("[Peer]\nPublicKey = " + other + "\nAllowedIPs = 10.82.0.0/24\n");
  // The device line of a dump: private key, public key, listen port, fwmark; the port apart.
  struct DeviceLine {
    std::string withoutPort, port, peers;
  };
  auto dump = [&] {
    std::string d = wg("show " + dev().name() + " dump");
    std::string first = d.substr(0, d.find('\n'));
    std::size_t a = first.find('\t'), b = first.find('\t', a + 1), c = first.find('\t', b + 1);
    return DeviceLine{first.substr(0, b) + first.substr(c), first.substr(b + 1, c - b - 1), d.substr(d.find('\n') + 1)};
  };
  for (const char* verb : {"setconf", "syncconf"}) {
    wg(std::string("setconf ") + dev().name() + " " + start);
    ASSERT_EQ(dump().port, "51330");
    wg(std::string(verb) + " " + dev().name() + " " + peersOnly);
    DeviceLine theirs = dump();
    wg(std::string("setconf ") + dev().name() + " " + start);
    auto r = cli(std::string("wg ") + verb + " " + dev().name() + " " + peersOnly);
    ASSERT_EQ(r.status, 0) << verb << ": " << r.err;
    DeviceLine mine = dump();
    EXPECT_EQ(mine.withoutPort, theirs.withoutPort) << verb;
    EXPECT_EQ(mine.withoutPort, "(none)\t(none)\toff") << verb;
    EXPECT_EQ(mine.peers, theirs.peers) << verb;
    EXPECT_EQ(mine.peers.substr(0, mine.peers.find('\t')), other) << verb;
    if (GetParam() == WgBackendKind::Kernel) {
      EXPECT_EQ(mine.port, "0") << verb;
    }
    EXPECT_NE(mine.port, "51330") << verb;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, WgCliTest, ::testing::Values(WgBackendKind::Userspace, WgBackendKind::Kernel),
                         [](const ::testing::TestParamInfo<WgBackendKind>& info) {
                           return info.param == WgBackendKind::Kernel ? "Kernel" : "Userspace";
                         });

}  // namespace
}  // namespace fastlink::test
