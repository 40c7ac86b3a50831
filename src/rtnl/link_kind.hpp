// The link-kind registry: one codec per `type KIND`, each in src/rtnl/link_kinds/<file>.cpp.
// Like iproute2's link_util table, but the library only encodes and decodes; parsing words and
// printing live in the CLI (cli/link_kinds/).
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
