// WireGuard value types, keys, the wg config format, `wg set` grammar and the UAPI text
// protocol, without any device. Key vectors come from RFC 7748 (section 6.1) and Python's base64.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "fastlink/error.hpp"
#include "fastlink/wireguard.hpp"
#include "wg/backend.hpp"

namespace fastlink {
namespace {

// RFC 7748 6.1: Alice's private key and its X25519 public key, in base64.
constexpr const char* kAlicePrivate = "dwdtCnMYpX08FsFyUbJmRd9ML4frwJkqsXf7pR25LCo=";
constexpr const char* kAlicePublic = "hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo=";
constexpr const char* kCounting = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";  // bytes 0..31

std::string errorText(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::invalid_argument);
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return {};
}

TEST(WgKey, Base64RoundTripAndHex) {
  WgKey k = WgKey::fromBase64(kCounting);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(k.bytes()[i], i);
  EXPECT_EQ(k.toBase64(), kCounting);
  EXPECT_EQ(k.toHex(), "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
  EXPECT_EQ(WgKey::fromHex(k.toHex()), k);
  EXPECT_FALSE(k.isZero());
  EXPECT_TRUE(WgKey().isZero());
}

TEST(WgKey, PublicKeyMatchesRfc7748) {
  EXPECT_EQ(WgKey::fromBase64(kAlicePrivate).publicKey().toBase64(), kAlicePublic);
}

TEST(WgKey, GeneratedKeysAreClampedAndDistinct) {
  WgKey a = WgKey::generatePrivate();
  WgKey b = WgKey::generatePrivate();
  EXPECT_FALSE(a == b);
  EXPECT_EQ(a.bytes()[0] & 7, 0);
  EXPECT_EQ(a.bytes()[31] & 0xc0, 0x40);
  EXPECT_FALSE(WgKey::generatePreshared() == WgKey::generatePreshared());
}

TEST(WgKey, BadKeysSayWhatIsWrongWithoutTheText) {
  std::string bad = "dwdtCnMYpX08FsFyUbJmRd9ML4frwJkqsXf7pR25LC*=";  // one bad character
  std::string e1 = errorText([&] { WgKey::fromBase64(bad); });
  EXPECT_NE(e1.find("base64"), std::string::npos) << e1;
  EXPECT_EQ(e1.find("dwdtCnMY"), std::string::npos) << e1;
  std::string e2 = errorText([] { WgKey::fromBase64("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=="); });  // 31 bytes
  EXPECT_NE(e2.find("31 bytes"), std::string::npos) << e2;
  std::string e3 = errorText([] { WgKey::fromBase64("c2hvcnQ="); });
  EXPECT_NE(e3.find("44 characters"), std::string::npos) << e3;
  EXPECT_EQ(e3.find("c2hvcnQ"), std::string::npos) << e3;
  errorText([] { WgKey::fromHex("zz"); });
}

TEST(WgEndpoint, ParsesV4AndBracketedV6AndRefusesMissingPorts) {
  EXPECT_EQ(WgEndpoint::parse("192.0.2.1:51820").toString(), "192.0.2.1:51820");
  EXPECT_EQ(WgEndpoint::parse("[2001:db8::1]:443").toString(), "[2001:db8::1]:443");
  EXPECT_NE(errorText([] { WgEndpoint::parse("192.0.2.1"); }).find("no port"), std::string::npos);
  EXPECT_NE(errorText([] { WgEndpoint::parse("[2001:db8::1]"); }).find("no port"), std::string::npos);
  errorText([] { WgEndpoint::parse("2001:db8::1:80"); });
  errorText([] { WgEndpoint::parse("192.0.2.1:70000"); });
}

TEST(WgAllowedIp, RefusesHostBits) {
  EXPECT_EQ(WgAllowedIp::parse("10.0.0.0/24").toString(), "10.0.0.0/24");
  EXPECT_EQ(WgAllowedIp::parse("10.0.0.7").toString(), "10.0.0.7/32");
  EXPECT_NE(errorText([] { WgAllowedIp::parse("10.0.0.1/24"); }).find("host bits"), std::string::npos);
}

constexpr const char* kConfig = R"([Interface]
# comment
PrivateKey = dwdtCnMYpX08FsFyUbJmRd9ML4frwJkqsXf7pR25LCo=
ListenPort = 51820
FwMark = 0x10

[Peer]
PublicKey = hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo=
PresharedKey = AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=
AllowedIPs = 10.0.0.0/24, fd00::/64
AllowedIPs = 10.1.0.1/32
Endpoint = [2001:db8::1]:51820
PersistentKeepalive = 25
)";

TEST(WgConfig, ParsesAndPrintsLikeWgShowconf) {
  WgDevice d = parseWgConfig(kConfig, "wg0");
  EXPECT_EQ(d.name, "wg0");
  EXPECT_EQ(d.privateKey->toBase64(), kAlicePrivate);
  EXPECT_EQ(d.listenPort, 51820);
  EXPECT_EQ(d.fwmark, 16u);
  ASSERT_EQ(d.peers.size(), 1u);
  EXPECT_TRUE(d.peers[0].replaceAllowedIps);
  EXPECT_EQ(d.peers[0].allowedIps.size(), 3u);
  EXPECT_EQ(formatWgConfig(d),
            "[Interface]\nListenPort = 51820\nFwMark = 0x10\nPrivateKey = dwdtCnMYpX08FsFyUbJmRd9ML4frwJkqsXf7pR25LCo=\n"
            "\n[Peer]\nPublicKey = hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo=\n"
            "PresharedKey = AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n"
            "AllowedIPs = 10.0.0.0/24, fd00::/64, 10.1.0.1/32\nEndpoint = [2001:db8::1]:51820\n"
            "PersistentKeepalive = 25\n");
  // Without peers wg still ends the [Interface] section with a blank line.
  d.peers.clear();
  EXPECT_EQ(formatWgConfig(d),
            "[Interface]\nListenPort = 51820\nFwMark = 0x10\nPrivateKey = dwdtCnMYpX08FsFyUbJmRd9ML4frwJkqsXf7pR25LCo=\n\n");
}

TEST(WgConfig, ErrorsNameTheLineAndNeverTheKey) {
  std::string text = "[Interface]\nListenPort = 1\nPrivateKey = dwdtCnMYpX08FsFyUbJmRd9ML4frwJkqsXf7pR25LC\n";
  try {
    parseWgConfig(text);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.line(), 3u);
    EXPECT_EQ(std::string(e.what()).find("dwdtCnMY"), std::string::npos) << e.what();
  }
  for (auto [bad, line] : std::vector<std::pair<std::string, std::size_t>>{
           {"[Interface]\nAddress = 10.0.0.1/24\n", 2},
           {"[Peer]\nAllowedIPs = 10.0.0.0/24\n", 1},  // no PublicKey
           {"[Peer]\nPublicKey = hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo=\n\nEndpoint = 1.2.3.4\n", 4},
           {"ListenPort = 1\n", 1},
           {"[Interface]\nListenPort = 99999\n", 2},
           {"[Bogus]\n", 1}}) {
    try {
      parseWgConfig(bad);
      ADD_FAILURE() << "no error for " << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.line(), line) << bad << " -> " << e.what();
    }
  }
}

TEST(WgSetArgs, ParsesWgSetGrammar) {
  auto files = [](const std::string& path) -> std::string {
    if (path == "/keys/priv") return std::string(kAlicePrivate) + "\n";
    if (path == "/dev/null") return "";
    throw Error::invalidArgument("read", "no such file");
  };
  WgDevice d = parseWgSetArgs({"listen-port", "51820", "fwmark", "off", "private-key", "/keys/priv", "peer", kAlicePublic,
                               "preshared-key", "/dev/null", "endpoint", "192.0.2.1:1", "persistent-keepalive", "off",
                               "allowed-ips", "10.0.0.0/8,fd00::/8", "peer", kCounting, "remove"},
                              "wg0", files);
  EXPECT_EQ(d.listenPort, 51820);
  EXPECT_EQ(d.fwmark, 0u);
  EXPECT_EQ(d.privateKey->toBase64(), kAlicePrivate);
  ASSERT_EQ(d.peers.size(), 2u);
  EXPECT_TRUE(d.peers[0].presharedKey->isZero());
  EXPECT_EQ(d.peers[0].persistentKeepalive, 0);
  EXPECT_TRUE(d.peers[0].replaceAllowedIps);
  EXPECT_EQ(d.peers[0].allowedIps.size(), 2u);
  EXPECT_TRUE(d.peers[1].remove);
  errorText([&] { parseWgSetArgs({"peer", kAlicePublic, "allowed-ips", "10.0.0.1/8"}, "wg0", files); });
  errorText([&] { parseWgSetArgs({"remove"}, "wg0", files); });
  errorText([&] { parseWgSetArgs({"listen-port"}, "wg0", files); });
}

TEST(WgUapi, SetRequestHasEveryFlagInWgsOrder) {
  WgDevice d("wg0");
  d.setPrivateKey(WgKey::fromBase64(kCounting)).setListenPort(1).setFwmark(2).setReplacePeers();
  WgPeer p(WgKey::fromBase64(kCounting));
  p.setUpdateOnly().setEndpoint(WgEndpoint::parse("[::1]:3")).setPersistentKeepalive(4).setReplaceAllowedIps()
      .addAllowedIp(WgAllowedIp::parse("10.0.0.0/8"));
  d.addPeer(p).addPeer(WgPeer(WgKey()).setRemove());
  std::string hex = WgKey::fromBase64(kCounting).toHex();
  EXPECT_EQ(wg::uapiSetRequest(d), "set=1\nprivate_key=" + hex + "\nlisten_port=1\nfwmark=2\nreplace_peers=true\n" +
                                       "public_key=" + hex + "\nupdate_only=true\nendpoint=[::1]:3\n" +
                                       "persistent_keepalive_interval=4\nreplace_allowed_ips=true\n" +
                                       "allowed_ip=10.0.0.0/8\npublic_key=" + std::string(64, '0') +
                                       "\nremove=true\n\n");
}

TEST(WgUapi, ParsesGetReplyAndErrno) {
  std::string hex = WgKey::fromBase64(kAlicePrivate).toHex();
  std::string reply = "private_key=" + hex + "\nlisten_port=51820\nfwmark=0\npublic_key=" + std::string(64, '1') +
                      "\npreshared_key=" + std::string(64, '0') +
                      "\nprotocol_version=1\nendpoint=192.0.2.1:9\nlast_handshake_time_sec=5\n"
                      "last_handshake_time_nsec=6\ntx_bytes=7\nrx_bytes=8\npersistent_keepalive_interval=0\n"
                      "allowed_ip=10.0.0.0/24\nallowed_ip=fd00::/64\nerrno=0\n\n";
  WgDevice d = wg::uapiParseGet(reply, "wg0", "get");
  EXPECT_EQ(d.publicKey->toBase64(), kAlicePublic);
  EXPECT_EQ(d.listenPort, 51820);
  ASSERT_EQ(d.peers.size(), 1u);
  EXPECT_EQ(d.peers[0].endpoint->toString(), "192.0.2.1:9");
  EXPECT_EQ(d.peers[0].lastHandshake, (WgTime{5, 6}));
  EXPECT_EQ(d.peers[0].txBytes, 7u);
  EXPECT_EQ(d.peers[0].rxBytes, 8u);
  EXPECT_EQ(d.peers[0].allowedIps.size(), 2u);
  try {
    wg::uapiParseGet("errno=-22\n\n", "wg0", "wg show wg0");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("wg show wg0"), std::string::npos);
  }
  EXPECT_THROW(wg::uapiParseGet("listen_port=1\n\n", "wg0", "get"), Error);
}

/// A stand-in for a userspace daemon in a child process: it serves DIR/fwgu0.sock, reads one
/// request, then either works (spins on the CPU for `busy`) and answers "errno=0", or (`busy`
/// zero) sleeps without answering, like a deadlocked one.
class FakeUapiDaemon {
 public:
  FakeUapiDaemon(std::chrono::milliseconds busy) {
    char dir[] = "/tmp/fastlink-uapi-XXXXXX";
    directory = ::mkdtemp(dir);
    std::string path = directory + "/fwgu0.sock";
    int ready[2];
    if (::pipe(ready) != 0) throw std::runtime_error("pipe");
    pid_ = ::fork();
    if (pid_ == 0) {
      int listener = ::socket(AF_UNIX, SOCK_STREAM, 0);
      sockaddr_un addr{};
      addr.sun_family = AF_UNIX;
      std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
      if (::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listener, 1) != 0) ::_exit(1);
      (void)!::write(ready[1], "r", 1);
      int client = ::accept(listener, nullptr, nullptr);
      std::string request;
      char buf[256];
      while (!request.ends_with("\n\n")) {
        ssize_t n = ::read(client, buf, sizeof buf);
        if (n <= 0) ::_exit(2);
        request.append(buf, static_cast<std::size_t>(n));
      }
      if (busy.count() == 0) for (;;) ::pause();
      auto until = std::chrono::steady_clock::now() + busy;
      while (std::chrono::steady_clock::now() < until) {
      }
      (void)!::write(client, "errno=0\n\n", 9);
      ::pause();
    }
    char byte;
    (void)!::read(ready[0], &byte, 1);
    ::close(ready[0]);
    ::close(ready[1]);
  }
  ~FakeUapiDaemon() {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    ::unlink((directory + "/fwgu0.sock").c_str());
    ::rmdir(directory.c_str());
  }
  std::string directory;

 private:
  pid_t pid_;
};

double secondsOf(const std::function<void()>& f) {
  auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// wg(8) waits for a userspace daemon however long it takes; fastlink waits as long as the daemon
// uses CPU (wireguard-go formatting thousands of peers under a slow CPU), and fails a daemon
// that neither answers nor works for one `silence` (here 400 ms): stopped or deadlocked.
TEST(WgUapi, WaitsForAWorkingDaemonAndFailsASilentIdleOne) {
  constexpr auto kSilence = std::chrono::milliseconds(400);
  {
    FakeUapiDaemon working(std::chrono::milliseconds(2000));
    wg::UapiBackend backend(working.directory, kSilence);
    double took = secondsOf([&] {
      try {
        backend.get("fwgu0");
      } catch (const Error& e) {
        ADD_FAILURE() << "a daemon using CPU for 2 s was given up on: " << e.what();
      }
    });
    EXPECT_GE(took, 1.9) << "the reply came before the daemon sent it?";
  }
  FakeUapiDaemon idle(std::chrono::milliseconds(0));
  wg::UapiBackend backend(idle.directory, kSilence);
  double took = secondsOf([&] {
    try {
      backend.get("fwgu0");
      ADD_FAILURE() << "a daemon that never answers got no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), std::errc::timed_out);
      EXPECT_NE(std::string(e.what()).find("did not answer in 400 ms and used no CPU meanwhile"), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("wg show fwgu0 (userspace)"), std::string::npos) << e.what();
    }
  });
  EXPECT_LT(took, 5.0) << "an idle daemon must fail after one silence, not hang";
}

}  // namespace
}  // namespace fastlink
