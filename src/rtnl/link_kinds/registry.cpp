#include <linux/if_link.h>

#include <algorithm>

#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {

const std::vector<const LinkKindCodec*>& allLinkKinds() {
  static const std::vector<const LinkKindCodec*> kinds = {
      &kVethKind, &kBridgeKind, &kVxlanKind, &kMacvlanKind, &kMacvtapKind, &kVlanKind,
      &kVrfKind,  &kBondKind,   &kDummyKind, &kIfbKind,     &kWireguardKind};
  return kinds;
}

const LinkKindCodec* findLinkKind(std::string_view kind) {
  for (const auto* codec : allLinkKinds())
    if (codec->kind == kind) return codec;
  return nullptr;
}

std::vector<std::string_view> kindOptionsPresent(const LinkInfo& link) {
  std::vector<std::string_view> present;
  if (link.veth) present.push_back("veth");
  if (link.bridge) present.push_back("bridge");
  if (link.vxlan) present.push_back("vxlan");
  if (link.macvlan) present.push_back("macvlan");
  if (link.vlan) present.push_back("vlan");
  if (link.vrf) present.push_back("vrf");
  if (link.bond) present.push_back("bond");
  return present;
}

namespace {
bool noData(const LinkInfo&) { return false; }
void encodeNothing(core::MessageWriter&, const LinkInfo&, KeepAlive&) {}
void keepAll(const nlattr* data, LinkInfo& link) {
  keepUnknown(core::AttrTable::ofNest(data, 0), {}, link.unknownKindData);
}
}  // namespace

// Kinds without options of their own: created and reported by name only.
const LinkKindCodec kDummyKind{"dummy", noData, encodeNothing, keepAll};
const LinkKindCodec kIfbKind{"ifb", noData, encodeNothing, keepAll};
const LinkKindCodec kWireguardKind{"wireguard", noData, encodeNothing, keepAll};

}  // namespace fastlink::rtnl
