// ipip and sit: IPv4 and IPv6 over IPv4 (IFLA_IPTUN_*), their rows tunnelFields' plus the inner
// protocol, and sit's flags (ISATAP) and 6rd prefixes.
#include <linux/if_link.h>
#include <linux/if_tunnel.h>

#include "fastlink/error.hpp"
#include "fastlink/link_kinds/ipip.hpp"
#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {
namespace {

// A 6rd prefix is two attributes (address, length): one row writes both; the decode collects
// them and builds the Prefix after the table (SixrdReader).
template <uint16_t kAddress, uint16_t kLength, auto kMember, std::size_t kWidth>
void putSixrd(core::MessageWriter& w, const AttrField<IpTunnelInfo>&, const IpTunnelInfo& o) {
  const auto& prefix = o.*kMember;
  if (!prefix || prefix->address().bytes().size() != kWidth) return;
  w.putBytes(kAddress, prefix->address().bytes());
  w.putU16(kLength, prefix->length());
}

struct SixrdReader {
  std::optional<IpAddress> prefix, relay;
  std::optional<uint16_t> prefixLength, relayLength;

  bool operator()(const nlattr* a) {
    auto bytes = core::readBytes(a);
    switch (core::attrType(a)) {
      case IFLA_IPTUN_6RD_PREFIX: return bytes.size() == 16 && (prefix = IpAddress::fromBytes(bytes), true);
      case IFLA_IPTUN_6RD_RELAY_PREFIX: return bytes.size() == 4 && (relay = IpAddress::fromBytes(bytes), true);
      case IFLA_IPTUN_6RD_PREFIXLEN: return (prefixLength = core::readU16(a), true);
      case IFLA_IPTUN_6RD_RELAY_PREFIXLEN: return (relayLength = core::readU16(a), true);
      default: return false;
    }
  }

  void apply(IpTunnelInfo& o) const {
    // A length beyond the width is the kernel's bug, not a reason to fail the dump: left unset.
    if (prefix && prefixLength && *prefixLength <= 128) o.sixrdPrefix = Prefix(*prefix, static_cast<uint8_t>(*prefixLength));
    if (relay && relayLength && *relayLength <= 32) o.sixrdRelayPrefix = Prefix(*relay, static_cast<uint8_t>(*relayLength));
  }
};

constexpr TunnelAttrs kAttrs{.link = IFLA_IPTUN_LINK, .local = IFLA_IPTUN_LOCAL, .remote = IFLA_IPTUN_REMOTE,
                             .ttl = IFLA_IPTUN_TTL, .tos = IFLA_IPTUN_TOS, .pmtudisc = IFLA_IPTUN_PMTUDISC,
                             .fwmark = IFLA_IPTUN_FWMARK, .encapType = IFLA_IPTUN_ENCAP_TYPE,
                             .collectMetadata = IFLA_IPTUN_COLLECT_METADATA};
constexpr auto kFields = tunnelFields<IpTunnelInfo, kAttrs>(
    "tunnel dev", std::array<AttrField<IpTunnelInfo>, 0>{},
    std::array{field<IFLA_IPTUN_PROTO, &IpTunnelInfo::proto>(), field<IFLA_IPTUN_FLAGS, &IpTunnelInfo::flags>(),
               AttrField<IpTunnelInfo>{IFLA_IPTUN_6RD_PREFIX,
                                       putSixrd<IFLA_IPTUN_6RD_PREFIX, IFLA_IPTUN_6RD_PREFIXLEN, &IpTunnelInfo::sixrdPrefix, 16>},
               AttrField<IpTunnelInfo>{IFLA_IPTUN_6RD_RELAY_PREFIX,
                                       putSixrd<IFLA_IPTUN_6RD_RELAY_PREFIX, IFLA_IPTUN_6RD_RELAY_PREFIXLEN,
                                                &IpTunnelInfo::sixrdRelayPrefix, 4>}});

void encodeData(core::MessageWriter& w, const LinkInfo& link, KeepAlive&) {
  const IpTunnelInfo& o = *link.kindOptions<IpTunnelInfo>();
  checkEndpoints(o, false, "ip tunnel", " must be an IPv4 address");
  const bool sit = link.kind == "sit";  // (a string_view of value_or("") would outlive its string)
  if (!sit && (o.flags || o.sixrdPrefix || o.sixrdRelayPrefix))
    throw Error::invalidArgument("ipip", "isatap and 6rd prefixes are sit's (type sit)");
  if (o.sixrdPrefix && o.sixrdPrefix->isV4()) throw Error::invalidArgument("sit", "the 6rd prefix must be an IPv6 prefix");
  if (o.sixrdRelayPrefix && !o.sixrdRelayPrefix->isV4())
    throw Error::invalidArgument("sit", "the 6rd relay prefix must be an IPv4 prefix");
  kFields.encode(w, o);
}

void decodeData(const nlattr* data, LinkInfo& link) {
  IpTunnelInfo o;
  SixrdReader sixrd;
  kFields.decodeAll(core::nestPayload(data), o, kKindContext, sixrd, link.unknownKindData);
  sixrd.apply(o);
  link.setKindOptions(o);
}

}  // namespace

constexpr LinkKindCodec kIpipKind = slotKind<IpTunnelInfo>("ipip", "ipip", encodeData, decodeData);
constexpr LinkKindCodec kSitKind = slotKind<IpTunnelInfo>("sit", "ipip", encodeData, decodeData);

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(ipip, &kIpipKind, &kSitKind)
