// The link-kind registry: one codec per `type KIND`, each in src/rtnl/link_kinds/<file>.cpp.
// Like iproute2's link_util table, but the library only encodes and decodes; parsing words and
// printing live in the CLI (cli/rtnl/link_kinds/).
//
// ---- Adding a kind ------------------------------------------------------------------------------
// One file, src/rtnl/link_kinds/<file>.cpp, that defines its codecs and ends with
//   FASTLINK_LINK_KINDS(<file>, &kMyKind [, &kMyOtherKind])
// The build generates a call to linkKindsOf_<file>() for every file in that directory
// (CMakeLists.txt, link_kinds_index.cpp in the build tree), so nothing else lists kinds, and a
// static-archive link cannot drop a kind: the index references every kind file, and the registry
// is built on first use (no static constructors, so no initialisation-order problem either).
// Options of a new kind live in LinkInfo's typed slot (LinkInfo::kindOptions<T>()), declared in
// include/fastlink/link_kinds/<kind>.hpp; set `optionsType` to typeid(T).
#pragma once

#include <arpa/inet.h>

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <type_traits>
#include <memory>
#include <span>
#include <string_view>
#include <typeinfo>
#include <utility>
#include <vector>

#include "core/message.hpp"
#include "rtnl/codec_helpers.hpp"
#include "fastlink/link.hpp"

namespace fastlink::rtnl {

struct LinkKindCodec {
  std::string_view kind = {};
  /// Which options this kind takes, by name ("macvlan" for macvtap too; "" for none). Options
  /// given for another device type are refused with "<options> options given for a device of type
  /// <kind>"; options given without a type select the kind named like them.
  std::string_view options = {};
  /// The type of the options in LinkInfo's typed slot (kinds added after the typed fields), or
  /// nullptr for kinds whose options are a LinkInfo field (veth, bridge, ...) or that have none.
  const std::type_info* optionsType = nullptr;
  /// For kinds with a LinkInfo field: true when `link` carries it. nullptr otherwise.
  bool (*hasFieldOptions)(const LinkInfo& link) = nullptr;
  /// True when IFLA_INFO_DATA is needed (some option is set).
  bool (*hasData)(const LinkInfo& link) = nullptr;
  /// Writes the attributes inside IFLA_INFO_DATA. Throws Error(EINVAL) on bad values.
  void (*encodeData)(core::MessageWriter& writer, const LinkInfo& link, KeepAlive& keep) = nullptr;
  /// Decodes IFLA_INFO_DATA into `link`; attributes it does not know go to unknownKindData.
  void (*decodeData)(const nlattr* data, LinkInfo& link) = nullptr;
  /// Decodes what a master of this kind reports about each of its ports (IFLA_INFO_SLAVE_DATA
  /// of a device whose IFLA_INFO_SLAVE_KIND is this kind) into `port`; attributes it does not
  /// know go to slaveData. nullptr: all of it is kept in slaveData.
  void (*decodePortData)(const nlattr* data, LinkInfo& port) = nullptr;
  /// The device references inside the options (vxlan dev, gre dev), which LinkApi resolves from
  /// names to ifindexes before encoding. nullptr: none.
  std::vector<Ifref*> (*deviceRefs)(LinkInfo& link) = nullptr;
};

/// The codec of a kind, or nullptr for kinds fastlink does not know (created as-is).
const LinkKindCodec* findLinkKind(std::string_view kind);
/// Every registered kind, sorted by name.
const std::vector<const LinkKindCodec*>& allLinkKinds();

/// Names of the kind options set on `link` (for "options X need type Y" checks). Throws
/// Error(EINVAL) when the typed slot holds a type no kind takes.
std::vector<std::string_view> kindOptionsPresent(const LinkInfo& link);

/// Every device named inside the kind options `link` carries (vxlan dev, gre/ipip link), as
/// pointers into `link` for resolving names to ifindexes. Kinds sharing options appear once.
std::vector<Ifref*> kindDeviceRefs(LinkInfo& link);

/// Helpers for kinds that keep their options in the typed slot.
template <class T>
bool slotHas(const LinkInfo& link) {
  return link.kindOptions<T>() != nullptr;
}

// ---- A kind's attributes: one FieldTable per nest ------------------------------------------------
// Each kind declares the attributes of its IFLA_INFO_DATA (and IFLA_INFO_SLAVE_DATA) once, as a
// core::FieldTable over its options struct, in the order they are sent: the table encodes
// (set members only) and decodes (what no row reads stays raw in unknownKindData / slaveData).
// Values a row cannot take are checked before encoding; attributes whose meaning depends on
// another one (gre's keys on its flags) are decoded by the kind's code after the table.

/// The context of a kind's decode (rows of kinds never throw on addresses: see addressField).
inline constexpr FieldContext kKindContext{"decode link kind data"};

/// Decodes the nest `data` by `table` into a new Options; the rest is kept in `rest`.
template <class Options, std::size_t N>
Options decodeKind(const nlattr* data, const FieldTable<Options, N>& table, RawAttributes& rest) {
  Options options;
  table.decodeNest(data, options, kKindContext, rest);
  return options;
}

// The hooks of a kind whose options are one table, written once: `kMember` is LinkInfo's field
// (&LinkInfo::bond) or, for decodeSlot, the typed slot; what no row reads stays in `kRest`.

/// hasFieldOptions: LinkInfo's `kMember` is set.
template <auto kMember>
bool fieldHas(const LinkInfo& link) {
  return (link.*kMember).has_value();
}
/// encodeData with nothing to check beyond the rows: `kTable` over LinkInfo's `kMember`.
template <auto kMember, const auto& kTable>
void encodeField(core::MessageWriter& w, const LinkInfo& link, KeepAlive&) {
  kTable.encode(w, *(link.*kMember));
}
/// decodeData (decodePortData with kRest = &LinkInfo::slaveData): `kTable` into `kMember`.
template <auto kMember, const auto& kTable, auto kRest = &LinkInfo::unknownKindData>
void decodeField(const nlattr* data, LinkInfo& link) {
  link.*kMember = decodeKind(data, kTable, link.*kRest);
}
/// decodeData of a kind whose options are in the typed slot.
template <const auto& kTable>
void decodeSlot(const nlattr* data, LinkInfo& link) {
  link.setKindOptions(decodeKind(data, kTable, link.unknownKindData));
}

/// An IP address attribute of one width (4: IPv4, 16: IPv6) for `kMember`: an address of the
/// other family is left to its sibling row (vxlan's LOCAL and LOCAL6); a payload of another
/// length is kept raw instead of failing the decode.
template <uint16_t kType, auto kMember, std::size_t kWidth>
constexpr auto addressField() {
  using Info = decltype(fields::ownerOf(kMember));
  auto put = [](core::MessageWriter& w, const AttrField<Info>&, const Info& o) {
    const auto& ip = o.*kMember;
    if (ip && ip->isV4() == (kWidth == 4)) w.putBytes(kType, ip->bytes());
  };
  auto get = [](const nlattr* a, Info& o, const FieldContext&) {
    if (core::readBytes(a).size() != kWidth) return false;
    o.*kMember = IpAddress::fromBytes(core::readBytes(a));
    return true;
  };
  return AttrField<Info>{kType, put, get};
}

/// A u32 in network byte order (geneve's flow label).
template <uint16_t kType, auto kMember>
constexpr auto be32Field() {
  using Info = decltype(fields::ownerOf(kMember));
  auto put = [](core::MessageWriter& w, const AttrField<Info>&, const Info& o) {
    if (o.*kMember) w.putU32(kType, htonl(*(o.*kMember)));
  };
  auto get = [](const nlattr* a, Info& o, const FieldContext&) { return (o.*kMember = ntohl(core::readU32(a)), true); };
  return AttrField<Info>{kType, put, get};
}

/// A u16 whose known values are `kKnown...`: another value stays raw rather than being misread
/// (ipvlan's isolation flags, tun's type).
template <uint16_t kType, auto kMember, auto... kKnown>
constexpr auto knownValueField() {
  using Info = decltype(fields::ownerOf(kMember));
  using V = typename std::remove_reference_t<decltype(std::declval<Info&>().*kMember)>::value_type;
  auto put = [](core::MessageWriter& w, const AttrField<Info>&, const Info& o) {
    if (o.*kMember) putNumber(w, kType, *(o.*kMember));
  };
  auto get = [](const nlattr* a, Info& o, const FieldContext&) {
    V value = readNumber<V>(a);
    if (((value != static_cast<V>(kKnown)) && ...)) return false;
    o.*kMember = value;
    return true;
  };
  return AttrField<Info>{kType, put, get};
}

/// The attribute numbers of an IP tunnel's common options: gre's IFLA_GRE_*, ipip's and
/// ip6tnl's IFLA_IPTUN_*, vti's IFLA_VTI_* are the same options under other numbers. 0: the kind
/// has no such option (vti has no ttl; tos and pmtudisc are IPv4's, encaplimit, flowinfo and the
/// IP6_TNL_F_* flags IPv6's).
struct TunnelAttrs {
  uint16_t link = 0, local = 0, remote = 0, ttl = 0, tos = 0, pmtudisc = 0;
  uint16_t encapLimit = 0, flowinfo = 0, flags = 0, fwmark = 0;
  /// IFLA_*_ENCAP_TYPE; its FLAGS, SPORT and DPORT follow it in every attribute space.
  uint16_t encapType = 0;
  uint16_t collectMetadata = 0;

  constexpr std::size_t count() const {
    std::size_t n = 0;
    for (uint16_t a : {link, local, remote, ttl, tos, pmtudisc, encapLimit, flowinfo, flags, fwmark, collectMetadata})
      n += a != 0;
    return n + (encapType ? 4 : 0);
  }
};

/// The table of an IP tunnel kind: its device, then the kind's own rows (`own`: gre's flags and
/// keys), then local, remote, ttl, tos, pmtudisc, encaplimit, flowinfo and flags (those `kA`
/// names), the kind's `after` rows (ip6tnl's proto), fwmark, encapsulation and external: the
/// order iproute2 sends them in. The rows every IP tunnel shares are declared here once; Info
/// names them dev, local, remote, ttl (`kTtl`: ip6's hoplimit), tos, pmtudisc, encapLimit,
/// flowinfo, flags, fwmark, encapType, encapFlags, encapSport, encapDport and external.
/// `kWidth`: the endpoints' address width (4; 16 for tunnels over IPv6).
template <class Info, TunnelAttrs kA, std::size_t kWidth = 4, auto kTtl = &Info::ttl, std::size_t N = 0, std::size_t M = 0>
constexpr FieldTable<Info, kA.count() + N + M> tunnelFields(const char* devWhat, std::array<AttrField<Info>, N> own = {},
                                                            std::array<AttrField<Info>, M> after = {}) {
  AttrField<Info> rows[kA.count() + N + M] = {};
  std::size_t i = 0;
  rows[i++] = field<kA.link, &Info::dev, Wire::Device>(devWhat);
  for (const auto& row : own) rows[i++] = row;
  rows[i++] = addressField<kA.local, &Info::local, kWidth>();
  rows[i++] = addressField<kA.remote, &Info::remote, kWidth>();
  if constexpr (kA.ttl != 0) rows[i++] = field<kA.ttl, kTtl>();
  if constexpr (kA.tos != 0) rows[i++] = field<kA.tos, &Info::tos>();
  if constexpr (kA.pmtudisc != 0) rows[i++] = field<kA.pmtudisc, &Info::pmtudisc>();
  if constexpr (kA.encapLimit != 0) rows[i++] = field<kA.encapLimit, &Info::encapLimit>();
  if constexpr (kA.flowinfo != 0) rows[i++] = be32Field<kA.flowinfo, &Info::flowinfo>();
  if constexpr (kA.flags != 0) rows[i++] = field<kA.flags, &Info::flags>();
  for (const auto& row : after) rows[i++] = row;
  if constexpr (kA.fwmark != 0) rows[i++] = field<kA.fwmark, &Info::fwmark>();
  if constexpr (kA.encapType != 0) {
    // TYPE, FLAGS, SPORT, DPORT are consecutive in each space (IFLA_GRE_ENCAP_*, IFLA_IPTUN_ENCAP_*);
    // the ports are in network byte order.
    rows[i++] = field<kA.encapType, &Info::encapType>();
    rows[i++] = field<kA.encapType + 1, &Info::encapFlags>();
    rows[i++] = field<kA.encapType + 2, &Info::encapSport, Wire::Be16>();
    rows[i++] = field<kA.encapType + 3, &Info::encapDport, Wire::Be16>();
  }
  if constexpr (kA.collectMetadata != 0) rows[i++] = field<kA.collectMetadata, &Info::external, Wire::Flag>();
  return FieldTable<Info, kA.count() + N + M>(rows);
}

/// An IP tunnel's endpoints must be of its family: IPv4 (gre, ipip, vti), IPv6 with `v6` (ip6tnl,
/// ip6gre, vti6); `rule` says it ("must be an IPv4 address" and what else to use).
template <class T>
void checkEndpoints(const T& o, bool v6, const char* operation, const char* rule) {
  for (auto [ip, what] : {std::pair{&o.local, "local"}, std::pair{&o.remote, "remote"}})
    if (*ip && (*ip)->isV4() == v6) throw Error::invalidArgument(operation, what + std::string(rule));
}

/// deviceRefs of a kind whose options T (in the typed slot) name one device, `dev`.
template <class T>
std::vector<Ifref*> slotDeviceRef(LinkInfo& link) {
  auto* o = link.kindOptions<T>();
  if (o && o->dev) return {&*o->dev};
  return {};
}

/// The codec of a kind whose options T are in LinkInfo's typed slot: `options` names them; IFLA_INFO_DATA
/// is needed when the slot holds a T (or as `hasData` says), and the device T names (`dev`), if it
/// has one, is resolved before encoding.
template <class T>
constexpr LinkKindCodec slotKind(std::string_view kind, std::string_view options,
                                 void (*encode)(core::MessageWriter&, const LinkInfo&, KeepAlive&),
                                 void (*decode)(const nlattr*, LinkInfo&), bool (*hasData)(const LinkInfo&) = slotHas<T>) {
  LinkKindCodec codec{.kind = kind, .options = options, .optionsType = &typeid(T), .hasData = hasData, .encodeData = encode,
                      .decodeData = decode};
  if constexpr (requires(T& o) { o.dev; }) codec.deviceRefs = slotDeviceRef<T>;
  return codec;
}

/// Every codec of the kind files, in file order (the generated index; use allLinkKinds()).
std::vector<const LinkKindCodec*> linkKindsOfEveryFile();

}  // namespace fastlink::rtnl

/// Ends src/rtnl/link_kinds/<file>.cpp: lists the codecs that file defines. `file` must be the
/// file's name without ".cpp" (the generated index calls linkKindsOf_<file>()).
#define FASTLINK_LINK_KINDS(file, ...)                                        \
  namespace fastlink::rtnl {                                                  \
  std::span<const LinkKindCodec* const> linkKindsOf_##file() {                \
    static const LinkKindCodec* const kinds[] = {__VA_ARGS__};                \
    return kinds;                                                             \
  }                                                                           \
  }
