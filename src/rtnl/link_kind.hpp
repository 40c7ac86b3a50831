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

#include <cstdint>
#include <functional>
#include <optional>
#include <type_traits>
#include <memory>
#include <span>
#include <string_view>
#include <typeinfo>
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

/// IFLA_INFO_DATA (or IFLA_INFO_SLAVE_DATA) being decoded: options are read into optional
/// fields by the field's type (bool as u8; 1-, 2- and 4-byte integers and enums in host order;
/// u64 by readU64) and every attribute not read is kept in unknownKindData (or slaveData) by
/// keepRest().
class KindAttrs {
 public:
  KindAttrs(const nlattr* data, uint16_t max) : t_(core::AttrTable::ofNest(data, max)) {}
  /// The attribute (or nullptr), counted as read.
  const nlattr* take(uint16_t type) {
    const nlattr* a = t_.get(type);
    if (a) known_.push_back(type);
    return a;
  }
  /// The attribute without counting it as read (for values that may be kept raw).
  const nlattr* peek(uint16_t type) const { return t_.get(type); }
  template <class V>
  void read(uint16_t type, std::optional<V>& field) {
    if (const nlattr* a = take(type)) field = readNumber<V>(a);
  }
  /// A u64 (timers, intervals: nla_put_u64_64bit), which read() does not take.
  void readU64(uint16_t type, std::optional<uint64_t>& field) {
    if (const nlattr* a = take(type)) field = core::readU64(a);
  }
  /// A 16-bit field in network byte order (ports, VLAN protocols).
  template <class V>
  void readBe16(uint16_t type, std::optional<V>& field) {
    if (const nlattr* a = take(type)) field = static_cast<V>(core::readBe16(a));
  }
  /// An address of `length` bytes; one of another length is left unread (kept raw) instead of
  /// failing the decode.
  void address(uint16_t type, std::size_t length, std::optional<IpAddress>& field) {
    const nlattr* a = peek(type);
    if (!a || core::readBytes(a).size() != length) return;
    known_.push_back(type);
    field = IpAddress::fromBytes(core::readBytes(a));
  }
  /// A nonzero ifindex (0 means "no device").
  void device(uint16_t type, std::optional<Ifref>& field) {
    if (const nlattr* a = take(type); a && core::readU32(a) != 0) field = Ifref(core::readU32(a));
  }
  void keepRest(LinkInfo& link) const { keepRest(link.unknownKindData); }
  void keepRest(RawAttributes& out) const { keepUnknown(t_, known_, out); }

 private:
  core::AttrTable t_;
  std::vector<uint16_t> known_;
};

/// Writes an optional option by its type, the inverse of KindAttrs::read.
template <class V>
void putOption(core::MessageWriter& w, uint16_t type, const std::optional<V>& field) {
  if (field) putNumber(w, type, *field);
}

/// The IPv4 tunnel options gre and ipip share (the same members, each kind's attribute types).
struct TunnelAttrTypes {
  uint16_t local, remote, ttl, tos, pmtudisc;
  const char* operation;  // "gre": the error's operation
  const char* endpointRule;  // " must be an IPv4 address..."
};

template <class T>
void encodeTunnel(core::MessageWriter& w, const T& o, const TunnelAttrTypes& types) {
  auto endpoint = [&](uint16_t type, const std::optional<IpAddress>& ip, const char* what) {
    if (!ip) return;
    if (!ip->isV4()) throw Error::invalidArgument(types.operation, what + std::string(types.endpointRule));
    w.putBytes(type, ip->bytes());
  };
  endpoint(types.local, o.local, "local");
  endpoint(types.remote, o.remote, "remote");
  putOption(w, types.ttl, o.ttl);
  putOption(w, types.tos, o.tos);
  putOption(w, types.pmtudisc, o.pmtudisc);
}

template <class T>
void decodeTunnel(KindAttrs& d, T& o, const TunnelAttrTypes& types) {
  d.address(types.local, 4, o.local);
  d.address(types.remote, 4, o.remote);
  d.read(types.ttl, o.ttl);
  d.read(types.tos, o.tos);
  d.read(types.pmtudisc, o.pmtudisc);
}

/// deviceRefs of a kind whose options T (in the typed slot) name one device, `dev`.
template <class T>
std::vector<Ifref*> slotDeviceRef(LinkInfo& link) {
  auto* o = link.kindOptions<T>();
  if (o && o->dev) return {&*o->dev};
  return {};
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
