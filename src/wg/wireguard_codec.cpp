// Encoding WG_CMD_SET_DEVICE into a message sequence with an explicit byte budget, and folding
// a WG_CMD_GET_DEVICE dump back into one device. Every attribute is a row of a FieldTable
// (core/attr_fields.hpp, core/attr_rows.hpp): the device's, a peer's, an allowed IP's, each
// declared once for encode and decode. The splitter puts a peer (or an allowed IP) and takes it
// back out when the message went past the budget, so no attribute's size is written twice.
#include "wg/wireguard_codec.hpp"

#include <linux/genetlink.h>
#include <linux/wireguard.h>
#include <sys/socket.h>

#include <memory>

#include "core/attr_rows.hpp"
#include "core/message.hpp"
#include "fastlink/error.hpp"
#include "genl/genl_message.hpp"

namespace fastlink::wg {
namespace {

using core::FieldContext;
using core::FieldTable;
using core::Send;
using core::Wire;
using core::field;

// Errors name the operation, never a key (the rows say "private key is not 32 bytes").
constexpr FieldContext kDecoding{"decode wireguard device"};

/// One allowed IP as the kernel spells it: a prefix in three attributes.
struct AllowedIpAttrs {
  std::optional<uint16_t> family;
  std::optional<IpAddress> address;
  std::optional<uint8_t> cidr;
};

constexpr FieldTable kAllowedIp({
    field<WGALLOWEDIP_A_FAMILY, &AllowedIpAttrs::family>(),
    field<WGALLOWEDIP_A_IPADDR, &AllowedIpAttrs::address>(),
    field<WGALLOWEDIP_A_CIDR_MASK, &AllowedIpAttrs::cidr>(),
});

void encodeAllowedIp(core::MessageWriter& w, const WgAllowedIp& ip) {
  const Prefix& p = ip.prefix;
  kAllowedIp.encode(w, AllowedIpAttrs{uint16_t(p.isV4() ? AF_INET : AF_INET6), p.address(), p.length()});
}

void decodeAllowedIp(std::span<const uint8_t> payload, WgAllowedIp& out, const FieldContext& context) {
  AllowedIpAttrs a;
  core::decodeKnown(kAllowedIp, payload, a, context);
  if (!a.family || !a.address || !a.cidr) core::malformedField(context, "allowed IP without family, address or mask");
  if (*a.family != (a.address->isV4() ? AF_INET : AF_INET6))
    core::malformedField(context, "allowed IP of unknown family or short");
  if (*a.cidr > a.address->bytes().size() * 8) core::malformedField(context, "allowed IP mask beyond the address width");
  out = WgAllowedIp(Prefix(*a.address, *a.cidr));
}

constexpr core::BoolBit<WgPeer> kPeerFlags[] = {
    {WGPEER_F_REMOVE_ME, &WgPeer::remove},
    {WGPEER_F_UPDATE_ONLY, &WgPeer::updateOnly},
    {WGPEER_F_REPLACE_ALLOWEDIPS, &WgPeer::replaceAllowedIps},
};

// Rows in the order they are sent. The allowed IPs are decoded by their row and sent by the
// splitter, a part per message.
constexpr FieldTable kPeer({
    core::fixedBytesField<WGPEER_A_PUBLIC_KEY, &WgPeer::publicKey, "peer public key">(),
    core::bitsField<WGPEER_A_FLAGS, kPeerFlags, Wire::Sent>(),
    core::fixedBytesField<WGPEER_A_PRESHARED_KEY, &WgPeer::presharedKey, "preshared key">(),
    core::sockaddrField<WGPEER_A_ENDPOINT, &WgPeer::endpoint, "endpoint">(),
    field<WGPEER_A_PERSISTENT_KEEPALIVE_INTERVAL, &WgPeer::persistentKeepalive>(),
    core::timespecField<WGPEER_A_LAST_HANDSHAKE_TIME, &WgPeer::lastHandshake, "handshake time", Wire::Reported>(),
    field<WGPEER_A_RX_BYTES, &WgPeer::rxBytes, Wire::Reported>(),
    field<WGPEER_A_TX_BYTES, &WgPeer::txBytes, Wire::Reported>(),
    field<WGPEER_A_PROTOCOL_VERSION, &WgPeer::protocolVersion, Wire::Reported>(),
    core::nestArrayField<WGPEER_A_ALLOWEDIPS, &WgPeer::allowedIps, decodeAllowedIp>(),
});

void decodePeer(std::span<const uint8_t> payload, WgPeer& out, const FieldContext& context) {
  if (!core::decodeKnown(kPeer, payload, out, context).test(WGPEER_A_PUBLIC_KEY))
    core::malformedField(context, "peer without public key");
}

constexpr core::BoolBit<WgDevice> kDeviceFlags[] = {{WGDEVICE_F_REPLACE_PEERS, &WgDevice::replacePeers}};

// The peers are decoded by their row and sent by the splitter.
constexpr FieldTable kDevice({
    core::valueField<WGDEVICE_A_IFNAME, &WgDevice::name, Wire::Native, Send::Always>(),
    core::fixedBytesField<WGDEVICE_A_PRIVATE_KEY, &WgDevice::privateKey, "private key">(),
    field<WGDEVICE_A_LISTEN_PORT, &WgDevice::listenPort>(),
    field<WGDEVICE_A_FWMARK, &WgDevice::fwmark>(),
    core::bitsField<WGDEVICE_A_FLAGS, kDeviceFlags, Wire::Sent>(),
    field<WGDEVICE_A_IFINDEX, &WgDevice::index, Wire::Reported>(),
    core::fixedBytesField<WGDEVICE_A_PUBLIC_KEY, &WgDevice::publicKey, "public key", Wire::Reported>(),
    core::nestArrayField<WGDEVICE_A_PEERS, &WgDevice::peers, decodePeer>(),
});

/// What a peer's later part carries: its key, to name it, and the flags that still apply (a
/// continuation adds allowed IPs to what the first part replaced; it must still not create a
/// peer that update-only left alone).
WgPeer continued(const WgPeer& p) {
  WgPeer c(p.publicKey);
  c.remove = p.remove;
  c.updateOnly = p.updateOnly;
  return c;
}

/// A message of the family (its id resolved by the caller) carrying the device's attributes
/// (`whole`: the first WG_CMD_SET_DEVICE message) or its name alone (a GET, the next SETs).
std::unique_ptr<genl::GenlWriter> startMessage(uint16_t familyId, uint8_t cmd, uint16_t flags, const WgDevice& d,
                                               bool whole = false) {
  auto w = std::make_unique<genl::GenlWriter>(GenlFamily{{}, familyId, WG_GENL_VERSION}, cmd, WG_GENL_VERSION, flags);
  const auto& name = kDevice.rowOf<&WgDevice::name>();
  if (whole) kDevice.encode(*w, d);
  else name.put(*w, name, d);
  return w;
}

std::unique_ptr<genl::GenlWriter> startSet(uint16_t familyId, const WgDevice& d, bool first) {
  return startMessage(familyId, WG_CMD_SET_DEVICE, NLM_F_ACK, d, first);
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
    const std::size_t firstIp = ipIndex;
    std::size_t nest = w->beginNest(0);
    if (firstIp > 0) kPeer.encode(*w, continued(p));
    else kPeer.encode(*w, p);
    if (ipIndex < p.allowedIps.size()) {
      std::size_t ips = w->beginNest(WGPEER_A_ALLOWEDIPS);
      while (ipIndex < p.allowedIps.size()) {
        std::size_t entry = w->beginNest(0);
        encodeAllowedIp(*w, p.allowedIps[ipIndex]);
        w->endNest(entry);
        if (w->size() > budget) {
          w->cancelNest(entry);
          break;
        }
        ++ipIndex;
      }
      if (ipIndex > firstIp) w->endNest(ips);
    }
    // The peer with its first allowed IP (if it has any) must fit, or it starts the next message.
    if (w->size() > budget || (ipIndex == firstIp && firstIp < p.allowedIps.size())) {
      w->cancelNest(nest);
      if (!peerInMessage) throw Error::invalidArgument(operation, "message budget too small for one peer");
      flush();
      continue;
    }
    w->endNest(nest);
    peerInMessage = true;
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
  return startMessage(familyId, WG_CMD_GET_DEVICE, NLM_F_DUMP, WgDevice(name))->toRequest("wg show " + name);
}

void WgDeviceFolder::add(const nlmsghdr* message) {
  std::size_t before = device_.peers.size();
  core::decodeKnown(kDevice, genl::genlPayload(message, kDecoding.what), device_, kDecoding);
  // The kernel continues a peer that did not fit in the next message, starting it with the same
  // public key: its allowed IPs go to the peer already read instead of listing it twice.
  auto& peers = device_.peers;
  if (before > 0 && peers.size() > before && peers[before].publicKey == peers[before - 1].publicKey) {
    auto& into = peers[before - 1].allowedIps;
    into.insert(into.end(), peers[before].allowedIps.begin(), peers[before].allowedIps.end());
    peers.erase(peers.begin() + static_cast<std::ptrdiff_t>(before));
  }
}

}  // namespace fastlink::wg
