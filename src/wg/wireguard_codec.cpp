// Encoding WG_CMD_SET_DEVICE into a message sequence with an explicit byte budget, and folding
// a WG_CMD_GET_DEVICE dump back into one device. The splitter computes every attribute's size
// before putting it (all attributes are 4-byte aligned, so a message's size is the sum of its
// parts), so it never has to cancel a half-built nest and never depends on MessageWriter's cap.
#include "wg/wireguard_codec.hpp"

#include <arpa/inet.h>
#include <linux/genetlink.h>
#include <linux/time_types.h>
#include <linux/wireguard.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstring>
#include <memory>

#include "core/message.hpp"
#include "fastlink/error.hpp"

namespace fastlink::wg {
namespace {

constexpr std::size_t attrSize(std::size_t payload) { return NLA_HDRLEN + NLA_ALIGN(payload); }
constexpr std::size_t kNestHeader = NLA_HDRLEN;
constexpr std::size_t kKeyAttr = attrSize(WG_KEY_LEN);
constexpr std::size_t kU16Attr = attrSize(2);
constexpr std::size_t kU32Attr = attrSize(4);

std::size_t endpointSize(const WgEndpoint& e) { return attrSize(e.address.isV4() ? sizeof(sockaddr_in) : sizeof(sockaddr_in6)); }

std::size_t allowedIpSize(const WgAllowedIp& ip) {
  return kNestHeader + kU16Attr + attrSize(ip.prefix.isV4() ? 4 : 16) + attrSize(1);
}

uint32_t peerFlags(const WgPeer& p, bool continuation) {
  uint32_t flags = 0;
  if (p.remove) flags |= WGPEER_F_REMOVE_ME;
  // A continuation only adds allowed IPs to a peer the first part created or changed; it must
  // still not create a peer that update-only left alone.
  if (p.updateOnly) flags |= WGPEER_F_UPDATE_ONLY;
  if (p.replaceAllowedIps && !continuation) flags |= WGPEER_F_REPLACE_ALLOWEDIPS;
  return flags;
}

/// Bytes of a peer's nest without its allowed-IP entries (with the ALLOWEDIPS nest header when
/// entries are left to send).
std::size_t peerHeadSize(const WgPeer& p, bool continuation, bool ipsLeft) {
  std::size_t n = kNestHeader + kKeyAttr;
  if (peerFlags(p, continuation)) n += kU32Attr;
  if (!continuation) {
    if (p.presharedKey) n += kKeyAttr;
    if (p.endpoint) n += endpointSize(*p.endpoint);
    if (p.persistentKeepalive) n += kU16Attr;
  }
  if (ipsLeft) n += kNestHeader;
  return n;
}

void putEndpoint(core::MessageWriter& w, const WgEndpoint& e) {
  if (e.address.isV4()) {
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(e.port);
    std::memcpy(&sa.sin_addr, e.address.bytes().data(), 4);
    w.putBytes(WGPEER_A_ENDPOINT, {reinterpret_cast<const uint8_t*>(&sa), sizeof sa});
  } else {
    sockaddr_in6 sa{};
    sa.sin6_family = AF_INET6;
    sa.sin6_port = htons(e.port);
    std::memcpy(&sa.sin6_addr, e.address.bytes().data(), 16);
    w.putBytes(WGPEER_A_ENDPOINT, {reinterpret_cast<const uint8_t*>(&sa), sizeof sa});
  }
}

void putAllowedIp(core::MessageWriter& w, const WgAllowedIp& ip) {
  std::size_t nest = w.beginNest(0);
  w.putU16(WGALLOWEDIP_A_FAMILY, ip.prefix.isV4() ? AF_INET : AF_INET6);
  w.putBytes(WGALLOWEDIP_A_IPADDR, ip.prefix.address().bytes());
  w.putU8(WGALLOWEDIP_A_CIDR_MASK, ip.prefix.length());
  w.endNest(nest);
}

std::unique_ptr<core::MessageWriter> startSet(uint16_t familyId, const WgDevice& d, bool first) {
  auto w = std::make_unique<core::MessageWriter>(familyId, NLM_F_ACK);
  auto& g = w->putHeader<genlmsghdr>();
  g.cmd = WG_CMD_SET_DEVICE;
  g.version = WG_GENL_VERSION;
  w->putString(WGDEVICE_A_IFNAME, d.name);
  if (first) {
    if (d.privateKey) w->putBytes(WGDEVICE_A_PRIVATE_KEY, d.privateKey->bytes());
    if (d.listenPort) w->putU16(WGDEVICE_A_LISTEN_PORT, *d.listenPort);
    if (d.fwmark) w->putU32(WGDEVICE_A_FWMARK, *d.fwmark);
    if (d.replacePeers) w->putU32(WGDEVICE_A_FLAGS, WGDEVICE_F_REPLACE_PEERS);
  }
  return w;
}

Error malformed(std::string why) { return Error(make_error_code(Errc::malformed_reply), "decode wireguard device", std::move(why)); }

WgKey readKey(const nlattr* a, const char* what) {
  auto b = core::readBytes(a);
  if (b.size() != WG_KEY_LEN) throw malformed(std::string(what) + " is not 32 bytes");
  return WgKey(std::span<const uint8_t, WgKey::kSize>(b.data(), WgKey::kSize));
}

WgEndpoint readEndpoint(const nlattr* a) {
  auto b = core::readBytes(a);
  sa_family_t family = 0;
  if (b.size() < sizeof family) throw malformed("endpoint too short");
  std::memcpy(&family, b.data(), sizeof family);
  WgEndpoint e;
  if (family == AF_INET && b.size() >= sizeof(sockaddr_in)) {
    sockaddr_in sa;
    std::memcpy(&sa, b.data(), sizeof sa);
    e.address = IpAddress::fromBytes({reinterpret_cast<const uint8_t*>(&sa.sin_addr), 4});
    e.port = ntohs(sa.sin_port);
  } else if (family == AF_INET6 && b.size() >= sizeof(sockaddr_in6)) {
    sockaddr_in6 sa;
    std::memcpy(&sa, b.data(), sizeof sa);
    e.address = IpAddress::fromBytes({reinterpret_cast<const uint8_t*>(&sa.sin6_addr), 16});
    e.port = ntohs(sa.sin6_port);
  } else {
    throw malformed("endpoint of unknown family or short");
  }
  return e;
}

WgAllowedIp readAllowedIp(const nlattr* a) {
  auto t = core::AttrTable::ofNest(a, WGALLOWEDIP_A_MAX);
  if (!t.has(WGALLOWEDIP_A_FAMILY) || !t.has(WGALLOWEDIP_A_IPADDR) || !t.has(WGALLOWEDIP_A_CIDR_MASK))
    throw malformed("allowed IP without family, address or mask");
  uint16_t family = core::readU16(t.get(WGALLOWEDIP_A_FAMILY));
  auto addr = core::readBytes(t.get(WGALLOWEDIP_A_IPADDR));
  std::size_t want = family == AF_INET ? 4 : family == AF_INET6 ? 16 : 0;
  if (!want || addr.size() < want) throw malformed("allowed IP of unknown family or short");
  uint8_t cidr = core::readU8(t.get(WGALLOWEDIP_A_CIDR_MASK));
  if (cidr > want * 8) throw malformed("allowed IP mask beyond the address width");
  return WgAllowedIp(Prefix(IpAddress::fromBytes(addr.first(want)), cidr));
}

WgPeer readPeer(const nlattr* a) {
  auto t = core::AttrTable::ofNest(a, WGPEER_A_MAX);
  if (!t.has(WGPEER_A_PUBLIC_KEY)) throw malformed("peer without public key");
  WgPeer p(readKey(t.get(WGPEER_A_PUBLIC_KEY), "peer public key"));
  if (auto x = t.get(WGPEER_A_PRESHARED_KEY)) p.presharedKey = readKey(x, "preshared key");
  if (auto x = t.get(WGPEER_A_ENDPOINT)) p.endpoint = readEndpoint(x);
  if (auto x = t.get(WGPEER_A_PERSISTENT_KEEPALIVE_INTERVAL)) p.persistentKeepalive = core::readU16(x);
  if (auto x = t.get(WGPEER_A_LAST_HANDSHAKE_TIME)) {
    auto b = core::readBytes(x);
    if (b.size() != sizeof(__kernel_timespec)) throw malformed("handshake time is not a timespec");
    __kernel_timespec ts;
    std::memcpy(&ts, b.data(), sizeof ts);
    p.lastHandshake = WgTime{ts.tv_sec, ts.tv_nsec};
  }
  if (auto x = t.get(WGPEER_A_RX_BYTES)) p.rxBytes = core::readU64(x);
  if (auto x = t.get(WGPEER_A_TX_BYTES)) p.txBytes = core::readU64(x);
  if (auto x = t.get(WGPEER_A_PROTOCOL_VERSION)) p.protocolVersion = core::readU32(x);
  if (auto x = t.get(WGPEER_A_ALLOWEDIPS)) {
    core::AttrTable ips(core::readBytes(x), 0);
    for (const nlattr* ip : ips.all()) p.allowedIps.push_back(readAllowedIp(ip));
  }
  return p;
}

}  // namespace

std::vector<Request> encodeWgSetDevice(uint16_t familyId, const WgDevice& d, std::size_t budget) {
  validateIfname(d.name);
  const std::string operation = "wg set " + d.name;  // never the keys
  for (const WgPeer& p : d.peers)
    for (const WgAllowedIp& ip : p.allowedIps)
      if (ip.prefix.hasHostBits())
        throw Error::invalidArgument(operation, "allowed IP " + ip.toString() + " has host bits set");

  std::vector<Request> out;
  auto w = startSet(familyId, d, true);
  if (w->size() > budget) throw Error::invalidArgument(operation, "message budget too small for the device");
  if (d.peers.empty()) {
    out.push_back(w->toRequest(operation));
    return out;
  }
  std::size_t peers = w->beginNest(WGDEVICE_A_PEERS);
  bool peerInMessage = false;
  auto flush = [&] {
    w->endNest(peers);
    out.push_back(w->toRequest(operation));
    w = startSet(familyId, d, false);
    peers = w->beginNest(WGDEVICE_A_PEERS);
    peerInMessage = false;
  };
  std::size_t ipIndex = 0;
  for (std::size_t i = 0; i < d.peers.size();) {
    const WgPeer& p = d.peers[i];
    const bool continuation = ipIndex > 0;
    const bool ipsLeft = ipIndex < p.allowedIps.size();
    std::size_t need = peerHeadSize(p, continuation, ipsLeft) + (ipsLeft ? allowedIpSize(p.allowedIps[ipIndex]) : 0);
    if (w->size() + need > budget) {
      if (!peerInMessage) throw Error::invalidArgument(operation, "message budget too small for one peer");
      flush();
      continue;
    }
    std::size_t nest = w->beginNest(0);
    peerInMessage = true;
    w->putBytes(WGPEER_A_PUBLIC_KEY, p.publicKey.bytes());
    if (uint32_t flags = peerFlags(p, continuation)) w->putU32(WGPEER_A_FLAGS, flags);
    if (!continuation) {
      if (p.presharedKey) w->putBytes(WGPEER_A_PRESHARED_KEY, p.presharedKey->bytes());
      if (p.endpoint) putEndpoint(*w, *p.endpoint);
      if (p.persistentKeepalive) w->putU16(WGPEER_A_PERSISTENT_KEEPALIVE_INTERVAL, *p.persistentKeepalive);
    }
    if (ipsLeft) {
      std::size_t ips = w->beginNest(WGPEER_A_ALLOWEDIPS);
      while (ipIndex < p.allowedIps.size() && w->size() + allowedIpSize(p.allowedIps[ipIndex]) <= budget)
        putAllowedIp(*w, p.allowedIps[ipIndex++]);
      w->endNest(ips);
    }
    w->endNest(nest);
    if (ipIndex < p.allowedIps.size()) {
      flush();  // the same peer goes on in the next message
    } else {
      ++i;
      ipIndex = 0;
    }
  }
  w->endNest(peers);
  out.push_back(w->toRequest(operation));
  return out;
}

Request encodeWgGetDevice(uint16_t familyId, const std::string& name) {
  validateIfname(name);
  core::MessageWriter w(familyId, NLM_F_DUMP);
  auto& g = w.putHeader<genlmsghdr>();
  g.cmd = WG_CMD_GET_DEVICE;
  g.version = WG_GENL_VERSION;
  w.putString(WGDEVICE_A_IFNAME, name);
  return w.toRequest("wg show " + name);
}

void WgDeviceFolder::add(const nlmsghdr* message) {
  if (message->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN) throw malformed("message shorter than its headers");
  auto t = core::AttrTable::ofMessage(message, GENL_HDRLEN, WGDEVICE_A_MAX);
  if (auto x = t.get(WGDEVICE_A_IFINDEX)) device_.index = core::readU32(x);
  if (auto x = t.get(WGDEVICE_A_IFNAME)) device_.name = core::readString(x);
  if (auto x = t.get(WGDEVICE_A_PRIVATE_KEY)) device_.privateKey = readKey(x, "private key");
  if (auto x = t.get(WGDEVICE_A_PUBLIC_KEY)) device_.publicKey = readKey(x, "public key");
  if (auto x = t.get(WGDEVICE_A_LISTEN_PORT)) device_.listenPort = core::readU16(x);
  if (auto x = t.get(WGDEVICE_A_FWMARK)) device_.fwmark = core::readU32(x);
  if (auto x = t.get(WGDEVICE_A_PEERS)) {
    core::AttrTable peers(core::readBytes(x), 0);
    bool first = true;
    for (const nlattr* a : peers.all()) {
      WgPeer p = readPeer(a);
      // The kernel continues a peer that did not fit in the next message, starting it with
      // the same public key: append its allowed IPs instead of listing it twice.
      if (first && !device_.peers.empty() && device_.peers.back().publicKey == p.publicKey) {
        auto& into = device_.peers.back().allowedIps;
        into.insert(into.end(), p.allowedIps.begin(), p.allowedIps.end());
      } else {
        device_.peers.push_back(std::move(p));
      }
      first = false;
    }
  }
}

}  // namespace fastlink::wg
