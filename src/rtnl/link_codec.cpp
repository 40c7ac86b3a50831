#include "rtnl/link_codec.hpp"

#include <linux/if.h>
#include <sys/socket.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "rtnl/link_fields.hpp"
#include "rtnl/link_xdp.hpp"

namespace fastlink::rtnl {
namespace {

// IPv4 needs 68; nothing Ethernet-like accepts more than 65535, and lo uses 65536.
constexpr uint32_t kMinMtu = 68;
constexpr uint32_t kMaxMtu = 65536;

Error invalid(const std::string& why) { return Error::invalidArgument("link", why); }

// Kind options need the kind: infer it from the single options struct given, else insist.
std::optional<std::string> effectiveKind(const LinkInfo& link) {
  auto present = kindOptionsPresent(link);
  if (link.kind) {
    // A kind takes the options named in its codec (macvtap takes macvlan's, gretap gre's).
    const LinkKindCodec* codec = findLinkKind(*link.kind);
    for (auto p : present)
      if (!codec || p != codec->options) throw invalid(std::string(p) + " options given for a device of type " + *link.kind);
    return link.kind;
  }
  if (present.size() > 1) throw invalid("options of several link types given at once");
  if (present.size() == 1) return std::string(present.front());
  return std::nullopt;
}

/// The IFF_* bit of a LinkFlag and whether `on` sets it (Arp and Trailers are negated bits).
std::pair<unsigned, bool> deviceFlagBit(LinkFlag flag, bool on) {
  switch (flag) {
    case LinkFlag::Arp: return {IFF_NOARP, !on};
    case LinkFlag::Multicast: return {IFF_MULTICAST, on};
    case LinkFlag::AllMulticast: return {IFF_ALLMULTI, on};
    case LinkFlag::Promisc: return {IFF_PROMISC, on};
    case LinkFlag::Dynamic: return {IFF_DYNAMIC, on};
    case LinkFlag::Trailers: return {IFF_NOTRAILERS, !on};
    case LinkFlag::Carrier: break;
  }
  return {0, false};
}

void validateCommon(const LinkInfo& link, bool create, bool group) {
  if (link.name) validateIfname(*link.name);
  if (link.mtu && (*link.mtu < kMinMtu || *link.mtu > kMaxMtu))
    throw invalid("mtu " + std::to_string(*link.mtu) + " out of range (" + std::to_string(kMinMtu) + "-" +
                  std::to_string(kMaxMtu) + ")");
  if (link.address && link.address->size() == 0) throw invalid("empty link address");
  if (link.kind && (link.kind->empty() || link.kind->size() > 63)) throw invalid("invalid link type");
  if (create && link.alias)
    throw invalid("alias can only be set on an existing device (the kernel ignores it at creation)");
  if (!create) {
    if (link.numTxQueues || link.numRxQueues) throw invalid("numtxqueues/numrxqueues can only be set when creating");
    if (link.parent) throw invalid("the parent link can only be set when creating");
    if (link.veth && link.veth->peerName) throw invalid("a veth peer can only be set when creating");
  }
  if (group) {
    if (link.name || link.index) throw invalid("a group change cannot rename or pick one device");
    if (link.group) throw invalid("a group change cannot move devices to another group; set each device");
    if (!kindOptionsPresent(link).empty() || link.kind) throw invalid("a group change cannot carry link-type options");
    if (link.netns) throw invalid("a group change cannot move devices to another namespace");
  }
}

void encodeLinkInfoNest(core::MessageWriter& w, const LinkInfo& link, const std::string& kind, KeepAlive& keep) {
  std::size_t info = w.beginNest(IFLA_LINKINFO);
  w.putString(IFLA_INFO_KIND, kind);
  if (const LinkKindCodec* codec = findLinkKind(kind); codec && codec->hasData && codec->hasData(link)) {
    std::size_t data = w.beginNest(IFLA_INFO_DATA);
    codec->encodeData(w, link, keep);
    w.endNest(data);
  }
  w.endNest(info);
}

}  // namespace

void encodeLink(core::MessageWriter& w, const LinkInfo& link, Verb verb, KeepAlive& keep, const Ifref* device) {
  bool create = verb == Verb::Add || verb == Verb::Replace;
  validateCommon(link, create, verb == Verb::Set && !device);
  std::optional<std::string> kind = effectiveKind(link);
  if (create && !kind) throw invalid("a new device needs a type (type KIND)");

  auto& ifi = w.putHeader<ifinfomsg>();
  ifi.ifi_family = AF_UNSPEC;
  if (device && device->isIndex()) ifi.ifi_index = static_cast<int>(device->index());
  else if (link.index && !device) ifi.ifi_index = static_cast<int>(*link.index);
  if (link.admin) {
    ifi.ifi_change = IFF_UP;
    ifi.ifi_flags = *link.admin ? IFF_UP : 0;
  }
  std::optional<bool> carrier;
  for (const auto& [flag, on] : link.flagSettings) {
    if (flag == LinkFlag::Carrier) {
      carrier = on;  // an attribute, not a device flag
      continue;
    }
    // Arp and Trailers are the negations of the kernel's IFF_NOARP and IFF_NOTRAILERS.
    auto [bit, set] = deviceFlagBit(flag, on);
    ifi.ifi_change |= bit;
    ifi.ifi_flags = set ? ifi.ifi_flags | bit : ifi.ifi_flags & ~bit;
  }
  if (device && device->isName()) w.putString(IFLA_IFNAME, device->name());
  else if (link.name) w.putString(IFLA_IFNAME, *link.name);
  kLinkFields.encode(w, link);
  if (carrier) w.putU8(IFLA_CARRIER, *carrier ? 1 : 0);
  if (link.netns) encodeNetns(w, *link.netns, keep);
  if (kind) encodeLinkInfoNest(w, link, *kind, keep);
}

const char* operStateWord(uint8_t state) {
  static const char* const kNames[] = {"UNKNOWN", "NOTPRESENT", "DOWN", "LOWERLAYERDOWN", "TESTING", "DORMANT", "UP"};
  return state < std::size(kNames) ? kNames[state] : "UNKNOWN";
}

std::string operStateName(uint8_t state) { return operStateWord(state); }

const char* linkModeWord(uint8_t mode) { return mode == IF_LINK_MODE_DORMANT ? "DORMANT" : "DEFAULT"; }

const nlattr* lastAttr(std::span<const uint8_t> payload, uint16_t type) {
  const nlattr* found = nullptr;
  forEachAttr(payload, [&](const nlattr* a) {
    if (core::attrType(a) == type) found = a;
  });
  return found;
}

LinkStats decodeStats(const nlattr* a) {
  auto k = readStruct<rtnl_link_stats64>(a);  // older kernels send less
  LinkStats s;
  s.rxPackets = k.rx_packets, s.txPackets = k.tx_packets, s.rxBytes = k.rx_bytes, s.txBytes = k.tx_bytes;
  s.rxErrors = k.rx_errors, s.txErrors = k.tx_errors, s.rxDropped = k.rx_dropped, s.txDropped = k.tx_dropped;
  s.multicast = k.multicast, s.collisions = k.collisions;
  s.rxLengthErrors = k.rx_length_errors, s.rxOverErrors = k.rx_over_errors, s.rxCrcErrors = k.rx_crc_errors;
  s.rxFrameErrors = k.rx_frame_errors, s.rxFifoErrors = k.rx_fifo_errors, s.rxMissedErrors = k.rx_missed_errors;
  s.txAbortedErrors = k.tx_aborted_errors, s.txCarrierErrors = k.tx_carrier_errors;
  s.txFifoErrors = k.tx_fifo_errors, s.txHeartbeatErrors = k.tx_heartbeat_errors;
  s.txWindowErrors = k.tx_window_errors, s.rxCompressed = k.rx_compressed, s.txCompressed = k.tx_compressed;
  s.rxNohandler = k.rx_nohandler;
  return s;
}

std::optional<std::string> linkInfoString(const nlattr* linkinfo, uint16_t type) {
  const nlattr* a = lastAttr(core::nestPayload(linkinfo), type);
  return a ? std::optional(core::readString(a)) : std::nullopt;
}

/// IFLA_AF_SPEC -> AF_INET6 -> IFLA_INET6_ADDR_GEN_MODE (the rest of the nest stays raw).
std::optional<Ipv6AddrGenMode> addrGenModeOf(const nlattr* afSpec) {
  const nlattr* inet6 = lastAttr(core::nestPayload(afSpec), AF_INET6);
  if (!inet6) return std::nullopt;
  const nlattr* mode = lastAttr(core::nestPayload(inet6), IFLA_INET6_ADDR_GEN_MODE);
  if (!mode || core::readBytes(mode).size() != 1) return std::nullopt;
  return static_cast<Ipv6AddrGenMode>(core::readU8(mode));
}

void putAddrGenMode(core::MessageWriter& w, const AttrField<LinkInfo>&, const LinkInfo& link) {
  if (!link.addrGenMode) return;
  std::size_t afSpec = w.beginNest(IFLA_AF_SPEC);
  std::size_t inet6 = w.beginNest(AF_INET6);
  w.putU8(IFLA_INET6_ADDR_GEN_MODE, static_cast<uint8_t>(*link.addrGenMode));
  w.endNest(inet6);
  w.endNest(afSpec);
}

bool getAddrGenMode(const nlattr* afSpec, LinkInfo& link, const FieldContext&) {
  link.addrGenMode = addrGenModeOf(afSpec);
  return false;  // the nest is kept raw as well (its other members are not decoded)
}

void decodeLinkInfoNest(const nlattr* nest, LinkInfo& link) {
  core::AttrTable t = core::AttrTable::ofNest(nest, IFLA_INFO_MAX);
  // The last IFLA_LINKINFO decides the kinds, as a view reads them.
  link.kind = linkInfoString(nest, IFLA_INFO_KIND);
  link.slaveKind = linkInfoString(nest, IFLA_INFO_SLAVE_KIND);
  if (auto* a = t.get(IFLA_INFO_SLAVE_DATA)) {
    // The master's kind decodes its ports' data (a bridge: BridgePortInfo).
    const LinkKindCodec* master = link.slaveKind ? findLinkKind(*link.slaveKind) : nullptr;
    if (master && master->decodePortData) master->decodePortData(a, link);
    else keepUnknown(core::AttrTable::ofNest(a, 0), {}, link.slaveData);
  }
  if (auto* data = t.get(IFLA_INFO_DATA)) {
    const LinkKindCodec* codec = link.kind ? findLinkKind(*link.kind) : nullptr;
    if (codec && codec->decodeData) codec->decodeData(data, link);
    else keepUnknown(core::AttrTable::ofNest(data, 0), {}, link.unknownKindData);
  }
}

LinkInfo decodeLink(const nlmsghdr* message, bool withStats) {
  const auto& ifi = headerOf<ifinfomsg>(message, "link");
  LinkInfo link;
  link.index = static_cast<uint32_t>(ifi.ifi_index);
  link.flags = ifi.ifi_flags;
  link.type = ifi.ifi_type;
  link.admin = (ifi.ifi_flags & IFF_UP) != 0;
  // Most of a dumped link's bytes are attributes fastlink keeps raw: one allocation, not one
  // growth step per attribute.
  link.unknown.reserve(message->nlmsg_len);
  // Only the last IFLA_LINKINFO is decoded, after the walk: a second nest (never from a kernel)
  // decoded over the first would leave the first kind's options beside the second's, where a
  // view (linkKindInfo) reads the last nest alone (fuzz seed crash-two-linkinfo-nests).
  const nlattr* linkInfo = nullptr;
  kLinkFields.decodeAll(attrsOf(message, sizeof(ifinfomsg)), link, {"decode link"}, [&](const nlattr* a) {
    switch (core::attrType(a)) {
      case IFLA_OPERSTATE: link.operState = operStateWord(core::readU8(a)); return true;
      case IFLA_LINKMODE: link.linkMode = linkModeWord(core::readU8(a)); return true;
      case IFLA_LINKINFO: linkInfo = a; return true;
      case IFLA_XDP: link.xdp = rtnl::decodeXdpStatusNest(a); return true;
      case IFLA_STATS64:
        if (withStats) link.stats = decodeStats(a);
        return true;
      case IFLA_STATS: return true;  // the 32-bit copy of IFLA_STATS64
    }
    return false;
  });
  if (linkInfo) decodeLinkInfoNest(linkInfo, link);
  return link;
}

std::string describeLink(const std::string& verb, const LinkInfo& link) {
  std::string s = "link " + verb;
  if (link.name) s += " " + *link.name;
  else if (link.index) s += " index " + std::to_string(*link.index);
  if (link.kind) s += " type " + *link.kind;
  if (link.mtu) s += " mtu " + std::to_string(*link.mtu);
  if (link.admin) s += *link.admin ? " up" : " down";
  return s;
}

}  // namespace fastlink::rtnl
