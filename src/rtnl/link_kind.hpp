// The link-kind registry: one codec per `type KIND`, each in src/rtnl/link_kinds/<kind>.cpp.
// Like iproute2's link_util table, but the library only encodes and decodes; parsing words and
// printing live in the CLI.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "core/message.hpp"
#include "rtnl/codec_helpers.hpp"
#include "fastlink/link.hpp"

namespace fastlink::rtnl {

struct LinkKindCodec {
  std::string_view kind;
  /// True when `link` carries options of this kind (so IFLA_INFO_DATA is needed).
  bool (*hasData)(const LinkInfo& link);
  /// Writes the attributes inside IFLA_INFO_DATA. Throws Error(EINVAL) on bad values.
  void (*encodeData)(core::MessageWriter& writer, const LinkInfo& link, KeepAlive& keep);
  /// Decodes IFLA_INFO_DATA into `link`; attributes it does not know go to unknownKindData.
  void (*decodeData)(const nlattr* data, LinkInfo& link);
};

/// The codec of a kind, or nullptr for kinds without options we know (created as-is).
const LinkKindCodec* findLinkKind(std::string_view kind);
const std::vector<const LinkKindCodec*>& allLinkKinds();

/// Which kind-option structs are set on `link` (for "options X need type Y" checks).
std::vector<std::string_view> kindOptionsPresent(const LinkInfo& link);

// The codecs, defined in link_kinds/*.cpp.
extern const LinkKindCodec kVethKind;
extern const LinkKindCodec kBridgeKind;
extern const LinkKindCodec kVxlanKind;
extern const LinkKindCodec kMacvlanKind;
extern const LinkKindCodec kMacvtapKind;
extern const LinkKindCodec kVlanKind;
extern const LinkKindCodec kVrfKind;
extern const LinkKindCodec kBondKind;
extern const LinkKindCodec kDummyKind;
extern const LinkKindCodec kIfbKind;
extern const LinkKindCodec kWireguardKind;

}  // namespace fastlink::rtnl
